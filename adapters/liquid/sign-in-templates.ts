import type { Locale } from "@roster/domain"

/**
 * The sign-in email in each language, as Liquid templates. Variables: `email` (the recipient),
 * `link` (the sign-in page), `minutes` (how long the link is good); an invitation also has
 * `organization` (its name) and `inviter` (who invited them, or nil for an API key). HTML
 * templates are rendered with every output escaped; text templates and subjects are plain text.
 */
export interface SignInTemplates {
  readonly subject: string
  readonly html: string
  readonly text: string
}

const layout = (lang: Locale, body: string) => `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ subject }}</title>
</head>
<body style="margin:0;padding:24px;background:#f6f6f4;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2328;">
<div style="max-width:520px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px;line-height:1.5;">
${body}
</div>
</body>
</html>
`

const button = (label: string) =>
  `<p style="margin:28px 0;"><a href="{{ link }}" style="display:inline-block;background:#1f2328;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600;">${label}</a></p>`

export const signInTemplates: Readonly<Record<Locale, SignInTemplates>> = {
  en: {
    subject: "Your sign-in link for Roster",
    html: layout(
      "en",
      `<p>Hello,</p>
<p>someone asked to sign in to Roster as <strong>{{ email }}</strong>. If that was you, use the button below.</p>
${button("Sign in to Roster")}
<p style="font-size:14px;color:#57606a;">Or open this address in your browser:<br><a href="{{ link }}" style="color:#57606a;word-break:break-all;">{{ link }}</a></p>
<p style="font-size:14px;color:#57606a;">The link works once and expires in {{ minutes }} {% if minutes == 1 %}minute{% else %}minutes{% endif %}. If you did not ask for it, ignore this email: nobody can sign in without the link.</p>`
    ),
    text: `Hello,

someone asked to sign in to Roster as {{ email }}. If that was you, open this link to sign in:

{{ link }}

The link works once and expires in {{ minutes }} {% if minutes == 1 %}minute{% else %}minutes{% endif %}. If you did not ask for it, ignore this email: nobody can sign in without the link.
`
  },
  de: {
    subject: "Ihr Anmeldelink für Roster",
    html: layout(
      "de",
      `<p>Hallo,</p>
<p>jemand möchte sich bei Roster als <strong>{{ email }}</strong> anmelden. Wenn Sie das waren, klicken Sie auf die Schaltfläche.</p>
${button("Bei Roster anmelden")}
<p style="font-size:14px;color:#57606a;">Oder öffnen Sie diese Adresse in Ihrem Browser:<br><a href="{{ link }}" style="color:#57606a;word-break:break-all;">{{ link }}</a></p>
<p style="font-size:14px;color:#57606a;">Der Link gilt einmal und läuft in {{ minutes }} {% if minutes == 1 %}Minute{% else %}Minuten{% endif %} ab. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail: Ohne den Link kann sich niemand anmelden.</p>`
    ),
    text: `Hallo,

jemand möchte sich bei Roster als {{ email }} anmelden. Wenn Sie das waren, öffnen Sie diesen Link:

{{ link }}

Der Link gilt einmal und läuft in {{ minutes }} {% if minutes == 1 %}Minute{% else %}Minuten{% endif %} ab. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail: Ohne den Link kann sich niemand anmelden.
`
  }
}

const minutesEn = "{{ minutes }} {% if minutes == 1 %}minute{% else %}minutes{% endif %}"
const minutesDe = "{{ minutes }} {% if minutes == 1 %}Minute{% else %}Minuten{% endif %}"
const invitedEn = "{% if inviter %}{{ inviter }} has invited you{% else %}You have been invited{% endif %}"
const invitedDe = "{% if inviter %}{{ inviter }} hat Sie eingeladen{% else %}Sie wurden eingeladen{% endif %}"

/** The invitation to an organization in each language: a sign-in email naming the organization and the inviter. */
export const invitationTemplates: Readonly<Record<Locale, SignInTemplates>> = {
  en: {
    subject: "You are invited to {{ organization }} on Roster",
    html: layout(
      "en",
      `<p>Hello,</p>
<p>${invitedEn} to join <strong>{{ organization }}</strong> on Roster, as <strong>{{ email }}</strong>. Use the button below to sign in.</p>
${button("Join on Roster")}
<p style="font-size:14px;color:#57606a;">Or open this address in your browser:<br><a href="{{ link }}" style="color:#57606a;word-break:break-all;">{{ link }}</a></p>
<p style="font-size:14px;color:#57606a;">The link works once and expires in ${minutesEn}. After that, ask Roster for a new sign-in link for this address: you are a member already.</p>`
    ),
    text: `Hello,

${invitedEn} to join {{ organization }} on Roster, as {{ email }}. Open this link to sign in:

{{ link }}

The link works once and expires in ${minutesEn}. After that, ask Roster for a new sign-in link for this address: you are a member already.
`
  },
  de: {
    subject: "Einladung zu {{ organization }} bei Roster",
    html: layout(
      "de",
      `<p>Hallo,</p>
<p>${invitedDe}, bei <strong>{{ organization }}</strong> auf Roster mitzuarbeiten, als <strong>{{ email }}</strong>. Mit der Schaltfläche melden Sie sich an.</p>
${button("Bei Roster beitreten")}
<p style="font-size:14px;color:#57606a;">Oder öffnen Sie diese Adresse in Ihrem Browser:<br><a href="{{ link }}" style="color:#57606a;word-break:break-all;">{{ link }}</a></p>
<p style="font-size:14px;color:#57606a;">Der Link gilt einmal und läuft in ${minutesDe} ab. Danach fordern Sie bei Roster einen neuen Anmeldelink für diese Adresse an: Sie sind bereits Mitglied.</p>`
    ),
    text: `Hallo,

${invitedDe}, bei {{ organization }} auf Roster mitzuarbeiten, als {{ email }}. Öffnen Sie diesen Link, um sich anzumelden:

{{ link }}

Der Link gilt einmal und läuft in ${minutesDe} ab. Danach fordern Sie bei Roster einen neuen Anmeldelink für diese Adresse an: Sie sind bereits Mitglied.
`
  }
}
