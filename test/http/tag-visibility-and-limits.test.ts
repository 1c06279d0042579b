/**
 * Tag visibility and the tag limits over the real server, in both wire forms: private tags stay
 * out of the preference center (its JSON and its page) and out of a subscriber's reach there; the
 * tags an organization holds and a subscriber carries are capped with 409 `tag_limit_reached`
 * wherever they could grow; and the preference center of an organization at those limits stays
 * small and quick.
 */
import { TagAssignments, TagRepository } from "@roster/application"
import {
  MAX_TAGS_PER_ORGANIZATION,
  MAX_TAGS_PER_SUBSCRIBER,
  type OrganizationId,
  Slug,
  SubscriberId,
  Tag,
  TagId,
  type TagVisibility
} from "@roster/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Answer, call, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../support/http-server.js"
import { runImports } from "../support/worker-steps.js"
import { freshEmail } from "./helpers.js"
import { expectError } from "./overview/helpers.js"

let servers: Record<"reference" | "overview", TestHttpServer>
beforeAll(async () => {
  const [reference, overview] = await Promise.all([
    startHttpServer({ adapters: UnlimitedRateLimiterLive }),
    startHttpServer({ adapters: UnlimitedRateLimiterLive, form: "overview" })
  ])
  servers = { reference: reference!, overview: overview! }
})
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())))

/** The most a preference page or its JSON may weigh at the tag limits. */
const PAGE_BUDGET_BYTES = 200 * 1024

interface TagAnswer {
  readonly id: string
  readonly name: string
  readonly visibility: string
}

/** What a test does, said once for each wire form. */
interface Form {
  readonly name: "reference" | "overview"
  readonly server: () => TestHttpServer
  readonly api: string
  /** The answer's body without the overview form's `data` envelope. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON body, read field by field
  readonly body: (answer: Answer) => any
  readonly updateTag: "PUT" | "PATCH"
  /** The answer is `code`, naming `field` (and `limit`, when given). */
  readonly expectRefused: (answer: Answer, code: "tag_limit_reached" | "validation_error" | "not_found", field?: string, limit?: string) => void
  /** A new subscriber with these tags, in the form's way of naming them. */
  readonly createSubscriber: (key: string, tags: ReadonlyArray<Tag>) => Promise<Answer>
  /** Attaches tags to a subscriber, in the form's way, and the field that names them. */
  readonly attach: (key: string, subscriberId: string, tags: ReadonlyArray<Tag>) => Promise<Answer>
  readonly attachField: string
  /** The preference center's view, as JSON. */
  readonly view: (token: string) => Promise<Answer>
  /** Subscribes in the preference center, in the form's way, and the field that names the tag. */
  readonly subscribe: (token: string, tag: { readonly id: string; readonly name: string }) => Promise<Answer>
  readonly subscribeField: string
}

const forms: ReadonlyArray<Form> = [
  {
    name: "reference",
    server: () => servers.reference,
    api: "/api/v1",
    body: (answer) => answer.body,
    updateTag: "PUT",
    expectRefused: (answer, code, field, limit) => {
      expect(answer.status, answer.text).toBe(code === "not_found" ? 404 : code === "validation_error" ? 400 : 409)
      expect(answer.body.type).toMatch(new RegExp(`/${code}$`))
      if (field !== undefined && code === "validation_error") {
        expect(answer.body.errors.map((e: { field: string }) => e.field)).toEqual([field])
      }
      if (field !== undefined) expect(answer.body.detail.startsWith(`${field}: `), answer.body.detail).toBe(true)
      if (limit !== undefined) expect(answer.body.detail).toContain(limit)
    },
    createSubscriber: (key, tags) =>
      call(servers.reference, "POST", "/api/v1/subscribers", { key, json: { email: freshEmail(), tags: tags.map((tag) => tag.id) } }),
    attach: (key, id, tags) =>
      call(servers.reference, "POST", `/api/v1/subscribers/${id}/tags`, { key, json: { tag_ids: tags.map((tag) => tag.id) } }),
    attachField: "tag_ids",
    view: (token) => call(servers.reference, "GET", `/preference-center?token=${encodeURIComponent(token)}`),
    subscribe: (token, tag) => call(servers.reference, "PUT", `/preference-center/tags/${tag.id}?token=${encodeURIComponent(token)}`),
    subscribeField: "tag_id"
  },
  {
    name: "overview",
    server: () => servers.overview,
    api: "/v1",
    body: (answer) => answer.body.data,
    updateTag: "PATCH",
    expectRefused: (answer, code, field, limit) => {
      expectError(answer, code)
      if (field !== undefined) expect(answer.body.error.details.map((d: { field: string }) => d.field)).toEqual([field])
      if (limit !== undefined) expect(answer.body.error.message).toContain(limit)
    },
    createSubscriber: (key, tags) =>
      call(servers.overview, "POST", "/v1/subscribers", { key, json: { email: freshEmail(), tags: tags.map((tag) => tag.name) } }),
    attach: (key, id, tags) => call(servers.overview, "PATCH", `/v1/subscribers/${id}/tags`, { key, json: { add: tags.map((tag) => tag.name) } }),
    attachField: "add",
    view: (token) => call(servers.overview, "GET", `/v1/preferences/${encodeURIComponent(token)}`),
    subscribe: (token, tag) => call(servers.overview, "PATCH", `/v1/preferences/${encodeURIComponent(token)}`, { json: { add: [tag.name] } }),
    subscribeField: "add"
  }
]

describe.each(forms)("the $name form", (form) => {
  const server = () => form.server()
  const body = form.body

  /**
   * `count` tags stored straight in the organization, past any limit (as data from before the
   * limits would be): `Interest 0001` and on, every tenth with a short description.
   */
  const storeTags = (organizationId: OrganizationId, count: number, visibility: TagVisibility = "public") =>
    server().run(Effect.gen(function*() {
      const tags = yield* TagRepository
      const at = new Date()
      const made: Array<Tag> = []
      for (let i = 1; i <= count; i++) {
        const number = String(i).padStart(4, "0")
        const tag = new Tag({
          id: TagId.make(randomUUID()),
          organizationId,
          name: `Interest ${number}`,
          slug: Slug.make(`interest-${number}`),
          description: i % 10 === 0 ? `Stories about interest ${number}, every week` : null,
          displayName: null,
          category: null,
          visibility,
          metadata: {},
          subscriberCount: 0,
          createdAt: at,
          updatedAt: at
        })
        yield* tags.insert(tag, null)
        made.push(tag)
      }
      return made
    }))

  /** Attaches tags to a subscriber straight in the store, past any limit. */
  const storeAttachments = (organizationId: OrganizationId, subscriberId: string, tags: ReadonlyArray<{ readonly id: string }>) =>
    server().run(Effect.flatMap(TagAssignments, (assignments) =>
      assignments.attach(organizationId, SubscriberId.make(subscriberId), tags.map((tag) => TagId.make(tag.id)), new Date(), null)))

  const createTag = async (key: string, json: Record<string, unknown>): Promise<TagAnswer> => {
    const answer = await call(server(), "POST", `${form.api}/tags`, { key, json })
    expect(answer.status, answer.text).toBe(201)
    return body(answer)
  }

  const createSubscriber = async (key: string, tags: ReadonlyArray<Tag> = []) => {
    const answer = await form.createSubscriber(key, tags)
    expect(answer.status, answer.text).toBe(201)
    return body(answer) as { readonly id: string; readonly email: string }
  }

  const tokenOf = async (key: string, subscriberId: string) => {
    const answer = await call(server(), "POST", `${form.api}/subscribers/${subscriberId}/token`, { key })
    expect(answer.status, answer.text).toBe(200)
    return body(answer).token as string
  }

  const tagNamesOf = async (key: string, subscriberId: string): Promise<Array<string>> => {
    const answer = await call(server(), "GET", `${form.api}/subscribers/${subscriberId}`, { key })
    expect(answer.status, answer.text).toBe(200)
    return body(answer).tags.map((tag: { name: string }) => tag.name).sort()
  }

  const centerUrl = (token: string) => `/preference-center?token=${encodeURIComponent(token)}`

  /** Posts one of the preference page's forms, as the page itself does. */
  const postPage = (token: string, form: string) =>
    fetch(`${server().baseUrl}${centerUrl(token)}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "null", "sec-fetch-site": "same-origin" },
      body: form,
      redirect: "manual"
    })

  /** Imports `csv` through the API and runs the worker's step; the import when it is done. */
  const importCsv = async (key: string, csv: string) => {
    const queued = await call(server(), "POST", `${form.api}/subscribers/imports`, { key, body: csv, headers: { "content-type": "text/csv" } })
    expect(queued.status, queued.text).toBe(202)
    await server().run(runImports)
    return body(await call(server(), "GET", queued.headers.get("location")!, { key }))
  }

  describe("tag visibility", () => {
    it("a tag is public unless made private; create, update, get and list carry it", async () => {
      const { key } = await server().seedOrganization()
      expect((await createTag(key, { name: "Weekly digest" })).visibility).toBe("public")
      const vip = await createTag(key, { name: "VIP customers", visibility: "private" })
      expect(vip.visibility).toBe("private")
      expect(body(await call(server(), "GET", `${form.api}/tags/${vip.id}`, { key })).visibility).toBe("private")
      const opened = await call(server(), form.updateTag, `${form.api}/tags/${vip.id}`, { key, json: { visibility: "public" } })
      expect(opened.status, opened.text).toBe(200)
      expect(body(opened).visibility).toBe("public")
      const closed = await call(server(), form.updateTag, `${form.api}/tags/${vip.id}`, { key, json: { visibility: "private" } })
      expect(body(closed).visibility).toBe("private")
      const listed = await call(server(), "GET", `${form.api}/tags`, { key })
      expect((listed.body.items ?? listed.body.data).map((tag: TagAnswer) => [tag.name, tag.visibility])).toEqual([
        ["VIP customers", "private"],
        ["Weekly digest", "public"]
      ])
      form.expectRefused(await call(server(), "POST", `${form.api}/tags`, { key, json: { name: "Odd", visibility: "secret" } }), "validation_error", "visibility")
      form.expectRefused(
        await call(server(), form.updateTag, `${form.api}/tags/${vip.id}`, { key, json: { visibility: "hidden" } }),
        "validation_error",
        "visibility"
      )
    })

    it("the preference center shows public tags only, as JSON and as its page, while the API shows every tag", async () => {
      const { key, organization } = await server().seedOrganization()
      const weekly = await storeTags(organization.id, 1)
      const hidden = await createTag(key, { name: "VIP customers", visibility: "private" })
      const subscriber = await createSubscriber(key, weekly)
      await storeAttachments(organization.id, subscriber.id, [hidden])
      const token = await tokenOf(key, subscriber.id)

      const view = body(await form.view(token))
      expect(view.available_tags.map((tag: TagAnswer) => tag.name)).toEqual(["Interest 0001"])
      expect(view.subscribed_tags.map((tag: TagAnswer) => tag.name)).toEqual(["Interest 0001"])
      const page = await call(server(), "GET", centerUrl(token), { headers: { accept: "text/html" } })
      expect(page.status).toBe(200)
      expect(page.text).toContain("Interest 0001")
      expect(page.text).not.toContain("VIP customers")
      expect(page.text).not.toContain(hidden.id)
      expect(await tagNamesOf(key, subscriber.id)).toEqual(["Interest 0001", "VIP customers"])
    })

    it("a subscriber can neither take nor drop a private tag: it is refused exactly as a tag that does not exist", async () => {
      const { key, organization } = await server().seedOrganization()
      const vip = await createTag(key, { name: "VIP customers", visibility: "private" })
      const beta = await createTag(key, { name: "Beta testers", visibility: "private" })
      const subscriber = await createSubscriber(key)
      await storeAttachments(organization.id, subscriber.id, [vip])
      const token = await tokenOf(key, subscriber.id)

      const privateOne = await form.subscribe(token, beta)
      const unknownOne = await form.subscribe(token, { id: randomUUID(), name: "No such tag" })
      if (form.name === "reference") {
        form.expectRefused(privateOne, "not_found")
        form.expectRefused(unknownOne, "not_found")
        expect(privateOne.body.detail.replace(beta.id, "?")).toBe(unknownOne.body.detail.replace(/[0-9a-f-]{36}/, "?"))
        form.expectRefused(await call(server(), "DELETE", `/preference-center/tags/${vip.id}?token=${encodeURIComponent(token)}`), "not_found")
      } else {
        form.expectRefused(privateOne, "validation_error", "add[0]")
        form.expectRefused(unknownOne, "validation_error", "add[0]")
        expect(privateOne.body.error.message.replace(beta.name, "?")).toBe(unknownOne.body.error.message.replace("No such tag", "?"))
        // Dropping a private tag by name passes it over, as any name no tag has.
        const dropped = await call(server(), "PATCH", `/v1/preferences/${encodeURIComponent(token)}`, { json: { remove: [vip.name] } })
        expect(dropped.status, dropped.text).toBe(200)
      }
      for (const posted of [`subscribe=${beta.id}`, `unsubscribe=${vip.id}`, `action=subscribe&tag_id=${beta.id}`]) {
        expect((await postPage(token, posted)).status, posted).toBe(303)
      }
      expect(await tagNamesOf(key, subscriber.id)).toEqual(["VIP customers"])
    })
  })

  describe("tag limits", () => {
    it(`an organization holds at most ${MAX_TAGS_PER_ORGANIZATION} tags: every way of making one answers 409 tag_limit_reached`, async () => {
      const { key, organization } = await server().seedOrganization()
      await storeTags(organization.id, MAX_TAGS_PER_ORGANIZATION - 1)
      const last = await createTag(key, { name: "The last one" })

      form.expectRefused(
        await call(server(), "POST", `${form.api}/tags`, { key, json: { name: "One too many" } }),
        "tag_limit_reached",
        "name",
        "tags_per_organization"
      )
      const subscriber = await createSubscriber(key)
      if (form.name === "overview") {
        // Tags made from names on the way: a new subscriber's, and a subscriber's tag change.
        const refused = await call(server(), "POST", "/v1/subscribers", {
          key,
          json: { email: freshEmail(), tags: ["Interest 0001", "Brand new"] }
        })
        form.expectRefused(refused, "tag_limit_reached", "tags[1]", "tags_per_organization")
        form.expectRefused(
          await call(server(), "PATCH", `/v1/subscribers/${subscriber.id}/tags`, { key, json: { add: ["Brand new"] } }),
          "tag_limit_reached",
          "add[0]",
          "tags_per_organization"
        )
        expect((await call(server(), "GET", "/v1/subscribers", { key })).body.meta.total).toBe(1)
      }
      // An import reports the rows that need a tag it cannot make, and takes the others.
      const other = freshEmail()
      const done = await importCsv(key, `email,tags\n${other},Brand new\n${subscriber.email},Interest 0002\n`)
      expect(done.problems).toEqual([
        { line: 2, field: "tags", problem: expect.stringContaining("tags_per_organization"), email: other }
      ])
      expect(await tagNamesOf(key, subscriber.id)).toEqual(["Interest 0002"])

      // Deleting one makes room for one.
      expect((await call(server(), "DELETE", `${form.api}/tags/${last.id}`, { key })).status).toBe(204)
      expect((await call(server(), "POST", `${form.api}/tags`, { key, json: { name: "One too many" } })).status).toBe(201)
    })

    it(`a subscriber carries at most ${MAX_TAGS_PER_SUBSCRIBER} tags: every way of attaching answers 409 tag_limit_reached and attaches nothing`, async () => {
      const { key, organization } = await server().seedOrganization()
      const tags = await storeTags(organization.id, MAX_TAGS_PER_SUBSCRIBER + 5)

      // On create, too many is refused before anything is written.
      form.expectRefused(await form.createSubscriber(key, tags.slice(0, 201)), "tag_limit_reached", "tags", "tags_per_subscriber")
      const subscriber = await createSubscriber(key, tags.slice(0, 199))
      expect((await call(server(), "GET", `${form.api}/subscribers`, { key })).status).toBe(200)

      form.expectRefused(await form.attach(key, subscriber.id, tags.slice(198, 201)), "tag_limit_reached", form.attachField, "tags_per_subscriber")
      expect(await tagNamesOf(key, subscriber.id)).toHaveLength(199)
      // Tags it carries already are not new.
      expect((await form.attach(key, subscriber.id, tags.slice(0, 5))).status).toBe(200)
      expect((await form.attach(key, subscriber.id, tags.slice(199, 200))).status).toBe(200)
      expect(await tagNamesOf(key, subscriber.id)).toHaveLength(MAX_TAGS_PER_SUBSCRIBER)
      if (form.name === "overview") {
        // Dropping some makes room in the same change.
        const swapped = await call(server(), "PATCH", `/v1/subscribers/${subscriber.id}/tags`, {
          key,
          json: { add: [tags[200]!.name], remove: [tags[0]!.name] }
        })
        expect(swapped.status, swapped.text).toBe(200)
        expect(await tagNamesOf(key, subscriber.id)).toHaveLength(MAX_TAGS_PER_SUBSCRIBER)
      }

      // The preference center, as JSON and as its page.
      const token = await tokenOf(key, subscriber.id)
      const outside = tags[203]!
      form.expectRefused(await form.subscribe(token, outside), "tag_limit_reached", form.subscribeField, "tags_per_subscriber")
      const page = await postPage(token, `subscribe=${outside.id}`)
      expect(page.status).toBe(409)
      expect(await page.text()).toContain("You can subscribe to at most 200 topics")
      expect((await postPage(token, `unsubscribe=${tags[1]!.id}`)).status).toBe(303)
      expect(await tagNamesOf(key, subscriber.id)).toHaveLength(MAX_TAGS_PER_SUBSCRIBER - 1)
      expect((await postPage(token, `subscribe=${outside.id}`)).status).toBe(303)
      expect(await tagNamesOf(key, subscriber.id)).toHaveLength(MAX_TAGS_PER_SUBSCRIBER)

      // An import reports the row that would take the subscriber past it.
      const done = await importCsv(key, `email,tags\n${subscriber.email},"${tags[1]!.name},${tags[204]!.name}"\n`)
      expect(done.problems).toEqual([
        { line: 2, field: "tags", problem: expect.stringContaining("tags_per_subscriber"), email: subscriber.email }
      ])
      expect(await tagNamesOf(key, subscriber.id)).toHaveLength(MAX_TAGS_PER_SUBSCRIBER)
    })

    it("what was held past the limits before keeps working: reads, the preference center and detaching; only growth is refused", async () => {
      const { key, organization } = await server().seedOrganization()
      const tags = await storeTags(organization.id, 1_200)
      const subscriber = await createSubscriber(key)
      await storeAttachments(organization.id, subscriber.id, tags.slice(0, 250))
      expect(await tagNamesOf(key, subscriber.id)).toHaveLength(250)
      expect((await call(server(), "GET", `${form.api}/subscribers/${subscriber.id}/tags`, { key })).status).toBe(200)

      const token = await tokenOf(key, subscriber.id)
      const view = await form.view(token)
      expect(view.status, view.text).toBe(200)
      expect(body(view).available_tags).toHaveLength(MAX_TAGS_PER_ORGANIZATION)
      expect(body(view).subscribed_tags).toHaveLength(250)
      const page = await call(server(), "GET", centerUrl(token), { headers: { accept: "text/html" } })
      expect(page.status).toBe(200)
      expect(Buffer.byteLength(page.text)).toBeLessThan(PAGE_BUDGET_BYTES)

      expect((await postPage(token, `unsubscribe=${tags[1]!.id}`)).status).toBe(303)
      form.expectRefused(await form.attach(key, subscriber.id, [tags[300]!]), "tag_limit_reached", form.attachField, "tags_per_subscriber")
      expect(await tagNamesOf(key, subscriber.id)).toHaveLength(249)
      form.expectRefused(
        await call(server(), "POST", `${form.api}/tags`, { key, json: { name: "More" } }),
        "tag_limit_reached",
        "name",
        "tags_per_organization"
      )
    })
  })

  describe("the preference center at the limits", () => {
    it(`${MAX_TAGS_PER_ORGANIZATION} tags and a subscriber with ${MAX_TAGS_PER_SUBSCRIBER}: the page and the JSON stay small`, async () => {
      const { key, organization } = await server().seedOrganization()
      const tags = await storeTags(organization.id, MAX_TAGS_PER_ORGANIZATION)
      const subscriber = await createSubscriber(key)
      const attached = await form.attach(key, subscriber.id, tags.slice(0, MAX_TAGS_PER_SUBSCRIBER))
      expect(attached.status, attached.text).toBe(200)
      const token = await tokenOf(key, subscriber.id)

      const read = async (path: string, headers: Record<string, string>) => {
        const response = await fetch(`${server().baseUrl}${path}`, { headers })
        const text = await response.text()
        expect(response.status, text.slice(0, 500)).toBe(200)
        expect(Buffer.byteLength(text), path).toBeLessThan(PAGE_BUDGET_BYTES)
        return text
      }

      for (const locale of ["en", "de"]) {
        const html = await read(`${centerUrl(token)}&locale=${locale}`, { accept: "text/html" })
        expect(html.match(/ name=unsubscribe /g)).toHaveLength(MAX_TAGS_PER_SUBSCRIBER)
        expect(html.match(/ name=subscribe /g)).toHaveLength(MAX_TAGS_PER_ORGANIZATION - MAX_TAGS_PER_SUBSCRIBER)
        expect(html).toContain("Stories about interest 1000, every week")
      }
      const paths = form.name === "reference" ? [centerUrl(token)] : [centerUrl(token), `/v1/preferences/${encodeURIComponent(token)}`]
      for (const path of paths) {
        const parsed = JSON.parse(await read(path, { accept: "application/json" }))
        const view = form.name === "reference" ? parsed : parsed.data
        expect(view.available_tags).toHaveLength(MAX_TAGS_PER_ORGANIZATION)
        expect(view.subscribed_tags).toHaveLength(MAX_TAGS_PER_SUBSCRIBER)
        expect(view.available_tags[0].name).toBe("Interest 0001")
      }
      // Another subscriber of the organization sees the same tags, none of them taken.
      const other = await createSubscriber(key)
      const theirs = JSON.parse(await read(centerUrl(await tokenOf(key, other.id)), { accept: "application/json" }))
      expect((form.name === "reference" ? theirs : theirs.data).subscribed_tags).toEqual([])
    })
  })
})
