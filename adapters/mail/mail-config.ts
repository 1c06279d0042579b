import { Config, Option } from "effect"

export const DEFAULT_EMAIL_FROM = "Roster <noreply@localhost>"

/** An absolute http(s) URL, without trailing slashes. */
export const httpUrl = (name: string): Config.Config<string> =>
  Config.string(name).pipe(
    Config.validate({
      message: `${name}: must be an absolute URL such as http://localhost:3000`,
      validation: (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)
    }),
    Config.map((s) => s.replace(/\/+$/, ""))
  )

/** The sender of emails that name none: EMAIL_FROM. */
export const EmailFrom: Config.Config<string> = Config.string("EMAIL_FROM").pipe(
  Config.validate({ message: "EMAIL_FROM: must not be empty", validation: (s) => s.trim() !== "" }),
  Config.withDefault(DEFAULT_EMAIL_FROM)
)

/** Where links in emails point: PUBLIC_BASE_URL, else this machine's PORT (3000). */
export const PublicBaseUrl: Config.Config<string> = Config.all([
  Config.option(httpUrl("PUBLIC_BASE_URL")),
  Config.integer("PORT").pipe(Config.withDefault(3000))
]).pipe(Config.map(([url, port]) => Option.getOrElse(url, () => `http://localhost:${port}`)))
