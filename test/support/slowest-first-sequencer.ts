import { relative } from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * The files that take longest, longest first, as two whole runs on a two-core machine timed them.
 * They start before all others, so that none of them is left running alone at the end of the run.
 */
const slowestFirst = [
  "test/apps/cli-end-to-end.test.ts",
  "test/browser/api-docs.test.ts",
  "test/apps/end-to-end.test.ts",
  "test/persistence/embedded-database.test.ts",
  "test/apps/campaign-end-to-end.test.ts",
  "test/browser/dashboard-people.test.ts",
  "test/http/reference/fuzz.test.ts",
  "test/apps/cli-import.test.ts",
  "test/apps/webhooks-end-to-end.test.ts",
  "test/apps/sequences-end-to-end.test.ts",
  "test/apps/email-end-to-end.test.ts",
  "test/browser/dashboard-audience.test.ts",
  "test/browser/preference-page-views.test.ts",
  "test/browser/dashboard-imports.test.ts",
  "test/apps/import-end-to-end.test.ts",
  "test/browser/dashboard-subscribers.test.ts",
  "test/browser/dashboard-webhooks.test.ts",
  "test/browser/dashboard-campaigns.test.ts",
  "test/browser/dashboard-templates.test.ts",
  "test/browser/dashboard-sequences.test.ts",
  "test/browser/sign-up-pages.test.ts",
  "test/browser/dashboard-campaign-preview.test.ts",
  "test/persistence/pglite.test.ts",
  "test/browser/dashboard.test.ts",
  "test/browser/dashboard-overview.test.ts",
  "test/browser/sign-in-and-error-pages.test.ts",
  "test/persistence/postgres.test.ts",
  "test/apps/container.test.ts",
  "test/apps/cli-progress.test.ts",
  "test/apps/code-cache.test.ts",
  "test/browser/preference-center.test.ts",
  "test/http/data-errors.test.ts",
  "test/apps/tracing.test.ts",
  "test/apps/preference-center-end-to-end.test.ts",
  "test/package/domain-package.test.ts",
  "test/apps/readme-tour.test.ts",
  "test/apps/redis-outage.test.ts"
]

/**
 * Vitest's own order (by the durations it recorded on this machine, else largest file first) with
 * the files of `slowestFirst` moved ahead in that order. CI starts without vitest's records, and
 * the size of a file says little of how long it runs.
 */
export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const rank = (file: TestSpecification) => {
      const index = slowestFirst.indexOf(relative(file.project.config.root, file.moduleId).replaceAll("\\", "/"))
      return index === -1 ? slowestFirst.length : index
    }
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}
