/**
 * HOME's caches and toolchains the CLI's sandbox binds read-write for the tools it recognizes
 * (policy/sandbox.ts HOME_CACHES). Those that exist are read-only inside the sandbox; one that
 * does not is made by the CLI on the host and bound read-write, where a command could plant code
 * a later step of the job runs outside the sandbox (`~/.npm/_npx`, corepack's pnpm). So the run
 * notes which did not exist before the session and removes whatever of them exists once the CLI
 * (and every process it started) is gone.
 */
import fs from 'node:fs'

export class HomeCaches {
  private constructor(private readonly absent: readonly string[]) {}

  /** Notes which of `caches` (absolute paths) do not exist now. */
  static before(caches: readonly string[]): HomeCaches {
    return new HomeCaches(caches.filter((cache) => !exists(cache)))
  }

  /**
   * Removes each cache that did not exist before and does now (never following a link in its
   * place); returns the paths removed.
   */
  sweep(): string[] {
    const removed: string[] = []
    // deepest first: `.cache/node/corepack` before `.cache`
    for (const cache of [...this.absent].sort((a, b) => b.length - a.length)) {
      if (!exists(cache)) continue
      fs.rmSync(cache, { recursive: true, force: true })
      removed.push(cache)
    }
    return removed
  }
}

function exists(file: string): boolean {
  try {
    fs.lstatSync(file)
    return true
  } catch {
    return false
  }
}
