/**
 * The dashboard's script, bundled with htmx by the build (adapters/http/dashboard/assets.ts).
 * Every page works without it; with it, lists update as one types, long work shows its progress
 * without reloading, dates read in the viewer's time zone and keys copy with a button. It runs
 * under a Content-Security-Policy that allows no inline script, style or `eval`.
 */
import htmx from "htmx.org"

htmx.config.includeIndicatorStyles = false
htmx.config.allowEval = false
htmx.config.allowScriptTags = false
// Pages hold subscribers' data: none of it is kept in the browser's storage for the back button.
htmx.config.historyCacheSize = 0
htmx.config.refreshOnHistoryMiss = true

const csrfToken = (): string | undefined =>
  document.querySelector<HTMLMetaElement>("meta[name=csrf-token]")?.content

document.body.addEventListener("htmx:configRequest", (event) => {
  const token = csrfToken()
  const detail = (event as CustomEvent<{ headers: Record<string, string> }>).detail
  if (token !== undefined) detail.headers["X-CSRF-Token"] = token
})

/** Dates and times as the viewer's browser writes them, in the viewer's time zone. */
const localTimes = (root: ParentNode) => {
  const lang = document.documentElement.lang || "en"
  const dateTime = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" })
  const dateOnly = new Intl.DateTimeFormat(lang, { dateStyle: "medium" })
  for (const element of root.querySelectorAll<HTMLTimeElement>("time[datetime]")) {
    const at = new Date(element.dateTime)
    if (Number.isNaN(at.getTime())) continue
    element.textContent = (element.dataset["format"] === "date" ? dateOnly : dateTime).format(at)
    element.title = at.toISOString()
  }
}

/** A button with `data-copy="id"` copies the value or text of that element and says so. */
const copyButtons = (root: ParentNode) => {
  for (const button of root.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    if (button.dataset["ready"] === "yes") continue
    button.dataset["ready"] = "yes"
    button.hidden = false
    button.addEventListener("click", () => {
      const source = document.getElementById(button.dataset["copy"] ?? "")
      const text = source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement
        ? source.value
        : source?.textContent ?? ""
      const status = document.getElementById(button.dataset["status"] ?? "")
      void navigator.clipboard.writeText(text).then(
        () => {
          if (status !== null) status.textContent = button.dataset["copied"] ?? ""
        },
        () => {
          if (source instanceof HTMLInputElement) source.select()
        }
      )
    })
  }
}

/** The viewer's time zone, for figures the server counts by day. */
const rememberTimeZone = () => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (zone && !document.cookie.split("; ").includes(`roster_tz=${encodeURIComponent(zone)}`)) {
    document.cookie = `roster_tz=${encodeURIComponent(zone)}; path=/app; max-age=31536000; samesite=lax`
  }
}


/** A part's problem as the check route answers it. */
interface TemplateProblem {
  readonly message: string
  readonly excerpt: string | null
}

interface TemplateCheck {
  readonly problems: Readonly<Record<string, TemplateProblem | null>>
  readonly fields: Readonly<Record<string, string | null>>
  readonly variables: ReadonlyArray<string>
  readonly preview: {
    readonly note: string
    readonly subject?: string
    readonly text?: string | null
    readonly hasHtml?: boolean
    readonly empty?: string
  }
}

/** A template's preview put in place beside its frame (`tpl-…` the editor's, `campaign-…` the composer's): what it is for, the subject, the text body. */
const showPreview = (prefix: string, preview: TemplateCheck["preview"]) => {
  const set = (id: string, text: string) => {
    const element = document.getElementById(id)
    if (element !== null) element.textContent = text
  }
  set(`${prefix}-preview-note`, preview.note)
  set(`${prefix}-preview-empty`, preview.empty ?? "")
  set(`${prefix}-preview-subject`, preview.subject ?? "")
  const text = document.getElementById(`${prefix}-preview-text`)
  if (text !== null) {
    text.textContent = preview.text ?? (preview.subject === undefined ? "" : text.dataset["none"] ?? "")
  }
}

/**
 * The template editor: as a draft is typed, the server reads it with its own engine and answers
 * each part's problem at its line and column (shown beside the part, with the line itself), the
 * variables the template reads, and the subject and text rendered for the preview's subscriber;
 * the HTML body is rendered into the sandboxed frame by sending the form there.
 */
const templateEditor = (root: ParentNode) => {
  const form = root.querySelector<HTMLFormElement>("form#template-editor[data-check]")
  if (form === null || form.dataset["ready"] === "yes") return
  form.dataset["ready"] = "yes"
  const previewButton = form.querySelector<HTMLButtonElement>("#tpl-preview-button")
  let timer: ReturnType<typeof setTimeout> | undefined
  let asked = 0

  const showProblem = (part: string, problem: TemplateProblem | null, refusal: string | null) => {
    const place = document.getElementById(`tpl-${part}-problem`)
    const input = document.getElementById(`tpl-${part}`)
    if (place === null || input === null) return
    place.replaceChildren()
    const text = refusal ?? problem?.message
    if (text === undefined) {
      input.removeAttribute("aria-invalid")
      input.setAttribute("aria-describedby", "tpl-hint")
      return
    }
    const message = document.createElement("p")
    message.className = "field-error"
    message.id = `tpl-${part}-error`
    message.textContent = text
    place.append(message)
    if (refusal === null && problem?.excerpt) {
      const excerpt = document.createElement("pre")
      excerpt.className = "excerpt"
      excerpt.tabIndex = 0
      excerpt.textContent = problem.excerpt
      place.append(excerpt)
    }
    input.setAttribute("aria-invalid", "true")
    input.setAttribute("aria-describedby", `tpl-hint tpl-${part}-error`)
  }

  const showVariables = (variables: ReadonlyArray<string>) => {
    const list = document.getElementById("tpl-variables")
    if (list === null) return
    const items = variables.map((name) => {
      const item = document.createElement("li")
      const code = document.createElement("code")
      code.textContent = name
      item.append(code)
      return item
    })
    if (items.length === 0) {
      const none = document.createElement("li")
      none.textContent = list.dataset["none"] ?? ""
      items.push(none)
    }
    list.replaceChildren(...items)
  }

  const check = async () => {
    const mine = ++asked
    const body = new URLSearchParams()
    for (const [name, value] of new FormData(form)) if (typeof value === "string") body.append(name, value)
    const token = csrfToken()
    const response = await fetch(form.dataset["check"]!, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: token === undefined ? {} : { "X-CSRF-Token": token }
    })
    if (mine !== asked || !response.ok) return
    const answer = await response.json() as TemplateCheck
    for (const part of ["subject", "html", "text"]) showProblem(part, answer.problems[part] ?? null, answer.fields[part] ?? null)
    showVariables(answer.variables)
    showPreview("tpl", answer.preview)
    if (answer.preview.subject !== undefined && previewButton !== null) form.requestSubmit(previewButton)
  }

  form.addEventListener("input", (event) => {
    if ((event.target as HTMLElement).id === "tpl-name") return
    clearTimeout(timer)
    timer = setTimeout(() => void check().catch(() => undefined), 400)
  })
}

/**
 * A preview's subscriber (`input[data-search]`, the template editor's and the composer's): the
 * addresses that match what is typed, asked of its search route and offered as its list's choices.
 */
const addressSuggestions = (root: ParentNode) => {
  for (const email of root.querySelectorAll<HTMLInputElement>("input[data-search]")) {
    if (email.dataset["ready"] === "yes") continue
    email.dataset["ready"] = "yes"
    const choices = email.list
    let timer: ReturnType<typeof setTimeout> | undefined
    email.addEventListener("input", () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        const query = new URLSearchParams({ q: email.value.trim() })
        void fetch(`${email.dataset["search"]}?${query.toString()}`, { credentials: "same-origin" })
          .then((response) => response.ok ? response.json() as Promise<{ emails: ReadonlyArray<string> }> : { emails: [] })
          .then(({ emails }) => {
            choices?.replaceChildren(...emails.map((address) => {
              const option = document.createElement("option")
              option.value = address
              return option
            }))
          })
          .catch(() => undefined)
      }, 250)
    })
  }
}

/**
 * The campaign composer's preview: the Preview button sends the form into the sandboxed frame,
 * and the same route, asked for JSON, answers the subject and text body shown beside it.
 */
const campaignPreview = (root: ParentNode) => {
  const form = root.querySelector<HTMLFormElement>("form#campaign-form")
  const button = form?.querySelector<HTMLButtonElement>("#campaign-preview-button")
  if (form === null || form === undefined || button === null || button === undefined || form.dataset["previewReady"] === "yes") return
  form.dataset["previewReady"] = "yes"
  let asked = 0
  form.addEventListener("submit", (event) => {
    if (event.submitter !== button) return
    const mine = ++asked
    const body = new URLSearchParams()
    for (const [name, value] of new FormData(form)) if (typeof value === "string") body.append(name, value)
    const token = csrfToken()
    void fetch(button.formAction, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { accept: "application/json", ...(token === undefined ? {} : { "X-CSRF-Token": token }) }
    })
      .then((response) => response.ok ? response.json() as Promise<{ preview: TemplateCheck["preview"] }> : Promise.reject(new Error(String(response.status))))
      .then(({ preview }) => {
        if (mine === asked) showPreview("campaign", preview)
      })
      .catch(() => undefined)
  })
}

/** What `GET .../campaigns/{id}/progress` answers while a campaign sends. */
interface CampaignProgress {
  readonly status: string
  readonly statusText: string
  readonly ended: boolean
  readonly percent: number
  readonly text: string
  readonly figures: Readonly<Record<"recipients" | "sent" | "failed" | "queued", string>>
}

/**
 * A sending campaign's progress follows its emails: its JSON is asked for each second and put in
 * place, and once the sending ends the page is loaded again to show the figures. Without the
 * script, the page's Refresh link does the same by hand.
 */
const followCampaign = (root: ParentNode) => {
  const section = root.querySelector<HTMLElement>("#campaign-progress[data-poll]")
  if (section === null || section.dataset["status"] !== "sending" || section.dataset["following"] === "yes") return
  section.dataset["following"] = "yes"
  const poll = section.dataset["poll"] ?? ""
  const tick = () => {
    void fetch(poll, { headers: { accept: "application/json" }, credentials: "same-origin" })
      .then((response) => response.ok ? response.json() as Promise<CampaignProgress> : Promise.reject(new Error(String(response.status))))
      .then((progress) => {
        const bar = document.getElementById("campaign-progress-bar")
        if (bar instanceof HTMLProgressElement) {
          bar.value = progress.percent
          bar.textContent = `${progress.percent} %`
        }
        const set = (id: string, text: string) => {
          const element = document.getElementById(id)
          if (element !== null && element.textContent !== text) element.textContent = text
        }
        set("campaign-progress-text", progress.text)
        set("campaign-status", progress.statusText)
        for (const name of ["recipients", "sent", "failed", "queued"] as const) set(`campaign-${name}`, progress.figures[name])
        if (progress.ended) window.location.reload()
        else window.setTimeout(tick, 1_000)
      })
      .catch(() => window.setTimeout(tick, 5_000))
  }
  window.setTimeout(tick, 1_000)
}

htmx.onLoad((element) => {
  if (!(element instanceof Element)) return
  localTimes(element)
  copyButtons(element)
  templateEditor(element)
  addressSuggestions(element)
  campaignPreview(element)
  followCampaign(element)
})
rememberTimeZone()

/**
 * A page the sequence editor led to after a step was added, moved or removed names that step in
 * its address (`#seq-s2`): the keyboard goes on from there rather than from the top of the page.
 */
const focusNamedStep = () => {
  const id = decodeURIComponent(location.hash.slice(1))
  if (!/^seq-s\d+$/.test(id)) return
  const step = document.getElementById(id)
  if (step === null) return
  step.focus({ preventScroll: false })
}
focusNamedStep()

/** A note that names the time zone times are shown in (`data-zone-note`, with `{{ zone }}`) names the viewer's. */
const zoneNotes = () => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (!zone) return
  for (const note of document.querySelectorAll<HTMLElement>("[data-zone-note]")) {
    note.textContent = (note.dataset["zoneNote"] ?? "").split("{{ zone }}").join(zone)
  }
}
zoneNotes()
