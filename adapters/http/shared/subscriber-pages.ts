import type { Locale } from "@roster/domain"
import type { Template } from "liquidjs"
import { renderPage, standalonePage } from "./page-templates.js"

/**
 * The pages subscribers see (their preferences, unsubscribing, erasure, and a link that no longer
 * works), rendered from
 * Liquid templates that escape every value they are given, so that whatever an organization
 * names itself stays text. Self-contained: no script, no external asset, one inline style, and a
 * Content-Security-Policy that allows only that style and forms posted back to this origin.
 *
 * These are the service's own templates, not an organization's: their work grows only with the
 * tags an organization may hold (MAX_TAGS_PER_ORGANIZATION), so they run without the render time
 * limit that guards customers' templates, which a page at that many tags must never meet. Each
 * tag's row is kept small for the same reason: one form for the whole list, no whitespace, no
 * end tags HTML lets go.
 */

const style = `
body { font-family: system-ui, sans-serif; max-width: 34rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1f2328; }
h1 { font-size: 1.5rem; }
button { font: inherit; padding: 0.6rem 1.4rem; border: 0; border-radius: 6px; background: #1f6feb; color: #fff; cursor: pointer; }
.note { color: #57606a; }
a { color: #0969da; }
ul.tags { list-style: none; padding: 0; }
ul.tags li { display: flex; gap: 1rem; align-items: center; justify-content: space-between; padding: 0.75rem 0; border-bottom: 1px solid #d0d7de; }
ul.tags strong { font-weight: 600; }
ul.tags strong .note { font-weight: 400; }
form.tags { margin: 0; }
button.off { background: #eaeef2; color: #1f2328; }
button.danger { background: #b42318; }
.saved { background: #dafbe1; padding: 0.5rem 0.75rem; border-radius: 6px; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 2rem; }
.actions form { margin: 0; }
`

const standalone = standalonePage(style, "t.title")

/** Headers of every subscriber page: its own style only, forms to this origin, no referrer (the address holds the token), no caching. */
export const subscriberPageHeaders = standalone.headers

const layout = standalone.layout

interface Texts {
  readonly confirm: { readonly title: string; readonly question: string; readonly button: string; readonly manage: string }
  readonly done: { readonly title: string; readonly message: string; readonly manage: string }
  readonly invalid: { readonly title: string; readonly message: string }
  readonly preferences: {
    readonly title: string
    readonly intro: string
    readonly saved: string
    readonly unsubscribedNote: string
    readonly subscribe: string
    readonly unsubscribe: string
    readonly subscribed: string
    readonly noTags: string
    readonly unsubscribeAll: string
    readonly resubscribe: string
    readonly download: string
    readonly erase: string
  }
  readonly confirmErasure: { readonly title: string; readonly question: string; readonly button: string; readonly back: string }
  readonly erasureRequested: { readonly title: string; readonly message: string }
  readonly refused: { readonly title: string; readonly message: string }
  readonly tooManyTags: { readonly title: string; readonly message: string; readonly back: string }
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
    },
    preferences: {
      title: "Your email preferences",
      intro: "Choose what {organization} sends to {email}.",
      saved: "Your preferences are saved.",
      unsubscribedNote: "You get no email from {organization} at the moment.",
      subscribe: "Subscribe",
      unsubscribe: "Unsubscribe",
      subscribed: "subscribed",
      noTags: "There is nothing to choose from yet.",
      unsubscribeAll: "Unsubscribe from everything",
      resubscribe: "Get email again",
      download: "Download my data",
      erase: "Delete my data"
    },
    confirmErasure: {
      title: "Delete your data?",
      question: "{organization} will delete {email} and everything stored about it within a minute. This cannot be undone.",
      button: "Delete my data",
      back: "Keep my data"
    },
    erasureRequested: {
      title: "Your data is being deleted",
      message: "{organization} deletes {email} and everything stored about it within a minute. The links you were sent no longer work."
    },
    refused: {
      title: "This request was refused",
      message: "Changes can only be made from this page itself. Open the link from your email again."
    },
    tooManyTags: {
      title: "You follow as many topics as you can",
      message: "You can subscribe to at most {max} topics. Unsubscribe from one to choose another.",
      back: "Back to your preferences"
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
    },
    preferences: {
      title: "Ihre E-Mail-Einstellungen",
      intro: "Wählen Sie, was {organization} an {email} sendet.",
      saved: "Ihre Einstellungen sind gespeichert.",
      unsubscribedNote: "Sie erhalten zurzeit keine E-Mails von {organization}.",
      subscribe: "Abonnieren",
      unsubscribe: "Abbestellen",
      subscribed: "abonniert",
      noTags: "Es gibt noch nichts zur Auswahl.",
      unsubscribeAll: "Von allem abmelden",
      resubscribe: "Wieder E-Mails erhalten",
      download: "Meine Daten herunterladen",
      erase: "Meine Daten löschen"
    },
    confirmErasure: {
      title: "Ihre Daten löschen?",
      question: "{organization} löscht {email} und alles, was dazu gespeichert ist, innerhalb einer Minute. Das lässt sich nicht rückgängig machen.",
      button: "Meine Daten löschen",
      back: "Meine Daten behalten"
    },
    erasureRequested: {
      title: "Ihre Daten werden gelöscht",
      message: "{organization} löscht {email} und alles, was dazu gespeichert ist, innerhalb einer Minute. Die Links, die Sie erhalten haben, funktionieren nicht mehr."
    },
    refused: {
      title: "Diese Anfrage wurde abgelehnt",
      message: "Änderungen sind nur auf dieser Seite selbst möglich. Öffnen Sie den Link aus Ihrer E-Mail erneut."
    },
    tooManyTags: {
      title: "Sie folgen so vielen Themen wie möglich",
      message: "Sie können höchstens {max} Themen abonnieren. Bestellen Sie eines ab, um ein anderes zu wählen.",
      back: "Zurück zu Ihren Einstellungen"
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
    <p class="note">{{ t.message }}</p>`),
  refused: () =>
    layout(`    <h1>{{ t.title }}</h1>
    <p class="note">{{ t.message }}</p>`),
  tooManyTags: (locale: Locale) =>
    layout(`    <h1>{{ t.title }}</h1>
    <p>${texts[locale].tooManyTags.message.replace("{max}", "{{ max }}")}</p>
    <p class="note"><a href="/preference-center?token={{ token | url_encode }}&amp;locale={{ locale }}">{{ t.back }}</a></p>`),
  preferences: (locale: Locale) =>
    layout(`    <h1>{{ t.title }}</h1>
    <p>${filled(texts[locale].preferences.intro)}</p>
    {% if saved %}<p class="saved" role="status">{{ t.saved }}</p>{% endif %}
    {% if status != "active" %}<p class="note">${filled(texts[locale].preferences.unsubscribedNote)}</p>{% endif %}
    {% if tags.size == 0 %}<p class="note">{{ t.noTags }}</p>{% endif %}
    {% if tags.size > 0 %}<form method="post" action="{{ action }}" class="tags"><ul class="tags">
{% for tag in tags -%}
<li>{% if tag.description %}<div>{% endif %}<strong>{{ tag.name }}{% if tag.subscribed %} <span class="note">({{ t.subscribed }})</span>{% endif %}</strong>
{%- if tag.description %}<div class="note">{{ tag.description }}</div></div>{% endif %}
{%- if tag.subscribed -%}
<button name=unsubscribe value={{ tag.id }} class=off aria-label="{{ t.unsubscribe }}: {{ tag.name }}">{{ t.unsubscribe }}</button>
{%- else -%}
<button name=subscribe value={{ tag.id }} aria-label="{{ t.subscribe }}: {{ tag.name }}">{{ t.subscribe }}</button>
{%- endif %}
{% endfor -%}
</ul></form>{% endif %}
    <div class="actions">
      <form method="post" action="{{ action }}">
        {% if status == "active" %}
        <button type="submit" name="action" value="unsubscribe_all" class="off">{{ t.unsubscribeAll }}</button>
        {% else %}
        <button type="submit" name="action" value="resubscribe">{{ t.resubscribe }}</button>
        {% endif %}
      </form>
      <a href="/preference-center/data-export?token={{ token | url_encode }}" download>{{ t.download }}</a>
      <a href="/preference-center?token={{ token | url_encode }}&amp;locale={{ locale }}&amp;confirm=erase">{{ t.erase }}</a>
    </div>`),
  confirmErasure: (locale: Locale) =>
    layout(`    <h1>{{ t.title }}</h1>
    <p>${filled(texts[locale].confirmErasure.question)}</p>
    <div class="actions">
      <form method="post" action="{{ action }}">
        <button type="submit" name="action" value="erase" class="danger">{{ t.button }}</button>
      </form>
      <a href="/preference-center?token={{ token | url_encode }}&amp;locale={{ locale }}">{{ t.back }}</a>
    </div>`),
  erasureRequested: (locale: Locale) =>
    layout(`    <h1>{{ t.title }}</h1>
    <p>${filled(texts[locale].erasureRequested.message)}</p>`)
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
  return found
}

export interface SubscriberPageScope {
  readonly organization?: string
  readonly email?: string
  readonly token?: string
  readonly status?: string
  readonly saved?: boolean
  /** The most tags a subscriber may carry, for the page that says they carry that many. */
  readonly max?: number
  readonly tags?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly description: string | null; readonly subscribed: boolean }>
}

/** A subscriber page in `locale`; every value of `scope` is escaped. */
export const subscriberPage = (kind: PageKind, locale: Locale, scope: SubscriberPageScope = {}): string =>
  renderPage(templateOf(kind, locale), {
    locale,
    t: texts[locale][kind],
    organization: scope.organization ?? "",
    email: scope.email ?? "",
    token: scope.token ?? "",
    status: scope.status ?? "active",
    saved: scope.saved ?? false,
    max: scope.max ?? 0,
    tags: scope.tags ?? [],
    // Forms post back to the page's own address, with the token that proves who asks.
    action: `/preference-center?token=${encodeURIComponent(scope.token ?? "")}&locale=${locale}`
  })
