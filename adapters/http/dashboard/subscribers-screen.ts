import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Emails, Notes, Preferences, Subscribers, type SubscriberView, Tags } from "@roster/application"
import {
  allowedMoves,
  type DomainEvent,
  MAX_METADATA_BYTES,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_KEYS,
  MAX_NOTE_LENGTH,
  Metadata,
  type Note,
  NoteBody,
  NoteId,
  SubscriberId,
  SubscriberStatus,
  subscriberStatuses,
  type Tag,
  TagId
} from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import { HttpSettings } from "../shared/http-settings.js"
import { dataExportDisposition, preferenceCenterUrl, toDataExport } from "../shared/preference-schemas.js"
import type { DashboardAssets } from "./assets.js"
import { field, type FormFields, fragment, page, redirect, refusalOf, type Workspace } from "./pages.js"
import type { Screen } from "./screen.js"
import type { DashboardTexts } from "./texts.js"

/**
 * Subscribers: the list (search by the start of the email, filters by status and tag, 50 a page
 * by keyset), actions on the selected ones after a confirmation, and one subscriber's page: their
 * status, tags, metadata, notes, preference link, the emails sent to them, their history (the
 * events recorded about them, 25 a page newest first, by keyset) and everything stored about them
 * as a file to download.
 */

const PAGE_SIZE = 50
const NOTES_SHOWN = 100
const EMAILS_SHOWN = 20
const HISTORY_PAGE = 25
/** The most of a note's text the history shows. */
const NOTE_EXCERPT = 120

const bulkActions = ["add-tag", "remove-tag", "unsubscribe", "resubscribe", "delete"] as const
type BulkAction = (typeof bulkActions)[number]
const isBulkAction = (value: string): value is BulkAction => (bulkActions as ReadonlyArray<string>).includes(value)

const subscriberIdOf = Schema.decodeUnknownOption(SubscriberId)
const tagIdOf = Schema.decodeUnknownOption(TagId)
const noteIdOf = Schema.decodeUnknownOption(NoteId)
const isStatus = Schema.is(SubscriberStatus)
const noteBodyOf = Schema.decodeUnknownEither(NoteBody)
const metadataOf = Schema.decodeUnknownEither(Metadata)

type Texts = DashboardTexts["subscribers"]

/** "1 subscriber", "3 subscribers". */
const howMany = (t: Texts, count: number) => count === 1 ? t.one : t.many.replace("{{ count }}", String(count))

const fill = (text: string, values: Readonly<Record<string, string>>) =>
  Object.entries(values).reduce((filled, [name, value]) => filled.split(`{{ ${name} }}`).join(value), text)

/** The list's filters as a page's address carries them. */
interface ListFilters {
  readonly search: string
  readonly status: string
  readonly tag: string
  readonly cursor: string
}

const filtersOf = (params: URLSearchParams): ListFilters => ({
  search: params.get("search")?.trim() ?? "",
  status: params.get("status") ?? "",
  tag: params.get("tag") ?? "",
  cursor: params.get("cursor") ?? ""
})

/** The query of a list address: only the filters, those that are set. */
const queryOf = (filters: Partial<ListFilters>) => {
  const params = new URLSearchParams()
  for (const name of ["search", "status", "tag", "cursor"] as const) {
    const value = filters[name]
    if (value !== undefined && value !== "") params.set(name, value)
  }
  return params.toString()
}

const withQuery = (path: string, query: string) => query === "" ? path : `${path}?${query}`

const toRow = ({ subscriber, tags }: SubscriberView) => ({
  id: subscriber.id,
  email: subscriber.email,
  status: subscriber.status,
  tags: tags.map(({ tag }) => tag.name),
  createdAt: subscriber.createdAt.toISOString()
})

const toNote = (note: Note) => ({
  id: note.id,
  body: note.body,
  createdAt: note.createdAt.toISOString(),
  label: `${note.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC`
})

/** What the metadata field holds: a JSON object the domain accepts, or why not, in the person's words. */
const parseMetadata = (text: string, t: Texts): Either.Either<Metadata, string> => {
  let parsed: unknown
  try {
    parsed = text.trim() === "" ? {} : JSON.parse(text)
  } catch {
    return Either.left(t.invalidJson)
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return Either.left(t.notAnObject)
  return Either.mapLeft(metadataOf(parsed), () =>
    fill(t.metadataTooLarge, {
      keys: String(MAX_METADATA_KEYS),
      keyLength: String(MAX_METADATA_KEY_LENGTH),
      bytes: String(MAX_METADATA_BYTES)
    }))
}

/** A note's text as the domain takes it, or why not, in the person's words. */
const parseNote = (text: string, t: Texts): Either.Either<string, string> =>
  Either.mapLeft(noteBodyOf(text), () =>
    text.trim() === ""
      ? t.missingNote
      : text.trim().length > MAX_NOTE_LENGTH
      ? fill(t.noteTooLong, { max: MAX_NOTE_LENGTH.toLocaleString("en") })
      : t.invalidNote)

const statusName = (t: Texts, status: string) => isStatus(status) ? t.statuses[status] : status

/** A field of an event's `data`, an object's field, when they are there. */
const fieldOf = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined

const textOf = (value: unknown): string => typeof value === "string" ? value : ""

const excerpt = (text: string) => text.length > NOTE_EXCERPT ? `${text.slice(0, NOTE_EXCERPT - 1)}…` : text

/**
 * What an event changed, in the person's words, from what its data holds: an erased subscriber's
 * events keep only ids, and say nothing more than their kind.
 */
const eventDetail = (t: Texts, event: DomainEvent): string => {
  const { data } = event
  const status = textOf(fieldOf(data.subscriber, "status"))
  const byImport = data.source === "import" ? t.history.byImport : ""
  switch (event.type) {
    case "subscriber.created":
      return (status === "" ? "" : fill(t.history.createdAs, { status: statusName(t, status) })) + byImport
    case "subscriber.updated": {
      const changed = Array.isArray(data.changed) ? data.changed.filter((name): name is string => typeof name === "string") : []
      const names = changed.map((name) =>
        name === "status" && status !== ""
          ? fill(t.history.statusTo, { status: statusName(t, status) })
          : t.history.fields[name as keyof Texts["history"]["fields"]] ?? name
      )
      return names.join(", ") + byImport
    }
    case "tag.subscribed":
    case "tag.unsubscribed":
      return textOf(fieldOf(data.tag, "name")) + byImport
    case "subscriber.note_added":
      return excerpt(textOf(fieldOf(data.note, "body")))
    case "subscriber.deleted":
    case "subscriber.confirmed":
    case "form.list_full":
      return ""
  }
}

const toHistoryRow = (t: Texts, event: DomainEvent) => ({
  kind: t.history.kinds[event.type],
  detail: eventDetail(t, event),
  occurredAt: event.occurredAt.toISOString()
})

const isFragmentRequest = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers["hx-request"] === "true" && request.headers["hx-history-restore-request"] !== "true"

export const makeSubscribersScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const subscribers = yield* Subscribers
    const tags = yield* Tags
    const notes = yield* Notes
    const preferences = yield* Preferences
    const emails = yield* Emails
    const { publicBaseUrl } = yield* HttpSettings

    const listPath = (workspace: Workspace) => `${workspace.base}/subscribers`
    const subscriberPath = (workspace: Workspace, id: string) => `${workspace.base}/subscribers/${id}`

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: listPath(workspace)
      }, { status: refusal.status, menu: "subscribers" })
    }

    const badRequest = (workspace: Workspace, message: string, back = listPath(workspace)) =>
      page(assets, workspace, "refusal", { message, back }, { status: 400, menu: "subscribers" })

    const notFound = (workspace: Workspace) => page(assets, workspace, "not-found", {}, { status: 404, menu: "subscribers" })

    const organizationTags = (workspace: Workspace) =>
      Effect.map(tags.list(workspace.principal, { sort: "name", order: "asc", limit: 1_000 }), (found) => found.items)

    // The list ------------------------------------------------------------------------------

    /** Why the list's filters cannot be used, in the person's words, or the page of subscribers. */
    const findPage = (workspace: Workspace, filters: ListFilters) => {
      const t = workspace.t.subscribers
      if (filters.status !== "" && !isStatus(filters.status)) return Effect.fail(t.invalidStatus)
      const tagId = filters.tag === "" ? Option.none<TagId>() : tagIdOf(filters.tag)
      if (filters.tag !== "" && Option.isNone(tagId)) return Effect.fail(t.invalidTag)
      return subscribers.list(workspace.principal, {
        search: filters.search,
        status: isStatus(filters.status) ? filters.status : undefined,
        tagId: Option.getOrUndefined(tagId),
        cursor: filters.cursor === "" ? undefined : filters.cursor,
        count: "capped",
        sort: "created_at",
        order: "desc",
        limit: PAGE_SIZE
      }).pipe(
        Effect.catchTag("InvalidInput", (error) =>
          Effect.fail(
            error.field === "search"
              ? fill(t.invalidSearch, { max: "320" })
              : error.field === "tag"
              ? t.invalidTag
              : t.invalidCursor
          ))
      )
    }

    const listScreen = (workspace: Workspace, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const filters = filtersOf(new URL(request.url, "http://dashboard").searchParams)
        const path = listPath(workspace)
        // The page and the organization's tags (for the filter) are read side by side.
        const [found, tagList] = yield* Effect.all(
          [Effect.either(findPage(workspace, filters)), organizationTags(workspace)],
          { concurrency: 2 }
        )
        const filterQuery = queryOf({ ...filters, cursor: "" })
        const results = Either.match(found, {
          onLeft: (message) => ({ rows: [], total: 0, totalCapped: false, errors: { search: message }, nextPage: undefined }),
          onRight: (found) => ({
            rows: found.items.map(toRow),
            total: found.total,
            totalCapped: found.totalCapped,
            errors: {},
            nextPage: found.nextCursor === null
              ? undefined
              : withQuery(path, queryOf({ ...filters, cursor: found.nextCursor }))
          })
        })
        const values = {
          ...results,
          filters,
          filtered: filters.search !== "" || filters.status !== "" || filters.tag !== "",
          firstPage: filters.cursor === "" ? undefined : withQuery(path, filterQuery),
          query: queryOf(filters),
          listAction: path,
          bulkAction: `${path}/bulk`,
          bulkActions,
          statuses: subscriberStatuses,
          tags: tagList.map((tag) => ({ id: tag.id, name: tag.name }))
        }
        const status = Either.isLeft(found) ? 400 : 200
        const response = isFragmentRequest(request)
          ? fragment(assets, workspace, "subscriber-results", values)
          : page(assets, workspace, "subscribers", values, { status, menu: "subscribers" })
        // A fragment and the whole page share an address: caches keep them apart.
        return HttpServerResponse.setHeader(
          isFragmentRequest(request) ? HttpServerResponse.setStatus(response, status) : response,
          "Vary",
          "HX-Request"
        )
      })

    // Actions on the selected subscribers --------------------------------------------------------

    interface Selection {
      readonly action: BulkAction
      readonly ids: ReadonlyArray<SubscriberId>
      readonly tag: Option.Option<Tag>
      readonly back: string
    }

    /** The selection a form names, checked; or the page that says what is wrong with it. */
    const selectionOf = (
      workspace: Workspace,
      form: FormFields
    ): Effect.Effect<Either.Either<Selection, HttpServerResponse.HttpServerResponse>> =>
      Effect.gen(function*() {
        const t = workspace.t.subscribers
        const action = field(form, "action")
        const raw = form.get("id") ?? []
        if (!isBulkAction(action)) return Either.left(badRequest(workspace, t.unknownAction))
        if (raw.length === 0) return Either.left(badRequest(workspace, t.noneSelected))
        if (raw.length > PAGE_SIZE) return Either.left(badRequest(workspace, fill(t.tooMany, { max: String(PAGE_SIZE) })))
        const ids = raw.map((id) => subscriberIdOf(id))
        if (ids.some(Option.isNone)) return Either.left(badRequest(workspace, t.invalidSelection))
        let tag = Option.none<Tag>()
        if (action === "add-tag" || action === "remove-tag") {
          const tagId = tagIdOf(field(form, "tag"))
          if (Option.isNone(tagId)) return Either.left(badRequest(workspace, t.missingTag))
          const found = yield* Effect.either(tags.get(workspace.principal, tagId.value))
          if (Either.isLeft(found)) return Either.left(refused(workspace, found.left))
          tag = Option.some(found.right)
        }
        const back = queryOf(filtersOf(new URLSearchParams(field(form, "back"))))
        return Either.right<Selection>({ action, ids: [...new Set(ids.map((id) => Option.getOrThrow(id)))], tag, back })
      })

    const questionOf = (t: Texts, selection: Selection, count: number) =>
      fill(t.confirm[selection.action], {
        subscribers: howMany(t, count),
        tag: Option.match(selection.tag, { onNone: () => "", onSome: (tag) => tag.name })
      })

    const confirmation = (workspace: Workspace, selection: Selection) =>
      Effect.gen(function*() {
        const found = yield* Effect.forEach(selection.ids, (id) => Effect.option(subscribers.get(workspace.principal, id)))
        const rows = found.flatMap((view) => Option.isSome(view) ? [toRow(view.value)] : [])
        if (rows.length === 0) return badRequest(workspace, workspace.t.subscribers.invalidSelection)
        return page(assets, workspace, "subscribers-confirm", {
          question: questionOf(workspace.t.subscribers, selection, rows.length),
          action: selection.action,
          tag: Option.match(selection.tag, { onNone: () => "", onSome: (tag) => tag.id }),
          back: selection.back,
          rows,
          confirmAction: `${listPath(workspace)}/bulk/run`,
          cancel: withQuery(listPath(workspace), selection.back)
        }, { menu: "subscribers" })
      })

    /** Carries out the action on one subscriber; whether it was done. */
    const carryOut = (workspace: Workspace, selection: Selection, id: SubscriberId) => {
      const { principal } = workspace
      const tagId = Option.map(selection.tag, (tag) => tag.id)
      const run: Effect.Effect<unknown, ApplicationError> = (() => {
        switch (selection.action) {
          case "add-tag":
            return subscribers.attachTags(principal, id, Option.toArray(tagId))
          case "remove-tag":
            return Option.match(tagId, { onNone: () => Effect.void, onSome: (tag) => subscribers.detachTag(principal, id, tag) })
          case "unsubscribe":
            return subscribers.update(principal, id, { status: "unsubscribed" })
          case "resubscribe":
            return subscribers.update(principal, id, { status: "active" })
          case "delete":
            return subscribers.remove(principal, id)
        }
      })()
      return Effect.map(Effect.either(run), Either.isRight)
    }

    const runSelection = (workspace: Workspace, selection: Selection) =>
      Effect.gen(function*() {
        const t = workspace.t.subscribers
        const outcomes = yield* Effect.forEach(selection.ids, (id) => carryOut(workspace, selection, id))
        const changed = outcomes.filter((done) => done).length
        const refusedCount = outcomes.length - changed
        const text = refusedCount === 0
          ? fill(t.bulkDone, { subscribers: howMany(t, changed) })
          : fill(t.bulkPartly, { changed: howMany(t, changed), refused: String(refusedCount) })
        return redirect(withQuery(listPath(workspace), selection.back), { kind: refusedCount === 0 ? "ok" : "error", text })
      })

    // One subscriber ------------------------------------------------------------------------

    /** The subscriber the path names, or the page that says it is not there. */
    const withSubscriber = (
      workspace: Workspace,
      f: (view: SubscriberView) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError, HttpRouter.RouteContext>
    ) =>
      Effect.gen(function*() {
        const { subscriber_id } = yield* HttpRouter.params
        const id = subscriberIdOf(subscriber_id)
        if (Option.isNone(id)) return notFound(workspace)
        return yield* subscribers.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    interface DetailForm {
      readonly values?: { readonly metadata?: string; readonly note?: string }
      readonly errors?: { readonly metadata?: string; readonly note?: string; readonly status?: string }
      readonly status?: number
    }

    /**
     * The subscriber's page. `before` is the history's keyset position (the last event of the page
     * before); a position that is not an event id is a 400 that says the link is no longer good.
     */
    const detailPage = (workspace: Workspace, view: SubscriberView, form: DetailForm = {}, before?: string) =>
      Effect.gen(function*() {
        const { principal } = workspace
        const { subscriber } = view
        const t = workspace.t.subscribers
        const href = subscriberPath(workspace, subscriber.id)
        const history = yield* subscribers.history(principal, subscriber.id, { before, limit: HISTORY_PAGE }).pipe(
          Effect.map(Either.right),
          Effect.catchTag("InvalidInput", () => Effect.succeed(Either.left(t.history.invalidPage)))
        )
        if (Either.isLeft(history)) return badRequest(workspace, history.left, href)
        const [allTags, noteList, link, sent] = yield* Effect.all([
          organizationTags(workspace),
          notes.list(principal, subscriber.id, { limit: NOTES_SHOWN }),
          Effect.option(preferences.issueLink(principal, subscriber.id)),
          Effect.option(emails.list(principal, { subscriberId: subscriber.id, limit: EMAILS_SHOWN }))
        ])
        const carried = new Set<string>(view.tags.map(({ tag }) => tag.id))
        return page(assets, workspace, "subscriber", {
          subscriber: {
            email: subscriber.email,
            status: subscriber.status,
            firstName: subscriber.firstName ?? "",
            lastName: subscriber.lastName ?? "",
            createdAt: subscriber.createdAt.toISOString(),
            updatedAt: subscriber.updatedAt.toISOString(),
            tags: view.tags.map(({ tag }) => ({ id: tag.id, name: tag.name }))
          },
          href,
          // The moves the state table offers the dashboard, which changes statuses as the API does.
          moves: allowedMoves(subscriber.status, "api"),
          hasTags: allTags.length > 0,
          addable: allTags.filter((tag) => !carried.has(tag.id)).map((tag) => ({ id: tag.id, name: tag.name })),
          notes: noteList.items.map(toNote),
          noteAction: `${href}/notes`,
          preference: Option.getOrUndefined(Option.map(link, (found) => ({
            url: preferenceCenterUrl(publicBaseUrl, found.token),
            expiresAt: found.expiresAt.toISOString()
          }))),
          emails: Option.getOrUndefined(Option.map(sent, (found) =>
            found.items.map(({ message }) => ({
              subject: message.subject,
              status: message.status,
              createdAt: message.createdAt.toISOString()
            })))),
          history: {
            rows: history.right.items.map((event) => toHistoryRow(t, event)),
            newer: before === undefined ? undefined : `${href}#history`,
            older: history.right.before === null ? undefined : `${href}?${new URLSearchParams({ before: history.right.before })}#history`
          },
          exportHref: `${href}/export`,
          values: { metadata: JSON.stringify(subscriber.metadata, null, 2), ...form.values },
          errors: form.errors ?? {}
        }, { status: form.status ?? 200, menu: "subscribers" })
      })

    const backTo = (workspace: Workspace, id: string, text: string) =>
      redirect(subscriberPath(workspace, id), { kind: "ok", text })

    /** The note the path names, of the subscriber it names. */
    const withNote = (
      workspace: Workspace,
      view: SubscriberView,
      f: (note: Note) => Effect.Effect<HttpServerResponse.HttpServerResponse, ApplicationError, HttpRouter.RouteContext>
    ) =>
      Effect.gen(function*() {
        const { note_id } = yield* HttpRouter.params
        const id = noteIdOf(note_id)
        if (Option.isNone(id)) return notFound(workspace)
        return yield* notes.get(workspace.principal, view.subscriber.id, id.value).pipe(Effect.flatMap(f))
      })

    const notePage = (workspace: Workspace, view: SubscriberView, note: Note, value: string, error?: string) => {
      const href = subscriberPath(workspace, view.subscriber.id)
      return page(assets, workspace, "subscriber-note", {
        email: view.subscriber.email,
        action: `${href}/notes/${note.id}/edit`,
        cancel: href,
        value,
        error
      }, { status: error === undefined ? 200 : 400, menu: "subscribers" })
    }

    return {
      routes: [
        {
          method: "GET",
          path: "/subscribers",
          handle: (workspace, request) =>
            listScreen(workspace, request).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/subscribers/bulk",
          handle: (workspace, _request, form) =>
            Effect.flatMap(selectionOf(workspace, form), Either.match({
              onLeft: Effect.succeed,
              onRight: (selection) => confirmation(workspace, selection)
            }))
        },
        {
          method: "POST",
          path: "/subscribers/bulk/run",
          handle: (workspace, _request, form) =>
            Effect.flatMap(selectionOf(workspace, form), Either.match({
              onLeft: Effect.succeed,
              onRight: (selection) => runSelection(workspace, selection)
            }))
        },
        {
          method: "GET",
          path: "/subscribers/:subscriber_id",
          handle: (workspace, request) =>
            withSubscriber(workspace, (view) => {
              const before = new URL(request.url, "http://dashboard").searchParams.get("before") ?? undefined
              return detailPage(workspace, view, {}, before)
            })
        },
        {
          method: "GET",
          path: "/subscribers/:subscriber_id/export",
          handle: (workspace) =>
            withSubscriber(workspace, (view) =>
              Effect.map(preferences.exportFor(workspace.principal, view.subscriber.id), (exported) =>
                HttpServerResponse.unsafeJson(toDataExport(exported), {
                  headers: { "Content-Disposition": dataExportDisposition(exported), "Cache-Control": "no-store" }
                })))
        },
        {
          method: "POST",
          path: "/subscribers/:subscriber_id/status",
          handle: (workspace, _request, form) =>
            withSubscriber(workspace, (view) => {
              const t = workspace.t.subscribers
              const wanted = field(form, "status")
              if (!isStatus(wanted)) return detailPage(workspace, view, { errors: { status: t.invalidStatus }, status: 400 })
              return subscribers.update(workspace.principal, view.subscriber.id, { status: wanted }).pipe(
                Effect.map((saved) =>
                  backTo(workspace, saved.subscriber.id, fill(t.statusChanged, { status: t.statuses[saved.subscriber.status] }))
                ),
                Effect.catchTag("InvalidStatusTransition", (error) =>
                  detailPage(workspace, view, {
                    errors: { status: fill(t.statusRefused, { from: statusName(t, error.from), to: statusName(t, error.to) }) },
                    status: refusalOf(error, workspace.t).status
                  }))
              )
            })
        },
        {
          method: "POST",
          path: "/subscribers/:subscriber_id/metadata",
          handle: (workspace, _request, form) =>
            withSubscriber(workspace, (view) => {
              const t = workspace.t.subscribers
              const text = form.get("metadata")?.[0] ?? ""
              return Either.match(parseMetadata(text, t), {
                onLeft: (problem) => detailPage(workspace, view, { values: { metadata: text }, errors: { metadata: problem }, status: 400 }),
                onRight: (metadata) =>
                  Effect.as(
                    subscribers.update(workspace.principal, view.subscriber.id, { metadata }),
                    backTo(workspace, view.subscriber.id, t.metadataSaved)
                  )
              })
            })
        },
        {
          method: "POST",
          path: "/subscribers/:subscriber_id/tags",
          handle: (workspace, _request, form) =>
            withSubscriber(workspace, (view) => {
              const t = workspace.t.subscribers
              const tagId = tagIdOf(field(form, "tag"))
              if (Option.isNone(tagId)) return Effect.succeed(badRequest(workspace, t.missingTag, subscriberPath(workspace, view.subscriber.id)))
              return subscribers.attachTags(workspace.principal, view.subscriber.id, [tagId.value]).pipe(
                Effect.map((saved) => {
                  const name = saved.tags.find(({ tag }) => tag.id === tagId.value)?.tag.name ?? ""
                  return backTo(workspace, view.subscriber.id, fill(t.tagAdded, { name }))
                }),
                // An unknown tag is the form's mistake: a tag of another organization is, here, not there.
                Effect.catchTag("InvalidInput", () =>
                  Effect.succeed(badRequest(workspace, t.invalidTag, subscriberPath(workspace, view.subscriber.id))))
              )
            })
        },
        {
          method: "POST",
          path: "/subscribers/:subscriber_id/tags/:tag_id/remove",
          handle: (workspace) =>
            withSubscriber(workspace, (view) =>
              Effect.gen(function*() {
                const { tag_id } = yield* HttpRouter.params
                const tagId = tagIdOf(tag_id)
                if (Option.isNone(tagId)) return notFound(workspace)
                yield* subscribers.detachTag(workspace.principal, view.subscriber.id, tagId.value)
                const name = view.tags.find(({ tag }) => tag.id === tagId.value)?.tag.name ?? ""
                return backTo(workspace, view.subscriber.id, fill(workspace.t.subscribers.tagRemoved, { name }))
              }))
        },
        {
          method: "POST",
          path: "/subscribers/:subscriber_id/notes",
          handle: (workspace, _request, form) =>
            withSubscriber(workspace, (view) => {
              const t = workspace.t.subscribers
              const text = form.get("body")?.[0] ?? ""
              return Either.match(parseNote(text, t), {
                onLeft: (problem) => detailPage(workspace, view, { values: { note: text }, errors: { note: problem }, status: 400 }),
                onRight: (body) =>
                  Effect.as(notes.create(workspace.principal, view.subscriber.id, body), backTo(workspace, view.subscriber.id, t.noteAdded))
              })
            })
        },
        {
          method: "GET",
          path: "/subscribers/:subscriber_id/notes/:note_id/edit",
          handle: (workspace) =>
            withSubscriber(workspace, (view) =>
              withNote(workspace, view, (note) => Effect.succeed(notePage(workspace, view, note, note.body))))
        },
        {
          method: "POST",
          path: "/subscribers/:subscriber_id/notes/:note_id/edit",
          handle: (workspace, _request, form) =>
            withSubscriber(workspace, (view) =>
              withNote(workspace, view, (note) => {
                const t = workspace.t.subscribers
                const text = form.get("body")?.[0] ?? ""
                return Either.match(parseNote(text, t), {
                  onLeft: (problem) => Effect.succeed(notePage(workspace, view, note, text, problem)),
                  onRight: (body) =>
                    Effect.as(
                      notes.update(workspace.principal, view.subscriber.id, note.id, body),
                      backTo(workspace, view.subscriber.id, t.noteSaved)
                    )
                })
              }))
        },
        {
          method: "POST",
          path: "/subscribers/:subscriber_id/notes/:note_id/delete",
          handle: (workspace) =>
            withSubscriber(workspace, (view) =>
              withNote(workspace, view, (note) =>
                Effect.as(
                  notes.remove(workspace.principal, view.subscriber.id, note.id),
                  backTo(workspace, view.subscriber.id, workspace.t.subscribers.noteDeleted)
                )))
        },
        {
          method: "GET",
          path: "/subscribers/:subscriber_id/delete",
          handle: (workspace) =>
            withSubscriber(workspace, (view) => {
              const href = subscriberPath(workspace, view.subscriber.id)
              return Effect.succeed(page(assets, workspace, "subscriber-delete", {
                email: view.subscriber.email,
                action: `${href}/delete`,
                cancel: href
              }, { menu: "subscribers" }))
            })
        },
        {
          method: "POST",
          path: "/subscribers/:subscriber_id/delete",
          handle: (workspace) =>
            withSubscriber(workspace, (view) =>
              Effect.as(
                subscribers.remove(workspace.principal, view.subscriber.id),
                redirect(listPath(workspace), {
                  kind: "ok",
                  text: fill(workspace.t.subscribers.deleted, { email: view.subscriber.email })
                })
              ))
        }
      ]
    } satisfies Screen
  })
