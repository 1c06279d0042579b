import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "./authentication.js"
import { documentPageHeaders } from "./pagination.js"
import { problems } from "./problems.js"
import { tagEndpoints } from "../shared/tag-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { CreatedTag, CreateTagRequest, Tag, TagList, TagListParams, TagNamePath, UpdateTagRequest } from "./tag-schemas.js"

const tags = tagEndpoints("tag_id")

export const TagsGroup = HttpApiGroup.make("tags")
  .add(
    HttpApiEndpoint.post("create", "/tags")
      .setPayload(CreateTagRequest)
      .addSuccess(CreatedTag)
      .pipe(problems.describe(tags.create))
  )
  .add(
    HttpApiEndpoint.get("list", "/tags")
      .setUrlParams(TagListParams)
      .addSuccess(TagList)
      .annotate(OpenApi.Transform, documentPageHeaders)
      .pipe(problems.describe({
        ...tags.list,
        description: "One page of the organization's tags. Follow `next_cursor` (or the `Link` header) for the next " +
          "page with the same `sort` and `order`. Scope `tags:read`."
      }))
  )
  .add(
    HttpApiEndpoint.get("getByName", "/tags/by-name/:name")
      .setPath(TagNamePath)
      .addSuccess(Tag)
      .pipe(problems.describe(tags.getByName))
  )
  .add(problems.declare(tags.get).addSuccess(Tag))
  .add(
    HttpApiEndpoint.put("update", tags.address)
      .setPath(tags.path)
      .setPayload(UpdateTagRequest)
      .addSuccess(Tag)
      .pipe(problems.describe(tags.update))
  )
  .add(problems.declare(tags.delete))
  .middleware(Authentication)
  .pipe(problems.group(...API_ROUTE_ERRORS))
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Tags")
  .annotate(OpenApi.Description, "Subscription categories that subscribers are attached to and detached from.")
