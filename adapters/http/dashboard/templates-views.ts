/** The templates screen's pages (templates-screen.ts), in the frame of views.ts. */
export const templatesViews = {
  templates: `{% layout "app" %}{% block title %}{{ t.templates.title }}{% endblock %}{% block content %}
  <h1>{{ t.templates.title }}</h1>
  <p class="note">{{ t.templates.intro }}</p>
  <p><a class="button" href="{{ newAction }}">{{ t.templates.newTemplate }}</a></p>
  {% if templates.size == 0 %}<p>{{ t.templates.none }}</p>{% else %}
  <div class="table-wrap">
  <table>
    <caption class="visually-hidden">{{ t.templates.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.templates.name }}</th><th scope="col">{{ t.templates.kind }}</th>
      <th scope="col">{{ t.templates.changed }}</th><th scope="col">{{ t.templates.actions }}</th>
    </tr></thead>
    <tbody>
    {% for template in templates %}
    <tr>
      <td><a href="{{ base }}/templates/{{ template.id }}">{{ template.name }}</a></td>
      <td>{{ t.templates.kinds[template.kind] }}</td>
      <td><time datetime="{{ template.changed }}">{{ template.changed | slice: 0, 16 | replace: "T", " " }}</time></td>
      <td class="actions">
        <a href="{{ base }}/templates/{{ template.id }}" aria-label="{{ t.templates.edit }}: {{ template.name }}">{{ t.templates.edit }}</a>
        <a href="{{ base }}/templates/{{ template.id }}/delete" aria-label="{{ t.templates.delete }}: {{ template.name }}">{{ t.templates.delete }}</a>
      </td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% render "pages", texts: t.templates, previous: previous, next: next, pageNumber: pageNumber, totalPages: totalPages %}
  {% endif %}
{% endblock %}`,

  // A part's problem, where the page's script puts the one the check route answers.
  "template-problem": `<div id="tpl-{{ part }}-problem">{% if error %}<p class="field-error" id="tpl-{{ part }}-error">{{ error }}</p>{% elsif problem %}<p class="field-error" id="tpl-{{ part }}-error">{{ problem.message }}</p>{% if problem.excerpt %}<pre class="excerpt" tabindex="0">{{ problem.excerpt }}</pre>{% endif %}{% endif %}</div>`,

  // The "preview for" field of a template's preview (the editor's and the composer's, `id` naming
  // which): an address typed, with the organization's subscribers' addresses that match it offered
  // by the page's script from `searchAction`.
  "template-preview-for": `<div>
      <label for="{{ id }}-preview-email">{{ t.templates.previewFor }}</label>
      <input id="{{ id }}-preview-email" name="preview_email" type="email" list="{{ id }}-subscribers" autocomplete="off" maxlength="320"
        value="{{ email }}" aria-describedby="{{ id }}-preview-email-hint" data-search="{{ searchAction }}" />
      <datalist id="{{ id }}-subscribers"></datalist>
      <p class="hint" id="{{ id }}-preview-email-hint">{{ t.templates.previewForHint }}</p>
    </div>`,

  // A template's preview as rendered (the editor's and the composer's): what it is for, the
  // subject, the HTML body in a sandboxed frame the preview button sends the form to, and the text
  // body; the page's script puts a new preview's subject and text in place by these ids.
  "template-preview-shown": `<div id="{{ id }}-preview" aria-live="polite">
      <p class="note" id="{{ id }}-preview-note">{{ preview.note }}</p>
      <p id="{{ id }}-preview-empty" class="hint">{{ preview.empty }}</p>
      <dl class="facts">
        <dt>{{ t.templates.previewSubject }}</dt><dd id="{{ id }}-preview-subject">{{ preview.subject }}</dd>
      </dl>
    </div>
    <h3>{{ t.templates.previewHtml }}</h3>
    <iframe class="template-preview" name="{{ frameName }}" id="{{ id }}-preview-frame" sandbox title="{{ frameTitle }}"{% if frameSrc != "" %} src="{{ frameSrc }}"{% endif %}></iframe>
    <h3>{{ t.templates.previewText }}</h3>
    <pre id="{{ id }}-preview-text" class="preview-text" data-none="{{ t.templates.previewNoText }}">{% if preview.text %}{{ preview.text }}{% elsif preview.subject %}{{ t.templates.previewNoText }}{% endif %}</pre>`,

  "template-editor-form": `<div class="template-editor">
  <form class="stack wide" id="template-editor" method="post" action="{{ action }}" novalidate data-check="{{ checkAction }}">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="tpl-name">{{ t.templates.name }}</label>
      <input id="tpl-name" name="name" type="text" required maxlength="200" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="tpl-name-error"{% endif %} />
      {% render "field-error", id: "tpl-name", error: errors.name %}
    </div>
    <p class="hint" id="tpl-hint">{{ t.templates.bodiesHint }} {{ t.templates.checking }}</p>
    <div>
      <label for="tpl-subject">{{ t.templates.subject }}</label>
      <input id="tpl-subject" name="subject" type="text" class="code" required maxlength="1000" value="{{ values.subject }}" spellcheck="false"
        aria-describedby="tpl-hint{% if errors.subject or problems.subject %} tpl-subject-error{% endif %}"{% if errors.subject or problems.subject %} aria-invalid="true"{% endif %} />
      {% render "template-problem", part: "subject", error: errors.subject, problem: problems.subject %}
    </div>
    <div>
      <label for="tpl-html">{{ t.templates.html }}</label>
      <textarea id="tpl-html" name="html" rows="14" class="code" spellcheck="false"
        aria-describedby="tpl-hint{% if errors.html or problems.html %} tpl-html-error{% endif %}"{% if errors.html or problems.html %} aria-invalid="true"{% endif %}>
{{ values.html }}</textarea>
      {% render "template-problem", part: "html", error: errors.html, problem: problems.html %}
    </div>
    <div>
      <label for="tpl-text">{{ t.templates.text }}</label>
      <textarea id="tpl-text" name="text" rows="8" class="code" spellcheck="false"
        aria-describedby="tpl-hint{% if errors.text or problems.text %} tpl-text-error{% endif %}"{% if errors.text or problems.text %} aria-invalid="true"{% endif %}>
{{ values.text }}</textarea>
      {% render "template-problem", part: "text", error: errors.text, problem: problems.text %}
    </div>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div class="actions"><button type="submit">{{ submit }}</button><a href="{{ cancel }}">{{ t.templates.cancel }}</a></div>
    {% render "template-preview-for", t: t, id: "tpl", email: values.previewEmail, searchAction: searchAction %}
    <div class="actions">
      <button type="submit" class="secondary" id="tpl-preview-button" formaction="{{ previewAction }}" formtarget="template-preview-frame">{{ t.templates.previewButton }}</button>
    </div>
  </form>
  <aside class="variables" aria-labelledby="tpl-variables-title">
    <h2 id="tpl-variables-title">{{ t.templates.variablesTitle }}</h2>
    <ul id="tpl-variables" class="plain" data-none="{{ t.templates.variablesNone }}">
      {% for variable in variables %}<li><code>{{ variable }}</code></li>{% else %}<li>{{ t.templates.variablesNone }}</li>{% endfor %}
    </ul>
    <p class="hint">{{ t.templates.variablesHint }}</p>
  </aside>
  </div>
  <section aria-labelledby="tpl-preview-title">
    <h2 id="tpl-preview-title">{{ t.templates.previewTitle }}</h2>
    {% render "template-preview-shown", t: t, id: "tpl", preview: preview, frameName: "template-preview-frame", frameTitle: t.templates.previewFrame, frameSrc: frameSrc %}
  </section>`,

  "template-new": `{% layout "app" %}{% block title %}{{ t.templates.createTitle }}{% endblock %}{% block content %}
  <h1>{{ t.templates.createTitle }}</h1>
  {% render "template-editor-form", t: t, csrf: csrf, action: action, values: values, errors: errors, problems: problems, variables: variables, preview: preview, frameSrc: frameSrc, checkAction: checkAction, previewAction: previewAction, searchAction: searchAction, submit: t.templates.create, cancel: cancel %}
  <section aria-labelledby="tpl-test-title">
    <h2 id="tpl-test-title">{{ t.templates.testTitle }}</h2>
    <p class="note">{{ t.templates.testSaveFirst }}</p>
  </section>
{% endblock %}`,

  "template-edit": `{% layout "app" %}{% block title %}{{ t.templates.editTitle | fill: "name", template.name }}{% endblock %}{% block content %}
  <h1>{{ t.templates.editTitle | fill: "name", template.name }}</h1>
  <p class="actions"><a href="{{ base }}/templates/{{ template.id }}/delete">{{ t.templates.delete }}</a></p>
  {% render "template-editor-form", t: t, csrf: csrf, action: action, values: values, errors: errors, problems: problems, variables: variables, preview: preview, frameSrc: frameSrc, checkAction: checkAction, previewAction: previewAction, searchAction: searchAction, submit: t.templates.save, cancel: cancel %}
  <section aria-labelledby="tpl-test-title">
    <h2 id="tpl-test-title">{{ t.templates.testTitle }}</h2>
    <p class="note">{{ t.templates.testIntro | fill: "email", user.email }}</p>
    <form method="post" action="{{ testAction }}" class="actions">
      <input type="hidden" name="csrf" value="{{ csrf }}" />
      <button type="submit" class="secondary">{{ t.templates.testButton }}</button>
    </form>
  </section>
{% endblock %}`,

  /** What a preview's frame shows when there is no HTML body to show: a document of its own, outside the dashboard's frame. */
  previewNote: `<!DOCTYPE html>
<html lang="{{ locale }}"><head><meta charset="utf-8" /><title>{{ title }}</title></head><body><p>{{ text }}</p></body></html>`
} as const
