export { RedisCacheHealthLive } from "./redis-cache-health.js"
export { makeRedisClient, RedisClient } from "./redis-client.js"
