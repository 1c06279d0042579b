/** The email triggers screen's pages (triggers-screen.ts), in the frame of views.ts. */
export const triggersViews = {
  triggers: `{% layout "app" %}{% block title %}{{ t.triggers.title }}{% endblock %}{% block content %}
  <h1>{{ t.triggers.title }}</h1>
  <p class="note">{{ t.triggers.intro }}</p>
  <p><a class="button" href="{{ newAction }}">{{ t.triggers.newTrigger }}</a></p>
  {% if triggers.size == 0 %}<p>{{ t.triggers.none }}</p>{% else %}
  <div class="table-wrap" role="region" tabindex="0" aria-label="{{ t.triggers.total | fill: "count", total }}">
  <table>
    <caption class="visually-hidden">{{ t.triggers.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.triggers.name }}</th><th scope="col">{{ t.triggers.event }}</th>
      <th scope="col">{{ t.triggers.template }}</th><th scope="col">{{ t.triggers.status }}</th>
      <th scope="col" class="number">{{ t.triggers.sent }}</th><th scope="col">{{ t.triggers.actions }}</th>
    </tr></thead>
    <tbody>
    {% for tr in triggers %}
    <tr>
      <td><a href="{{ base }}/triggers/{{ tr.id }}">{{ tr.name }}</a></td>
      <td>{{ t.triggers.events[tr.event] }}{% if tr.tag != "" %} <span class="badge">{{ tr.tag }}</span>{% endif %} · {{ tr.delay }}</td>
      <td>{{ tr.template }}</td>
      <td><span class="badge">{{ t.triggers.statuses[tr.status] }}</span></td>
      <td class="number">{{ tr.sent }}</td>
      <td class="actions">
        <form method="post" action="{{ base }}/triggers/{{ tr.id }}/status">
          <input type="hidden" name="csrf" value="{{ csrf }}" /><input type="hidden" name="back" value="list" />
          {% if tr.status == "active" %}<input type="hidden" name="status" value="paused" /><button type="submit" class="secondary" aria-label="{{ t.triggers.disable }}: {{ tr.name }}">{{ t.triggers.disable }}</button>
          {% else %}<input type="hidden" name="status" value="active" /><button type="submit" class="secondary" aria-label="{{ t.triggers.enable }}: {{ tr.name }}">{{ t.triggers.enable }}</button>{% endif %}
        </form>
        <a href="{{ base }}/triggers/{{ tr.id }}" aria-label="{{ t.triggers.edit }}: {{ tr.name }}">{{ t.triggers.edit }}</a>
        <a href="{{ base }}/triggers/{{ tr.id }}/delete" aria-label="{{ t.triggers.delete }}: {{ tr.name }}">{{ t.triggers.delete }}</a>
      </td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% render "pages", texts: t.triggers, previous: previous, next: next, pageNumber: pageNumber, totalPages: totalPages %}
  {% endif %}
{% endblock %}`,

  "trigger-form": `<form class="stack" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="trigger-name">{{ t.triggers.name }}</label>
      <input id="trigger-name" name="name" type="text" required maxlength="200" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="trigger-name-error"{% endif %} />
      {% render "field-error", id: "trigger-name", error: errors.name %}
    </div>
    <div>
      <label for="trigger-event">{{ t.triggers.event }}</label>
      <select id="trigger-event" name="event"{% if errors.event %} aria-invalid="true" aria-describedby="trigger-event-error"{% endif %}>
      {% for e in events %}<option value="{{ e }}"{% if e == values.event %} selected{% endif %}>{{ t.triggers.events[e] }}</option>{% endfor %}
      </select>
      {% render "field-error", id: "trigger-event", error: errors.event %}
    </div>
    <div>
      <label for="trigger-tag">{{ t.triggers.tag }}</label>
      <select id="trigger-tag" name="tag_id"{% if errors.tag_id %} aria-invalid="true" aria-describedby="trigger-tag-error"{% endif %}>
      <option value="">{{ t.triggers.anyTag }}</option>
      {% for tag in tags %}<option value="{{ tag.id }}"{% if tag.id == values.tag %} selected{% endif %}>{{ tag.name }}</option>{% endfor %}
      </select>
      {% render "field-error", id: "trigger-tag", error: errors.tag_id %}
    </div>
    <div>
      <label for="trigger-template">{{ t.triggers.template }}</label>
      <select id="trigger-template" name="template_id"{% if errors.template_id %} aria-invalid="true" aria-describedby="trigger-template-error"{% endif %}>
      <option value="">{{ t.triggers.chooseTemplate }}</option>
      {% for template in templates %}<option value="{{ template.id }}"{% if template.id == values.template %} selected{% endif %}>{{ template.name }}</option>{% endfor %}
      </select>
      {% if templates.size == 0 %}<p class="hint">{{ t.triggers.noTemplates }}</p>{% endif %}
      {% render "field-error", id: "trigger-template", error: errors.template_id %}
    </div>
    <div>
      <label for="trigger-segment">{{ t.triggers.segment }}</label>
      <select id="trigger-segment" name="segment_id" aria-describedby="trigger-segment-hint{% if errors.segment_id %} trigger-segment-error{% endif %}"{% if errors.segment_id %} aria-invalid="true"{% endif %}>
      <option value="">{{ t.triggers.noSegment }}</option>
      {% for sg in segments %}<option value="{{ sg.id }}"{% if sg.id == values.segment %} selected{% endif %}>{{ sg.name }}</option>{% endfor %}
      </select>
      <p class="hint" id="trigger-segment-hint">{{ t.triggers.segmentHint }}</p>
      {% render "field-error", id: "trigger-segment", error: errors.segment_id %}
    </div>
    <div>
      <label for="trigger-kind">{{ t.triggers.kind }}</label>
      <select id="trigger-kind" name="kind">
      {% for k in kinds %}<option value="{{ k }}"{% if k == values.kind %} selected{% endif %}>{{ t.triggers.kinds[k] }}</option>{% endfor %}
      </select>
    </div>
    <fieldset aria-describedby="trigger-delay-hint{% if errors.delay_seconds %} trigger-delay-error{% endif %}">
      <legend>{{ t.triggers.delay }}</legend>
      <div class="condition-fields">
        <div><label for="trigger-delay-amount">{{ t.triggers.delayAmount }}</label>
          <input id="trigger-delay-amount" name="delay_amount" type="text" inputmode="numeric" maxlength="7" value="{{ values.amount }}"{% if errors.delay_seconds %} aria-invalid="true"{% endif %} /></div>
        <div><label for="trigger-delay-unit">{{ t.triggers.delayUnit }}</label>
          <select id="trigger-delay-unit" name="delay_unit">
          {% for u in units %}<option value="{{ u }}"{% if u == values.unit %} selected{% endif %}>{{ t.triggers.units[u] }}</option>{% endfor %}
          </select></div>
      </div>
      <p class="hint" id="trigger-delay-hint">{{ t.triggers.delayHint }}</p>
      {% render "field-error", id: "trigger-delay", error: errors.delay_seconds %}
    </fieldset>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div class="actions"><button type="submit">{{ submit }}</button><a href="{{ cancel }}">{{ t.triggers.cancel }}</a></div>
  </form>`,

  "trigger-new": `{% layout "app" %}{% block title %}{{ t.triggers.createTitle }}{% endblock %}{% block content %}
  <h1>{{ t.triggers.createTitle }}</h1>
  {% render "trigger-form", t: t, csrf: csrf, action: action, values: values, errors: errors, tags: tags, templates: templates, segments: segments, events: events, kinds: kinds, units: units, submit: t.triggers.create, cancel: cancel %}
{% endblock %}`,

  "trigger-edit": `{% layout "app" %}{% block title %}{{ t.triggers.editTitle | fill: "name", trigger.name }}{% endblock %}{% block content %}
  <h1>{{ t.triggers.editTitle | fill: "name", trigger.name }}</h1>
  <p><span class="badge" id="trigger-status">{{ t.triggers.statuses[trigger.status] }}</span>
    {{ t.triggers.sent }}: {{ firings.sent }} · {{ t.triggers.pending }}: {{ firings.pending }} · {{ t.triggers.skipped }}: {{ firings.skipped }} · {{ t.triggers.failed }}: {{ firings.failed }}</p>
  <div class="actions">
    <form method="post" action="{{ base }}/triggers/{{ trigger.id }}/status">
      <input type="hidden" name="csrf" value="{{ csrf }}" />
      {% if trigger.status == "active" %}<input type="hidden" name="status" value="paused" /><button type="submit" class="secondary">{{ t.triggers.disable }}</button>
      {% else %}<input type="hidden" name="status" value="active" /><button type="submit" class="secondary">{{ t.triggers.enable }}</button>{% endif %}
    </form>
    <a href="{{ base }}/triggers/{{ trigger.id }}/delete">{{ t.triggers.delete }}</a>
  </div>
  {% render "trigger-form", t: t, csrf: csrf, action: action, values: values, errors: errors, tags: tags, templates: templates, segments: segments, events: events, kinds: kinds, units: units, submit: t.triggers.save, cancel: cancel %}
{% endblock %}`
} as const
