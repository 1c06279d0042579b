/**
 * The dashboard's subscribers screen through the running server, in both deployments: the list
 * with its search, filters and pages (whole, and as the fragment the script asks for), actions on
 * the selected subscribers after a confirmation, and one subscriber's page (status, metadata,
 * tags, notes, preference link, deletion); forms from elsewhere and another organization's
 * subscribers change nothing.
 */
import { Auth, Organizations, SubscriberRepository, Subscribers, Tags } from "@roster/application"
import { allowedMoves, EmailAddress, Subscriber, type SubscriberStatus, subscriberStatuses } from "@roster/domain"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type ServerServices,
  type SignedInUser,
  startHttpServer,
  type TestHttpServer,
  UnlimitedRateLimiterLive
} from "../../support/http-server.js"
import { browser, csrfOf, fieldError, type Page, unescape } from "./dashboard-browser.js"

const forms = ["reference", "overview"] as const

/** The emails listed in a page's table, in order. */
const listedEmails = (page: Page) =>
  [...page.body.matchAll(/<td class="email"><a href="[^"]+">([^<]+)<\/a><\/td>/g)].map((m) => m[1]!)
const flashOf = (page: Page) => /<div class="flash (?:ok|error)" role="(?:status|alert)">([^<]*)<\/div>/.exec(page.body)?.[1]
/** The history's rows, newest first: each event's kind and what changed, as the page writes them. */
const historyOf = (page: Page) =>
  [...page.body.matchAll(/<tr><td><time datetime="[^"]+">[^<]*<\/time><\/td><td>([^<]*)<\/td><td class="detail">([^<]*)<\/td><\/tr>/g)]
    .map((m) => [unescape(m[1]!), unescape(m[2]!)])
const olderLink = (page: Page) => /<a href="([^"]+)" rel="next">/.exec(page.body)?.[1]
const optionsOf = (page: Page, selectId: string) => {
  const select = new RegExp(`<select id="${selectId}"[^>]*>([\\s\\S]*?)</select>`).exec(page.body)?.[1] ?? ""
  return [...select.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]!)
}

describe.each(forms)("the subscribers screen in the %s deployment", (form) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())

  /** An organization made through the dashboard, and its owner's browser. */
  const ownerWithOrganization = async () => {
    const user = await server.signIn()
    const b = browser(server, user.cookie)
    const csrf = csrfOf(await b.get("/app/organizations"))
    const slug = `subs-${Math.random().toString(36).slice(2, 10)}`
    const made = await b.post("/app/organizations", { csrf, name: "Ada's News", slug })
    expect(made.status).toBe(303)
    return { b, csrf, user, slug, base: `/app/o/${slug}` }
  }

  /** The organization's use cases as its owner calls them. */
  const asOwner = <A, E>(
    owner: { user: SignedInUser; slug: string },
    f: (principal: Principal) => Effect.Effect<A, E, ServerServices>
  ) =>
    server.run(Effect.gen(function*() {
      const organization = yield* (yield* Organizations).getBySlug(owner.slug)
      const principal = yield* (yield* Auth).authenticate(owner.user.sessionToken, organization.id)
      return yield* f(principal)
    }))

  type Principal = Effect.Effect.Success<ReturnType<Auth["authenticate"]>>

  const seedSubscribers = (owner: { user: SignedInUser; slug: string }, emails: ReadonlyArray<string>) =>
    asOwner(owner, (principal) =>
      Effect.flatMap(Subscribers, (subscribers) =>
        Effect.forEach(emails, (email) => Effect.map(subscribers.create(principal, { email: EmailAddress.make(email) }), (v) => v.subscriber))))

  const seedTag = (owner: { user: SignedInUser; slug: string }, name: string) =>
    asOwner(owner, (principal) => Effect.flatMap(Tags, (tags) => tags.create(principal, { name })))

  const attach = (owner: { user: SignedInUser; slug: string }, subscriberId: string, tagId: string) =>
    asOwner(owner, (principal) => Effect.flatMap(Subscribers, (s) => s.attachTags(principal, subscriberId as never, [tagId as never])))

  /** Puts a subscriber in a status as the mailbox provider would, straight through the repository. */
  const setStatus = (owner: { user: SignedInUser; slug: string }, subscriberId: string, status: SubscriberStatus) =>
    asOwner(owner, (principal) =>
      Effect.gen(function*() {
        const repository = yield* SubscriberRepository
        const found = yield* repository.findById(principal.organization.id, subscriberId as never)
        const subscriber = Option.getOrThrow(found)
        yield* repository.update(new Subscriber({ ...subscriber, status }))
      }))

  const statusOf = (owner: { user: SignedInUser; slug: string }, subscriberId: string) =>
    asOwner(owner, (principal) =>
      Effect.gen(function*() {
        const repository = yield* SubscriberRepository
        return Option.map(yield* repository.findById(principal.organization.id, subscriberId as never), (s) => s.status)
      }))

  const tagsOfSubscriber = (owner: { user: SignedInUser; slug: string }, subscriberId: string) =>
    asOwner(owner, (principal) =>
      Effect.map(Effect.flatMap(Subscribers, (s) => s.listTags(principal, subscriberId as never)), (tags) => tags.map(({ tag }) => tag.name)))

  describe("the list", () => {
    it("is in the menu right after the overview, and says so when there is no subscriber yet", async () => {
      const { b, base } = await ownerWithOrganization()
      const overview = await b.get(base)
      const menu = [...overview.body.matchAll(/<li><a href="([^"]+)"/g)].map((m) => m[1])
      expect(menu.slice(0, 3)).toEqual([base, `${base}/subscribers`, `${base}/tags`])
      const empty = await b.get(`${base}/subscribers`)
      expect(empty.status).toBe(200)
      expect(empty.body).toContain("<h1>Subscribers</h1>")
      expect(empty.body).toContain("No subscribers yet.")
      expect(empty.body).toContain("0 subscribers")
      expect(empty.body).toMatch(new RegExp(`<a href="${base}/subscribers" aria-current="page">`))
    })

    it("lists subscribers newest first with their status, tags and date, each linked to their page", async () => {
      const owner = await ownerWithOrganization()
      const [ada, bob] = await seedSubscribers(owner, ["ada@example.com", "bob@example.com"])
      const news = await seedTag(owner, "News <weekly>")
      await attach(owner, ada!.id, news.id)
      const list = await owner.b.get(`${owner.base}/subscribers`)
      expect(listedEmails(list)).toEqual(["bob@example.com", "ada@example.com"])
      expect(list.body).toContain(`href="${owner.base}/subscribers/${ada!.id}"`)
      expect(list.body).toContain("<span class=\"badge\">News &lt;weekly&gt;</span>")
      expect(list.body).toContain("<td>Active</td>")
      expect(list.body).toMatch(/<time datetime="\d{4}-\d{2}-\d{2}T[^"]+">/)
      expect(list.body).toContain("2 subscribers")
      expect(list.body).toContain(`aria-label="Select ${bob!.email}"`)
      expect(list.body).toContain("<div class=\"table-wrap\">")
    })

    it("searches by the start of the email regardless of case, and filters by status and by tag", async () => {
      const owner = await ownerWithOrganization()
      const [ada, , carl] = await seedSubscribers(owner, ["ada@example.com", "adam@example.com", "carl@example.com"])
      const vip = await seedTag(owner, "VIP")
      await attach(owner, carl!.id, vip.id)
      await setStatus(owner, ada!.id, "bounced")

      const search = await owner.b.get(`${owner.base}/subscribers?search=ADA`)
      expect(listedEmails(search).sort()).toEqual(["ada@example.com", "adam@example.com"])
      expect(search.body).toContain("value=\"ADA\"")
      const bounced = await owner.b.get(`${owner.base}/subscribers?status=bounced`)
      expect(listedEmails(bounced)).toEqual(["ada@example.com"])
      expect(bounced.body).toContain("<option value=\"bounced\" selected>")
      const tagged = await owner.b.get(`${owner.base}/subscribers?tag=${vip.id}`)
      expect(listedEmails(tagged)).toEqual(["carl@example.com"])
      expect(tagged.body).toContain(`<option value="${vip.id}" selected>VIP</option>`)
      const none = await owner.b.get(`${owner.base}/subscribers?search=zed&status=active`)
      expect(listedEmails(none)).toEqual([])
      expect(none.body).toContain("No subscribers match.")
    })

    it("refuses a filter it cannot use with a 400 that says what to do", async () => {
      const owner = await ownerWithOrganization()
      await seedSubscribers(owner, ["ada@example.com"])
      const badStatus = await owner.b.get(`${owner.base}/subscribers?status=asleep`)
      expect(badStatus.status).toBe(400)
      expect(badStatus.body).toContain("Choose one of the statuses offered.")
      const badTag = await owner.b.get(`${owner.base}/subscribers?tag=not-a-tag`)
      expect(badTag.status).toBe(400)
      expect(badTag.body).toContain("Choose one of the tags offered.")
      const otherTag = await owner.b.get(`${owner.base}/subscribers?tag=0193a3f2-0000-7000-8000-000000000001`)
      expect(otherTag.status).toBe(400)
      const longSearch = await owner.b.get(`${owner.base}/subscribers?search=${"a".repeat(321)}`)
      expect(longSearch.status).toBe(400)
      expect(longSearch.body).toContain("at most 320 characters")
      const badCursor = await owner.b.get(`${owner.base}/subscribers?cursor=nonsense`)
      expect(badCursor.status).toBe(400)
      expect(badCursor.body).toContain("start again from the first page")
    })

    it("answers the script's request with the results alone, and a browser's with the whole page", async () => {
      const owner = await ownerWithOrganization()
      await seedSubscribers(owner, ["ada@example.com", "bob@example.com"])
      const whole = await owner.b.get(`${owner.base}/subscribers?search=bo`)
      expect(whole.body).toContain("<!DOCTYPE html>")
      expect(whole.body).toContain("hx-get=")
      expect(whole.body).toContain("hx-trigger=\"input changed delay:300ms, search\"")
      expect(whole.body).toContain("hx-target=\"#subscriber-results\"")
      expect(whole.body).toContain("hx-push-url=\"true\"")
      expect(whole.headers.get("vary")).toContain("HX-Request")
      const part = await owner.b.get(`${owner.base}/subscribers?search=bo`, { "hx-request": "true" })
      expect(part.status).toBe(200)
      expect(part.headers.get("content-type")).toContain("text/html")
      expect(part.headers.get("vary")).toContain("HX-Request")
      expect(part.body).not.toContain("<html")
      expect(part.body).not.toContain("<nav class=\"side\"")
      expect(listedEmails(part)).toEqual(["bob@example.com"])
      const refusedPart = await owner.b.get(`${owner.base}/subscribers?status=asleep`, { "hx-request": "true" })
      expect(refusedPart.status).toBe(400)
      expect(refusedPart.body).not.toContain("<html")
    })

    it("pages 50 at a time with a cursor, keeping the filters, and leads back to the first page", async () => {
      const owner = await ownerWithOrganization()
      const emails = Array.from({ length: 53 }, (_, i) => `reader${String(i).padStart(2, "0")}@example.com`)
      await seedSubscribers(owner, [...emails, "other@example.com"])
      const first = await owner.b.get(`${owner.base}/subscribers?search=reader`)
      expect(listedEmails(first)).toHaveLength(50)
      expect(first.body).toContain("53 subscribers")
      expect(first.body).not.toContain("First page")
      const next = /<a href="([^"]+)">Next page<\/a>/.exec(first.body)?.[1]
      expect(next).toBeDefined()
      const nextUrl = unescape(next!)
      expect(nextUrl).toContain("search=reader")
      expect(nextUrl).toContain("cursor=")
      const second = await owner.b.get(nextUrl)
      expect(listedEmails(second)).toHaveLength(3)
      expect(new Set([...listedEmails(first), ...listedEmails(second)])).toEqual(new Set(emails))
      expect(second.body).not.toContain("Next page")
      const back = /<a href="([^"]+)">First page<\/a>/.exec(second.body)?.[1]
      expect(unescape(back!)).toBe(`${owner.base}/subscribers?search=reader`)
    })

    it("does not list another organization's subscribers", async () => {
      const first = await ownerWithOrganization()
      await seedSubscribers(first, ["mine@example.com"])
      const second = await ownerWithOrganization()
      const list = await second.b.get(`${second.base}/subscribers?search=mine`)
      expect(listedEmails(list)).toEqual([])
    })
  })

  describe("actions on the selected subscribers", () => {
    const selection = async () => {
      const owner = await ownerWithOrganization()
      const seeded = await seedSubscribers(owner, ["ada@example.com", "bob@example.com", "cy@example.com", "dee@example.com"])
      const tag = await seedTag(owner, "News")
      return { ...owner, seeded, ids: seeded.slice(0, 3).map((s) => s.id), tag }
    }

    it("adds a tag to three subscribers after a confirmation that names how many, then removes it", async () => {
      const { b, csrf, base, ids, tag, seeded, ...owner } = await selection()
      const review = await b.post(`${base}/subscribers/bulk`, { csrf, action: "add-tag", tag: tag.id, id: ids, back: "search=a&status=&junk=1" })
      expect(review.status).toBe(200)
      expect(review.body).toContain("<h1>Add the tag News to 3 subscribers?</h1>")
      for (const id of ids) expect(review.body).toContain(`<input type="hidden" name="id" value="${id}" />`)
      expect(review.body).toContain("<input type=\"hidden\" name=\"back\" value=\"search=a\" />")
      // Reviewing changes nothing.
      expect(await tagsOfSubscriber({ ...owner, slug: owner.slug }, ids[0]!)).toEqual([])

      const done = await b.post(`${base}/subscribers/bulk/run`, { csrf, action: "add-tag", tag: tag.id, id: ids, back: "search=a" })
      expect(done.status).toBe(303)
      expect(done.headers.get("location")).toBe(`${base}/subscribers?search=a`)
      const after = await b.get(`${base}/subscribers`)
      expect(flashOf(after)).toBe("3 subscribers changed.")
      for (const id of ids) expect(await tagsOfSubscriber(owner, id)).toEqual(["News"])
      expect(await tagsOfSubscriber(owner, seeded[3]!.id)).toEqual([])

      const removeReview = await b.post(`${base}/subscribers/bulk`, { csrf, action: "remove-tag", tag: tag.id, id: ids.slice(0, 1) })
      expect(removeReview.body).toContain("Remove the tag News from 1 subscriber?")
      await b.post(`${base}/subscribers/bulk/run`, { csrf, action: "remove-tag", tag: tag.id, id: ids.slice(0, 1) })
      expect(flashOf(await b.get(`${base}/subscribers`))).toBe("1 subscriber changed.")
      expect(await tagsOfSubscriber(owner, ids[0]!)).toEqual([])
      expect(await tagsOfSubscriber(owner, ids[1]!)).toEqual(["News"])
    })

    it("unsubscribes and deletes the selected subscribers", async () => {
      const { b, csrf, base, ids, seeded, ...owner } = await selection()
      const review = await b.post(`${base}/subscribers/bulk`, { csrf, action: "unsubscribe", id: ids })
      expect(review.body).toContain("<h1>Unsubscribe 3 subscribers?</h1>")
      await b.post(`${base}/subscribers/bulk/run`, { csrf, action: "unsubscribe", id: ids })
      expect(flashOf(await b.get(`${base}/subscribers`))).toBe("3 subscribers changed.")
      for (const id of ids) expect(await statusOf(owner, id)).toEqual(Option.some("unsubscribed"))
      expect(await statusOf(owner, seeded[3]!.id)).toEqual(Option.some("active"))

      const deleteReview = await b.post(`${base}/subscribers/bulk`, { csrf, action: "delete", id: ids.slice(0, 2) })
      expect(deleteReview.body).toContain("<h1>Delete 2 subscribers?</h1>")
      expect(deleteReview.body).toContain("This cannot be undone.")
      await b.post(`${base}/subscribers/bulk/run`, { csrf, action: "delete", id: ids.slice(0, 2) })
      expect(flashOf(await b.get(`${base}/subscribers`))).toBe("2 subscribers changed.")
      expect(await statusOf(owner, ids[0]!)).toEqual(Option.none())
      expect(await statusOf(owner, ids[1]!)).toEqual(Option.none())
      expect(listedEmails(await b.get(`${base}/subscribers`)).sort()).toEqual(["cy@example.com", "dee@example.com"])
    })

    it("counts a move the status table refuses, and a subscriber gone meanwhile, as refused", async () => {
      const { b, csrf, base, ids, ...owner } = await selection()
      await setStatus(owner, ids[0]!, "complained")
      await setStatus(owner, ids[1]!, "unsubscribed")
      await asOwner(owner, (principal) => Effect.flatMap(Subscribers, (s) => s.remove(principal, ids[2]! as never)))
      const done = await b.post(`${base}/subscribers/bulk/run`, { csrf, action: "resubscribe", id: ids })
      expect(done.status).toBe(303)
      const after = await b.get(`${base}/subscribers`)
      expect(flashOf(after)).toBe("1 subscriber changed; 2 refused (a move their status does not allow, or gone meanwhile).")
      expect(after.body).toContain("class=\"flash error\"")
      expect(await statusOf(owner, ids[0]!)).toEqual(Option.some("complained"))
      expect(await statusOf(owner, ids[1]!)).toEqual(Option.some("active"))
    })

    it("refuses a selection it cannot carry out with a 400 that says why", async () => {
      const { b, csrf, base, ids } = await selection()
      const cases: ReadonlyArray<[Record<string, string | ReadonlyArray<string>>, string]> = [
        [{ csrf, action: "unsubscribe" }, "Choose at least one subscriber."],
        [{ csrf, action: "explode", id: ids }, "Choose what to do with the selected subscribers."],
        [{ csrf, action: "add-tag", id: ids }, "Choose the tag to add or remove."],
        [{ csrf, action: "unsubscribe", id: ["not-an-id"] }, "The selection names no subscriber of this organization."],
        [{ csrf, action: "unsubscribe", id: Array.from({ length: 51 }, () => ids[0]!) }, "Choose at most 50 subscribers at once."]
      ]
      for (const [fields, message] of cases) {
        for (const path of ["bulk", "bulk/run"]) {
          const refused = await b.post(`${base}/subscribers/${path}`, fields)
          expect(refused.status).toBe(400)
          expect(refused.body).toContain(message)
        }
      }
    })

    it("changes nothing for a form without the session's token, nor for another organization's subscribers", async () => {
      const { b, base, ids, csrf, ...owner } = await selection()
      const forged = await b.post(`${base}/subscribers/bulk/run`, { action: "delete", id: ids })
      expect(forged.status).toBe(403)
      const crossSite = await b.post(`${base}/subscribers/bulk/run`, { csrf, action: "delete", id: ids }, { origin: "https://evil.example" })
      expect(crossSite.status).toBe(403)
      for (const id of ids) expect(await statusOf(owner, id)).toEqual(Option.some("active"))

      const stranger = await ownerWithOrganization()
      const review = await stranger.b.post(`${stranger.base}/subscribers/bulk`, { csrf: stranger.csrf, action: "delete", id: ids })
      expect(review.status).toBe(400)
      expect(review.body).not.toContain("ada@example.com")
      const run = await stranger.b.post(`${stranger.base}/subscribers/bulk/run`, { csrf: stranger.csrf, action: "delete", id: ids })
      expect(run.status).toBe(303)
      expect(flashOf(await stranger.b.get(`${stranger.base}/subscribers`))).toContain("0 subscribers changed; 3 refused")
      for (const id of ids) expect(await statusOf(owner, id)).toEqual(Option.some("active"))
    })
  })

  describe("one subscriber", () => {
    const oneSubscriber = async () => {
      const owner = await ownerWithOrganization()
      const [subscriber] = await seedSubscribers(owner, ["ada@example.com"])
      return { ...owner, subscriber: subscriber!, page: `${owner.base}/subscribers/${subscriber!.id}` }
    }

    it("shows the profile, an empty history of emails, and a preference link that opens the preference center", async () => {
      const { b, page } = await oneSubscriber()
      const shown = await b.get(page)
      expect(shown.status).toBe(200)
      expect(shown.body).toContain("<h1 class=\"email\">ada@example.com</h1>")
      expect(shown.body).toContain("<dd id=\"subscriber-status-now\">Active</dd>")
      expect(shown.body).toContain("No emails yet.")
      expect(shown.body).toContain("No notes yet.")
      const link = /<input id="preference-link" type="text" readonly value="([^"]+)"/.exec(shown.body)?.[1]
      expect(link).toBeDefined()
      const url = new URL(unescape(link!))
      expect(url.pathname).toBe("/preference-center")
      expect(shown.body).toContain("data-copy=\"preference-link\"")
      const center = await fetch(`${server.baseUrl}${url.pathname}${url.search}`, { headers: { accept: "text/html" } })
      expect(center.status).toBe(200)
      expect(await center.text()).toContain("ada@example.com")
    })

    it("offers exactly the status moves the table allows, changes the status, and refuses any other move beside the field", async () => {
      const { b, csrf, page, subscriber, ...owner } = await oneSubscriber()
      for (const status of subscriberStatuses) {
        await setStatus(owner, subscriber.id, status)
        const shown = await b.get(page)
        expect(optionsOf(shown, "status-to")).toEqual(allowedMoves(status, "api"))
      }
      // Now complained: only unsubscribing is open, and coming back is refused.
      const refused = await b.post(`${page}/status`, { csrf, status: "active" })
      expect(refused.status).toBe(409)
      expect(fieldError(refused, "status-to")).toBe("A subscriber cannot move from Complained to Active here.")
      expect(await statusOf(owner, subscriber.id)).toEqual(Option.some("complained"))
      const unknown = await b.post(`${page}/status`, { csrf, status: "asleep" })
      expect(unknown.status).toBe(400)
      expect(fieldError(unknown, "status-to")).toBe("Choose one of the statuses offered.")
      const moved = await b.post(`${page}/status`, { csrf, status: "unsubscribed" })
      expect(moved.status).toBe(303)
      expect(moved.headers.get("location")).toBe(page)
      expect(flashOf(await b.get(page))).toBe("The status is now: Unsubscribed.")
      expect(await statusOf(owner, subscriber.id)).toEqual(Option.some("unsubscribed"))
    })

    it("saves metadata given as a JSON object, and refuses anything else beside the field in the person's language", async () => {
      const { b, csrf, page } = await oneSubscriber()
      const notJson = await b.post(`${page}/metadata`, { csrf, metadata: "{plan: gold}" })
      expect(notJson.status).toBe(400)
      expect(fieldError(notJson, "subscriber-metadata")).toBe("This is not valid JSON: check the quotes, commas and braces.")
      expect(notJson.body).toContain("{plan: gold}</textarea>")
      const list = await b.post(`${page}/metadata`, { csrf, metadata: "[1, 2]" })
      expect(list.status).toBe(400)
      expect(fieldError(list, "subscriber-metadata")).toContain("must be a JSON object")
      const tooMany = await b.post(`${page}/metadata`, { csrf, metadata: JSON.stringify(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]))) })
      expect(tooMany.status).toBe(400)
      expect(fieldError(tooMany, "subscriber-metadata")).toContain("at most 64 keys")
      await b.get("/app/locale/de?back=/app")
      const german = await b.post(`${page}/metadata`, { csrf, metadata: "{" })
      expect(fieldError(german, "subscriber-metadata")).toBe("Das ist kein gültiges JSON: Prüfen Sie Anführungszeichen, Kommas und Klammern.")
      await b.get("/app/locale/en?back=/app")

      const saved = await b.post(`${page}/metadata`, { csrf, metadata: "{\"plan\": \"gold\", \"seats\": 3}" })
      expect(saved.status).toBe(303)
      const shown = await b.get(page)
      expect(flashOf(shown)).toBe("The metadata was saved.")
      expect(unescape(shown.body)).toContain("\"plan\": \"gold\",\n  \"seats\": 3")
    })

    it("adds and removes tags", async () => {
      const { b, csrf, page, subscriber, ...owner } = await oneSubscriber()
      const tag = await seedTag(owner, "Weekly")
      expect(optionsOf(await b.get(page), "add-tag")).toEqual([tag.id])
      const added = await b.post(`${page}/tags`, { csrf, tag: tag.id })
      expect(added.status).toBe(303)
      const shown = await b.get(page)
      expect(flashOf(shown)).toBe("The tag Weekly was added.")
      expect(shown.body).toContain("aria-label=\"Remove the tag Weekly\"")
      expect(shown.body).toContain("Every tag of the organization is attached.")
      expect(await tagsOfSubscriber(owner, subscriber.id)).toEqual(["Weekly"])
      const missing = await b.post(`${page}/tags`, { csrf, tag: "" })
      expect(missing.status).toBe(400)
      const unknown = await b.post(`${page}/tags`, { csrf, tag: "0193a3f2-0000-7000-8000-000000000001" })
      expect(unknown.status).toBe(400)
      const removed = await b.post(`${page}/tags/${tag.id}/remove`, { csrf })
      expect(removed.status).toBe(303)
      expect(flashOf(await b.get(page))).toBe("The tag Weekly was removed.")
      expect(await tagsOfSubscriber(owner, subscriber.id)).toEqual([])
    })

    it("keeps notes: adds, lists, edits and deletes them, and refuses an empty one", async () => {
      const { b, csrf, page } = await oneSubscriber()
      const empty = await b.post(`${page}/notes`, { csrf, body: "   " })
      expect(empty.status).toBe(400)
      expect(fieldError(empty, "note-body")).toBe("Write something in the note.")
      const tooLong = await b.post(`${page}/notes`, { csrf, body: "x".repeat(10_001) })
      expect(tooLong.status).toBe(400)
      expect(fieldError(tooLong, "note-body")).toBe("A note may have at most 10,000 characters.")

      const added = await b.post(`${page}/notes`, { csrf, body: "Called about <billing>" })
      expect(added.status).toBe(303)
      const shown = await b.get(page)
      expect(flashOf(shown)).toBe("The note was added.")
      expect(shown.body).toContain("<p class=\"body\">Called about &lt;billing&gt;</p>")
      const edit = /href="([^"]+\/notes\/[0-9a-f-]{36}\/edit)"/.exec(shown.body)![1]!
      const editPage = await b.get(edit)
      expect(editPage.status).toBe(200)
      expect(editPage.body).toContain("Called about &lt;billing&gt;</textarea>")
      const blank = await b.post(edit, { csrf, body: "" })
      expect(blank.status).toBe(400)
      expect(fieldError(blank, "note-body")).toBe("Write something in the note.")
      expect((await b.post(edit, { csrf, body: "Paid." })).status).toBe(303)
      const changed = await b.get(page)
      expect(flashOf(changed)).toBe("The note was saved.")
      expect(changed.body).toContain("<p class=\"body\">Paid.</p>")
      const remove = edit.replace(/\/edit$/, "/delete")
      expect((await b.post(remove, { csrf })).status).toBe(303)
      const gone = await b.get(page)
      expect(flashOf(gone)).toBe("The note was deleted.")
      expect(gone.body).toContain("No notes yet.")
      expect((await b.get(edit)).status).toBe(404)
    })

    it("deletes the subscriber after a confirmation page", async () => {
      const { b, csrf, page, subscriber, base, ...owner } = await oneSubscriber()
      const confirm = await b.get(`${page}/delete`)
      expect(confirm.status).toBe(200)
      expect(confirm.body).toContain("Delete ada@example.com?")
      expect(await statusOf(owner, subscriber.id)).toEqual(Option.some("active"))
      const deleted = await b.post(`${page}/delete`, { csrf })
      expect(deleted.status).toBe(303)
      expect(deleted.headers.get("location")).toBe(`${base}/subscribers`)
      expect(flashOf(await b.get(`${base}/subscribers`))).toBe("The subscriber ada@example.com was deleted.")
      expect(await statusOf(owner, subscriber.id)).toEqual(Option.none())
      expect((await b.get(page)).status).toBe(404)
    })

    it("shows their history newest first in words with its times, 25 events a page and a link to the older ones", async () => {
      const { b, csrf, page, subscriber, ...owner } = await oneSubscriber()
      const tag = await seedTag(owner, "Weekly")
      expect((await b.post(`${page}/tags`, { csrf, tag: tag.id })).status).toBe(303)
      expect((await b.post(`${page}/status`, { csrf, status: "unsubscribed" })).status).toBe(303)
      expect((await b.post(`${page}/notes`, { csrf, body: "Called about <billing>" })).status).toBe(303)
      const shown = await b.get(page)
      expect(historyOf(shown)).toEqual([
        ["Note added", "Called about <billing>"],
        ["Changed", "status to Unsubscribed"],
        ["Tag added", "Weekly"],
        ["Created", "as Active"]
      ])
      expect(shown.body).toMatch(/<tr><td><time datetime="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z">/)
      expect(olderLink(shown)).toBeUndefined()
      await b.get("/app/locale/de?back=/app")
      expect(historyOf(await b.get(page)).slice(1)).toEqual([
        ["Geändert", "Status zu Abgemeldet"],
        ["Tag hinzugefügt", "Weekly"],
        ["Angelegt", "als Aktiv"]
      ])
      await b.get("/app/locale/en?back=/app")

      // 24 changes more: 28 events, of which the newest 25 come first.
      await asOwner(owner, (principal) =>
        Effect.flatMap(Subscribers, (subscribers) =>
          Effect.forEach(Array.from({ length: 24 }, (_, n) => n), (n) =>
            subscribers.update(principal, subscriber.id as never, { metadata: { n } as never }))))
      const first = await b.get(page)
      const newest = historyOf(first)
      expect(newest).toHaveLength(25)
      expect(newest.slice(0, 24)).toEqual(Array.from({ length: 24 }, () => ["Changed", "metadata"]))
      expect(newest[24]).toEqual(["Note added", "Called about <billing>"])
      const older = olderLink(first)
      expect(older).toMatch(new RegExp(`^${page}\\?before=[0-9a-f-]{36}#history$`))
      const second = await b.get(unescape(older!))
      expect(second.status).toBe(200)
      expect(historyOf(second)).toEqual([["Changed", "status to Unsubscribed"], ["Tag added", "Weekly"], ["Created", "as Active"]])
      expect(olderLink(second)).toBeUndefined()
      expect(second.body).toContain(`<a href="${page}#history">Newest events</a>`)

      const mangled = await b.get(`${page}?before=yesterday`)
      expect(mangled.status).toBe(400)
      expect(mangled.body).toContain("This page of the history is no longer valid; start again from the newest events.")
    })

    it("downloads everything stored about them, the document their preference link gives them, and a member may", async () => {
      const { b, csrf, page, subscriber, ...owner } = await oneSubscriber()
      const tag = await seedTag(owner, "Weekly")
      expect((await b.post(`${page}/tags`, { csrf, tag: tag.id })).status).toBe(303)
      expect((await b.post(`${page}/notes`, { csrf, body: "Prefers German" })).status).toBe(303)
      const shown = await b.get(page)
      expect(shown.body).toContain(`<a href="${page}/export" download`)

      const download = await b.get(`${page}/export`)
      expect(download.status).toBe(200)
      expect(download.headers.get("content-type")).toMatch(/^application\/json/)
      expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename="roster-data-\d{4}-\d{2}-\d{2}\.json"$/)
      const document = JSON.parse(download.body)
      expect(document.subscriber).toMatchObject({ id: subscriber.id, email: "ada@example.com", status: "active" })
      expect(document.tags.map((t: { name: string }) => t.name)).toEqual(["Weekly"])
      expect(document.notes.map((n: { body: string }) => n.body)).toEqual(["Prefers German"])
      expect(document.events.map((e: { type: string }) => e.type)).toEqual(["subscriber.created", "tag.subscribed", "subscriber.note_added"])

      const link = new URL(unescape(/<input id="preference-link" type="text" readonly value="([^"]+)"/.exec(shown.body)![1]!))
      const theirs = await fetch(`${server.baseUrl}/preference-center/data-export${link.search}`)
      expect(theirs.status).toBe(200)
      const answered = (await theirs.json()) as { readonly data?: { readonly exported_at: string }; readonly exported_at: string }
      const theirDocument = form === "overview" ? answered.data! : answered
      expect({ ...document, exported_at: theirDocument.exported_at }).toEqual(theirDocument)

      const organizationId = await asOwner(owner, (principal) => Effect.succeed(principal.organization.id))
      const memberUser = await server.signIn()
      await server.addMember(organizationId, memberUser, "member")
      const member = browser(server, memberUser.cookie)
      const theirView = await member.get(page)
      expect(theirView.status).toBe(200)
      expect(historyOf(theirView).map(([kind]) => kind)).toEqual(["Note added", "Tag added", "Created"])
      const theirDownload = await member.get(`${page}/export`)
      expect(theirDownload.status).toBe(200)
      expect(JSON.parse(theirDownload.body).subscriber.id).toBe(subscriber.id)
    })

    it("changes nothing for a forged form, and does not show or change another organization's subscriber", async () => {
      const { b, page, subscriber, csrf, ...owner } = await oneSubscriber()
      expect((await b.post(`${page}/delete`, {})).status).toBe(403)
      expect((await b.post(`${page}/metadata`, { metadata: "{\"a\": 1}" })).status).toBe(403)
      expect(await statusOf(owner, subscriber.id)).toEqual(Option.some("active"))

      const stranger = await ownerWithOrganization()
      const theirs = `${stranger.base}/subscribers/${subscriber.id}`
      expect((await stranger.b.get(theirs)).status).toBe(404)
      expect((await stranger.b.get(`${theirs}/delete`)).status).toBe(404)
      expect((await stranger.b.get(`${theirs}/export`)).status).toBe(404)
      const history = await b.get(page)
      const own = /before=([0-9a-f-]{36})/.exec(history.body)?.[1] ?? subscriber.id
      expect((await stranger.b.get(`${theirs}?before=${own}`)).status).toBe(404)
      expect((await stranger.b.get(`${stranger.base}/subscribers/not-an-id/export`)).status).toBe(404)
      expect((await stranger.b.post(`${theirs}/delete`, { csrf: stranger.csrf })).status).toBe(404)
      expect((await stranger.b.post(`${theirs}/status`, { csrf: stranger.csrf, status: "unsubscribed" })).status).toBe(404)
      expect((await stranger.b.post(`${theirs}/notes`, { csrf: stranger.csrf, body: "Mine now" })).status).toBe(404)
      expect((await stranger.b.get(`${stranger.base}/subscribers/not-an-id`)).status).toBe(404)
      expect(await statusOf(owner, subscriber.id)).toEqual(Option.some("active"))
      expect((await b.get(page)).body).toContain("No notes yet.")
    })
  })
})
