import { HttpApiEndpoint } from "@effect/platform"
import { TagId } from "@roster/domain"
import { withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

/**
 * The tag endpoints as every wire form describes them (the overview form in fewer words), the
 * tag's id named `key` in their paths.
 */
export const tagEndpoints = <const K extends string>(key: K) => {
  const tag = idParam(key, IdInput(TagId, "the tag's id"))
  const address = `/tags${tag.segment}` as const
  return {
    /** The address and path of one tag, for the form's own update. */
    address,
    path: tag.path,
    create: endpointDescription({
      summary: "Create a tag",
      description: "Creates a tag with no subscribers, `public` unless `visibility` says `private`. The slug is made " +
        "from the name when left out. 409 `conflict` when the name (regardless of letter case) or the slug is taken in " +
        "the organization; 409 `tag_limit_reached` when the organization holds 1,000 tags already. Scope `tags:write`.",
      errors: ["conflict", "tag_limit_reached", ...POST_ERRORS]
    }),
    list: endpointDescription({ summary: "List tags", errors: [] }),
    getByName: endpointDescription({
      summary: "Find a tag by name",
      description: "The tag with this name (URL-encoded in the path), compared regardless of letter case. Scope `tags:read`.",
      errors: ["not_found"]
    }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", address).setPath(tag.path),
      summary: "Get a tag",
      description: "Scope `tags:read`.",
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Update a tag",
      description: "Changes the name, description, visibility and/or metadata; fields left out stay as they are, and the slug " +
        "never changes. 409 `conflict` when the new name is taken. Scope `tags:write`.",
      errors: ["not_found", "conflict", ...BODY_ERRORS]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", address)
        .setPath(tag.path)
        .pipe(withoutBody),
      summary: "Delete a tag",
      description: "Deletes the tag and detaches it from every subscriber that carried it. Scope `tags:write`.",
      errors: ["not_found", ...BODY_ERRORS]
    })
  }
}
