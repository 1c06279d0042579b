/** The API keys screen's pages (api-keys-screen.ts), in the frame of views.ts. */
export const apiKeysViews = {
  "api-keys": `{% layout "app" %}{% block title %}{{ t.apiKeys.title }}{% endblock %}{% block content %}
  <h1>{{ t.apiKeys.title }}</h1>
  <p class="note">{{ t.apiKeys.intro }}</p>
  {% if apiKeys.size == 0 %}<p>{{ t.apiKeys.none }}</p>{% else %}
  <div class="table-wrap" tabindex="0" role="region" aria-label="{{ t.apiKeys.total | fill: "count", total }}">
  <table>
    <caption class="visually-hidden">{{ t.apiKeys.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.apiKeys.name }}</th><th scope="col">{{ t.apiKeys.key }}</th>
      <th scope="col">{{ t.apiKeys.scopes }}</th><th scope="col">{{ t.apiKeys.environment }}</th>
      <th scope="col">{{ t.apiKeys.created }}</th><th scope="col">{{ t.apiKeys.lastUsed }}</th>
      <th scope="col">{{ t.apiKeys.status }}</th><th scope="col">{{ t.apiKeys.actions }}</th>
    </tr></thead>
    <tbody>
    {% for key in apiKeys %}
    <tr>
      <td>{{ key.name }}</td>
      <td><code>{{ key.prefix }}…{{ key.lastFour }}</code></td>
      <td>{% for scope in key.scopes %}<code class="scope">{{ scope }}</code> {% endfor %}</td>
      <td>{% if key.environment == "test" %}{{ t.apiKeys.test }}{% else %}{{ t.apiKeys.live }}{% endif %}</td>
      <td><time datetime="{{ key.createdAt }}" data-format="date">{{ key.createdAt | slice: 0, 10 }}</time></td>
      <td>{% if key.lastUsedAt %}<time datetime="{{ key.lastUsedAt }}">{{ key.lastUsedAt | slice: 0, 16 | replace: "T", " " }}</time>{% else %}{{ t.apiKeys.never }}{% endif %}</td>
      <td>{% if key.revokedAt %}{{ t.apiKeys.revokedOn }} <time datetime="{{ key.revokedAt }}" data-format="date">{{ key.revokedAt | slice: 0, 10 }}</time>{% else %}{{ t.apiKeys.active }}{% endif %}</td>
      <td class="actions">{% unless key.revokedAt %}
        <a href="{{ base }}/api-keys/{{ key.id }}/rotate" aria-label="{{ t.apiKeys.rotate }}: {{ key.name }}">{{ t.apiKeys.rotate }}</a>
        <a href="{{ base }}/api-keys/{{ key.id }}/revoke" aria-label="{{ t.apiKeys.revoke }}: {{ key.name }}">{{ t.apiKeys.revoke }}</a>
      {% endunless %}</td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% endif %}
  <h2 id="new-key">{{ t.apiKeys.createTitle }}</h2>
  <form class="stack" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="key-name">{{ t.apiKeys.name }}</label>
      <input id="key-name" name="name" type="text" required maxlength="100" autocomplete="off" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="key-name-error"{% endif %} />
      {% render "field-error", id: "key-name", error: errors.name %}
    </div>
    <fieldset class="choices" aria-describedby="key-scopes-hint{% if errors.scopes %} key-scopes-error{% endif %}">
      <legend>{{ t.apiKeys.scopes }}</legend>
      <p class="hint" id="key-scopes-hint">{{ t.apiKeys.scopesHint }}</p>
      {% for choice in scopeChoices %}
      <label><input type="checkbox" name="scopes" value="{{ choice.scope }}"{% if choice.checked %} checked{% endif %} />
        <span><code>{{ choice.scope }}</code> {{ choice.description }}</span></label>
      {% endfor %}
      {% render "field-error", id: "key-scopes", error: errors.scopes %}
    </fieldset>
    <fieldset class="choices">
      <legend>{{ t.apiKeys.environment }}</legend>
      <label><input type="radio" name="environment" value="live"{% if values.environment != "test" %} checked{% endif %} />
        <span>{{ t.apiKeys.live }}: {{ t.apiKeys.liveHint }}</span></label>
      <label><input type="radio" name="environment" value="test"{% if values.environment == "test" %} checked{% endif %} />
        <span>{{ t.apiKeys.test }}: {{ t.apiKeys.testHint }}</span></label>
    </fieldset>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div class="actions"><button type="submit">{{ t.apiKeys.create }}</button></div>
  </form>
{% endblock %}`,

  "api-key-issued": `{% layout "app" %}{% block title %}{{ t.apiKeys.issuedTitle | fill: "name", apiKey.name }}{% endblock %}{% block content %}
  <h1>{{ t.apiKeys.issuedTitle | fill: "name", apiKey.name }}</h1>
  <p class="warning" id="new-key-warning">{{ t.apiKeys.issuedWarning }}</p>
  <div class="stack">
    <label for="new-key-value">{{ t.apiKeys.key }}</label>
    <div class="copy-row">
      <input id="new-key-value" class="secret" type="text" readonly value="{{ key }}" autocomplete="off" spellcheck="false"
        aria-describedby="new-key-warning" />
      <button type="button" class="secondary" data-copy="new-key-value" data-status="new-key-status" data-copied="{{ t.apiKeys.copied }}" hidden>{{ t.apiKeys.copy }}</button>
    </div>
    <p class="hint" id="new-key-status" role="status"></p>
  </div>
  <p><a class="button" href="{{ back }}">{{ t.apiKeys.done }}</a></p>
{% endblock %}`,

  "api-key-rotate": `{% layout "app" %}{% block title %}{{ t.apiKeys.rotateTitle | fill: "name", apiKey.name }}{% endblock %}{% block content %}
  <h1>{{ t.apiKeys.rotateTitle | fill: "name", apiKey.name }}</h1>
  <p>{{ t.apiKeys.rotateConsequence | fill: "prefix", apiKey.prefix, "lastFour", apiKey.lastFour }}</p>
  <form method="post" action="{{ action }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit">{{ t.apiKeys.rotateConfirm }}</button>
    <a href="{{ cancel }}">{{ t.apiKeys.cancel }}</a>
  </form>
{% endblock %}`,

  "api-key-revoke": `{% layout "app" %}{% block title %}{{ t.apiKeys.revokeTitle | fill: "name", apiKey.name }}{% endblock %}{% block content %}
  <h1>{{ t.apiKeys.revokeTitle | fill: "name", apiKey.name }}</h1>
  <p>{{ t.apiKeys.revokeConsequence | fill: "prefix", apiKey.prefix, "lastFour", apiKey.lastFour }}</p>
  <form method="post" action="{{ action }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit" class="danger">{{ t.apiKeys.revokeConfirm }}</button>
    <a href="{{ cancel }}">{{ t.apiKeys.cancel }}</a>
  </form>
{% endblock %}`
} as const
