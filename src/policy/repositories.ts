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
    if (path.basename(words[0]?.text ?? '') !== 'git') continue
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
        const has = (name: string) => statOf(path.join(d, name)) !== undefined
        if (has('.git') || (has('HEAD') && (has('config') || has('objects') || has('refs')))) {
          return `git would run in ${rel}, which holds a repository's files: its config and attributes are not the checkout's (name the exact command in an allow rule to run it)`
        }
      }
    }
  }
  return undefined
}
