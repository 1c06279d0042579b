import { HttpApiEndpoint, OpenApi } from "@effect/platform"
import { SequenceId, SubscriberId } from "@roster/domain"
import { NoFields, optionalBody, withoutBody } from "./action-body.js"
import { endpointDescription, sharedEndpoint } from "./endpoint-description.js"
import { idParam } from "./id-param.js"
import { CreateSequenceRequest, EnrollRequest } from "./sequence-schemas.js"
import { BODY_ERRORS, POST_ERRORS } from "./wire-errors.js"
import { IdInput } from "./wire-fields.js"

const read = "Scope `sequences:read`."
const write = "Scope `sequences:write`."

/**
 * The sequence endpoints as every wire form describes them, the sequence's id named `key` in
 * their paths.
 */
export const sequenceEndpoints = <const K extends string>(key: K) => {
  const sequence = idParam(key, IdInput(SequenceId, "the sequence's id"))
  const one = `/sequences${sequence.segment}` as const
  const action = <const Name extends string>(name: Name) =>
    HttpApiEndpoint.post(name, `${one}/${name}`)
      .setPath(sequence.path)
      .setPayload(NoFields)
      .annotate(OpenApi.Transform, optionalBody)
  const enrollment = sequence.with({ subscriber_id: IdInput(SubscriberId, "the subscriber's id") })
  return {
    address: one,
    path: sequence.path,
    create: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("create", "/sequences").setPayload(CreateSequenceRequest),
      summary: "Create a sequence",
      description: "Keeps a draft. 400 naming the path of a bad step (`steps[2].wait`), a branch to no step, a loop " +
        `without a wait, or a template, tag, segment or form the organization does not have. ${write}`,
      errors: POST_ERRORS
    }),
    list: endpointDescription({ summary: "List sequences", description: `Oldest first. ${read}`, errors: [] }),
    get: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("get", one).setPath(sequence.path),
      summary: "Get a sequence",
      description: read,
      errors: ["not_found"]
    }),
    update: endpointDescription({
      summary: "Update a sequence",
      description: "Fields left out stay. New steps of an active or paused sequence make a new version for new " +
        `enrollments; those in flight finish theirs. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    delete: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("delete", one).setPath(sequence.path).pipe(withoutBody),
      summary: "Delete a sequence",
      description: `With its enrollments; emails it queued stay. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    activate: sharedEndpoint({
      endpoint: action("activate"),
      summary: "Activate a sequence",
      description: "It enrolls from now on; a paused one's enrollments go on from where they waited. 400 naming the field " +
        `when a template, tag, segment or form it names was deleted since it was saved. ${write}`,
      errors: ["not_found", ...POST_ERRORS]
    }),
    pause: sharedEndpoint({
      endpoint: action("pause"),
      summary: "Pause a sequence",
      description: `It enrolls nobody, and its enrollments wait where they are until it is active again. ${write}`,
      errors: ["not_found", ...POST_ERRORS]
    }),
    enroll: sharedEndpoint({
      endpoint: HttpApiEndpoint.post("enroll", `${one}/enrollments`).setPath(sequence.path).setPayload(EnrollRequest),
      summary: "Enroll a subscriber",
      description: "At the first step, now. 409 unless the sequence is active; 400 naming `subscriber_id` when they are " +
        `in it now, or were and it enrolls once. ${write}`,
      errors: ["not_found", "conflict", ...POST_ERRORS]
    }),
    unenroll: sharedEndpoint({
      endpoint: HttpApiEndpoint.del("unenroll", `${one}/enrollments/:subscriber_id`).setPath(enrollment).pipe(withoutBody),
      summary: "Remove a subscriber from a sequence",
      description: `Ends their enrollment where it is (exit_reason \`removed\`); 404 when they are not in it. ${write}`,
      errors: ["not_found", ...BODY_ERRORS]
    }),
    enrollments: endpointDescription({
      summary: "List a sequence's enrollments",
      description: `Oldest first, each with its current step and when it moves on. ${read}`,
      errors: ["not_found"]
    }),
    figures: sharedEndpoint({
      endpoint: HttpApiEndpoint.get("figures", `${one}/figures`).setPath(sequence.path),
      summary: "Get a sequence's figures per step",
      description: `Entered, completed, exited, emails sent, opened, clicked; the current version's steps in order, then older ones'. ${read}`,
      errors: ["not_found"]
    })
  }
}

export const sequenceScopes = { read, write }
