/** The action's sources bundled for the end-to-end runs (see action-bundle.mjs). */
export const BUNDLE_VARIABLE: string
export function bundleAction(): string
export function bundledEntry(entry: 'index' | 'post'): string | undefined
