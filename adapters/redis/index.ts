export { RedisCacheHealthLive } from "./redis-cache-health.js"
export { makeRedisClient, RedisClient } from "./redis-client.js"
export { RedisIdempotencyStoreLive } from "./redis-idempotency-store.js"
export { RedisRateLimiterLive } from "./redis-rate-limiter.js"
