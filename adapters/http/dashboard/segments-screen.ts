import { HttpRouter, type HttpServerRequest } from "@effect/platform"
import { type SegmentPreview, Segments, Tags } from "@roster/application"
import {
  type FilterNode,
  MAX_SEGMENT_DESCRIPTION_LENGTH,
  MAX_SEGMENT_NAME_LENGTH,
  type Segment,
  SegmentDescription,
  SegmentId,
  SegmentName,
  subscriberStatuses
} from "@roster/domain"
import { Effect, Either, Option, Schema } from "effect"
import type { ApplicationError } from "../shared/application-errors.js"
import type { DashboardAssets } from "./assets.js"
import {
  field,
  fill,
  type FormFields,
  fragment,
  page,
  pageNumberOf,
  pagerOf,
  redirect,
  refusalOf,
  type Workspace
} from "./pages.js"
import { deletionRoutes } from "./deletion.js"
import type { Screen } from "./screen.js"
import {
  blankCondition,
  type Builder,
  builderOf,
  builderOfFilter,
  builderView,
  conditionKinds,
  filterOf,
  knownZone,
  placeOfField,
  PREVIEW_SIZE,
  previewView,
  valueTypes
} from "./segment-builder.js"

/**
 * Segments: the list with how many subscribers each matches now, and the builder, where
 * conditions are added, changed and removed, combined with all or any and each negated if need
 * be; who matches (the count and the first of them) is shown through the segments' preview use
 * case as the filter changes (by the script), or by the Preview button (without it). Saving,
 * renaming and deleting go through the same use case as the API, whose refusals (a segment still
 * used by a campaign or trigger, a tag that is not the organization's) are shown in the viewer's
 * language.
 */

const segmentIdOf = Schema.decodeUnknownOption(SegmentId)
const nameOf = Schema.decodeUnknownEither(SegmentName)
const descriptionOf = Schema.decodeUnknownEither(SegmentDescription)

/** Segments a page of the list. */
const PER_PAGE = 50
const TIME_ZONE_COOKIE = "roster_tz"

const zoneOf = (request: HttpServerRequest.HttpServerRequest) => {
  const value = request.cookies[TIME_ZONE_COOKIE]
  try {
    return knownZone(value === undefined ? undefined : decodeURIComponent(value))
  } catch {
    return "UTC"
  }
}

interface Values {
  readonly name: string
  readonly description: string
}

export const makeSegmentsScreen = (assets: DashboardAssets) =>
  Effect.gen(function*() {
    const segments = yield* Segments
    const tags = yield* Tags

    const listPath = (workspace: Workspace) => `${workspace.base}/segments`

    const refused = (workspace: Workspace, error: ApplicationError) => {
      const refusal = refusalOf(error, workspace.t)
      return page(assets, workspace, refusal.status === 404 ? "not-found" : "refusal", {
        message: refusal.text,
        back: listPath(workspace)
      }, { status: refusal.status, menu: "segments" })
    }

    const tagChoices = (workspace: Workspace) =>
      Effect.map(
        tags.list(workspace.principal, { sort: "name", order: "asc", limit: 1_000 }),
        (found) => found.items.map((tag) => ({ id: tag.id, name: tag.name }))
      )

    /** Who matches the filter now, or the problems the use case found in it (by condition). */
    const previewOf = (workspace: Workspace, filter: FilterNode) =>
      segments.previewFilter(workspace.principal, filter, { limit: PREVIEW_SIZE }).pipe(
        Effect.map((preview) => ({ preview, problems: new Map<number, string>() })),
        Effect.catchTag("InvalidInput", (error) => {
          const place = placeOfField(error.field)
          return place === undefined
            ? Effect.fail(error)
            : Effect.succeed({ preview: undefined, problems: new Map([[place, refusalOf(error, workspace.t).text]]) })
        })
      )

    /** The builder's page: a new segment's, or a saved one's (whose filter the builder may not edit). */
    const builderPage = (
      workspace: Workspace,
      zone: string,
      scope: {
        readonly segment?: Segment
        readonly values: Values
        readonly builder: Builder | undefined
        readonly errors?: Readonly<Record<string, string>>
        readonly problems?: ReadonlyMap<number, string>
        /** Whether to show who matches: not after a save the use case refused. */
        readonly preview?: boolean
        /** A condition just added, still blank: neither previewed nor told what it lacks yet. */
        readonly added?: boolean
        readonly status?: number
      }
    ) =>
      Effect.gen(function*() {
        const offered = yield* tagChoices(workspace)
        let problems = scope.problems ?? new Map<number, string>()
        let preview: SegmentPreview | undefined
        if (scope.preview !== false && problems.size === 0) {
          const previewed = scope.builder !== undefined && scope.added === true
            ? { ...scope.builder, conditions: scope.builder.conditions.slice(0, -1) }
            : scope.builder
          const filter = previewed === undefined
            ? Either.right(scope.segment!.filter)
            : filterOf(previewed, zone, workspace.locale, workspace.t.segments.notANumber)
          if (Either.isLeft(filter)) problems = filter.left
          else {
            const found = yield* previewOf(workspace, filter.right)
            preview = found.preview
            problems = found.problems
          }
        }
        const segment = scope.segment
        return page(assets, workspace, segment === undefined ? "segment-new" : "segment-edit", {
          segment: segment === undefined ? undefined : { id: segment.id, name: segment.name },
          values: scope.values,
          errors: {
            ...scope.errors,
            ...(problems.size > 0 && scope.errors?.form === undefined ? { filter: workspace.t.segments.invalidFilter } : {})
          },
          builder: scope.builder === undefined ? undefined : builderView(scope.builder, problems),
          filterJson: segment === undefined || scope.builder !== undefined ? undefined : JSON.stringify(segment.filter, null, 2),
          kinds: conditionKinds,
          statuses: subscriberStatuses,
          valueTypes,
          tags: offered,
          zone,
          preview: previewView(preview),
          invalid: problems.size > 0,
          action: segment === undefined ? `${listPath(workspace)}/new` : `${listPath(workspace)}/${segment.id}`,
          previewAction: `${listPath(workspace)}/preview`,
          cancel: listPath(workspace)
        }, { status: scope.status ?? 200, menu: "segments" })
      })

    const valuesOf = (form: FormFields): Values => ({ name: field(form, "name"), description: field(form, "description") })

    /**
     * A builder's form sent back: a condition added or removed, a preview asked for, or the segment
     * saved (created, or changed through `save`).
     */
    const submitted = (
      workspace: Workspace,
      request: HttpServerRequest.HttpServerRequest,
      form: FormFields,
      segment: Segment | undefined,
      save: (input: { readonly name: string; readonly description: string | null; readonly filter: FilterNode | undefined }) => Effect.Effect<Segment, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const zone = zoneOf(request)
        const t = workspace.t.segments
        const values = valuesOf(form)
        // A saved filter the builder does not edit keeps coming back as it is.
        const editable = segment === undefined || builderOfFilter(segment.filter, zone) !== undefined
        const builder = editable ? builderOf(form) : undefined
        const intent = field(form, "intent")
        if (builder !== undefined && intent === "add") {
          const kind = conditionKinds.find((k) => k === field(form, "add_kind")) ?? "status"
          return yield* builderPage(workspace, zone, {
            ...(segment === undefined ? {} : { segment }),
            values,
            builder: { ...builder, conditions: [...builder.conditions, blankCondition(kind)] },
            added: true
          })
        }
        const removing = /^remove-(\d+)$/.exec(intent)
        if (builder !== undefined && removing !== null) {
          const at = Number(removing[1])
          return yield* builderPage(workspace, zone, {
            ...(segment === undefined ? {} : { segment }),
            values,
            builder: { ...builder, conditions: builder.conditions.filter((_, i) => i !== at) }
          })
        }
        if (intent !== "save") {
          return yield* builderPage(workspace, zone, { ...(segment === undefined ? {} : { segment }), values, builder })
        }
        const errors: Record<string, string> = {}
        const name = nameOf(values.name)
        if (Either.isLeft(name)) errors.name = fill(t.invalidName, { max: MAX_SEGMENT_NAME_LENGTH })
        const description = descriptionOf(values.description)
        if (Either.isLeft(description)) errors.description = fill(t.invalidDescription, { max: MAX_SEGMENT_DESCRIPTION_LENGTH })
        const filter = builder === undefined
          ? Either.right(undefined)
          : filterOf(builder, zone, workspace.locale, t.notANumber)
        if (Either.isLeft(name) || Either.isLeft(description) || Either.isLeft(filter)) {
          return yield* builderPage(workspace, zone, {
            ...(segment === undefined ? {} : { segment }),
            values,
            builder,
            errors,
            problems: Either.isLeft(filter) ? filter.left : new Map(),
            status: 400
          })
        }
        return yield* save({
          name: name.right,
          description: description.right === "" ? null : description.right,
          filter: filter.right
        }).pipe(
          Effect.map((saved) =>
            redirect(`${listPath(workspace)}/${saved.id}`, {
              kind: "ok",
              text: fill(segment === undefined ? t.created_ : t.saved, { name: saved.name })
            })
          ),
          Effect.catchAll((error) => {
            const refusal = refusalOf(error, workspace.t)
            if (refusal.status === 404 && segment !== undefined) return Effect.fail(error)
            const place = error._tag === "InvalidInput" ? placeOfField(error.field) : undefined
            return builderPage(workspace, zone, {
              ...(segment === undefined ? {} : { segment }),
              values,
              builder,
              ...(place === undefined ? { errors: { form: refusal.text } } : { problems: new Map([[place, refusal.text]]) }),
              preview: false,
              status: refusal.status
            })
          })
        )
      })

    /** The segment the path names, or the page that says it is not there. */
    const withSegment = (
      workspace: Workspace,
      f: (segment: Segment) => Effect.Effect<ReturnType<typeof page>, ApplicationError>
    ) =>
      Effect.gen(function*() {
        const { segment_id } = yield* HttpRouter.params
        const id = segmentIdOf(segment_id)
        if (Option.isNone(id)) return page(assets, workspace, "not-found", {}, { status: 404, menu: "segments" })
        return yield* segments.get(workspace.principal, id.value).pipe(Effect.flatMap(f))
      }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))

    return {
      routes: [
        {
          method: "GET",
          path: "/segments",
          handle: (workspace, request) =>
            Effect.gen(function*() {
              const found = yield* segments.listPage(workspace.principal, { page: pageNumberOf(request), perPage: PER_PAGE })
              const rows = yield* Effect.forEach(found.items, (segment) =>
                Effect.map(segments.preview(workspace.principal, segment.id, { limit: 1 }), (preview) => ({
                  id: segment.id,
                  name: segment.name,
                  description: segment.description ?? "",
                  matching: preview.total
                })), { concurrency: 4 })
              return page(assets, workspace, "segments", {
                segments: rows,
                total: found.total,
                ...pagerOf(listPath(workspace), found),
                newAction: `${listPath(workspace)}/new`
              }, { menu: "segments" })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/segments/new",
          handle: (workspace, request) =>
            builderPage(workspace, zoneOf(request), { values: { name: "", description: "" }, builder: { match: "all", conditions: [] } })
              .pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/segments/new",
          handle: (workspace, request, form) =>
            submitted(workspace, request, form, undefined, (input) =>
              segments.create(workspace.principal, { name: input.name, description: input.description, filter: input.filter! }))
              .pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "POST",
          path: "/segments/preview",
          handle: (workspace, request, form) =>
            Effect.gen(function*() {
              // A sequence's branch asks for its filter's fields, named after its step (`s3.`).
              const prefix = /^s\d{1,3}\.$/.test(field(form, "filter_prefix")) ? field(form, "filter_prefix") : ""
              const idPrefix = prefix === "" ? "seg-" : `seq-${prefix.slice(0, -1)}-`
              const builder = builderOf(form, prefix)
              const filter = filterOf(builder, zoneOf(request), workspace.locale, workspace.t.segments.notANumber)
              const found = Either.isLeft(filter)
                ? { preview: undefined, problems: filter.left }
                : yield* previewOf(workspace, filter.right)
              return fragment(assets, workspace, "segment-preview", {
                preview: previewView(found.preview),
                invalid: found.problems.size > 0,
                oob: true,
                idPrefix,
                countId: prefix === "" ? "segment-count" : `${idPrefix}count`,
                problems: builder.conditions.map((_, i) => ({ index: i, error: found.problems.get(i) }))
              })
            }).pipe(Effect.catchAll((error) => Effect.succeed(refused(workspace, error))))
        },
        {
          method: "GET",
          path: "/segments/:segment_id",
          handle: (workspace, request) =>
            withSegment(workspace, (segment) =>
              builderPage(workspace, zoneOf(request), {
                segment,
                values: { name: segment.name, description: segment.description ?? "" },
                builder: builderOfFilter(segment.filter, zoneOf(request))
              }))
        },
        {
          method: "POST",
          path: "/segments/:segment_id",
          handle: (workspace, request, form) =>
            withSegment(workspace, (segment) =>
              submitted(workspace, request, form, segment, (input) =>
                segments.update(workspace.principal, segment.id, {
                  name: input.name,
                  description: input.description,
                  ...(input.filter === undefined ? {} : { filter: input.filter })
                })))
        },
        ...deletionRoutes(assets, {
          path: "/segments/:segment_id",
          menu: "segments",
          texts: (t) => t.segments,
          withRecord: withSegment,
          places: (workspace, segment) => ({
            name: segment.name,
            action: `${listPath(workspace)}/${segment.id}/delete`,
            cancel: `${listPath(workspace)}/${segment.id}`,
            list: listPath(workspace)
          }),
          remove: (workspace, segment) => segments.remove(workspace.principal, segment.id)
        })
      ]
    } satisfies Screen
  })
