import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["domain/**/*.test.ts", "application/**/*.test.ts", "adapters/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    sequence: { concurrent: false }
  }
})
