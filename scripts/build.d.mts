/** Builds `dist/` unless it is up to date (or `force`); whether it built. */
export declare const buildRoster: (options?: { readonly force?: boolean }) => Promise<boolean>

/** The programs `dist/` holds. */
export declare const programs: ReadonlyArray<"start" | "api" | "worker" | "cli">

/** Where a program's build is. */
export declare const programPath: (program: string) => string
