import {
  type Campaign,
  type CampaignContent,
  InvalidInput,
  type OrganizationId,
  reason
} from "@roster/domain"
import { Effect, Option } from "effect"
import type { CampaignSendout } from "../ports/campaign-repository.js"
import { EmailSettingsRepository } from "../ports/email-settings-repository.js"
import { OrganizationRepository } from "../ports/organization-repository.js"
import { OutgoingMailConfig } from "../ports/outgoing-mail-config.js"
import { TemplateEngine } from "../ports/template-engine.js"
import { TemplateRepository } from "../ports/template-repository.js"
import { requireFound } from "./ownership.js"
import { makeSenderOf } from "./sender.js"
import { preferencesUrl, sampleSubscriber, templateScope, unsubscribeUrl } from "./template-scope.js"

/** A sample render's links lead nowhere. */
const SAMPLE_TOKEN = "preview"

/**
 * What a campaign's emails are made of, as of now: its template's parts (or its own), the `From`
 * of the organization's sender settings, and the organization's name. The content must render for
 * a sample subscriber with the campaign's data, so that a send never starts on a template that
 * cannot be rendered; a deleted template is a 400 naming `template_id`.
 */
export const makeCampaignSendout = Effect.gen(function*() {
  const templates = yield* TemplateRepository
  const settings = yield* EmailSettingsRepository
  const organizations = yield* OrganizationRepository
  const engine = yield* TemplateEngine
  const mail = yield* OutgoingMailConfig
  const sender = yield* makeSenderOf
  return Effect.fnUntraced(function*(campaign: Campaign) {
  const content = yield* campaignContent(campaign, templates)
  const [organization, found] = yield* Effect.all([
    organizations.findById(campaign.organizationId),
    settings.find(campaign.organizationId)
  ], { concurrency: 2 })
  const organizationName = Option.match(organization, { onNone: () => "", onSome: (o) => o.name })
  yield* engine.render(content, templateScope({
    subscriber: sampleSubscriber,
    organizationName,
    unsubscribeUrl: unsubscribeUrl(mail.publicBaseUrl, SAMPLE_TOKEN),
    preferencesUrl: preferencesUrl(mail.publicBaseUrl, SAMPLE_TOKEN),
    data: campaign.data
  }))
  const sendout: CampaignSendout = {
    content,
    from: yield* sender.senderOf(
      { id: campaign.organizationId, tier: Option.match(organization, { onNone: () => "free" as const, onSome: (o) => o.tier }) },
      found,
      organizationName
    ),
    organizationName
  }
  return sendout
  })
})

const campaignContent = (
  campaign: Campaign,
  templates: TemplateRepository["Type"]
): Effect.Effect<CampaignContent, InvalidInput> =>
  Effect.gen(function*() {
    if (campaign.templateId === null) {
      if (campaign.subject === null) {
        return yield* new InvalidInput({ field: "subject", reason: reason("subjectRequired") })
      }
      return { subject: campaign.subject, html: campaign.html, text: campaign.text }
    }
    const template = yield* templates.findById(campaign.organizationId, campaign.templateId)
    if (Option.isNone(template)) {
      return yield* new InvalidInput({
        field: "template_id",
        reason: reason("templateDeleted")
      })
    }
    return { subject: template.value.subject, html: template.value.html, text: template.value.text }
  })

/** The template the campaign names, if it is one of the organization's. */
export const requireTemplate = (
  templates: TemplateRepository["Type"],
  organizationId: OrganizationId,
  id: Campaign["templateId"] & string
) =>
  requireFound("template", id, templates.findById(organizationId, id))
