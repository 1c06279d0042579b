/**
 * The dashboard's members screen through the running server, in both deployments: owners invite
 * by email (the invited person signs in with the emailed link and finds the organization), change
 * roles and remove members; the last owner stays; members see the list without controls, are
 * refused by the use case when they post, and may leave.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshAddress, startHttpServer, type TestHttpServer, UnlimitedRateLimiterLive } from "../../support/http-server.js"
import { browser, csrfOf, dashboardPeople, fieldError, type Page, unescape } from "./dashboard-browser.js"

const forms = ["reference", "overview"] as const

/** The user id in the row of `email`, read from its remove (or leave) link. */
const userIdIn = (page: Page, email: string) => {
  const body = unescape(page.body)
  const row = body.slice(body.indexOf("<tbody>")).split("<tr>").find((r) => r.includes(email))
  return /\/members\/([0-9a-f-]{36})\/remove/.exec(row ?? "")?.[1]
}

describe.each(forms)("the members screen in the %s deployment", (form) => {
  let server: TestHttpServer
  beforeAll(async () => {
    server = await startHttpServer({ form, adapters: UnlimitedRateLimiterLive })
  })
  afterAll(() => server.close())

  const { ownerWithOrganization } = dashboardPeople(() => server)
  type Owner = Awaited<ReturnType<typeof ownerWithOrganization>>

  /** Invites `email` through the form, then signs them in with the link the email carries. */
  const invite = async (owner: Owner, role: "owner" | "member", email = freshAddress("invited")) => {
    const seen = server.emailCount(email)
    const sent = await owner.b.post(`${owner.base}/members`, { csrf: owner.csrf, email, role })
    expect(sent.status).toBe(303)
    expect(sent.headers.get("location")).toBe(`${owner.base}/members`)
    const token = await server.signInTokenFor(email, seen)
    const verified = await fetch(`${server.baseUrl}/auth/verify?token=${encodeURIComponent(token)}`)
    expect(verified.status).toBe(200)
    const cookie = verified.headers.getSetCookie().find((line) => line.startsWith("svc_session="))!.split(";")[0]!
    const b = browser(server, cookie)
    return { b, email, csrf: csrfOf(await b.get("/app/organizations")) }
  }

  it("invites a person by email, who signs in with the emailed link and finds the organization", async () => {
    const owner = await ownerWithOrganization()
    const list = await owner.b.get(`${owner.base}/members`)
    expect(list.status).toBe(200)
    expect(list.body).toContain(owner.user.email)
    expect(list.body).toContain("id=\"invite-email\"")
    expect(list.body).toMatch(/<time datetime="[^"]+" data-format="date">/)

    const email = freshAddress("invited")
    const sent = await owner.b.post(`${owner.base}/members`, { csrf: owner.csrf, email, role: "member" })
    expect(sent.status).toBe(303)
    const after = await owner.b.get(`${owner.base}/members`)
    expect(after.body).toContain(`An invitation is on its way to ${email}.`)
    expect(after.body).toContain(email)
    const token = await server.signInTokenFor(email)
    const mail = server.emails().filter((text) => text.includes(`To: ${email}`)).at(-1)!
    expect(unescape(mail)).toContain("Ada's <News>")
    expect(mail).toContain(owner.user.email)

    const verified = await fetch(`${server.baseUrl}/auth/verify?token=${encodeURIComponent(token)}`)
    const cookie = verified.headers.getSetCookie().find((line) => line.startsWith("svc_session="))!.split(";")[0]!
    const invited = browser(server, cookie)
    const start = await invited.get("/app")
    expect(start.headers.get("location")).toBe(owner.base)
    const overview = await invited.get(owner.base)
    expect(unescape(overview.body)).toContain("Ada's <News> · Member")
  })

  it("refuses an invalid address, a missing one and a present member beside the email field, keeping what was typed", async () => {
    const owner = await ownerWithOrganization()
    const wrong = await owner.b.post(`${owner.base}/members`, { csrf: owner.csrf, email: "not an address", role: "member" })
    expect(wrong.status).toBe(400)
    expect(fieldError(wrong, "invite-email")).toBe("Enter an email address such as name@example.com.")
    expect(wrong.body).toContain("value=\"not an address\"")
    const blank = await owner.b.post(`${owner.base}/members`, { csrf: owner.csrf, email: "", role: "member" })
    expect(blank.status).toBe(400)
    expect(fieldError(blank, "invite-email")).toBe("Enter the email address of the person to invite.")
    const badRole = await owner.b.post(`${owner.base}/members`, { csrf: owner.csrf, email: freshAddress(), role: "admin" })
    expect(badRole.status).toBe(400)
    expect(fieldError(badRole, "invite-role")).toBe("Choose owner or member.")
    const present = await owner.b.post(`${owner.base}/members`, { csrf: owner.csrf, email: owner.user.email, role: "member" })
    expect(present.status).toBe(409)
    expect(fieldError(present, "invite-email")).toBe("This person is a member already; change their role in the list instead.")
    const german = await owner.b.post(`${owner.base}/members`, { csrf: owner.csrf, email: owner.user.email, role: "member" }, {
      "accept-language": "de"
    })
    expect(fieldError(german, "invite-email")).toBe("Diese Person ist bereits Mitglied; ändern Sie stattdessen ihre Rolle in der Liste.")
  })

  it("changes a member's role, and refuses to demote the last owner beside the control", async () => {
    const owner = await ownerWithOrganization()
    const member = await invite(owner, "member")
    const list = await owner.b.get(`${owner.base}/members`)
    const memberId = userIdIn(list, member.email)!
    const ownerId = userIdIn(list, owner.user.email)!

    const lastOwner = await owner.b.post(`${owner.base}/members/${ownerId}/role`, { csrf: owner.csrf, role: "member" })
    expect(lastOwner.status).toBe(409)
    expect(fieldError(lastOwner, `role-${ownerId}`)).toBe("The organization needs an owner: make another member an owner first.")
    expect(lastOwner.body).toContain(`aria-describedby="role-${ownerId}-error"`)

    const promoted = await owner.b.post(`${owner.base}/members/${memberId}/role`, { csrf: owner.csrf, role: "owner" })
    expect(promoted.status).toBe(303)
    expect((await owner.b.get(`${owner.base}/members`)).body).toContain(`${member.email} is now: Owner.`)
    // The promoted member's next request sees the owner's screens.
    expect((await member.b.get(`${owner.base}/api-keys`)).status).toBe(200)
    // With two owners, the first may step down.
    const stepDown = await owner.b.post(`${owner.base}/members/${ownerId}/role`, { csrf: owner.csrf, role: "member" })
    expect(stepDown.status).toBe(303)
    const badRole = await member.b.post(`${owner.base}/members/${ownerId}/role`, { csrf: member.csrf, role: "king" })
    expect(badRole.status).toBe(400)
    expect(fieldError(badRole, `role-${ownerId}`)).toBe("Choose owner or member.")
  })

  it("removes a member after a confirmation naming them, and never the last owner", async () => {
    const owner = await ownerWithOrganization()
    const member = await invite(owner, "member")
    const list = await owner.b.get(`${owner.base}/members`)
    const memberId = userIdIn(list, member.email)!
    const ownerId = userIdIn(list, owner.user.email)!

    const confirm = await owner.b.get(`${owner.base}/members/${memberId}/remove`)
    expect(confirm.status).toBe(200)
    expect(confirm.body).toContain(`<h1>Remove ${member.email}?</h1>`)
    const removed = await owner.b.post(`${owner.base}/members/${memberId}/remove`, { csrf: owner.csrf })
    expect(removed.status).toBe(303)
    const after = await owner.b.get(`${owner.base}/members`)
    expect(after.body).toContain(`${member.email} was removed.`)
    expect(userIdIn(after, member.email)).toBeUndefined()
    expect((await member.b.get(owner.base)).status).toBe(404)

    const leaveConfirm = await owner.b.get(`${owner.base}/members/${ownerId}/remove`)
    expect(unescape(leaveConfirm.body)).toContain("<h1>Leave Ada's <News>?</h1>")
    const lastOwner = await owner.b.post(`${owner.base}/members/${ownerId}/remove`, { csrf: owner.csrf })
    expect(lastOwner.status).toBe(409)
    expect(lastOwner.body).toContain("The organization needs an owner: make another member an owner first.")
    expect((await owner.b.get(owner.base)).status).toBe(200)

    expect((await owner.b.get(`${owner.base}/members/not-an-id/remove`)).status).toBe(404)
    expect((await owner.b.post(`${owner.base}/members/${memberId}/remove`, { csrf: owner.csrf })).status).toBe(404)
  })

  it("shows a member the list without controls, refuses their posts, and lets them leave", async () => {
    const owner = await ownerWithOrganization()
    const member = await invite(owner, "member")
    const ownerList = await owner.b.get(`${owner.base}/members`)
    const ownerId = userIdIn(ownerList, owner.user.email)!
    const memberId = userIdIn(ownerList, member.email)!

    const seen = await member.b.get(`${owner.base}/members`)
    expect(seen.status).toBe(200)
    expect(seen.body).toContain(owner.user.email)
    expect(seen.body).toContain("aria-current=\"page\">Members</a>")
    expect(seen.body).not.toContain("id=\"invite-email\"")
    expect(seen.body).not.toContain("<select")
    expect(seen.body).not.toContain(`/members/${ownerId}/remove`)
    expect(seen.body).toContain("Leave organization")

    const email = freshAddress("uninvited")
    const invited = await member.b.post(`${owner.base}/members`, { csrf: member.csrf, email, role: "owner" })
    expect(invited.status).toBe(403)
    expect(invited.body).toContain("Your role in this organization does not allow this.")
    expect(server.emailCount(email)).toBe(0)
    expect((await member.b.post(`${owner.base}/members/${memberId}/role`, { csrf: member.csrf, role: "owner" })).status).toBe(403)
    expect((await member.b.post(`${owner.base}/members/${ownerId}/remove`, { csrf: member.csrf })).status).toBe(403)
    expect((await owner.b.get(`${owner.base}/members`)).body).not.toContain(email)

    const leave = await member.b.get(`${owner.base}/members/${memberId}/remove`)
    expect(unescape(leave.body)).toContain("<h1>Leave Ada's <News>?</h1>")
    const left = await member.b.post(`${owner.base}/members/${memberId}/remove`, { csrf: member.csrf })
    expect(left.status).toBe(303)
    expect(left.headers.get("location")).toBe("/app/organizations")
    expect(unescape((await member.b.get("/app/organizations")).body)).toContain("You left Ada's <News>.")
    expect((await member.b.get(owner.base)).status).toBe(404)
    expect(userIdIn(await owner.b.get(`${owner.base}/members`), member.email)).toBeUndefined()
  })

  it("changes nothing for a forged post, and reaches no member of another organization", async () => {
    const owner = await ownerWithOrganization()
    const member = await invite(owner, "member")
    const memberId = userIdIn(await owner.b.get(`${owner.base}/members`), member.email)!
    const email = freshAddress("forged")
    expect((await owner.b.post(`${owner.base}/members`, { email, role: "owner" })).status).toBe(403)
    expect((await owner.b.post(`${owner.base}/members/${memberId}/role`, { csrf: "wrong", role: "owner" })).status).toBe(403)
    expect((await owner.b.post(`${owner.base}/members/${memberId}/remove`, {})).status).toBe(403)
    const list = await owner.b.get(`${owner.base}/members`)
    expect(list.body).not.toContain(email)
    expect(server.emailCount(email)).toBe(0)
    expect(userIdIn(list, member.email)).toBe(memberId)
    expect(list.body).toMatch(new RegExp(`<option value="member" selected>Member</option>`))

    const other = await ownerWithOrganization()
    expect((await other.b.get(`${other.base}/members/${memberId}/remove`)).status).toBe(404)
    expect((await other.b.post(`${other.base}/members/${memberId}/remove`, { csrf: other.csrf })).status).toBe(404)
    expect((await other.b.post(`${other.base}/members/${memberId}/role`, { csrf: other.csrf, role: "owner" })).status).toBe(404)
    expect(userIdIn(await owner.b.get(`${owner.base}/members`), member.email)).toBe(memberId)
  })
})
