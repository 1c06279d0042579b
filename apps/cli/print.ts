import { Console } from "effect"

/** Every command answers with one JSON document on stdout. */
export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))
