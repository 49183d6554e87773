/**
 * What the repository's names point at: HEAD, the loose refs under `refs/` and `packed-refs`.
 * A commit made behind the audit's back (git plumbing in a test script) changes no file of the
 * work tree, but a later `git reset --hard`, `git checkout` or `git push --tags` takes what a
 * moved branch or a new tag names. So the refs are read before the agent works and after, each
 * name's commit compared (where it is stored does not matter: git's own `pack-refs` moves loose
 * refs into `packed-refs`), and the files put back as they were when one differs.
 *
 * Read as regular files only (a FIFO in place of HEAD is a change, never a wait); no git runs in
 * the repository.
 */
import fs from 'node:fs'
import path from 'node:path'
import { NotRegularFile, readRegularFileIfAny } from './files.js'

/** A loose ref or HEAD is a line; packed-refs can be large. */
const MAX_REF_BYTES = 64 * 1024
const MAX_PACKED_BYTES = 256 * 1024 * 1024
/** More loose refs than this are not kept (the comparison says so). */
const MAX_LOOSE_REFS = 100_000

/** The refs of one repository, as files. */
export interface RefFiles {
  /** HEAD's content; undefined when absent. */
  head?: string
  /** packed-refs' content; undefined when absent. */
  packed?: string
  /** Loose refs by name (`refs/heads/main`) → content. */
  loose: Map<string, string>
  /** Names (HEAD, `refs/...`, packed-refs) that are not regular files, and what they are. */
  odd: Map<string, string>
  /** False when there were more loose refs than are kept. */
  complete: boolean
}

/** One name whose target changed. */
export interface RefChange {
  /** `HEAD`, `refs/heads/main`, `refs/tags/v1`. */
  name: string
  change: 'created' | 'changed' | 'deleted'
  before?: string
  after?: string
}

function text(
  file: string,
  max: number,
  name: string,
  odd: Map<string, string>
): string | undefined {
  try {
    return readRegularFileIfAny(file, max)?.toString('utf8')
  } catch (error) {
    odd.set(name, error instanceof NotRegularFile ? error.kind : String(error))
    return undefined
  }
}

/** Reads HEAD, packed-refs and the loose refs of the git directory `gitDir`. */
export function readRefFiles(gitDir: string): RefFiles {
  const odd = new Map<string, string>()
  const loose = new Map<string, string>()
  let complete = true
  const head = text(path.join(gitDir, 'HEAD'), MAX_REF_BYTES, 'HEAD', odd)
  const packed = text(path.join(gitDir, 'packed-refs'), MAX_PACKED_BYTES, 'packed-refs', odd)
  const pending = ['refs']
  while (pending.length > 0) {
    const dir = pending.pop() ?? ''
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(path.join(gitDir, dir), { withFileTypes: true })
    } catch (error) {
      if (dir === 'refs' && (error as NodeJS.ErrnoException).code === 'ENOENT') continue
      odd.set(dir, 'not a readable directory')
      continue
    }
    for (const entry of entries) {
      const name = `${dir}/${entry.name}`
      if (entry.isDirectory()) {
        pending.push(name)
        continue
      }
      // git's own lock files while it writes a ref
      if (entry.name.endsWith('.lock')) continue
      if (loose.size >= MAX_LOOSE_REFS) {
        complete = false
        break
      }
      const content = text(path.join(gitDir, name), MAX_REF_BYTES, name, odd)
      if (content !== undefined) loose.set(name, content)
    }
  }
  return {
    ...(head === undefined ? {} : { head }),
    ...(packed === undefined ? {} : { packed }),
    loose,
    odd,
    complete
  }
}

/** `packed-refs` as name → object id (peeled `^` lines and comments left out). */
export function parsePackedRefs(content: string): Map<string, string> {
  const refs = new Map<string, string>()
  for (const line of content.split('\n')) {
    const match = /^([0-9a-f]{40,64}) (refs\/\S+)$/.exec(line.trim())
    if (match?.[1] !== undefined && match[2] !== undefined) refs.set(match[2], match[1])
  }
  return refs
}

/**
 * What each name points at: a loose ref over its packed entry (as git reads them); a symbolic
 * ref (`ref: refs/...`) as its text. HEAD under its own name.
 */
export function resolvedRefs(files: RefFiles): Map<string, string> {
  const refs =
    files.packed === undefined ? new Map<string, string>() : parsePackedRefs(files.packed)
  for (const [name, content] of files.loose) refs.set(name, content.trim())
  if (files.head !== undefined) refs.set('HEAD', files.head.trim())
  for (const [name, kind] of files.odd) refs.set(name, `(${kind})`)
  return refs
}

/** The names whose target differs between two readings (sorted by name). */
export function compareRefs(before: RefFiles, after: RefFiles): RefChange[] {
  const a = resolvedRefs(before)
  const b = resolvedRefs(after)
  const changes: RefChange[] = []
  for (const [name, target] of b) {
    const was = a.get(name)
    if (was === undefined) changes.push({ name, change: 'created', after: target })
    else if (was !== target) changes.push({ name, change: 'changed', before: was, after: target })
  }
  for (const [name, target] of a) {
    if (!b.has(name)) changes.push({ name, change: 'deleted', before: target })
  }
  return changes.sort((x, y) => x.name.localeCompare(y.name))
}

/** Writes `content` to `file` in place of whatever is there (never through a link): a new file, renamed over. */
function replaceFile(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const next = `${file}.autopilot-${process.pid}`
  fs.rmSync(next, { recursive: true, force: true })
  fs.writeFileSync(next, content, { flag: 'wx', mode: 0o644 })
  try {
    fs.renameSync(next, file)
  } catch {
    // a directory in its place
    fs.rmSync(file, { recursive: true, force: true })
    fs.renameSync(next, file)
  }
}

/**
 * Puts HEAD, packed-refs and the loose refs back as `before` had them: every loose ref that was
 * not there is removed (and a directory standing where one was), every one that was is written
 * again. Returns what could not be done, or undefined.
 */
export function restoreRefFiles(gitDir: string, before: RefFiles): string | undefined {
  const failed: string[] = []
  const attempt = (what: string, action: () => void): void => {
    try {
      action()
    } catch (error) {
      failed.push(`${what}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  const refsDir = path.join(gitDir, 'refs')
  try {
    if (fs.lstatSync(refsDir).isSymbolicLink()) fs.rmSync(refsDir, { force: true })
  } catch {
    // absent
  }
  const now = readRefFiles(gitDir)
  for (const name of new Set([...now.loose.keys(), ...now.odd.keys()])) {
    if (name === 'HEAD' || name === 'packed-refs' || before.loose.has(name)) continue
    attempt(name, () => fs.rmSync(path.join(gitDir, name), { recursive: true, force: true }))
  }
  for (const [name, content] of before.loose) {
    if (now.loose.get(name) === content) continue
    attempt(name, () => replaceFile(path.join(gitDir, name), content))
  }
  if (before.packed === undefined) {
    attempt('packed-refs', () =>
      fs.rmSync(path.join(gitDir, 'packed-refs'), { recursive: true, force: true })
    )
  } else if (now.packed !== before.packed || now.odd.has('packed-refs')) {
    const packed = before.packed
    attempt('packed-refs', () => replaceFile(path.join(gitDir, 'packed-refs'), packed))
  }
  if (before.head !== undefined && (now.head !== before.head || now.odd.has('HEAD'))) {
    const head = before.head
    attempt('HEAD', () => replaceFile(path.join(gitDir, 'HEAD'), head))
  }
  return failed.length === 0 ? undefined : failed.join('; ')
}
