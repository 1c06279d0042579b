import type { Liquid } from "liquidjs"
import { makePageEngine } from "../shared/page-templates.js"
import { apiKeysViews } from "./api-keys-views.js"
import { formsViews } from "./forms-views.js"
import { campaignsViews } from "./campaigns-views.js"
import { segmentsViews } from "./segments-views.js"
import { membersViews } from "./members-views.js"
import { overviewViews } from "./overview-views.js"
import { subscribersViews } from "./subscribers-views.js"
import { importsViews } from "./imports-views.js"
import { settingsViews } from "./settings-views.js"
import { tagsViews } from "./tags-views.js"
import { templatesViews } from "./templates-views.js"
import { webhooksViews } from "./webhooks-views.js"
import { emailActivityViews } from "./email-activity-views.js"
import { sequencesViews } from "./sequences-views.js"
import { triggersViews } from "./triggers-views.js"

/**
 * The dashboard's pages, as Liquid templates that escape every value they are given. `page` is
 * the document around every page; `entry` lays out the pages before an organization is chosen,
 * `app` those inside one (the organization's menu beside the content). A text with `{{ name }}`
 * in it is filled with `| fill: "name", value`.
 */
const frameTemplates = {
  page: `<!DOCTYPE html>
<html lang="{{ locale }}">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <meta name="referrer" content="same-origin" />
  {% if csrf %}<meta name="csrf-token" content="{{ csrf }}" />{% endif %}
  <title>{% block title %}{% endblock %} · {{ t.product }}</title>
  <link rel="icon" href="data:," />
  <link rel="stylesheet" href="{{ assets.style }}" />
  <script src="{{ assets.script }}" defer></script>
</head>
<body>
  <a class="skip" href="#content">{{ t.skipToContent }}</a>
  <header class="top">
    <a class="brand" href="/app">{{ t.product }}</a>
    {% if organization %}<span class="who">{{ organization.name }} · {{ t.role[organization.role] }}</span>{% endif %}
    <nav aria-label="{{ t.language }}">
      <a href="/app/locale/en?back={{ path | url_encode }}" lang="en"{% if locale == "en" %} aria-current="true"{% endif %}>English</a> ·
      <a href="/app/locale/de?back={{ path | url_encode }}" lang="de"{% if locale == "de" %} aria-current="true"{% endif %}>Deutsch</a>
    </nav>
    {% if user %}
    <span class="who">{{ user.email }}</span>
    <form method="post" action="/app/sign-out">
      <input type="hidden" name="csrf" value="{{ csrf }}" />
      <button type="submit" class="secondary">{{ t.signOut }}</button>
    </form>
    {% endif %}
  </header>
  {% block frame %}{% endblock %}
</body>
</html>`,

  entry: `{% layout "page" %}{% block frame %}
  <main id="content" class="narrow">
    {% render "flash", flash: flash %}
    {% block content %}{% endblock %}
  </main>
{% endblock %}`,

  app: `{% layout "page" %}{% block frame %}
  <div class="frame">
    <nav class="side" aria-label="{{ organization.name }}">
      <ul>
        {% for item in menu %}
        <li><a href="{{ item.href }}"{% if item.current %} aria-current="page"{% endif %}>{{ item.label }}</a></li>
        {% endfor %}
        {% if organizations.size > 1 %}<li><a href="/app/organizations">{{ t.switchOrganization }}</a></li>{% endif %}
      </ul>
    </nav>
    <main id="content">
      {% render "flash", flash: flash %}
      {% block content %}{% endblock %}
    </main>
  </div>
{% endblock %}`,

  flash: `{% if flash %}<div class="flash {{ flash.kind }}" role="{% if flash.kind == "error" %}alert{% else %}status{% endif %}">{{ flash.text }}</div>{% endif %}`,

  "field-error": `{% if error %}<p class="field-error" id="{{ id }}-error">{{ error }}</p>{% endif %}`,

  // The links between the pages of a list, in the words of its screen (`texts`: pages, previous, next, pageOf).
  pages: `{% if totalPages > 1 %}
  <nav class="actions pages" aria-label="{{ texts.pages }}">
    {% if previous != "" %}<a href="{{ previous }}">{{ texts.previous }}</a>{% endif %}
    <span>{{ texts.pageOf | fill: "page", pageNumber, "pages", totalPages }}</span>
    {% if next != "" %}<a href="{{ next }}">{{ texts.next }}</a>{% endif %}
  </nav>
  {% endif %}`,

  // Asks before something is deleted: what it is (its title), what deleting it does, and the two ways on.
  "confirm-delete": `{% layout "app" %}{% block title %}{{ title }}{% endblock %}{% block content %}
  <h1>{{ title }}</h1>
  <p>{{ consequence }}</p>
  <form method="post" action="{{ action }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit" class="danger">{{ confirm }}</button>
    <a href="{{ cancel }}">{{ cancelLabel }}</a>
  </form>
{% endblock %}`,

  "sign-in": `{% layout "entry" %}{% block title %}{{ t.signIn.title }}{% endblock %}{% block content %}
  <h1>{{ t.signIn.title }}</h1>
  <p class="note">{{ t.signIn.intro }} {{ t.signIn.noPassword }}</p>
  <form class="stack" method="post" action="/app/sign-in" novalidate>
    <div>
      <label for="email">{{ t.signIn.email }}</label>
      <input id="email" name="email" type="email" autocomplete="email" required value="{{ email }}"
        {% if errors.email %}aria-invalid="true" aria-describedby="email-error"{% endif %} />
      {% render "field-error", id: "email", error: errors.email %}
    </div>
    <div><button type="submit">{{ t.signIn.submit }}</button></div>
  </form>
{% endblock %}`,

  "sign-in-sent": `{% layout "entry" %}{% block title %}{{ t.signIn.sentTitle }}{% endblock %}{% block content %}
  <h1>{{ t.signIn.sentTitle }}</h1>
  <p>{{ t.signIn.sent | fill: "email", email }}</p>
  <p><a href="/app/sign-in">{{ t.signIn.again }}</a></p>
{% endblock %}`,

  organizations: `{% layout "entry" %}{% block title %}{{ t.organizations.title }}{% endblock %}{% block content %}
  <h1>{{ t.organizations.title }}</h1>
  {% if organizations.size == 0 %}
  <p>{{ t.organizations.none }}</p>
  {% else %}
  <p class="note">{{ t.organizations.choose }}</p>
  <ul class="plain">
    {% for o in organizations %}
    <li><a href="/app/o/{{ o.slug }}">{{ o.name }} <span class="badge">{{ t.role[o.role] }}</span></a></li>
    {% endfor %}
  </ul>
  {% endif %}
  <h2>{{ t.organizations.createTitle }}</h2>
  <form class="stack" method="post" action="/app/organizations" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="org-name">{{ t.organizations.name }}</label>
      <input id="org-name" name="name" type="text" required maxlength="200" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="org-name-error"{% endif %} />
      {% render "field-error", id: "org-name", error: errors.name %}
    </div>
    <div>
      <label for="org-slug">{{ t.organizations.slug }}</label>
      <input id="org-slug" name="slug" type="text" required maxlength="64" value="{{ values.slug }}"
        aria-describedby="org-slug-hint{% if errors.slug %} org-slug-error{% endif %}"{% if errors.slug %} aria-invalid="true"{% endif %} />
      <p class="hint" id="org-slug-hint">{{ t.organizations.slugHint }}</p>
      {% render "field-error", id: "org-slug", error: errors.slug %}
    </div>
    <div><button type="submit">{{ t.organizations.create }}</button></div>
  </form>
{% endblock %}`,

  refusal: `{% layout "entry" %}{% block title %}{{ t.refusal.title }}{% endblock %}{% block content %}
  <h1>{{ t.refusal.title }}</h1>
  <p role="alert">{{ message }}</p>
  <p><a href="{{ back }}">{{ t.back }}</a></p>
{% endblock %}`,

  "not-found": `{% layout "entry" %}{% block title %}{{ t.notFound.title }}{% endblock %}{% block content %}
  <h1>{{ t.notFound.title }}</h1>
  <p>{{ t.notFound.text }}</p>
  <p><a href="/app">{{ t.back }}</a></p>
{% endblock %}`
} as const

/** Every screen's templates, beside the frame's. A screen's views are in its own `*-views.ts`. */
const templates = { ...frameTemplates, ...overviewViews, ...subscribersViews, ...tagsViews, ...formsViews, ...segmentsViews, ...apiKeysViews, ...membersViews, ...importsViews, ...settingsViews, ...templatesViews, ...campaignsViews, ...webhooksViews, ...emailActivityViews, ...sequencesViews, ...triggersViews } as const

/** Partials: rendered inside pages, never as a page. */
type Partial = "page" | "entry" | "app" | "flash" | "field-error" | "pages" | `${string}-form` | "segment-condition-problem" | "template-problem" | "template-preview-for" | "template-preview-shown"

export type DashboardView = Exclude<keyof typeof templates, Partial>

const fill = (text: unknown, ...pairs: Array<unknown>): string => {
  let filled = String(text)
  for (let i = 0; i + 1 < pairs.length; i += 2) filled = filled.split(`{{ ${String(pairs[i])} }}`).join(String(pairs[i + 1]))
  return filled
}

const makeEngine = (): Liquid => {
  const engine = makePageEngine(templates, { lenient: true })
  engine.registerFilter("fill", fill)
  return engine
}

const engine = makeEngine()

/**
 * Each view parsed on its first page, not when the module loads: a server that is not asked for
 * the dashboard does not parse its templates, and one that is parses only the screens it shows.
 */
const parsed = new Map<keyof typeof templates, ReturnType<Liquid["parse"]>>()
export const parsedView = (view: keyof typeof templates) => {
  let template = parsed.get(view)
  if (template === undefined) {
    template = engine.parse(templates[view])
    parsed.set(view, template)
  }
  return template
}

/** The name of every view and partial, for a test that parses them all. */
export const viewNames = Object.keys(templates) as ReadonlyArray<keyof typeof templates>

/** A page of the dashboard made of `values`, every value escaped. */
export const renderView = (view: DashboardView, values: object): string =>
  String(engine.renderSync(parsedView(view), values))
