import { HttpApiEndpoint } from "@effect/platform"
import { NoteId, SubscriberId } from "@roster/domain"
import { withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { NoteRequest } from "./note-schemas.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

/**
 * The note endpoints as every wire form describes them, the subscriber's id named `key` in their
 * paths (the note's is `note_id` in every form).
 */
export const noteEndpoints = <const K extends string>(key: K) => {
  const subscriber = idParam(key, IdInput(SubscriberId, "the subscriber's id"))
  const notes = `/subscribers${subscriber.segment}/notes` as const
  const note = subscriber.with({ note_id: IdInput(NoteId, "the note's id") })
  return {
    /** The address of a subscriber's notes, and the paths, for the form's own list and update. */
    address: notes,
    subscriberPath: subscriber.path,
    notePath: note,
    create: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("create", notes).setPath(subscriber.path).setPayload(NoteRequest),
      summary: "Add a note",
      description: "Keeps a note on the subscriber, written by the caller; webhooks hear `subscriber.note_added`. " +
        "Scope `subscribers:write`.",
      errors: ["not_found", ...POST_ERRORS]
    }),
    list: endpointDescription({
      summary: "List a subscriber's notes",
      description: "One page of the subscriber's notes, newest first. Scope `subscribers:read`.",
      errors: ["not_found"]
    }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", `${notes}/:note_id`).setPath(note),
      summary: "Get a note",
      description: "Scope `subscribers:read`.",
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Change a note",
      description: "Scope `subscribers:write`.",
      errors: ["not_found", ...BODY_ERRORS]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", `${notes}/:note_id`)
        .setPath(note)
        .pipe(withoutBody),
      summary: "Delete a note",
      description: "Scope `subscribers:write`.",
      errors: ["not_found", ...BODY_ERRORS]
    })
  }
}
