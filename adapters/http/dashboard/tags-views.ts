/** The tags screen's pages (tags-screen.ts), in the frame of views.ts. */
export const tagsViews = {
  tags: `{% layout "app" %}{% block title %}{{ t.tags.title }}{% endblock %}{% block content %}
  <h1>{{ t.tags.title }}</h1>
  <p class="note">{{ t.tags.intro }}</p>
  {% if tags.size == 0 %}<p>{{ t.tags.none }}</p>{% else %}
  <div class="table-wrap">
  <table>
    <caption class="visually-hidden">{{ t.tags.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.tags.name }}</th><th scope="col">{{ t.tags.description }}</th>
      <th scope="col">{{ t.tags.visibility }}</th><th scope="col" class="number">{{ t.tags.subscribers }}</th>
      <th scope="col">{{ t.tags.created }}</th><th scope="col">{{ t.tags.actions }}</th>
    </tr></thead>
    <tbody>
    {% for tag in tags %}
    <tr>
      <td>{{ tag.name }}</td>
      <td>{{ tag.description }}</td>
      <td>{% if tag.visibility == "public" %}{{ t.tags.public }}{% else %}{{ t.tags.private }}{% endif %}</td>
      <td class="number">{{ tag.subscriberCount }}</td>
      <td><time datetime="{{ tag.createdAt }}" data-format="date">{{ tag.createdAt | slice: 0, 10 }}</time></td>
      <td class="actions">
        <a href="{{ base }}/tags/{{ tag.id }}/edit" aria-label="{{ t.tags.edit }}: {{ tag.name }}">{{ t.tags.edit }}</a>
        <a href="{{ base }}/tags/{{ tag.id }}/delete" aria-label="{{ t.tags.delete }}: {{ tag.name }}">{{ t.tags.delete }}</a>
      </td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% endif %}
  <h2 id="new-tag">{{ t.tags.createTitle }}</h2>
  {% render "tag-form", t: t, csrf: csrf, action: newTagAction, values: values, errors: errors, submit: t.tags.create, cancel: "" %}
{% endblock %}`,

  "tag-form": `<form class="stack" method="post" action="{{ action }}" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="tag-name">{{ t.tags.name }}</label>
      <input id="tag-name" name="name" type="text" required maxlength="100" value="{{ values.name }}"
        {% if errors.name %}aria-invalid="true" aria-describedby="tag-name-error"{% endif %} />
      {% render "field-error", id: "tag-name", error: errors.name %}
    </div>
    <div>
      <label for="tag-description">{{ t.tags.description }}</label>
      <textarea id="tag-description" name="description" rows="2" maxlength="500"
        {% if errors.description %}aria-invalid="true" aria-describedby="tag-description-error"{% endif %}>{{ values.description }}</textarea>
      {% render "field-error", id: "tag-description", error: errors.description %}
    </div>
    <fieldset>
      <legend>{{ t.tags.visibility }}</legend>
      <label><input type="radio" name="visibility" value="public"{% if values.visibility != "private" %} checked{% endif %} /> {{ t.tags.public }}</label>
      <label><input type="radio" name="visibility" value="private"{% if values.visibility == "private" %} checked{% endif %} /> {{ t.tags.private }}</label>
    </fieldset>
    {% if errors.form %}<p class="field-error" role="alert">{{ errors.form }}</p>{% endif %}
    <div class="actions"><button type="submit">{{ submit }}</button>{% if cancel != "" %}<a href="{{ cancel }}">{{ t.tags.cancel }}</a>{% endif %}</div>
  </form>`,

  "tag-edit": `{% layout "app" %}{% block title %}{{ t.tags.editTitle | fill: "name", tag.name }}{% endblock %}{% block content %}
  <h1>{{ t.tags.editTitle | fill: "name", tag.name }}</h1>
  {% render "tag-form", t: t, csrf: csrf, action: action, values: values, errors: errors, submit: t.tags.save, cancel: cancel %}
{% endblock %}`
} as const
