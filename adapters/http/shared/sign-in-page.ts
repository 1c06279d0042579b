import { DEFAULT_LOCALE, Locale } from "@roster/domain"
import { Schema } from "effect"
import Negotiator from "negotiator"
import { createHash } from "node:crypto"
import { pageTemplate, renderPage } from "./page-templates.js"

/**
 * The page a sign-in email links to. Opening it signs no one in: its button calls
 * `GET /auth/verify` with the link's token, so mail scanners that fetch every link in an email
 * cannot use the link up. Self-contained (no external asset), in English or German, and locked
 * down by a Content-Security-Policy that allows exactly its own script and style.
 */

const isLocale = Schema.is(Locale)

const locales = Locale.literals

/**
 * The language of the page: `?locale=` when it names one we have, else the best of
 * `Accept-Language` (RFC 9110 quality values; `de-CH` is German), else English.
 */
export const negotiateLocale = (requested: string | undefined, acceptLanguage: string | undefined): Locale => {
  const asked = requested?.trim().toLowerCase()
  if (asked !== undefined && isLocale(asked)) return asked
  if (acceptLanguage === undefined) return DEFAULT_LOCALE
  const best = new Negotiator({ headers: { "accept-language": acceptLanguage } }).language(locales)
  return best !== undefined && isLocale(best) ? best : DEFAULT_LOCALE
}

interface PageText {
  readonly title: string
  readonly intro: string
  readonly button: string
  readonly working: string
  readonly signedIn: string
  readonly dashboard: string
  readonly expired: string
  readonly used: string
  readonly invalid: string
  readonly missing: string
  readonly failed: string
}

const texts: Readonly<Record<Locale, PageText>> = {
  en: {
    title: "Sign in to Roster",
    intro: "Press the button to sign in with the link from your email. The link works once, within 15 minutes.",
    button: "Sign in",
    working: "Signing in…",
    signedIn: "You are signed in as",
    dashboard: "Open the dashboard",
    expired: "This sign-in link has expired. Ask for a new one.",
    used: "This sign-in link has been used already. Ask for a new one.",
    invalid: "This sign-in link is not valid. Open the link from the email exactly as it was sent, or ask for a new one.",
    missing: "This link is incomplete: it carries no sign-in token. Open the link from the email again.",
    failed: "Signing in did not work. Please try again in a moment."
  },
  de: {
    title: "Bei Roster anmelden",
    intro:
      "Klicken Sie auf die Schaltfläche, um sich mit dem Link aus Ihrer E-Mail anzumelden. Der Link gilt einmal, innerhalb von 15 Minuten.",
    button: "Anmelden",
    working: "Anmeldung läuft…",
    signedIn: "Sie sind angemeldet als",
    dashboard: "Zum Dashboard",
    expired: "Dieser Anmeldelink ist abgelaufen. Fordern Sie einen neuen an.",
    used: "Dieser Anmeldelink wurde bereits verwendet. Fordern Sie einen neuen an.",
    invalid:
      "Dieser Anmeldelink ist ungültig. Öffnen Sie den Link aus der E-Mail genau so, wie er gesendet wurde, oder fordern Sie einen neuen an.",
    missing: "Dieser Link ist unvollständig: Er enthält kein Anmeldetoken. Öffnen Sie den Link aus der E-Mail erneut.",
    failed: "Die Anmeldung hat nicht geklappt. Bitte versuchen Sie es gleich noch einmal."
  }
}

/** The same in every language: it reads the token from the page's own address, never from the HTML. */
const script = `
(function () {
  var token = new URLSearchParams(window.location.search).get("token");
  var button = document.getElementById("sign-in");
  var working = document.getElementById("working");
  var show = function (id) {
    working.hidden = true;
    document.getElementById(id).hidden = false;
  };
  if (!token) {
    button.hidden = true;
    show("missing");
    return;
  }
  button.addEventListener("click", function () {
    button.disabled = true;
    working.hidden = false;
    fetch("/auth/verify?token=" + encodeURIComponent(token), {
      method: "GET",
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Accept": "application/json" }
    }).then(function (response) {
      return response.json().then(function (body) {
        button.hidden = true;
        if (response.ok) {
          document.getElementById("email").textContent = body.email;
          show("signed-in");
          return;
        }
        // The reference form names the problem by its type's last segment, the overview form by error.code.
        var code = typeof body.type === "string" ? body.type.split("/").pop()
          : body.error && typeof body.error.code === "string" ? body.error.code
          : "";
        show(code === "magic_link_expired" ? "expired"
          : code === "magic_link_already_used" ? "used"
          : code === "invalid_token" ? "invalid"
          : "failed");
      });
    }).catch(function () {
      button.disabled = false;
      show("failed");
    });
  });
})();
`

const style = `
body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; color: #1f2328; }
h1 { font-size: 1.5rem; }
button { font: inherit; padding: 0.6rem 1.4rem; border: 0; border-radius: 6px; background: #1f6feb; color: #fff; cursor: pointer; }
button:disabled { background: #8c959f; cursor: default; }
.note { color: #57606a; }
.error { color: #b42318; }
a.button { display: inline-block; padding: 0.6rem 1.4rem; border-radius: 6px; background: #1f6feb; color: #fff; text-decoration: none; }
`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/** Only this page's own script and style run; it talks to its own origin and nothing else. */
export const signInPageContentSecurityPolicy = [
  "default-src 'none'",
  `script-src ${sha256(script)}`,
  `style-src ${sha256(style)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/** Headers the page is served with: the policy, no referrer (the address holds the token), no caching. */
export const signInPageHeaders: Readonly<Record<string, string>> = {
  "Content-Security-Policy": signInPageContentSecurityPolicy,
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY"
}

const signInTemplate = pageTemplate(`<!DOCTYPE html>
<html lang="{{ locale }}">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <meta name="referrer" content="no-referrer" />
  <title>{{ t.title }}</title>
  <style>${style}</style>
</head>
<body>
  <main>
    <h1>{{ t.title }}</h1>
    <p class="note">{{ t.intro }}</p>
    <p><button id="sign-in" type="button">{{ t.button }}</button></p>
    <p id="working" class="note" hidden>{{ t.working }}</p>
    <div id="signed-in" hidden>
      <p>{{ t.signedIn }} <strong id="email"></strong>.</p>
      <p><a class="button" href="/app">{{ t.dashboard }}</a></p>
    </div>
    <p id="expired" class="error" hidden>{{ t.expired }}</p>
    <p id="used" class="error" hidden>{{ t.used }}</p>
    <p id="invalid" class="error" hidden>{{ t.invalid }}</p>
    <p id="missing" class="error" hidden>{{ t.missing }}</p>
    <p id="failed" class="error" hidden>{{ t.failed }}</p>
  </main>
  <script>${script}</script>
</body>
</html>
`)

export const signInPage = (locale: Locale): string => renderPage(signInTemplate, { locale, t: texts[locale] })
