/** Builds `dist/` unless it is up to date (or `force`); whether it built. */
export declare const buildRoster: (options?: { readonly force?: boolean }) => Promise<boolean>
