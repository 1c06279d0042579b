import { describe, expect, it } from "@effect/vitest"
import { Either, Encoding, FastCheck as fc } from "effect"
import { type Cursor, decodeCursor as decodeCursorReason, encodeCursor, pageCount, parseSortList, SortOrder } from "./pagination.js"
import { reasonText } from "./reason.js"

/** A cursor read, its refusal in English. */
const decodeCursor = (...args: Parameters<typeof decodeCursorReason>) => Either.mapLeft(decodeCursorReason(...args), (r) => reasonText(r))

const id = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
const issued = "is not a cursor this service issued"

const cursor: fc.Arbitrary<Cursor> = fc.record({
  sort: fc.constantFrom("created_at", "updated_at", "email", "name", "subscriber_count"),
  order: fc.constantFrom(...SortOrder.literals),
  value: fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.emailAddress(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0))
  ),
  id: fc.uuid()
})

describe("cursors", () => {
  it.prop("decode what they encode, for the sort and order they were made for", [cursor], ([c]) => {
    const text = encodeCursor(c)
    expect(text).toMatch(/^[A-Za-z0-9_-]*$/)
    expect(decodeCursor(text, { sort: c.sort, order: c.order })).toEqual(Either.right(c))
  })

  it.prop("are refused for any other sort or order, naming the one they belong to", [cursor], ([c]) => {
    const otherOrder = c.order === "asc" ? "desc" : "asc"
    const text = encodeCursor(c)
    const expected = `belongs to sort=${c.sort}&order=${c.order}; repeat the query with those, or drop the cursor`
    expect(decodeCursor(text, { sort: c.sort, order: otherOrder })).toEqual(Either.left(expected))
    expect(decodeCursor(text, { sort: `${c.sort}_x`, order: c.order })).toEqual(Either.left(expected))
  })

  it("a cursor of the email sort is refused on the created_at sort", () => {
    const text = encodeCursor({ sort: "email", order: "asc", value: "ada@example.com", id })
    expect(decodeCursor(text, { sort: "created_at", order: "asc" })).toEqual(
      Either.left("belongs to sort=email&order=asc; repeat the query with those, or drop the cursor")
    )
  })

  it.each([
    ["garbage", "not a cursor!"],
    ["base64 of text that is not JSON", Encoding.encodeBase64Url("hello")],
    ["base64 of a JSON object", Encoding.encodeBase64Url(JSON.stringify({ sort: "created_at" }))],
    ["too few parts", Encoding.encodeBase64Url(JSON.stringify(["created_at", "desc", "2025-01-01T00:00:00.000Z"]))],
    ["an unknown order", Encoding.encodeBase64Url(JSON.stringify(["created_at", "up", "2025-01-01T00:00:00.000Z", id]))],
    ["a value that is an object", Encoding.encodeBase64Url(JSON.stringify(["created_at", "desc", { $gt: 1 }, id]))],
    ["an id that is not a UUID", Encoding.encodeBase64Url(JSON.stringify(["created_at", "desc", "2025-01-01T00:00:00.000Z", "1 OR 1=1"]))],
    ["an empty string", ""]
  ])("%s is refused", (_, text) => {
    expect(decodeCursor(text, { sort: "created_at", order: "desc" })).toEqual(Either.left(issued))
  })

  it.prop(
    "any text is either refused with a reason or reads as a cursor of the asked sort",
    [fc.string({ unit: "binary", maxLength: 120 })],
    ([text]) => {
      const result = decodeCursor(text, { sort: "created_at", order: "desc" })
      if (Either.isLeft(result)) expect(result.left.length).toBeGreaterThan(0)
      else expect(result.right).toMatchObject({ sort: "created_at", order: "desc" })
    }
  )
})

describe("sorts over several fields", () => {
  it.each([
    ["created_at", [{ field: "created_at", order: "asc" }]],
    ["-created_at", [{ field: "created_at", order: "desc" }]],
    ["-status, email,-updated_at", [
      { field: "status", order: "desc" },
      { field: "email", order: "asc" },
      { field: "updated_at", order: "desc" }
    ]]
  ])("%j reads as its keys in turn", (text, keys) => {
    expect(parseSortList(text)).toEqual(Either.right(keys))
  })

  it.each(["", ",", "-", "name,", "name,,email", "--"])("%j is refused", (text) => {
    expect(Either.isLeft(parseSortList(text))).toBe(true)
  })
})

describe("page counts", () => {
  it.each([[0, 10, 0], [1, 10, 1], [10, 10, 1], [11, 10, 2], [250, 100, 3]])(
    "%i rows of %i a page fill %i pages",
    (total, perPage, pages) => {
      expect(pageCount(total, perPage)).toBe(pages)
    }
  )
})
