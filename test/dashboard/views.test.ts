/**
 * The dashboard's templates are parsed on their first page, not when the server starts: every one
 * of them must parse, so that a mistake in one shows here rather than on the screen that uses it.
 */
import { describe, expect, it } from "vitest"
import { parsedView, viewNames } from "../../adapters/http/dashboard/views.js"

describe("the dashboard's views", () => {
  it("every view and partial parses", () => {
    expect(viewNames.length).toBeGreaterThan(50)
    for (const name of viewNames) expect(parsedView(name), name).not.toHaveLength(0)
  })

  it("a view is parsed once and kept", () => {
    expect(parsedView("subscribers")).toBe(parsedView("subscribers"))
  })
})
