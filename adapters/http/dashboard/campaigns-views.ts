/** The campaigns screen's pages (campaigns-screen.ts), in the frame of views.ts. */
export const campaignsViews = {
  campaigns: `{% layout "app" %}{% block title %}{{ t.campaigns.title }}{% endblock %}{% block content %}
  <h1>{{ t.campaigns.title }}</h1>
  <p class="note">{{ t.campaigns.intro }}</p>
  <p><a class="button" href="{{ newAction }}">{{ t.campaigns.newCampaign }}</a></p>
  {% if campaigns.size == 0 %}<p>{{ t.campaigns.none }}</p>{% else %}
  <div class="table-wrap">
  <table id="campaigns">
    <caption class="visually-hidden">{{ t.campaigns.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.campaigns.name }}</th><th scope="col">{{ t.campaigns.status }}</th><th scope="col">{{ t.campaigns.when }}</th>
      <th scope="col" class="number">{{ t.campaigns.sent }}</th><th scope="col" class="number">{{ t.campaigns.opened }}</th>
      <th scope="col" class="number">{{ t.campaigns.clicked }}</th>
    </tr></thead>
    <tbody>
    {% for c in campaigns %}
    <tr>
      <td><a href="{{ base }}/campaigns/{{ c.id }}">{{ c.name }}</a></td>
      <td><span class="badge status-{{ c.status }}">{{ c.statusText }}</span></td>
      <td>{% if c.when %}<time datetime="{{ c.when.iso }}">{{ c.when.text }}</time>{% endif %}</td>
      <td class="number">{{ c.sent }}</td><td class="number">{{ c.opened }}</td><td class="number">{{ c.clicked }}</td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% render "pages", texts: t.campaigns, previous: previous, next: next, pageNumber: pageNumber, totalPages: totalPages %}
  {% endif %}
{% endblock %}`,

  "campaign-count": `{% if counted.problem %}<p class="field-error" id="campaign-count-problem">{{ counted.problem }}</p>{% else %}<p><strong id="campaign-count-text">{{ counted.count }}</strong></p>{% endif %}`,

  "campaign-composer-form": `<form class="stack wide" id="campaign-form" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit" name="intent" value="save" class="visually-hidden" tabindex="-1" aria-hidden="true">{{ submit }}</button>
    <div>
      <label for="campaign-name">{{ t.campaigns.name }}</label>
      <input id="campaign-name" name="name" type="text" required maxlength="200" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="campaign-name-error"{% endif %} />
      {% render "field-error", id: "campaign-name", error: errors.name %}
    </div>
    <fieldset>
      <legend>{{ t.campaigns.kind }}</legend>
      {% for kind in kinds %}
      <div><label><input type="radio" name="kind" value="{{ kind }}" aria-describedby="campaign-kind-{{ kind }}-hint"{% if values.kind == kind %} checked{% endif %} /> {{ t.campaigns.kinds[kind] }}</label>
        <p class="hint" id="campaign-kind-{{ kind }}-hint">{{ t.campaigns.kindHints[kind] }}</p></div>
      {% endfor %}
    </fieldset>
    <fieldset>
      <legend>{{ t.campaigns.content }}</legend>
      <div><label><input type="radio" name="content" value="own"{% if values.content != "template" %} checked{% endif %} /> {{ t.campaigns.ownContent }}</label>
        <label><input type="radio" name="content" value="template"{% if values.content == "template" %} checked{% endif %} /> {{ t.campaigns.useTemplate }}</label></div>
      <div>
        <label for="campaign-template">{{ t.campaigns.template }}</label>
        {% if templates.size == 0 %}<p class="hint">{{ t.campaigns.noTemplates }}</p>{% endif %}
        <select id="campaign-template" name="template_id"
          {% if errors.template_id %}aria-invalid="true" aria-describedby="campaign-template-error"{% endif %}>
          <option value="">—</option>
          {% for template in templates %}<option value="{{ template.id }}"{% if template.id == values.templateId %} selected{% endif %}>{{ template.name }}</option>{% endfor %}
        </select>
        {% if values.templateId != "" and values.content == "template" %}<p class="hint"><a href="{{ templatePath }}/{{ values.templateId }}">{{ t.campaigns.openTemplate }}</a></p>{% endif %}
        {% render "field-error", id: "campaign-template", error: errors.template_id %}
      </div>
      <div>
        <label for="campaign-subject">{{ t.campaigns.subject }}</label>
        <input id="campaign-subject" name="subject" type="text" maxlength="998" value="{{ values.subject }}"
          aria-describedby="campaign-content-hint{% if errors.subject %} campaign-subject-error{% endif %}"{% if errors.subject %} aria-invalid="true"{% endif %} />
        {% render "field-error", id: "campaign-subject", error: errors.subject %}
      </div>
      <div>
        <label for="campaign-html">{{ t.campaigns.html }}</label>
        <textarea id="campaign-html" name="html" rows="6" class="code"
          aria-describedby="campaign-content-hint{% if errors.html %} campaign-html-error{% endif %}"{% if errors.html %} aria-invalid="true"{% endif %}>{{ values.html }}</textarea>
        {% render "field-error", id: "campaign-html", error: errors.html %}
      </div>
      <div>
        <label for="campaign-text">{{ t.campaigns.text }}</label>
        <textarea id="campaign-text" name="text" rows="4" class="code"
          aria-describedby="campaign-content-hint{% if errors.text %} campaign-text-error{% endif %}"{% if errors.text %} aria-invalid="true"{% endif %}>{{ values.text }}</textarea>
        <p class="hint" id="campaign-content-hint">{{ t.campaigns.contentHint }}</p>
        {% render "field-error", id: "campaign-text", error: errors.text %}
      </div>
    </fieldset>
    <fieldset{% if errors.audience %} aria-describedby="campaign-audience-error"{% endif %}>
      <legend>{{ t.campaigns.audience }}</legend>
      <div><label><input type="radio" name="audience" value="tags"{% if values.audience != "segment" %} checked{% endif %} /> {{ t.campaigns.byTags }}</label>
        <label><input type="radio" name="audience" value="segment"{% if values.audience == "segment" %} checked{% endif %} /> {{ t.campaigns.bySegment }}</label></div>
      <fieldset class="choices"{% if errors.tag_ids %} aria-describedby="campaign-tags-error"{% endif %}>
        <legend>{{ t.campaigns.tags }}</legend>
        {% if tags.size == 0 %}<p class="hint">{{ t.campaigns.noTags }}</p>{% endif %}
        {% for tag in tags %}<label><input type="checkbox" name="tag_ids" value="{{ tag.id }}"{% if values.tagIds contains tag.id %} checked{% endif %} /> <span>{{ tag.name }}</span></label>{% endfor %}
        {% render "field-error", id: "campaign-tags", error: errors.tag_ids %}
      </fieldset>
      <div>
        <label for="campaign-segment">{{ t.campaigns.segment }}</label>
        {% if segments.size == 0 %}<p class="hint">{{ t.campaigns.noSegments }}</p>{% endif %}
        <select id="campaign-segment" name="segment_id"
          {% if errors.segment_id %}aria-invalid="true" aria-describedby="campaign-segment-error"{% endif %}>
          <option value="">{{ t.campaigns.chooseSegment }}</option>
          {% for segment in segments %}<option value="{{ segment.id }}"{% if segment.id == values.segmentId %} selected{% endif %}>{{ segment.name }}</option>{% endfor %}
        </select>
        {% render "field-error", id: "campaign-segment", error: errors.segment_id %}
      </div>
      <fieldset class="choices"{% if errors.exclude_tag_ids %} aria-describedby="campaign-exclude-error"{% endif %}>
        <legend>{{ t.campaigns.exclude }}</legend>
        {% if tags.size == 0 %}<p class="hint">{{ t.campaigns.noTags }}</p>{% endif %}
        {% for tag in tags %}<label><input type="checkbox" name="exclude_tag_ids" value="{{ tag.id }}"{% if values.excludeTagIds contains tag.id %} checked{% endif %} /> <span>{{ tag.name }}</span></label>{% endfor %}
        {% render "field-error", id: "campaign-exclude", error: errors.exclude_tag_ids %}
      </fieldset>
      {% render "field-error", id: "campaign-audience", error: errors.audience %}
      <h2 id="campaign-count-title">{{ t.campaigns.recipientsTitle }}</h2>
      <div id="campaign-count" aria-live="polite" aria-labelledby="campaign-count-title" hx-post="{{ countAction }}"
        hx-trigger="change from:#campaign-form" hx-include="#campaign-form">
        {% render "campaign-count", counted: counted %}
      </div>
      <div class="actions"><button type="submit" class="secondary" name="intent" value="count">{{ t.campaigns.count }}</button></div>
    </fieldset>
    <div>
      <label for="campaign-schedule">{{ t.campaigns.schedule }}</label>
      <input id="campaign-schedule" name="scheduled_at" type="datetime-local" value="{{ values.scheduledAt }}"
        aria-describedby="campaign-schedule-hint{% if errors.scheduled_at %} campaign-schedule-error{% endif %}"{% if errors.scheduled_at %} aria-invalid="true"{% endif %} />
      <p class="hint" id="campaign-schedule-hint">{{ t.campaigns.scheduleHint | fill: "zone", zone }}</p>
      {% render "field-error", id: "campaign-schedule", error: errors.scheduled_at %}
    </div>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div class="actions"><button type="submit" name="intent" value="save">{{ submit }}</button><a href="{{ back }}">{{ t.campaigns.cancelEdit }}</a></div>
    <section aria-labelledby="campaign-preview-title">
      <h2 id="campaign-preview-title">{{ t.campaigns.previewTitle }}</h2>
      <p class="note">{{ t.campaigns.previewIntro }}</p>
      {% render "template-preview-for", t: t, id: "campaign", email: values.previewEmail, searchAction: searchAction %}
      <div class="actions">
        <button type="submit" class="secondary" id="campaign-preview-button" formaction="{{ previewAction }}" formtarget="campaign-preview-frame">{{ t.campaigns.previewButton }}</button>
      </div>
      {% render "template-preview-shown", t: t, id: "campaign", preview: preview, frameName: "campaign-preview-frame", frameTitle: t.campaigns.previewFrame, frameSrc: frameSrc %}
    </section>
  </form>
  <section aria-labelledby="campaign-test-title">
    <h2 id="campaign-test-title">{{ t.campaigns.testTitle }}</h2>
    {% if testAction %}<p class="note">{{ t.campaigns.testIntro | fill: "email", user.email }}</p>
    <form method="post" action="{{ testAction }}" class="actions">
      <input type="hidden" name="csrf" value="{{ csrf }}" />
      <button type="submit" class="secondary" id="campaign-test-button">{{ t.campaigns.testButton }}</button>
    </form>{% else %}<p class="note">{{ t.campaigns.testSaveFirst }}</p>{% endif %}
  </section>`,

  "campaign-head": `<p class="actions"><span class="badge status-{{ campaign.status }}" id="campaign-status">{{ campaign.statusText }}</span>
    <span class="note">{{ t.campaigns.kind }}: {{ campaign.kindText }}</span></p>
  {% if campaign.scheduledAt and campaign.status == "scheduled" %}<p>{{ t.campaigns.scheduledFor | fill: "at", campaign.scheduledAt.text }}</p>{% endif %}
  {% if campaign.startedAt %}<p class="note">{{ t.campaigns.startedAt | fill: "at", campaign.startedAt.text }}{% if campaign.finishedAt %} {{ t.campaigns.finishedAt | fill: "at", campaign.finishedAt.text }}{% endif %}</p>{% endif %}
  {% if campaign.sandboxed %}<p class="note">{{ t.campaigns.sandboxed }}</p>{% endif %}
  {% if campaign.failureReason != "" %}<p class="field-error">{{ t.campaigns.failureReason | fill: "reason", campaign.failureReason }}</p>{% endif %}
  <div class="actions campaign-actions" aria-label="{{ t.campaigns.actions }}" role="group">
    {% if actions.send != "" %}<a class="button" href="{{ actions.send }}">{{ t.campaigns.send }}</a>{% endif %}
    {% if actions.cancel != "" %}<form method="post" action="{{ actions.cancel }}"><input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit" class="danger">{{ t.campaigns.cancel }}</button></form>{% endif %}
    {% if actions.retry != "" %}<form method="post" action="{{ actions.retry }}"><input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit">{{ t.campaigns.retry }}</button></form>{% endif %}
    <form method="post" action="{{ actions.duplicate }}"><input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit" class="secondary">{{ t.campaigns.duplicate }}</button></form>
  </div>`,

  "campaign-new": `{% layout "app" %}{% block title %}{{ t.campaigns.createTitle }}{% endblock %}{% block content %}
  <h1>{{ t.campaigns.createTitle }}</h1>
  {% render "campaign-composer-form", t: t, csrf: csrf, action: action, countAction: countAction, values: values, errors: errors, kinds: kinds, tags: tags, segments: segments, templates: templates, templatePath: templatePath, counted: counted, zone: zone, submit: t.campaigns.create, back: back, previewAction: previewAction, searchAction: searchAction, preview: preview, frameSrc: frameSrc, testAction: testAction, user: user %}
{% endblock %}`,

  campaign: `{% layout "app" %}{% block title %}{{ t.campaigns.editTitle | fill: "name", campaign.name }}{% endblock %}{% block content %}
  <h1>{{ t.campaigns.editTitle | fill: "name", campaign.name }}</h1>
  {% render "campaign-head", t: t, csrf: csrf, campaign: campaign, actions: actions %}
  {% render "campaign-composer-form", t: t, csrf: csrf, action: action, countAction: countAction, values: values, errors: errors, kinds: kinds, tags: tags, segments: segments, templates: templates, templatePath: templatePath, counted: counted, zone: zone, submit: t.campaigns.save, back: back, previewAction: previewAction, searchAction: searchAction, preview: preview, frameSrc: frameSrc, testAction: testAction, user: user %}
{% endblock %}`,

  "campaign-progress": `<section aria-labelledby="progress-title" id="campaign-progress" data-poll="{{ poll }}" data-status="{{ progress.status }}">
    <h2 id="progress-title">{{ t.campaigns.progressTitle }}</h2>
    <label for="campaign-progress-bar">{{ t.campaigns.progress }}</label>
    <progress id="campaign-progress-bar" max="100" value="{{ progress.percent }}" aria-describedby="campaign-progress-text">{{ progress.percent }} %</progress>
    <p id="campaign-progress-text" aria-live="polite">{{ progress.text }}</p>
    <dl class="counts">
      <div><dt>{{ t.campaigns.recipients }}</dt><dd id="campaign-recipients">{{ progress.figures.recipients }}</dd></div>
      <div><dt>{{ t.campaigns.sent }}</dt><dd id="campaign-sent">{{ progress.figures.sent }}</dd></div>
      <div><dt>{{ t.campaigns.failed }}</dt><dd id="campaign-failed">{{ progress.figures.failed }}</dd></div>
      <div><dt>{{ t.campaigns.queued }}</dt><dd id="campaign-queued">{{ progress.figures.queued }}</dd></div>
    </dl>
    {% unless progress.ended %}<p><a href="{{ refresh }}" id="campaign-refresh">{{ t.campaigns.refresh }}</a></p>{% endunless %}
  </section>`,

  "campaign-report": `{% layout "app" %}{% block title %}{{ t.campaigns.editTitle | fill: "name", campaign.name }}{% endblock %}{% block content %}
  <h1>{{ t.campaigns.editTitle | fill: "name", campaign.name }}</h1>
  {% render "campaign-head", t: t, csrf: csrf, campaign: campaign, actions: actions %}
  {% render "campaign-progress", t: t, progress: progress, poll: poll, refresh: refresh %}
  <h2 id="figures-title">{{ t.campaigns.figuresTitle }}</h2>
  <dl class="counts" id="campaign-figures" aria-labelledby="figures-title">
    {% for f in figures %}<div><dt>{{ t.campaigns[f.key] }}</dt><dd id="figure-{{ f.key }}">{{ f.value }}</dd></div>{% endfor %}
  </dl>
  {% if chart %}
  <h2 id="chart-title">{{ t.campaigns.chartTitle }}</h2>
  <figure class="chart campaign-chart">
    <svg viewBox="0 0 {{ chart.width }} {{ chart.height }}" role="img" aria-labelledby="chart-title" aria-describedby="chart-note" preserveAspectRatio="none" focusable="false">
      <line class="axis" x1="0" y1="{{ chart.height }}" x2="{{ chart.width }}" y2="{{ chart.height }}" />
      {% for line in chart.lines %}<polyline class="line line-{{ line.type }}" points="{{ line.points }}" />{% endfor %}
    </svg>
    <figcaption>
      <ul class="legend">{% for line in chart.lines %}<li><span class="swatch line-{{ line.type }}"></span>{{ t.campaigns[line.type] }}</li>{% endfor %}</ul>
      <p class="note" id="chart-note">{{ t.campaigns.chartNote | fill: "step", step, "zone", zone }}</p>
    </figcaption>
  </figure>
  <details>
    <summary>{{ t.campaigns.chartTable }}</summary>
    <div class="table-wrap" role="region" tabindex="0" aria-label="{{ t.campaigns.chartTable }}">
    <table id="campaign-timeline">
      <caption class="visually-hidden">{{ t.campaigns.chartTable }}</caption>
      <thead><tr><th scope="col">{{ t.campaigns.time }}</th><th scope="col" class="number">{{ t.campaigns.delivered }}</th>
        <th scope="col" class="number">{{ t.campaigns.opened }}</th><th scope="col" class="number">{{ t.campaigns.clicked }}</th></tr></thead>
      <tbody>{% for row in chart.rows %}<tr><td>{{ row.label }}</td><td class="number">{{ row.delivered }}</td><td class="number">{{ row.opened }}</td><td class="number">{{ row.clicked }}</td></tr>{% endfor %}</tbody>
    </table>
    </div>
  </details>
  {% endif %}
  <p><a href="{{ back }}">{{ t.campaigns.cancelEdit }}</a></p>
{% endblock %}`,

  "campaign-send": `{% layout "app" %}{% block title %}{{ t.campaigns.sendTitle | fill: "name", campaign.name }}{% endblock %}{% block content %}
  <h1>{{ t.campaigns.sendTitle | fill: "name", campaign.name }}</h1>
  <p id="campaign-question"><strong>{{ question }}</strong></p>
  <p class="note">{{ t.campaigns.sendConsequence }}</p>
  {% if problem %}<p class="field-error" role="alert" id="campaign-send-problem">{{ problem }}</p>{% endif %}
  <form method="post" action="{{ action }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit">{% if scheduled %}{{ t.campaigns.scheduleConfirm }}{% else %}{{ t.campaigns.sendConfirm }}{% endif %}</button>
    <a href="{{ cancel }}">{{ t.campaigns.back }}</a>
  </form>
{% endblock %}`
} as const
