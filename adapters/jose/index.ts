export { makeJoseTokenSigner, SigningSecretError } from "./jose-token-signer.js"
export {
  loadOrCreateSecretFile,
  makeTokenSignerLive,
  readSessionSecret,
  SESSION_SECRET_FILE,
  type SessionSecretSource
} from "./session-secret.js"
