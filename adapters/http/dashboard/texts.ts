import type { Locale } from "@roster/domain"
import { subscribersTexts } from "./subscribers-texts.js"
import { apiKeysTexts } from "./api-keys-texts.js"
import { formsTexts } from "./forms-texts.js"
import { campaignsTexts } from "./campaigns-texts.js"
import { segmentsTexts } from "./segments-texts.js"
import { membersTexts } from "./members-texts.js"
import { importsTexts } from "./imports-texts.js"
import { overviewTexts } from "./overview-texts.js"
import { settingsTexts } from "./settings-texts.js"
import { tagsTexts } from "./tags-texts.js"
import { templatesTexts } from "./templates-texts.js"
import { webhooksTexts } from "./webhooks-texts.js"
import { emailActivityTexts } from "./email-activity-texts.js"
import { reasonTexts } from "./reason-texts.js"
import { sequencesTexts } from "./sequences-texts.js"
import { triggersTexts } from "./triggers-texts.js"

/**
 * Every word the dashboard shows, in each language it speaks: the frame's here, each screen's in
 * its own `*-texts.ts`. German is checked against English by type: a key missing in one language
 * does not compile.
 */
const en = {
  product: "Roster",
  skipToContent: "Skip to the content",
  menu: "Menu",
  language: "Language",
  signOut: "Sign out",
  organization: "Organization",
  switchOrganization: "Switch organization",
  yourOrganizations: "Your organizations",
  nav: {
    overview: "Overview",
    subscribers: "Subscribers",
    tags: "Tags",
    segments: "Segments",
    forms: "Sign-up forms",
    templates: "Templates",
    campaigns: "Campaigns",
    sequences: "Sequences",
    triggers: "Triggers",
    imports: "Import and export",
    apiKeys: "API keys",
    members: "Members",
    settings: "Settings",
    webhooks: "Webhooks",
    emailActivity: "Email activity"
  },
  role: { owner: "Owner", member: "Member" },
  signIn: {
    title: "Sign in",
    intro: "Enter your email address. We send you a link that signs you in; it works once, within 15 minutes.",
    email: "Email address",
    submit: "Send me a sign-in link",
    sentTitle: "Check your email",
    sent: "If the address can sign in, a link is on its way to {{ email }}. Open it on this device within 15 minutes.",
    again: "Send another link",
    noPassword: "No password is needed.",
    invalidEmail: "Enter an email address such as name@example.com."
  },
  organizations: {
    title: "Your organizations",
    none: "You are not a member of any organization yet. Create one to start; you will be its owner.",
    choose: "Choose the organization to work in.",
    createTitle: "Create an organization",
    name: "Name",
    slug: "Short name (slug)",
    slugHint: "Lower-case letters, digits and hyphens; it appears in addresses.",
    create: "Create organization",
    invalidSlug: "Use up to 64 lower-case letters and digits, with single hyphens between them.",
    missingName: "Give the organization a name."
  },
  overview: overviewTexts.en,
  refusal: {
    title: "That did not work",
    notFound: "It no longer exists: it may have been deleted meanwhile.",
    forbidden: "Your role in this organization does not allow this.",
    exists: "That name is taken already.",
    slugTaken: "That short name is taken already; choose another.",
    memberExists: "This person is a member already; change their role in the list instead.",
    lastOwner: "The organization needs an owner: make another member an owner first.",
    planLimit: "The {{ tier }} plan allows {{ max }} {{ what }}.",
    planUpgrade: "The {{ upgrade }} plan allows {{ upgradeMax }}: upgrade to add more.",
    unlimited: "any number",
    limited: { subscribers: "subscribers", emails_per_month: "emails a month" },
    tagLimit: {
      tags_per_organization: "An organization may hold at most {{ max }} tags, and this one holds that many; delete tags it no longer needs to make new ones.",
      tags_per_subscriber: "A subscriber may carry at most {{ max }} tags, and this would take them past it; remove tags they no longer need first."
    },
    planFeature: "This needs the {{ requiredTier }} plan; your organization is on the {{ tier }} plan.",
    statusMove: "A subscriber cannot move from {{ from }} to {{ to }} here.",
    fileTooLarge: "The file is larger than {{ size }}, the most an import takes; nothing of it was kept. Split it into smaller files.",
    paymentRefused: "The payment provider refused this: {{ detail }}",
    paymentUnavailable: "The payment provider cannot be reached at the moment; nothing was changed. Try again shortly.",
    billingOff: "Billing is not available on this service.",
    busy: "This is being done already; wait a moment and reload the page.",
    campaignState: "The campaign is {{ status }} now, which does not allow this.",
    segmentInUse: "Campaigns, triggers or sequences still use this segment; give them another audience, condition or entry first.",
    sequenceState: "The sequence is {{ status }} now; this needs an active sequence.",
    linkUsed: "This link cannot be used any more; ask for a new one.",
    rateLimited: "Too many requests just now. Wait a moment and try again.",
    unavailable: "The service cannot do this at the moment. Try again shortly.",
    invalid: "{{ field }}: {{ problem }}",
    crossSite: "This form was not sent from Roster's own pages, so nothing was changed. Reload the page and try again.",
    stalled: "The form stopped coming in: nothing arrived for {{ seconds }} seconds, so nothing of it was kept. Try again.",
    signedOut: "Your session has ended. Sign in again."
  },
  notFound: {
    title: "Not found",
    text: "There is nothing at this address, or you are not a member of the organization it names."
  },
  back: "Back",
  reasons: reasonTexts.en,
  subscribers: subscribersTexts.en,
  tags: tagsTexts.en,
  forms: formsTexts.en,
  campaigns: campaignsTexts.en,
  segments: segmentsTexts.en,
  apiKeys: apiKeysTexts.en,
  members: membersTexts.en,
  imports: importsTexts.en,
  settings: settingsTexts.en,
  templates: templatesTexts.en,
  webhooks: webhooksTexts.en,
  emailActivity: emailActivityTexts.en,
  sequences: sequencesTexts.en,
  triggers: triggersTexts.en
}

export type DashboardTexts = typeof en

const de: DashboardTexts = {
  product: "Roster",
  skipToContent: "Zum Inhalt springen",
  menu: "Menü",
  language: "Sprache",
  signOut: "Abmelden",
  organization: "Organisation",
  switchOrganization: "Organisation wechseln",
  yourOrganizations: "Ihre Organisationen",
  nav: {
    overview: "Übersicht",
    subscribers: "Abonnenten",
    tags: "Tags",
    segments: "Segmente",
    forms: "Anmeldeformulare",
    templates: "Vorlagen",
    campaigns: "Kampagnen",
    sequences: "Sequenzen",
    triggers: "Auslöser",
    imports: "Import und Export",
    apiKeys: "API-Schlüssel",
    members: "Mitglieder",
    settings: "Einstellungen",
    webhooks: "Webhooks",
    emailActivity: "E-Mail-Aktivität"
  },
  role: { owner: "Inhaber", member: "Mitglied" },
  signIn: {
    title: "Anmelden",
    intro:
      "Geben Sie Ihre E-Mail-Adresse ein. Wir senden Ihnen einen Link, der Sie anmeldet; er gilt einmal, innerhalb von 15 Minuten.",
    email: "E-Mail-Adresse",
    submit: "Anmeldelink senden",
    sentTitle: "Sehen Sie in Ihr Postfach",
    sent:
      "Wenn sich diese Adresse anmelden kann, ist ein Link an {{ email }} unterwegs. Öffnen Sie ihn innerhalb von 15 Minuten auf diesem Gerät.",
    again: "Einen weiteren Link senden",
    noPassword: "Ein Passwort ist nicht nötig.",
    invalidEmail: "Geben Sie eine E-Mail-Adresse wie name@example.com ein."
  },
  organizations: {
    title: "Ihre Organisationen",
    none: "Sie sind noch in keiner Organisation Mitglied. Legen Sie eine an; Sie werden ihr Inhaber.",
    choose: "Wählen Sie die Organisation, in der Sie arbeiten möchten.",
    createTitle: "Organisation anlegen",
    name: "Name",
    slug: "Kurzname (Slug)",
    slugHint: "Kleinbuchstaben, Ziffern und Bindestriche; er erscheint in Adressen.",
    create: "Organisation anlegen",
    invalidSlug: "Verwenden Sie bis zu 64 Kleinbuchstaben und Ziffern, mit einzelnen Bindestrichen dazwischen.",
    missingName: "Geben Sie der Organisation einen Namen."
  },
  overview: overviewTexts.de,
  refusal: {
    title: "Das hat nicht geklappt",
    notFound: "Das gibt es nicht mehr: Es wurde womöglich inzwischen gelöscht.",
    forbidden: "Ihre Rolle in dieser Organisation erlaubt das nicht.",
    exists: "Dieser Name ist bereits vergeben.",
    slugTaken: "Dieser Kurzname ist bereits vergeben; wählen Sie einen anderen.",
    memberExists: "Diese Person ist bereits Mitglied; ändern Sie stattdessen ihre Rolle in der Liste.",
    lastOwner: "Die Organisation braucht einen Inhaber: Machen Sie zuerst ein anderes Mitglied zum Inhaber.",
    planLimit: "Der Tarif {{ tier }} erlaubt {{ max }} {{ what }}.",
    planUpgrade: "Der Tarif {{ upgrade }} erlaubt {{ upgradeMax }}: Wechseln Sie den Tarif, um mehr hinzuzufügen.",
    unlimited: "beliebig viele",
    limited: { subscribers: "Abonnenten", emails_per_month: "E-Mails im Monat" },
    tagLimit: {
      tags_per_organization:
        "Eine Organisation darf höchstens {{ max }} Tags haben, und diese hat so viele; löschen Sie Tags, die sie nicht mehr braucht, um neue anzulegen.",
      tags_per_subscriber:
        "Ein Abonnent darf höchstens {{ max }} Tags tragen, und das ginge darüber hinaus; entfernen Sie zuerst Tags, die er nicht mehr braucht."
    },
    planFeature: "Das braucht den Tarif {{ requiredTier }}; Ihre Organisation hat den Tarif {{ tier }}.",
    statusMove: "Ein Abonnent kann hier nicht von {{ from }} zu {{ to }} wechseln.",
    fileTooLarge:
      "Die Datei ist größer als {{ size }}, das Meiste, was ein Import annimmt; nichts davon wurde behalten. Teilen Sie sie in kleinere Dateien.",
    paymentRefused: "Der Zahlungsanbieter hat das abgelehnt: {{ detail }}",
    paymentUnavailable: "Der Zahlungsanbieter ist gerade nicht erreichbar; nichts wurde geändert. Versuchen Sie es gleich noch einmal.",
    billingOff: "Abrechnung ist auf diesem Dienst nicht verfügbar.",
    busy: "Das wird gerade schon erledigt; warten Sie einen Moment und laden Sie die Seite neu.",
    campaignState: "Die Kampagne ist jetzt {{ status }}, was das nicht erlaubt.",
    segmentInUse: "Kampagnen, Auslöser oder Sequenzen verwenden dieses Segment noch; geben Sie ihnen zuerst eine andere Zielgruppe, Bedingung oder einen anderen Einstieg.",
    sequenceState: "Die Sequenz ist jetzt {{ status }}; dafür muss sie aktiv sein.",
    linkUsed: "Dieser Link lässt sich nicht mehr verwenden; fordern Sie einen neuen an.",
    rateLimited: "Gerade zu viele Anfragen. Warten Sie einen Moment und versuchen Sie es erneut.",
    unavailable: "Der Dienst kann das gerade nicht erledigen. Versuchen Sie es gleich noch einmal.",
    invalid: "{{ field }}: {{ problem }}",
    crossSite:
      "Dieses Formular kam nicht von den Seiten von Roster, daher wurde nichts geändert. Laden Sie die Seite neu und versuchen Sie es erneut.",
    stalled:
      "Das Formular kam nicht mehr an: {{ seconds }} Sekunden lang kam nichts, daher wurde nichts davon behalten. Versuchen Sie es erneut.",
    signedOut: "Ihre Sitzung ist beendet. Melden Sie sich erneut an."
  },
  notFound: {
    title: "Nicht gefunden",
    text: "Unter dieser Adresse gibt es nichts, oder Sie sind nicht Mitglied der Organisation, die sie nennt."
  },
  back: "Zurück",
  reasons: reasonTexts.de,
  subscribers: subscribersTexts.de,
  tags: tagsTexts.de,
  forms: formsTexts.de,
  campaigns: campaignsTexts.de,
  segments: segmentsTexts.de,
  apiKeys: apiKeysTexts.de,
  members: membersTexts.de,
  imports: importsTexts.de,
  settings: settingsTexts.de,
  templates: templatesTexts.de,
  webhooks: webhooksTexts.de,
  emailActivity: emailActivityTexts.de,
  sequences: sequencesTexts.de,
  triggers: triggersTexts.de
}

export const dashboardTexts: Readonly<Record<Locale, DashboardTexts>> = { en, de }
