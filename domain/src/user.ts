import { Schema } from "effect"
import { EmailAddress } from "./email-address.js"
import { UserId } from "./ids.js"

/** A person who signs in to the dashboard. Created on the first verified magic link. */
export class User extends Schema.Class<User>("User")({
  id: UserId,
  email: EmailAddress,
  createdAt: Schema.DateFromSelf,
  lastSignedInAt: Schema.NullOr(Schema.DateFromSelf)
}) {}
