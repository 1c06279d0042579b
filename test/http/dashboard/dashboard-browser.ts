/**
 * A small browser for the dashboard's tests: it keeps cookies, does not follow redirects, posts
 * forms as a browser encodes them (url-encoded, or multipart with a file), and signs in with the
 * emailed link. Each test makes its own organization through the dashboard.
 */
import type { PlanTier, Role } from "@roster/domain"
import { expect } from "vitest"
import type { SignedInUser, TestHttpServer } from "../../support/http-server.js"

export interface Page {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

/** A url-encoded form's fields; a field given an array is sent once per value, as checkboxes are. */
export type FormValues = Readonly<Record<string, string | ReadonlyArray<string>>>

/** A field of a multipart form: text, or a file with its name. */
export type MultipartField = readonly [name: string, value: string] | readonly [name: string, file: Blob, fileName: string]

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
    options: { form?: FormValues; multipart?: ReadonlyArray<MultipartField>; headers?: Record<string, string> } = {}
  ): Promise<Page> => {
    let body: string | FormData | undefined
    if (options.form !== undefined) {
      body = new URLSearchParams(Object.entries(options.form).flatMap(([name, value]): Array<[string, string]> =>
        typeof value === "string" ? [[name, value]] : value.map((v) => [name, v]))).toString()
    }
    if (options.multipart !== undefined) {
      const data = new FormData()
      for (const entry of options.multipart) {
        if (entry.length === 2) data.append(entry[0], entry[1])
        else data.append(entry[0], entry[1], entry[2])
      }
      body = data
    }
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      redirect: "manual",
      headers: {
        ...(jar.size > 0 ? { cookie: cookieHeader() } : {}),
        ...(options.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
        ...options.headers
      },
      ...(body === undefined ? {} : { body })
    })
    keep(response.headers)
    return { status: response.status, headers: response.headers, body: await response.text() }
  }
  return {
    jar,
    get: (path: string, headers?: Record<string, string>) => request("GET", path, headers === undefined ? {} : { headers }),
    /** A form; a field given an array is sent once per value. */
    post: (path: string, form: FormValues, headers?: Record<string, string>) =>
      request("POST", path, headers === undefined ? { form } : { form, headers }),
    postMultipart: (path: string, fields: ReadonlyArray<MultipartField>, headers?: Record<string, string>) =>
      request("POST", path, headers === undefined ? { multipart: fields } : { multipart: fields, headers })
  }
}

export type Browser = ReturnType<typeof browser>

export const csrfOf = (page: Page) => /<meta name="csrf-token" content="([^"]+)"/.exec(page.body)?.[1] ?? ""

export const fieldError = (page: Page, id: string) =>
  new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(page.body)?.[1]

export const unescape = (text: string) =>
  text.replaceAll("&#39;", "'").replaceAll("&#34;", "\"").replaceAll("&quot;", "\"").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&")

/** A signed-in person's browser, on a page with a form token. */
export const signedInBrowser = async (server: TestHttpServer, user?: SignedInUser) => {
  const signed = user ?? await server.signIn()
  const b = browser(server, signed.cookie)
  const organizations = await b.get("/app/organizations")
  return { b, user: signed, csrf: csrfOf(organizations) }
}

/** An organization made through the dashboard, and its owner's browser. */
export const ownerWithOrganization = async (server: TestHttpServer) => {
  const owner = await signedInBrowser(server)
  const slug = `news-${Math.random().toString(36).slice(2, 10)}`
  const made = await owner.b.post("/app/organizations", { csrf: owner.csrf, name: "Ada's <News>", slug })
  expect(made.status).toBe(303)
  expect(made.headers.get("location")).toBe(`/app/o/${slug}`)
  return { ...owner, slug, base: `/app/o/${slug}` }
}

/** People signed in to the dashboard of the server `current()` gives. */
export const dashboardPeople = (current: () => TestHttpServer) => ({
  signedInBrowser: (user?: SignedInUser) => signedInBrowser(current(), user),
  ownerWithOrganization: () => ownerWithOrganization(current())
})

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
