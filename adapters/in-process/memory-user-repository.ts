import { UserRepository } from "@roster/application"
import { emailKey, User } from "@roster/domain"
import { Effect, Layer, Option } from "effect"
import { MemoryStore, type Tables } from "./memory-store.js"
import { oldestFirstPage } from "./ordering.js"

const withEmail = (t: Tables, email: string): Option.Option<User> => {
  const key = emailKey(email)
  for (const user of t.users.values()) {
    if (emailKey(user.email) === key) return Option.some(user)
  }
  return Option.none()
}

export const MemoryUserRepositoryLive = Layer.effect(
  UserRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    return UserRepository.of({
      signIn: (candidate, at) =>
        store.write((t) =>
          Option.match(withEmail(t, candidate.email), {
            onNone: () => {
              t.users.set(candidate.id, candidate)
              return candidate
            },
            onSome: (user) => {
              const signedIn = new User({ ...user, lastSignedInAt: at })
              t.users.set(user.id, signedIn)
              return signedIn
            }
          })
        ),
      findById: (id) => store.read((t) => Option.fromNullable(t.users.get(id))),
      findByEmail: (email) => store.read((t) => withEmail(t, email)),
      list: (query) => store.read((t) => oldestFirstPage(t.users.values(), query)),
      count: store.read((t) => t.users.size)
    })
  })
)
