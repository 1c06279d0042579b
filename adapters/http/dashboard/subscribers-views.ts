/** The subscribers screen's pages (subscribers-screen.ts), in the frame of views.ts. */
export const subscribersViews = {
  subscribers: `{% layout "app" %}{% block title %}{{ t.subscribers.title }}{% endblock %}{% block content %}
  <h1>{{ t.subscribers.title }}</h1>
  <form class="filters" method="get" action="{{ listAction }}" role="search"
    hx-get="{{ listAction }}" hx-trigger="input changed delay:300ms, search" hx-target="#subscriber-results" hx-push-url="true">
    <div class="wide">
      <label for="subscriber-search">{{ t.subscribers.search }}</label>
      <input id="subscriber-search" name="search" type="search" maxlength="320" autocomplete="off" value="{{ filters.search }}"
        aria-describedby="subscriber-search-hint" />
      <p class="hint" id="subscriber-search-hint">{{ t.subscribers.searchHint }}</p>
    </div>
    <div>
      <label for="subscriber-status">{{ t.subscribers.status }}</label>
      <select id="subscriber-status" name="status">
        <option value="">{{ t.subscribers.anyStatus }}</option>
        {% for status in statuses %}<option value="{{ status }}"{% if status == filters.status %} selected{% endif %}>{{ t.subscribers.statuses[status] }}</option>{% endfor %}
      </select>
    </div>
    <div>
      <label for="subscriber-tag">{{ t.subscribers.tag }}</label>
      <select id="subscriber-tag" name="tag">
        <option value="">{{ t.subscribers.anyTag }}</option>
        {% for tag in tags %}<option value="{{ tag.id }}"{% if tag.id == filters.tag %} selected{% endif %}>{{ tag.name }}</option>{% endfor %}
      </select>
    </div>
    <div class="submit"><button type="submit" class="secondary">{{ t.subscribers.show }}</button></div>
  </form>
  <div id="subscriber-results">{% include "subscriber-results" %}</div>
{% endblock %}`,

  "subscriber-results": `<p class="note" id="subscriber-count">{% if totalCapped %}{{ t.subscribers.totalCapped }}{% else %}{{ t.subscribers.total | fill: "count", total }}{% endif %}</p>
  {% if errors.search %}<p class="field-error" role="alert">{{ errors.search }}</p>{% endif %}
  {% if rows.size == 0 %}<p>{% if filtered %}{{ t.subscribers.none }}{% else %}{{ t.subscribers.noneYet }}{% endif %}</p>{% else %}
  <form method="post" action="{{ bulkAction }}">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <input type="hidden" name="back" value="{{ query }}" />
    <div class="table-wrap">
    <table>
      <caption class="visually-hidden">{{ t.subscribers.title }}</caption>
      <thead><tr>
        <th scope="col"><span class="visually-hidden">{{ t.subscribers.selection }}</span></th>
        <th scope="col">{{ t.subscribers.email }}</th><th scope="col">{{ t.subscribers.status }}</th>
        <th scope="col">{{ t.subscribers.tags }}</th><th scope="col">{{ t.subscribers.created }}</th>
      </tr></thead>
      <tbody>
      {% for row in rows %}
      <tr>
        <td><input type="checkbox" name="id" value="{{ row.id }}" aria-label="{{ t.subscribers.select | fill: "email", row.email }}" /></td>
        <td class="email"><a href="{{ base }}/subscribers/{{ row.id }}">{{ row.email }}</a></td>
        <td>{{ t.subscribers.statuses[row.status] }}</td>
        <td>{% for tag in row.tags %}<span class="badge">{{ tag }}</span> {% endfor %}</td>
        <td><time datetime="{{ row.createdAt }}">{{ row.createdAt | slice: 0, 10 }}</time></td>
      </tr>
      {% endfor %}
      </tbody>
    </table>
    </div>
    <fieldset class="filters bulk">
      <legend>{{ t.subscribers.bulkTitle }}</legend>
      <div>
        <label for="bulk-action">{{ t.subscribers.action }}</label>
        <select id="bulk-action" name="action">
          <option value="">{{ t.subscribers.chooseAction }}</option>
          {% for action in bulkActions %}<option value="{{ action }}">{{ t.subscribers.actions[action] }}</option>{% endfor %}
        </select>
      </div>
      <div>
        <label for="bulk-tag">{{ t.subscribers.bulkTag }}</label>
        <select id="bulk-tag" name="tag">
          <option value="">{{ t.subscribers.chooseTag }}</option>
          {% for tag in tags %}<option value="{{ tag.id }}">{{ tag.name }}</option>{% endfor %}
        </select>
      </div>
      <div class="submit"><button type="submit">{{ t.subscribers.review }}</button></div>
    </fieldset>
  </form>
  {% endif %}
  {% if firstPage or nextPage %}
  <nav class="actions pages" aria-label="{{ t.subscribers.pages }}">
    {% if firstPage %}<a href="{{ firstPage }}">{{ t.subscribers.firstPage }}</a>{% endif %}
    {% if nextPage %}<a href="{{ nextPage }}">{{ t.subscribers.nextPage }}</a>{% endif %}
  </nav>
  {% endif %}`,

  "subscribers-confirm": `{% layout "app" %}{% block title %}{{ question }}{% endblock %}{% block content %}
  <h1>{{ question }}</h1>
  <p>{{ t.subscribers.consequence[action] }}</p>
  <ul class="selected">{% for row in rows %}<li>{{ row.email }}</li>{% endfor %}</ul>
  <form method="post" action="{{ confirmAction }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <input type="hidden" name="action" value="{{ action }}" />
    <input type="hidden" name="tag" value="{{ tag }}" />
    <input type="hidden" name="back" value="{{ back }}" />
    {% for row in rows %}<input type="hidden" name="id" value="{{ row.id }}" />{% endfor %}
    <button type="submit"{% if action == "delete" %} class="danger"{% endif %}>{{ t.subscribers.confirmButton }}</button>
    <a href="{{ cancel }}">{{ t.subscribers.cancel }}</a>
  </form>
{% endblock %}`,

  subscriber: `{% layout "app" %}{% block title %}{{ subscriber.email }}{% endblock %}{% block content %}
  <p><a href="{{ base }}/subscribers">{{ t.subscribers.allSubscribers }}</a></p>
  <h1 class="email">{{ subscriber.email }}</h1>
  <h2>{{ t.subscribers.profile }}</h2>
  <dl class="facts">
    <dt>{{ t.subscribers.status }}</dt><dd id="subscriber-status-now">{{ t.subscribers.statuses[subscriber.status] }}</dd>
    {% if subscriber.firstName != "" %}<dt>{{ t.subscribers.firstName }}</dt><dd>{{ subscriber.firstName }}</dd>{% endif %}
    {% if subscriber.lastName != "" %}<dt>{{ t.subscribers.lastName }}</dt><dd>{{ subscriber.lastName }}</dd>{% endif %}
    <dt>{{ t.subscribers.created }}</dt><dd><time datetime="{{ subscriber.createdAt }}">{{ subscriber.createdAt }}</time></dd>
    <dt>{{ t.subscribers.updated }}</dt><dd><time datetime="{{ subscriber.updatedAt }}">{{ subscriber.updatedAt }}</time></dd>
  </dl>
  {% if moves.size == 0 %}<p>{{ t.subscribers.noMoves }}</p>{% else %}
  <form class="filters" method="post" action="{{ href }}/status" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="status-to">{{ t.subscribers.moveTo }}</label>
      <select id="status-to" name="status"{% if errors.status %} aria-invalid="true" aria-describedby="status-to-error"{% endif %}>
        {% for move in moves %}<option value="{{ move }}">{{ t.subscribers.statuses[move] }}</option>{% endfor %}
      </select>
      {% render "field-error", id: "status-to", error: errors.status %}
    </div>
    <div class="submit"><button type="submit">{{ t.subscribers.changeStatus }}</button></div>
  </form>
  {% endif %}

  <h2>{{ t.subscribers.tags }}</h2>
  {% if subscriber.tags.size == 0 %}<p>{{ t.subscribers.noTags }}</p>{% else %}
  <ul class="chips">
    {% for tag in subscriber.tags %}
    <li><span>{{ tag.name }}</span>
      <form method="post" action="{{ href }}/tags/{{ tag.id }}/remove">
        <input type="hidden" name="csrf" value="{{ csrf }}" />
        <button type="submit" class="link" aria-label="{{ t.subscribers.removeTagLabel | fill: "name", tag.name }}">{{ t.subscribers.removeTag }}</button>
      </form>
    </li>
    {% endfor %}
  </ul>
  {% endif %}
  {% if addable.size == 0 %}{% if hasTags %}<p class="note">{{ t.subscribers.noTagsToAdd }}</p>{% endif %}{% else %}
  <form class="filters" method="post" action="{{ href }}/tags" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="add-tag">{{ t.subscribers.tag }}</label>
      <select id="add-tag" name="tag">{% for tag in addable %}<option value="{{ tag.id }}">{{ tag.name }}</option>{% endfor %}</select>
    </div>
    <div class="submit"><button type="submit" class="secondary">{{ t.subscribers.addTag }}</button></div>
  </form>
  {% endif %}

  <h2>{{ t.subscribers.metadata }}</h2>
  <form class="stack" method="post" action="{{ href }}/metadata" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="subscriber-metadata">{{ t.subscribers.metadata }}</label>
      <textarea id="subscriber-metadata" name="metadata" rows="6" spellcheck="false" class="code"
        aria-describedby="subscriber-metadata-hint{% if errors.metadata %} subscriber-metadata-error{% endif %}"{% if errors.metadata %} aria-invalid="true"{% endif %}>{{ values.metadata }}</textarea>
      <p class="hint" id="subscriber-metadata-hint">{{ t.subscribers.metadataHint }}</p>
      {% render "field-error", id: "subscriber-metadata", error: errors.metadata %}
    </div>
    <div><button type="submit" class="secondary">{{ t.subscribers.saveMetadata }}</button></div>
  </form>

  <h2>{{ t.subscribers.notes }}</h2>
  {% if notes.size == 0 %}<p>{{ t.subscribers.noNotes }}</p>{% else %}
  <ul class="notes">
    {% for note in notes %}
    <li>
      <p class="body">{{ note.body }}</p>
      <div class="actions">
        <time datetime="{{ note.createdAt }}">{{ note.createdAt }}</time>
        <a href="{{ href }}/notes/{{ note.id }}/edit" aria-label="{{ t.subscribers.editNoteLabel | fill: "date", note.label }}">{{ t.subscribers.editNote }}</a>
        <form method="post" action="{{ href }}/notes/{{ note.id }}/delete">
          <input type="hidden" name="csrf" value="{{ csrf }}" />
          <button type="submit" class="link" aria-label="{{ t.subscribers.deleteNoteLabel | fill: "date", note.label }}">{{ t.subscribers.deleteNote }}</button>
        </form>
      </div>
    </li>
    {% endfor %}
  </ul>
  {% endif %}
  {% render "note-form", t: t, csrf: csrf, action: noteAction, value: values.note, error: errors.note, label: t.subscribers.newNote, submit: t.subscribers.addNote, cancel: "" %}

  {% if preference %}
  <h2>{{ t.subscribers.preferenceLink }}</h2>
  <p class="hint" id="preference-link-hint">{{ t.subscribers.preferenceHint }} <time datetime="{{ preference.expiresAt }}">{{ preference.expiresAt }}</time>.</p>
  <div class="copy">
    <label for="preference-link" class="visually-hidden">{{ t.subscribers.preferenceLink }}</label>
    <input id="preference-link" type="text" readonly value="{{ preference.url }}" aria-describedby="preference-link-hint" />
    <button type="button" class="secondary" data-copy="preference-link" data-status="preference-link-status" data-copied="{{ t.subscribers.copied }}" hidden>{{ t.subscribers.copy }}</button>
    <span id="preference-link-status" role="status"></span>
  </div>
  {% endif %}

  {% if emails %}
  <h2>{{ t.subscribers.emails }}</h2>
  {% if emails.size == 0 %}<p>{{ t.subscribers.noEmails }}</p>{% else %}
  <div class="table-wrap">
  <table>
    <caption class="visually-hidden">{{ t.subscribers.emails }}</caption>
    <thead><tr><th scope="col">{{ t.subscribers.subject }}</th><th scope="col">{{ t.subscribers.status }}</th><th scope="col">{{ t.subscribers.created }}</th></tr></thead>
    <tbody>
    {% for email in emails %}
    <tr><td>{{ email.subject }}</td><td>{{ t.subscribers.messageStatuses[email.status] }}</td><td><time datetime="{{ email.createdAt }}">{{ email.createdAt }}</time></td></tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% endif %}
  {% endif %}

  <h2 id="history">{{ t.subscribers.history.title }}</h2>
  <p class="hint">{{ t.subscribers.history.intro }}</p>
  {% if history.rows.size == 0 %}<p>{{ t.subscribers.history.none }}</p>{% else %}
  <div class="table-wrap" role="region" tabindex="0" aria-labelledby="history">
  <table class="history">
    <caption class="visually-hidden">{{ t.subscribers.history.title }}</caption>
    <thead><tr><th scope="col">{{ t.subscribers.history.when }}</th><th scope="col">{{ t.subscribers.history.event }}</th><th scope="col">{{ t.subscribers.history.detail }}</th></tr></thead>
    <tbody>
    {% for row in history.rows %}
    <tr><td><time datetime="{{ row.occurredAt }}">{{ row.occurredAt }}</time></td><td>{{ row.kind }}</td><td class="detail">{{ row.detail }}</td></tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% endif %}
  {% if history.newer or history.older %}
  <nav class="actions pages" aria-label="{{ t.subscribers.history.pages }}">
    {% if history.newer %}<a href="{{ history.newer }}">{{ t.subscribers.history.newest }}</a>{% endif %}
    {% if history.older %}<a href="{{ history.older }}" rel="next">{{ t.subscribers.history.older }}</a>{% endif %}
  </nav>
  {% endif %}

  <h2>{{ t.subscribers.exportTitle }}</h2>
  <p class="hint" id="subscriber-export-hint">{{ t.subscribers.exportHint }}</p>
  <p><a href="{{ exportHref }}" download aria-describedby="subscriber-export-hint">{{ t.subscribers.exportLink }}</a></p>

  <h2>{{ t.subscribers.erase }}</h2>
  <p><a href="{{ href }}/delete">{{ t.subscribers.erase }}</a></p>
{% endblock %}`,

  "note-form": `<form class="stack" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="note-body">{{ label }}</label>
      <textarea id="note-body" name="body" rows="3" maxlength="10000"
        {% if error %}aria-invalid="true" aria-describedby="note-body-error"{% endif %}>{{ value }}</textarea>
      {% render "field-error", id: "note-body", error: error %}
    </div>
    <div class="actions"><button type="submit" class="secondary">{{ submit }}</button>{% if cancel != "" %}<a href="{{ cancel }}">{{ t.subscribers.cancel }}</a>{% endif %}</div>
  </form>`,

  "subscriber-note": `{% layout "app" %}{% block title %}{{ t.subscribers.editNoteTitle }}{% endblock %}{% block content %}
  <h1>{{ t.subscribers.editNoteTitle }}</h1>
  <p class="email">{{ email }}</p>
  {% render "note-form", t: t, csrf: csrf, action: action, value: value, error: error, label: t.subscribers.notes, submit: t.subscribers.save, cancel: cancel %}
{% endblock %}`,

  "subscriber-delete": `{% layout "app" %}{% block title %}{{ t.subscribers.eraseTitle | fill: "email", email }}{% endblock %}{% block content %}
  <h1 class="email">{{ t.subscribers.eraseTitle | fill: "email", email }}</h1>
  <p>{{ t.subscribers.eraseConsequence }}</p>
  <form method="post" action="{{ action }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit" class="danger">{{ t.subscribers.erase }}</button>
    <a href="{{ cancel }}">{{ t.subscribers.cancel }}</a>
  </form>
{% endblock %}`
} as const
