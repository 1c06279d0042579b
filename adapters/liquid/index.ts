export { type SignInTemplates, signInTemplates } from "./sign-in-templates.js"
export { makeTemplatedAuthMail, signInLink } from "./templated-auth-mail.js"
