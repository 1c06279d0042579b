import { Schema } from "effect"
import { OrganizationId, UserId } from "./ids.js"
import type { Scope } from "./scope.js"

/** What a user may do in an organization. */
export const Role = Schema.Literal("owner", "member")
export type Role = typeof Role.Type

export class Membership extends Schema.Class<Membership>("Membership")({
  organizationId: OrganizationId,
  userId: UserId,
  role: Role,
  createdAt: Schema.DateFromSelf
}) {}

/**
 * The permissions a role carries, in the vocabulary of API key scopes. Owners hold everything,
 * members the day-to-day work on subscribers, tags, templates and email; owner-only areas (billing, settings, API
 * keys, webhooks, administration) need `*`.
 */
export const roleScopes: Readonly<Record<Role, ReadonlyArray<Scope>>> = {
  owner: ["*"],
  member: [
    "subscribers:read",
    "subscribers:write",
    "subscribers:delete",
    "tags:read",
    "tags:write",
    "templates:read",
    "templates:write",
    "emails:send",
    "emails:read",
    "campaigns:read",
    "campaigns:write",
    "triggers:read",
    "triggers:write",
    "sequences:read",
    "sequences:write",
    "forms:read",
    "forms:write",
    "segments:read",
    "segments:write"
  ]
}
