import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./authentication.js"
import { documentPageHeaders } from "./pagination.js"
import { problems } from "./problems.js"
import { API_ROUTE_ERRORS, BODY_ERRORS, POST_ERRORS } from "../shared/wire-errors.js"
import { CreatedTag, CreateTagRequest, Tag, TagList, TagListParams, TagNamePath, TagPath, UpdateTagRequest } from "./tag-schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const TagsGroup = HttpApiGroup.make("tags")
  .add(
    HttpApiEndpoint.post("create", "/tags")
      .setPayload(CreateTagRequest)
      .addSuccess(CreatedTag)
      .pipe(problems.endpoint("conflict", "tag_limit_reached", ...POST_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Create a tag",
        description: "Creates a tag with no subscribers, `public` unless `visibility` says `private`. The slug is made " +
          "from the name when left out. 409 `conflict` when the name (regardless of letter case) or the slug is taken in " +
          "the organization; 409 `tag_limit_reached` when the organization holds 1,000 tags already. Scope `tags:write`."
      }))
  )
  .add(
    HttpApiEndpoint.get("list", "/tags")
      .setUrlParams(TagListParams)
      .addSuccess(TagList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .annotateContext(OpenApi.annotations({
        summary: "List tags",
        description: "One page of the organization's tags. Follow `next_cursor` (or the `Link` header) for the next " +
          "page with the same `sort` and `order`. Scope `tags:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("getByName", "/tags/by-name/:name")
      .setPath(TagNamePath)
      .addSuccess(Tag)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({
        summary: "Find a tag by name",
        description: "The tag with this name (URL-encoded in the path), compared regardless of letter case. Scope `tags:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/tags/:tag_id")
      .setPath(TagPath)
      .addSuccess(Tag)
      .pipe(problems.endpoint("not_found"))
      .annotateContext(OpenApi.annotations({ summary: "Get a tag", description: "Scope `tags:read`." }))
  )
  .add(
    HttpApiEndpoint.put("update", "/tags/:tag_id")
      .setPath(TagPath)
      .setPayload(UpdateTagRequest)
      .addSuccess(Tag)
      .pipe(problems.endpoint("not_found", "conflict", ...BODY_ERRORS))
      .annotateContext(OpenApi.annotations({
        summary: "Update a tag",
        description: "Changes the name, description, visibility and/or metadata; fields left out stay as they are, and the slug " +
          "never changes. 409 `conflict` when the new name is taken. Scope `tags:write`."
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/tags/:tag_id")
      .setPath(TagPath)
      .setPayload(NoFields)
      .pipe(problems.endpoint("not_found", ...BODY_ERRORS))
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a tag",
        description: "Deletes the tag and detaches it from every subscriber that carried it. Scope `tags:write`."
      }))
  )
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Tags")
  .annotate(OpenApi.Description, "Subscription categories that subscribers are attached to and detached from.")
