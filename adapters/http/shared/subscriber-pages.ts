import type { Locale } from "@roster/domain"
import { Liquid, type Template } from "liquidjs"
import { createHash } from "node:crypto"

/**
 * The pages subscribers see (unsubscribing, and a link that no longer works), rendered from
 * Liquid templates that escape every value they are given, so that whatever an organization
 * names itself stays text. Self-contained: no script, no external asset, one inline style, and a
 * Content-Security-Policy that allows only that style and forms posted back to this origin.
 */

const engine = new Liquid({
  templates: {},
  relativeReference: false,
  strictVariables: true,
  strictFilters: true,
  ownPropertyOnly: true,
  outputEscape: "escape",
  renderLimit: 1_000
})

const style = `
body { font-family: system-ui, sans-serif; max-width: 34rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1f2328; }
h1 { font-size: 1.5rem; }
button { font: inherit; padding: 0.6rem 1.4rem; border: 0; border-radius: 6px; background: #1f6feb; color: #fff; cursor: pointer; }
.note { color: #57606a; }
a { color: #0969da; }
`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/** Headers of every subscriber page: its own style only, forms to this origin, no referrer (the address holds the token), no caching. */
export const subscriberPageHeaders: Readonly<Record<string, string>> = {
  "Content-Security-Policy": [
    "default-src 'none'",
    `style-src ${sha256(style)}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'"
  ].join("; "),
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY"
}

const layout = (body: string) =>
  engine.parse(`<!DOCTYPE html>
<html lang="{{ locale }}">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <meta name="referrer" content="no-referrer" />
  <title>{{ t.title }}</title>
  <style>${style}</style>
</head>
<body>
  <main>
${body}
  </main>
</body>
</html>
`)

interface Texts {
  readonly confirm: { readonly title: string; readonly question: string; readonly button: string; readonly manage: string }
  readonly done: { readonly title: string; readonly message: string; readonly manage: string }
  readonly invalid: { readonly title: string; readonly message: string }
}

const texts: Readonly<Record<Locale, Texts>> = {
  en: {
    confirm: {
      title: "Unsubscribe",
      question: "Stop all email from {organization} to {email}?",
      button: "Unsubscribe",
      manage: "Or choose which emails you get"
    },
    done: {
      title: "You are unsubscribed",
      message: "{organization} will send no more email to {email}.",
      manage: "Changed your mind? Manage your preferences"
    },
    invalid: {
      title: "This link no longer works",
      message: "The link has expired or was replaced by a newer one. Use the link in the latest email you received."
    }
  },
  de: {
    confirm: {
      title: "Abmelden",
      question: "Keine E-Mails mehr von {organization} an {email}?",
      button: "Abmelden",
      manage: "Oder wählen Sie, welche E-Mails Sie erhalten"
    },
    done: {
      title: "Sie sind abgemeldet",
      message: "{organization} sendet keine E-Mails mehr an {email}.",
      manage: "Doch anders entschieden? Einstellungen verwalten"
    },
    invalid: {
      title: "Dieser Link funktioniert nicht mehr",
      message: "Der Link ist abgelaufen oder wurde durch einen neueren ersetzt. Verwenden Sie den Link aus der neuesten E-Mail."
    }
  }
}

/** `{organization}` and `{email}` in a text, each value escaped and set in bold. */
const filled = (text: string) =>
  text.replace("{organization}", "<strong>{{ organization }}</strong>").replace("{email}", "<strong>{{ email }}</strong>")

const templates = {
  confirm: (locale: Locale) =>
    layout(`    <h1>{{ t.title }}</h1>
    <p>${filled(texts[locale].confirm.question)}</p>
    <form method="post" action="/unsubscribe?token={{ token | url_encode }}&amp;locale={{ locale }}">
      <input type="hidden" name="List-Unsubscribe" value="One-Click" />
      <button type="submit">{{ t.button }}</button>
    </form>
    <p class="note"><a href="/preference-center?token={{ token | url_encode }}&amp;locale={{ locale }}">{{ t.manage }}</a></p>`),
  done: (locale: Locale) =>
    layout(`    <h1>{{ t.title }}</h1>
    <p>${filled(texts[locale].done.message)}</p>
    <p class="note"><a href="/preference-center?token={{ token | url_encode }}&amp;locale={{ locale }}">{{ t.manage }}</a></p>`),
  invalid: () =>
    layout(`    <h1>{{ t.title }}</h1>
    <p class="note">{{ t.message }}</p>`)
}

type PageKind = keyof typeof templates

const parsed = new Map<string, ReadonlyArray<Template>>()
const templateOf = (kind: PageKind, locale: Locale) => {
  const key = `${kind}/${locale}`
  let found = parsed.get(key)
  if (found === undefined) {
    found = templates[kind](locale)
    parsed.set(key, found)
  }
  return found as Array<Template>
}

export interface SubscriberPageScope {
  readonly organization?: string
  readonly email?: string
  readonly token?: string
}

/** A subscriber page in `locale`; every value of `scope` is escaped. */
export const subscriberPage = (kind: PageKind, locale: Locale, scope: SubscriberPageScope = {}): string =>
  String(engine.renderSync(templateOf(kind, locale), {
    locale,
    t: texts[locale][kind],
    organization: scope.organization ?? "",
    email: scope.email ?? "",
    token: scope.token ?? ""
  }))
