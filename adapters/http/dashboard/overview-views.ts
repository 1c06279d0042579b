/** The overview screen's page (overview-screen.ts), in the frame of views.ts. */
export const overviewViews = {
  overview: `{% layout "app" %}{% block title %}{{ t.overview.title }}{% endblock %}{% block content %}
  <h1>{{ t.overview.title }}</h1>
  <div class="cards">
    <div class="card"><div class="label">{{ t.overview.plan }}</div><div class="figure">{{ overview.plan }}</div></div>
    <div class="card"><div class="label">{{ t.overview.subscribers }}</div>
      <div class="figure">{{ overview.subscribers }}</div>
      <div class="label">{{ t.overview.of }} {% if overview.subscriberLimit %}{{ overview.subscriberLimit }}{% else %}{{ t.overview.unlimited }}{% endif %}</div></div>
    <div class="card"><div class="label">{{ t.overview.members }}</div><div class="figure">{{ overview.members }}</div></div>
  </div>
{% endblock %}`,

} as const
