/** The sign-up forms screen's pages (forms-screen.ts), in the frame of views.ts. */
export const formsViews = {
  forms: `{% layout "app" %}{% block title %}{{ t.forms.title }}{% endblock %}{% block content %}
  <h1>{{ t.forms.title }}</h1>
  <p class="note">{{ t.forms.intro }}</p>
  <p><a class="button" href="{{ newAction }}">{{ t.forms.newForm }}</a></p>
  {% if forms.size == 0 %}<p>{{ t.forms.none }}</p>{% else %}
  <div class="table-wrap">
  <table>
    <caption class="visually-hidden">{{ t.forms.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.forms.name }}</th><th scope="col">{{ t.forms.doubleOptIn }}</th>
      <th scope="col" class="number">{{ t.forms.pending }}</th><th scope="col" class="number">{{ t.forms.confirmed }}</th>
      <th scope="col">{{ t.forms.actions }}</th>
    </tr></thead>
    <tbody>
    {% for form in forms %}
    <tr>
      <td><a href="{{ base }}/forms/{{ form.id }}">{{ form.name }}</a>{% for tag in form.tags %} <span class="badge">{{ tag }}</span>{% endfor %}</td>
      <td>{% if form.doubleOptIn %}{{ t.forms.yes }}{% else %}{{ t.forms.no }}{% endif %}</td>
      <td class="number">{{ form.pending }}</td>
      <td class="number">{{ form.confirmed }}</td>
      <td class="actions">
        <a href="{{ base }}/forms/{{ form.id }}" aria-label="{{ t.forms.edit }}: {{ form.name }}">{{ t.forms.edit }}</a>
        <a href="/f/{{ form.id }}" aria-label="{{ t.forms.preview }}: {{ form.name }}">{{ t.forms.hostedPage }}</a>
        <a href="{{ base }}/forms/{{ form.id }}/delete" aria-label="{{ t.forms.delete }}: {{ form.name }}">{{ t.forms.delete }}</a>
      </td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% render "pages", texts: t.forms, previous: previous, next: next, pageNumber: pageNumber, totalPages: totalPages %}
  {% endif %}
{% endblock %}`,

  "signup-form": `<form class="stack" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="form-name">{{ t.forms.name }}</label>
      <input id="form-name" name="name" type="text" required maxlength="200" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="form-name-error"{% endif %} />
      {% render "field-error", id: "form-name", error: errors.name %}
    </div>
    <fieldset class="choices"{% if errors.tags %} aria-describedby="form-tags-error"{% endif %}>
      <legend>{{ t.forms.tags }}</legend>
      {% if tags.size == 0 %}<p class="hint">{{ t.forms.noTags }}</p>{% endif %}
      {% for tag in tags %}
      <label><input type="checkbox" name="tags" value="{{ tag.id }}"{% if values.tags contains tag.id %} checked{% endif %} /> <span>{{ tag.name }}</span></label>
      {% endfor %}
      {% render "field-error", id: "form-tags", error: errors.tags %}
    </fieldset>
    <div>
      <label><input type="checkbox" name="double_opt_in" value="on" aria-describedby="form-double-opt-in-hint"{% if values.doubleOptIn %} checked{% endif %} /> {{ t.forms.doubleOptIn }}</label>
      <p class="hint" id="form-double-opt-in-hint">{{ t.forms.doubleOptInHint }}</p>
    </div>
    <div>
      <label for="form-consent">{{ t.forms.consentText }}</label>
      <textarea id="form-consent" name="consent_text" rows="3" maxlength="2000"
        aria-describedby="form-consent-hint{% if errors.consent_text %} form-consent-error{% endif %}"{% if errors.consent_text %} aria-invalid="true"{% endif %}>{{ values.consentText }}</textarea>
      <p class="hint" id="form-consent-hint">{{ t.forms.consentHint }}</p>
      {% render "field-error", id: "form-consent", error: errors.consent_text %}
    </div>
    <div>
      <label for="form-success-url">{{ t.forms.successUrl }}</label>
      <input id="form-success-url" name="success_url" type="text" inputmode="url" maxlength="2048" value="{{ values.successUrl }}"
        aria-describedby="form-url-hint{% if errors.success_url %} form-success-url-error{% endif %}"{% if errors.success_url %} aria-invalid="true"{% endif %} />
      {% render "field-error", id: "form-success-url", error: errors.success_url %}
    </div>
    <div>
      <label for="form-confirmed-url">{{ t.forms.confirmedUrl }}</label>
      <input id="form-confirmed-url" name="confirmed_url" type="text" inputmode="url" maxlength="2048" value="{{ values.confirmedUrl }}"
        aria-describedby="form-url-hint{% if errors.confirmed_url %} form-confirmed-url-error{% endif %}"{% if errors.confirmed_url %} aria-invalid="true"{% endif %} />
      <p class="hint" id="form-url-hint">{{ t.forms.urlHint }}</p>
      {% render "field-error", id: "form-confirmed-url", error: errors.confirmed_url %}
    </div>
    <div>
      <label for="form-origins">{{ t.forms.allowedOrigins }}</label>
      <textarea id="form-origins" name="allowed_origins" rows="3" class="code"
        aria-describedby="form-origins-hint{% if errors.allowed_origins %} form-origins-error{% endif %}"{% if errors.allowed_origins %} aria-invalid="true"{% endif %}>{{ values.allowedOrigins }}</textarea>
      <p class="hint" id="form-origins-hint">{{ t.forms.allowedOriginsHint }}</p>
      {% render "field-error", id: "form-origins", error: errors.allowed_origins %}
    </div>
    <div>
      <label for="form-template">{{ t.forms.template }}</label>
      <select id="form-template" name="confirmation_template_id"
        {% if errors.confirmation_template_id %}aria-invalid="true" aria-describedby="form-template-error"{% endif %}>
        <option value="">{{ t.forms.defaultTemplate }}</option>
        {% for template in templates %}<option value="{{ template.id }}"{% if template.id == values.template %} selected{% endif %}>{{ template.name }}</option>{% endfor %}
      </select>
      {% render "field-error", id: "form-template", error: errors.confirmation_template_id %}
    </div>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div class="actions"><button type="submit">{{ submit }}</button><a href="{{ cancel }}">{{ t.forms.cancel }}</a></div>
  </form>`,

  "form-new": `{% layout "app" %}{% block title %}{{ t.forms.createTitle }}{% endblock %}{% block content %}
  <h1>{{ t.forms.createTitle }}</h1>
  {% render "signup-form", t: t, csrf: csrf, action: action, values: values, errors: errors, tags: tags, templates: templates, submit: t.forms.create, cancel: cancel %}
{% endblock %}`,

  "form-edit": `{% layout "app" %}{% block title %}{{ t.forms.editTitle | fill: "name", form.name }}{% endblock %}{% block content %}
  <h1>{{ t.forms.editTitle | fill: "name", form.name }}</h1>
  <p class="actions"><a href="{{ hostedPath }}">{{ t.forms.preview }}</a><a href="{{ base }}/forms/{{ form.id }}/delete">{{ t.forms.delete }}</a></p>
  <h2 id="embed">{{ t.forms.embedTitle }}</h2>
  <p class="note">{{ t.forms.embedIntro }}</p>
  <div class="stack">
    <label for="form-embed">{{ t.forms.snippet }}</label>
    <textarea id="form-embed" class="code" rows="8" readonly>{{ embed }}</textarea>
    <div class="actions">
      <button type="button" class="secondary" data-copy="form-embed" data-status="form-embed-status" data-copied="{{ t.forms.copied }}" hidden>{{ t.forms.copy }}</button>
      <span id="form-embed-status" role="status"></span>
    </div>
    <p class="hint url">{{ t.forms.hostedPage }}: <a href="{{ hostedPath }}">{{ pageUrl }}</a></p>
  </div>
  <h2 id="settings">{{ t.forms.settingsTitle }}</h2>
  {% render "signup-form", t: t, csrf: csrf, action: action, values: values, errors: errors, tags: tags, templates: templates, submit: t.forms.save, cancel: cancel %}
{% endblock %}`
} as const
