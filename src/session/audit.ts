/**
 * The net under both walls: what changed in the workspace while the agent worked, checked
 * against the policy's write rules, and put back where it should not have changed.
 *
 * The OS sandbox keeps every program inside the workspace and makes the protected paths that
 * exist read-only, but bubblewrap binds only paths that exist (a new `.npmrc`, a new
 * `.husky/pre-commit`), and the CLI's own file tools and the setup commands work on the tree as
 * well. So before the agent starts the workspace is walked (`snapshot`: every entry's type, size,
 * time and inode, the content of the protected files and of git's config and hooks, and, in a
 * git repository, every file git does not ignore as a tree in a private object store), and after
 * it is done the walk is repeated (`audit`): each path created, changed or deleted is decided by
 * the write rules; a violation is reverted (a created path removed, a changed or deleted one
 * restored) and reported.
 *
 * What counts as a violation:
 * - a path an explicit rule denies (`protected-files`, the user's deny rules, built-in checks);
 * - a path no rule allows (`default`), unless git ignores it (build output, caches: what a test
 *   run leaves behind is not the agent's change);
 * - an `ask` write nobody approved;
 * - `.git/config` and `.git/hooks`, whatever the rules say: git runs what they name.
 */
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { copyRegularFile, NotRegularFile, readRegularFile } from '../git/files.js'
import { gitConfigEnv, isolatedEnv, runGit, type GitResult } from '../git/process.js'
import {
  compareRefs,
  readRefFiles,
  restoreRefFiles,
  type RefChange,
  type RefFiles
} from '../git/refs.js'
import { blobContent, gitTree, initStoreGit, storeEnv, treeBlobs } from '../git/store.js'
import type { Decision } from '../policy/index.js'

export { gitTree, storeEnv, type GitResult }

/** What the walk keeps of one path. */
export interface Entry {
  type: 'file' | 'dir' | 'link' | 'other'
  mode: number
  size: number
  mtimeMs: number
  /** The inode's change time: no program can set it back (`touch -r` sets only mtime). */
  ctimeMs: number
  ino: number
  /** A symbolic link's target. */
  target?: string
}

/** The workspace when the agent started. */
export interface Snapshot {
  root: string
  /** Workspace-relative paths (`/`-separated). */
  entries: Map<string, Entry>
  /** Copies of protected files, by relative path (the copy's path in the store). */
  saved: Map<string, string>
  /** A git tree of every file git does not ignore, in `storeDir/objects`. */
  tree?: string
  storeDir: string
  /** False when the walk stopped at MAX_ENTRIES: paths beyond it are not audited. */
  complete: boolean
  /** Names that are not UTF-8 (hex of their full path), there from the start. */
  odd: ReadonlySet<string>
  /** The repository's HEAD, packed-refs and loose refs (a `.git` directory at the root only). */
  refs?: RefFiles
  /** The paths looked up by name before the walk (`lookFirst`): found whatever the tree's size. */
  first: readonly string[]
}

export type Change = 'created' | 'changed' | 'deleted'

export interface Violation {
  path: string
  change: Change
  /** The rule that denies the write (`default` when none allows it, `git-internals`). */
  rule: string
  reason?: string
  reverted: boolean
  /** Why it could not be reverted. */
  note?: string
}

/**
 * A change the audit put back that the policy allows, so no violation: the current branch moved
 * by the agent's own commit (the patch is made from trees, never from the agent's commits, and
 * later steps must not see them).
 */
export interface AuditNote {
  path: string
  change: Change
  /** What it was and what became of it. */
  reason: string
  reverted: boolean
}

export interface AuditResult {
  /** Paths created, changed or deleted while the agent worked. */
  changed: number
  violations: Violation[]
  complete: boolean
  /** Changes put back that the policy allows (absent: none). */
  notes?: AuditNote[]
}

/** Decides a write of an absolute path (the policy's `decide({kind: 'write'})`). */
export type DecideWrite = (absolutePath: string) => Decision

/** Decides a shell request's command line (the policy's `decide({kind: 'shell'})`). */
export type DecideCommand = (commandLine: string) => Decision

/**
 * Programs a later step runs from an ignored directory (`npx jest`, `npm test` call
 * `node_modules/.bin/*`): copied at the start and never exempt as ignored build output.
 */
export function isPlantable(rel: string): boolean {
  return /(^|\/)node_modules\/\.bin\//.test(rel)
}

/**
 * What a later step runs although git ignores it, even when it is new: package code
 * (`node_modules/**`: `npx`, `npm test` and `require` load it), Python's path hooks (`*.pth`,
 * executed at interpreter start) and bytecode (`__pycache__/`, `*.pyc`, `*.pyo`, run in place of
 * the source beside it). Judged by the write rules like any path git does not ignore.
 */
export function isRunnable(rel: string): boolean {
  const parts = rel.split('/')
  const name = (parts.at(-1) ?? '').toLowerCase()
  return (
    parts.includes('node_modules') || parts.includes('__pycache__') || /\.(pth|pyc|pyo)$/.test(name)
  )
}

/**
 * The rules of the audit's own violations: an audit cut short by its entry limit, a change to
 * git's config or hooks. Built-in ids (policy/schema.ts BUILT_IN_IDS): no policy rule takes them.
 */
export const AUDIT_INCOMPLETE = 'audit-incomplete'
export const GIT_INTERNALS = 'git-internals'

/**
 * Walks past this many entries are cut short: at the start, the run fails before the agent
 * starts (a tree the audit cannot check whole is not protected less); after, the audit fails
 * the run (`audit-incomplete`).
 */
export const MAX_ENTRIES = 1_000_000
/** Protected files larger than this are not copied (a change is reported, not reverted). */
const MAX_SAVED_BYTES = 4 * 1024 * 1024
/** The repository's index is copied up to this size. */
const MAX_INDEX_BYTES = 1024 * 1024 * 1024

/** Inside a `.git` directory only these are walked: what git runs or obeys. */
const GIT_WATCHED = new Set([
  'config',
  'config.worktree',
  'hooks',
  // attributes (filter drivers), exclude: what git obeys
  'info',
  // `commondir` and worktrees' own `gitdir`/`commondir` send git to another config and hooks
  'commondir',
  'worktrees'
])

/**
 * What git writes for itself inside a watched directory: `info/refs` (and its temporary file),
 * written by `update-server-info` when `gc --auto` repacks. Never a violation.
 */
export function isGitHousekeeping(rel: string): boolean {
  return /(^|\/)\.git\/(modules\/[^/]+\/)*info\/refs(_[A-Za-z0-9]{6})?$/.test(rel)
}

/**
 * True for what git runs or obeys in a repository: `.git` itself (a directory swapped for a
 * `gitdir:` file or a link sends git elsewhere), its config, hooks, `info/`, `commondir` and
 * worktrees (and a submodule's under `.git/modules/<m>/`).
 */
export function isGitControl(rel: string): boolean {
  const parts = rel.split('/')
  if (parts.at(-1) === '.git') return true
  const at = parts.indexOf('.git')
  if (at < 0) return false
  let rest = parts.slice(at + 1)
  while (rest[0] === 'modules' && rest.length > 2) rest = rest.slice(2)
  return rest.length > 0 && GIT_WATCHED.has(rest[0] ?? '') && !isGitHousekeeping(rel)
}

/** What protects the tree whatever the walk finds, by name: looked up before any walk. */
const ALWAYS_FIRST = ['.git', '.github', '.npmrc', '.husky']

/**
 * The paths looked up by name before the walk, at the workspace's root: git's control files and
 * each name the write rules protect (`protection.names`). Found and kept (their directories
 * walked whole first) however large the rest of the tree is.
 */
export function lookFirst(names: Iterable<string>): string[] {
  const first = new Set<string>()
  for (const name of [...ALWAYS_FIRST, ...names]) {
    if (name === '' || name.includes('/') || name === '.' || name === '..') continue
    first.add(name)
  }
  return [...first]
}

function entryOf(stat: fs.Stats, full: string): Entry {
  const type = stat.isSymbolicLink()
    ? 'link'
    : stat.isDirectory()
      ? 'dir'
      : stat.isFile()
        ? 'file'
        : 'other'
  return {
    type,
    mode: stat.mode,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    ino: stat.ino,
    ...(type === 'link' ? { target: fs.readlinkSync(full) } : {})
  }
}

type Walked = { entries: Map<string, Entry>; complete: boolean; odd: Buffer[] }

/** Directories read between two yields of `walkSteps` (a few milliseconds of work). */
const DIRS_PER_STEP = 64

/**
 * Every path below `root` (never following links), but of a `.git` directory only its config
 * and hooks (and its submodules' under `modules/`). The names in `first` (at the root) and what
 * is below them are walked before anything else: the limit never cuts them off.
 */
export function walk(
  root: string,
  limit = MAX_ENTRIES,
  first: readonly string[] = lookFirst([])
): Walked {
  const steps = walkSteps(root, limit, first)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/**
 * `walk` that lets the event loop run between a few dozen directories: the audit's start walks
 * while git writes the start's tree in another process and the CLI's messages come in.
 */
export async function walkAsync(
  root: string,
  limit = MAX_ENTRIES,
  first: readonly string[] = lookFirst([])
): Promise<Walked> {
  const steps = walkSteps(root, limit, first)
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
}

/** The walk, one step (`DIRS_PER_STEP` directories) per `next()`. */
function* walkSteps(
  root: string,
  limit: number,
  first: readonly string[]
): Generator<undefined, Walked, undefined> {
  const entries = new Map<string, Entry>()
  // names that are not UTF-8: no rule can judge them (and a string cannot name them)
  const odd: Buffer[] = []
  const walked = new Set<string>()
  const add = (rel: string): fs.Stats | undefined => {
    const full = path.join(root, rel)
    let stat: fs.Stats
    try {
      stat = fs.lstatSync(full)
    } catch {
      return undefined
    }
    entries.set(rel, entryOf(stat, full))
    return stat
  }
  function* visit(pending: string[], cap: number): Generator<undefined, boolean, undefined> {
    let read = 0
    while (pending.length > 0) {
      const dir = pending.pop() ?? ''
      if (walked.has(dir)) continue
      walked.add(dir)
      if (++read % DIRS_PER_STEP === 0) yield
      let names: Buffer[]
      try {
        names = fs.readdirSync(path.join(root, dir), { encoding: 'buffer' })
      } catch {
        continue
      }
      const inGit = dir.split('/').includes('.git')
      for (const raw of names) {
        const name = raw.toString('utf8')
        if (!Buffer.from(name, 'utf8').equals(raw)) {
          if (inGit) continue
          odd.push(Buffer.concat([Buffer.from(`${path.join(root, dir)}/`), raw]))
          continue
        }
        const rel = dir === '' ? name : `${dir}/${name}`
        if (inGit && !isGitControl(rel) && !/(^|\/)\.git(\/modules(\/[^/]+)?)?$/.test(rel)) {
          continue
        }
        if (walked.has(rel)) continue
        if (!entries.has(rel) && entries.size >= cap) return false
        const stat = add(rel)
        if (stat?.isDirectory()) pending.push(rel)
      }
    }
    return true
  }
  // what protects the tree, by name, first: git's control files, the protected names at the root
  const firstDirs: string[] = []
  for (const name of first) {
    const stat = add(name)
    if (!stat?.isDirectory()) continue
    if (name === '.git') {
      for (const control of GIT_WATCHED) {
        const rel = `.git/${control}`
        if (add(rel)?.isDirectory()) firstDirs.push(rel)
      }
      continue
    }
    firstDirs.push(name)
  }
  // what is below them too, whatever the limit for the rest (up to MAX_ENTRIES)
  if (!(yield* visit(firstDirs, Math.max(limit, MAX_ENTRIES)))) {
    return { entries, complete: false, odd }
  }
  return { entries, complete: yield* visit([''], limit), odd }
}

function same(a: Entry, b: Entry): boolean {
  return (
    a.type === b.type &&
    a.mode === b.mode &&
    a.ino === b.ino &&
    a.target === b.target &&
    (a.type === 'dir' || (a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs))
  )
}

/** git on the store (session-independent callers: session/changes.ts uses src/git/store.ts). */
export function git(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  input?: string
): Promise<GitResult> {
  return runGit(cwd, args, isolatedEnv(env), input === undefined ? {} : { input })
}

/** What the write rules protect: names a deny glob holds literally wherever it stands. */
export interface Protection {
  /** Lower-case path segments (`.github`, `.npmrc`, `.husky`): a path holding one is a candidate. */
  names: ReadonlySet<string>
  decide: DecideWrite
  /**
   * Decides a shell request as the agent would make it: the audit asks whether the policy lets
   * the agent commit, so that the current branch moved by the agent's own commit is said (and
   * put back), not a violation. Absent: every moved ref is a violation.
   */
  decideCommand?: DecideCommand
}

/** Whether an explicit rule denies writing `rel` (a built-in check or a deny rule, not `default`). */
function explicitlyDenied(root: string, rel: string, decide: DecideWrite): boolean {
  const decision = decide(path.join(root, rel))
  return decision.decision === 'deny' && decision.rule !== 'default'
}

/** Protected paths at most made read-only (each is one bind mount); the audit covers the rest. */
const MAX_PROTECTED = 500

/**
 * The existing paths the OS sandbox makes read-only: git's config and hooks, each directory the
 * write rules deny whole (`.github`, `.husky`: a new file in it is denied too) and each other
 * file they deny (`.npmrc`). Never a `.git` directory whole (git writes its index and objects).
 */
export function protectedPaths(snap: Snapshot, protection: Protection): string[] {
  const out: string[] = []
  const dirs: string[] = []
  for (const [rel, entry] of snap.entries) {
    if (out.length >= MAX_PROTECTED) break
    const parts = rel.split('/')
    const name = (parts.at(-1) ?? '').toLowerCase()
    if (name === '.git' && entry.type === 'dir') continue
    if (isGitControl(rel)) {
      // each watched file or directory itself (not what is below one), and a `gitdir:` file
      const watched = GIT_WATCHED.has(parts.at(-1) ?? '') && parts.at(-2) === '.git'
      if (watched || (name === '.git' && entry.type === 'file')) out.push(rel)
      continue
    }
    if (!parts.some((p) => protection.names.has(p.toLowerCase()))) continue
    if (dirs.some((d) => rel.startsWith(`${d}/`))) continue
    if (entry.type === 'dir') {
      if (explicitlyDenied(snap.root, `${rel}/.autopilot-new-file`, protection.decide)) {
        dirs.push(rel)
        out.push(rel)
      }
    } else if (explicitlyDenied(snap.root, rel, protection.decide)) out.push(rel)
  }
  // a file listed before its directory was found
  return out.filter((rel) => !dirs.some((d) => rel.startsWith(`${d}/`)))
}

/**
 * The workspace as it is now: every entry, a copy of each protected file (a change to one is
 * reverted from the copy even where git ignores it), and the git tree of the rest.
 */
export async function snapshot(
  root: string,
  storeDir: string,
  protection: Protection
): Promise<Snapshot> {
  const files = snapshotFiles(root, storeDir, protection)
  const tree = await gitTree(root, storeDir)
  return { ...files, ...(tree ? { tree } : {}) }
}

/**
 * The walk and the copies of the protected files, without the git tree (`snapshot` adds it).
 * With `previous`, its store is kept: copies of files that did not change since are reused, and
 * its git tree (the content at the start) stays what the rest is restored from.
 */
export function snapshotFiles(
  root: string,
  storeDir: string,
  protection: Protection,
  previous?: Snapshot,
  options: {
    /** The walk's entry limit (default MAX_ENTRIES). */
    limit?: number
    /** A walk of the tree as it is now (the audit's own, when it put nothing back). */
    walked?: ReturnType<typeof walk>
    /** The store is made already (`freshStore`; its git tree may be under way). */
    storeMade?: boolean
  } = {}
): Snapshot {
  if (previous === undefined && options.storeMade !== true) freshStore(storeDir)
  const first = lookFirst(protection.names)
  const { entries, complete, odd } = options.walked ?? walk(root, options.limit, first)
  const saved = new Map<string, string>()
  for (const [rel, entry] of entries) {
    if (entry.type !== 'file' || entry.size > MAX_SAVED_BYTES) continue
    const before = previous?.entries.get(rel)
    const kept = previous?.saved.get(rel)
    if (kept !== undefined && before !== undefined && same(before, entry)) {
      saved.set(rel, kept)
      continue
    }
    const candidate =
      isGitControl(rel) ||
      isPlantable(rel) ||
      (rel.split('/').some((p) => protection.names.has(p.toLowerCase())) &&
        explicitlyDenied(root, rel, protection.decide))
    if (!candidate) continue
    const copy = path.join(storeDir, 'files', `${Date.now().toString(36)}-${saved.size}`)
    try {
      copyRegularFile(path.join(root, rel), copy, MAX_SAVED_BYTES)
      saved.set(rel, copy)
    } catch {
      // unreadable: a change is reported, not reverted
    }
  }
  // the repository's index, as the workflow left it
  const index = path.join(storeDir, 'repo-index')
  fs.rmSync(index, { force: true })
  try {
    copyRegularFile(path.join(root, '.git', 'index'), index, MAX_INDEX_BYTES)
  } catch {
    // no repository, no index yet, or no regular file (the audit reports it)
  }
  const refs = gitDirectory(root)
  return {
    root,
    entries,
    saved,
    storeDir,
    complete,
    odd: new Set(odd.map((name) => name.toString('hex'))),
    first,
    ...(refs === undefined ? {} : { refs: readRefFiles(refs) }),
    ...(previous?.tree === undefined ? {} : { tree: previous.tree })
  }
}

/** The audit's store in the run's private directory (also where the agent's changes start from). */
export function auditStoreDir(tempDir: string): string {
  return path.join(tempDir, 'audit')
}

/** An empty store (its copies' folder made). */
function freshStore(storeDir: string): void {
  fs.rmSync(storeDir, { recursive: true, force: true })
  fs.mkdirSync(path.join(storeDir, 'files'), { recursive: true, mode: 0o700 })
}

/** The repository's git directory at the root, when it is a directory (not a `gitdir:` file). */
function gitDirectory(root: string): string | undefined {
  const dir = path.join(root, '.git')
  try {
    return fs.lstatSync(dir).isDirectory() ? dir : undefined
  } catch {
    return undefined
  }
}

/** The entries of an index file, path → `tag mode object stage` (`git ls-files -s -v`). */
async function indexEntries(
  snap: Snapshot,
  indexFile: string
): Promise<Map<string, string> | undefined> {
  const result = await git(snap.root, ['ls-files', '-s', '-v', '-z'], {
    ...storeEnv(snap.root, snap.storeDir),
    GIT_INDEX_FILE: indexFile
  })
  if (result.code !== 0) return undefined
  const entries = new Map<string, string>()
  for (const line of result.stdout.split('\0')) {
    const tab = line.indexOf('\t')
    if (tab > 0) entries.set(line.slice(tab + 1), line.slice(0, tab))
  }
  return entries
}

/**
 * The paths whose index entry changed (staged content, mode, or the assume-unchanged and
 * skip-worktree bits) that the write rules do not allow; with `revert`, the repository's index
 * is put back as it was at the baseline.
 */
async function indexViolations(
  snap: Snapshot,
  decide: DecideWrite,
  revert: boolean
): Promise<Violation[]> {
  const saved = path.join(snap.storeDir, 'repo-index')
  const gitDir = path.join(snap.root, '.git')
  const current = path.join(gitDir, 'index')
  if (!fs.existsSync(saved) || !(await initStoreGit(snap.root, snap.storeDir))) return []
  const before = await indexEntries(snap, saved)
  if (before === undefined) return []
  let now: Map<string, string> | undefined
  // git reads only a copy, made of a regular file: a FIFO in its place is a change, never a wait
  let odd: string | undefined
  const copy = path.join(snap.storeDir, 'repo-index-now')
  try {
    if (!fs.lstatSync(gitDir).isDirectory()) return [] // .git swapped: reported as such
    fs.rmSync(copy, { force: true })
    if (fs.existsSync(current) || isPresent(current)) {
      copyRegularFile(current, copy, MAX_INDEX_BYTES)
      now = await indexEntries(snap, copy)
    } else now = new Map()
  } catch (error) {
    if (error instanceof NotRegularFile) odd = error.kind
    now = undefined
  } finally {
    fs.rmSync(copy, { force: true })
  }
  const changed = new Set<string>()
  if (now === undefined) changed.add('.git/index')
  else {
    for (const [rel, entry] of now) if (before.get(rel) !== entry) changed.add(rel)
    for (const rel of before.keys()) if (!now.has(rel)) changed.add(rel)
  }
  const found: Array<{ rel: string; rule: string; reason?: string }> = []
  for (const rel of changed) {
    const decision = decide(path.join(snap.root, rel))
    if (decision.decision === 'allow' && rel !== '.git/index') continue
    found.push({
      rel,
      rule: decision.rule,
      ...(decision.reason ? { reason: decision.reason } : {})
    })
  }
  if (found.length === 0) return []
  let note: string | undefined
  if (revert) {
    try {
      const next = path.join(gitDir, `index.autopilot-${process.pid}`)
      fs.rmSync(next, { recursive: true, force: true })
      fs.writeFileSync(next, readRegularFile(saved, MAX_INDEX_BYTES), { flag: 'wx', mode: 0o644 })
      try {
        fs.renameSync(next, current)
      } catch {
        // a directory in its place
        fs.rmSync(current, { recursive: true, force: true })
        fs.renameSync(next, current)
      }
    } catch (error) {
      note = error instanceof Error ? error.message : String(error)
    }
  }
  return found.map((f) => ({
    path: f.rel,
    change: 'changed' as const,
    rule: f.rel === '.git/index' ? GIT_INTERNALS : f.rule,
    reason:
      f.rel === '.git/index'
        ? `the repository's index ${odd === undefined ? 'could not be read' : `is no longer a regular file (${odd})`}`
        : `staged in the repository's index${f.reason ? ` (${f.reason})` : ''}: a later commit would carry it`,
    reverted: revert && note === undefined,
    ...(note ? { note } : {})
  }))
}

/** What git ignores among `paths` (relative), by the tree's own ignore files. */
async function ignoredAmong(snap: Snapshot, paths: readonly string[]): Promise<Set<string>> {
  // by the work tree's ignore files, whether or not the tree of the start could be written
  if (paths.length === 0 || !(await initStoreGit(snap.root, snap.storeDir))) return new Set()
  const result = await git(
    snap.root,
    ['check-ignore', '--no-index', '-z', '--stdin'],
    storeEnv(snap.root, snap.storeDir),
    paths.join('\0') + '\0'
  )
  return new Set(result.stdout.split('\0').filter((p) => p !== ''))
}

/** Whether anything (a dangling link included) has this name. */
function isPresent(full: string): boolean {
  try {
    fs.lstatSync(full)
    return true
  } catch {
    return false
  }
}

/**
 * Makes every directory on the way from the root to `rel` a real directory again: one the agent
 * replaced by a link (or a file) would make the action's own writes and removals land outside
 * the workspace. Returns why it could not, or undefined.
 */
function realParents(snap: Snapshot, rel: string): string | undefined {
  const parts = rel.split('/').slice(0, -1)
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join('/')
    const full = path.join(snap.root, dir)
    let stat: fs.Stats | undefined
    try {
      stat = fs.lstatSync(full)
    } catch {
      stat = undefined
    }
    if (stat?.isDirectory()) continue
    // a repository moved away is not made again from its config and hooks alone
    if (path.posix.basename(dir) === '.git') return `${dir} is no longer a directory`
    const before = snap.entries.get(dir)
    if (stat !== undefined && before?.type !== 'dir') {
      return `${dir} is no longer a directory, and was not one before either`
    }
    // a link or file in the place of a directory goes (unlink never follows), the directory returns
    if (stat !== undefined) fs.rmSync(full, { force: true })
    fs.mkdirSync(full, { mode: (before?.mode ?? 0o755) & 0o7777 })
  }
  return undefined
}

/** Puts `rel` back as the snapshot had it; returns why it could not, or undefined. */
async function restore(snap: Snapshot, rel: string, before: Entry): Promise<string | undefined> {
  const full = path.join(snap.root, rel)
  const parents = realParents(snap, rel)
  if (parents !== undefined) return parents
  removePath(full)
  if (path.posix.basename(rel) === '.git' && before.type === 'dir') {
    // what took its place is gone (git finds no repository to run a planted program from), but
    // the repository itself was moved, and cannot be put back
    return "the repository's .git directory was moved away; what took its place was removed"
  }
  const mode = before.mode & 0o7777
  if (before.type === 'dir') {
    fs.mkdirSync(full, { mode })
    return undefined
  }
  if (before.type === 'link') {
    fs.symlinkSync(before.target ?? '', full)
    return undefined
  }
  if (before.type !== 'file') return 'not a regular file'
  let content: Buffer | undefined
  const copy = snap.saved.get(rel)
  if (copy !== undefined) content = fs.readFileSync(copy)
  else if (snap.tree !== undefined) content = await gitBlob(snap, rel)
  if (content === undefined) {
    return 'removed: no copy of its content was kept (git ignores it, or it is too large), so nothing runs what took its place'
  }
  // `wx`: never through a link that appeared in its place meanwhile
  fs.writeFileSync(full, content, { flag: 'wx', mode })
  fs.chmodSync(full, mode)
  return undefined
}

/** The blob ids of the snapshot's git tree, read once per snapshot (when something is restored). */
const treeIds = new WeakMap<Snapshot, Promise<Map<string, string> | undefined>>()

async function gitBlob(snap: Snapshot, rel: string): Promise<Buffer | undefined> {
  const tree = snap.tree
  if (tree === undefined) return undefined
  let ids = treeIds.get(snap)
  if (ids === undefined) {
    ids = treeBlobs(snap.root, snap.storeDir, tree)
    treeIds.set(snap, ids)
  }
  const id = (await ids)?.get(rel)
  return id === undefined ? undefined : blobContent(snap.root, snap.storeDir, id)
}

function removePath(full: string): void {
  fs.rmSync(full, { recursive: true, force: true })
}

/** Whether a path (changed or created) may have changed, by the write rules. */
function verdict(
  rel: string,
  snap: Snapshot,
  decide: DecideWrite,
  approved: ReadonlySet<string>,
  isLink = false
): { rule: string; reason?: string } | undefined {
  if (isGitControl(rel)) {
    return {
      rule: GIT_INTERNALS,
      reason: "git's config and hooks name programs git runs; only the workflow may change them"
    }
  }
  const decision = decide(path.join(snap.root, rel))
  if (decision.decision === 'allow' && isLink) {
    // a link is judged by its own name too, not only where it leads: `.husky -> src/hooks`
    // makes `.husky/pre-commit` a hook a later `git commit` runs
    const below = decide(path.join(snap.root, rel, '.autopilot-new-file'))
    if (below.decision === 'deny' && below.rule !== 'default') {
      return { rule: below.rule, ...(below.reason ? { reason: below.reason } : {}) }
    }
  }
  if (decision.decision === 'allow') return undefined
  if (decision.decision === 'ask' && approved.has(rel)) return undefined
  return { rule: decision.rule, ...(decision.reason ? { reason: decision.reason } : {}) }
}

export interface AuditOptions {
  decide: DecideWrite
  /** Workspace-relative paths a person approved a write of (`ask` rules). */
  approved?: ReadonlySet<string>
  /** Revert the violations (default true). */
  revert?: boolean
  /** The walk's entry limit (default MAX_ENTRIES). */
  limit?: number
  /**
   * Only what an explicit rule forbids counts (a protected path, git's config and hooks): for the
   * window of the verify commands, which are the workflow's and may leave files no rule names.
   */
  protectedOnly?: boolean
  /** Decides a shell request: whether the agent may commit (`Protection.decideCommand`). */
  decideCommand?: DecideCommand
}

/**
 * Compares the workspace with `snap`, decides every path that changed, and reverts the
 * violations (deepest first for removals, shallowest first for restores).
 */
export async function audit(snap: Snapshot, options: AuditOptions): Promise<AuditResult> {
  return (await auditWalked(snap, options)).result
}

/** `audit`, and its walk of the tree as it is now (the next baseline when nothing was put back). */
async function auditWalked(
  snap: Snapshot,
  options: AuditOptions
): Promise<{ result: AuditResult; walked: ReturnType<typeof walk> }> {
  const now = walk(snap.root, options.limit, snap.first)
  const changes: Array<{ rel: string; change: Change }> = []
  for (const [rel, entry] of now.entries) {
    const before = snap.entries.get(rel)
    if (before === undefined) {
      if (snap.complete) changes.push({ rel, change: 'created' })
    } else if (!same(before, entry)) changes.push({ rel, change: 'changed' })
  }
  if (now.complete) {
    for (const rel of snap.entries.keys()) {
      if (!now.entries.has(rel)) changes.push({ rel, change: 'deleted' })
    }
  }
  const approved = options.approved ?? new Set<string>()
  const candidates: Array<{ rel: string; change: Change; rule: string; reason?: string }> = []
  for (const { rel, change } of changes) {
    // a directory speaks through its entries (a created one is removed below once emptied)
    const entry = now.entries.get(rel) ?? snap.entries.get(rel)
    if (entry?.type === 'dir' && snap.entries.get(rel)?.type !== 'file') continue
    const why = verdict(rel, snap, options.decide, approved, now.entries.get(rel)?.type === 'link')
    if (why === undefined || (options.protectedOnly === true && why.rule === 'default')) continue
    candidates.push({ rel, change, ...why })
  }
  const revert = options.revert ?? true
  const violations: Violation[] = []
  const putBack = async (list: typeof candidates): Promise<void> => {
    // created paths are removed deepest first; changed and deleted ones restored shallowest first
    const order = [...list].sort((a, b) =>
      a.change === 'created' && b.change === 'created'
        ? b.rel.length - a.rel.length
        : a.change === 'created'
          ? -1
          : b.change === 'created'
            ? 1
            : a.rel.length - b.rel.length
    )
    for (const c of order) {
      const note = revert ? await revertOne(snap, c) : undefined
      violations.push({
        path: c.rel,
        change: c.change,
        rule: c.rule,
        ...(c.reason ? { reason: c.reason } : {}),
        reverted: revert && note === undefined,
        ...(note ? { note } : {})
      })
    }
  }
  // What no rule names (`default`), git ignores and did not exist before is build output, not the
  // agent's change, unless a later step runs it (`isRunnable`): what existed before (package code,
  // a cache) is judged like any other path. By the ignore files as they were: a changed ignore
  // file is put back first (it is never exempt itself: one could ignore itself and everything it
  // hides).
  const isIgnoreFile = (c: { rel: string }): boolean => path.posix.basename(c.rel) === '.gitignore'
  await putBack(candidates.filter(isIgnoreFile))
  const rest = candidates.filter((c) => !isIgnoreFile(c))
  const exemptable = (c: { rel: string; change: Change; rule: string }): boolean =>
    c.rule === 'default' && c.change === 'created' && !isPlantable(c.rel) && !isRunnable(c.rel)
  const ignored = await ignoredAmong(
    snap,
    rest.filter(exemptable).map((c) => c.rel)
  )
  await putBack(rest.filter((c) => !(exemptable(c) && ignored.has(c.rel))))
  // what the repository's index stages for a path the rules deny (`git update-index`, a
  // skip-worktree bit) is committed by a later `git add -A && git commit` without the file
  // changing at all: the index is put back as it was
  violations.push(...(await indexViolations(snap, options.decide, revert)))
  // a commit behind the audit's back: HEAD, a branch or a tag moved (all put back; the agent's
  // own commit on the current branch, which the policy allows, is a note)
  const refs = await refChanges(snap, options, revert)
  violations.push(...refs.violations)
  if (revert) {
    removeEmptied(
      snap,
      now.entries,
      violations.filter((v) => v.change === 'created').map((v) => v.path)
    )
  }
  violations.sort((a, b) => a.path.localeCompare(b.path))
  for (const name of now.odd) {
    if (snap.odd.has(name.toString('hex'))) continue
    // no rule can judge a name that is not UTF-8, nor git's later `add` be kept from it
    let reverted = false
    if (revert) {
      fs.rmSync(name, { recursive: true, force: true })
      reverted = true
    }
    violations.push({
      path: path.relative(snap.root, name.toString('utf8')),
      change: 'created',
      rule: AUDIT_INCOMPLETE,
      reason: 'a name that is not valid UTF-8, which the write rules cannot judge',
      reverted
    })
  }
  if (snap.complete && !now.complete) {
    // the agent's work made the tree too large to walk: what lies beyond is unchecked, so the
    // run cannot be called clean (fail closed)
    violations.push({
      path: '.',
      change: 'changed',
      rule: AUDIT_INCOMPLETE,
      reason: `the workspace grew past ${MAX_ENTRIES.toLocaleString('en-US')} entries while the agent worked, and the audit could not check the rest`,
      reverted: false,
      note: 'not checked'
    })
  }
  return {
    result: {
      changed: changes.length,
      violations,
      complete: snap.complete && now.complete,
      ...(refs.notes.length > 0 ? { notes: refs.notes } : {})
    },
    walked: now
  }
}

/**
 * HEAD, branches and tags that point elsewhere than at the baseline (`git commit`, `git tag`,
 * `update-ref` in a test script): always put back as they were (the patch is made from trees,
 * never from the agent's commits, and later steps must not see them), and judged by the policy.
 * The current branch (or a detached HEAD) moved forward by the agent's own commits, under a
 * policy that allows `git commit`, by commits that change only paths the write rules allow, is a
 * note; every other change (a tag, another branch, HEAD switched or detached elsewhere, a branch
 * moved back or sideways, a change that could not be put back) is a violation (`git-internals`).
 * What git's own housekeeping does to them (`pack-refs` moving a loose ref into packed-refs)
 * changes no name's target and is not a change.
 */
async function refChanges(
  snap: Snapshot,
  options: AuditOptions,
  revert: boolean
): Promise<{ violations: Violation[]; notes: AuditNote[] }> {
  const gitDir = gitDirectory(snap.root)
  if (snap.refs === undefined || gitDir === undefined) return { violations: [], notes: [] }
  const now = readRefFiles(gitDir)
  const changes = compareRefs(snap.refs, now)
  if (changes.length === 0) return { violations: [], notes: [] }
  // judged before they are put back, while the names still lead to the agent's commits
  const commit = await agentCommit(snap, gitDir, now, changes, options)
  const failure = revert ? restoreRefFiles(gitDir, snap.refs) : undefined
  const violations: Violation[] = []
  const notes: AuditNote[] = []
  for (const c of changes) {
    const rel = c.name === 'HEAD' ? '.git/HEAD' : `.git/${c.name}`
    // one that stays moved is a violation whatever made it: later steps would see it
    if (c === commit && failure === undefined) {
      notes.push({ path: rel, change: c.change, reason: COMMIT_NOTE, reverted: revert })
      continue
    }
    violations.push({
      path: rel,
      change: c.change,
      rule: GIT_INTERNALS,
      reason: refReason(c),
      reverted: revert && failure === undefined,
      ...(failure === undefined ? {} : { note: failure })
    })
  }
  return { violations, notes }
}

/** What the report says of the agent's commit that was put back. */
export const COMMIT_NOTE =
  "the agent's commit was undone (the policy allows `git commit`, but refs are the workflow's to move); its changes are in the patch"

/**
 * The shell requests that make a commit, as the policy is asked about them: the policy allows
 * the agent to commit when it allows one of them (`git commit*`, `git commit -m *`, ...).
 */
export const COMMIT_REQUESTS = [
  'git commit',
  'git commit -m message',
  'git commit -a -m message',
  'git commit -am message'
]

/** A commit id (SHA-1 or SHA-256). */
function isCommitId(text: string | undefined): text is string {
  return text !== undefined && /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(text)
}

/**
 * The change among `changes` that is the agent's own commit, which the policy allows: the current
 * branch (HEAD's, `ref: refs/heads/<name>` before and after) or a detached HEAD (a pull request's
 * checkout) moved forward to a descendant, whose commits change only paths the write rules allow,
 * under a policy that allows `git commit`. Undefined when there is none.
 */
async function agentCommit(
  snap: Snapshot,
  gitDir: string,
  now: RefFiles,
  changes: readonly RefChange[],
  options: AuditOptions
): Promise<RefChange | undefined> {
  const decideCommand = options.decideCommand
  if (decideCommand === undefined) return undefined
  if (!COMMIT_REQUESTS.some((request) => decideCommand(request).decision === 'allow')) {
    return undefined
  }
  const before = snap.refs?.head?.trim()
  const after = now.head?.trim()
  let name: string
  if (before?.startsWith('ref: refs/heads/') === true && after === before) {
    name = before.slice('ref: '.length).trim()
  } else if (isCommitId(before) && isCommitId(after)) {
    name = 'HEAD'
  } else {
    return undefined
  }
  const change = changes.find((c) => c.name === name)
  if (change?.change !== 'changed' || !isCommitId(change.before) || !isCommitId(change.after)) {
    return undefined
  }
  const paths = await committedPaths(snap, gitDir, change.before, change.after)
  if (paths === undefined) return undefined
  const allowed = paths.every(
    (rel) => !isGitControl(rel) && options.decide(path.join(snap.root, rel)).decision === 'allow'
  )
  return allowed ? change : undefined
}

/** A git call on the repository's objects takes at most this long (they are the agent's to write). */
const OBJECTS_GIT_TIMEOUT_MS = 30_000

/**
 * The paths the commits from `from` to `to` change, when `to` descends from `from`; undefined
 * when it does not, or git cannot say. git reads the repository's objects only, as an alternate of
 * an empty git directory of the action's own (nothing of the repository's config or hooks runs).
 */
async function committedPaths(
  snap: Snapshot,
  gitDir: string,
  from: string,
  to: string
): Promise<string[] | undefined> {
  const reader = path.join(snap.storeDir, 'commits')
  const format = from.length === 64 ? 'sha256' : 'sha1'
  try {
    if (!fs.existsSync(path.join(reader, 'HEAD'))) {
      fs.mkdirSync(snap.storeDir, { recursive: true })
      const made = await runGit(
        snap.storeDir,
        ['init', '-q', '--bare', '--template=', `--object-format=${format}`, reader],
        isolatedEnv(),
        { timeoutMs: OBJECTS_GIT_TIMEOUT_MS }
      )
      if (made.code !== 0) return undefined
    }
  } catch {
    return undefined
  }
  const env = isolatedEnv({
    GIT_DIR: reader,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(gitDir, 'objects'),
    ...gitConfigEnv([
      ['core.fsmonitor', 'false'],
      ['core.hooksPath', '/dev/null'],
      ['gc.auto', '0']
    ])
  })
  const options = { timeoutMs: OBJECTS_GIT_TIMEOUT_MS }
  const descends = await runGit(
    snap.storeDir,
    ['merge-base', '--is-ancestor', from, to],
    env,
    options
  )
  if (descends.code !== 0) return undefined
  const diff = await runGit(
    snap.storeDir,
    ['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to],
    env,
    options
  )
  if (diff.code !== 0) return undefined
  return diff.stdout.split('\0').filter((rel) => rel !== '')
}

function refReason(c: RefChange): string {
  const short = (target: string | undefined): string =>
    target === undefined ? '' : /^[0-9a-f]{40,64}$/.test(target) ? target.slice(0, 12) : target
  const what =
    c.change === 'created'
      ? `a new ref, at ${short(c.after)}`
      : c.change === 'deleted'
        ? `removed (it was at ${short(c.before)})`
        : `moved from ${short(c.before)} to ${short(c.after)}`
  return `${what}: refs name the commit a later checkout, reset or push takes; only the workflow may move them`
}

/**
 * Directories created while the agent worked that held a removed path and are empty now,
 * deepest first (`.husky/` of a removed `.husky/pre-commit`).
 */
function removeEmptied(
  snap: Snapshot,
  now: ReadonlyMap<string, Entry>,
  removed: readonly string[]
): void {
  const created = [...now]
    .filter(([rel, entry]) => entry.type === 'dir' && !snap.entries.has(rel))
    .map(([rel]) => rel)
    .filter((rel) => removed.some((r) => r.startsWith(`${rel}/`)))
    .sort((a, b) => b.length - a.length)
  for (const rel of created) {
    try {
      fs.rmdirSync(path.join(snap.root, rel))
    } catch {
      // not empty: something the rules allow is in it
    }
  }
}

/** Puts one violation back; returns why it could not, or undefined. */
async function revertOne(
  snap: Snapshot,
  c: { rel: string; change: Change }
): Promise<string | undefined> {
  try {
    if (c.change === 'created') {
      const note = realParents(snap, c.rel)
      if (note === undefined) removePath(path.join(snap.root, c.rel))
      return note
    }
    const before = snap.entries.get(c.rel)
    return before ? await restore(snap, c.rel, before) : 'not in the snapshot'
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** The run's ending when the workspace is too large to check whole (before the agent starts). */
export function tooLarge(limit: number): string {
  return `The workspace holds more than ${limit.toLocaleString('en-US')} entries (files, directories and links, the ones git ignores included): the workspace audit cannot check it whole, so the agent was not started rather than protected less. Fix: run the action on a smaller tree (remove large build output or dependency directories before this step, or set working-directory to the part of the repository the agent works on).`
}

/** Removes the snapshot's store. */
export function discard(snap: Snapshot): void {
  fs.rmSync(snap.storeDir, { recursive: true, force: true })
}

/** One check's result as the run records it: each violation with the command that names it. */
export type AuditReport = AuditResult & { violations: Array<Violation & { command?: string }> }

/** What the run's audit needs of the run. */
export interface WorkspaceAuditOptions {
  root: string
  storeDir: string
  protection: Protection
  /** The state's tools and permissions: who did it, and which ask writes a person approved. */
  /** Records a check's result (the run's recorder; the log). */
  report: (result: AuditReport) => void
  /** The walk's entry limit (default MAX_ENTRIES). */
  limit?: number
  evidence: () => {
    tools: ReadonlyArray<{ name: string; target?: string }>
    permissions: ReadonlyArray<{
      kind: string
      decision: string
      approval?: { verdict: string }
      request: { fileName?: unknown }
    }>
  }
}

/**
 * The audit of one run: the snapshot before the agent's work (`start`, then `rebaseline` after
 * setup and verify commands, which are the workflow's), the check after it (`check`).
 */
export class WorkspaceAudit {
  private constructor(
    private readonly options: WorkspaceAuditOptions,
    private baseline: Snapshot
  ) {}

  /** The git tree of the start, written while the CLI boots (`ready`). */
  private tree: Promise<void> = Promise.resolve()

  /**
   * Walks the workspace and copies its protected files (the paths to keep read-only come with
   * it); the git tree of the start is written meanwhile by git, in another process (`ready`).
   * Before any code of the pull request or the agent runs: the tree may take what exists from
   * the repository's objects (store.ts, `trustRepository`).
   */
  static async start(
    options: WorkspaceAuditOptions
  ): Promise<{ audit: WorkspaceAudit; readOnly: string[] }> {
    freshStore(options.storeDir)
    const tree = gitTree(options.root, options.storeDir, { trustRepository: true }).catch(
      () => undefined
    )
    const walked = await walkAsync(options.root, options.limit, lookFirst(options.protection.names))
    const files = snapshotFiles(options.root, options.storeDir, options.protection, undefined, {
      walked,
      storeMade: true
    })
    if (!files.complete) {
      await tree
      discard(files)
      throw new UserError(tooLarge(options.limit ?? MAX_ENTRIES))
    }
    const started = new WorkspaceAudit(options, files)
    started.tree = tree.then((id) => {
      if (id !== undefined) started.baseline = { ...started.baseline, tree: id }
    })
    return { audit: started, readOnly: protectedPaths(files, options.protection) }
  }

  /** Whether the baseline moved since the start (setup commands ran, or a check). */
  private moved = false

  /**
   * The git tree of the start in the audit's store while it is still the workspace as it is (no
   * setup command and no check since): where the agent's changes start (session/changes.ts).
   */
  async startTree(): Promise<string | undefined> {
    await this.tree
    return this.moved ? undefined : this.baseline.tree
  }

  /** Resolves once the start's git tree is written: before the agent may change anything. */
  ready(): Promise<void> {
    return this.tree
  }

  /**
   * The workspace as it is now becomes what the agent's next work is checked against (a walk;
   * the content to restore stays the start's, and the protected files' copies are renewed).
   */
  async rebaseline(walked?: ReturnType<typeof walk>): Promise<void> {
    await this.tree
    this.moved = true
    this.baseline = snapshotFiles(
      this.options.root,
      this.options.storeDir,
      this.options.protection,
      this.baseline,
      {
        ...(this.options.limit === undefined ? {} : { limit: this.options.limit }),
        ...(walked === undefined ? {} : { walked })
      }
    )
  }

  /** Whether a check ran: after it, `lateCheck` looks for writes that came after it. */
  private checked = false

  /**
   * Checks and reverts what the agent's work changed since the baseline, reports it (the
   * violations name the command), and makes the workspace as it is now the next baseline.
   */
  async check(options: { protectedOnly?: boolean } = {}): Promise<void> {
    const { tools, permissions } = this.options.evidence()
    const approved = new Set<string>()
    for (const p of permissions) {
      const file = p.request.fileName
      if (p.kind !== 'write' || p.approval?.verdict !== 'approved' || typeof file !== 'string')
        continue
      approved.add(path.relative(this.options.root, path.resolve(this.options.root, file)))
    }
    await this.tree
    const decideCommand = this.options.protection.decideCommand
    const { result, walked } = await auditWalked(this.baseline, {
      decide: this.options.protection.decide,
      ...(decideCommand === undefined ? {} : { decideCommand }),
      approved,
      ...(this.options.limit === undefined ? {} : { limit: this.options.limit }),
      ...options
    })
    this.checked = true
    this.options.report({
      ...result,
      violations: result.violations.map((v) => {
        const command = commandNaming(tools, v.path)
        return command === undefined ? v : { ...v, command }
      })
    })
    // the audit's walk is the tree as it is now, unless it put something back
    await this.rebaseline(result.violations.length === 0 && walked.complete ? walked : undefined)
  }

  /**
   * Once the CLI is gone (and every process the agent started in its sandbox with it): what
   * changed since the last check or baseline — a background process that wrote after the
   * agent said it was done — is checked and reverted like the rest.
   */
  async lateCheck(): Promise<void> {
    if (this.checked) await this.check()
  }

  discard(): void {
    discard(this.baseline)
  }
}

/** The last shell command of the agent that names `rel` (or its file name), if any. */
function commandNaming(
  tools: ReadonlyArray<{ name: string; target?: string }>,
  rel: string
): string | undefined {
  const base = path.basename(rel)
  for (let i = tools.length - 1; i >= 0; i--) {
    const target = tools[i]?.target
    if (target === undefined) continue
    if (target.includes(rel) || (base.length >= 3 && target.includes(base))) return target
  }
  return undefined
}
