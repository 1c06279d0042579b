/** The sequences screen's pages (sequences-screen.ts), in the frame of views.ts. */
export const sequencesViews = {
  sequences: `{% layout "app" %}{% block title %}{{ t.sequences.title }}{% endblock %}{% block content %}
  <h1>{{ t.sequences.title }}</h1>
  <p class="note">{{ t.sequences.intro }}</p>
  <p><a class="button" href="{{ newAction }}">{{ t.sequences.newSequence }}</a></p>
  {% if sequences.size == 0 %}<p>{{ t.sequences.none }}</p>{% else %}
  <div class="table-wrap" role="region" tabindex="0" aria-label="{{ t.sequences.total | fill: "count", total }}">
  <table>
    <caption class="visually-hidden">{{ t.sequences.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.sequences.name }}</th><th scope="col">{{ t.sequences.status }}</th>
      <th scope="col" class="number">{{ t.sequences.version }}</th>
      <th scope="col" class="number">{{ t.sequences.entered }}</th><th scope="col" class="number">{{ t.sequences.activeNow }}</th>
      <th scope="col">{{ t.sequences.actions }}</th>
    </tr></thead>
    <tbody>
    {% for s in sequences %}
    <tr>
      <td><a href="{{ base }}/sequences/{{ s.id }}">{{ s.name }}</a></td>
      <td><span class="badge">{{ t.sequences.statuses[s.status] }}</span></td>
      <td class="number">{{ s.version }}</td>
      <td class="number">{{ s.entered }}</td>
      <td class="number">{{ s.active }}</td>
      <td class="actions">
        <a href="{{ base }}/sequences/{{ s.id }}/edit" aria-label="{{ t.sequences.edit }}: {{ s.name }}">{{ t.sequences.edit }}</a>
      </td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% render "pages", texts: t.sequences, previous: previous, next: next, pageNumber: pageNumber, totalPages: totalPages %}
  {% endif %}
{% endblock %}`,

  "sequence-editor-form": `<form class="stack wide" id="sequence-editor" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <input type="hidden" name="step_count" value="{{ steps.size }}" />
    <button type="submit" name="op" value="save" class="visually-hidden" tabindex="-1">{{ submit }}</button>
    {% if problems.size > 0 %}
    <div class="flash error" role="alert" id="sequence-problems">
      <p>{{ t.sequences.problemsTitle }}</p>
      <ul>{% for p in problems %}<li>{{ p }}</li>{% endfor %}</ul>
    </div>
    {% endif %}
    <div>
      <label for="seq-name">{{ t.sequences.name }}</label>
      <input id="seq-name" name="name" type="text" required maxlength="200" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="seq-name-error"{% endif %} />
      {% render "field-error", id: "seq-name", error: errors.name %}
    </div>
    <h2 id="entry">{{ t.sequences.settingsTitle }}</h2>
    <div class="condition-fields">
      <div><label for="seq-entry">{{ t.sequences.entryEvent }}</label>
        <select id="seq-entry" name="entry_event"{% if errors.entry %} aria-invalid="true" aria-describedby="seq-entry-error"{% endif %}>
        {% for e in entryEvents %}<option value="{{ e }}"{% if e == values.entryEvent %} selected{% endif %}>{{ t.sequences.entryEvents[e] }}</option>{% endfor %}
        </select>
        {% render "field-error", id: "seq-entry", error: errors.entry %}</div>
      <div><label for="seq-entry-tag">{{ t.sequences.entryTag }}</label>
        <select id="seq-entry-tag" name="entry_tag_id"{% if errors.entry_tag %} aria-invalid="true" aria-describedby="seq-entry-tag-error"{% endif %}>
        <option value="">{{ t.sequences.anyTag }}</option>
        {% for tag in tags %}<option value="{{ tag.id }}"{% if tag.id == values.entryTag %} selected{% endif %}>{{ tag.name }}</option>{% endfor %}
        </select>
        {% render "field-error", id: "seq-entry-tag", error: errors.entry_tag %}</div>
      <div><label for="seq-entry-form">{{ t.sequences.entryForm }}</label>
        <select id="seq-entry-form" name="entry_form_id"{% if errors.entry_form %} aria-invalid="true" aria-describedby="seq-entry-form-error"{% endif %}>
        <option value="">{{ t.sequences.anyForm }}</option>
        {% for f in forms %}<option value="{{ f.id }}"{% if f.id == values.entryForm %} selected{% endif %}>{{ f.name }}</option>{% endfor %}
        </select>
        {% render "field-error", id: "seq-entry-form", error: errors.entry_form %}</div>
      <div><label for="seq-entry-segment">{{ t.sequences.entrySegment }}</label>
        <select id="seq-entry-segment" name="entry_segment_id"{% if errors.entry_segment %} aria-invalid="true" aria-describedby="seq-entry-segment-error"{% endif %}>
        <option value="">{{ t.sequences.chooseSegment }}</option>
        {% for sg in segments %}<option value="{{ sg.id }}"{% if sg.id == values.entrySegment %} selected{% endif %}>{{ sg.name }}</option>{% endfor %}
        </select>
        {% render "field-error", id: "seq-entry-segment", error: errors.entry_segment %}</div>
      <div><label for="seq-re-entry">{{ t.sequences.reEntry }}</label>
        <select id="seq-re-entry" name="re_entry">
        {% for r in reEntries %}<option value="{{ r }}"{% if r == values.reEntry %} selected{% endif %}>{{ t.sequences.reEntries[r] }}</option>{% endfor %}
        </select>
        {% render "field-error", id: "seq-re-entry", error: errors.re_entry %}</div>
      <div><label for="seq-goal">{{ t.sequences.goalTag }}</label>
        <select id="seq-goal" name="goal_tag_id" aria-describedby="seq-goal-hint{% if errors.goal_tag_id %} seq-goal-error{% endif %}"{% if errors.goal_tag_id %} aria-invalid="true"{% endif %}>
        <option value="">{{ t.sequences.noGoal }}</option>
        {% for tag in tags %}<option value="{{ tag.id }}"{% if tag.id == values.goalTag %} selected{% endif %}>{{ tag.name }}</option>{% endfor %}
        </select>
        <p class="hint" id="seq-goal-hint">{{ t.sequences.goalHint }}</p>
        {% render "field-error", id: "seq-goal", error: errors.goal_tag_id %}</div>
      <div><label for="seq-zone">{{ t.sequences.timeZone }}</label>
        <input id="seq-zone" name="time_zone" type="text" maxlength="64" value="{{ values.timeZone }}"
          aria-describedby="seq-zone-hint{% if errors.time_zone %} seq-zone-error{% endif %}"{% if errors.time_zone %} aria-invalid="true"{% endif %} />
        <p class="hint" id="seq-zone-hint">{{ t.sequences.timeZoneHint }}</p>
        {% render "field-error", id: "seq-zone", error: errors.time_zone %}</div>
    </div>
    <p class="note">{{ t.sequences.exitsAlways }}</p>
    <h2 id="steps">{{ t.sequences.stepsTitle }}</h2>
    {% if errors.steps %}<p class="field-error" id="seq-steps-error">{{ errors.steps }}</p>{% endif %}
    {% if templates.size == 0 %}<p class="note">{{ t.sequences.noTemplates }}</p>{% endif %}
    <ol class="steps">
    {% for step in steps %}
    {% assign p = step.prefix %}
    <li>
    <fieldset class="condition" id="seq-{{ p }}" tabindex="-1"{% if step.error %} aria-describedby="seq-{{ p }}-error"{% endif %}>
      <legend>{{ step.label }}</legend>
      <input type="hidden" name="{{ p }}.type" value="{{ step.type }}" />
      <div class="condition-fields">
        <div><label for="seq-{{ p }}-name">{{ t.sequences.stepName }}</label>
          <input id="seq-{{ p }}-name" name="{{ p }}.name" type="text" maxlength="63" value="{{ step.name }}" /></div>
      {% case step.type %}
      {% when "send_email" %}
        <div><label for="seq-{{ p }}-template">{{ t.sequences.template }}</label>
          <select id="seq-{{ p }}-template" name="{{ p }}.template_id">
          <option value="">{{ t.sequences.chooseTemplate }}</option>
          {% for template in templates %}<option value="{{ template.id }}"{% if template.id == step.templateId %} selected{% endif %}>{{ template.name }}</option>{% endfor %}
          </select></div>
        <div><label for="seq-{{ p }}-kind">{{ t.sequences.kind }}</label>
          <select id="seq-{{ p }}-kind" name="{{ p }}.kind">
          {% for k in kinds %}<option value="{{ k }}"{% if k == step.kind %} selected{% endif %}>{{ t.sequences.kinds[k] }}</option>{% endfor %}
          </select></div>
        <input type="hidden" name="{{ p }}.data" value="{{ step.data }}" />
      {% when "wait" %}
        <div><label for="seq-{{ p }}-amount">{{ t.sequences.waitAmount }}</label>
          <input id="seq-{{ p }}-amount" name="{{ p }}.amount" type="text" inputmode="numeric" maxlength="6" value="{{ step.amount }}" /></div>
        <div><label for="seq-{{ p }}-unit">{{ t.sequences.waitUnit }}</label>
          <select id="seq-{{ p }}-unit" name="{{ p }}.unit">
          {% for u in units %}<option value="{{ u }}"{% if u == step.unit %} selected{% endif %}>{{ t.sequences.units[u] }}</option>{% endfor %}
          </select></div>
        <input type="hidden" name="{{ p }}.duration" value="{{ step.duration }}" />
      {% when "wait_until" %}
        <div><label for="seq-{{ p }}-until">{{ t.sequences.until }}</label>
          <input id="seq-{{ p }}-until" name="{{ p }}.until" type="text" inputmode="numeric" maxlength="5" value="{{ step.until }}" /></div>
        <div><label for="seq-{{ p }}-zone-field">{{ t.sequences.zoneField }}</label>
          <input id="seq-{{ p }}-zone-field" name="{{ p }}.time_zone_field" type="text" maxlength="100" value="{{ step.zoneField }}" aria-describedby="seq-{{ p }}-zone-field-hint" />
          <p class="hint" id="seq-{{ p }}-zone-field-hint">{{ t.sequences.zoneFieldHint }}</p></div>
        <fieldset class="choices"><legend>{{ t.sequences.weekdaysLegend }}</legend>
        {% for day in weekdays %}<label><input type="checkbox" name="{{ p }}.weekdays" value="{{ day }}"{% if step.weekdays contains day %} checked{% endif %} /> <span>{{ t.sequences.weekdayNames[day] }}</span></label>{% endfor %}
        </fieldset>
      {% when "branch" %}
        <div><label for="seq-{{ p }}-condition">{{ t.sequences.condition }}</label>
          <select id="seq-{{ p }}-condition" name="{{ p }}.condition">
          {% for c in conditions %}<option value="{{ c }}"{% if c == step.condition %} selected{% endif %}>{{ t.sequences.conditions[c] }}</option>{% endfor %}
          </select></div>
        <div><label for="seq-{{ p }}-condition-tag">{{ t.sequences.conditionTag }}</label>
          <select id="seq-{{ p }}-condition-tag" name="{{ p }}.condition_tag">
          <option value="">{{ t.sequences.chooseTag }}</option>
          {% for tag in tags %}<option value="{{ tag.id }}"{% if tag.id == step.conditionTag %} selected{% endif %}>{{ tag.name }}</option>{% endfor %}
          </select></div>
        <div><label for="seq-{{ p }}-go-to">{{ t.sequences.goTo }}</label>
          <select id="seq-{{ p }}-go-to" name="{{ p }}.go_to">
          <option value="">{{ t.sequences.chooseStep }}</option>
          {% for target in step.targets %}<option value="{{ target }}"{% if target == step.goTo %} selected{% endif %}>{{ target }}</option>{% endfor %}
          </select></div>
        <div><label for="seq-{{ p }}-else-go-to">{{ t.sequences.elseGoTo }}</label>
          <select id="seq-{{ p }}-else-go-to" name="{{ p }}.else_go_to">
          <option value="">{{ t.sequences.nextStep }}</option>
          {% for target in step.elseTargets %}<option value="{{ target }}"{% if target == step.elseGoTo %} selected{% endif %}>{{ target }}</option>{% endfor %}
          </select></div>
        <fieldset class="wide-field" id="seq-{{ p }}-filter-group"><legend>{{ t.sequences.filterControls }}</legend>
        {% if step.builder %}
          <input type="hidden" name="{{ p }}.filter_mode" value="builder" />
          {% assign fp = p | append: "." %}{% assign ip = "seq-" | append: p | append: "-" %}{% assign addOp = "condition-add:" | append: step.index %}{% assign removeOp = "condition-remove:" | append: step.index | append: ":" %}{% assign here = action | append: "#seq-" | append: p %}
          {% render "filter-builder", t: t, builder: step.builder, kinds: filterKinds, statuses: statuses, valueTypes: valueTypes, tags: tags, zone: zone, fieldPrefix: fp, idPrefix: ip, buttonName: "op", addValue: addOp, removePrefix: removeOp, formaction: here %}
          <div class="submit"><button type="submit" class="secondary" name="op" value="count" formaction="{{ here }}">{{ t.sequences.countMatches }}</button></div>
          <div id="seq-{{ p }}-filter-preview" aria-live="polite" hx-post="{{ filterPreviewAction }}" hx-trigger="input delay:500ms from:#seq-{{ p }}-filter-group" hx-include="#seq-{{ p }}-filter-group" hx-vals='{"filter_prefix": "{{ fp }}"}'>{% if step.preview %}{% assign countId = ip | append: "count" %}{% render "segment-preview", t: t, preview: step.preview, countId: countId, base: base %}{% endif %}</div>
        {% else %}
          <input type="hidden" name="{{ p }}.filter_mode" value="json" />
          <p class="note" id="seq-{{ p }}-filter-note">{{ t.sequences.filterNested }}</p>
          <label for="seq-{{ p }}-filter">{{ t.sequences.filter }}</label>
          <textarea id="seq-{{ p }}-filter" name="{{ p }}.filter" class="code" rows="3" aria-describedby="seq-{{ p }}-filter-note">{{ step.filter }}</textarea>
        {% endif %}
        </fieldset>
      {% when "add_tag", "remove_tag" %}
        <div><label for="seq-{{ p }}-tag">{{ t.sequences.tag }}</label>
          <select id="seq-{{ p }}-tag" name="{{ p }}.tag_id">
          <option value="">{{ t.sequences.chooseTag }}</option>
          {% for tag in tags %}<option value="{{ tag.id }}"{% if tag.id == step.tagId %} selected{% endif %}>{{ tag.name }}</option>{% endfor %}
          </select></div>
      {% endcase %}
      </div>
      {% if step.error %}<p class="field-error" id="seq-{{ p }}-error">{{ step.error }}</p>{% endif %}
      <div class="actions">
        {% unless step.first %}<button type="submit" class="secondary" name="op" value="up:{{ step.index }}" formaction="{{ action }}#seq-s{{ step.index | minus: 1 }}" aria-label="{{ t.sequences.moveUp }}: {{ step.label }}">{{ t.sequences.moveUp }}</button>{% endunless %}
        {% unless step.last %}<button type="submit" class="secondary" name="op" value="down:{{ step.index }}" formaction="{{ action }}#seq-s{{ step.index | plus: 1 }}" aria-label="{{ t.sequences.moveDown }}: {{ step.label }}">{{ t.sequences.moveDown }}</button>{% endunless %}
        <button type="submit" class="secondary" name="op" value="remove:{{ step.index }}" formaction="{{ action }}#steps" aria-label="{{ t.sequences.remove }}: {{ step.label }}">{{ t.sequences.remove }}</button>
      </div>
    </fieldset>
    </li>
    {% endfor %}
    </ol>
    <div class="actions">
      <label for="seq-add-type">{{ t.sequences.addType }}</label>
      <select id="seq-add-type" name="add_type">
      {% for type in stepTypes %}<option value="{{ type }}">{{ t.sequences.stepTypes[type] }}</option>{% endfor %}
      </select>
      <button type="submit" class="secondary" name="op" value="add" formaction="{{ action }}#seq-s{{ steps.size }}">{{ t.sequences.add }}</button>
    </div>
    <div class="actions"><button type="submit" name="op" value="save">{{ submit }}</button><a href="{{ cancel }}">{{ t.sequences.cancel }}</a></div>
  </form>`,

  "sequence-new": `{% layout "app" %}{% block title %}{{ t.sequences.createTitle }}{% endblock %}{% block content %}
  <h1>{{ t.sequences.createTitle }}</h1>
  {% render "sequence-editor-form", t: t, base: base, csrf: csrf, action: action, values: values, errors: errors, problems: problems, steps: steps, tags: tags, templates: templates, forms: forms, segments: segments, entryEvents: entryEvents, reEntries: reEntries, kinds: kinds, units: units, weekdays: weekdays, conditions: conditions, stepTypes: stepTypes, filterKinds: filterKinds, filterPreviewAction: filterPreviewAction, statuses: statuses, valueTypes: valueTypes, zone: zone, submit: t.sequences.create, cancel: cancel %}
{% endblock %}`,

  "sequence-edit": `{% layout "app" %}{% block title %}{{ t.sequences.editTitle | fill: "name", sequence.name }}{% endblock %}{% block content %}
  <h1>{{ t.sequences.editTitle | fill: "name", sequence.name }}</h1>
  <p><span class="badge">{{ t.sequences.statuses[sequence.status] }}</span> {{ t.sequences.version }} {{ sequence.version }}</p>
  {% render "sequence-editor-form", t: t, base: base, csrf: csrf, action: action, values: values, errors: errors, problems: problems, steps: steps, tags: tags, templates: templates, forms: forms, segments: segments, entryEvents: entryEvents, reEntries: reEntries, kinds: kinds, units: units, weekdays: weekdays, conditions: conditions, stepTypes: stepTypes, filterKinds: filterKinds, filterPreviewAction: filterPreviewAction, statuses: statuses, valueTypes: valueTypes, zone: zone, submit: t.sequences.save, cancel: cancel %}
{% endblock %}`,

  sequence: `{% layout "app" %}{% block title %}{{ t.sequences.sequenceTitle | fill: "name", sequence.name }}{% endblock %}{% block content %}
  <h1>{{ t.sequences.sequenceTitle | fill: "name", sequence.name }}</h1>
  {% if actionError %}<p class="field-error" role="alert" id="sequence-action-error">{{ actionError }}</p>{% endif %}
  <p><span class="badge" id="sequence-status">{{ t.sequences.statuses[sequence.status] }}</span> {{ t.sequences.version }} {{ sequence.version }}</p>
  <div class="actions">
    {% if sequence.status == "active" %}
    <form method="post" action="{{ base }}/sequences/{{ sequence.id }}/pause"><input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit" class="secondary">{{ t.sequences.pause }}</button></form>
    {% elsif sequence.status == "paused" %}
    <form method="post" action="{{ base }}/sequences/{{ sequence.id }}/activate"><input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit">{{ t.sequences.resume }}</button></form>
    {% else %}
    <form method="post" action="{{ base }}/sequences/{{ sequence.id }}/activate"><input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit">{{ t.sequences.activate }}</button></form>
    {% endif %}
    <a href="{{ base }}/sequences/{{ sequence.id }}/edit">{{ t.sequences.edit }}</a>
    {% if sequence.status == "draft" %}<a href="{{ base }}/sequences/{{ sequence.id }}/delete">{{ t.sequences.delete }}</a>{% endif %}
  </div>
  <h2 id="entry">{{ t.sequences.settingsTitle }}</h2>
  <ul>
    {% for line in settings %}<li>{{ line }}</li>{% endfor %}
  </ul>
  <h2 id="figures">{{ t.sequences.figuresTitle }}</h2>
  <div class="table-wrap" role="region" tabindex="0" aria-labelledby="figures">
  <table>
    <caption class="visually-hidden">{{ t.sequences.figuresCaption }}</caption>
    <thead><tr>
      <th scope="col">{{ t.sequences.step }}</th><th scope="col">{{ t.sequences.what }}</th>
      <th scope="col" class="number">{{ t.sequences.entered }}</th><th scope="col" class="number">{{ t.sequences.completed }}</th>
      <th scope="col" class="number">{{ t.sequences.exited }}</th><th scope="col" class="number">{{ t.sequences.emailsSent }}</th>
      <th scope="col" class="number">{{ t.sequences.opened }}</th><th scope="col" class="number">{{ t.sequences.clicked }}</th>
    </tr></thead>
    <tbody>
    {% for f in figures %}
    <tr>
      <th scope="row">{% if f.number %}{{ f.number }}. {% endif %}{{ f.step }}</th>
      <td class="detail">{{ f.what }}</td>
      <td class="number">{{ f.entered }}</td><td class="number">{{ f.completed }}</td><td class="number">{{ f.exited }}</td>
      <td class="number">{{ f.emailsSent }}</td><td class="number">{{ f.opened }}</td><td class="number">{{ f.clicked }}</td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  <h2 id="enrollments">{{ t.sequences.whoTitle }}</h2>
  <form class="inline" method="post" action="{{ base }}/sequences/{{ sequence.id }}/enroll" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <label for="seq-enroll-email">{{ t.sequences.enrollEmail }}</label>
    <input id="seq-enroll-email" name="email" type="email" autocomplete="off" value="{{ enrollEmail }}"
      {% if errors.email %}aria-invalid="true" aria-describedby="seq-enroll-email-error"{% endif %} />
    <button type="submit">{{ t.sequences.enroll }}</button>
  </form>
  {% render "field-error", id: "seq-enroll-email", error: errors.email %}
  {% if enrollments.size == 0 %}<p>{{ t.sequences.noEnrollments }}</p>{% else %}
  <p class="note" id="seq-zone-note" data-zone-note="{{ t.sequences.zoneNote }}">{{ t.sequences.zoneNote | fill: "zone", zone }}</p>
  <div class="table-wrap" role="region" tabindex="0" aria-labelledby="enrollments">
  <table>
    <caption class="visually-hidden">{{ t.sequences.enrollmentsTotal | fill: "count", enrollmentsTotal }}</caption>
    <thead><tr>
      <th scope="col">{{ t.sequences.subscriber }}</th><th scope="col">{{ t.sequences.state }}</th>
      <th scope="col">{{ t.sequences.currentStep }}</th><th scope="col">{{ t.sequences.nextRun }}</th>
      <th scope="col">{{ t.sequences.enteredAt }}</th><th scope="col">{{ t.sequences.actions }}</th>
    </tr></thead>
    <tbody>
    {% for e in enrollments %}
    <tr>
      <td class="email">{% if e.subscriberId %}<a href="{{ base }}/subscribers/{{ e.subscriberId }}">{{ e.email }}</a>{% endif %}</td>
      <td>{{ t.sequences.states[e.state] }}{% if e.exitReason %} ({{ t.sequences.exitReasons[e.exitReason] }}){% endif %}</td>
      <td>{{ e.step }}{% if e.waiting %} · {{ t.sequences.waiting }}{% endif %}</td>
      <td>{% if e.nextRunAt %}<time datetime="{{ e.nextRunAt }}">{{ e.nextRunText }}</time>{% endif %}</td>
      <td><time datetime="{{ e.enteredAt }}">{{ e.enteredText }}</time></td>
      <td class="actions">{% if e.state == "active" %}
        <form method="post" action="{{ base }}/sequences/{{ sequence.id }}/enrollments/{{ e.subscriberId }}/remove">
          <input type="hidden" name="csrf" value="{{ csrf }}" />
          <button type="submit" class="secondary" aria-label="{{ t.sequences.removeEnrollment }}: {{ e.email }}">{{ t.sequences.removeEnrollment }}</button>
        </form>{% endif %}
      </td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% render "pages", texts: pagerTexts, previous: previous, next: next, pageNumber: pageNumber, totalPages: totalPages %}
  {% endif %}
{% endblock %}`
} as const
