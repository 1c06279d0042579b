/** The import and export screen's pages (imports-screen.ts), in the frame of views.ts. */
export const importsViews = {
  imports: `{% layout "app" %}{% block title %}{{ t.imports.title }}{% endblock %}{% block content %}
  <h1>{{ t.imports.title }}</h1>
  <h2 id="upload">{{ t.imports.uploadTitle }}</h2>
  <p class="note">{{ t.imports.uploadIntro }}</p>
  <form class="stack" method="post" action="{{ uploadAction }}" enctype="multipart/form-data" novalidate>
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <div>
      <label for="import-file">{{ t.imports.file }}</label>
      <input id="import-file" name="file" type="file" accept=".csv,text/csv" required
        aria-describedby="import-file-hint{% if errors.file %} import-file-error{% endif %}"{% if errors.file %} aria-invalid="true"{% endif %} />
      <p class="hint" id="import-file-hint">{{ t.imports.fileHint | fill: "size", maxSize }}</p>
      {% render "field-error", id: "import-file", error: errors.file %}
    </div>
    <div><button type="submit">{{ t.imports.upload }}</button></div>
  </form>

  <h2 id="imports">{{ t.imports.listTitle }}</h2>
  {% if imports.size == 0 %}<p>{{ t.imports.none }}</p>{% else %}
  <div class="table-wrap" role="region" tabindex="0" aria-labelledby="imports">
  <table>
    <caption class="visually-hidden">{{ t.imports.total | fill: "count", total }}</caption>
    <thead><tr>
      <th scope="col">{{ t.imports.fileName }}</th><th scope="col">{{ t.imports.status }}</th>
      <th scope="col" class="number">{{ t.imports.rows }}</th><th scope="col" class="number">{{ t.imports.createdCount }}</th>
      <th scope="col" class="number">{{ t.imports.problems }}</th><th scope="col">{{ t.imports.createdAt }}</th>
    </tr></thead>
    <tbody>
    {% for job in imports %}
    <tr>
      <td><a href="{{ job.href }}">{% if job.fileName == "" %}{{ t.imports.unnamed }}{% else %}{{ job.fileName }}{% endif %}</a></td>
      <td>{{ t.imports.statuses[job.status] }}</td>
      <td class="number">{{ job.rows }}</td>
      <td class="number">{{ job.created }}</td>
      <td class="number">{{ job.problems }}</td>
      <td><time datetime="{{ job.createdAt }}">{{ job.createdAt | slice: 0, 16 | replace: "T", " " }}</time></td>
    </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% render "pages", texts: t.imports, previous: previous, next: next, pageNumber: pageNumber, totalPages: totalPages %}
  {% endif %}

  <h2 id="export">{{ t.imports.exportTitle }}</h2>
  <p class="note">{{ t.imports.exportIntro }}</p>
  <form class="stack" method="get" action="{{ exportAction }}" novalidate>
    <div>
      <label for="export-status">{{ t.imports.exportStatus }}</label>
      <select id="export-status" name="status"{% if errors.status %} aria-invalid="true" aria-describedby="export-status-error"{% endif %}>
        <option value="">{{ t.imports.anyStatus }}</option>
        {% for s in statuses %}<option value="{{ s }}"{% if values.status == s %} selected{% endif %}>{{ t.imports.subscriberStatuses[s] }}</option>{% endfor %}
      </select>
      {% render "field-error", id: "export-status", error: errors.status %}
    </div>
    <div>
      <label for="export-tag">{{ t.imports.exportTag }}</label>
      <input id="export-tag" name="tag" type="text" maxlength="100" value="{{ values.tag }}"
        aria-describedby="export-tag-hint{% if errors.tag %} export-tag-error{% endif %}"{% if errors.tag %} aria-invalid="true"{% endif %} />
      <p class="hint" id="export-tag-hint">{{ t.imports.exportTagHint }}</p>
      {% render "field-error", id: "export-tag", error: errors.tag %}
    </div>
    <div><button type="submit">{{ t.imports.exportSubmit }}</button></div>
  </form>
{% endblock %}`,

  "import-preview": `{% layout "app" %}{% block title %}{{ t.imports.previewTitle | fill: "name", fileName }}{% endblock %}{% block content %}
  <h1>{{ t.imports.previewTitle | fill: "name", fileName }}</h1>
  <p>{{ t.imports.previewSummary | fill: "rows", rowCountText, "size", size }}</p>
  {% if failure != "" %}<p class="field-error" role="alert">{{ t.imports.previewBreaks | fill: "problem", failure }}</p>{% endif %}
  <h2 id="mapping">{{ t.imports.mappingTitle }}</h2>
  <div class="table-wrap" role="region" tabindex="0" aria-labelledby="mapping">
  <table>
    <caption class="visually-hidden">{{ t.imports.mappingTitle }}</caption>
    <thead><tr><th scope="col">{{ t.imports.column }}</th><th scope="col">{{ t.imports.readAs }}</th></tr></thead>
    <tbody>
    {% for c in columns %}
    <tr><td>{{ c.name }}</td><td>{% if c.target == "" %}<span class="badge">{{ t.imports.notImported }}</span>{% else %}<code>{{ c.target }}</code>{% endif %}</td></tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% if unknown != "" %}<p class="note">{{ t.imports.unknownColumns | fill: "names", unknown }}</p>{% endif %}
  <h2 id="first-rows">{{ t.imports.firstRows | fill: "count", rows.size }}</h2>
  {% if rows.size == 0 %}<p>{{ t.imports.noRows }}</p>{% else %}
  <div class="table-wrap" role="region" tabindex="0" aria-labelledby="first-rows">
  <table>
    <caption class="visually-hidden">{{ t.imports.firstRows | fill: "count", rows.size }}</caption>
    <thead><tr><th scope="col" class="number">{{ t.imports.line }}</th>{% for c in columns %}<th scope="col">{{ c.name }}</th>{% endfor %}</tr></thead>
    <tbody>
    {% for row in rows %}
    <tr><td class="number">{{ row.line }}</td>{% for cell in row.cells %}<td>{{ cell }}</td>{% endfor %}</tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% endif %}
  <form class="stack" method="post" action="{{ action }}">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <input type="hidden" name="rows" value="{{ rowCount }}" />
    <div><label><input type="checkbox" name="resubscribe" value="true" /> {{ t.imports.resubscribe }}</label></div>
    <div class="actions"><button type="submit">{{ t.imports.start }}</button></div>
  </form>
  <form method="post" action="{{ discard }}" class="actions">
    <input type="hidden" name="csrf" value="{{ csrf }}" />
    <button type="submit" class="secondary">{{ t.imports.discard }}</button>
    <a href="{{ back }}">{{ t.imports.backToList }}</a>
  </form>
{% endblock %}`,

  import: `{% layout "app" %}{% block title %}{{ t.imports.jobTitle | fill: "name", job.title }}{% endblock %}{% block content %}
  <h1>{{ t.imports.jobTitle | fill: "name", job.title }}</h1>
  <p class="note">{{ t.imports.startedAt }} <time datetime="{{ job.createdAt }}">{{ job.createdAt | slice: 0, 16 | replace: "T", " " }}</time></p>
  {% render "import-progress", t: t, job: job, problems: problems, problemPage: problemPage, problemPages: problemPages,
    previousProblems: previousProblems, nextProblems: nextProblems, poll: poll, problemsDownload: problemsDownload %}
  <p><a href="{{ back }}">{{ t.imports.backToList }}</a></p>
{% endblock %}`,

  "import-progress": `<div id="import-progress"{% if job.running %} hx-get="{{ poll }}" hx-trigger="every 1s" hx-swap="outerHTML"{% endif %}>
    <p><span class="badge">{{ t.imports.statuses[job.status] }}</span></p>
    <div>
      <label for="import-progress-bar">{{ t.imports.progress }}</label>
      <progress id="import-progress-bar"{% if job.bar %} max="{{ job.bar.max }}" value="{{ job.bar.value }}"{% endif %}
        aria-describedby="import-progress-text">{{ job.progressText }}</progress>
      <p id="import-progress-text">{{ job.progressText }}</p>
    </div>
    {% if job.failure != "" %}<p class="field-error" role="alert">{{ t.imports.failed | fill: "problem", job.failure }}</p>{% endif %}
    <dl class="counts">
      <div><dt>{{ t.imports.created }}</dt><dd>{{ job.counts.created }}</dd></div>
      <div><dt>{{ t.imports.updated }}</dt><dd>{{ job.counts.updated }}</dd></div>
      <div><dt>{{ t.imports.unchanged }}</dt><dd>{{ job.counts.unchanged }}</dd></div>
      <div><dt>{{ t.imports.failedCount }}</dt><dd>{{ job.counts.failed }}</dd></div>
    </dl>
    {% if job.ignoredColumns != "" %}<p class="note">{{ t.imports.ignored | fill: "names", job.ignoredColumns }}</p>{% endif %}
    <h2 id="problems">{{ t.imports.problemsTitle }}</h2>
    {% if job.problemsKept == 0 %}<p>{{ t.imports.noProblems }}</p>{% else %}
    {% if job.problemCount > job.problemsKept %}<p class="note">{{ t.imports.problemsKept | fill: "kept", job.problemsKeptText, "count", job.problemCountText }}</p>{% endif %}
    <p><a href="{{ problemsDownload }}" download>{{ t.imports.downloadProblems }}</a></p>
    <div class="table-wrap" role="region" tabindex="0" aria-labelledby="problems">
    <table>
      <caption class="visually-hidden">{{ t.imports.problemsTitle }}</caption>
      <thead><tr>
        <th scope="col" class="number">{{ t.imports.line }}</th><th scope="col">{{ t.imports.field }}</th>
        <th scope="col">{{ t.imports.problem }}</th><th scope="col">{{ t.imports.email }}</th>
      </tr></thead>
      <tbody>
      {% for p in problems %}
      <tr><td class="number">{{ p.lineText }}</td><td><code>{{ p.field }}</code></td><td>{{ p.problem }}</td><td>{{ p.email }}</td></tr>
      {% endfor %}
      </tbody>
    </table>
    </div>
    {% if problemPages > 1 %}
    <nav class="actions" aria-label="{{ t.imports.problemPages }}">
      {% if previousProblems != "" %}<a href="{{ previousProblems }}">{{ t.imports.previous }}</a>{% endif %}
      <span>{{ t.imports.pageOf | fill: "page", problemPage, "pages", problemPages }}</span>
      {% if nextProblems != "" %}<a href="{{ nextProblems }}">{{ t.imports.next }}</a>{% endif %}
    </nav>
    {% endif %}
    {% endif %}
  </div>`
} as const
