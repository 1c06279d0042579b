import type { Locale } from "@roster/domain"

/** The service's own confirmation email, in the reader's language, as plain text. */
export const defaultConfirmationMail = (
  locale: Locale,
  parts: { readonly organizationName: string; readonly formName: string; readonly confirmUrl: string }
): { readonly subject: string; readonly text: string } =>
  locale === "de"
    ? {
      subject: `Bitte bestätigen Sie Ihre Anmeldung bei ${parts.organizationName}`,
      text: `Hallo,\n\nSie haben sich (oder jemand hat Sie) über „${parts.formName}“ bei ${parts.organizationName} angemeldet.\n` +
        `Bitte bestätigen Sie die Anmeldung über diesen Link:\n\n${parts.confirmUrl}\n\n` +
        "Der Link gilt sieben Tage. Wenn Sie sich nicht angemeldet haben, ignorieren Sie diese E-Mail; Sie erhalten dann nichts weiter.\n"
    }
    : {
      subject: `Please confirm your subscription to ${parts.organizationName}`,
      text: `Hello,\n\nYou (or someone using your address) signed up through "${parts.formName}" at ${parts.organizationName}.\n` +
        `Please confirm the subscription with this link:\n\n${parts.confirmUrl}\n\n` +
        "The link is good for seven days. If you did not sign up, ignore this email and you will hear nothing more.\n"
    }

/** The page a confirmation link opens: it shows a button, and the button confirms. */
export const confirmationUrl = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}/f/confirm?token=${encodeURIComponent(token)}`
