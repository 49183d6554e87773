/**
 * File path resolution and matching for `write` and `read` rules.
 *
 * A request's path is resolved against the working directory and then through every symlink
 * that exists on disk (dangling links included: a write through them lands on their target).
 * Relative globs (`src/**`) match only paths whose real location is inside the working
 * directory; absolute globs (`/tmp/**`) match absolute paths.
 */
import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs'
import path from 'node:path'
import picomatch from 'picomatch'

const MAX_SYMLINKS = 40

/** Where a requested path really is. */
export interface ResolvedPath {
  /** As requested, made absolute against the working directory and normalized (`..` removed). */
  lexical: string
  /**
   * Where a write really lands: every existing symlink followed. Both readings are given when
   * they differ: `..` after a symlink means the link target's parent to the kernel.
   */
  real: string[]
}

/** Thrown for paths that cannot be resolved (symlink loops, NUL bytes, empty). */
export class PathError extends Error {}

/**
 * Resolves `p` through the file system as the kernel would: component by component, following
 * symlinks (also dangling ones), `..` applied to the real directory reached so far. A relative
 * `p` starts at `from`, which must itself be a physical path.
 */
export function physicalPath(p: string, from = '/'): string {
  const queue = p.split('/').filter((c) => c.length > 0)
  let current = path.isAbsolute(p) ? '/' : from
  let links = 0
  let exists = true
  // `current` stays absolute and normalized: joining is concatenation (path.join normalizes again)
  for (let i = 0; i < queue.length; i++) {
    const component = queue[i] as string
    if (component === '.') continue
    if (component === '..') {
      current = path.dirname(current)
      continue
    }
    const next = current === '/' ? `/${component}` : `${current}/${component}`
    if (!exists) {
      current = next
      continue
    }
    let stat: Stats | undefined
    try {
      // throwIfNoEntry: most paths asked about do not exist, and a thrown error costs ~10 µs
      stat = lstatSync(next, LSTAT_OPTIONS)
    } catch {
      stat = undefined // ENOTDIR, EACCES: nothing below it can be followed either
    }
    if (stat === undefined) {
      exists = false
      current = next
      continue
    }
    if (stat.isSymbolicLink()) {
      if (++links > MAX_SYMLINKS) throw new PathError(`too many symlinks resolving ${p}`)
      let target: string
      try {
        target = readlinkSync(next)
      } catch {
        // unreadable (EACCES, /proc/<other pid>/root): nothing below it can be followed
        exists = false
        current = next
        continue
      }
      queue.splice(i + 1, 0, ...target.split('/').filter((c) => c.length > 0))
      if (path.isAbsolute(target)) current = '/'
      continue
    }
    current = next
    // A link led into a process's /proc directory (`/dev/fd` is `/proc/self/fd`): that is the
    // engine's own, not the opening command's, so nothing below it is followed (no
    // `/dev/fd/../cwd/..` through the engine's working directory, no engine's descriptor behind
    // `/dev/stdin`). A descriptor is the command's own: `/dev/fd/N`.
    if (links > 0 && PROCESS_DIR.test(current)) {
      const rest = queue.slice(i + 1)
      if (rest.length === 2 && rest[0] === 'fd' && /^\d+$/.test(rest[1] ?? '')) {
        return `/dev/fd/${rest[1]}`
      }
      return rest.length === 0 ? current : `${current}/${rest.join('/')}`
    }
  }
  return current
}

/** A process's own directory in /proc. */
const PROCESS_DIR = /^\/proc\/(?:self|thread-self|\d+)$/

const LSTAT_OPTIONS = { throwIfNoEntry: false } as const

/** The working directory's own real path (it may itself be reached through a symlink). */
export function realDirectory(dir: string): string {
  try {
    return realpathSync(dir)
  } catch {
    return path.resolve(dir)
  }
}

/**
 * physicalPath for a path that may lie in a directory whose physical path is already known
 * (the working directory: `lexicalRoot` is how it is spelled, `realRoot` its realpath): only
 * the components below it are looked up. Same answer as physicalPath(p), fewer lstat calls.
 */
export function physicalPathUnder(p: string, lexicalRoot: string, realRoot: string): string {
  for (const root of [lexicalRoot, realRoot]) {
    if (p === root) return realRoot
    if (p.startsWith(root) && p[root.length] === '/') {
      return physicalPath(p.slice(root.length + 1), realRoot)
    }
  }
  return physicalPath(p)
}

export function resolveRequestPath(
  requested: string,
  workingDirectory: string,
  physical: (p: string) => string = physicalPath
): ResolvedPath {
  if (requested.length === 0) throw new PathError('empty path')
  if (requested.includes('\0')) throw new PathError('path contains a NUL byte')
  const base = path.resolve(workingDirectory)
  const lexical = path.resolve(base, requested)
  const joined = path.isAbsolute(requested) ? requested : `${base}/${requested}`
  const resolved = physical(lexical)
  const real = new Set([resolved, joined === lexical ? resolved : physical(joined)])
  return { lexical, real: [...real] }
}

/** `p` relative to `dir` when inside it (`''` for `dir` itself), else undefined. */
export function inside(dir: string, p: string): string | undefined {
  const rel = path.relative(dir, p)
  if (rel === '') return ''
  if (rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return undefined
  return rel
}

export const MATCH_OPTIONS: picomatch.PicomatchOptions = {
  dot: true,
  nonegate: true,
  strictSlashes: true
}

/**
 * What `picomatch(pattern, options)` answers, without the result object its matcher builds on
 * every call (a third of a write decision): for options without `format`, `matchBase`,
 * `basename`, `windows` or `ignore`, picomatch's test is "not empty, and equal to the pattern or
 * matched by its regex". Used for file globs and URL path globs.
 */
export function pathMatcher(
  pattern: string,
  options: picomatch.PicomatchOptions = MATCH_OPTIONS
): (p: string) => boolean {
  const regex = picomatch.makeRe(pattern, options)
  if (options.nocase === true) {
    const lower = pattern.toLowerCase()
    return (p) => p !== '' && (p.toLowerCase() === lower || regex.test(p))
  }
  return (p) => p !== '' && (p === pattern || regex.test(p))
}

export interface PathGlob {
  source: string
  absolute: boolean
  /** The glob's literal leading directories (`src/gen` for `src/gen/**`), '' when none. */
  base: string
  /** Matches regardless of letter case (deny rules: case-insensitive file systems). */
  nocase: boolean
  /** For absolute globs: the pattern, and the pattern rebased onto its base's real path. */
  matchers: Array<(p: string) => boolean>
  /**
   * For a glob that matches everything below a directory (`**`, `src/**`, `/tmp/**`, a glob
   * ending in `/**` then `/*`): matchers for that directory itself (`.` for the root), which
   * `read` rules also cover. Empty for other globs.
   */
  treeRoots: Array<(p: string) => boolean>
}

/** Endings that make a glob match every path below the directory before them. */
const TREE_SUFFIXES = ['/**', '/**/*']

/**
 * The matchers for the directory a glob matches the whole tree below (see PathGlob.treeRoots):
 * `src/**` → `src`, `**` → the root (`.`), `/**` → `/`, `a/*` then `/**` → `a/*`.
 */
function treeRootMatchers(
  pattern: string,
  options: picomatch.PicomatchOptions
): Array<(p: string) => boolean> {
  if (pattern === '**' || pattern === '**/*') return [(p) => p === '.']
  const suffix = TREE_SUFFIXES.find((s) => pattern.endsWith(s))
  if (suffix === undefined) return []
  const dir = pattern.slice(0, -suffix.length)
  if (dir === '') return [(p) => p === '/']
  // the root only through `**` (picomatch's `?` matches `.`, and `?/**` is not the root's tree)
  const matcher = pathMatcher(dir, options)
  const named = (p: string) => p !== '.' && matcher(p)
  // `a/**/**` is everything below `a/**` and `a/**` itself: so also `a`
  return [named, ...treeRootMatchers(dir, options)]
}

/**
 * Compiles a `write`/`read` glob. With `nocase` (deny rules) it matches whatever the letter case:
 * on macOS and Windows runners `.GIT/hooks/x` is `.git/hooks/x`, and a glob matched only as
 * written would let the agent write a protected file by spelling it differently.
 */
export function compilePathGlob(source: string, nocase = false): PathGlob {
  let pattern = source
  while (pattern.startsWith('./')) pattern = pattern.slice(2)
  const absolute = path.isAbsolute(pattern)
  const options = nocase ? { ...MATCH_OPTIONS, nocase: true } : MATCH_OPTIONS
  const matchers = [pathMatcher(pattern, options)]
  const treeRoots = treeRootMatchers(pattern, options)
  const { base } = picomatch.scan(pattern)
  if (absolute) {
    // `/tmp/**` must also match `/private/tmp/x` where /tmp is a symlink to /private/tmp
    if (base.length > 0) {
      let realBase: string | undefined
      try {
        realBase = realpathSync(base)
      } catch {
        realBase = undefined
      }
      if (realBase !== undefined && realBase !== base) {
        const rebased = realBase + pattern.slice(base.length)
        matchers.push(pathMatcher(rebased, options))
        treeRoots.push(...treeRootMatchers(rebased, options))
      }
    }
  }
  return { source, absolute, base, nocase, matchers, treeRoots }
}

/** A path as globs see it: absolute, and relative to the root (`.` for the root) when inside. */
export interface SubjectPath {
  absolute: string
  relative: string | undefined
}

/**
 * `inside` for paths that are absolute and normalized (path.resolve, physicalPath, realpath
 * output): a prefix test instead of path.relative, which resolves both paths again.
 */
function insideNormalized(dir: string, p: string): string | undefined {
  if (process.platform === 'win32') return inside(dir, p)
  if (p === dir) return ''
  const prefix = dir.endsWith('/') ? dir : `${dir}/`
  return p.startsWith(prefix) ? p.slice(prefix.length) : undefined
}

/** `p` and `root` must be absolute and normalized. */
export function subjectPath(p: string, root: string): SubjectPath {
  const rel = insideNormalized(root, p)
  return { absolute: p, relative: rel === '' ? '.' : rel }
}

/** Whether the glob matches the path: relative globs see the path relative to the root only. */
export function pathGlobMatchesSubject(glob: PathGlob, p: SubjectPath): boolean {
  if (glob.absolute) return glob.matchers.some((m) => m(p.absolute))
  const subject = p.relative
  return subject !== undefined && glob.matchers.some((m) => m(subject))
}

/**
 * Whether `p` is the directory below which the glob matches everything (`src` for `src/**`, the
 * root for `**`). A `read` of that directory (listing it, viewing the working directory) is
 * within what the glob grants or refuses, so `read` rules match it too; `write` rules do not.
 */
export function pathGlobMatchesTreeRoot(glob: PathGlob, p: SubjectPath): boolean {
  if (glob.treeRoots.length === 0) return false
  const subject = glob.absolute ? p.absolute : p.relative
  return subject !== undefined && glob.treeRoots.some((m) => m(subject))
}

/**
 * Whether the glob may match `p` or any path below it (a recursive write such as `rm -r p`):
 * true unless the glob's literal base lies beside `p` (neither inside it nor above it).
 */
export function pathGlobMayMatchUnder(glob: PathGlob, p: SubjectPath): boolean {
  if (pathGlobMatchesSubject(glob, p)) return true
  const subject = glob.absolute ? p.absolute : p.relative
  if (subject === undefined) return false
  if (subject === '.' || glob.base === '') return true
  const fold = (s: string) => (glob.nocase ? s.toLowerCase() : s)
  const a = fold(subject)
  const b = fold(glob.base)
  return a === b || b.startsWith(a.endsWith('/') ? a : `${a}/`) || a.startsWith(`${b}/`)
}
