export { DEFAULT_EMAIL_FROM, formatEmail, makeConsoleMailer } from "./console-mailer.js"
export { makeResendMailer, RESEND_API_BASE_URL, type ResendMailerOptions } from "./resend-mailer.js"
export { type SignInTemplates, signInTemplates } from "./sign-in-templates.js"
export { makeTemplatedAuthMail, signInLink } from "./templated-auth-mail.js"
