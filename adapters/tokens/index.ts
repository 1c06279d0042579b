export { makeJoseTokenSigner, SigningSecretError } from "./jose-token-signer.js"
export {
  loadOrCreateSecretFile,
  readSessionSecret,
  SESSION_SECRET_FILE,
  SessionSecret,
  SessionSecretLive,
  TokenSignerLive
} from "./session-secret.js"
