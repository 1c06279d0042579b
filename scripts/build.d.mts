/** Builds `dist/` unless it is up to date (or `force`); whether it built. */
export declare const buildRoster: (options?: { readonly force?: boolean }) => Promise<boolean>

/** The programs `dist/` holds. */
export declare const programs: ReadonlyArray<"start" | "api" | "worker" | "cli">

/** Where a program's build is. */
export declare const programPath: (program: string) => string

/** `NAME=value` words as an environment. */
export declare const environmentOf: (pairs: ReadonlyArray<string>) => Record<string, string>

/** How package.json's npm script `name` starts its program: the environment it adds, the Node.js options, the words after them. */
export declare const npmScript: (name: string) => {
  readonly env: Readonly<Record<string, string>>
  readonly nodeOptions: ReadonlyArray<string>
  readonly rest: ReadonlyArray<string>
}
