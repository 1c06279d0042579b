import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { OverviewAuthentication } from "./authentication.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { CreatedTagData, CreateTagRequest, TagData, TagList, TagListParams, TagPath, UpdateTagRequest } from "./schemas.js"
import { NoFields, optionalBody } from "../shared/action-body.js"

export const TagsGroup = HttpApiGroup.make("tags")
  .add(
    HttpApiEndpoint.get("list", "/tags")
      .setUrlParams(TagListParams)
      .addSuccess(TagList)
      .annotateContext(OpenApi.annotations({
        summary: "List tags",
        description: "One numbered page of the organization's tags, optionally of one category; by name unless `sort` " +
          "says otherwise. Scope `tags:read`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/tags")
      .setPayload(CreateTagRequest)
      .addSuccess(CreatedTagData)
      .annotateContext(OpenApi.annotations({
        summary: "Create a tag",
        description: "Scope `tags:write`. 409 `conflict` when the name or slug is taken in the organization."
      }))
  )
  .add(
    HttpApiEndpoint.get("get", "/tags/:id")
      .setPath(TagPath)
      .addSuccess(TagData)
      .annotateContext(OpenApi.annotations({ summary: "Get a tag", description: "Scope `tags:read`." }))
  )
  .add(
    HttpApiEndpoint.patch("update", "/tags/:id")
      .setPath(TagPath)
      .setPayload(UpdateTagRequest)
      .addSuccess(TagData)
      .annotateContext(OpenApi.annotations({
        summary: "Update a tag",
        description: "Fields left out stay as they are; the slug never changes. Scope `tags:write`."
      }))
  )
  .add(
    HttpApiEndpoint.del("delete", "/tags/:id")
      .setPath(TagPath)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
      .annotateContext(OpenApi.annotations({
        summary: "Delete a tag",
        description: "Deletes the tag and detaches it from every subscriber. Scope `tags:write`."
      }))
  )
  .middleware(OverviewAuthentication)
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Tags")
  .annotate(OpenApi.Description, "Labels of subscribers, unique by name in the organization, optionally grouped by category.")
