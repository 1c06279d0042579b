import { type LimitPolicy, planLimitPolicy } from "@roster/domain"
import { Context } from "effect"

/**
 * The limit policy of the deployment (domain/limits.ts): every use case that could exceed a limit
 * asks it which applies. Plans, unless the process provides another (PLAN_LIMITS=off).
 */
export class Limits extends Context.Reference<Limits>()("roster/Limits", {
  defaultValue: (): LimitPolicy => planLimitPolicy
}) {}
