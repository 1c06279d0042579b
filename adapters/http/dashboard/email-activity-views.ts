/** The email activity screen's page (email-activity-screen.ts), in the frame of views.ts. */
export const emailActivityViews = {
  "email-activity": `{% layout "app" %}{% block title %}{{ t.emailActivity.title }}{% endblock %}{% block content %}
  <h1>{{ t.emailActivity.title }}</h1>
  <p class="note">{{ t.emailActivity.intro }}</p>
  <p><a href="{{ base }}/settings">{{ t.emailActivity.settingsLink }}</a></p>
  {% if reports.size == 0 %}<p>{{ t.emailActivity.none }}</p>{% else %}
  <div class="table-wrap" role="region" tabindex="0" aria-label="{{ t.emailActivity.caption }}">
  <table>
    <caption class="visually-hidden">{{ t.emailActivity.caption }}</caption>
    <thead><tr>
      <th scope="col">{{ t.emailActivity.when }}</th><th scope="col">{{ t.emailActivity.kind }}</th>
      <th scope="col">{{ t.emailActivity.subscriber }}</th><th scope="col">{{ t.emailActivity.change }}</th>
    </tr></thead>
    <tbody>
    {% for report in reports %}
    <tr>
      <td><time datetime="{{ report.at }}">{{ report.at | slice: 0, 16 | replace: "T", " " }}</time></td>
      <td>{{ t.emailActivity.kinds[report.status] }}</td>
      <td class="email">{% if report.email != "" %}<a href="{{ base }}/subscribers/{{ report.subscriberId }}">{{ report.email }}</a>{% else %}{{ t.emailActivity.erased }}{% endif %}</td>
      <td>{{ t.emailActivity.statusTo | fill: "status", report.statusName }}</td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% endif %}
  {% if newest != "" or older != "" %}
  <nav class="actions pages" aria-label="{{ t.emailActivity.pages }}">
    {% if newest != "" %}<a href="{{ newest }}">{{ t.emailActivity.newest }}</a>{% endif %}
    {% if older != "" %}<a href="{{ older }}">{{ t.emailActivity.older }}</a>{% endif %}
  </nav>
  {% endif %}
{% endblock %}`
} as const
