import { Schema } from "effect"
import { UserId } from "./ids.js"

/**
 * A dashboard session. The cookie is a signed token naming this record (its `jti`), so that
 * signing out ends the session at once, everywhere, not when the cookie runs out.
 */
export class Session extends Schema.Class<Session>("Session")({
  id: Schema.String,
  userId: UserId,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  revokedAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

export const isSessionActive = (session: Session, now: Date): boolean =>
  session.revokedAt === null && now.getTime() < session.expiresAt.getTime()
