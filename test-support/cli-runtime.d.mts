/** The Copilot CLI binary and its unpacked runtime (see cli-runtime.mjs). */
export const CLI_RUNTIME: string
export function cliBinary(): string
export function cliRuntimePath(binary?: string): string | undefined
export function ensureCliRuntime(binary?: string): string | undefined
export function linkCliRuntime(home: string, binary?: string): boolean
