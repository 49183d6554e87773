/**
 * The agent's changes, from git: the tree of the workspace when the agent starts and when the run
 * is over, compared in a git directory of the action's own (the audit's way, session/audit.ts):
 * nothing of the repository's git directory runs — its config (filters, fsmonitor, textconv,
 * external diff), hooks, `commondir` — nor the machine's or the user's config. Only the work
 * tree's ignore files are obeyed, so build output and caches are not changes.
 *
 * The result is a `ChangesRecord` (per file: added, modified or deleted, lines added and removed)
 * and a binary git patch in RUNNER_TEMP that `git apply` takes on the starting commit: what the
 * publish step (modes/publish.ts) checks again and commits. Never in it: the policy file, the
 * report, the action's own files, paths the audit found in violation (put back or not).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { ChangedFileRecord, ChangesRecord, Metrics } from '../reporting/types.js'
import { readRegularFileIfAny } from '../git/files.js'
import { gitTree, seedFromStore, storeGit } from '../git/store.js'

/** HEAD and a loose ref are a line; packed-refs may be long. */
const MAX_REF_BYTES = 64 * 1024
const MAX_PACKED_BYTES = 256 * 1024 * 1024

export interface AgentChangesOptions {
  /** The workspace (the agent's working directory). */
  root: string
  /** A private directory for the git store (made here). */
  storeDir: string
  /** Where the patch is written. */
  patchPath: string
  /** Absolute paths never counted as the agent's (policy file, report, the action's files). */
  excluded: readonly string[]
  /**
   * The audit's store (session/audit.ts), when the run has one: its index and trees are where
   * this one starts, so `start` hashes and writes only what changed since the audit's start.
   * It must live until `finish` is done.
   */
  seedStore?: string
}

/** The commit HEAD names, read from the files (no git runs in the repository), or ''. */
export function headCommit(root: string): string {
  const gitDir = path.join(root, '.git')
  try {
    if (!fs.lstatSync(gitDir).isDirectory()) return ''
    // regular files only: a FIFO in place of HEAD is no answer, never a wait
    const read = (file: string, max: number): string | undefined =>
      readRegularFileIfAny(path.join(gitDir, file), max)?.toString('utf8')
    const head = (read('HEAD', MAX_REF_BYTES) ?? '').trim()
    if (/^[0-9a-f]{40,64}$/.test(head)) return head
    const ref = /^ref: (refs\/[^\s]+)$/.exec(head)?.[1]
    if (ref === undefined || ref.split('/').includes('..')) return ''
    const loose = read(ref, MAX_REF_BYTES)
    if (loose !== undefined) {
      const id = loose.trim()
      return /^[0-9a-f]{40,64}$/.test(id) ? id : ''
    }
    const packed = read('packed-refs', MAX_PACKED_BYTES)
    if (packed === undefined) return ''
    for (const line of packed.split('\n')) {
      const [id, name] = line.trim().split(' ')
      if (name === ref && id !== undefined && /^[0-9a-f]{40,64}$/.test(id)) return id
    }
    return ''
  } catch {
    return ''
  }
}

/** `:(exclude,literal)` pathspecs for the excluded paths inside `root`. */
function exclusions(root: string, excluded: readonly string[]): string[] {
  const out: string[] = []
  for (const full of excluded) {
    const rel = path.relative(root, path.resolve(root, full))
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue
    out.push(`:(exclude,literal)${rel.split(path.sep).join('/')}`)
  }
  return out
}

/** Parses `git diff-tree --numstat -z` and `--name-status -z` into per-file records. */
export function parseChanges(numstat: string, nameStatus: string): ChangedFileRecord[] {
  const kinds = new Map<string, ChangedFileRecord['change']>()
  const parts = nameStatus.split('\0')
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i] ?? ''
    const file = parts[i + 1] ?? ''
    if (file === '') continue
    kinds.set(
      file,
      status.startsWith('A') ? 'added' : status.startsWith('D') ? 'deleted' : 'modified'
    )
  }
  const files: ChangedFileRecord[] = []
  for (const record of numstat.split('\0')) {
    const match = /^(-|\d+)\t(-|\d+)\t(.+)$/s.exec(record)
    if (!match) continue
    const [, added = '0', removed = '0', file = ''] = match
    const binary = added === '-' && removed === '-'
    files.push({
      path: file,
      change: kinds.get(file) ?? 'modified',
      added: binary ? 0 : Number(added),
      removed: binary ? 0 : Number(removed),
      ...(binary ? { binary: true } : {})
    })
  }
  return files
}

/** The report's line and file counts, from git's record of the agent's changes. */
export function changesMetrics(
  changes: ChangesRecord
): Pick<Metrics, 'linesAdded' | 'linesRemoved' | 'filesModified'> {
  return {
    linesAdded: changes.files.reduce((n, f) => n + f.added, 0),
    linesRemoved: changes.files.reduce((n, f) => n + f.removed, 0),
    filesModified: changes.files.map((f) => f.path)
  }
}

/**
 * The workspace's tree when the agent starts (`start`), compared with the tree when the run is
 * over (`finish`). Outside a git checkout (no `.git` directory at the root) there is no record.
 */
export class AgentChanges {
  private base = ''
  private startTree: string | undefined
  private startError: string | undefined

  constructor(private readonly options: AgentChangesOptions) {}

  /**
   * Records the starting commit and the tree the agent starts from: `seedTree`, the audit's tree
   * of the start in `seedStore` when the workspace has not changed since, or a new one.
   */
  async start(seedTree?: string): Promise<void> {
    const { root, storeDir } = this.options
    this.base = headCommit(root)
    try {
      fs.rmSync(storeDir, { recursive: true, force: true })
      fs.mkdirSync(storeDir, { recursive: true, mode: 0o700 })
      const seed = this.options.seedStore
      const seeded = seed !== undefined && (await seedFromStore(root, storeDir, seed))
      if (seed !== undefined && !seeded) {
        fs.rmSync(storeDir, { recursive: true, force: true })
        fs.mkdirSync(storeDir, { recursive: true, mode: 0o700 })
      }
      this.startTree = seeded && seedTree !== undefined ? seedTree : await this.tree()
      if (this.startTree === undefined && fs.existsSync(path.join(root, '.git'))) {
        this.startError = 'git could not record the workspace when the agent started'
      }
    } catch (error) {
      this.startError = error instanceof Error ? error.message : String(error)
    }
  }

  /** Whether `start` ran in a git checkout. */
  get started(): boolean {
    return this.startTree !== undefined || this.startError !== undefined
  }

  /**
   * The agent's changes since `start` and the patch of them; `violations` (relative paths the
   * audit flagged) are left out. Undefined when `start` never ran or the workspace is no checkout.
   */
  async finish(violations: readonly string[] = []): Promise<ChangesRecord | undefined> {
    const { root, storeDir, patchPath } = this.options
    if (this.startError !== undefined) return { base: this.base, files: [], error: this.startError }
    if (this.startTree === undefined) return undefined
    const endTree = await this.tree()
    if (endTree === undefined) {
      return {
        base: this.base,
        files: [],
        error: 'git could not record the workspace after the run'
      }
    }
    const specs = [
      '--',
      '.',
      ...exclusions(root, [...this.options.excluded, ...violations.map((v) => path.join(root, v))])
    ]
    const common = ['diff-tree', '-r', '--no-renames', '--no-ext-diff', '--no-textconv', '-z']
    // the content of files unchanged since the checkout is the repository's (src/git/store.ts)
    const borrow = { borrow: true }
    const [numstat, names] = await Promise.all([
      storeGit(root, storeDir, [...common, '--numstat', this.startTree, endTree, ...specs], borrow),
      storeGit(
        root,
        storeDir,
        [...common, '--name-status', this.startTree, endTree, ...specs],
        borrow
      )
    ])
    if (numstat.code !== 0 || names.code !== 0) {
      return { base: this.base, files: [], error: 'git could not compare the trees' }
    }
    const files = parseChanges(numstat.stdout, names.stdout)
    fs.mkdirSync(path.dirname(patchPath), { recursive: true })
    fs.rmSync(patchPath, { force: true })
    const patch = await storeGit(
      root,
      storeDir,
      [
        'diff-tree',
        '-r',
        '-p',
        '--binary',
        '--full-index',
        '--no-renames',
        '--no-ext-diff',
        '--no-textconv',
        '--no-color',
        `--output=${patchPath}`,
        this.startTree,
        endTree,
        ...specs
      ],
      borrow
    )
    if (patch.code !== 0 || !fs.existsSync(patchPath)) {
      return { base: this.base, files, error: 'git could not write the patch' }
    }
    return { base: this.base, files, patchPath }
  }

  /** The tree of the work tree's files git does not ignore, in the private store. */
  private async tree(): Promise<string | undefined> {
    return gitTree(this.options.root, this.options.storeDir)
  }
}
