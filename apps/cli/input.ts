import { InvalidInput } from "@roster/domain"
import { Effect, Option, ParseResult, Schema } from "effect"

/** A value given on the command line that does not fit; the message names the option. */
export class CliInputError extends Schema.TaggedError<CliInputError>()("CliInputError", { message: Schema.String }) {}

const refuse = (option: string, problem: string) => Effect.fail(new CliInputError({ message: `${option}: ${problem}` }))

/** Decodes one option's value; a bad value fails naming the option (`--name: ...`). */
export const decodeOption = <A, I>(schema: Schema.Schema<A, I>, option: string, value: unknown) =>
  Schema.decodeUnknown(schema)(value).pipe(
    Effect.catchAll((error) => refuse(option, ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "is not valid"))
  )

/** One of `choices`. */
export const parseChoice = <const C extends string>(option: string, choices: ReadonlyArray<C>, value: string) =>
  (choices as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as C)
    : refuse(option, `expected one of ${choices.join(", ")}; got '${value}'`)

/** A whole number from `min` to `max`, written in decimal. */
export const parseInteger = (option: string, value: string, range: { readonly min: number; readonly max: number }) => {
  const number = /^-?\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN
  return Number.isSafeInteger(number) && number >= range.min && number <= range.max
    ? Effect.succeed(number)
    : refuse(option, `expected a whole number from ${range.min} to ${range.max}; got '${value}'`)
}

/** `true` or `false`. */
export const parseBoolean = (option: string, value: string) =>
  Effect.map(parseChoice(option, ["true", "false"], value), (text) => text === "true")

/** Parses an option that may be left out. */
export const optional = <A, E>(value: Option.Option<string>, parse: (text: string) => Effect.Effect<A, E>) =>
  Option.isSome(value) ? Effect.map(parse(value.value), Option.some) : Effect.succeed(Option.none<A>())

/**
 * A use case's refusal of a field, told as the option that carried it: `fields` maps the use
 * case's field names to the command's options.
 */
export const asOptionError = (fields: Readonly<Record<string, string>>) => (error: InvalidInput) => {
  const option = fields[error.field]
  return option === undefined ? error : new CliInputError({ message: `${option}: ${error.problem}` })
}

/** Maps a use case's `InvalidInput` to the option that carried the field; other errors pass. */
export const optionErrors = (fields: Readonly<Record<string, string>>) => <E extends { readonly _tag: string }>(error: E) =>
  error instanceof InvalidInput ? asOptionError(fields)(error) : error
