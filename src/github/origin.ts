/**
 * The repository a checkout belongs to, from its `origin` remote: in a run over many repositories
 * (the reusable workflow `.github/workflows/fleet.yml`) the agent works on a checkout of another
 * repository than the workflow's own (`GITHUB_REPOSITORY`), and the report must name that one.
 *
 * The remote is read from the repository's config file alone (`git config --file`): no system,
 * user or included config, and no ownership check that a checkout made by another user would fail.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** A repository on a GitHub server, as a remote URL names it. */
export interface RemoteRepository {
  /** The server's host name, lower case (`github.com`, `ghe.example.com`). */
  host: string
  owner: string
  name: string
}

/** GitHub's rules for a login (letters, digits, hyphens; `_` on GHES) and a repository name. */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38})$/
const NAME = /^[A-Za-z0-9._-]{1,100}$/

/** `owner/name` when both parts are names GitHub allows, else undefined. */
export function parseRepositoryName(text: string): { owner: string; name: string } | undefined {
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(text.trim())
  if (!match) return undefined
  const [, owner = '', name = ''] = match
  if (!OWNER.test(owner) || !NAME.test(name) || name === '.' || name === '..') return undefined
  return { owner, name }
}

/**
 * The host, owner and name in a remote URL: `https://github.com/o/n(.git)`, with credentials in
 * it too (`https://x-access-token:…@github.com/o/n`: never returned), `ssh://git@host/o/n.git`,
 * `git@host:o/n.git`. Undefined for a local path or anything else.
 */
export function parseRemoteUrl(url: string): RemoteRepository | undefined {
  const text = url.trim()
  let host: string
  let repoPath: string
  const scp = /^(?:[^@/\s]+@)?([A-Za-z0-9.-]+):(?!\/)([^\s]+)$/.exec(text)
  if (/^(?:https?|ssh|git):\/\//i.test(text)) {
    let parsed: URL
    try {
      parsed = new URL(text)
    } catch {
      return undefined
    }
    host = parsed.hostname
    try {
      repoPath = decodeURIComponent(parsed.pathname)
    } catch {
      return undefined
    }
  } else if (scp) {
    host = scp[1] as string
    repoPath = scp[2] as string
  } else {
    return undefined
  }
  const cleaned = repoPath
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
  const repository = parseRepositoryName(cleaned)
  if (!repository || host === '') return undefined
  return { host: host.toLowerCase(), ...repository }
}

/**
 * The `origin` remote's URL of the git checkout at or above `dir`, or undefined (no checkout, no
 * origin, git missing). The checkout's git directory is found by walking up to `.git` (a
 * directory, or a `gitdir:` file of a worktree or submodule).
 */
export function checkoutOriginUrl(dir: string): string | undefined {
  const config = checkoutConfig(dir)
  if (config === undefined) return undefined
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value
  }
  env.GIT_CONFIG_NOSYSTEM = '1'
  env.GIT_CONFIG_GLOBAL = os.devNull
  try {
    const url = execFileSync(
      'git',
      ['config', '--file', config, '--no-includes', '--get', 'remote.origin.url'],
      { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }
    ).trim()
    return url === '' ? undefined : url
  } catch {
    return undefined
  }
}

/** The config file of the checkout at or above `dir` (a worktree's is its common directory's). */
function checkoutConfig(dir: string): string | undefined {
  let current = path.resolve(dir)
  for (;;) {
    const gitDir = gitDirAt(current)
    if (gitDir !== undefined) {
      const common = path.join(gitDir, 'commondir')
      const base = isFile(common)
        ? path.resolve(gitDir, fs.readFileSync(common, 'utf8').trim())
        : gitDir
      const config = path.join(base, 'config')
      return isFile(config) ? config : undefined
    }
    const parent = path.dirname(current)
    if (parent === current) return undefined
    current = parent
  }
}

function gitDirAt(dir: string): string | undefined {
  const dotGit = path.join(dir, '.git')
  let stat: fs.Stats
  try {
    stat = fs.statSync(dotGit)
  } catch {
    return undefined
  }
  if (stat.isDirectory()) return dotGit
  if (!stat.isFile()) return undefined
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'))
  return match?.[1] === undefined ? undefined : path.resolve(dir, match[1])
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}
