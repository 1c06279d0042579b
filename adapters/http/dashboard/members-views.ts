/** The members screen's pages (members-screen.ts), in the frame of views.ts. */
export const membersViews = {
  members: `{% layout "app" %}{% block title %}{{ t.members.title }}{% endblock %}{% block content %}
  <h1>{{ t.members.title }}</h1>
  <p class="note">{{ t.members.intro }}</p>
  <div class="table-wrap" tabindex="0" role="region" aria-label="{{ t.members.total | fill: "count", total }}">
  <table>
    <caption class="visually-hidden">{{ t.members.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.members.email }}</th><th scope="col">{{ t.members.role }}</th>
      <th scope="col">{{ t.members.since }}</th><th scope="col">{{ t.members.actions }}</th>
    </tr></thead>
    <tbody>
    {% for member in members %}
    <tr>
      <td class="email">{{ member.email }}{% if member.self %} {{ t.members.you }}{% endif %}</td>
      <td>{% if isOwner %}
        <form method="post" action="{{ base }}/members/{{ member.userId }}/role" class="inline">
          <input type="hidden" name="csrf" value="{{ csrf }}" />
          <select id="role-{{ member.userId }}" name="role" aria-label="{{ t.members.roleOf | fill: "email", member.email }}"
            {% if member.roleError %}aria-invalid="true" aria-describedby="role-{{ member.userId }}-error"{% endif %}>
            <option value="owner"{% if member.role == "owner" %} selected{% endif %}>{{ t.role.owner }}</option>
            <option value="member"{% if member.role == "member" %} selected{% endif %}>{{ t.role.member }}</option>
          </select>
          <button type="submit" class="secondary" aria-label="{{ t.members.changeRole }}: {{ member.email }}">{{ t.members.changeRole }}</button>
        </form>
        {% assign roleId = "role-" | append: member.userId %}{% render "field-error", id: roleId, error: member.roleError %}
      {% else %}{{ t.role[member.role] }}{% endif %}</td>
      <td><time datetime="{{ member.since }}" data-format="date">{{ member.since | slice: 0, 10 }}</time></td>
      <td class="actions">{% if member.self %}
        <a href="{{ base }}/members/{{ member.userId }}/remove">{{ t.members.leave }}</a>
      {% elsif isOwner %}
        <a href="{{ base }}/members/{{ member.userId }}/remove" aria-label="{{ t.members.remove }}: {{ member.email }}">{{ t.members.remove }}</a>
      {% endif %}</td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% if isOwner %}
  <h2 id="invite">{{ t.members.inviteTitle }}</h2>
  <form class="stack" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <p class="hint">{{ t.members.inviteHint }}</p>
    <div>
      <label for="invite-email">{{ t.members.email }}</label>
      <input id="invite-email" name="email" type="email" autocomplete="off" required value="{{ values.email }}"
        {% if errors.email %}aria-invalid="true" aria-describedby="invite-email-error"{% endif %} />
      {% render "field-error", id: "invite-email", error: errors.email %}
    </div>
    <div>
      <label for="invite-role">{{ t.members.role }}</label>
      <select id="invite-role" name="role"{% if errors.role %} aria-invalid="true" aria-describedby="invite-role-error"{% endif %}>
        <option value="member"{% if values.role != "owner" %} selected{% endif %}>{{ t.role.member }}</option>
        <option value="owner"{% if values.role == "owner" %} selected{% endif %}>{{ t.role.owner }}</option>
      </select>
      {% render "field-error", id: "invite-role", error: errors.role %}
    </div>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div class="actions"><button type="submit">{{ t.members.invite }}</button></div>
  </form>
  {% endif %}
{% endblock %}`,

  "member-remove": `{% layout "app" %}{% block title %}{% if self %}{{ t.members.leaveTitle | fill: "organization", organization.name }}{% else %}{{ t.members.removeTitle | fill: "email", member.email }}{% endif %}{% endblock %}{% block content %}
  {% if self %}
  <h1>{{ t.members.leaveTitle | fill: "organization", organization.name }}</h1>
  <p>{{ t.members.leaveConsequence | fill: "organization", organization.name }}</p>
  {% else %}
  <h1>{{ t.members.removeTitle | fill: "email", member.email }}</h1>
  <p>{{ t.members.removeConsequence | fill: "email", member.email, "organization", organization.name }}</p>
  {% endif %}
  <form method="post" action="{{ action }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit" class="danger"{% if error %} aria-describedby="remove-error"{% endif %}>{% if self %}{{ t.members.leaveConfirm }}{% else %}{{ t.members.removeConfirm }}{% endif %}</button>
    <a href="{{ cancel }}">{{ t.members.cancel }}</a>
  </form>
  {% if error %}<p class="field-error" id="remove-error" role="alert">{{ error }}</p>{% endif %}
{% endblock %}`
} as const
