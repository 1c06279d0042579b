/** The overview screen's page (overview-screen.ts), in the frame of views.ts. */
export const overviewViews = {
  overview: `{% layout "app" %}{% block title %}{{ t.overview.title }}{% endblock %}{% block content %}
  <h1>{{ t.overview.title }}</h1>
  <div class="cards">
    <div class="card"><div class="label">{{ t.overview.subscribers }}</div>
      <div class="figure">{{ figures.subscribers }}</div>
      <div class="label">{{ t.overview.plan }}: {{ t.overview.tiers[figures.tier] }} · {{ t.overview.members }}: {{ figures.members }}</div></div>
    <section class="card" aria-labelledby="card-status">
      <h2 class="label" id="card-status">{{ t.overview.byStatus }}</h2>
      <ul class="plain figures">
        {% for s in figures.byStatus %}<li><span>{{ t.overview.statuses[s.status] }}</span> <span class="number">{{ s.count }}</span></li>{% endfor %}
      </ul>
    </section>
    <section class="card" aria-labelledby="card-usage">
      <h2 class="label" id="card-usage">{{ t.overview.usage }}</h2>
      <p>{{ t.overview.plan }}: <strong>{{ t.overview.tiers[figures.tier] }}</strong></p>
      {% for u in figures.usage %}
      <div class="usage">
        <div id="usage-{{ u.key }}">{{ u.label }}</div>
        {% if u.limit %}
        <meter min="0" max="{{ u.max }}" value="{{ u.value }}" low="{{ u.low }}" high="{{ u.high }}" optimum="0" aria-labelledby="usage-{{ u.key }}"></meter>
        <div class="label">{{ t.overview.ofLimit | fill: "used", u.used, "limit", u.limit }}</div>
        {% else %}
        <div class="label">{{ t.overview.noLimit | fill: "used", u.used }}</div>
        {% endif %}
      </div>
      {% endfor %}
    </section>
  </div>

  <h2 id="growth-title">{{ t.overview.growth }}</h2>
  <figure class="chart">
    <svg viewBox="0 0 {{ chart.width }} {{ chart.height }}" role="img" aria-labelledby="growth-title" preserveAspectRatio="none" focusable="false">
      <line class="axis" x1="0" y1="{{ chart.baseline }}" x2="{{ chart.width }}" y2="{{ chart.baseline }}" />
      {% for bar in chart.bars %}<rect class="bar" x="{{ bar.x }}" y="{{ bar.y }}" width="{{ bar.width }}" height="{{ bar.height }}"><title>{{ t.overview.bar | fill: "day", bar.label, "count", bar.count }}</title></rect>{% endfor %}
    </svg>
    <figcaption class="note">{{ t.overview.growthNote | fill: "zone", figures.timeZone, "max", chart.max }}</figcaption>
  </figure>
  <table class="visually-hidden">
    <caption>{{ t.overview.growth }}</caption>
    <thead><tr><th scope="col">{{ t.overview.day }}</th><th scope="col">{{ t.overview.newSubscribers }}</th></tr></thead>
    <tbody>{% for bar in chart.bars %}<tr><td>{{ bar.label }}</td><td>{{ bar.count }}</td></tr>{% endfor %}</tbody>
  </table>

  <h2>{{ t.overview.sending }}</h2>
  {% if figures.sending.size == 0 %}<p class="note">{{ t.overview.noneSending }}</p>{% else %}
  <ul class="plain" id="sending">
    {% for c in figures.sending %}<li>{{ c.name }}{% if c.startedAt %} · <span class="note">{{ t.overview.started }} <time datetime="{{ c.startedAt }}">{{ c.startedAt | slice: 0, 16 | replace: "T", " " }}</time></span>{% endif %}</li>{% endfor %}
  </ul>
  {% endif %}

  {% if figures.failing %}
  <h2 id="failing-title">{{ t.overview.failing }}</h2>
  {% if figures.failing.size == 0 %}<p class="note">{{ t.overview.noneFailing }}</p>{% else %}
  <div class="table-wrap" tabindex="0" role="region" aria-labelledby="failing-title">
  <table id="failing-endpoints">
    <thead><tr><th scope="col">{{ t.overview.url }}</th><th scope="col" class="number">{{ t.overview.failures }}</th><th scope="col">{{ t.overview.state }}</th></tr></thead>
    <tbody>
    {% for e in figures.failing %}
    <tr><td class="url">{{ e.url }}</td><td class="number">{{ e.failures }}</td>
      <td>{% if e.failingSince %}{{ t.overview.failingSince }} <time datetime="{{ e.failingSince }}">{{ e.failingSince | slice: 0, 16 | replace: "T", " " }}</time>{% else %}{{ t.overview.disabledForFailing }}{% endif %}</td></tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% endif %}
  {% endif %}
{% endblock %}`
} as const
