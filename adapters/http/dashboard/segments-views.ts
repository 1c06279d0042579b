/** The segments screen's pages (segments-screen.ts), in the frame of views.ts. */
export const segmentsViews = {
  segments: `{% layout "app" %}{% block title %}{{ t.segments.title }}{% endblock %}{% block content %}
  <h1>{{ t.segments.title }}</h1>
  <p class="note">{{ t.segments.intro }}</p>
  <p><a class="button" href="{{ newAction }}">{{ t.segments.newSegment }}</a></p>
  {% if segments.size == 0 %}<p>{{ t.segments.none }}</p>{% else %}
  <div class="table-wrap">
  <table>
    <caption class="visually-hidden">{{ t.segments.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.segments.name }}</th><th scope="col">{{ t.segments.description }}</th>
      <th scope="col" class="number">{{ t.segments.matching }}</th><th scope="col">{{ t.segments.actions }}</th>
    </tr></thead>
    <tbody>
    {% for segment in segments %}
    <tr>
      <td><a href="{{ base }}/segments/{{ segment.id }}">{{ segment.name }}</a></td>
      <td>{{ segment.description }}</td>
      <td class="number">{{ segment.matching }}</td>
      <td class="actions">
        <a href="{{ base }}/segments/{{ segment.id }}" aria-label="{{ t.segments.edit }}: {{ segment.name }}">{{ t.segments.edit }}</a>
        <a href="{{ base }}/segments/{{ segment.id }}/delete" aria-label="{{ t.segments.delete }}: {{ segment.name }}">{{ t.segments.delete }}</a>
      </td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% render "pages", texts: t.segments, previous: previous, next: next, pageNumber: pageNumber, totalPages: totalPages %}
  {% endif %}
{% endblock %}`,

  "segment-condition-problem": `<div id="{{ idPrefix }}c{{ index }}-problem"{% if oob %} hx-swap-oob="true"{% endif %}>{% if error %}<p class="field-error" id="{{ idPrefix }}c{{ index }}-error">{{ error }}</p>{% endif %}</div>`,

  /**
   * The controls of one filter group (segment-builder.ts): its fields named after `fieldPrefix`
   * (`s2.` gives `s2.c0.kind`), its ids after `idPrefix`, its add and remove buttons posting
   * `buttonName` with `addValue` and `removePrefix` followed by the condition's place.
   */
  "filter-builder": `    <fieldset>
      <legend>{{ t.segments.match }}</legend>
      <label><input type="radio" name="{{ fieldPrefix }}match" value="all"{% if builder.match != "any" %} checked{% endif %} /> {{ t.segments.matchAll }}</label>
      <label><input type="radio" name="{{ fieldPrefix }}match" value="any"{% if builder.match == "any" %} checked{% endif %} /> {{ t.segments.matchAny }}</label>
    </fieldset>
    {% if builder.conditions.size == 0 %}<p class="note">{{ t.segments.noConditions }}</p>{% endif %}
    {% for c in builder.conditions %}
    {% assign p = "c" | append: c.index %}{% assign n = fieldPrefix | append: p %}{% assign i = idPrefix | append: p %}
    <fieldset class="condition" id="{{ i }}"{% if c.error %} aria-describedby="{{ i }}-error"{% endif %}>
      <legend>{{ t.segments.condition | fill: "number", c.number }}: {{ t.segments.kinds[c.kind] }}</legend>
      <input type="hidden" name="{{ n }}.kind" value="{{ c.kind }}" />
      <div class="condition-fields">
      {% if c.kind == "created_at" %}
        <div><label for="{{ i }}-from">{{ t.segments.from }}</label>
          <input id="{{ i }}-from" name="{{ n }}.from" type="date" value="{{ c.from }}" aria-describedby="{{ idPrefix }}zone" /></div>
        <div><label for="{{ i }}-to">{{ t.segments.to }}</label>
          <input id="{{ i }}-to" name="{{ n }}.to" type="date" value="{{ c.to }}" aria-describedby="{{ idPrefix }}zone" /></div>
      {% else %}
        <div><label for="{{ i }}-op">{{ t.segments.operator }}</label>
          <select id="{{ i }}-op" name="{{ n }}.op">
          {% for op in c.ops %}<option value="{{ op }}"{% if op == c.op %} selected{% endif %}>{% if c.kind == "engagement" %}{{ t.segments.engagementOps[op] }}{% else %}{{ t.segments.ops[op] }}{% endif %}</option>{% endfor %}
          </select></div>
      {% endif %}
      {% if c.kind == "status" %}
        <fieldset class="choices"><legend>{{ t.segments.statuses }}</legend>
        {% for status in statuses %}<label><input type="checkbox" name="{{ n }}.statuses" value="{{ status }}"{% if c.statuses contains status %} checked{% endif %} /> <span>{{ t.subscribers.statuses[status] }}</span></label>{% endfor %}
        </fieldset>
      {% elsif c.kind == "tags" %}
        <fieldset class="choices"><legend>{{ t.segments.tags }}</legend>
        {% if tags.size == 0 %}<p class="hint">{{ t.segments.noTags }}</p>{% endif %}
        {% for tag in tags %}<label><input type="checkbox" name="{{ n }}.tags" value="{{ tag.id }}"{% if c.tags contains tag.id %} checked{% endif %} /> <span>{{ tag.name }}</span></label>{% endfor %}
        </fieldset>
      {% elsif c.kind == "metadata" %}
        <div><label for="{{ i }}-path">{{ t.segments.path }}</label>
          <input id="{{ i }}-path" name="{{ n }}.path" type="text" maxlength="500" value="{{ c.path }}" aria-describedby="{{ i }}-path-hint" />
          <p class="hint" id="{{ i }}-path-hint">{{ t.segments.pathHint }}</p></div>
        <div><label for="{{ i }}-type">{{ t.segments.valueType }}</label>
          <select id="{{ i }}-type" name="{{ n }}.type">
          {% for type in valueTypes %}<option value="{{ type }}"{% if type == c.valueType %} selected{% endif %}>{{ t.segments.valueTypes[type] }}</option>{% endfor %}
          </select></div>
        <div><label for="{{ i }}-value">{{ t.segments.value }}</label>
          <input id="{{ i }}-value" name="{{ n }}.value" type="text" maxlength="254" value="{{ c.value }}" /></div>
      {% elsif c.kind == "email" %}
        <div><label for="{{ i }}-value">{{ t.segments.value }}</label>
          <input id="{{ i }}-value" name="{{ n }}.value" type="text" maxlength="254" value="{{ c.value }}" /></div>
      {% elsif c.kind == "engagement" %}
        <div><label for="{{ i }}-days">{{ t.segments.days }}</label>
          <input id="{{ i }}-days" name="{{ n }}.days" type="text" inputmode="numeric" maxlength="4" value="{{ c.days }}" /></div>
      {% endif %}
      </div>
      {% render "segment-condition-problem", idPrefix: idPrefix, index: c.index, error: c.error, oob: false %}
      <div class="actions">
        <label><input type="checkbox" name="{{ n }}.not" value="on"{% if c.not %} checked{% endif %} /> {{ t.segments.negate }}</label>
        <button type="submit" class="secondary" name="{{ buttonName }}" value="{{ removePrefix }}{{ c.index }}"{% if formaction != "" %} formaction="{{ formaction }}"{% endif %} aria-label="{{ t.segments.removeLabel | fill: "number", c.number }}">{{ t.segments.remove }}</button>
      </div>
    </fieldset>
    {% endfor %}
    <p class="hint" id="{{ idPrefix }}zone">{{ t.segments.zone | fill: "zone", zone }}</p>
    <div class="filters">
      <div><label for="{{ idPrefix }}add-kind">{{ t.segments.addKind }}</label>
        <select id="{{ idPrefix }}add-kind" name="{{ fieldPrefix }}add_kind">
        {% for kind in kinds %}<option value="{{ kind }}">{{ t.segments.kinds[kind] }}</option>{% endfor %}
        </select></div>
      <div class="submit"><button type="submit" class="secondary" name="{{ buttonName }}" value="{{ addValue }}"{% if formaction != "" %} formaction="{{ formaction }}"{% endif %}>{{ t.segments.add }}</button></div>
    </div>
`,


  "segment-preview": `{% if invalid %}<p class="note">{{ t.segments.invalidFilter }}</p>{% elsif preview %}
    <p id="{{ countId | default: "segment-count" }}"><strong>{% if preview.total == 1 %}{{ t.segments.matchesOne }}{% else %}{{ t.segments.matches | fill: "count", preview.total }}{% endif %}</strong></p>
    {% if preview.rows.size > 0 %}
    <div class="table-wrap">
    <table>
      <caption>{{ t.segments.first | fill: "count", preview.rows.size }}</caption>
      <thead><tr><th scope="col">{{ t.segments.email }}</th><th scope="col">{{ t.segments.status }}</th></tr></thead>
      <tbody>
      {% for row in preview.rows %}<tr><td class="email"><a href="{{ base }}/subscribers/{{ row.id }}">{{ row.email }}</a></td><td>{{ t.subscribers.statuses[row.status] }}</td></tr>{% endfor %}
      </tbody>
    </table>
    </div>
    {% endif %}
  {% endif %}
  {% if oob %}{% for p in problems %}{% render "segment-condition-problem", idPrefix: idPrefix, index: p.index, error: p.error, oob: true %}{% endfor %}{% endif %}`,

  "segment-builder-form": `<form class="stack wide" id="segment-builder" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit" name="intent" value="preview" class="visually-hidden" tabindex="-1">{{ t.segments.preview }}</button>
    <div>
      <label for="seg-name">{{ t.segments.name }}</label>
      <input id="seg-name" name="name" type="text" required maxlength="200" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="seg-name-error"{% endif %} />
      {% render "field-error", id: "seg-name", error: errors.name %}
    </div>
    <div>
      <label for="seg-description">{{ t.segments.description }}</label>
      <textarea id="seg-description" name="description" rows="2" maxlength="1000"
        {% if errors.description %}aria-invalid="true" aria-describedby="seg-description-error"{% endif %}>{{ values.description }}</textarea>
      {% render "field-error", id: "seg-description", error: errors.description %}
    </div>
    {% if builder %}
    <h2 id="conditions">{{ t.segments.conditionsTitle }}</h2>
    {% render "filter-builder", t: t, builder: builder, kinds: kinds, statuses: statuses, valueTypes: valueTypes, tags: tags, zone: zone, fieldPrefix: "", idPrefix: "seg-", buttonName: "intent", addValue: "add", removePrefix: "remove-", formaction: "" %}
    {% else %}
    <p class="note">{{ t.segments.apiFilter }}</p>
    <label for="seg-filter-json">{{ t.segments.filterJson }}</label>
    <textarea id="seg-filter-json" class="code" rows="8" readonly>{{ filterJson }}</textarea>
    {% endif %}
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% elsif errors.filter %}<p class="field-error" role="alert">{{ errors.filter }}</p>{% endif %}
    <div class="actions">
      <button type="submit" name="intent" value="save">{{ submit }}</button>
      {% if builder %}<button type="submit" class="secondary" name="intent" value="preview">{{ t.segments.preview }}</button>{% endif %}
      <a href="{{ cancel }}">{{ t.segments.cancel }}</a>
    </div>
  </form>
  <section aria-labelledby="preview-title">
    <h2 id="preview-title">{{ t.segments.previewTitle }}</h2>
    <div id="segment-preview" aria-live="polite"{% if builder %} hx-post="{{ previewAction }}" hx-trigger="input delay:500ms from:#segment-builder" hx-include="#segment-builder"{% endif %}>
      {% include "segment-preview" %}
    </div>
  </section>`,

  "segment-new": `{% layout "app" %}{% block title %}{{ t.segments.createTitle }}{% endblock %}{% block content %}
  <h1>{{ t.segments.createTitle }}</h1>
  {% render "segment-builder-form", t: t, csrf: csrf, base: base, action: action, previewAction: previewAction, values: values, errors: errors, builder: builder, kinds: kinds, statuses: statuses, valueTypes: valueTypes, tags: tags, zone: zone, preview: preview, invalid: invalid, filterJson: filterJson, submit: t.segments.create, cancel: cancel %}
{% endblock %}`,

  "segment-edit": `{% layout "app" %}{% block title %}{{ t.segments.editTitle | fill: "name", segment.name }}{% endblock %}{% block content %}
  <h1>{{ t.segments.editTitle | fill: "name", segment.name }}</h1>
  <p class="actions"><a href="{{ base }}/segments/{{ segment.id }}/delete">{{ t.segments.delete }}</a></p>
  {% render "segment-builder-form", t: t, csrf: csrf, base: base, action: action, previewAction: previewAction, values: values, errors: errors, builder: builder, kinds: kinds, statuses: statuses, valueTypes: valueTypes, tags: tags, zone: zone, preview: preview, invalid: invalid, filterJson: filterJson, submit: t.segments.save, cancel: cancel %}
{% endblock %}`
} as const
