import { EmailSettingsRepository } from "@roster/application"
import { Effect, Layer, Option } from "effect"
import { MemoryStore } from "./memory-store.js"

export const MemoryEmailSettingsRepositoryLive = Layer.effect(
  EmailSettingsRepository,
  Effect.map(MemoryStore, (store) =>
    EmailSettingsRepository.of({
      find: (organizationId) => store.read((t) => Option.fromNullable(t.emailSettings.get(organizationId))),
      save: (settings) =>
        store.write((t) => {
          if (t.organizations.has(settings.organizationId)) t.emailSettings.set(settings.organizationId, settings)
        })
    })))
