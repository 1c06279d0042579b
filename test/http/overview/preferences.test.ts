/**
 * The preference center in the overview form (`API_FORM=overview`), over the real server: the link
 * from `/v1/subscribers/:id/token`, `GET/PATCH /v1/preferences/:token` and `/preference-center`,
 * all in `data` and `error` envelopes.
 */
import { Outbox } from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer } from "../../support/http-server.js"
import { createSubscriber, createTag, expectError, expectInvalid, freshTagName, isoInstantPattern } from "./helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ form: "overview" })
})
afterAll(() => server.close())

/** A subscriber of a fresh organization with tags of these names, and a preference token for them. */
const subscriberWithLink = async (tagNames: ReadonlyArray<string> = []) => {
  const { key, organization } = await server.seedOrganization()
  for (const name of tagNames) await createTag(server, key, { name })
  const subscriber = await createSubscriber(server, key)
  const answer = await call(server, "POST", `/v1/subscribers/${subscriber.id}/token`, { key })
  expect(answer.status, answer.text).toBe(200)
  return { key, organization, subscriber, token: answer.body.data.token as string }
}

const preferences = (token: string) => `/v1/preferences/${encodeURIComponent(token)}`

const recordedTypes = (organizationId: string) =>
  server.run(Effect.flatMap(Outbox, (outbox) => outbox.recorded(OrganizationId.make(organizationId)))).then((events) =>
    events.map((event) => event.type)
  )

describe("POST /v1/subscribers/:id/token", () => {
  it("answers the link in `data`; under /api/v1 too", async () => {
    const { key } = await server.seedOrganization()
    const subscriber = await createSubscriber(server, key)
    for (const prefix of ["/v1", "/api/v1"]) {
      const answer = await call(server, "POST", `${prefix}/subscribers/${subscriber.id}/token`, { key })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body).toEqual({
        data: {
          token: expect.any(String),
          url: `http://localhost:3000/preference-center?token=${answer.body.data.token}`,
          expires_at: expect.stringMatching(isoInstantPattern)
        }
      })
    }
  })

  it("answers 404 in the envelope for a subscriber the organization does not have, and 403 without the scope", async () => {
    const { key } = await server.seedOrganization()
    expectError(await call(server, "POST", "/v1/subscribers/0192f3a4-0000-7000-8000-000000000000/token", { key }), "not_found")
    const { key: reader } = await server.seedOrganization({ scopes: ["subscribers:read"] })
    const own = await createSubscriber(server, (await server.seedOrganization()).key)
    expectError(await call(server, "POST", `/v1/subscribers/${own.id}/token`, { key: reader }), "forbidden")
  })
})

describe("GET /v1/preferences/:token", () => {
  it("answers the preferences in `data`; /preference-center answers the same", async () => {
    const name = freshTagName()
    const { organization, subscriber, token } = await subscriberWithLink([name])
    const answer = await call(server, "GET", preferences(token))
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      data: {
        organization_name: organization.name,
        email: subscriber.email,
        status: "active",
        subscribed_tags: [],
        available_tags: [{ id: expect.any(String), name, slug: expect.any(String), description: null, subscribed: false }]
      }
    })
    const same = await call(server, "GET", `/preference-center?token=${encodeURIComponent(token)}`)
    expect(same.body).toEqual(answer.body)
  })

  it("answers 401 invalid_token in the envelope for a broken token and a revoked one", async () => {
    const { key, subscriber, token } = await subscriberWithLink()
    expectError(await call(server, "GET", preferences("not-a-token")), "invalid_token")
    expectError(await call(server, "GET", "/preference-center"), "invalid_token")
    expect((await call(server, "DELETE", `/v1/subscribers/${subscriber.id}/token`, { key })).status).toBe(204)
    expectError(await call(server, "GET", preferences(token)), "invalid_token")
  })
})

describe("PATCH /v1/preferences/:token", () => {
  it("subscribes to `add` and unsubscribes from `remove` by name, recording the API's events", async () => {
    const [weekly, news] = [freshTagName("Weekly"), freshTagName("News")]
    const { organization, token } = await subscriberWithLink([weekly, news])
    const first = await call(server, "PATCH", preferences(token), { json: { add: [weekly.toUpperCase(), news] } })
    expect(first.status, first.text).toBe(200)
    expect(first.body.data.subscribed_tags.map((t: { name: string }) => t.name).sort()).toEqual([news, weekly].sort())
    const second = await call(server, "PATCH", preferences(token), { json: { remove: [news, "no such tag"] } })
    expect(second.body.data.subscribed_tags.map((t: { name: string }) => t.name)).toEqual([weekly])
    expect((await recordedTypes(organization.id)).filter((type) => type.startsWith("tag."))).toEqual([
      "tag.subscribed",
      "tag.subscribed",
      "tag.unsubscribed"
    ])
  })

  it("`status` stops and starts all mail; adding a tag starts it again", async () => {
    const name = freshTagName()
    const { key, subscriber, token } = await subscriberWithLink([name])
    const stopped = await call(server, "PATCH", preferences(token), { json: { status: "unsubscribed" } })
    expect(stopped.body.data.status).toBe("unsubscribed")
    expect((await call(server, "GET", `/v1/subscribers/${subscriber.id}`, { key })).body.data.status).toBe("unsubscribed")
    const started = await call(server, "PATCH", preferences(token), { json: { add: [name] } })
    expect(started.body.data.status).toBe("active")
    const both = await call(server, "PATCH", preferences(token), { json: { add: [name], status: "unsubscribed" } })
    expect(both.body.data.status).toBe("unsubscribed")
  })

  it("refuses a name no tag has in `add`, a name in both lists, a bad status and unknown fields, changing nothing", async () => {
    const name = freshTagName()
    const { token } = await subscriberWithLink([name])
    expectInvalid(await call(server, "PATCH", preferences(token), { json: { add: [name, "Nothing by this name"] } }), ["add[1]"])
    expectInvalid(await call(server, "PATCH", preferences(token), { json: { add: [name], remove: [name] } }), ["remove[0]"])
    expectInvalid(await call(server, "PATCH", preferences(token), { json: { status: "bounced" } }), ["status"])
    expectInvalid(await call(server, "PATCH", preferences(token), { json: { tags: [name] } }), ["tags"])
    const after = await call(server, "GET", preferences(token))
    expect(after.body.data).toMatchObject({ status: "active", subscribed_tags: [] })
  })

  it("never reaches another organization's tags: their names are unknown here", async () => {
    const { key: otherKey } = await server.seedOrganization()
    const foreign = await createTag(server, otherKey, { name: freshTagName("Foreign") })
    const { token } = await subscriberWithLink()
    expectInvalid(await call(server, "PATCH", preferences(token), { json: { add: [foreign.name] } }), ["add[0]"])
    expectError(await call(server, "PUT", `/preference-center/tags/${foreign.id}?token=${encodeURIComponent(token)}`), "not_found")
  })
})

describe("GET /preference-center/data-export", () => {
  it("answers the export in `data`, as a file", async () => {
    const { subscriber, token } = await subscriberWithLink([freshTagName()])
    const answer = await call(server, "GET", `/preference-center/data-export?token=${encodeURIComponent(token)}`)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.headers.get("content-disposition")).toMatch(/^attachment; filename="roster-data-/)
    expect(answer.body.data.subscriber).toMatchObject({ id: subscriber.id, email: subscriber.email })
    expect(answer.body.data.events.map((event: { type: string }) => event.type)).toEqual(["subscriber.created"])
    expectError(await call(server, "GET", "/preference-center/data-export"), "invalid_token")
  })
})

describe("DELETE /preference-center/account", () => {
  it("answers 202 in `data`, again on a repeat; the links stop working", async () => {
    const { token } = await subscriberWithLink()
    const path = `/preference-center/account?token=${encodeURIComponent(token)}`
    const answer = await call(server, "DELETE", path)
    expect(answer.status, answer.text).toBe(202)
    expect(answer.body.data.message).toContain("erased")
    expect((await call(server, "DELETE", path)).status).toBe(202)
    expectError(await call(server, "GET", preferences(token)), "invalid_token")
  })
})
