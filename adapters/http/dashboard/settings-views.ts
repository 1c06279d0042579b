/** The settings screen's page (settings-screen.ts), in the frame of views.ts. */
export const settingsViews = {
  settings: `{% layout "app" %}{% block title %}{{ t.settings.title }}{% endblock %}{% block content %}
  <h1>{{ t.settings.title }}</h1>
  <p><a href="{{ base }}/email">{{ t.emailActivity.activityLink }}</a></p>
  {% if sender == nil %}<p class="note" id="owner-only">{{ t.settings.ownerOnly }}</p>{% else %}

  <h2 id="sender">{{ t.settings.sender }}</h2>
  <p class="note">{{ t.settings.senderIntro }}</p>
  <p>{{ t.settings.effectiveFrom | fill: "from", sender.effectiveFrom }}</p>
  <form class="stack" method="post" action="{{ base }}/settings/sender" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="from-name">{{ t.settings.fromName }}</label>
      <input id="from-name" name="from_name" type="text" maxlength="200" value="{{ values.from_name }}"
        aria-describedby="from-name-hint{% if errors.from_name %} from-name-error{% endif %}"{% if errors.from_name %} aria-invalid="true"{% endif %} />
      <p class="hint" id="from-name-hint">{{ t.settings.fromNameHint }}</p>
      {% render "field-error", id: "from-name", error: errors.from_name %}
    </div>
    <div>
      <label for="from-address">{{ t.settings.fromAddress }}</label>
      <input id="from-address" name="from_address" type="email" maxlength="320" value="{{ values.from_address }}"
        aria-describedby="from-address-hint{% if errors.from_address %} from-address-error{% endif %}"{% if errors.from_address %} aria-invalid="true"{% endif %} />
      <p class="hint" id="from-address-hint">{{ t.settings.fromAddressHint }}</p>
      {% render "field-error", id: "from-address", error: errors.from_address %}
    </div>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div><button type="submit">{{ t.settings.save }}</button></div>
  </form>

  <h2 id="time-zone">{{ t.settings.timeZone }}</h2>
  <p class="note">{{ t.settings.timeZoneIntro }}</p>
  <form class="stack" method="post" action="{{ base }}/settings/organization" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="time-zone-name">{{ t.settings.timeZoneLabel }}</label>
      <input id="time-zone-name" name="time_zone" type="text" maxlength="100" list="time-zones" autocomplete="off" value="{{ values.time_zone }}"
        aria-describedby="time-zone-name-hint{% if errors.time_zone %} time-zone-name-error{% endif %}"{% if errors.time_zone %} aria-invalid="true"{% endif %} />
      <datalist id="time-zones">{% for zone in timeZones %}<option value="{{ zone }}"></option>{% endfor %}</datalist>
      <p class="hint" id="time-zone-name-hint">{{ t.settings.timeZoneHint }}</p>
      {% render "field-error", id: "time-zone-name", error: errors.time_zone %}
    </div>
    <div><button type="submit">{{ t.settings.saveTimeZone }}</button></div>
  </form>

  <h2 id="domain">{{ t.settings.domain }}</h2>
  <p class="note">{{ t.settings.domainIntro }}</p>
  {% if domain %}
  <p>{{ t.settings.domainName }}: <strong>{{ domain.name }}</strong> · {{ t.settings.domainStatus }}: <span id="domain-status">{{ t.settings.statuses[domain.status] }}</span></p>
  <div class="table-wrap" tabindex="0" role="region" aria-labelledby="domain">
  <table id="dns-records">
    <caption>{{ t.settings.records | fill: "name", domain.name }}</caption>
    <thead><tr>
      <th scope="col">{{ t.settings.recordPurpose }}</th><th scope="col">{{ t.settings.recordType }}</th>
      <th scope="col">{{ t.settings.recordName }}</th><th scope="col">{{ t.settings.recordValue }}</th>
    </tr></thead>
    <tbody>
    {% for r in domain.records %}
    <tr>
      <td>{{ r.record }}</td><td>{{ r.type }}</td>
      <td><code id="record-name-{{ forloop.index }}">{{ r.name }}</code>
        <button type="button" class="secondary" data-copy="record-name-{{ forloop.index }}" data-status="record-status-{{ forloop.index }}" data-copied="{{ t.settings.copied }}" aria-label="{{ t.settings.copy }}: {{ t.settings.recordName }} {{ forloop.index }}" hidden>{{ t.settings.copy }}</button></td>
      <td class="url"><code id="record-value-{{ forloop.index }}">{{ r.value }}</code>
        <button type="button" class="secondary" data-copy="record-value-{{ forloop.index }}" data-status="record-status-{{ forloop.index }}" data-copied="{{ t.settings.copied }}" aria-label="{{ t.settings.copy }}: {{ t.settings.recordValue }} {{ forloop.index }}" hidden>{{ t.settings.copy }}</button>
        <span id="record-status-{{ forloop.index }}" role="status"></span></td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  <div class="actions">
    <form method="post" action="{{ base }}/settings/domain/check"><input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit">{{ t.settings.checkNow }}</button></form>
    <form method="post" action="{{ base }}/settings/domain/remove"><input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit" class="danger">{{ t.settings.removeDomain }}</button></form>
  </div>
  {% elsif canAddDomain %}
  <form class="stack" method="post" action="{{ base }}/settings/domain" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="domain-name">{{ t.settings.domainName }}</label>
      <input id="domain-name" name="domain" type="text" required maxlength="253" value="{{ values.domain }}"
        aria-describedby="domain-name-hint{% if errors.domain %} domain-name-error{% endif %}"{% if errors.domain %} aria-invalid="true"{% endif %} />
      <p class="hint" id="domain-name-hint">{{ t.settings.domainHint }}</p>
      {% render "field-error", id: "domain-name", error: errors.domain %}
    </div>
    <div><button type="submit">{{ t.settings.addDomain }}</button></div>
  </form>
  {% else %}
  <p id="domain-needs-plan">{{ t.settings.domainNeedsPlan | fill: "tier", tierName, "required", requiredTierName }}</p>
  {% if errors.domain %}<p class="field-error" role="alert">{{ errors.domain }}</p>{% endif %}
  {% endif %}

  <h2 id="billing">{{ t.settings.billing }}</h2>
  {% if billing.off %}<p id="billing-message">{{ t.settings.billingOff }}</p>{% else %}
  <p>{{ t.settings.currentPlan | fill: "tier", billing.tier, "status", billing.status }}</p>
  {% if billing.periodEnd %}<p>{{ t.settings.renews }}: <time datetime="{{ billing.periodEnd }}" data-format="date">{{ billing.periodEnd | slice: 0, 10 }}</time>{% if billing.cancelAtPeriodEnd %} · {{ t.settings.cancelsAtEnd }}{% endif %}</p>{% endif %}
  <ul class="plain">
    <li>{{ t.settings.usageSubscribers | fill: "used", billing.subscribers }}</li>
    <li>{{ t.settings.usageEmails | fill: "used", billing.emails }}</li>
  </ul>
  {% if billing.notConfigured %}<p id="billing-message">{{ t.settings.billingNotConfigured }}</p>{% else %}
  <div class="actions">
    {% for plan in billing.plans %}
    <form method="post" action="{{ base }}/settings/billing/checkout">
      <input type="hidden" name="csrf" value="{{ csrf }}" /><input type="hidden" name="price_id" value="{{ plan.priceId }}" />
      <button type="submit">{{ t.settings.upgradeTo | fill: "tier", plan.name }}</button>
    </form>
    {% endfor %}
    <form method="post" action="{{ base }}/settings/billing/portal">
      <input type="hidden" name="csrf" value="{{ csrf }}" /><button type="submit" class="secondary">{{ t.settings.manage }}</button>
    </form>
  </div>
  {% endif %}
  {% endif %}
  {% endif %}
{% endblock %}`
} as const
