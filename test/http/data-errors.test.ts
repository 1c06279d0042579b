/**
 * Values the service cannot take, over the real server in both wire forms: a body whose bytes are
 * not UTF-8 is a 400, tokens naming ids that are not UUIDs, spelt another way than the service
 * spells them or issued in the future are refused as tokens (401), and a value PostgreSQL refuses
 * (SQLSTATE class 22) is a 400 `validation_error`, never a 503 "try again". Where PostgreSQL
 * answers, the tokens are tried against a server over it too.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { TokenSigner } from "@roster/application"
import { Effect, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makePgClient, makePgliteClient, PostgresPersistenceLive, runMigrations } from "../../adapters/postgres/index.js"
import {
  type Answer,
  call,
  failingSubscriberRepository,
  startHttpServer,
  type TestHttpServer,
  UnlimitedRateLimiterLive
} from "../support/http-server.js"
import { postgresForProcesses } from "../support/servers.js"
import { freshEmail } from "./helpers.js"

const forms = ["reference", "overview"] as const
type Form = (typeof forms)[number]
const servers = {} as Record<Form, TestHttpServer>

beforeAll(async () => {
  for (const form of forms) servers[form] = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
})
afterAll(() => Promise.all(forms.map((form) => servers[form].close())))

const apiOf = (form: Form) => form === "overview" ? "/v1" : "/api/v1"
const bodyOf = (answer: Answer) => answer.body.data ?? answer.body

/** The answer is a 400 `validation_error` naming `field` with `message`, in the form's body. */
const expectInvalid = (form: Form, answer: Answer, field: string, message: string | RegExp) => {
  expect(answer.status, answer.text).toBe(400)
  const fields = form === "reference" ? answer.body.errors : answer.body.error.details
  if (form === "reference") expect(answer.body.type).toMatch(/\/validation_error$/)
  else expect(answer.body.error.code).toBe("validation_error")
  expect(fields, answer.text).toContainEqual({ field, message: expect.stringMatching(message) })
}

/** The answer refuses the credentials: 401 with the code the endpoint answers for them. */
const expectRefused = (form: Form, answer: Answer, code: "unauthorized" | "invalid_token") => {
  expect(answer.status, answer.text).toBe(401)
  if (form === "reference") expect(answer.body.type).toMatch(new RegExp(`/${code}$`))
  else expect(answer.body.error.code).toBe(code)
}

/** `{"metadata": {"note": "<C3 28>"}}`: a two-byte sequence cut short, as a client in Latin-1 might send. */
const notUtf8 = (json: string) => {
  const [before, after] = json.split("@@")
  return Buffer.concat([Buffer.from(before!), Buffer.from([0xc3, 0x28]), Buffer.from(after!)])
}

const postBytes = (server: TestHttpServer, path: string, key: string, body: Uint8Array, headers: Record<string, string> = {}) =>
  call(server, "POST", path, { key, body, headers: { "content-type": "application/json", ...headers } })

const signed = (server: TestHttpServer, kind: "session" | "preference", claims: {
  readonly subject: string
  readonly id: string
  readonly organizationId?: string
  readonly version?: number
  readonly issuedAt?: Date
}) =>
  server.run(Effect.flatMap(TokenSigner, (signer) =>
    signer.sign(kind, {
      ...claims,
      issuedAt: claims.issuedAt ?? new Date(),
      expiresAt: new Date(Date.now() + 3_600_000)
    })))

const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"))

/** The same token with the last character's unused bits set otherwise: the same bytes, spelt another way. */
const otherTrailingBits = (token: string) => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  const last = alphabet.indexOf(token.at(-1)!)
  const spelt = `${token.slice(0, -1)}${alphabet[last ^ 1]}`
  expect(Buffer.from(spelt.split(".")[2]!, "base64url")).toStrictEqual(Buffer.from(token.split(".")[2]!, "base64url"))
  return spelt
}

/** A subscriber of a new organization and a preference token of theirs, made through the API. */
const subscriberWithToken = async (server: TestHttpServer, form: Form) => {
  const api = apiOf(form)
  const { key, organization } = await server.seedOrganization()
  const subscriber = bodyOf(await call(server, "POST", `${api}/subscribers`, { key, json: { email: freshEmail() } }))
  const link = await call(server, "POST", `${api}/subscribers/${subscriber.id}/token`, { key })
  expect(link.status, link.text).toBe(200)
  return { key, organization, subscriber, token: bodyOf(link).token as string }
}

const center = (token: string) => `/preference-center?token=${encodeURIComponent(token)}`

/** Tokens naming ids that are not UUIDs: refused as tokens, before any lookup. */
const tokensNamingOtherIds = (form: Form, server: () => TestHttpServer) => {
  it("a session token naming a user or session that is not a UUID is 401", async () => {
    const user = await server().signIn()
    const { jti, sub } = payloadOf(user.sessionToken)
    for (const claims of [{ subject: "not-a-uuid", id: jti }, { subject: sub, id: "not-a-uuid" }, { subject: "1", id: "' OR 1=1 --" }]) {
      const token = await signed(server(), "session", claims)
      const answer = await call(server(), "GET", "/auth/organizations", { headers: { cookie: `svc_session=${token}` } })
      expectRefused(form, answer, "unauthorized")
    }
    expect((await call(server(), "GET", "/auth/organizations", { headers: user.headers() })).status).toBe(200)
  })

  it("a preference token naming a subscriber or organization that is not a UUID is 401 invalid_token", async () => {
    const { organization, subscriber, token } = await subscriberWithToken(server(), form)
    const { jti, ver } = payloadOf(token)
    for (const claims of [
      { subject: "not-a-uuid", id: jti, organizationId: organization.id, version: ver },
      { subject: subscriber.id, id: jti, organizationId: "not-a-uuid", version: ver },
      { subject: `${subscriber.id}x`, id: jti, organizationId: organization.id, version: ver }
    ]) {
      const forged = await signed(server(), "preference", claims)
      expectRefused(form, await call(server(), "GET", center(forged)), "invalid_token")
      const page = await fetch(`${server().baseUrl}/unsubscribe?token=${encodeURIComponent(forged)}`)
      expect(page.status).toBe(401)
    }
    expect((await call(server(), "GET", center(token))).status).toBe(200)
  })
}

for (const form of forms) {
  describe(`values the service cannot take (${form} form)`, () => {
    const server = () => servers[form]
    const api = apiOf(form)

    it("a JSON body whose bytes are not UTF-8 is a 400 naming the body, and nothing is made", async () => {
      const { key } = await server().seedOrganization()
      const email = freshEmail("bytes")
      const body = notUtf8(`{"email":"${email}","metadata":{"note":"caf@@"}}`)
      // The fast lane for subscribers, the API behind it (a request with an idempotency key), and another endpoint.
      expectInvalid(form, await postBytes(server(), `${api}/subscribers`, key, body), "body", "is not valid UTF-8")
      expectInvalid(
        form,
        await postBytes(server(), `${api}/subscribers`, key, body, { "idempotency-key": `utf8-${email}` }),
        "body",
        "is not valid UTF-8"
      )
      expectInvalid(form, await postBytes(server(), `${api}/tags`, key, notUtf8(`{"name":"Caf@@"}`)), "body", "is not valid UTF-8")
      const tags = (await call(server(), "GET", `${api}/tags`, { key })).body
      expect(tags.items ?? tags.data).toEqual([])
      // The address was not taken: the same subscriber in good UTF-8 is new. A replacement character sent as UTF-8 is text like any other.
      const made = await postBytes(server(), `${api}/subscribers`, key, Buffer.from(`{"email":"${email}","metadata":{"note":"caf\uFFFD"}}`))
      expect(made.status, made.text).toBe(201)
      expect(bodyOf(made).metadata).toEqual({ note: "caf\uFFFD" })
    })

    tokensNamingOtherIds(form, server)

    it("a token spelt otherwise than the service spells it is refused, though its bytes are the same", async () => {
      const user = await server().signIn()
      const { token } = await subscriberWithToken(server(), form)
      const session = user.sessionToken
      for (const spelt of [`${session}=`, otherTrailingBits(session), `${session.slice(0, 10)} ${session.slice(10)}`]) {
        expectRefused(form, await call(server(), "GET", "/auth/organizations", { headers: { cookie: `svc_session=${encodeURIComponent(spelt)}` } }), "unauthorized")
      }
      for (const spelt of [`${token}=`, otherTrailingBits(token), `${token.slice(0, 10)} ${token.slice(10)}`]) {
        expectRefused(form, await call(server(), "GET", center(spelt)), "invalid_token")
      }
      expect((await call(server(), "GET", "/auth/organizations", { headers: user.headers() })).status).toBe(200)
      expect((await call(server(), "GET", center(token))).status).toBe(200)
    })

    it("a token issued more than a minute ahead of the service's clock is refused", async () => {
      const user = await server().signIn()
      const { jti, sub } = payloadOf(user.sessionToken)
      const ahead = await signed(server(), "session", { subject: sub, id: jti, issuedAt: new Date(Date.now() + 5 * 60_000) })
      expectRefused(form, await call(server(), "GET", "/auth/organizations", { headers: { cookie: `svc_session=${ahead}` } }), "unauthorized")
      const { organization, subscriber, token } = await subscriberWithToken(server(), form)
      const claims = payloadOf(token)
      const early = await signed(server(), "preference", {
        subject: subscriber.id,
        id: claims.jti,
        organizationId: organization.id,
        version: claims.ver,
        issuedAt: new Date(Date.now() + 5 * 60_000)
      })
      expectRefused(form, await call(server(), "GET", center(early)), "invalid_token")
    })
  })
}

/** What the database answers to each statement, all asked of one client, by statement. */
const refusals = (client: Layer.Layer<SqlClient.SqlClient, unknown>, statements: ReadonlyArray<string>) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(statements, (statement) => Effect.flip(sql.unsafe(statement)))).pipe(
      Effect.map((errors) => new Map<string, unknown>(statements.map((statement, i) => [statement, errors[i]]))),
      Effect.provide(client),
      Effect.scoped
    ))

/** Statements PostgreSQL refuses with a data exception (SQLSTATE class 22), and the code each gives. */
const dataExceptions = [
  { code: "22P02", statement: "SELECT 'not-a-uuid'::uuid", message: /not in the form its field takes/ },
  { code: "22007", statement: "SELECT 'yesterday-ish'::timestamptz", message: /date or time that is not valid/ },
  { code: "22008", statement: "SELECT '2026-13-45'::date", message: /date or time out of range/ },
  { code: "22003", statement: "SELECT 99999999999::int4", message: /number out of range/ },
  { code: "22021", statement: "SELECT convert_from('\\xc328'::bytea, 'UTF8')", message: /character that cannot be stored/ },
  { code: "22P05", statement: "SELECT '\"\\u0000\"'::jsonb", message: /character that cannot be stored/ },
  { code: "22023", statement: "SELECT generate_series(1, 10, 0)", message: /not valid here/ }
] as const

const dataExceptionsAre400 = (client: () => Layer.Layer<SqlClient.SqlClient, unknown>) => {
  let refused = new Map<string, unknown>()
  beforeAll(async () => {
    refused = await refusals(client(), dataExceptions.map(({ statement }) => statement))
  })
  for (const { code, message, statement } of dataExceptions) {
    it(`${code} from the database is a 400 validation_error, in both forms`, async () => {
      const error = refused.get(statement)
      expect((error as { cause: { code: string } }).cause.code).toBe(code)
      for (const form of forms) {
        const server = await startHttpServer({ form, adapters: failingSubscriberRepository(error) })
        try {
          const { key } = await server.seedOrganization()
          const path = `${apiOf(form)}/subscribers/0192f3a4-0000-7000-8000-000000000000`
          expectInvalid(form, await call(server, "GET", path, { key }), "request", message)
        } finally {
          await server.close()
        }
      }
    })
  }
}

describe("a value the embedded database refuses", () => {
  const client = makePgliteClient("memory://")
  dataExceptionsAre400(() => client)
})

describe.skipIf(!postgresForProcesses.available)(`over ${postgresForProcesses.label}`, () => {
  let url = ""
  const pg = {} as Record<Form, TestHttpServer>
  beforeAll(async () => {
    url = await postgresForProcesses.database("http_data_errors")
    const client = makePgClient(Redacted.make(url))
    await Effect.runPromise(Effect.scoped(Layer.build(Layer.effectDiscard(runMigrations).pipe(Layer.provide(client)))))
    for (const form of forms) {
      pg[form] = await startHttpServer({
        form,
        adapters: Layer.merge(UnlimitedRateLimiterLive, PostgresPersistenceLive.pipe(Layer.provide(client), Layer.orDie))
      })
    }
  })
  afterAll(() => Promise.all(forms.map((form) => pg[form]?.close())))

  describe("a value PostgreSQL refuses", () => {
    dataExceptionsAre400(() => makePgClient(Redacted.make(url)))
  })

  for (const form of forms) {
    describe(`tokens naming ids that are not UUIDs (${form} form)`, () => {
      tokensNamingOtherIds(form, () => pg[form])
    })
  }
})
