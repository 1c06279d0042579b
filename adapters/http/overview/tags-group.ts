import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { tagEndpoints } from "../shared/tag-endpoints.js"
import { API_ROUTE_ERRORS } from "../shared/wire-errors.js"
import { OverviewAuthentication } from "./authentication.js"
import { envelopes } from "./errors.js"
import { OVERVIEW_PREFIX } from "./paths.js"
import { CreatedTagData, CreateTagRequest, TagData, TagList, TagListParams, UpdateTagRequest } from "./schemas.js"

const tags = tagEndpoints("id")

export const TagsGroup = HttpApiGroup.make("tags")
  .add(
    HttpApiEndpoint.get("list", "/tags")
      .setUrlParams(TagListParams)
      .addSuccess(TagList)
      .pipe(envelopes.describe({
        ...tags.list,
        description: "One numbered page of the organization's tags, optionally of one category; by name unless `sort` " +
          "says otherwise. Scope `tags:read`."
      }))
  )
  .add(
    HttpApiEndpoint.post("create", "/tags")
      .setPayload(CreateTagRequest)
      .addSuccess(CreatedTagData)
      .pipe(envelopes.describe({
        ...tags.create,
        description: "Scope `tags:write`. 409 `conflict` when the name or slug is taken in the organization."
      }))
  )
  .add(envelopes.declare(tags.get).addSuccess(TagData))
  .add(
    HttpApiEndpoint.patch("update", tags.address)
      .setPath(tags.path)
      .setPayload(UpdateTagRequest)
      .addSuccess(TagData)
      .pipe(envelopes.describe({
        ...tags.update,
        description: "Fields left out stay as they are; the slug never changes. Scope `tags:write`."
      }))
  )
  .add(
    envelopes.declare({
      ...tags.delete,
      description: "Deletes the tag and detaches it from every subscriber. Scope `tags:write`."
    })
  )
  .middleware(OverviewAuthentication)
  .pipe(envelopes.group(...API_ROUTE_ERRORS))
  .prefix(OVERVIEW_PREFIX)
  .annotate(OpenApi.Title, "Tags")
  .annotate(OpenApi.Description, "Labels of subscribers, unique by name in the organization, optionally grouped by category.")
