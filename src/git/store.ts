/**
 * A git directory of the action's own (the "store") with the workspace as its work tree: how
 * the audit (session/audit.ts) and the agent's changes (session/changes.ts) record the tree.
 * Nothing of the repository's git directory runs — its config (filter drivers, fsmonitor), hooks,
 * `commondir` — nor the machine's or the user's config: the agent may have written any of them,
 * and these commands run outside the sandbox, with the action's environment. Only the work
 * tree's own `.gitignore` files are obeyed.
 *
 * Fast on a large checkout: the store's index starts as a copy of the repository's own index
 * (read as a regular file, before the agent starts), so `git add -A` hashes only what git's stat
 * data says changed since the checkout, and the untracked files; the trees are written into the
 * store (`write-tree --missing-ok`), the blobs of unchanged files stay in the repository's object
 * store, which is borrowed (read only) where their content is needed, and checked by its hash.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { copyRegularFile } from './files.js'
import { gitConfigEnv, isolatedEnv, runGit, runGitBuffer, type GitResult } from './process.js'

/** The largest repository index the store copies (a larger one: the tree is hashed from scratch). */
const MAX_INDEX_BYTES = 1024 * 1024 * 1024

/** The store's marker: its index started from the repository's, whose objects it borrows. */
const SEEDED = 'seeded-from'

/**
 * The environment of every git command on the store: its own git directory, the workspace as its
 * work tree, its own index. With `borrow`, the repository's object store is read as an alternate
 * (for the content of files the store's index took from the repository's).
 */
export function storeEnv(
  root: string,
  storeDir: string,
  options: { borrow?: boolean } = {}
): NodeJS.ProcessEnv {
  const borrowed = options.borrow === true ? borrowedObjects(storeDir) : undefined
  return {
    GIT_DIR: path.join(storeDir, 'git'),
    GIT_WORK_TREE: root,
    GIT_INDEX_FILE: path.join(storeDir, 'index'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    ...(borrowed === undefined ? {} : { GIT_ALTERNATE_OBJECT_DIRECTORIES: borrowed }),
    ...gitConfigEnv([
      ['core.bare', 'false'],
      ['core.fsmonitor', 'false'],
      ['core.hooksPath', '/dev/null'],
      ['core.excludesFile', '/dev/null'],
      ['core.autocrlf', 'false'],
      ['core.untrackedCache', 'false'],
      ['core.splitIndex', 'false'],
      ['core.sparseCheckout', 'false'],
      ['index.sparse', 'false'],
      ['gc.auto', '0'],
      ['maintenance.auto', 'false']
    ])
  }
}

/** The repository's object directory the store borrows, if its index was seeded from it. */
function borrowedObjects(storeDir: string): string | undefined {
  try {
    const dir = fs.readFileSync(path.join(storeDir, SEEDED), 'utf8')
    return dir === '' ? undefined : dir
  } catch {
    return undefined
  }
}

/** git on the store (text output), with the action's environment minus its git variables. */
export function storeGit(
  root: string,
  storeDir: string,
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; borrow?: boolean; timeoutMs?: number } = {}
): Promise<GitResult> {
  return runGit(
    root,
    args,
    isolatedEnv({ ...storeEnv(root, storeDir, { borrow: options.borrow }), ...options.env }),
    {
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })
    }
  )
}

/** The store's own git directory, made once; false outside a git repository. */
export async function initStoreGit(root: string, storeDir: string): Promise<boolean> {
  if (!fs.existsSync(path.join(root, '.git'))) return false
  if (fs.existsSync(path.join(storeDir, 'git', 'HEAD'))) return true
  fs.mkdirSync(storeDir, { recursive: true, mode: 0o700 })
  const init = await storeGit(root, storeDir, ['init', '-q', '--template='])
  return init.code === 0
}

/**
 * Starts the store's index from the repository's (a regular file, copied): its stat data lets
 * `git add -A` skip hashing every file that did not change since the checkout. Entries git
 * would not look at in the work tree (assume-unchanged, skip-worktree) are looked at. Returns
 * whether it did.
 */
async function seedIndex(root: string, storeDir: string): Promise<boolean> {
  const gitDir = path.join(root, '.git')
  const index = path.join(storeDir, 'index')
  try {
    if (!fs.lstatSync(gitDir).isDirectory()) return false
    fs.rmSync(index, { force: true })
    copyIndex(path.join(gitDir, 'index'), index)
  } catch {
    fs.rmSync(index, { force: true })
    return false
  }
  // the entries with a bit that makes git trust the index over the work tree
  const listed = await storeGit(root, storeDir, ['ls-files', '-v', '-z'])
  if (listed.code !== 0) {
    fs.rmSync(index, { force: true })
    return false
  }
  const flagged: string[] = []
  for (const line of listed.stdout.split('\0')) {
    const tag = line.slice(0, 1)
    if (line.length > 2 && (tag === 'S' || (tag !== tag.toUpperCase() && tag !== ''))) {
      flagged.push(line.slice(2))
    }
  }
  if (flagged.length > 0) {
    const cleared = await storeGit(
      root,
      storeDir,
      ['update-index', '--no-assume-unchanged', '--no-skip-worktree', '-z', '--stdin'],
      { input: flagged.join('\0') + '\0' }
    )
    if (cleared.code !== 0) {
      fs.rmSync(index, { force: true })
      return false
    }
  }
  fs.writeFileSync(path.join(storeDir, SEEDED), path.join(gitDir, 'objects'), { mode: 0o600 })
  return true
}

/**
 * An index file copied with its modification time: git takes an entry whose file is as new as
 * the index for racily clean and hashes it again, which a fresh time on the copy would hide.
 */
function copyIndex(source: string, dest: string): void {
  copyRegularFile(source, dest, MAX_INDEX_BYTES)
  // never through a link swapped in since the copy (copyRegularFile refuses one)
  const stat = fs.lstatSync(source)
  fs.utimesSync(dest, stat.atime, stat.mtime)
}

/**
 * Starts `storeDir` from another store's index and objects (`fromDir`, the audit's, which lives
 * until the run's changes are recorded): the trees it wrote are read from there (an alternate
 * object directory, private to the action like the store itself), so a later `gitTree` writes
 * and hashes only what changed since. False when `fromDir` has no tree to give.
 */
export async function seedFromStore(
  root: string,
  storeDir: string,
  fromDir: string
): Promise<boolean> {
  const fromIndex = path.join(fromDir, 'index')
  const fromObjects = path.join(fromDir, 'git', 'objects')
  if (!fs.existsSync(fromIndex) || !fs.existsSync(fromObjects)) return false
  if (!(await initStoreGit(root, storeDir))) return false
  const index = path.join(storeDir, 'index')
  try {
    fs.rmSync(index, { force: true })
    copyIndex(fromIndex, index)
    const borrowed = borrowedObjects(fromDir)
    if (borrowed !== undefined) {
      fs.writeFileSync(path.join(storeDir, SEEDED), borrowed, { mode: 0o600 })
    }
    fs.writeFileSync(
      path.join(storeDir, 'git', 'objects', 'info', 'alternates'),
      `${fromObjects}\n`,
      {
        mode: 0o600
      }
    )
    return true
  } catch {
    fs.rmSync(index, { force: true })
    fs.rmSync(path.join(storeDir, SEEDED), { force: true })
    return false
  }
}

/**
 * A git tree of the working tree's non-ignored files, in the store. The first one starts from the
 * repository's index (`seedIndex`); a later one updates the store's index, hashing what changed.
 *
 * `trustRepository` (only before any code of the pull request or the agent has run: the audit's
 * tree of the start): the repository's objects answer which trees exist already, so the trees of
 * the checkout are not written again one file each (on a 100,000-file checkout ~1 s of the time
 * before the prompt); they are copied into the store as one pack, so that nothing read from the
 * start's tree later comes from the repository's object files, which the agent can write.
 */
export async function gitTree(
  root: string,
  storeDir: string,
  options: { trustRepository?: boolean } = {}
): Promise<string | undefined> {
  if (!(await initStoreGit(root, storeDir))) return undefined
  const index = path.join(storeDir, 'index')
  const first = !fs.existsSync(index)
  const seeded = first
    ? await seedIndex(root, storeDir)
    : fs.existsSync(path.join(storeDir, SEEDED))
  if (first && seeded && options.trustRepository === true) {
    const tree = await writeTree(root, storeDir, true, true)
    if (tree !== undefined && (await packTrees(root, storeDir, tree))) return tree
  }
  const tree = await writeTree(root, storeDir, seeded)
  if (tree !== undefined || !(first && seeded)) return tree
  // the repository's index did not serve (a split index, another hash): from scratch
  fs.rmSync(index, { force: true })
  fs.rmSync(path.join(storeDir, SEEDED), { force: true })
  return writeTree(root, storeDir, false)
}

async function writeTree(
  root: string,
  storeDir: string,
  seeded: boolean,
  borrow = false
): Promise<string | undefined> {
  // a file that goes away while it is read (a hook's, a server's) must not lose the whole tree
  const added = await storeGit(root, storeDir, ['add', '-A', '--ignore-errors', '--', '.'])
  if (added.code !== 0) return undefined
  // with a seeded index, the blobs of unchanged files are the repository's: the trees are the store's
  const written = await storeGit(
    root,
    storeDir,
    ['write-tree', ...(seeded ? ['--missing-ok'] : [])],
    { borrow }
  )
  const id = written.stdout.trim()
  return written.code === 0 && /^[0-9a-f]{40,64}$/.test(id) ? id : undefined
}

/**
 * Every tree of `tree` (itself and its subtrees, wherever they are: the store or the borrowed
 * repository) into one pack in the store. True when the store then has the root tree itself.
 */
async function packTrees(root: string, storeDir: string, tree: string): Promise<boolean> {
  const listed = await storeGit(
    root,
    storeDir,
    ['ls-tree', '-r', '-t', '-d', '-z', '--full-tree', tree],
    {
      borrow: true
    }
  )
  if (listed.code !== 0) return false
  const ids = [tree]
  for (const line of listed.stdout.split('\0')) {
    const match = /^\d+ tree ([0-9a-f]{40,64})\t/.exec(line)
    if (match?.[1] !== undefined) ids.push(match[1])
  }
  const packed = await storeGit(
    root,
    storeDir,
    ['pack-objects', '-q', '--window=0', path.join(storeDir, 'git', 'objects', 'pack', 'pack')],
    { borrow: true, input: `${ids.join('\n')}\n` }
  )
  if (packed.code !== 0) return false
  // the store alone (no borrowing) must hold it now
  const held = await storeGit(root, storeDir, ['cat-file', '-e', `${tree}^{tree}`])
  return held.code === 0
}

/** Every blob and link of `tree` by path (`git ls-tree -r`), or undefined when git cannot read it. */
export async function treeBlobs(
  root: string,
  storeDir: string,
  tree: string
): Promise<Map<string, string> | undefined> {
  const result = await storeGit(root, storeDir, ['ls-tree', '-r', '-z', '--full-tree', tree])
  if (result.code !== 0) return undefined
  const ids = new Map<string, string>()
  for (const line of result.stdout.split('\0')) {
    const match = /^\d+ blob ([0-9a-f]{40,64})\t(.+)$/s.exec(line)
    if (match?.[1] !== undefined && match[2] !== undefined) ids.set(match[2], match[1])
  }
  return ids
}

/** git's id of a blob's content (SHA-1, or SHA-256 for a 64-digit id). */
export function blobId(content: Buffer, algorithm: 'sha1' | 'sha256' = 'sha1'): string {
  return crypto
    .createHash(algorithm)
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest('hex')
}

/**
 * A blob's content: from the store, else from the borrowed repository objects, and only when it
 * hashes to `id` (the agent could write the repository's object files). Undefined when neither
 * has it.
 */
export async function blobContent(
  root: string,
  storeDir: string,
  id: string
): Promise<Buffer | undefined> {
  const env = isolatedEnv(storeEnv(root, storeDir, { borrow: true }))
  const result = await runGitBuffer(root, ['cat-file', 'blob', id], env)
  if (result.code !== 0) return undefined
  const algorithm = id.length === 64 ? 'sha256' : 'sha1'
  return blobId(result.stdout, algorithm) === id ? result.stdout : undefined
}
