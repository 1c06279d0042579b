/**
 * /api/v1/templates: Liquid templates, checked when saved, previewed as a send renders them, and
 * sent by id.
 */
import { Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeLiquidTemplateEngine, MAX_RENDER_WORK } from "../../../adapters/liquid/index.js"
import { call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { besideHealth, runawayTemplate } from "../../support/runaway-template.js"
import { createSubscriber, createTag, expectInvalid, expectProblem, isoInstantPattern, uuidPattern } from "../helpers.js"

let server: TestHttpServer
beforeAll(async () => {
  server = await startHttpServer({ adapters: UnlimitedRateLimiterLive })
})
afterAll(() => server.close())

const path = "/api/v1/templates"
const nothing = "0193a3f2-8a9e-7c1d-9a5b-2f0c4e6d8a10"

const welcome = {
  name: "Welcome",
  subject: "Welcome, {{ subscriber.metadata.name | default: 'reader' }}",
  html: "<h1>Hi {{ subscriber.metadata.name }}</h1><p>{{ data.intro }}</p><a href=\"{{ unsubscribe_url }}\">Leave</a>",
  text: "Hi {{ subscriber.metadata.name }}. Tags: {{ subscriber.tags | join: ', ' }}. {{ organization.name }}"
}

const createTemplate = async (key: string, json: Record<string, unknown> = welcome) => {
  const answer = await call(server, "POST", path, { key, json })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

describe("templates", () => {
  it("are created, read, listed oldest first, changed and deleted", async () => {
    const { key } = await server.seedOrganization()
    const made = await createTemplate(key)
    expect(made).toEqual({
      id: expect.stringMatching(uuidPattern),
      ...welcome,
      created_at: expect.stringMatching(isoInstantPattern),
      updated_at: made.created_at
    })
    expect((await call(server, "GET", `${path}/${made.id}`, { key })).body).toEqual(made)
    const second = await createTemplate(key, { name: "Text only", subject: "Hi", text: "Plain" })
    expect(second.html).toBeNull()

    const page = await call(server, "GET", `${path}?limit=1`, { key })
    expect(page.body.items.map((t: { id: string }) => t.id)).toEqual([made.id])
    expect(page.body.total).toBe(2)
    const next = await call(server, "GET", `${path}?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key })
    expect(next.body.items.map((t: { id: string }) => t.id)).toEqual([second.id])

    const changed = await call(server, "PUT", `${path}/${made.id}`, { key, json: { name: " Welcome v2 ", html: null } })
    expect(changed.status, changed.text).toBe(200)
    expect(changed.body).toMatchObject({ name: "Welcome v2", html: null, text: welcome.text, subject: welcome.subject })
    expectInvalid(await call(server, "PUT", `${path}/${made.id}`, { key, json: { text: null } }), `${path}/${made.id}`, ["html"])

    expect((await call(server, "DELETE", `${path}/${made.id}`, { key })).status).toBe(204)
    expectProblem(await call(server, "GET", `${path}/${made.id}`, { key }), "not_found", `${path}/${made.id}`)
  })

  it("refuses tags that read files, syntax errors with line and column, and bad fields", async () => {
    const { key } = await server.seedOrganization()
    for (const tag of ["{% include 'secrets' %}", "{% render 'partial' %}", "{% layout 'base' %}"]) {
      const answer = await call(server, "POST", path, { key, json: { name: "x", subject: "s", html: `<p>${tag}</p>` } })
      expectInvalid(answer, path, ["html"])
      expect(answer.body.detail).toContain(tag.split(" ")[1])
    }
    const broken = await call(server, "POST", path, { key, json: { name: "x", subject: "s", text: "line one\n{% if %}" } })
    expectInvalid(broken, path, ["text"])
    expect(broken.body.detail).toMatch(/line:? ?2, col:? ?6/)
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", subject: "{{ x | nope }}", text: "t" } }), path, ["subject"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "x", subject: "s" } }), path, ["html"])
    expectInvalid(await call(server, "POST", path, { key, json: { name: "", subject: "a\nb", text: "t" } }), path, ["name", "subject"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...welcome, organization_id: nothing } }), path, ["organization_id"])
    expectInvalid(await call(server, "POST", path, { key, json: { ...welcome, text: "x".repeat(200_001) } }), path, ["text"])
    expect((await call(server, "GET", path, { key })).body.total).toBe(0)
  })

  it("preview renders for a subscriber with their tags and the caller's data, escaped in HTML, and lists empty variables", async () => {
    const { key, organization } = await server.seedOrganization()
    const tag = await createTag(server, key, { name: "Weekly" })
    const reader = await createSubscriber(server, key, { metadata: { name: "<Ada>" }, tags: [tag.id] })
    const template = await createTemplate(key)
    const answer = await call(server, "POST", `${path}/${template.id}/preview`, {
      key,
      json: { subscriber_id: reader.id, data: { intro: "Fresh <b>news</b>" } }
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toEqual({
      subject: "Welcome, <Ada>",
      html: "<h1>Hi &lt;Ada&gt;</h1><p>Fresh &lt;b&gt;news&lt;/b&gt;</p><a href=\"http://localhost:3000/unsubscribe?token=preview\">Leave</a>",
      text: `Hi <Ada>. Tags: Weekly. ${organization.name}`,
      empty_variables: []
    })

    const sample = await call(server, "POST", `${path}/${template.id}/preview`, { key, json: {} })
    expect(sample.body.subject).toBe("Welcome, reader")
    expect(sample.body.empty_variables).toEqual(["data.intro", "subscriber.metadata.name"])
  })

  it("a preview or a template that loops without end or grows too large is stopped with a 400", async () => {
    const { key } = await server.seedOrganization()
    const loop = await createTemplate(key, { name: "loop", subject: "s", text: "{% for i in (1..100000000) %}{{ i }}{% endfor %}" })
    expectInvalid(await call(server, "POST", `${path}/${loop.id}/preview`, { key, json: {} }), `${path}/${loop.id}/preview`, ["text"])
    const huge = await createTemplate(key, { name: "huge", subject: "s", text: "{% for i in (1..3000) %}{{ data.blob }}{% endfor %}" })
    const grown = await call(server, "POST", `${path}/${huge.id}/preview`, { key, json: { data: { blob: "x".repeat(1_000) } } })
    expectInvalid(grown, `${path}/${huge.id}/preview`, ["text"])
  })

  it("eight previews at once of a template whose filter would work for seconds each answer 400 naming the work limit, and /health answers beside them", async () => {
    const { key } = await server.seedOrganization()
    const template = await createTemplate(key, { name: "runaway", subject: "s", text: runawayTemplate })
    const preview = `${path}/${template.id}/preview`
    const { answers } = await besideHealth(server, Array.from({ length: 8 }, () => () => call(server, "POST", preview, { key, json: {} })))
    for (const answer of answers) {
      expectInvalid(answer, preview, ["text"])
      expect(answer.body.detail).toContain(`makes more than ${MAX_RENDER_WORK} elements and characters`)
    }
  })

  it("a filter that works past the time limit within the work limit has its render thread ended: a 400, and /health answers meanwhile", async () => {
    // The work limit lifted and the time limit short, so that only the render threads' time limit
    // stops the template, on a fast machine as on a slow one; long enough that a plain subject
    // renders within it on a loaded machine.
    const lifted = await startHttpServer({
      adapters: Layer.merge(UnlimitedRateLimiterLive, makeLiquidTemplateEngine({ renderWork: 1_000_000_000, renderMs: 250 }))
    })
    try {
      const { key } = await lifted.seedOrganization()
      const made = await call(lifted, "POST", path, { key, json: { name: "runaway", subject: "s", text: runawayTemplate } })
      expect(made.status, made.text).toBe(201)
      const preview = `${path}/${made.body.id}/preview`
      const { answers, healthWhileWaiting } = await besideHealth(lifted, Array.from({ length: 8 }, () => () => call(lifted, "POST", preview, { key, json: {} })))
      for (const answer of answers) {
        expectInvalid(answer, preview, ["text"])
        expect(answer.body.detail).toContain("takes longer than 250 ms")
      }
      // Each render is stopped inside its one filter, which only a thread of its own allows; eight
      // of them queue behind the threads, and /health is answered while they do.
      expect(healthWhileWaiting).toBeGreaterThan(0)
      const fine = await call(lifted, "POST", path, { key, json: { name: "fine", subject: "Hi {{ subscriber.first_name }}", text: "t" } })
      const rendered = await call(lifted, "POST", `${path}/${fine.body.id}/preview`, { key, json: {} })
      expect(rendered.status, rendered.text).toBe(200)
      expect(rendered.body.subject).toBe("Hi Jane")
    } finally {
      await lifted.close()
    }
  })

  it("a single send whose content's filter would work for seconds is refused with a 400 naming the limit", async () => {
    const { key } = await server.seedOrganization({ environment: "live" })
    const reader = await createSubscriber(server, key)
    const refused = await call(server, "POST", "/api/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "marketing", subject: "s", html: runawayTemplate }
    })
    expectInvalid(refused, "/api/v1/emails/send", ["html"])
    expect(refused.body.detail).toContain(`makes more than ${MAX_RENDER_WORK}`)
    const template = await createTemplate(key, { name: "runaway", subject: "s", text: runawayTemplate })
    const byTemplate = await call(server, "POST", "/api/v1/emails/send", {
      key,
      json: { to: reader.email, kind: "marketing", template_id: template.id }
    })
    expectInvalid(byTemplate, "/api/v1/emails/send", ["text"])
    expect((await call(server, "GET", `/api/v1/emails?subscriber_id=${reader.id}`, { key })).body.items).toEqual([])
  })

  it("a send by template renders it for the recipient; another organization's template is 404", async () => {
    const { key, organization } = await server.seedOrganization({ environment: "live" })
    const reader = await createSubscriber(server, key, { metadata: { name: "Ada" } })
    const template = await createTemplate(key)
    const sent = await call(server, "POST", "/api/v1/emails/send", {
      key,
      json: { to: reader.email, template_id: template.id, kind: "marketing", data: { intro: "Hello" } }
    })
    expect(sent.status, sent.text).toBe(202)
    expect(sent.body).toMatchObject({ template_id: template.id, subject: "Welcome, Ada", text: `Hi Ada. Tags: . ${organization.name}` })
    expect(sent.body.html).toMatch(/^<h1>Hi Ada<\/h1><p>Hello<\/p><a href="http:\/\/localhost:3000\/unsubscribe\?token=ey/)

    const other = await server.seedOrganization({ environment: "live" })
    const theirs = await createSubscriber(server, other.key)
    const refused = await call(server, "POST", "/api/v1/emails/send", {
      key: other.key,
      json: { to: theirs.email, template_id: template.id, kind: "marketing" }
    })
    expectProblem(refused, "not_found", "/api/v1/emails/send")
  })

  it("another organization's template is refused, an unknown one not found, and scopes hold", async () => {
    const { key, organization } = await server.seedOrganization()
    const template = await createTemplate(key)
    const other = await server.seedOrganization()
    expectProblem(await call(server, "GET", `${path}/${template.id}`, { key: other.key }), "forbidden", `${path}/${template.id}`)
    expectProblem(await call(server, "DELETE", `${path}/${template.id}`, { key: other.key }), "forbidden", `${path}/${template.id}`)
    expectProblem(await call(server, "GET", `${path}/${nothing}`, { key }), "not_found", `${path}/${nothing}`)

    const reader = await server.createApiKey(organization, ["templates:read"])
    expect((await call(server, "POST", `${path}/${template.id}/preview`, { key: reader, json: {} })).status).toBe(200)
    const refused = await call(server, "POST", path, { key: reader, json: welcome })
    expectProblem(refused, "forbidden", path)
    expect(refused.body.detail).toContain("templates:write")
    const none = await server.createApiKey(organization, ["subscribers:read"])
    expect((await call(server, "GET", path, { key: none })).body.detail).toContain("templates:read")
    const member = await server.signIn()
    await server.addMember(organization.id, member, "member")
    const byMember = await call(server, "POST", path, { headers: member.headers(organization.id), json: welcome })
    expect(byMember.status, byMember.text).toBe(201)
    expectProblem(await call(server, "GET", path), "unauthorized", path)
  })
})
