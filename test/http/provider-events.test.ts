/**
 * POST /webhooks/resend-events over the real server, in both wire forms: Resend's events, signed
 * with EMAIL_WEBHOOK_SECRET (a hex HMAC of the body, or Resend's own Svix headers), move the email
 * and, for a hard bounce or a complaint, the subscriber; anything unsigned changes nothing.
 */
import { EmailDelivery, Outbox } from "@roster/application"
import { OrganizationId } from "@roster/domain"
import { Effect } from "effect"
import { createHmac, randomBytes, randomUUID } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Answer, call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { freshEmail } from "./helpers.js"

const secret = `whsec_${randomBytes(32).toString("base64")}`
const forms = ["reference", "overview"] as const
const servers = {} as Record<(typeof forms)[number], TestHttpServer>
let unconfigured: TestHttpServer

beforeAll(async () => {
  for (const form of forms) {
    servers[form] = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive, config: { EMAIL_WEBHOOK_SECRET: secret } })
  }
  unconfigured = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => Promise.all([...forms.map((form) => servers[form].close()), unconfigured.close()]))

const apiOf = (server: TestHttpServer) => server === servers.overview ? "/v1" : "/api/v1"
const bodyOf = (answer: Answer) => answer.body.data ?? answer.body

/** An email sent through the server and handed to the (console) mailer, as the worker would. */
const sentEmail = async (server: TestHttpServer) => {
  const api = apiOf(server)
  const { key, organization } = await server.seedOrganization({ environment: "live" })
  const email = freshEmail()
  const subscriber = bodyOf(await call(server, "POST", `${api}/subscribers`, { key, json: { email } }))
  const accepted = await call(server, "POST", `${api}/emails/send`, {
    key,
    json: { to: email, kind: "transactional", subject: "Receipt", text: "Thanks" }
  })
  expect(accepted.status, accepted.text).toBe(202)
  await server.run(Effect.flatMap(EmailDelivery, (d) => d.deliverNext({ batchSize: 100, leaseMs: 30_000, providerRate: 1_000 })))
  const message = bodyOf(await call(server, "GET", `${api}/emails/${bodyOf(accepted).id}`, { key }))
  expect(message.status).toBe("sent")
  return { api, key, organization, subscriber, message }
}

/** A new organization whose subscriber holds `email`; nothing was ever sent to it. */
const holder = async (server: TestHttpServer, email: string) => {
  const api = apiOf(server)
  const { key, organization } = await server.seedOrganization()
  const created = await call(server, "POST", `${api}/subscribers`, { key, json: { email } })
  expect(created.status, created.text).toBe(201)
  return { api, key, organization, subscriber: bodyOf(created) }
}

/** What webhooks of the organization hear of subscriber changes. */
const subscriberUpdates = async (server: TestHttpServer, organizationId: string) =>
  (await server.run(Effect.flatMap(Outbox, (o) => o.recorded(OrganizationId.make(organizationId)))))
    .filter((e) => e.type === "subscriber.updated")

const emailOf = async (server: TestHttpServer, api: string, key: string, id: string) =>
  bodyOf(await call(server, "GET", `${api}/emails/${id}`, { key }))

const statusOf = async (server: TestHttpServer, api: string, key: string, id: string) =>
  bodyOf(await call(server, "GET", `${api}/subscribers/${id}`, { key })).status as string

const resendEvent = (type: string, data: Record<string, unknown>) =>
  JSON.stringify({ type, created_at: new Date().toISOString(), data: { created_at: new Date().toISOString(), ...data } })

const post = (server: TestHttpServer, body: string, headers: Record<string, string>) =>
  call(server, "POST", "/webhooks/resend-events", { body, headers: { "content-type": "application/json", ...headers } })

const hmacSigned = (body: string) => ({ "X-EmailProvider-Signature": createHmac("sha256", secret).update(body).digest("hex") })

const svixSigned = (body: string, at = new Date(), id = `msg_${randomUUID()}`) => ({
  "svix-id": id,
  "svix-timestamp": String(Math.floor(at.getTime() / 1000)),
  "svix-signature": new Webhook(secret).sign(id, at, body)
})

for (const form of forms) {
  describe(`provider events (${form} form)`, () => {
    const server = () => servers[form]

    it("a delivery signed with X-EmailProvider-Signature marks the email delivered, once", async () => {
      const { api, key, message } = await sentEmail(server())
      const body = resendEvent("email.delivered", { email_id: message.provider_message_id, to: [message.to] })
      const first = await post(server(), body, hmacSigned(body))
      expect(first.status, first.text).toBe(200)
      expect(first.body).toEqual({ received: true, recorded: 1 })
      const again = await post(server(), body, hmacSigned(body))
      expect(again.body).toEqual({ received: true, recorded: 0 })
      const after = await emailOf(server(), api, key, message.id)
      expect(after.status).toBe("delivered")
      expect(after.history.map((e: { type: string }) => e.type)).toEqual(["queued", "sent", "delivered"])
    })

    it("a hard bounce signed by Resend's Svix headers bounces the email and the subscriber, and webhooks hear of it", async () => {
      const { api, key, message, organization, subscriber } = await sentEmail(server())
      const body = resendEvent("email.bounced", {
        email_id: message.provider_message_id,
        to: [message.to],
        bounce: { type: "Permanent", subType: "General", message: "mailbox does not exist" }
      })
      const answer = await post(server(), body, svixSigned(body))
      expect(answer.body, answer.text).toEqual({ received: true, recorded: 1 })
      const after = await emailOf(server(), api, key, message.id)
      expect(after.status).toBe("bounced")
      expect(after.history.at(-1)).toMatchObject({ type: "bounced", detail: "mailbox does not exist" })
      expect(await statusOf(server(), api, key, subscriber.id)).toBe("bounced")
      const events = await server().run(Effect.flatMap(Outbox, (o) => o.recorded(OrganizationId.make(organization.id))))
      const updated = events.filter((e) => e.type === "subscriber.updated")
      expect(updated).toHaveLength(1)
      expect(updated[0]!.data).toMatchObject({ subscriber: { id: subscriber.id, status: "bounced" }, changed: ["status"] })

      // Nothing more reaches a bounced address.
      const next = await call(server(), "POST", `${api}/emails/send`, {
        key,
        json: { to: message.to, kind: "transactional", subject: "Again", text: "x" }
      })
      expect(bodyOf(next).status).toBe("suppressed")
    })

    it("a complaint marks the subscriber complained; a soft bounce is only a delay", async () => {
      const { api, key, message, subscriber } = await sentEmail(server())
      const soft = resendEvent("email.bounced", { email_id: message.provider_message_id, bounce: { type: "Transient", message: "mailbox full" } })
      await post(server(), soft, svixSigned(soft))
      expect((await emailOf(server(), api, key, message.id)).status).toBe("sent")
      expect(await statusOf(server(), api, key, subscriber.id)).toBe("active")

      const complaint = resendEvent("email.complained", { email_id: message.provider_message_id })
      expect((await post(server(), complaint, hmacSigned(complaint))).body.recorded).toBe(1)
      expect((await emailOf(server(), api, key, message.id)).status).toBe("complained")
      expect(await statusOf(server(), api, key, subscriber.id)).toBe("complained")
    })

    it("reports out of order never move an email back, and an email the provider id misses is found by its recipient", async () => {
      const { api, key, message } = await sentEmail(server())
      const opened = resendEvent("email.opened", { email_id: "re_not_ours", to: [`Reader <${message.to}>`] })
      expect((await post(server(), opened, hmacSigned(opened))).body.recorded).toBe(1)
      const delivered = resendEvent("email.delivered", { email_id: message.provider_message_id })
      expect((await post(server(), delivered, hmacSigned(delivered))).body.recorded).toBe(1)
      const after = await emailOf(server(), api, key, message.id)
      expect(after.status).toBe("opened")
      expect(after.history.map((e: { type: string }) => e.type)).toEqual(["queued", "sent", "opened", "delivered"])
    })

    it("kinds it does not track, and emails it does not know, are acknowledged and change nothing", async () => {
      for (const body of [
        resendEvent("contact.created", { id: randomUUID() }),
        resendEvent("email.delivered", { email_id: "re_unknown", to: ["nobody@example.com"] }),
        JSON.stringify({ surprise: true })
      ]) {
        const answer = await post(server(), body, hmacSigned(body))
        expect(answer.status, answer.text).toBe(200)
        expect(answer.body).toEqual({ received: true, recorded: 0 })
      }
    })

    it("refuses events without a good signature with 401 invalid_signature, and changes nothing", async () => {
      const { api, key, message } = await sentEmail(server())
      const body = resendEvent("email.complained", { email_id: message.provider_message_id })
      const tampered = body.replace("complained", "delivered")
      const refusals = [
        await post(server(), body, {}),
        await post(server(), tampered, hmacSigned(body)),
        await post(server(), body, { "X-EmailProvider-Signature": "zz" }),
        await post(server(), body, svixSigned(body, new Date(Date.now() - 10 * 60_000))),
        await post(server(), tampered, svixSigned(body)),
        await post(server(), body, { ...svixSigned(body), "svix-id": "msg_other" })
      ]
      for (const answer of refusals) {
        expect(answer.status, answer.text).toBe(401)
        if (form === "reference") {
          expect(answer.body).toMatchObject({ status: 401, title: "Invalid Signature" })
        } else {
          expect(answer.body.error.code).toBe("invalid_signature")
        }
      }
      const after = await emailOf(server(), api, key, message.id)
      expect(after.status).toBe("sent")
    })

    it("a hard bounce for an address never emailed bounces it in every organization that holds it, once", async () => {
      const address = freshEmail("shared")
      const first = await holder(server(), address)
      const second = await holder(server(), address.toUpperCase())
      const bystander = await holder(server(), freshEmail("bystander"))
      const body = resendEvent("email.bounced", {
        email_id: `re_${randomUUID()}`,
        to: [`Reader <${address}>`],
        bounce: { type: "Permanent", subType: "General", message: "mailbox does not exist" }
      })
      const answer = await post(server(), body, hmacSigned(body))
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body).toEqual({ received: true, recorded: 0 })
      for (const { api, key, organization, subscriber } of [first, second]) {
        expect(await statusOf(server(), api, key, subscriber.id)).toBe("bounced")
        const updated = await subscriberUpdates(server(), organization.id)
        expect(updated).toHaveLength(1)
        expect(updated[0]!.data).toMatchObject({ subscriber: { id: subscriber.id, status: "bounced" }, changed: ["status"] })
      }
      expect(await statusOf(server(), bystander.api, bystander.key, bystander.subscriber.id)).toBe("active")

      // The same event again changes nothing, even where the address was made active since.
      const reactivated = await call(server(), form === "reference" ? "PUT" : "PATCH", `${first.api}/subscribers/${first.subscriber.id}`, {
        key: first.key,
        json: { status: "active" }
      })
      expect(reactivated.status, reactivated.text).toBe(200)
      const again = await post(server(), body, hmacSigned(body))
      expect(again.body).toEqual({ received: true, recorded: 0 })
      expect(await statusOf(server(), first.api, first.key, first.subscriber.id)).toBe("active")
      expect(await subscriberUpdates(server(), second.organization.id)).toHaveLength(1)
    })

    it("a hard bounce of a known email bounces the address in the other organizations that hold it too", async () => {
      const { api, key, message, subscriber } = await sentEmail(server())
      const other = await holder(server(), message.to)
      const body = resendEvent("email.bounced", {
        email_id: message.provider_message_id,
        bounce: { type: "Permanent", subType: "Suppressed", message: "on the suppression list" }
      })
      expect((await post(server(), body, svixSigned(body))).body).toEqual({ received: true, recorded: 1 })
      expect(await statusOf(server(), api, key, subscriber.id)).toBe("bounced")
      expect(await statusOf(server(), other.api, other.key, other.subscriber.id)).toBe("bounced")
      expect(await subscriberUpdates(server(), other.organization.id)).toHaveLength(1)
    })

    it("a complaint about a known email marks complained only in the organization that sent it", async () => {
      const { api, key, message, subscriber } = await sentEmail(server())
      const other = await holder(server(), message.to)
      const body = resendEvent("email.complained", { email_id: message.provider_message_id, to: [message.to] })
      expect((await post(server(), body, hmacSigned(body))).body).toEqual({ received: true, recorded: 1 })
      expect(await statusOf(server(), api, key, subscriber.id)).toBe("complained")
      expect(await statusOf(server(), other.api, other.key, other.subscriber.id)).toBe("active")
      expect(await subscriberUpdates(server(), other.organization.id)).toHaveLength(0)
    })

    it("a complaint about an email it does not know marks the address complained in every organization that holds it", async () => {
      const address = freshEmail("complainer")
      const first = await holder(server(), address)
      const second = await holder(server(), address)
      const body = resendEvent("email.complained", { email_id: `re_${randomUUID()}`, to: [address] })
      expect((await post(server(), body, svixSigned(body))).body).toEqual({ received: true, recorded: 0 })
      for (const { api, key, organization, subscriber } of [first, second]) {
        expect(await statusOf(server(), api, key, subscriber.id)).toBe("complained")
        expect(await subscriberUpdates(server(), organization.id)).toHaveLength(1)
      }
    })

    it("a signed body that is not JSON is a 400", async () => {
      const body = "not json"
      const answer = await post(server(), body, hmacSigned(body))
      expect(answer.status, answer.text).toBe(400)
    })
  })
}

describe("provider events without EMAIL_WEBHOOK_SECRET", () => {
  it("are all refused: nothing can be checked", async () => {
    const body = resendEvent("email.delivered", { email_id: "re_x" })
    const answer = await post(unconfigured, body, hmacSigned(body))
    expect(answer.status).toBe(401)
    expect(answer.body.detail).toContain("EMAIL_WEBHOOK_SECRET")
  })
})
