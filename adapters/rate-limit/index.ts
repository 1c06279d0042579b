export {
  FixedWindows,
  type FixedWindowsOptions,
  InProcessRateLimiterLive,
  makeInProcessRateLimiter
} from "./in-process-rate-limiter.js"
