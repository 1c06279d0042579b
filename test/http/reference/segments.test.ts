/**
 * /api/v1/segments: saved filters, refused with the path of the bad node, previewed as the count
 * and the first page of who matches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { createSubscriber, createTag, expectInvalid, expectProblem, isoInstantPattern, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const path = "/api/v1/segments"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

/** An organization with a tag, two pro subscribers carrying it (one at example.org) and one free one. */
const givenPeople = async () => {
  const seeded = await server.seedOrganization()
  const { key } = seeded
  const tag = await createTag(server, key)
  const ada = await createSubscriber(server, key, { email: "ada@example.com", tags: [tag.id], metadata: { plan: "pro" } })
  const bob = await createSubscriber(server, key, { email: "bob@example.org", tags: [tag.id], metadata: { plan: "pro" } })
  const cyd = await createSubscriber(server, key, { email: "cyd@example.com", metadata: { plan: "free" } })
  return { ...seeded, tag, ada, bob, cyd }
}

const proNotExampleOrg = (tagId: string) => ({
  all: [
    { field: "tags", op: "has_any", value: [tagId] },
    { field: "metadata.plan", op: "eq", value: "pro" },
    { not: { field: "email", op: "ends_with", value: "@example.org" } }
  ]
})

describe("segments", () => {
  it("are created, read, listed oldest first, changed, previewed and deleted", async () => {
    const { key, tag, ada, bob, cyd } = await givenPeople()
    const made = await call(server, "POST", path, { key, json: { name: " Pro readers ", filter: proNotExampleOrg(tag.id) } })
    expect(made.status, made.text).toBe(201)
    expect(made.body).toEqual({
      id: expect.stringMatching(uuidPattern),
      name: "Pro readers",
      description: null,
      filter: proNotExampleOrg(tag.id),
      created_at: expect.stringMatching(isoInstantPattern),
      updated_at: made.body.created_at
    })
    const id = made.body.id
    expect((await call(server, "GET", `${path}/${id}`, { key })).body).toEqual(made.body)

    const preview = await call(server, "POST", `${path}/${id}/preview`, { key })
    expect(preview.status, preview.text).toBe(200)
    expect(preview.body).toMatchObject({ total: 1, next_cursor: null })
    expect(preview.body.items).toEqual([expect.objectContaining({
      id: ada.id,
      email: "ada@example.com",
      tags: [{ id: tag.id, name: tag.name, slug: tag.slug }]
    })])

    const second = await call(server, "POST", path, { key, json: { name: "Everyone", description: "all of them", filter: { all: [] } } })
    const everyone = second.body.id
    const first = await call(server, "POST", `${path}/${everyone}/preview?limit=2`, { key })
    expect(first.body.total).toBe(3)
    expect(first.headers.get("x-total-count")).toBe("3")
    const byId = [ada.id, bob.id, cyd.id].sort()
    expect(first.body.items.map((s: { id: string }) => s.id)).toEqual(byId.slice(0, 2))
    const rest = await call(server, "POST", `${path}/${everyone}/preview?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key })
    expect(rest.body.items.map((s: { id: string }) => s.id)).toEqual(byId.slice(2))
    expect(rest.body.next_cursor).toBeNull()

    const page = await call(server, "GET", `${path}?limit=1`, { key })
    expect(page.body.items.map((s: { id: string }) => s.id)).toEqual([id])
    expect(page.body.total).toBe(2)
    const next = await call(server, "GET", `${path}?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key })
    expect(next.body.items.map((s: { id: string }) => s.id)).toEqual([everyone])

    const changed = await call(server, "PUT", `${path}/${id}`, {
      key,
      json: { description: "pro", filter: { field: "metadata.plan", op: "eq", value: "pro" } }
    })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.body).toMatchObject({ name: "Pro readers", description: "pro" })
    expect((await call(server, "POST", `${path}/${id}/preview`, { key })).body.total).toBe(2)

    expect((await call(server, "DELETE", `${path}/${id}`, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", `${path}/${id}`, { key }), "not_found", `${path}/${id}`)
  })

  it("previews a filter not saved", async () => {
    const { key, tag, ada, bob } = await givenPeople()
    const answer = await call(server, "POST", `${path}/preview`, {
      key,
      json: { filter: { any: [{ field: "email", op: "domain", value: "EXAMPLE.org" }, { field: "tags", op: "has_all", value: [tag.id] }] } }
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.total).toBe(2)
    expect(answer.body.items.map((s: { id: string }) => s.id)).toEqual([ada.id, bob.id].sort())
  })

  it("a bad filter is a 400 naming the path of each bad node", async () => {
    const { key, tag } = await givenPeople()
    const bad = {
      all: [
        { field: "status", op: "eq", value: "active" },
        { field: "tags", op: "has_any", value: "not a list" },
        { not: { field: "metadata.plan", op: "between", value: 1 } },
        { any: [{ field: "engagement.opened_days", op: "within", value: 0 }] }
      ]
    }
    const answer = await call(server, "POST", path, { key, json: { name: "Bad", filter: bad } })
    expectInvalid(answer, path, ["filter.all[1].value", "filter.all[2].not.op", "filter.all[3].any[0].value"])
    // The wire form words each problem in English, as it always has.
    expect(answer.body.errors).toEqual(expect.arrayContaining([
      { field: "filter.all[1].value", message: "must be an array, not \"not a list\"" },
      { field: "filter.all[2].not.op", message: "must be one of eq, neq, exists, not_exists, contains, gt, gte, lt, lte for metadata.<path>" },
      { field: "filter.all[3].any[0].value", message: "must be a whole number of days from 1 to 3650" }
    ]))
    expectInvalid(await call(server, "POST", `${path}/preview`, { key, json: { filter: { field: "nope", op: "eq", value: 1 } } }), `${path}/preview`, ["filter.field"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", filter: {}, extra: 1 } }), path, ["extra", "filter.field"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "", filter: { all: [] } } }), path, ["name"])
    let deep: unknown = { field: "status", op: "eq", value: "active" }
    for (let i = 0; i < 9; i++) deep = { not: deep }
    expectInvalid(await call(server, "POST", path, { key, json: { name: "Deep", filter: deep } }), path, ["filter.not.not.not.not.not.not.not.not"])
    // A tag of no one, or of another organization, is named where it stands.
    const other = await server.seedOrganization()
    const theirs = await createTag(server, other.key)
    const foreign = { all: [{ field: "tags", op: "has_any", value: [tag.id, theirs.id] }] }
    expectInvalid(await call(server, "POST", path, { key, json: { name: "Theirs", filter: foreign } }), path, ["filter.all[0].value[1]"])
  })

  it("one a draft or scheduled campaign reaches is kept, 409 naming the campaigns, until they reach another audience", async () => {
    const { key, tag } = await givenPeople()
    const id = (await call(server, "POST", path, { key, json: { name: "Pro", filter: { field: "metadata.plan", op: "eq", value: "pro" } } })).body.id
    const campaign = (body: Record<string, unknown>) =>
      call(server, "POST", "/api/v1/campaigns", { key, json: { name: "Pro news", subject: "Hi", text: "News", audience: { segment_id: id }, ...body } })
    const draft = (await campaign({})).body
    const scheduled = (await campaign({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() })).body
    expect((await call(server, "POST", `/api/v1/campaigns/${scheduled.id}/send`, { key })).body.status).toBe("scheduled")

    const refused = await call(server, "DELETE", `${path}/${id}`, { key })
    expectProblem(refused, "conflict", `${path}/${id}`)
    expect(refused.body.detail).toContain(`the audience of campaign ${draft.id}, ${scheduled.id}`)
    expect((await call(server, "POST", `${path}/${id}/preview`, { key })).body.total).toBe(2)

    await call(server, "PUT", `/api/v1/campaigns/${draft.id}`, { key, json: { audience: { tag_ids: [tag.id] } } })
    expect((await call(server, "POST", `/api/v1/campaigns/${scheduled.id}/cancel`, { key })).body.status).toBe("cancelled")
    expect((await call(server, "DELETE", `${path}/${id}`, { key })).status).toBe(204)
  })

  it("another organization's segment is refused, telling nothing of it, and an unknown one is not found", async () => {
    const { key } = await givenPeople()
    const other = await server.seedOrganization()
    const theirs = await call(server, "POST", path, { key: other.key, json: { name: "Theirs", filter: { all: [] } } })
    const at = `${path}/${theirs.body.id}`
    expectProblem(await call(server, "GET", at, { key }), "forbidden", at)
    expectProblem(await call(server, "PUT", at, { key, json: { name: "Mine" } }), "forbidden", at)
    expectProblem(await call(server, "POST", `${at}/preview`, { key }), "forbidden", `${at}/preview`)
    expectProblem(await call(server, "DELETE", at, { key }), "forbidden", at)
    expect((await call(server, "GET", at, { key: other.key })).body.name).toBe("Theirs")
    expectProblem(await call(server, "GET", `${path}/${nothing}`, { key }), "not_found", `${path}/${nothing}`)
  })

  it("reading needs segments:read, changing segments:write, previewing subscribers:read too", async () => {
    const { organization, key } = await givenPeople()
    const made = await call(server, "POST", path, { key, json: { name: "All", filter: { all: [] } } })
    const reader = await server.createApiKey(organization, ["segments:read"])
    expect((await call(server, "GET", `${path}/${made.body.id}`, { key: reader })).status).toBe(200)
    expect((await call(server, "GET", path, { key: reader })).status).toBe(200)
    const refused = await call(server, "POST", path, { key: reader, json: { name: "x", filter: { all: [] } } })
    expectProblem(refused, "forbidden", path)
    expect(refused.body.detail).toContain("segments:write")
    expectProblem(await call(server, "DELETE", `${path}/${made.body.id}`, { key: reader }), "forbidden", `${path}/${made.body.id}`)
    const preview = await call(server, "POST", `${path}/${made.body.id}/preview`, { key: reader })
    expectProblem(preview, "forbidden", `${path}/${made.body.id}/preview`)
    expect(preview.body.detail).toContain("subscribers:read")
    const both = await server.createApiKey(organization, ["segments:read", "subscribers:read"])
    expect((await call(server, "POST", `${path}/${made.body.id}/preview`, { key: both })).body.total).toBe(3)
    const writer = await server.createApiKey(organization, ["segments:write"])
    expectProblem(await call(server, "GET", path, { key: writer }), "forbidden", path)
    expect((await call(server, "POST", path, { key: writer, json: { name: "y", filter: { any: [] } } })).status).toBe(201)
  })
})
