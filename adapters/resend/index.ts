export { makeResendMailer, RESEND_API_BASE_URL, type ResendMailerOptions } from "./resend-mailer.js"
