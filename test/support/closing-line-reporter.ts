import type { Reporter, TestModule } from "vitest/node"

/**
 * Ends a run with one plain line, `tests: N passed, N failed, N skipped`, the last the run prints,
 * so that any tool reading the output can tell what ran without knowing vitest's own summary.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
    }
    // After vitest's own summary, which it prints once every reporter has been told the run ended.
    process.once("exit", () => process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`))
  }
}
