import { type CampaignId, failedEmailsReason, withheld } from "@roster/domain"
import { Effect, Either, Option } from "effect"
import { unsubscribeHeaders } from "./emails.js"
import { CampaignRepository } from "./ports/campaign-repository.js"
import type { OutgoingEmail } from "./ports/mailer.js"
import { MessageRepository } from "./ports/message-repository.js"
import {
  type CampaignRecipient,
  type LeasedCampaignBatch,
  OutgoingMail,
  type RecipientOutcome
} from "./ports/outgoing-mail.js"
import { OutgoingMailConfig } from "./ports/outgoing-mail-config.js"
import { TemplateEngine } from "./ports/template-engine.js"
import { TokenSigner } from "./ports/token-signer.js"
import { UnitOfWork } from "./ports/unit-of-work.js"
import { WorkSignal } from "./ports/work-signal.js"
import { makeAudienceOf } from "./support/campaign-audience.js"
import { makeCampaignSendout } from "./support/campaign-content.js"
import { now } from "./support/clock.js"
import { signPreferenceTokens } from "./support/preference-tokens.js"
import { preferencesUrl, templateScope, unsubscribeUrl } from "./support/template-scope.js"
import { operations } from "./support/operation.js"

/** An email of a campaign batch, rendered and ready for the provider. */
export interface PreparedEmail {
  readonly id: CampaignRecipient["message"]["id"]
  readonly email: OutgoingEmail
}

/** A campaign batch as it is handed over: the emails to send, and what became of the others already. */
export interface PreparedBatch {
  readonly emails: ReadonlyArray<PreparedEmail>
  readonly settled: ReadonlyArray<RecipientOutcome>
}

/**
 * The worker's side of campaigns: starting scheduled ones when their time comes, turning an
 * audience into messages a chunk at a time, rendering each email for its subscriber as it is
 * handed over, and ending campaigns once every email is settled.
 */
export class CampaignSending extends Effect.Service<CampaignSending>()("roster/CampaignSending", {
  effect: Effect.gen(function*() {
    const campaigns = yield* CampaignRepository
    const messages = yield* MessageRepository
    const outgoing = yield* OutgoingMail
    const unitOfWork = yield* UnitOfWork
    const engine = yield* TemplateEngine
    const signer = yield* TokenSigner
    const mail = yield* OutgoingMailConfig
    const signal = yield* WorkSignal
    const sendoutOf = yield* makeCampaignSendout
    const audienceOf = yield* makeAudienceOf
    const operation = yield* operations

    /**
     * Starts the scheduled campaigns whose time has come. One whose content no longer renders (its
     * template deleted or changed), or whose segment is gone, fails with why. How many it started.
     */
    const startDue = operation("CampaignSending.startDue")((limit: number) =>
      Effect.gen(function*() {
        const due = yield* campaigns.dueScheduled(yield* now, limit)
        let started = 0
        for (const campaign of due) {
          const at = yield* now
          const start = yield* Effect.either(Effect.all({ sendout: sendoutOf(campaign), audience: audienceOf(campaign, at) }))
          if (start._tag === "Left") {
            yield* campaigns.transition(campaign.id, "fail", {
              at,
              failureReason: `could not start: ${start.left.message}`
            })
            continue
          }
          if (Option.isSome(yield* campaigns.transition(campaign.id, "start", { at, ...start.right }))) started += 1
        }
        if (started > 0) yield* signal.emailQueued
        return started
      }))

    /**
     * Ends a sending campaign once its audience is taken whole and no email of it is queued: `sent`,
     * or `failed` when some failed. The campaign as it ends, or `none` while it is not done.
     */
    const finish = operation("CampaignSending.finish")((id: CampaignId) =>
      Effect.gen(function*() {
        // Most calls come while the campaign still sends: its emails are counted only once it is done.
        if ((yield* campaigns.doneSending(1, id)).length === 0) return Option.none()
        const counts = (yield* messages.campaignStats([id])).get(id) ?? {}
        if ((counts.queued ?? 0) > 0) return Option.none()
        const failed = counts.failed ?? 0
        return yield* campaigns.transition(id, failed > 0 ? "fail" : "complete", {
          at: yield* now,
          failureReason: failed > 0 ? failedEmailsReason(failed) : null,
          whenDone: { failed }
        })
      }))

    /**
     * Takes the next chunk of an open audience and queues its emails, both or neither; how many it
     * queued, if any audience was open.
     */
    const fixNextChunk = operation("CampaignSending.fixNextChunk")((chunk: number) =>
      Effect.gen(function*() {
        const fixed = yield* unitOfWork.transaction(Effect.gen(function*() {
          const taken = yield* campaigns.takeAudience(chunk)
          if (Option.isNone(taken)) return Option.none()
          const added = yield* outgoing.enqueueAudience(taken.value, yield* now)
          return Option.some({ id: taken.value.campaign.id, added, complete: taken.value.complete })
        }))
        if (Option.isNone(fixed)) return Option.none<number>()
        if (fixed.value.added > 0) yield* signal.emailQueued
        if (fixed.value.complete) yield* finish(fixed.value.id)
        return Option.some(fixed.value.added)
      }))

    /** Ends the campaigns whose last email was settled by a worker that stopped before ending them, and clears cancelled ones' queues. */
    const tidy = operation("CampaignSending.tidy")((limit: number) =>
      Effect.gen(function*() {
        for (const id of yield* campaigns.doneSending(limit)) yield* finish(id)
        return yield* outgoing.withdrawCancelled(limit)
      }))

    /**
     * Renders the batch's emails, each for its recipient as they are now: recipients who must get
     * none are settled here, and so is one whose email cannot be rendered. The batch is rendered and
     * signed as a whole, outside the runtime's per-email steps: a campaign's worker spends its time
     * on little else.
     */
    const prepare = operation("CampaignSending.prepare")((batch: LeasedCampaignBatch) =>
      Effect.gen(function*() {
        const { campaign, sendout } = batch.campaign
        const settled: Array<RecipientOutcome> = []
        const going: Array<CampaignRecipient> = []
        for (const recipient of batch.recipients) {
          const hold = withheld(recipient.status, campaign.kind, false, recipient.erasureRequested)
          if (hold === null) going.push(recipient)
          else settled.push({ id: recipient.message.id, status: hold.status, detail: hold.reason, subject: "" })
        }
        // Each token is made of its message alone: a batch sent again after a crash says the same.
        const tokens = yield* signPreferenceTokens(signer, going.map(({ message, tokenVersion }) => ({
          tokenId: message.id,
          organizationId: message.organizationId,
          subscriberId: message.subscriberId,
          version: tokenVersion,
          issuedAt: message.createdAt
        })))
        const links = tokens.map((token) => ({
          unsubscribe: unsubscribeUrl(mail.publicBaseUrl, token),
          preferences: preferencesUrl(mail.publicBaseUrl, token)
        }))
        const rendered = yield* engine.renderEach(
          sendout.content,
          going.map((recipient, i) =>
            templateScope({
              subscriber: {
                email: recipient.message.to,
                first_name: recipient.firstName,
                last_name: recipient.lastName,
                status: recipient.status,
                metadata: recipient.metadata,
                tags: recipient.tagNames
              },
              organizationName: sendout.organizationName,
              unsubscribeUrl: links[i]!.unsubscribe,
              preferencesUrl: links[i]!.preferences,
              data: campaign.data
            })
          )
        ).pipe(
          // The sendout rendered when sending started; a template that cannot be read now fails each email.
          Effect.catchAll((error) => Effect.succeed(going.map(() => Either.left(error))))
        )
        const emails: Array<PreparedEmail> = []
        going.forEach((recipient, i) => {
          const { message } = recipient
          const result = rendered[i]!
          const subject = Either.isRight(result) ? result.right.subject.replace(/[\r\n]+/g, " ").trim() : ""
          if (Either.isLeft(result) || subject === "") {
            const problem = Either.isLeft(result) ? result.left.message : "subject: rendered empty for this recipient"
            settled.push({ id: message.id, status: "failed", detail: `could not be rendered for this subscriber: ${problem}`, subject: "" })
            return
          }
          if (campaign.sandboxed) {
            settled.push({ id: message.id, status: "sandboxed", detail: withheld("active", campaign.kind, true)!.reason, subject })
            return
          }
          emails.push({
            id: message.id,
            email: {
              to: message.to,
              from: sendout.from,
              subject,
              html: result.right.html ?? undefined,
              text: result.right.text ?? undefined,
              headers: campaign.kind === "marketing" ? unsubscribeHeaders(links[i]!.unsubscribe, mail.unsubscribeMailto) : {},
              idempotencyKey: message.id
            }
          })
        })
        return { emails, settled } satisfies PreparedBatch
      }))

    return { startDue, fixNextChunk, tidy, prepare, finish } as const
  })
}) {}
