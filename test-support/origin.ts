/**
 * A bare `origin` repository seeded with files, and workspaces cloned from it: what the publish
 * step's tests push to and check out (as actions/checkout would).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { makeWorkspace, type Workspace } from './action.js'

const GIT_ID = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com']

/** git in `cwd` with a test identity; its stdout. */
export function testGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...GIT_ID, ...args], { cwd, encoding: 'utf8', stdio: 'pipe' })
}

/**
 * A new directory under the temp dir holding `origin.git` (bare, branch main) and `seed`, the
 * clone that pushed `files` as its first commit.
 */
export function seedOrigin(
  prefix: string,
  files: Record<string, string>
): { base: string; origin: string } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const origin = path.join(base, 'origin.git')
  testGit(base, 'init', '-q', '--bare', '-b', 'main', origin)
  const seed = path.join(base, 'seed')
  testGit(base, 'clone', '-q', origin, seed)
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(seed, file)), { recursive: true })
    fs.writeFileSync(path.join(seed, file), content)
  }
  testGit(seed, 'checkout', '-q', '-b', 'main')
  testGit(seed, 'add', '-A')
  testGit(seed, 'commit', '-q', '-m', 'seed')
  testGit(seed, 'push', '-q', 'origin', 'main')
  return { base, origin }
}

/** A workspace holding a fresh clone of `origin` (its cleanup is the caller's). */
export function cloneOrigin(origin: string): Workspace {
  const ws = makeWorkspace()
  fs.rmSync(ws.dir, { recursive: true })
  testGit(path.dirname(origin), 'clone', '-q', origin, ws.dir)
  return ws
}
