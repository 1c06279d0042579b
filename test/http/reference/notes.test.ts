/**
 * /api/v1/subscribers/{id}/notes: notes on subscribers. A new note reaches webhooks as
 * subscriber.note_added; notes are in the subscriber's data export and go with the subscriber.
 */
import { Outbox, Subscribers, WebhookDispatch } from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { createSubscriber, expectInvalid, expectProblem, isoInstantPattern, type Receiver, startReceiver, uuidPattern } from "../helpers.js"

let server: TestHttpServer
let receiver: Receiver
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } })
  receiver = await startReceiver()
})
afterAll(() => Promise.all([server.close(), receiver.close()]))

const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"
const notesOf = (id: string) => `/api/v1/subscribers/${id}/notes`

const addNote = async (key: string, subscriberId: string, body = "Asked about the annual plan") => {
  const answer = await call(server, "POST", notesOf(subscriberId), { key, json: { body } })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

describe("notes on a subscriber", () => {
  it("are added by the caller, read, listed newest first, changed and deleted", async () => {
    const { key, organization } = await server.seedOrganization()
    const reader = await createSubscriber(server, key)
    const first = await addNote(key, reader.id, "  Called support on Monday  ")
    expect(first).toEqual({
      id: expect.stringMatching(uuidPattern),
      subscriber_id: reader.id,
      body: "Called support on Monday",
      author: { type: "api_key", id: expect.stringMatching(uuidPattern) },
      created_at: expect.stringMatching(isoInstantPattern),
      updated_at: first.created_at
    })
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    const byMember = await call(server, "POST", notesOf(reader.id), { headers: member.headers(organization.id), json: { body: "Renewed" } })
    expect(byMember.status, byMember.text).toBe(201)
    expect(byMember.body.author).toEqual({ type: "user", id: member.userId })

    const page = await call(server, "GET", `${notesOf(reader.id)}?limit=1`, { key })
    expect(page.body.items.map((n: { id: string }) => n.id)).toEqual([byMember.body.id])
    expect(page.body.total).toBe(2)
    const rest = await call(server, "GET", `${notesOf(reader.id)}?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key })
    expect(rest.body.items.map((n: { id: string }) => n.id)).toEqual([first.id])

    const changed = await call(server, "PUT", `${notesOf(reader.id)}/${first.id}`, { key, json: { body: "Called twice" } })
    expect(changed.body).toMatchObject({ id: first.id, body: "Called twice", created_at: first.created_at })
    expect((await call(server, "GET", `${notesOf(reader.id)}/${first.id}`, { key })).body.body).toBe("Called twice")
    expect((await call(server, "DELETE", `${notesOf(reader.id)}/${first.id}`, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", `${notesOf(reader.id)}/${first.id}`, { key }), "not_found", `${notesOf(reader.id)}/${first.id}`)
  })

  it("reach webhooks as subscriber.note_added, signed", async () => {
    const { key } = await server.seedOrganization()
    const hook = await call(server, "POST", "/api/v1/webhooks", { key, json: { url: receiver.url, events: ["subscriber.note_added"] } })
    expect(hook.status, hook.text).toBe(201)
    const reader = await createSubscriber(server, key)
    const note = await addNote(key, reader.id)
    await server.run(Effect.gen(function*() {
      const dispatch = yield* WebhookDispatch
      while ((yield* dispatch.fanOut(200)).events > 0) {
        // until every recorded event is taken
      }
      yield* dispatch.deliverDue(200, 30_000)
    }))
    const got = receiver.received.filter((r) => r.body.includes(note.id))
    expect(got).toHaveLength(1)
    const payload = new Webhook(hook.body.signing_secret).verify(got[0]!.body, got[0]!.headers) as { readonly type: string; readonly data: unknown }
    expect(payload.type).toBe("subscriber.note_added")
    expect(payload.data).toEqual({ subscriber: { id: reader.id, email: reader.email }, note })
  })

  it("are in the subscriber's data export, and go when the subscriber is erased or deleted", async () => {
    const { key, organization } = await server.seedOrganization()
    const reader = await createSubscriber(server, key)
    const note = await addNote(key, reader.id)
    const link = await call(server, "POST", `/api/v1/subscribers/${reader.id}/token`, { key })
    const exported = await call(server, "GET", `/preference-center/data-export?token=${encodeURIComponent(link.body.token)}`)
    expect(exported.body.notes).toEqual([{ id: note.id, body: note.body, created_at: note.created_at, updated_at: note.updated_at }])

    expect((await call(server, "DELETE", `/preference-center/account?token=${encodeURIComponent(link.body.token)}`)).status).toBe(202)
    await server.run(Effect.flatMap(Subscribers, (s) => s.eraseRequested(100)))
    expectProblem(await call(server, "GET", notesOf(reader.id), { key }), "not_found", notesOf(reader.id))
    const events = await server.run(Effect.flatMap(Outbox, (o) => o.recorded(OrganizationId.make(organization.id))))
    expect(JSON.stringify(events)).not.toContain(note.body)

    const other = await createSubscriber(server, key)
    await addNote(key, other.id, "To be deleted")
    expect((await call(server, "DELETE", `/api/v1/subscribers/${other.id}`, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", notesOf(other.id), { key }), "not_found", notesOf(other.id))
  })

  it("refuse empty, oversized and unknown fields, other organizations' subscribers, and missing scopes", async () => {
    const { key, organization } = await server.seedOrganization()
    const reader = await createSubscriber(server, key)
    for (const body of ["", "   ", "x".repeat(10_001), 7]) {
      expectInvalid(await call(server, "POST", notesOf(reader.id), { key, json: { body } }), notesOf(reader.id), ["body"])
    }
    expectInvalid(await call(server, "POST", notesOf(reader.id), { key, json: { body: "x", pinned: true } }), notesOf(reader.id), ["pinned"])
    expectProblem(await call(server, "POST", notesOf(nothing), { key, json: { body: "x" } }), "not_found", notesOf(nothing))
    const other = await server.seedOrganization()
    expectProblem(await call(server, "GET", notesOf(reader.id), { key: other.key }), "forbidden", notesOf(reader.id))
    const note = await addNote(key, reader.id)
    // A note is reached only under its own subscriber.
    const neighbour = await createSubscriber(server, key)
    expectProblem(await call(server, "GET", `${notesOf(neighbour.id)}/${note.id}`, { key }), "not_found", `${notesOf(neighbour.id)}/${note.id}`)
    const readOnly = await server.createApiKey(organization, ["subscribers:read"])
    expect((await call(server, "GET", notesOf(reader.id), { key: readOnly })).status).toBe(200)
    const refused = await call(server, "POST", notesOf(reader.id), { key: readOnly, json: { body: "x" } })
    expectProblem(refused, "forbidden", notesOf(reader.id))
    expect(refused.body.detail).toContain("subscribers:write")
  })
})
