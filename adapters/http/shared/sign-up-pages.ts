import type { Locale } from "@roster/domain"
import type { Template } from "liquidjs"
import { pageTemplate, renderPage, standalonePage } from "./page-templates.js"

/**
 * The hosted pages of sign-up forms: the form itself, what a reader is told after sending it, and
 * the page a confirmation link opens. Rendered from Liquid templates that escape every value they
 * are given (a form's name and consent text stay text), in English or German. Self-contained: no
 * script, no external asset, one inline style, forms posted back to this origin only.
 */

const style = `
body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1f2328; }
h1 { font-size: 1.5rem; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
input[type=email] { font: inherit; width: 100%; box-sizing: border-box; padding: 0.5rem 0.6rem; border: 1px solid #6e7781; border-radius: 6px; }
input[aria-invalid=true] { border-color: #b42318; }
button { font: inherit; padding: 0.6rem 1.4rem; border: 0; border-radius: 6px; background: #1f6feb; color: #fff; cursor: pointer; margin-top: 1rem; }
.note { color: #57606a; }
.consent { color: #57606a; white-space: pre-line; }
.error { color: #b42318; margin: 0.25rem 0 0; }
.trap { position: absolute; left: -10000px; top: auto; width: 1px; height: 1px; overflow: hidden; }
`

const standalone = standalonePage(style, "title")

/** Headers of every sign-up page: its own style only, forms to this origin, no referrer (a link's address holds its token), no caching. */
export const signUpPageHeaders = standalone.headers

const layout = standalone.layout

interface Texts {
  readonly form: {
    readonly email: string
    readonly button: string
    readonly badEmail: string
    readonly stale: string
    readonly trap: string
  }
  readonly checkInbox: { readonly title: string; readonly message: string }
  readonly subscribed: { readonly title: string; readonly message: string }
  readonly notFound: { readonly title: string; readonly message: string }
  readonly confirm: { readonly title: string; readonly message: string; readonly button: string }
  readonly confirmed: { readonly title: string; readonly message: string }
  readonly invalid: { readonly title: string; readonly message: string }
  readonly full: { readonly title: string; readonly message: string }
  readonly notAllowed: { readonly title: string; readonly message: string; readonly link: string }
}

const texts: Readonly<Record<Locale, Texts>> = {
  en: {
    form: {
      email: "Email address",
      button: "Subscribe",
      badEmail: "Enter an email address such as name@example.com.",
      stale: "This page was open for a long time. Please send the form again.",
      trap: "Leave this field empty"
    },
    checkInbox: {
      title: "Check your inbox",
      message: "We sent you an email with a link. Open it to confirm your subscription to {form}."
    },
    subscribed: { title: "You are subscribed", message: "Thank you for subscribing to {form}." },
    notFound: { title: "This form does not exist", message: "The form may have been removed. Check the address of the page." },
    confirm: { title: "Confirm your subscription", message: "Press the button to confirm your subscription to {form}.", button: "Confirm" },
    confirmed: { title: "Your subscription is confirmed", message: "Thank you: you are subscribed to {form}." },
    invalid: {
      title: "This link does not work",
      message: "The confirmation link has expired or is not complete. Sign up again to get a new one."
    },
    full: {
      title: "This list is full",
      message: "Sorry: this list cannot take new subscribers at the moment. Please try again later."
    },
    notAllowed: {
      title: "This form cannot be sent from that site",
      message: "The owner of {form} has not allowed the site you came from to send its form.",
      link: "Sign up on the form's own page"
    }
  },
  de: {
    form: {
      email: "E-Mail-Adresse",
      button: "Abonnieren",
      badEmail: "Geben Sie eine E-Mail-Adresse wie name@example.com ein.",
      stale: "Diese Seite war lange geöffnet. Bitte senden Sie das Formular noch einmal.",
      trap: "Dieses Feld leer lassen"
    },
    checkInbox: {
      title: "Sehen Sie in Ihr Postfach",
      message: "Wir haben Ihnen eine E-Mail mit einem Link gesendet. Öffnen Sie ihn, um Ihr Abonnement von {form} zu bestätigen."
    },
    subscribed: { title: "Sie sind angemeldet", message: "Vielen Dank für Ihr Abonnement von {form}." },
    notFound: { title: "Dieses Formular gibt es nicht", message: "Das Formular wurde vielleicht entfernt. Prüfen Sie die Adresse der Seite." },
    confirm: {
      title: "Bestätigen Sie Ihr Abonnement",
      message: "Klicken Sie auf die Schaltfläche, um Ihr Abonnement von {form} zu bestätigen.",
      button: "Bestätigen"
    },
    confirmed: { title: "Ihr Abonnement ist bestätigt", message: "Vielen Dank: Sie haben {form} abonniert." },
    invalid: {
      title: "Dieser Link funktioniert nicht",
      message: "Der Bestätigungslink ist abgelaufen oder unvollständig. Melden Sie sich erneut an, um einen neuen zu erhalten."
    },
    full: {
      title: "Diese Liste ist voll",
      message: "Leider kann diese Liste zurzeit keine neuen Abonnenten aufnehmen. Bitte versuchen Sie es später noch einmal."
    },
    notAllowed: {
      title: "Dieses Formular kann von jener Website nicht gesendet werden",
      message: "Wer {form} betreibt, hat der Website, von der Sie kommen, das Senden dieses Formulars nicht erlaubt.",
      link: "Melden Sie sich auf der eigenen Seite des Formulars an"
    }
  }
}

/** `{form}` in a text: the form's name, escaped and set in bold. */
const filled = (text: string) => text.replace("{form}", "<strong>{{ name }}</strong>")

/** A page that says one thing. */
const message = (kind: Exclude<keyof Texts, "form">) => (locale: Locale) =>
  layout(`    <h1>{{ title }}</h1>
    <p>${filled(texts[locale][kind].message)}</p>`)

const templates = {
  /**
   * The form. The trap field is out of sight and out of reach of people and screen readers
   * (`aria-hidden`, not focusable, not filled in by browsers); robots that fill every field fill it.
   */
  form: () =>
    layout(`    <h1>{{ name }}</h1>
    {% if stale %}<p class="error" role="alert">{{ t.stale }}</p>{% endif %}
    <form method="post" action="{{ action }}" novalidate>
      <label for="email">{{ t.email }}</label>
      <input id="email" name="email" type="email" autocomplete="email" required value="{{ email }}"{% if error %} aria-invalid="true" aria-describedby="email-error"{% endif %} />
      {% if error %}<p id="email-error" class="error">{{ t.badEmail }}</p>{% endif %}
      <div class="trap" aria-hidden="true">
        <label for="website">{{ t.trap }}</label>
        <input id="website" name="website" type="text" tabindex="-1" autocomplete="off" value="" />
      </div>
      <input type="hidden" name="shown" value="{{ stamp }}" />
      {% if consent %}<p class="consent">{{ consent }}</p>{% endif %}
      <button type="submit">{{ t.button }}</button>
    </form>`),
  checkInbox: message("checkInbox"),
  subscribed: message("subscribed"),
  notFound: message("notFound"),
  confirm: (locale: Locale) =>
    layout(`    <h1>{{ title }}</h1>
    <p>${filled(texts[locale].confirm.message)}</p>
    <form method="post" action="{{ action }}">
      <button type="submit">{{ t.button }}</button>
    </form>`),
  confirmed: message("confirmed"),
  invalid: message("invalid"),
  full: message("full"),
  /** A form posted from a site the form does not allow, with a link to the form's own page. */
  notAllowed: (locale: Locale) =>
    layout(`    <h1>{{ title }}</h1>
    <p>${filled(texts[locale].notAllowed.message)}</p>
    <p><a href="{{ action }}">{{ t.link }}</a></p>`)
}

/** The kinds of sign-up page. */
export type SignUpPageKind = keyof typeof templates

const parsed = new Map<string, ReadonlyArray<Template>>()
const templateOf = (kind: SignUpPageKind, locale: Locale) => {
  const key = `${kind}/${locale}`
  let found = parsed.get(key)
  if (found === undefined) {
    found = templates[kind](locale)
    parsed.set(key, found)
  }
  return found
}

/** What a sign-up page shows; every value is escaped. */
export interface SignUpPageScope {
  /** The form's name. */
  readonly name?: string
  readonly consent?: string | null
  /** Where the page's form posts. */
  readonly action?: string
  /** The page's signed stamp of when it was shown. */
  readonly stamp?: string
  /** The address the reader typed, shown again beside its error. */
  readonly email?: string
  /** Whether the address is not one. */
  readonly error?: boolean
  /** Whether the page was sent back without a good stamp, or too late, and is shown anew. */
  readonly stale?: boolean
}

/** A sign-up page in `locale`; every value of `scope` is escaped. */
export const signUpPage = (kind: SignUpPageKind, locale: Locale, scope: SignUpPageScope = {}): string => {
  const t = texts[locale]
  return renderPage(templateOf(kind, locale), {
    locale,
    t: kind === "form" ? t.form : t[kind],
    title: kind === "form" ? scope.name ?? "" : t[kind].title,
    name: scope.name ?? "",
    // Liquid holds an empty text true: no consent text is nil, so that the page shows no empty paragraph.
    consent: scope.consent ?? null,
    action: scope.action ?? "",
    stamp: scope.stamp ?? "",
    email: scope.email ?? "",
    error: scope.error ?? false,
    stale: scope.stale ?? false
  })
}

/**
 * The form a site embeds: a plain HTML form that posts to the form's address at the service
 * (`action`), and so works without any script. Its ids carry the form's id, so that two forms fit
 * on one page. The trap field is left out of sight by the `hidden` attribute rather than by a
 * style, which a site's Content-Security-Policy may refuse; people and screen readers never meet
 * it, robots that fill every field do.
 */
const snippet = pageTemplate(`<form method="post" action="{{ action }}" accept-charset="utf-8" class="roster-sign-up">
  <label for="roster-{{ id }}-email">{{ t.email }}</label>
  <input id="roster-{{ id }}-email" name="email" type="email" autocomplete="email" required />
  <div hidden>
    <label for="roster-{{ id }}-website">{{ t.trap }}</label>
    <input id="roster-{{ id }}-website" name="website" type="text" tabindex="-1" autocomplete="off" value="" />
  </div>
{% if consent %}  <p class="roster-consent">{{ consent }}</p>
{% endif %}  <button type="submit">{{ t.button }}</button>
</form>
`)

/** What the embedded form shows; every value is escaped. */
export interface SignUpSnippetScope {
  readonly id: string
  readonly consent: string | null
  /** The absolute address it posts to. */
  readonly action: string
}

/** The HTML form a site embeds for a sign-up form, in `locale`; every value is escaped. */
export const signUpSnippet = (locale: Locale, scope: SignUpSnippetScope): string =>
  renderPage(snippet, { t: texts[locale].form, id: scope.id, consent: scope.consent, action: scope.action })
