/**
 * Instruction files the Copilot CLI reads by itself: AGENTS.md, CLAUDE.md, GEMINI.md,
 * `.github/copilot-instructions.md`, `.github/instructions/**\/*.instructions.md` and
 * `.claude/rules/**\/*.md`, in the git root and the working directory (the CLI's own list, CLI
 * 1.0.102's `/help`; `COPILOT_CUSTOM_INSTRUCTIONS_DIRS` and `~/.copilot` are not the tree's: the
 * variable is removed from its environment, its home is private). The CLI reads them outside the
 * OS sandbox and without a `read` request, and follows symlinks: a pull request's
 * `AGENTS.md -> ~/.docker/config.json` handed the registry credential to the model.
 *
 * The CLI has no option to leave out one file (`skipCustomInstructions` drops them all, and
 * `disabledInstructionSources` takes ids it assigns inside its native code). So with an untrusted
 * tree, before the session, every such file that leads out of the workspace (a symlink, or a
 * directory on its way that is one) or is not a regular file (a FIFO, a device) is moved aside:
 * renamed into a private directory of the run's RUNNER_TEMP folder, and renamed back once the CLI
 * has exited. The link itself is moved, never what it points to. A run that crashed or was
 * cancelled before that leaves the stash, which the post step puts back (post-run.ts), as it does
 * for the checkout's credentials.
 */
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { describeKind, isInside, workspaceRoots } from '../tree-file.js'

/** Single files the CLI reads from each directory it looks in. */
export const INSTRUCTION_FILES = [
  'AGENTS.md',
  'CLAUDE.md',
  'GEMINI.md',
  '.github/copilot-instructions.md'
] as const

/** Directories whose files (matching `name`) the CLI reads, at any depth. */
export const INSTRUCTION_TREES = [
  { dir: '.github/instructions', name: /\.instructions\.md$/i },
  { dir: '.claude/rules', name: /\.md$/i }
] as const

/**
 * How many entries of the instruction directories are looked at, and how deep: past either, the
 * run is refused (the CLI would read what the action did not check).
 */
const MAX_ENTRIES = 10_000
const MAX_DEPTH = 16

/** What the action cannot check is not handed to the CLI: the run does not start. */
function tooMuch(what: string): UserError {
  return new UserError(
    `The checked-out tree has ${what} among the instruction files the Copilot CLI reads by itself (.github/instructions, .claude/rules), more than the action checks for links out of the workspace. Remove them, or set trusted-config: true if this tree is trusted.`
  )
}

/** A file kept from the CLI: where it was (relative to the workspace) and why. */
export interface KeptInstructionFile {
  path: string
  reason: string
}

interface StashEntry {
  /** Where it was (absolute). */
  original: string
  /** Its name in the stash directory. */
  stashed: string
  relative: string
  reason: string
}

interface Manifest {
  version: 1
  workspace: string
  entries: StashEntry[]
}

const MANIFEST = 'manifest.json'

/** A file the CLI would read that must not reach it, found by `findUnsafeInstructionFiles`. */
interface Unsafe {
  /** The directory entry to move aside: the link itself, or the special file. */
  entry: string
  reason: string
}

/**
 * The directories the CLI looks in that are inside the workspace: the working directory and each
 * parent up to the workspace (a superset of "the git root and the working directory").
 */
function lookedIn(workspace: string, workingDirectory: string): string[] {
  const dirs: string[] = []
  let dir = path.resolve(workingDirectory)
  const root = path.resolve(workspace)
  for (;;) {
    if (!isInside(root, dir)) break
    dirs.push(dir)
    if (dir === root) break
    dir = path.dirname(dir)
  }
  return dirs
}

/**
 * Follows `relative` from `dir` one component at a time, without following any link that
 * leaves `root`. Returns the entry to move aside, or where it leads (undefined: nothing there).
 */
function follow(
  root: string,
  dir: string,
  relative: string,
  last: 'file' | 'directory'
): { unsafe: Unsafe } | { path: string } | undefined {
  const parts = relative.split('/')
  let at = dir
  for (let i = 0; i < parts.length; i++) {
    const entry = path.join(at, parts[i] as string)
    const isLast = i === parts.length - 1
    let stat: fs.Stats
    try {
      stat = fs.lstatSync(entry)
    } catch {
      return undefined
    }
    let real = entry
    if (stat.isSymbolicLink()) {
      try {
        real = fs.realpathSync(entry)
        stat = fs.statSync(real)
      } catch {
        return undefined // a link to nothing: nothing to read
      }
      if (!isInside(root, real)) {
        return { unsafe: { entry, reason: `a symlink to ${real}, outside the workspace` } }
      }
    }
    if (isLast && last === 'file') {
      if (stat.isFile() && stat.nlink > 1) {
        // a regular file in the tree whose data may be an outside file's (`ln ~/.ssh/id_rsa
        // AGENTS.md`): the link itself is moved aside, like a symlink out
        return {
          unsafe: {
            entry,
            reason: `a hard link (${stat.nlink} names), whose data may be a file outside the workspace`
          }
        }
      }
      if (stat.isFile() || stat.isDirectory()) return { path: real }
      return { unsafe: { entry, reason: `${describeKind(stat)}, not a regular file` } }
    }
    if (!stat.isDirectory()) return undefined
    at = real
  }
  return { path: at }
}

/**
 * The entries of `file`'s directory (under `dir`) whose names equal its name in any letter case,
 * as paths relative to `dir` (`claude.md`, `Agents.md` for `AGENTS.md`).
 */
function caseVariants(root: string, dir: string, file: string): string[] {
  const parent = path.posix.dirname(file)
  const name = path.posix.basename(file).toLowerCase()
  const where = parent === '.' ? { path: dir } : follow(root, dir, parent, 'directory')
  if (where === undefined || 'unsafe' in where) return [file]
  let names: string[]
  try {
    names = fs.readdirSync(where.path)
  } catch {
    return []
  }
  return names
    .filter((n) => n.toLowerCase() === name)
    .map((n) => (parent === '.' ? n : `${parent}/${n}`))
}

/** Every unsafe entry under an instruction directory (`dir`, already known to be inside). */
function walk(
  root: string,
  dir: string,
  name: RegExp,
  out: Unsafe[],
  seen: Set<string>,
  depth: number,
  budget: { left: number }
): void {
  if (seen.has(dir)) return
  if (depth > MAX_DEPTH) throw tooMuch(`directories deeper than ${MAX_DEPTH} levels`)
  seen.add(dir)
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const dirent of entries) {
    if (--budget.left < 0) throw tooMuch(`more than ${MAX_ENTRIES.toLocaleString('en-US')} entries`)
    const found = follow(root, dir, dirent.name, 'file')
    if (found === undefined) continue
    let isDirectory: boolean
    try {
      isDirectory = fs.statSync(path.join(dir, dirent.name)).isDirectory()
    } catch {
      continue
    }
    // the CLI reads a file whose name matches, and looks into every directory
    if ('unsafe' in found) {
      if (isDirectory || name.test(dirent.name)) out.push(found.unsafe)
    } else if (isDirectory) {
      walk(root, found.path, name, out, seen, depth + 1, budget)
    }
  }
}

/** The instruction files the CLI would read that lead out of the workspace or are not files. */
export function findUnsafeInstructionFiles(workspace: string, workingDirectory: string): Unsafe[] {
  const { physical: root } = workspaceRoots(workspace)
  const out: Unsafe[] = []
  const seen = new Set<string>()
  const budget = { left: MAX_ENTRIES }
  for (const dir of lookedIn(workspace, workingDirectory)) {
    let physicalDir: string
    try {
      physicalDir = fs.realpathSync(dir)
    } catch {
      continue
    }
    if (!isInside(root, physicalDir)) continue // settings.ts refuses such a working directory
    for (const file of INSTRUCTION_FILES) {
      // the CLI matches the file's name in any letter case (its directory's exactly)
      for (const named of caseVariants(root, physicalDir, file)) {
        const found = follow(root, physicalDir, named, 'file')
        if (found !== undefined && 'unsafe' in found) out.push(found.unsafe)
      }
    }
    for (const tree of INSTRUCTION_TREES) {
      const found = follow(root, physicalDir, tree.dir, 'directory')
      if (found === undefined) continue
      if ('unsafe' in found) out.push(found.unsafe)
      else walk(root, found.path, tree.name, out, seen, 0, budget)
    }
  }
  // one entry once (a parent looked in twice), in a stable order
  const unique = new Map(out.map((u) => [u.entry, u]))
  return [...unique.values()].sort((a, b) => a.entry.localeCompare(b.entry))
}

function readManifest(stashDir: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(stashDir, MANIFEST), 'utf8')) as Manifest
  } catch {
    return undefined
  }
}

function writeManifest(stashDir: string, manifest: Manifest): void {
  const file = path.join(stashDir, MANIFEST)
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(manifest), { mode: 0o600 })
  fs.renameSync(`${file}.tmp`, file)
}

/** Renames `from` to `to`; across filesystems a symlink is copied as a link, then removed. */
function move(from: string, to: string): void {
  try {
    fs.renameSync(from, to)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    const stat = fs.lstatSync(from)
    if (!stat.isSymbolicLink()) throw error
    fs.symlinkSync(fs.readlinkSync(from), to)
    fs.unlinkSync(from)
  }
}

export interface InstructionStashOptions {
  /** Called once before the first file is moved (the post step's state: post-run.ts). */
  beforeChange?: () => void
}

/**
 * Moves the unsafe instruction files aside into `stashDir` (created 0700). Returns what was
 * kept from the CLI, relative to the workspace.
 */
export function stashInstructionFiles(
  workspace: string,
  workingDirectory: string,
  stashDir: string,
  options: InstructionStashOptions = {}
): KeptInstructionFile[] {
  const unsafe = findUnsafeInstructionFiles(workspace, workingDirectory)
  if (unsafe.length === 0) return []
  const { physical: root } = workspaceRoots(workspace)
  fs.mkdirSync(stashDir, { recursive: true, mode: 0o700 })
  const manifest: Manifest = readManifest(stashDir) ?? { version: 1, workspace: root, entries: [] }
  options.beforeChange?.()
  const kept: KeptInstructionFile[] = []
  for (const item of unsafe) {
    const relative = path.relative(root, item.entry)
    const entry: StashEntry = {
      original: item.entry,
      stashed: `entry-${manifest.entries.length}`,
      relative,
      reason: item.reason
    }
    // the manifest names the entry before it moves: a crash in between leaves nothing unnamed
    manifest.entries.push(entry)
    writeManifest(stashDir, manifest)
    move(item.entry, path.join(stashDir, entry.stashed))
    kept.push({ path: relative, reason: item.reason })
  }
  return kept
}

export interface InstructionRestoreRecord {
  /** A stash was there. */
  found: boolean
  restored: string[]
  /** `<path>: why`, for each file that could not be put back (it stays in the stash). */
  failed: string[]
}

/**
 * Puts the files moved aside back where they were, as they were (the link itself). A place the
 * session filled meanwhile, or whose directory now leads out of the workspace, is left alone and
 * reported; the stash then stays. Without failures the stash is removed.
 */
export function restoreInstructionFiles(stashDir: string): InstructionRestoreRecord {
  const manifest = readManifest(stashDir)
  if (manifest === undefined) return { found: false, restored: [], failed: [] }
  const restored: string[] = []
  const failed: string[] = []
  for (const entry of [...manifest.entries].reverse()) {
    const stashed = path.join(stashDir, entry.stashed)
    try {
      fs.lstatSync(stashed)
    } catch {
      continue // put back already
    }
    try {
      const parent = fs.realpathSync(path.dirname(entry.original))
      if (!isInside(manifest.workspace, parent)) {
        failed.push(`${entry.relative}: its directory now leads out of the workspace`)
        continue
      }
      const there = fs.lstatSync(entry.original, { throwIfNoEntry: false })
      if (there !== undefined) {
        failed.push(`${entry.relative}: the session put something else there`)
        continue
      }
      move(stashed, path.join(parent, path.basename(entry.original)))
      restored.push(entry.relative)
    } catch (error) {
      failed.push(`${entry.relative}: ${(error as Error).message}`)
    }
  }
  if (failed.length === 0) fs.rmSync(stashDir, { recursive: true, force: true })
  return { found: true, restored: restored.reverse(), failed }
}
