/**
 * Places no command may touch whatever the rules allow: bash's /dev/tcp and /dev/udp (a network
 * connection from a redirection), other processes' environments and memory under /proc (the
 * action's own process holds every input, the GitHub token and the provider key among them),
 * the credentials under HOME, and the runner's own files (GITHUB_ENV, GITHUB_PATH, ... inject
 * environment and PATH into every later step of the job).
 *
 * This is the policy's wall, judged on the command's text; the OS sandbox is the second one
 * (a separate PID namespace, HOME and RUNNER_TEMP not mounted), since a program an allowed
 * command runs can open any path it computes.
 */
import { homeDirectory } from './readable.js'
import path from 'node:path'
import { procReadable } from './readable.js'
import type { ShellWord } from './shell-word.js'

/** The known text of a word: all of it when literal, else its source text and literal prefix. */
type WordLike = Pick<ShellWord, 'text' | 'literal' | 'prefix'>

const NETWORK_DEVICES = ['/dev/tcp/', '/dev/udp/']

/** Whether a redirection target is, or could expand to, bash's /dev/tcp or /dev/udp. */
export function mayBeNetworkDevice(word: WordLike): boolean {
  if (word.literal)
    return NETWORK_DEVICES.some((d) => path.posix.normalize(word.text).startsWith(d))
  const prefix = path.posix.normalize(word.prefix || '.')
  return (
    word.prefix === '' ||
    NETWORK_DEVICES.some((d) => d.startsWith(word.prefix) || prefix.startsWith(d.slice(0, -1)))
  )
}

/**
 * A repository's git configuration (any letter case, also a worktree's or a submodule's under
 * .git/modules): actions/checkout keeps
 * the job's token in it (http.extraheader) unless `persist-credentials: false`.
 */
export const GIT_CONFIG = /(?:^|\/)\.git\/(?:.*\/)?config(?:\.worktree)?$/i

/**
 * Credentials below HOME (compared case-insensitively): the policy denies paths to them in any
 * command, and the sandbox denies them where it cannot deny HOME as a whole (on GitHub's runners
 * HOME holds the workspace).
 */
export const HOME_CREDENTIALS = [
  '.ssh',
  '.gnupg',
  '.git-credentials',
  '.gitconfig',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.docker',
  '.kube',
  '.aws',
  '.azure',
  '.config/gh',
  '.config/hub',
  '.config/gcloud',
  '.copilot',
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.local/share/keyrings'
]

/**
 * Why a word an allowed command gets (an argument or a redirection target) must not be used,
 * or undefined. Literal paths are judged by their text; words only known at run time by whether
 * their known start could still lead there.
 */
export function sensitiveWordReason(
  word: WordLike,
  home: string = homeDirectory()
): string | undefined {
  const text = word.text
  if (/(?:^|\/)environ$/.test(text) || GIT_CONFIG.test(text)) {
    return `"${text}" names a process environment or a repository config, which hold secrets (actions/checkout keeps the token in .git/config)`
  }
  const proc = /^\/proc(?:\/([^/]*)(?:\/(.*))?)?$/.exec(text)
  if (proc !== null && !(word.literal && procReadable(text) !== undefined)) {
    return `"${text}" reaches into /proc, where other processes' environments and memory are`
  }
  if (!word.literal) {
    // a glob or expansion whose known start can still become /proc/... (`/pro?/1/e*`, `../*/1`)
    const last = word.prefix.slice(word.prefix.lastIndexOf('/') + 1)
    const mayLeave = word.prefix.startsWith('/') || word.prefix.includes('..')
    if (mayLeave && 'proc'.startsWith(last) && /[*?[]/.test(text)) {
      return `"${text}" is a pattern that can match files under /proc`
    }
  }
  const expandedHome =
    text === '~' || text.startsWith('~/')
      ? home + text.slice(1)
      : /^(?:\$HOME|\$\{HOME\})(?:\/|$)/.test(text)
        ? home + text.replace(/^(?:\$HOME|\$\{HOME\})/, '')
        : text
  if (path.isAbsolute(expandedHome)) {
    const rel = path.relative(home, path.resolve(expandedHome))
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) {
      const lower = rel.toLowerCase()
      const secret = HOME_CREDENTIALS.find((s) => lower === s || lower.startsWith(`${s}/`))
      if (secret !== undefined) return `"${text}" is among the credentials under HOME (${secret})`
    }
  }
  return undefined
}

/**
 * Directories no write may reach, whatever the rules allow: the runner's temp and tool cache,
 * the files behind GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_STATE,
 * the action's own files, and HOME (less the working directory when it lies inside HOME).
 */
export function runnerPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const roots = new Set<string>()
  const add = (p: string | undefined) => {
    if (p !== undefined && p !== '' && path.isAbsolute(p)) roots.add(path.resolve(p))
  }
  add(env.RUNNER_TEMP)
  add(env.RUNNER_TOOL_CACHE)
  add(env.GITHUB_ACTION_PATH)
  for (const name of [
    'GITHUB_ENV',
    'GITHUB_PATH',
    'GITHUB_OUTPUT',
    'GITHUB_STEP_SUMMARY',
    'GITHUB_STATE'
  ]) {
    const file = env[name]
    if (file !== undefined && file !== '') {
      add(file)
      add(path.dirname(file))
    }
  }
  add(env.HOME)
  return [...roots]
}

/**
 * Why a directory a command changes to is off limits, or undefined: the file system's root or
 * any directory above HOME (from there relative paths reach every secret), /proc, HOME and the
 * secrets below it.
 */
export function sensitiveDirectory(
  dir: string,
  home: string = homeDirectory()
): string | undefined {
  const resolved = path.resolve(dir)
  const rel = path.relative(resolved, home)
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
    return `cd ${resolved}: a directory that holds HOME and its credentials`
  }
  const fromHome = path.relative(home, resolved).toLowerCase()
  const held = HOME_CREDENTIALS.filter((c) => c.startsWith(`${fromHome}/`))
  if (!fromHome.startsWith('..') && !path.isAbsolute(fromHome) && held.length > 0) {
    return `${resolved} holds credentials (${held.join(', ')})`
  }
  if (resolved === '/proc' || resolved.startsWith('/proc/')) {
    return `cd ${resolved}: /proc holds other processes' environments and memory`
  }
  return sensitiveWordReason({ text: resolved, literal: true, prefix: resolved }, home)
}
