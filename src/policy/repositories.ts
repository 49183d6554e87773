/**
 * Every git repository in the tree but the checkout's own is untrusted configuration (issue 30):
 * git obeys the config and attributes of the repository it runs in.
 */
import path from 'node:path'
import { inside } from './paths.js'
import { statOf } from './request-paths.js'
import type { ShellItem } from './shell/analysis.js'
import type { ShellWord } from './shell-word.js'

/**
 * Whether a directory is (or holds) a git repository the way git recognises one: a `.git`
 * entry (a directory, or a file with `gitdir:`), or a git directory laid out as ordinary files —
 * a `HEAD` with a `commondir` file (a linked worktree's git directory: the config and objects
 * are the common directory's), or with `config`, `objects` or `refs`, or `objects` with `refs`.
 */
export function holdsRepository(d: string): boolean {
  const has = (name: string): boolean => statOf(path.join(d, name)) !== undefined
  if (has('.git')) return true
  if (has('HEAD') && (has('commondir') || has('config') || has('objects') || has('refs')))
    return true
  return has('objects') && has('refs')
}

/**
 * Why a git command runs in a repository other than the checkout's own, or undefined: its
 * working directory (after the request's `cd`s, and `-C DIR`) lies in a directory, below the
 * working directory, that holds a repository's files — a `.git` entry (a nested checkout, a
 * submodule) or a bare repository committed as ordinary files (`HEAD` beside `config` or
 * `objects`). git obeys that repository's config and attributes (a `textconv`, a pager, an
 * external diff): untrusted configuration, allowed only by a rule naming the exact command.
 */
export function untrustedRepository(
  items: ShellItem[],
  bases: string[] | undefined,
  physical: (p: string) => string,
  realRoot: string
): string | undefined {
  if (bases === undefined) return undefined
  for (const item of items) {
    if (item.type !== 'command') continue
    const words = item.command.words
    const program = path.basename(words[0]?.text ?? '')
    const config = foreignBuildConfig(program, bases, physical, realRoot)
    if (config !== undefined) return config
    if (program !== 'git') continue
    const dirs = [...bases]
    for (let i = 1; i < words.length; i++) {
      const w = words[i] as ShellWord
      if (!w.literal || !w.text.startsWith('-')) break
      if (w.text === '-C' && words[i + 1]?.literal === true) {
        const d = (words[++i] as ShellWord).text
        for (const b of [...dirs]) dirs.push(path.resolve(b, d))
      }
    }
    for (const dir of dirs) {
      let real: string
      try {
        real = physical(dir)
      } catch {
        continue
      }
      for (let d = real; inside(realRoot, d) !== undefined && d !== realRoot; d = path.dirname(d)) {
        const rel = path.relative(realRoot, d)
        if (rel === '.git' || rel.startsWith('.git/')) continue
        if (holdsRepository(d)) {
          return `git would run in ${rel}, which holds a repository's files: its config and attributes are not the checkout's (name the exact command in an allow rule to run it)`
        }
      }
    }
  }
  return undefined
}

/** Programs that read their build file from the working directory, and its names. */
const BUILD_FILES: Readonly<Record<string, readonly string[]>> = {
  make: ['GNUmakefile', 'makefile', 'Makefile'],
  gmake: ['GNUmakefile', 'makefile', 'Makefile']
}

/**
 * Why a build tool run after a `cd` (`cd vendor/x && make test`) obeys a build file other than
 * the checkout's own, or undefined: its working directory is not the checkout's root and holds
 * one. Like `make -C DIR` or `make -f FILE`, that file's recipes are code the rules never saw.
 */
function foreignBuildConfig(
  program: string,
  bases: readonly string[],
  physical: (p: string) => string,
  realRoot: string
): string | undefined {
  const files = BUILD_FILES[program]
  if (files === undefined) return undefined
  for (const dir of bases) {
    let real: string
    try {
      real = physical(dir)
    } catch {
      continue
    }
    if (real === realRoot) continue
    const file = files.find((f) => statOf(path.join(real, f)) !== undefined)
    if (file !== undefined) {
      const where = inside(realRoot, real) !== undefined ? path.relative(realRoot, real) : real
      return `${program} would run in ${where}, whose ${file} is not the checkout's: its recipes run code the rules never saw (name the exact command in an allow rule to run it)`
    }
  }
  return undefined
}
