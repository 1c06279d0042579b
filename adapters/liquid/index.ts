export { invitationTemplates, type SignInTemplates, signInTemplates } from "./sign-in-templates.js"
export { makeTemplatedAuthMail, signInLink } from "./templated-auth-mail.js"
export {
  type LiquidTemplateEngineOptions,
  LiquidTemplateEngineLive,
  makeLiquidTemplateEngine,
  MAX_RENDER_MS,
  MAX_RENDER_WORK,
  MAX_RENDERED_LENGTH,
  MAX_TEMPLATE_LENGTH
} from "./liquid-template-engine.js"
