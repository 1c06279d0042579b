import { type CampaignId, failedEmailsReason, InvalidInput, withheld } from "@roster/domain"
import { Effect, Option } from "effect"
import { unsubscribeHeaders } from "./emails.js"
import {
  type CampaignRecipient,
  CampaignRepository,
  type LeasedCampaignBatch,
  type RecipientOutcome
} from "./ports/campaign-repository.js"
import type { OutgoingEmail } from "./ports/mailer.js"
import { OutgoingMailConfig } from "./ports/outgoing-mail-config.js"
import { TemplateEngine } from "./ports/template-engine.js"
import { TokenSigner } from "./ports/token-signer.js"
import { WorkSignal } from "./ports/work-signal.js"
import { makeCampaignSendout } from "./support/campaign-content.js"
import { now } from "./support/clock.js"
import { signPreferenceToken } from "./support/preference-tokens.js"
import { preferencesUrl, templateScope, unsubscribeUrl } from "./support/template-scope.js"

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
    const engine = yield* TemplateEngine
    const signer = yield* TokenSigner
    const mail = yield* OutgoingMailConfig
    const signal = yield* WorkSignal
    const sendoutOf = yield* makeCampaignSendout

    /**
     * Starts the scheduled campaigns whose time has come. One whose content no longer renders (its
     * template deleted or changed) fails with why. How many it started.
     */
    const startDue = (limit: number) =>
      Effect.gen(function*() {
        const due = yield* campaigns.dueScheduled(yield* now, limit)
        let started = 0
        for (const campaign of due) {
          const at = yield* now
          const sendout = yield* Effect.either(sendoutOf(campaign))
          if (sendout._tag === "Left") {
            yield* campaigns.transition(campaign.id, ["scheduled"], "failed", {
              at,
              failureReason: `could not start: ${sendout.left.message}`
            })
            continue
          }
          if (Option.isSome(yield* campaigns.start(campaign.id, ["scheduled"], sendout.right, at))) started += 1
        }
        if (started > 0) yield* signal.emailQueued
        return started
      }).pipe(Effect.withSpan("CampaignSending.startDue"))

    const finish = (id: CampaignId) => Effect.flatMap(now, (at) => campaigns.finishIfDone(id, at, failedEmailsReason))

    /** Takes the next chunk of an open audience; how many recipients it added, if any audience was open. */
    const fixNextChunk = (chunk: number) =>
      Effect.gen(function*() {
        const fixed = yield* campaigns.fixAudience(chunk, yield* now)
        if (Option.isNone(fixed)) return Option.none<number>()
        if (fixed.value.added > 0) yield* signal.emailQueued
        if (fixed.value.complete) yield* finish(fixed.value.id)
        return Option.some(fixed.value.added)
      }).pipe(Effect.withSpan("CampaignSending.fixNextChunk"))

    /** Ends the campaigns whose last email was settled by a worker that stopped before ending them, and clears cancelled ones' queues. */
    const tidy = (limit: number) =>
      Effect.gen(function*() {
        for (const id of yield* campaigns.doneSending(limit)) yield* finish(id)
        return yield* campaigns.withdrawCancelled(limit)
      })

    /** One recipient's email, or why they get none: their state now, then the render. */
    const prepareOne = (
      batch: LeasedCampaignBatch,
      recipient: CampaignRecipient
    ): Effect.Effect<PreparedEmail | RecipientOutcome> =>
      Effect.gen(function*() {
        const { campaign, sendout } = batch.campaign
        const { message } = recipient
        const hold = withheld(recipient.status, campaign.kind, false, recipient.erasureRequested)
        if (hold !== null) {
          const outcome: RecipientOutcome = { id: message.id, status: hold.status, detail: hold.reason, subject: "" }
          return outcome
        }
        // The token is made of the message alone: a batch sent again after a crash says the same.
        const link = yield* signPreferenceToken(signer, {
          tokenId: message.id,
          organizationId: message.organizationId,
          subscriberId: message.subscriberId,
          version: recipient.tokenVersion,
          issuedAt: message.createdAt
        })
        const oneClick = unsubscribeUrl(mail.publicBaseUrl, link.token)
        const rendered = yield* engine.render(
          sendout.content,
          templateScope({
            subscriber: {
              email: message.to,
              first_name: recipient.firstName,
              last_name: recipient.lastName,
              status: recipient.status,
              metadata: recipient.metadata,
              tags: recipient.tagNames
            },
            organizationName: sendout.organizationName,
            unsubscribeUrl: oneClick,
            preferencesUrl: preferencesUrl(mail.publicBaseUrl, link.token),
            data: campaign.data
          })
        )
        const subject = rendered.subject.replace(/[\r\n]+/g, " ").trim()
        if (subject === "") return yield* new InvalidInput({ field: "subject", problem: "rendered empty for this recipient" })
        if (campaign.sandboxed) {
          const sandboxed = withheld(recipient.status, campaign.kind, true)!
          const outcome: RecipientOutcome = { id: message.id, status: "sandboxed", detail: sandboxed.reason, subject }
          return outcome
        }
        const email: OutgoingEmail = {
          to: message.to,
          from: sendout.from,
          subject,
          html: rendered.html ?? undefined,
          text: rendered.text ?? undefined,
          headers: campaign.kind === "marketing" ? unsubscribeHeaders(oneClick, mail.unsubscribeMailto) : {},
          idempotencyKey: message.id
        }
        const prepared: PreparedEmail = { id: message.id, email }
        return prepared
      }).pipe(
        Effect.catchTag("InvalidInput", (error) => {
          const outcome: RecipientOutcome = {
            id: recipient.message.id,
            status: "failed",
            detail: `could not be rendered for this subscriber: ${error.message}`,
            subject: ""
          }
          return Effect.succeed(outcome)
        })
      )

    /** Renders the batch's emails; recipients who must get none, or whose email cannot be rendered, are settled here. */
    const prepare = (batch: LeasedCampaignBatch) =>
      Effect.map(Effect.forEach(batch.recipients, (recipient) => prepareOne(batch, recipient)), (results) => {
        const emails: Array<PreparedEmail> = []
        const settled: Array<RecipientOutcome> = []
        for (const result of results) {
          if ("email" in result) emails.push(result)
          else settled.push(result as RecipientOutcome)
        }
        return { emails, settled } satisfies PreparedBatch
      })

    return { startDue, fixNextChunk, tidy, prepare, finish } as const
  })
}) {}
