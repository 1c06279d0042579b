/** The limits customer templates are read and rendered with. */
export interface CustomerLimits {
  /** The longest a template part may be, in characters. */
  readonly templateLength: number
  /** The longest a part may render, in milliseconds (liquidjs checks it between nodes). */
  readonly renderMs: number
  /** The elements and characters a render's ranges and filters may make, all parts together. */
  readonly renderWork: number
  /** The most a rendered part may hold, in characters. */
  readonly renderedLength: number
}

export type Part = "subject" | "html" | "text"

export declare const PARTS: ReadonlyArray<Part>

export interface TemplateSource {
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
}

export interface Rendered {
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
  readonly emptyVariables: ReadonlyArray<string>
}

/** What was wrong, and in which part. */
export interface Problem {
  readonly field: Part
  readonly problem: string
}

export type RenderResult = ({ readonly ok: true; readonly value: Rendered }) | ({ readonly ok: false } & Problem)

/** A template that cannot be read, or one result for each scope. */
export type RenderAnswer =
  | { readonly parseProblem: Problem; readonly results?: undefined }
  | { readonly parseProblem?: undefined; readonly results: ReadonlyArray<RenderResult> }

/** A part that cannot be read, and where liquidjs found the problem (1-based). */
export interface PlacedProblem extends Problem {
  readonly line: number | null
  readonly column: number | null
}

/** A render in the process stopped for its time twice in a row: the template renders elsewhere from then on. */
export interface Overtime {
  readonly ok: false
  readonly overtime: true
  readonly field: Part
}

/** A template read for renders in the process. */
export interface PreparedTemplate {
  readonly parseProblem?: undefined
  /** Whether every part renders in time and memory bounded by its length and the work limit. */
  readonly linear: () => boolean
  readonly render: (scope: unknown, renderMs: number) => RenderResult | Overtime
}

export interface CustomerLiquid {
  readonly check: (source: TemplateSource) => { readonly ok: true } | ({ readonly ok: false } & Problem)
  readonly inspect: (source: TemplateSource) => {
    readonly problems: ReadonlyArray<PlacedProblem>
    readonly variables: ReadonlyArray<string>
  }
  readonly renderEach: (
    source: TemplateSource,
    scopes: ReadonlyArray<unknown>,
    onStep?: (index: number, part: Part) => void
  ) => RenderAnswer
  readonly prepare: (source: TemplateSource) => PreparedTemplate | { readonly parseProblem: Problem }
}

export declare const makeCustomerLiquid: (limits: CustomerLimits) => CustomerLiquid

export type ProgressSlot = BigInt64Array

export declare const progressSlot: () => ProgressSlot

export declare const markStep: (slot: ProgressSlot, base: number, index: number, part: Part) => void

export declare const readStep: (
  slot: ProgressSlot,
  base: number
) => { readonly index: number; readonly part: Part; readonly startedAt: number } | null
