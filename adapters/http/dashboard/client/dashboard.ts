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

htmx.onLoad((element) => {
  if (!(element instanceof Element)) return
  localTimes(element)
  copyButtons(element)
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
