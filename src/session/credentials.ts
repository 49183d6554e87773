/**
 * The checkout's credential out of the workspace while the agent works, and back afterwards.
 *
 * actions/checkout (persist-credentials, its default) leaves a token where git in the workspace
 * finds it:
 * - v4/v5: `http.https://github.com/.extraheader = AUTHORIZATION: basic <base64
 *   x-access-token:TOKEN>` in `.git/config`, and in each submodule's `.git/modules/<name>/config`;
 * - v6+: the same header in `RUNNER_TEMP/git-credentials-<uuid>.config`, included from
 *   `.git/config` (and submodules' configs) by `includeIf.gitdir:<repo>/.git.path`,
 *   `includeIf.gitdir:<repo>/.git/worktrees/*.path` and their `/github/workspace` twins for
 *   container actions.
 * Tokens also sit in remote URLs (`https://x-access-token:TOKEN@github.com/o/r`).
 *
 * `stashCredentials` finds these in every git config file of the workspace's repositories (the
 * repository's config and config.worktree, worktrees', submodules' `modules/**\/config`, and files
 * they include that live in the workspace), saves each file's bytes to a private stash outside
 * the workspace, and takes the credentials out: the header and the include of a credentials file
 * removed, a URL's userinfo dropped. `restoreCredentials` puts every file back byte for byte and
 * deletes the stash. Both are idempotent; the post step (src/post.ts) restores what a crashed or
 * cancelled run left stashed. Values never leave this module except to the stash and `onSecret`.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { z } from 'zod'
import { GIT_TIMEOUT_MS } from '../git/process.js'

/** The stash file's name in the stash directory. */
export const STASH_FILE = 'git-credentials-stash.json'

export interface StashOptions {
  /**
   * Directories whose repositories are also searched (the agent's working directory): each and
   * its parents up to the workspace.
   */
  directories?: readonly string[]
  /** Where checkout v6+ keeps its credentials files (default: $RUNNER_TEMP). */
  runnerTemp?: string
  /** Called with every secret value found (to mask it in the log). */
  onSecret?: (secret: string) => void
  /** Called once before the stash is written, when there is something to take out. */
  beforeChange?: () => void
  env?: NodeJS.ProcessEnv
}

/** What was taken out: where and under which key, never the value. */
export interface StashRecord {
  /** `<file>: <key>` for every entry removed or rewritten; files relative to the workspace. */
  removed: string[]
  /** The config files changed. */
  files: string[]
}

export interface RestoreRecord {
  /** The files put back. */
  restored: string[]
  /**
   * Files changed during the session: the credentials were added back to what is there now,
   * entry by entry, instead of the file's bytes from before.
   */
  merged: string[]
  /** Files that could not be put back, and why (the stash is kept then). */
  failed: string[]
  /** Whether a stash was found at all. */
  found: boolean
}

/** One credential entry, as found. */
const EntrySchema = z.object({
  key: z.string().min(1),
  /** null: a key without `=` */
  value: z.string().nullable(),
  /** `removed`: the entry is gone; `rewritten`: its value became `replacement`. */
  action: z.enum(['removed', 'rewritten']),
  replacement: z.string().optional()
})
type Entry = z.infer<typeof EntrySchema>

const absolute = z.string().refine((file) => path.isAbsolute(file), 'an absolute path')
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/)

const StashSchema = z.object({
  version: z.literal(1),
  workspace: absolute,
  files: z.array(
    z.object({
      path: absolute,
      /** The real path of the directory holding it, when it was stashed. */
      dir: absolute,
      mode: z.number().int().min(0).max(0o7777),
      original: base64,
      sanitized: base64,
      entries: z.array(EntrySchema)
    })
  )
})
type Stash = z.infer<typeof StashSchema>
type StashedFile = Stash['files'][number]

/** checkout v6+'s credentials file (what its own cleanup matches). */
const CHECKOUT_CREDENTIALS_FILE = /git-credentials-[0-9a-f-]+\.config$/i
/** `scheme://userinfo@` in a URL. */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^/@\s?#]+)@/gi

/**
 * Takes the credentials out of the workspace's git config files, saving what it removed to
 * `stashDir/git-credentials-stash.json` (mode 0600). A stash already there is restored first.
 */
export function stashCredentials(
  workspace: string,
  stashDir: string,
  options: StashOptions = {}
): StashRecord {
  const previous = restoreCredentials(stashDir, options)
  if (previous.failed.length > 0) {
    throw new Error(
      `A stash of git credentials in ${stashDir} could not be put back: ${previous.failed.join('; ')}`
    )
  }
  const root = real(workspace)
  const runnerTemp = options.runnerTemp ?? options.env?.RUNNER_TEMP ?? process.env.RUNNER_TEMP
  const git = gitRunner(options.env ?? process.env)
  const onSecret = options.onSecret ?? (() => undefined)
  const gitDirs = repositoryGitDirs(root, options.directories ?? [])
  const queue = configFiles(gitDirs)
  const seen = new Set<string>()
  const plans: { file: string; entries: Entry[] }[] = []
  while (queue.length > 0) {
    const file = queue.shift()
    if (file === undefined || seen.has(file)) continue
    seen.add(file)
    const entries: Entry[] = []
    for (const [key, value] of listConfig(git, file)) {
      const included = includeTarget(key, value, file)
      if (included === undefined) {
        const entry = credentialEntry(key, value, onSecret)
        if (entry) entries.push(entry)
      } else if (isFile(included) && [root, ...gitDirs].some((dir) => within(included, dir))) {
        // A file in the workspace: its own credentials are taken out.
        queue.push(real(included))
      } else if (runnerTemp && within(included, runnerTemp)) {
        // checkout v6+'s credentials file. The sandbox denies RUNNER_TEMP, and git inside it
        // dies on an include it cannot read: the include goes, whatever the file holds.
        if (isFile(included)) credentialsIn(git, included, onSecret)
        entries.push({ key, value, action: 'removed' })
      } else if (
        CHECKOUT_CREDENTIALS_FILE.test(included) ||
        (isFile(included) && credentialsIn(git, included, onSecret))
      ) {
        entries.push({ key, value, action: 'removed' })
      }
    }
    if (entries.length > 0) plans.push({ file, entries })
  }
  if (plans.length === 0) return { removed: [], files: [] }

  options.beforeChange?.()
  fs.mkdirSync(stashDir, { recursive: true, mode: 0o700 })
  const stashed: StashedFile[] = plans.map(({ file, entries }) => {
    const original = fs.readFileSync(file)
    const sanitized = sanitize(git, file, original, entries, stashDir)
    return {
      path: file,
      dir: real(path.dirname(file)),
      mode: fs.statSync(file).mode & 0o7777,
      original: original.toString('base64'),
      sanitized: sanitized.toString('base64'),
      entries
    }
  })
  // The stash is complete on disk before any file changes: a crash from here on is restorable.
  writePrivate(
    path.join(stashDir, STASH_FILE),
    JSON.stringify({ version: 1, workspace: root, files: stashed } satisfies Stash)
  )
  for (const file of stashed)
    replaceFile(file.path, Buffer.from(file.sanitized, 'base64'), file.mode)
  return {
    removed: stashed.flatMap((file) =>
      file.entries.map((entry) => `${shown(file.path, root)}: ${redactUrl(entry.key)}`)
    ),
    files: stashed.map((file) => shown(file.path, root))
  }
}

/**
 * Puts back what `stashCredentials` took out and deletes the stash. Without a stash it does
 * nothing; a file that changed during the session gets its entries added back to what is there.
 * A file whose directory is no longer where it was (a symlink planted in its path) is not
 * written, and the stash is kept.
 */
export function restoreCredentials(
  stashDir: string,
  options: Pick<StashOptions, 'env'> = {}
): RestoreRecord {
  const stashPath = path.join(stashDir, STASH_FILE)
  const record: RestoreRecord = { restored: [], merged: [], failed: [], found: false }
  let stash: Stash
  try {
    stash = StashSchema.parse(JSON.parse(fs.readFileSync(stashPath, 'utf8')))
  } catch (error) {
    if (isMissing(error)) return record
    // A JSON error quotes the text, which holds the credentials: no cause.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`The stash ${stashPath} is not one this action wrote`)
  }
  record.found = true
  const git = gitRunner(options.env ?? process.env)
  for (const file of stash.files) {
    const name = shown(file.path, stash.workspace)
    try {
      const outcome = restoreFile(git, file, stashDir)
      if (outcome === 'merged') record.merged.push(name)
      if (outcome !== 'unchanged') record.restored.push(name)
    } catch (error) {
      record.failed.push(`${name}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  if (record.failed.length === 0) {
    fs.rmSync(stashPath, { force: true })
    try {
      fs.rmdirSync(stashDir)
    } catch {
      // not empty, or already gone: the directory is the caller's
    }
  }
  return record
}

function restoreFile(
  git: Git,
  file: StashedFile,
  stashDir: string
): 'restored' | 'merged' | 'unchanged' {
  const original = Buffer.from(file.original, 'base64')
  const sanitized = Buffer.from(file.sanitized, 'base64')
  let dir: string
  try {
    dir = real(path.dirname(file.path))
  } catch {
    throw new Error('its directory is gone')
  }
  if (dir !== file.dir) throw new Error(`its directory now resolves to ${dir}`)
  const stat = lstat(file.path)
  const current = stat?.isFile() ? fs.readFileSync(file.path) : undefined
  if (current?.equals(original)) return 'unchanged'
  if (current === undefined || current.equals(sanitized)) {
    // Gone, replaced by something that is not a file, or as we left it: the bytes from before.
    replaceFile(file.path, original, file.mode)
    return 'restored'
  }
  // Changed during the session: the credentials go back into what is there now, on a copy
  // (git config writes through a symlink, and the copy replaces a hard link's name only).
  const copy = path.join(stashDir, `merge-${process.pid}.config`)
  writePrivate(copy, current)
  try {
    for (const entry of file.entries) {
      if (entry.action === 'removed') {
        git(['config', '--file', copy, '--add', entry.key, entry.value ?? ''])
      } else if (entry.replacement !== undefined && entry.value !== null) {
        replaceAll(git, copy, entry.key, entry.replacement, entry.value)
      }
    }
    replaceFile(file.path, fs.readFileSync(copy), file.mode)
  } finally {
    fs.rmSync(copy, { force: true })
  }
  return 'merged'
}

// ---------------------------------------------------------------------------------------------
// Which entries are credentials

/** The entry as a credential to take out, or undefined. `onSecret` hears every value found. */
function credentialEntry(
  key: string,
  value: string | null,
  onSecret: (secret: string) => void
): Entry | undefined {
  const { section, subsection, name } = splitKey(key)
  // A credential in the key itself: `url.https://TOKEN@host/.insteadof`, `http.<url>.*`.
  if (subsection !== undefined && urlSecrets(subsection).length > 0) {
    for (const secret of urlSecrets(subsection)) onSecret(secret)
    if (value !== null) onSecret(value)
    return { key, value, action: 'removed' }
  }
  if (value === null) return undefined
  if (section === 'http' && name === 'extraheader') {
    for (const secret of headerSecrets(value)) onSecret(secret)
    return { key, value, action: 'removed' }
  }
  // An inline credential helper can carry the token in its script.
  if (section === 'credential' && name === 'helper' && value.trimStart().startsWith('!')) {
    onSecret(value)
    return { key, value, action: 'removed' }
  }
  const secrets = urlSecrets(value)
  if (secrets.length > 0) {
    for (const secret of secrets) onSecret(secret)
    return { key, value, action: 'rewritten', replacement: stripUserinfo(value) }
  }
  return undefined
}

/** Whether a config file holds a credential; `onSecret` hears the secrets in it. */
function credentialsIn(git: Git, file: string, onSecret: (secret: string) => void): boolean {
  let found = false
  for (const [key, value] of listConfig(git, file)) {
    if (credentialEntry(key, value, onSecret)) found = true
  }
  return found
}

/** The secrets of an `Authorization`-like header value: the whole, its token, what it decodes to. */
function headerSecrets(value: string): string[] {
  const secrets = [value]
  const match = /^\s*[\w-]+\s*:\s*(?:(basic|bearer|token)\s+)?(\S+)\s*$/i.exec(value)
  const token = match?.[2]
  if (token) {
    secrets.push(token)
    if (match[1]?.toLowerCase() === 'basic') {
      const decoded = Buffer.from(token, 'base64').toString('utf8')
      if (/^[\x20-\x7e]+$/.test(decoded)) {
        secrets.push(decoded)
        const password = decoded.slice(decoded.indexOf(':') + 1)
        if (decoded.includes(':') && password !== '') secrets.push(password)
      }
    }
  }
  return secrets.filter((secret) => secret.length >= 4)
}

/**
 * The credentials in the URLs of a text: the userinfo of http(s) URLs (a token can be the user
 * name), and of any other URL with a password.
 */
function urlSecrets(text: string): string[] {
  const secrets: string[] = []
  for (const match of text.matchAll(URL_USERINFO)) {
    const scheme = (match[1] ?? '').toLowerCase()
    const userinfo = match[2] ?? ''
    const password = userinfo.includes(':') ? userinfo.slice(userinfo.indexOf(':') + 1) : ''
    if (!/^https?:\/\/$/.test(scheme) && password === '') continue
    secrets.push(userinfo)
    if (password !== '') secrets.push(password, decodeURIComponentSafe(password))
  }
  return [...new Set(secrets)].filter((secret) => secret.length >= 4)
}

function stripUserinfo(text: string): string {
  return text.replace(URL_USERINFO, (whole, scheme: string, userinfo: string) =>
    urlSecrets(whole).length > 0 || (/^https?:\/\/$/i.test(scheme) && userinfo !== '')
      ? scheme
      : whole
  )
}

/** A key as the record shows it: any URL userinfo in it replaced. */
function redactUrl(key: string): string {
  return key.replace(URL_USERINFO, (whole, scheme: string) =>
    urlSecrets(whole).length > 0 ? `${scheme}***@` : whole
  )
}

function splitKey(key: string): { section: string; subsection?: string; name: string } {
  const first = key.indexOf('.')
  const last = key.lastIndexOf('.')
  const section = key.slice(0, first).toLowerCase()
  const name = key.slice(last + 1).toLowerCase()
  return first === last
    ? { section, name }
    : { section, subsection: key.slice(first + 1, last), name }
}

/** The file an `include.path` / `includeIf.<condition>.path` entry names, resolved as git does. */
function includeTarget(key: string, value: string | null, file: string): string | undefined {
  const { section, name } = splitKey(key)
  if ((section !== 'include' && section !== 'includeif') || name !== 'path' || !value) {
    return undefined
  }
  if (value.startsWith('~/')) return path.join(os.homedir(), value.slice(2))
  return path.resolve(path.dirname(file), value)
}

// ---------------------------------------------------------------------------------------------
// Where the config files are

/**
 * The git directories of the repositories in the workspace: at its root, one level down
 * (checkouts with `path:`), and at the given directories and their parents up to the workspace;
 * with the common directory of a worktree (which may lie outside the workspace).
 */
function repositoryGitDirs(root: string, directories: readonly string[]): string[] {
  const candidates = new Set<string>([root, ...children(root)])
  for (const directory of directories) {
    let dir = path.resolve(directory)
    while (within(dir, root)) {
      candidates.add(dir)
      if (dir === root) break
      dir = path.dirname(dir)
    }
  }
  const found = new Set<string>()
  for (const dir of candidates) {
    const gitDir = gitDirOf(dir)
    if (gitDir !== undefined) found.add(gitDir).add(commonDir(gitDir))
  }
  return [...found]
}

/** Their config files: config and config.worktree, worktrees' and submodules' (nested too). */
function configFiles(gitDirs: readonly string[]): string[] {
  const files = new Set<string>()
  for (const gitDir of gitDirs) {
    const candidates = [
      path.join(gitDir, 'config'),
      path.join(gitDir, 'config.worktree'),
      ...children(path.join(gitDir, 'worktrees')).map((dir) => path.join(dir, 'config.worktree')),
      ...moduleGitDirs(path.join(gitDir, 'modules'), 0).flatMap((dir) => [
        path.join(dir, 'config'),
        path.join(dir, 'config.worktree')
      ])
    ]
    for (const candidate of candidates) {
      if (isFile(candidate)) files.add(real(candidate))
    }
  }
  return [...files]
}

/** `dir/.git` as a directory, or the directory a `.git` file (`gitdir: ...`) points to. */
function gitDirOf(dir: string): string | undefined {
  const dotGit = path.join(dir, '.git')
  const stat = lstat(dotGit)
  if (stat?.isDirectory()) return real(dotGit)
  if (!stat?.isFile()) return undefined
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'))
  if (!match?.[1]) return undefined
  const target = path.resolve(dir, match[1])
  return isDirectory(target) ? real(target) : undefined
}

function commonDir(gitDir: string): string {
  const file = path.join(gitDir, 'commondir')
  if (!isFile(file)) return gitDir
  const target = path.resolve(gitDir, fs.readFileSync(file, 'utf8').trim())
  return isDirectory(target) ? real(target) : gitDir
}

/** The git directories of submodules under `modules/`, nested ones too (names may have `/`). */
function moduleGitDirs(dir: string, depth: number): string[] {
  if (depth > 8) return []
  const found: string[] = []
  for (const child of children(dir)) {
    if (isFile(path.join(child, 'HEAD')) && isFile(path.join(child, 'config'))) {
      found.push(child, ...moduleGitDirs(path.join(child, 'modules'), depth + 1))
    } else {
      found.push(...moduleGitDirs(child, depth + 1))
    }
  }
  return found
}

// ---------------------------------------------------------------------------------------------
// git and the file system

type Git = (args: string[], okCodes?: number[]) => string

function gitRunner(env: NodeJS.ProcessEnv): Git {
  // Only the file named: no repository, no user or system configuration of the environment.
  const clean: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('GIT_')) clean[name] = value
  }
  clean.GIT_CONFIG_NOSYSTEM = '1'
  clean.GIT_CONFIG_GLOBAL = os.devNull
  return (args, okCodes = [0]) => {
    try {
      return execFileSync('git', args, {
        env: clean,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 16 * 1024 * 1024,
        // a FIFO where a config file should be is an error, never a wait (src/git/process.ts)
        timeout: GIT_TIMEOUT_MS,
        killSignal: 'SIGKILL'
      })
    } catch (error) {
      const status = (error as { status?: unknown }).status
      if (typeof status === 'number' && okCodes.includes(status)) return ''
      // The error's message holds the command line, values and all: it stays here (no cause).
      // eslint-disable-next-line preserve-caught-error
      throw new Error(
        `git ${args.slice(0, 3).join(' ')} failed${typeof status === 'number' ? ` (exit ${status})` : ''}`
      )
    }
  }
}

/** The entries of one config file (no includes followed): key and value (null: a bare key). */
function listConfig(git: Git, file: string): [string, string | null][] {
  const out = git(['config', '--file', file, '--no-includes', '--list', '-z'], [0, 1])
  const entries: [string, string | null][] = []
  for (const item of out.split('\0')) {
    if (item === '') continue
    const newline = item.indexOf('\n')
    entries.push(newline < 0 ? [item, null] : [item.slice(0, newline), item.slice(newline + 1)])
  }
  return entries
}

/** In the config file `copy`, every value `from` of `key` becomes `to` (none there: no change). */
function replaceAll(git: Git, copy: string, key: string, from: string, to: string): void {
  git(['config', '--file', copy, '--fixed-value', '--replace-all', key, to, from], [0, 5])
}

/** The file's text with the entries taken out, made with git on a private copy. */
function sanitize(
  git: Git,
  file: string,
  original: Buffer,
  entries: readonly Entry[],
  stashDir: string
): Buffer {
  const copy = path.join(stashDir, `sanitize-${process.pid}.config`)
  writePrivate(copy, original)
  try {
    for (const entry of entries) {
      if (entry.value === null) {
        git(['config', '--file', copy, '--unset-all', entry.key], [0, 5])
      } else if (entry.action === 'removed') {
        git(
          ['config', '--file', copy, '--fixed-value', '--unset-all', entry.key, entry.value],
          [0, 5]
        )
      } else if (entry.replacement !== undefined) {
        replaceAll(git, copy, entry.key, entry.value, entry.replacement)
      }
    }
    return fs.readFileSync(copy)
  } finally {
    fs.rmSync(copy, { force: true })
  }
}

/** Writes a new file with mode 0600 (replacing any) and renames it into place. */
function writePrivate(file: string, content: string | Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`
  fs.rmSync(temporary, { force: true })
  fs.writeFileSync(temporary, content, { mode: 0o600, flag: 'wx' })
  fs.renameSync(temporary, file)
}

/**
 * Replaces `file` by a new file with `content` and `mode`: renamed into place, so neither a
 * symlink nor a hard link at `file` carries the content anywhere else.
 */
function replaceFile(file: string, content: Buffer, mode: number): void {
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.autopilot-${process.pid}`
  )
  fs.rmSync(temporary, { force: true })
  fs.writeFileSync(temporary, content, { mode: 0o600, flag: 'wx' })
  fs.chmodSync(temporary, mode)
  fs.renameSync(temporary, file)
}

function shown(file: string, root: string): string {
  return within(file, root) ? path.relative(root, file) : file
}

function within(file: string, dir: string): boolean {
  const relative = path.relative(dir, file)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

function real(file: string): string {
  return fs.realpathSync(file)
}

function lstat(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file)
  } catch {
    return undefined
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory()
  } catch {
    return false
  }
}

function children(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules')
      .map((entry) => path.join(dir, entry.name))
  } catch {
    return []
  }
}

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'ENOENT'
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
