import { endpointDescription } from "./endpoint-description.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"

/** The tag endpoints as every wire form describes them (the overview form in fewer words). */
export const tagEndpoints = {
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
  get: endpointDescription({ summary: "Get a tag", description: "Scope `tags:read`.", errors: ["not_found"] }),
  update: endpointDescription({
    summary: "Update a tag",
    description: "Changes the name, description, visibility and/or metadata; fields left out stay as they are, and the slug " +
      "never changes. 409 `conflict` when the new name is taken. Scope `tags:write`.",
    errors: ["not_found", "conflict", ...BODY_ERRORS]
  }),
  delete: endpointDescription({
    summary: "Delete a tag",
    description: "Deletes the tag and detaches it from every subscriber that carried it. Scope `tags:write`.",
    errors: ["not_found", ...BODY_ERRORS]
  })
}
