/**
 * Scratch areas every program may write to. One that holds nothing the OS sandbox must reach is
 * denied: a private tmpfs inside the sandbox (the write "succeeds" and is lost). One that holds
 * the workspace, the session state or the commands' scratch directory (self-hosted layouts, the
 * test suites) cannot be denied (the CLI's file tools refuse every path below a denied one), and
 * left alone the CLI binds /tmp read-write (measured, CLI 1.0.102): it is read-only instead, its
 * other entries denied, and the commands get a TMPDIR of their own (`commandScratch`).
 *
 * A leaf module: the entry (cli/early.ts) reads it before the rest of the action loads.
 */
import path from 'node:path'

export const SCRATCH_AREAS = ['/tmp', '/var/tmp', '/dev/shm']

/** True when `child` is `parent` or lies inside it. */
export function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** Whether a scratch area holds any of `paths` (then it is read-only to the agent's commands). */
export function inScratchArea(paths: readonly string[]): boolean {
  return paths.some((p) => SCRATCH_AREAS.some((area) => within(area, path.resolve(p))))
}
