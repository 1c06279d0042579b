import { Array, Schema } from "effect"

export const scopeDescriptions = {
  "subscribers:read": "read subscribers and their tags",
  "subscribers:write": "create and modify subscribers, attach and detach tags",
  "subscribers:delete": "delete subscribers",
  "tags:read": "read tags",
  "tags:write": "create, modify and delete tags",
  "templates:read": "read email templates and preview them",
  "templates:write": "create, modify and delete email templates",
  "emails:send": "send single emails to subscribers",
  "emails:read": "read sent emails, their status and history",
  "campaigns:read": "read campaigns, their figures, and count their recipients",
  "campaigns:write": "create, modify, send, cancel, retry and duplicate campaigns",
  "triggers:read": "read email triggers",
  "triggers:write": "create, modify, pause and delete email triggers",
  "sequences:read": "read sequences, their enrollments and figures",
  "sequences:write": "create, modify, activate, pause and delete sequences; enroll and remove subscribers",
  "forms:read": "read sign-up forms and their embeddable snippets",
  "forms:write": "create, modify and delete sign-up forms",
  "segments:read": "read segments and preview who matches them",
  "segments:write": "create, modify and delete segments",
  "webhooks:manage": "manage outgoing webhook endpoints",
  "*": "all permissions, including API keys, billing, settings and (for platform-admin organizations) administration"
} as const

export type Scope = keyof typeof scopeDescriptions
export const scopes = Object.keys(scopeDescriptions) as ReadonlyArray<Scope>

export const Scope = Schema.Literal(...(scopes as [Scope, ...Array<Scope>])).annotations({
  identifier: "Scope",
  description: "a permission of an API key; `*` grants all of them"
})

/** Whether `granted` allows `required`. */
export const allows = (granted: ReadonlyArray<Scope>, required: Scope): boolean =>
  Array.contains(granted, "*") || Array.contains(granted, required)

/** Whether every scope of `wanted` is allowed by `granted`: no one hands out more than they hold. */
export const includesAll = (granted: ReadonlyArray<Scope>, wanted: ReadonlyArray<Scope>): boolean =>
  wanted.every((scope) => allows(granted, scope))
