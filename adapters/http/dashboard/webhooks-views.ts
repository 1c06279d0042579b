/** The webhooks screen's pages (webhooks-screen.ts), in the frame of views.ts. */
export const webhooksViews = {
  webhooks: `{% layout "app" %}{% block title %}{{ t.webhooks.title }}{% endblock %}{% block content %}
  <h1>{{ t.webhooks.title }}</h1>
  <p class="note">{{ t.webhooks.intro }}</p>
  {% if endpoints.size == 0 %}<p>{{ t.webhooks.none }}</p>{% else %}
  <div class="table-wrap" role="region" tabindex="0" aria-label="{{ t.webhooks.title }}">
  <table>
    <thead><tr>
      <th scope="col">{{ t.webhooks.url }}</th><th scope="col">{{ t.webhooks.events }}</th>
      <th scope="col">{{ t.webhooks.status }}</th><th scope="col">{{ t.webhooks.actions }}</th>
    </tr></thead>
    <tbody>
    {% for endpoint in endpoints %}
    <tr>
      <td class="email"><a href="{{ base }}/webhooks/{{ endpoint.id }}">{{ endpoint.url }}</a>{% if endpoint.description != "" %}<br /><span class="hint">{{ endpoint.description }}</span>{% endif %}</td>
      <td>{% for kind in endpoint.events %}<code class="scope">{{ kind }}</code>{% unless forloop.last %}, {% endunless %}{% endfor %}</td>
      <td><span class="badge">{{ t.webhooks.statuses[endpoint.status] }}</span>{% if endpoint.disabledReason != "" %} <span class="hint">{{ t.webhooks.disabledReasons[endpoint.disabledReason] }}</span>{% endif %}</td>
      <td class="actions"><a href="{{ base }}/webhooks/{{ endpoint.id }}" aria-label="{{ t.webhooks.open }}: {{ endpoint.url }}">{{ t.webhooks.open }}</a></td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% endif %}
  <h2 id="new-endpoint">{{ t.webhooks.newTitle }}</h2>
  {% render "webhook-form", t: t, csrf: csrf, action: action, values: values, errors: errors, eventChoices: eventChoices, submit: t.webhooks.create %}
{% endblock %}`,

  "webhook-form": `<form class="stack" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="webhook-url">{{ t.webhooks.url }}</label>
      <input id="webhook-url" name="url" type="text" inputmode="url" required maxlength="2048" value="{{ values.url }}"
        aria-describedby="webhook-url-hint{% if errors.url %} webhook-url-error{% endif %}"{% if errors.url %} aria-invalid="true"{% endif %} />
      <p class="hint" id="webhook-url-hint">{{ t.webhooks.urlHint }}</p>
      {% render "field-error", id: "webhook-url", error: errors.url %}
    </div>
    <div>
      <label for="webhook-description">{{ t.webhooks.description }}</label>
      <input id="webhook-description" name="description" type="text" maxlength="500" value="{{ values.description }}"
        aria-describedby="webhook-description-hint{% if errors.description %} webhook-description-error{% endif %}"{% if errors.description %} aria-invalid="true"{% endif %} />
      <p class="hint" id="webhook-description-hint">{{ t.webhooks.descriptionHint }}</p>
      {% render "field-error", id: "webhook-description", error: errors.description %}
    </div>
    <fieldset class="choices" aria-describedby="webhook-events-hint{% if errors.events %} webhook-events-error{% endif %}">
      <legend>{{ t.webhooks.events }}</legend>
      <p class="hint" id="webhook-events-hint">{{ t.webhooks.eventsHint }}</p>
      {% for choice in eventChoices %}
      <label><input type="checkbox" name="events" value="{{ choice.kind }}"{% if choice.checked %} checked{% endif %} /> <span>{{ choice.kind }}</span></label>
      {% endfor %}
      {% render "field-error", id: "webhook-events", error: errors.events %}
    </fieldset>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div class="actions"><button type="submit">{{ submit }}</button></div>
  </form>`,

  webhook: `{% layout "app" %}{% block title %}{{ t.webhooks.editTitle }}{% endblock %}{% block content %}
  <h1>{{ t.webhooks.editTitle }}</h1>
  <p><a href="{{ base }}/webhooks">{{ t.webhooks.back }}</a></p>
  <dl class="facts">
    <dt>{{ t.webhooks.url }}</dt><dd>{{ endpoint.url }}</dd>
    <dt>{{ t.webhooks.status }}</dt><dd><span class="badge">{{ t.webhooks.statuses[endpoint.status] }}</span>{% if endpoint.disabledReason != "" %} {{ t.webhooks.disabledReasons[endpoint.disabledReason] }}{% endif %}</dd>
    <dt>{{ t.webhooks.lastWeek }}</dt><dd id="webhook-stats">{{ t.webhooks.stats | fill: "attempts", stats.attempts, "succeeded", stats.succeeded, "failed", stats.failed, "pending", stats.pending }}{% if stats.p95 != "" %} {{ t.webhooks.p95 | fill: "ms", stats.p95 }}{% endif %}</dd>
  </dl>
  <div class="actions">
    <form method="post" action="{{ action }}/status">
      <input type="hidden" name="csrf" value="{{ csrf }}" />
      {% if endpoint.status == "active" %}
      <input type="hidden" name="status" value="disabled" /><button type="submit" class="secondary">{{ t.webhooks.disable }}</button>
      {% else %}
      <input type="hidden" name="status" value="active" /><button type="submit" class="secondary">{{ t.webhooks.enable }}</button>
      {% endif %}
    </form>
    <form method="post" action="{{ action }}/test">
      <input type="hidden" name="csrf" value="{{ csrf }}" />
      <button type="submit" class="secondary" aria-describedby="webhook-test-hint">{{ t.webhooks.sendTest }}</button>
    </form>
    <a href="{{ action }}/rotate">{{ t.webhooks.rotate }}</a>
    <a href="{{ action }}/delete">{{ t.webhooks.delete }}</a>
  </div>
  <p class="hint" id="webhook-test-hint">{{ t.webhooks.testHint }}</p>

  <h2 id="log">{{ t.webhooks.log }}</h2>
  <p class="note">{{ t.webhooks.logIntro }}</p>
  {% if deliveries.size == 0 %}<p>{{ t.webhooks.noDeliveries }}</p>{% endif %}
  {% for delivery in deliveries %}
  <section class="card delivery" aria-labelledby="delivery-{{ delivery.id }}">
    <h3 id="delivery-{{ delivery.id }}"><code>{{ delivery.eventType }}</code>{% if delivery.test %} <span class="badge test-delivery">{{ t.webhooks.testDelivery }}</span>{% endif %} <span class="badge">{{ t.webhooks.deliveryStatuses[delivery.status] }}</span></h3>
    <dl class="facts">
      <dt>{{ t.webhooks.made }}</dt><dd><time datetime="{{ delivery.createdAt }}">{{ delivery.createdAt | slice: 0, 16 | replace: "T", " " }}</time></dd>
      <dt>webhook-id</dt><dd><code>{{ delivery.eventId }}</code></dd>
      {% if delivery.nextAttemptAt != "" %}<dt>{{ t.webhooks.nextAttempt }}</dt><dd><time datetime="{{ delivery.nextAttemptAt }}">{{ delivery.nextAttemptAt | slice: 0, 16 | replace: "T", " " }}</time></dd>{% endif %}
    </dl>
    {% if delivery.body != "" %}
    <details>
      <summary>{{ t.webhooks.body }}</summary>
      <pre class="body-excerpt" tabindex="0" aria-label="{{ t.webhooks.body }}">{{ delivery.body }}</pre>
    </details>
    {% endif %}
    {% if delivery.attempts.size == 0 %}<p>{{ t.webhooks.noAttempts }}</p>{% else %}
    <div class="table-wrap" role="region" tabindex="0" aria-labelledby="delivery-{{ delivery.id }}">
    <table>
      <caption class="visually-hidden">{{ delivery.eventType }}</caption>
      <thead><tr>
        <th scope="col">{{ t.webhooks.attempt }}</th>
        <th scope="col">{{ t.webhooks.request }}</th>
        <th scope="col">{{ t.webhooks.answer }}</th>
      </tr></thead>
      <tbody>
      {% for attempt in delivery.attempts %}
      <tr class="attempt {{ attempt.status }}">
        <td>{{ attempt.number }} <span class="badge">{{ t.webhooks.attemptStatuses[attempt.status] }}</span></td>
        <td>
          <dl class="facts">
            <dt>{{ t.webhooks.attemptedAt }}</dt><dd><time datetime="{{ attempt.attemptedAt }}">{{ attempt.attemptedAt | slice: 0, 19 | replace: "T", " " }}</time></dd>
            <dt>webhook-timestamp</dt><dd><code>{{ attempt.timestamp }}</code></dd>
            <dt>content-type</dt><dd><code>application/json</code></dd>
          </dl>
        </td>
        <td>
          <dl class="facts">
            <dt>{{ t.webhooks.responseStatus }}</dt><dd class="response-status">{% if attempt.responseStatus != "" %}{{ attempt.responseStatus }}{% else %}{{ t.webhooks.noAnswer }}{% endif %}</dd>
            {% if attempt.answered %}<dt>{{ t.webhooks.responseBody }}</dt><dd>{% if attempt.responseExcerpt != "" %}<pre class="body-excerpt response-excerpt">{{ attempt.responseExcerpt }}</pre>{% else %}{{ t.webhooks.emptyBody }}{% endif %}</dd>{% endif %}
            <dt>{{ t.webhooks.duration }}</dt><dd>{{ t.webhooks.milliseconds | fill: "ms", attempt.durationMs }}</dd>
            {% if attempt.error != "" %}<dt>{{ t.webhooks.error }}</dt><dd>{{ attempt.error }}</dd>{% endif %}
          </dl>
        </td>
      </tr>
      {% endfor %}
      </tbody>
    </table>
    </div>
    <p class="hint">{{ t.webhooks.headersNote }}</p>
    {% endif %}
    <form method="post" action="{{ action }}/deliveries/{{ delivery.id }}/redeliver">
      <input type="hidden" name="csrf" value="{{ csrf }}" />
      <button type="submit" class="secondary" aria-label="{{ t.webhooks.redeliverLabel | fill: "event", delivery.eventType }}">{{ t.webhooks.redeliver }}</button>
    </form>
  </section>
  {% endfor %}
  {% if newest != "" or older != "" %}
  <nav class="actions pages" aria-label="{{ t.webhooks.pages }}">
    {% if newest != "" %}<a href="{{ newest }}#log">{{ t.webhooks.newest }}</a>{% endif %}
    {% if older != "" %}<a href="{{ older }}#log">{{ t.webhooks.older }}</a>{% endif %}
  </nav>
  {% endif %}

  <h2 id="settings">{{ t.webhooks.settingsTitle }}</h2>
  {% render "webhook-form", t: t, csrf: csrf, action: action, values: values, errors: errors, eventChoices: eventChoices, submit: t.webhooks.save %}
{% endblock %}`,

  "webhook-secret": `{% layout "app" %}{% block title %}{{ t.webhooks.secretTitle | fill: "url", endpoint.url }}{% endblock %}{% block content %}
  <h1 class="email">{{ t.webhooks.secretTitle | fill: "url", endpoint.url }}</h1>
  <p class="warning" id="webhook-secret-warning">{{ t.webhooks.secretOnce }}{% if rotated %} {{ t.webhooks.secretRotated }}{% endif %}</p>
  <div class="stack">
    <label for="webhook-secret-value">{{ t.webhooks.secretLabel }}</label>
    <div class="copy-row">
      <input id="webhook-secret-value" class="secret" type="text" readonly value="{{ secret }}" autocomplete="off" spellcheck="false"
        aria-describedby="webhook-secret-warning" />
      <button type="button" class="secondary" data-copy="webhook-secret-value" data-status="webhook-secret-status" data-copied="{{ t.webhooks.copied }}" hidden>{{ t.webhooks.copy }}</button>
    </div>
    <p class="hint" id="webhook-secret-status" role="status"></p>
  </div>
  <p><a class="button" href="{{ back }}">{{ t.webhooks.done }}</a></p>
{% endblock %}`,

  "webhook-rotate": `{% layout "app" %}{% block title %}{{ t.webhooks.rotateTitle | fill: "url", endpoint.url }}{% endblock %}{% block content %}
  <h1 class="email">{{ t.webhooks.rotateTitle | fill: "url", endpoint.url }}</h1>
  <p>{{ t.webhooks.rotateConsequence }}</p>
  <form method="post" action="{{ action }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit">{{ t.webhooks.rotateConfirm }}</button>
    <a href="{{ cancel }}">{{ t.webhooks.cancel }}</a>
  </form>
{% endblock %}`,

  "webhook-delete": `{% layout "app" %}{% block title %}{{ t.webhooks.deleteTitle | fill: "url", endpoint.url }}{% endblock %}{% block content %}
  <h1 class="email">{{ t.webhooks.deleteTitle | fill: "url", endpoint.url }}</h1>
  <p>{{ t.webhooks.deleteConsequence }}</p>
  <form method="post" action="{{ action }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit" class="danger">{{ t.webhooks.deleteConfirm }}</button>
    <a href="{{ cancel }}">{{ t.webhooks.cancel }}</a>
  </form>
{% endblock %}`
} as const
