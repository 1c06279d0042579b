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
 * Email templates (Liquid). A template reaches nothing but the values it is given: no file, no
 * other template. Failures are InvalidInput naming the part (`subject`, `html` or `text`) and,
 * for a template that cannot be read, the line and column.
 */
export class TemplateEngine extends Context.Tag("roster/TemplateEngine")<TemplateEngine, {
  /** Whether the template can be rendered: its syntax, its filters, and no tag that reads files. */
  readonly check: (source: EmailTemplateSource) => Effect.Effect<void, InvalidInput>
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
