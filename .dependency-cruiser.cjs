/**
 * The hexagon's one rule: arrows point inward only, apps -> adapters -> application -> domain.
 * `npm run lint` fails on any import that points the other way.
 */

/** Packages that talk to the outside world: databases, caches, HTTP, the platform. */
const drivers = "^node_modules/(pg|pg-[^/]+|ioredis|@electric-sql/[^/]+|@effect/sql[^/]*|@effect/platform[^/]*|@effect/opentelemetry|@opentelemetry/[^/]+|jose|resend|stripe|liquidjs)/"

/** Unit tests beside the domain's rules use its test runner as well. */
const tests = "\\.test\\.ts$"

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "domain-imports-effect-only",
      comment: "domain/ is pure rules: it imports effect and itself, nothing else (no node:* module, no other package, no outer layer).",
      severity: "error",
      from: { path: "^domain/", pathNot: tests },
      to: { pathNot: ["^domain/", "^node_modules/effect/"] }
    },
    {
      name: "domain-tests-stay-in-domain",
      comment: "Tests of domain/ use effect, the test runner and domain/ itself.",
      severity: "error",
      from: { path: "^domain/.*\\.test\\.ts$" },
      to: { pathNot: ["^domain/", "^node_modules/effect/", "^node_modules/@effect/vitest/", "^node_modules/vitest/"] }
    },
    {
      name: "application-not-to-adapters-or-apps",
      comment: "application/ declares ports; it never imports what fulfils them (adapters/) or what composes them (apps/).",
      severity: "error",
      from: { path: "^application/" },
      to: { path: "^(adapters|apps)/" }
    },
    {
      name: "application-no-node-builtins",
      comment: "application/ reaches the world through ports only: no node:* module.",
      severity: "error",
      from: { path: "^application/" },
      to: { dependencyTypes: ["core"] }
    },
    {
      name: "application-no-drivers",
      comment: "application/ reaches the world through ports only: no database, cache, HTTP or platform package.",
      severity: "error",
      from: { path: "^application/" },
      to: { path: drivers }
    },
    {
      name: "application-imports-domain-and-effect-only",
      comment: "application/ imports domain/, effect and itself; any other package belongs behind a port.",
      severity: "error",
      from: { path: "^application/" },
      to: {
        pathNot: ["^application/", "^domain/", "^node_modules/effect/", "^(adapters|apps)/", drivers],
        dependencyTypesNot: ["core"]
      }
    },
    {
      name: "adapters-not-to-apps",
      comment: "adapters/ fulfil ports; composition roots in apps/ pick them, never the reverse.",
      severity: "error",
      from: { path: "^adapters/" },
      to: { path: "^apps/" }
    },
    {
      name: "adapters-are-siblings",
      comment: "Each adapters/<technology>/ folder stands alone: it imports no other technology's folder. " +
        "What several adapters share lives in adapters/observability/ (or in application/ when it is pure).",
      severity: "error",
      from: { path: "^adapters/([^/]+)/" },
      to: { path: "^adapters/[^/]+/", pathNot: ["^adapters/$1/", "^adapters/observability/"] }
    },
    {
      name: "observability-imports-no-adapter",
      comment: "adapters/observability/ may be imported by every adapter, so it imports none of them.",
      severity: "error",
      from: { path: "^adapters/observability/" },
      to: { path: "^adapters/", pathNot: "^adapters/observability/" }
    },
    {
      name: "one-wire-form-not-to-the-other",
      comment: "Each wire form renders the shared HTTP base in its own shape; neither is built on the other.",
      severity: "error",
      from: { path: "^adapters/http/(reference|overview)/" },
      to: { path: "^adapters/http/(reference|overview)/", pathNot: "^adapters/http/$1/" }
    },
    {
      name: "shared-http-not-to-a-form",
      comment: "adapters/http/shared/ is the neutral base of both forms: it knows neither.",
      severity: "error",
      from: { path: "^adapters/http/shared/" },
      to: { path: "^adapters/http/(reference|overview)/" }
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing hides where an arrow points.",
      severity: "error",
      from: { path: "^(domain|application)/" },
      to: { couldNotResolve: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // The published build of @roster/domain; its sources are what the rules read.
    exclude: { path: "^domain/dist/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@roster/source", "import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"]
    },
    reporterOptions: {
      text: { highlightFocused: true }
    }
  }
}
