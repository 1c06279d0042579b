/** The dashboard's script and stylesheet, bundled and minified (build-assets.mjs). */
export declare const buildDashboardAssets: (esbuild: typeof import("esbuild")) => Promise<{ readonly script: string; readonly style: string }>
