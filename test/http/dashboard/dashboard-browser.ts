/**
 * What the dashboard's HTTP tests share: a small browser that keeps cookies and does not follow
 * redirects, and a signed-in person with an organization of their own.
 */
import type { Role } from "@roster/domain"
import type { PlanTier } from "@roster/domain"
import type { SignedInUser, TestHttpServer } from "../../support/http-server.js"

export interface Page {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

export const browser = (server: TestHttpServer, cookie = "") => {
  const jar = new Map<string, string>()
  for (const pair of cookie.split("; ").filter((p) => p !== "")) {
    const [name, ...value] = pair.split("=")
    jar.set(name!, value.join("="))
  }
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ")
  const keep = (headers: Headers) => {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(";")
      const [name, ...value] = pair!.split("=")
      if (/max-age=0/i.test(line) || /expires=thu, 01 jan 1970/i.test(line)) jar.delete(name!)
      else jar.set(name!, value.join("="))
    }
  }
  const request = async (
    method: string,
    path: string,
    options: { form?: Record<string, string>; headers?: Record<string, string> } = {}
  ): Promise<Page> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      redirect: "manual",
      headers: {
        ...(jar.size > 0 ? { cookie: cookieHeader() } : {}),
        ...(options.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
        ...options.headers
      },
      ...(options.form === undefined ? {} : { body: new URLSearchParams(options.form).toString() })
    })
    keep(response.headers)
    return { status: response.status, headers: response.headers, body: await response.text() }
  }
  return {
    jar,
    get: (path: string, headers?: Record<string, string>) => request("GET", path, headers === undefined ? {} : { headers }),
    post: (path: string, form: Record<string, string>, headers?: Record<string, string>) =>
      request("POST", path, headers === undefined ? { form } : { form, headers })
  }
}

export const csrfOf = (page: Page) => /<meta name="csrf-token" content="([^"]+)"/.exec(page.body)?.[1] ?? ""

export const fieldError = (page: Page, id: string) =>
  new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(page.body)?.[1]

export const unescape = (text: string) =>
  text.replaceAll("&#39;", "'").replaceAll("&quot;", "\"").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")

/** A person of `role` in a new organization on `tier`, with their browser on its pages. */
export const personIn = async (
  server: TestHttpServer,
  options: { readonly role?: Role; readonly tier?: PlanTier; readonly user?: SignedInUser } = {}
) => {
  const organization = await server.createOrganization({ tier: options.tier ?? "free" })
  const user = options.user ?? await server.signIn()
  await server.addMember(organization.id, user, options.role ?? "owner")
  const b = browser(server, user.cookie)
  const base = `/app/o/${organization.slug}`
  const start = await b.get(base)
  return { b, user, organization, base, csrf: csrfOf(start) }
}
