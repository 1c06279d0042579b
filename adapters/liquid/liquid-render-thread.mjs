/**
 * A render thread's task: one template rendered for each of a list of scopes. The thread writes
 * each step of the work to the task's progress slot as it begins, and the process ends the thread
 * when a step runs past the time limit. Built to `dist/liquid-render-thread.mjs` beside the
 * programs, and loaded from here when Roster runs from its sources.
 */
import { makeCustomerLiquid, markStep } from "./customer-liquid.mjs"

/** One engine for each set of limits (a process uses one). */
const engines = new Map()

export default function renderTask({ source, scopes, slot, base, limits }) {
  const key = JSON.stringify(limits)
  let liquid = engines.get(key)
  if (liquid === undefined) {
    liquid = makeCustomerLiquid(limits)
    engines.set(key, liquid)
  }
  return liquid.renderEach(source, scopes, (index, part) => markStep(slot, base, index, part))
}
