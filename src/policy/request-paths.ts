/**
 * What the engine knows of the paths a request names, beside the rules: the file system's facts
 * (lstat without throwing, trees below a directory, hard links), the words' expansions (tilde,
 * loop variables, numbers) and the shapes of commands that make links before they write.
 */
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs'
import os from 'node:os'
import picomatch from 'picomatch'
import type { SubjectPath } from './paths.js'
import { mayMakeLinks } from './programs/index.js'
import { homeDirectory } from './readable.js'
import type { ShellCommand, ShellItem } from './shell/analysis.js'
import type { ShellWord } from './shell-word.js'

/** lstat without throwing: undefined when the path does not exist or cannot be read. */
export function statOf(p: string): Stats | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/**
 * Whether a glob or brace pattern (a word's source text) can match a repository's git config,
 * from the working directory or from a `.git` directory a `cd` led to.
 */
export function mayNameGitConfig(pattern: string, bases: string[]): boolean {
  let re: RegExp
  try {
    re = picomatch.makeRe(pattern.replace(/^\.\//, ''), { dot: true, nocase: true })
  } catch {
    return true
  }
  const inGitDir = bases.some((b) => /(?:^|\/)\.git$/i.test(b))
  return (
    re.test('.git/config') ||
    re.test('.git/modules/m/config') ||
    (inGitDir && (re.test('config') || re.test('modules/m/config')))
  )
}

/** What a recursive write knows of the tree below its target (a ShellItem's write fields). */
export interface TreeSource {
  removes?: boolean
  from?: ShellWord[]
}

/** Entries below a directory the engine looks at before it gives up (then: anything may be). */
const MAX_TREE_ENTRIES = 100000

/**
 * The paths below an existing directory, relative to it, without following symlinks (`rm -r`
 * and `cp -r` do not descend through them); undefined when there are too many.
 */
export function walkTree(dir: string): string[] | undefined {
  const out: string[] = []
  const pending: string[] = ['']
  while (pending.length > 0) {
    const rel = pending.pop() as string
    let entries: Dirent[]
    try {
      entries = readdirSync(rel === '' ? dir : `${dir}/${rel}`, { withFileTypes: true })
    } catch {
      continue
    }
    for (const entry of entries) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`
      out.push(child)
      if (out.length > MAX_TREE_ENTRIES) return undefined
      if (entry.isDirectory()) pending.push(child)
    }
  }
  return out
}

/** Whether `p` is an existing directory (not a symlink to one: `p` is physical). */
export function isDirectory(p: string): boolean {
  return statOf(p)?.isDirectory() === true
}

/** Whether `p` exists and is not a directory. */
export function isExistingFile(p: string): boolean {
  const stat = statOf(p)
  return stat !== undefined && !stat.isDirectory()
}

/** An existing regular file with more than one name. */
export function hardLinked(p: string): boolean {
  const stat = statOf(p)
  return stat !== undefined && stat.isFile() && stat.nlink > 1
}

/** /proc's link to the reading process itself. */
export const SELF_PROC = /^\/proc\/(?:thread-)?self(?:\/|$)/

/** A `.git` directory or a path inside one (relative to the working directory). */
export const GIT_DIRECTORY = /(?:^|\/)\.git(?:\/|$)/i

/** Expansions whose value is a number: `$?`, `$#`, `$$`, `$!`, `${#x}`, `$((…))`, `$PPID`, … */
export const NUMERIC_EXPANSION =
  /\$(?:[?#$!]|\{#[A-Za-z_][A-Za-z0-9_]*\}|\(\([^()`$]*\)\)|\{?(?:PPID|BASHPID|RANDOM|SRANDOM|LINENO|SECONDS|UID|EUID)\}?(?![A-Za-z0-9_]))/g

/**
 * A word's text with the variables of the loops around it replaced by each word they iterate
 * over (`"$f"` in `for f in src/*.ts` is `src/*.ts`); other expansions stay.
 */
export function loopSubstitutions(
  text: string,
  loops: Readonly<Record<string, string[]>>
): string[] {
  let out = [text]
  for (const [name, values] of Object.entries(loops)) {
    const re = new RegExp(`\\$\\{${name}\\}|\\$${name}(?![A-Za-z0-9_])`, 'g')
    if (!re.test(text)) continue
    out = out.flatMap((t) => values.map((v) => t.replace(re, () => v)))
    if (out.length > 256) return [text]
  }
  return out
}

/** The first command in the request that may create or move a symlink, or undefined. */
export function linkMaker(items: ShellItem[]): ShellCommand | undefined {
  for (const item of items) {
    if (item.type !== 'command') continue
    const words = item.command.words
    if (mayMakeLinks(words)) return item.command
  }
  return undefined
}

/**
 * Whether the request writes a file through a command other than `command` (or a redirection),
 * or reads one through an input redirection.
 */
export function writesBesides(items: ShellItem[], command: ShellCommand): boolean {
  let owner: ShellCommand | undefined
  for (const item of items) {
    if (item.type === 'command') owner = item.command
    else if (item.type === 'write' && owner !== command) return true
    else if (item.type === 'write' && !item.text.includes(':'))
      return true // a redirection
    else if (item.type === 'read') return true // a link made first is read through
  }
  return false
}

/**
 * A word's tilde expansion: `~`, `~/x` and `~me/x` (the user running the command) are HOME;
 * another user's `~name`, `~+` and `~-` are only known when the command runs (undefined).
 */
export function expandTilde(text: string, tilde: boolean): string | undefined {
  if (!tilde) return text
  const m = /^~([^/]*)(.*)$/s.exec(text)
  if (m === null) return text
  let me: string | undefined
  try {
    me = os.userInfo().username
  } catch {
    me = undefined
  }
  return m[1] === '' || m[1] === me ? homeDirectory() + (m[2] as string) : undefined
}

/** A path below `p`, named so that only globs covering all of `p`'s subtree match it. */
export function below(p: SubjectPath): SubjectPath {
  const name = '\u0000subtree'
  return {
    absolute: `${p.absolute}/${name}`,
    relative:
      p.relative === undefined ? undefined : p.relative === '.' ? name : `${p.relative}/${name}`
  }
}
