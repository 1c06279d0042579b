import { StringDecoder } from "node:string_decoder"

/**
 * Rows of PostgreSQL's COPY text format (`COPY ... TO STDOUT`): a row a line, its fields parted
 * by tabs, `\N` for NULL, and a backslash before the characters a field cannot hold as they are.
 */

export type CopyRow = ReadonlyArray<string | null>

const escapes: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" }

/** A field's text without its escapes: `\n`, `\t`, `\\` and the rest, octal `\123` and hex `\x53` too. */
export const unescapeCopyField = (field: string): string =>
  field.replace(/\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|(.))/gs, (_, octal?: string, hex?: string, other?: string) =>
    octal !== undefined
      ? String.fromCharCode(parseInt(octal, 8))
      : hex !== undefined
      ? String.fromCharCode(parseInt(hex, 16))
      : escapes[other!] ?? other!)

const fieldOf = (field: string): string | null =>
  field === "\\N" ? null : field.includes("\\") ? unescapeCopyField(field) : field

/** One line's fields. */
export const copyRowOf = (line: string): CopyRow => {
  const fields = line.split("\t")
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!
    if (field.includes("\\")) fields[i] = fieldOf(field) as string
  }
  return fields
}

/**
 * Turns the bytes of COPY text, as they come in chunks, into its rows: each chunk gives the rows
 * it completes, and the end whatever row it left open.
 */
export const makeCopyTextReader = () => {
  const decoder = new StringDecoder("utf8")
  let rest = ""
  const rowsOf = (text: string): Array<CopyRow> => {
    const rows: Array<CopyRow> = []
    let start = 0
    for (;;) {
      const end = text.indexOf("\n", start)
      if (end === -1) break
      rows.push(copyRowOf(text.slice(start, end)))
      start = end + 1
    }
    rest = text.slice(start)
    return rows
  }
  return {
    push: (chunk: Uint8Array): Array<CopyRow> => rowsOf(rest + decoder.write(chunk as Buffer)),
    end: (): Array<CopyRow> => {
      const text = rest + decoder.end()
      rest = ""
      return text === "" ? [] : [copyRowOf(text)]
    }
  }
}
