export { makeResendMailer, RESEND_API_BASE_URL, type ResendMailerOptions } from "./resend-mailer.js"
export { readResendEvent } from "./resend-events.js"
export { makeResendDomainVerifier, type ResendDomainVerifierOptions } from "./resend-domain-verifier.js"
