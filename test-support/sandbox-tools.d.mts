/** Which of the OS sandbox's programs are on PATH (see sandbox-tools.mjs). */
export function sandboxTools(): { missing: string[]; bwrap: boolean; network: boolean }
