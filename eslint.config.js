// @ts-check
import { defineConfig } from "eslint/config"
import tseslint from "typescript-eslint"

/** Globals of Node.js that plain JavaScript files here (bins, tool configs) may use. */
const nodeGlobals = Object.fromEntries(
  [
    "process",
    "console",
    "module",
    "require",
    "exports",
    "__dirname",
    "__filename",
    "Buffer",
    "URL",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "queueMicrotask",
    "structuredClone"
  ].map((name) => [name, "readonly"])
)

export default defineConfig(
  {
    ignores: ["**/node_modules/", ".roster/", "coverage/", "**/dist/"]
  },
  {
    files: ["**/*.ts"],
    extends: [tseslint.configs.recommended],
    rules: {
      // Effect.gen(function*() { ... }) often has nothing to yield (a constructor that builds a
      // service from plain values, a handler that only returns); that is not a mistake here.
      "require-yield": "off",
      // The compiler reports unused locals and parameters (noUnusedLocals, noUnusedParameters).
      "@typescript-eslint/no-unused-vars": "off",
      // `interface Foo extends Schema.Schema.Type<typeof Foo> {}` is how Effect names a schema's type.
      "@typescript-eslint/no-empty-object-type": ["error", { allowInterfaces: "with-single-extends" }],
      // `new (...args: Array<any>) => A` is the way to say "any constructor"; other `any`s are not.
      "@typescript-eslint/no-explicit-any": ["error", { ignoreRestArgs: true }]
    }
  },
  {
    files: ["**/*.test.ts"],
    rules: {
      // Every test runs: no focused, skipped or placeholder tests (skipIf with a stated reason is fine).
      "no-restricted-properties": [
        "error",
        ...["it", "test", "describe"].flatMap((object) =>
          ["only", "skip", "todo"].map((property) => ({
            object,
            property,
            message: `${object}.${property} leaves tests out of the run`
          }))
        )
      ]
    }
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: nodeGlobals },
    rules: {
      "no-undef": "error",
      "no-unused-vars": "error"
    }
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" }
  }
)
