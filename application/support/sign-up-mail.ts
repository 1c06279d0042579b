import type { Locale } from "@roster/domain"

interface MailParts {
  readonly organizationName: string
  /** The form signed up through; `null` for a sign-up through the organization's API. */
  readonly formName: string | null
}

/** The service's own confirmation email, in the reader's language, as plain text. */
export const defaultConfirmationMail = (
  locale: Locale,
  parts: MailParts & { readonly confirmUrl: string }
): { readonly subject: string; readonly text: string } =>
  locale === "de"
    ? {
      subject: `Bitte bestätigen Sie Ihre Anmeldung bei ${parts.organizationName}`,
      text: `Hallo,\n\nSie haben sich (oder jemand hat Sie) ${
        parts.formName === null ? "" : `über „${parts.formName}“ `
      }bei ${parts.organizationName} angemeldet.\n` +
        `Bitte bestätigen Sie die Anmeldung über diesen Link:\n\n${parts.confirmUrl}\n\n` +
        "Der Link gilt sieben Tage. Wenn Sie sich nicht angemeldet haben, ignorieren Sie diese E-Mail; Sie erhalten dann nichts weiter.\n"
    }
    : {
      subject: `Please confirm your subscription to ${parts.organizationName}`,
      text: `Hello,\n\nYou (or someone using your address) signed up ${
        parts.formName === null ? "" : `through "${parts.formName}" `
      }at ${parts.organizationName}.\n` +
        `Please confirm the subscription with this link:\n\n${parts.confirmUrl}\n\n` +
        "The link is good for seven days. If you did not sign up, ignore this email and you will hear nothing more.\n"
    }

/**
 * What an address already subscribed is told when it signs up again: that nothing changed, and
 * where its subscriptions are managed (the preference center). Plain text, in the reader's language.
 */
export const alreadySubscribedMail = (
  locale: Locale,
  parts: MailParts & { readonly preferencesUrl: string }
): { readonly subject: string; readonly text: string } =>
  locale === "de"
    ? {
      subject: `Sie sind bereits bei ${parts.organizationName} angemeldet`,
      text: `Hallo,\n\nSie haben sich (oder jemand hat Sie) ${
        parts.formName === null ? "" : `über „${parts.formName}“ `
      }bei ${parts.organizationName} angemeldet, ` +
        "doch diese Adresse ist bereits angemeldet: Es hat sich nichts geändert.\n" +
        `Ihre Abonnements verwalten Sie hier:\n\n${parts.preferencesUrl}\n\n` +
        "Wenn Sie sich nicht angemeldet haben, ignorieren Sie diese E-Mail.\n"
    }
    : {
      subject: `You are already subscribed to ${parts.organizationName}`,
      text: `Hello,\n\nYou (or someone using your address) signed up ${
        parts.formName === null ? "" : `through "${parts.formName}" `
      }at ${parts.organizationName}, ` +
        "but this address is subscribed already: nothing has changed.\n" +
        `You can manage your subscriptions here:\n\n${parts.preferencesUrl}\n\n` +
        "If you did not sign up, ignore this email.\n"
    }

/** The page a confirmation link opens: it shows a button, and the button confirms. */
export const confirmationUrl = (publicBaseUrl: string, token: string, locale: Locale): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}/f/confirm?token=${encodeURIComponent(token)}&locale=${locale}`
