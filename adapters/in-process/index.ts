/** Adapters that keep everything in this process: for tests, for trying Roster out, and for one machine. */
export { DEFAULT_EMAIL_FROM, formatEmail, makeConsoleMailer } from "./console-mailer.js"
export {
  FixedWindows,
  type FixedWindowsOptions,
  InProcessRateLimiterLive,
  makeInProcessRateLimiter
} from "./in-process-rate-limiter.js"
export { InProcessIdempotencyStoreLive } from "./memory-idempotency-store.js"
export { InProcessCacheHealthLive, MemoryPersistenceLive } from "./memory-persistence.js"
export { MemoryStore, MemoryStoreLive } from "./memory-store.js"
export { InProcessWorkSignalLive } from "./in-process-work-signal.js"
export { MemoryEmailUsageLive } from "./memory-email-usage.js"
export { MemoryMessageRepositoryLive } from "./memory-message-repository.js"
export { MemoryOutgoingMailLive } from "./memory-outgoing-mail.js"
export { InProcessDomainVerifierLive } from "./in-process-domain-verifier.js"
export { UnconfiguredPaymentGatewayLive } from "./unconfigured-payment-gateway.js"
