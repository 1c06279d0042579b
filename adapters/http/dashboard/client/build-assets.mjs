/**
 * How the dashboard's script and stylesheet are made from `dashboard.ts` and `dashboard.css`
 * beside this file: bundled (htmx included) and minified by esbuild, for the browsers of the
 * last few years. scripts/build.mjs writes them to `dist/dashboard/`; a server run from the
 * sources makes them in memory when it starts (adapters/http/dashboard/assets.ts).
 */
import { fileURLToPath } from "node:url"

const here = (name) => fileURLToPath(new URL(`./${name}`, import.meta.url))

/** `{ script, style }`, the texts of the two files; `esbuild` is the module, imported by the caller. */
export const buildDashboardAssets = async (esbuild) => {
  const common = { bundle: true, minify: true, write: false, target: ["es2020", "chrome100", "firefox100", "safari15"], logLevel: "warning", legalComments: "none" }
  const [script, style] = await Promise.all([
    esbuild.build({ ...common, entryPoints: [here("dashboard.ts")], format: "iife", platform: "browser" }),
    esbuild.build({ ...common, entryPoints: [here("dashboard.css")], loader: { ".css": "css" } })
  ])
  return { script: script.outputFiles[0].text, style: style.outputFiles[0].text }
}
