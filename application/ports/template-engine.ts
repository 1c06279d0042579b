import type { InvalidInput } from "@roster/domain"
import { Context, type Effect, type Either } from "effect"

/** An email's template: a subject, and an HTML body, a text body or both. */
export interface EmailTemplateSource {
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
}

/** A template rendered for one recipient. */
export interface RenderedTemplate {
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
  /** The variables the template reads that had no value, or an empty one (`subscriber.first_name`). */
  readonly emptyVariables: ReadonlyArray<string>
}

/**
 * Why a part cannot be read, whatever the engine's words: a tag that does not exist or is not
 * allowed, a block or an output left open, a filter that does not exist, a tag written wrongly,
 * a value that is not one, or (`unreadable`) anything else, told only in the engine's words.
 */
export const TEMPLATE_PROBLEM_KINDS = [
  "unknownTag",
  "tagNotAllowed",
  "unclosedTag",
  "unclosedOutput",
  "unknownFilter",
  "malformedTag",
  "badExpression",
  "unreadable"
] as const
export type TemplateProblemKind = typeof TEMPLATE_PROBLEM_KINDS[number]

/** A part of a template that cannot be read: why, and where (1-based, when the engine knows). */
export interface TemplateProblem {
  readonly part: "subject" | "html" | "text"
  /** What kind of problem it is, for words in any language. */
  readonly kind: TemplateProblemKind
  /** The tag or filter the problem names (`iff` of `{% iff %}`), when it names one. */
  readonly name: string | null
  /** The engine's own words, in English: a detail beside the kind's. */
  readonly problem: string
  readonly line: number | null
  readonly column: number | null
}

/** What an editor shows of a draft: every part's problem, and the variables the parts read. */
export interface TemplateInspection {
  readonly problems: ReadonlyArray<TemplateProblem>
  /** Paths such as `subscriber.email` or `subscriber.metadata.plan`, in the order they first appear. */
  readonly variables: ReadonlyArray<string>
}

/**
 * Email templates (Liquid). A template reaches nothing but the values it is given: no file, no
 * other template. Failures are InvalidInput naming the part (`subject`, `html` or `text`) and,
 * for a template that cannot be read, the line and column.
 */
export class TemplateEngine extends Context.Tag("roster/TemplateEngine")<TemplateEngine, {
  /** Whether the template can be rendered: its syntax, its filters, and no tag that reads files. */
  readonly check: (source: EmailTemplateSource) => Effect.Effect<void, InvalidInput>
  /**
   * Reads every part as `check` does, without stopping at the first that cannot be read: each
   * part's problem with its line and column, and the variables the others read.
   */
  readonly inspect: (source: EmailTemplateSource) => Effect.Effect<TemplateInspection>
  /**
   * Renders the template with `scope`. Values are escaped in the HTML body, not in the subject or
   * the text body. A render that runs too long or grows too large is stopped.
   */
  readonly render: (source: EmailTemplateSource, scope: Readonly<Record<string, unknown>>) => Effect.Effect<RenderedTemplate, InvalidInput>
  /**
   * Renders one template for each of `scopes`, as `render` would, in their order: a campaign
   * batch's emails. A render that fails fails alone.
   */
  readonly renderEach: (
    source: EmailTemplateSource,
    scopes: ReadonlyArray<Readonly<Record<string, unknown>>>
  ) => Effect.Effect<ReadonlyArray<Either.Either<RenderedTemplate, InvalidInput>>, InvalidInput>
}>() {}
