/**
 * What a path operand reads, whatever its spelling (issue 30): the engine judges the paths on
 * disk, not the word as written.
 *
 * - HOME has one judgement: `~`, `~me` (the same user), `$HOME`, `${HOME}`, `"$HOME"` all become
 *   the literal path, which the read allowlist judges (HOME is unreadable unless a rule names a
 *   path in it). A variable the engine cannot resolve is a read of something unknown.
 * - A glob is every path it can match on disk now: it is expanded against the file system (braces
 *   too), and each match, symlinks followed, is judged as the literal path. Beyond a cap it is a
 *   read of something unknown.
 * - A recursive reader that follows symlinks (`grep -R`, `rg -L`, `diff -r`, `ls -RL`, `find -L`,
 *   `cp -rL`, `tar -h`, `du -L`, `zip -r`, …) over a tree reads what the tree's links lead to:
 *   each link that leaves the working directory is judged as a read of its target. Plain
 *   `grep -r` does not follow links inside the tree and reads the tree alone.
 */
import { lstatSync, readdirSync, realpathSync, statSync, type Dirent } from 'node:fs'
import path from 'node:path'
import picomatch from 'picomatch'
import { namedPaths, pathOperands } from './programs/index.js'
import { homeDirectory } from './readable.js'
import { NUMERIC_EXPANSION, expandTilde, loopSubstitutions } from './request-paths.js'
import { literalWord, type ShellWord } from './shell-word.js'

/** Paths a glob may match, and directories it may list, before it counts as unknown. */
export const GLOB_CAP = 2000

/** Entries of the trees a link-following reader walks before the tree counts as unknown. */
export const TREE_CAP = 100000

/**
 * `~`, `~/x`, `~me/x` (the running user: HOME) as a path; undefined for another user's `~name`,
 * `~+` and `~-` (only known when the command runs).
 */
export function tildePath(text: string): string | undefined {
  return expandTilde(text, text.startsWith('~'))
}

/** `$HOME` and `${HOME}` anywhere in a word's text. */
const HOME_EXPANSION = /\$\{HOME\}|\$HOME(?![A-Za-z0-9_])/g

/** What remains an expansion (a variable, a command substitution): unknown until run time. */
const EXPANSION = /[$`]/

/**
 * The values a word can have before globbing: HOME, numbers and loop variables substituted, a
 * leading tilde expanded. Undefined when an expansion the engine cannot resolve remains.
 */
export function knownValues(
  word: ShellWord,
  loops: Readonly<Record<string, string[]>>
): string[] | undefined {
  const home = homeDirectory()
  if (word.literal) {
    const v = word.tilde ? tildePath(word.text) : word.text
    return v === undefined ? undefined : [v]
  }
  const known = word.text.replace(NUMERIC_EXPANSION, '1').replace(HOME_EXPANSION, () => home)
  const out: string[] = []
  for (const value of loopSubstitutions(known, loops)) {
    if (EXPANSION.test(value)) return undefined
    const v = word.tilde ? tildePath(value) : value
    if (v === undefined) return undefined
    out.push(v)
  }
  return out
}

/** Whether a value (after expansions) is a glob or brace pattern. */
export function isPattern(value: string): boolean {
  return /[*?[]|[@!+*?]\(|\{[^}]*(?:,|\.\.)[^}]*\}/.test(value)
}

/** Bash's brace expansion of a value (`{a,b}`, `{1..3}`, nested); undefined beyond the cap. */
export function expandBraces(value: string, cap = GLOB_CAP): string[] | undefined {
  let out = [value]
  for (let round = 0; round < 64; round++) {
    const next: string[] = []
    let changed = false
    for (const v of out) {
      const parts = firstBrace(v)
      if (parts === undefined) {
        next.push(v)
        continue
      }
      changed = true
      for (const alt of parts.alternatives) next.push(parts.before + alt + parts.after)
      if (next.length > cap) return undefined
    }
    out = next
    if (!changed) return out
  }
  return undefined
}

function firstBrace(
  v: string
): { before: string; alternatives: string[]; after: string } | undefined {
  for (let start = v.indexOf('{'); start >= 0; start = v.indexOf('{', start + 1)) {
    let depth = 0
    const commas: number[] = []
    for (let i = start; i < v.length; i++) {
      const c = v[i]
      if (c === '{') depth++
      else if (c === '}' && --depth === 0) {
        const body = v.slice(start + 1, i)
        const before = v.slice(0, start)
        const after = v.slice(i + 1)
        if (commas.length > 0) {
          const alternatives: string[] = []
          let from = start + 1
          for (const comma of commas) {
            alternatives.push(v.slice(from, comma))
            from = comma + 1
          }
          alternatives.push(v.slice(from, i))
          return { before, alternatives, after }
        }
        const range = sequence(body)
        if (range !== undefined) return { before, alternatives: range, after }
        break
      } else if (c === ',' && depth === 1) commas.push(i)
    }
  }
  return undefined
}

/** `{1..5}`, `{a..e}`, `{0..10..2}` as their words; undefined when the body is not a sequence. */
function sequence(body: string): string[] | undefined {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body)
  if (m === null) return undefined
  const [a, b] = [m[1] as string, m[2] as string]
  const numeric = /\d/.test(a) && /\d/.test(b)
  const from = numeric ? Number(a) : a.charCodeAt(0)
  const to = numeric ? Number(b) : b.charCodeAt(0)
  const step = Math.max(1, Math.abs(Number(m[3] ?? 1)))
  const out: string[] = []
  for (let i = from; from <= to ? i <= to : i >= to; i += from <= to ? step : -step) {
    out.push(numeric ? String(i) : String.fromCharCode(i))
    if (out.length > GLOB_CAP) return out
  }
  return out
}

/**
 * The absolute paths a glob value matches on disk from `base` (symlinks followed while listing,
 * `.*` matching `.` and `..` as in some shells), or undefined beyond the cap.
 */
export function expandGlob(value: string, base: string): string[] | undefined {
  const absolute = value.startsWith('/')
  const segments = value.split('/')
  let current = [absolute ? '/' : base]
  let listed = 0
  for (let s = absolute ? 1 : 0; s < segments.length; s++) {
    const segment = segments[s] as string
    if (segment === '') continue
    const next: string[] = []
    if (!isPattern(segment)) {
      for (const dir of current) next.push(path.join(dir, segment))
    } else {
      // bash: `**` is `*` without globstar; a leading `.` in the pattern also matches `.`, `..`
      const match = picomatch(segment.replace(/\*\*+/g, '*'), { dot: true })
      for (const dir of current) {
        if (++listed > GLOB_CAP) return undefined
        let names: string[]
        try {
          names = readdirSync(dir)
        } catch {
          continue
        }
        if (segment.startsWith('.')) names.push('.', '..')
        for (const name of names) if (match(name)) next.push(path.join(dir, name))
        if (next.length > GLOB_CAP) return undefined
      }
    }
    current = next
    if (current.length === 0) return []
  }
  return current.filter((p) => exists(p))
}

function exists(p: string): boolean {
  try {
    statSync(p)
    return true
  } catch {
    return false
  }
}

/**
 * A path word's targets: the literal words the engine judges as reads (absolute when the word was
 * a pattern: each match from each base), or a reason the word reads something unknown.
 */
export function operandTargets(
  word: ShellWord,
  command: Command,
  bases: string[]
): ShellWord[] | UnknownRead {
  const loops = command.loops ?? {}
  // a process substitution is a pipe (/dev/fd/N): what runs in it is judged on its own
  if (/^[<>]\([\s\S]*\)$/.test(word.text)) return []
  // an option value attached to a dynamic word (`--random-source=${HOME}/x`, `--file=$F`)
  const attached = /^(--?[A-Za-z0-9][\w.-]*=)(.*)$/s.exec(word.text)
  if (attached !== null && !word.literal) {
    const value = attached[2] as string
    const valueWord: ShellWord = {
      text: value,
      literal: false,
      prefix: '',
      tilde: value.startsWith('~')
    }
    const targets = operandTargets(valueWord, { words: [valueWord], loops }, bases)
    // an unknown option value is a file only when it looks like a path
    if (!Array.isArray(targets)) return value.includes('/') ? targets : []
    return targets.filter((t) => /^[/~.]|\.\.|\//.test(t.text))
  }
  const values = knownValues(word, loops)
  // a program's operand the engine does not know to be a file is one when it looks like a path
  if (
    values === undefined &&
    !word.text.includes('/') &&
    !pathOperands(command.words).includes(word)
  )
    return []
  if (values === undefined) {
    return unknownRead(
      `"${word.text}" is a file name only known when the command runs: the policy cannot see what it reads`,
      'dynamic-path'
    )
  }
  const out: ShellWord[] = []
  for (const value of values) {
    if (word.literal || !isPattern(value)) {
      out.push(literalWord(value))
      continue
    }
    const alternatives = expandBraces(value)
    if (alternatives === undefined)
      return unknownRead(`"${word.text}" expands to too many words to judge`)
    for (const alternative of alternatives) {
      if (!isPattern(alternative)) {
        out.push(literalWord(alternative))
        continue
      }
      for (const base of alternative.startsWith('/') ? [bases[0] as string] : bases) {
        const matches = expandGlob(alternative, base)
        if (matches === undefined) {
          return unknownRead(
            `"${word.text}" can match more files than the policy checks (${GLOB_CAP}): it reads something unknown`
          )
        }
        for (const m of matches) out.push(literalWord(m))
        if (out.length > GLOB_CAP) {
          return unknownRead(
            `"${word.text}" can match more files than the policy checks (${GLOB_CAP}): it reads something unknown`
          )
        }
      }
    }
  }
  return out
}

/** A simple command: its words, and the values its loops give their variables. */
export interface Command {
  words: ShellWord[]
  loops?: Readonly<Record<string, string[]>>
}

/** Whether a word is one of the bundled short options matching `letters` or a long `names`. */
function flag(words: readonly ShellWord[], letters: string, names: RegExp): boolean {
  const short = new RegExp(`^-[A-Za-z0-9]*[${letters}]`)
  return words
    .slice(1)
    .some((w) => w.literal && (w.text.startsWith('--') ? names.test(w.text) : short.test(w.text)))
}

/**
 * Whether a command reads whole trees through the symlinks inside them (`grep -R`,
 * `--dereference-recursive`, `rg -L`, `diff -r`, `ls -RL`, `find -L`, `cp -rL`, `tar -h`, …).
 */
export function followsLinksInTrees(words: readonly ShellWord[]): boolean {
  const program = path.basename(words[0]?.text ?? '')
  const recursive = () => flag(words, 'rR', /^--recursive$/)
  switch (program) {
    case 'grep':
    case 'egrep':
    case 'fgrep':
      return flag(words, 'R', /^--dereference-recursive$/)
    case 'rg':
    case 'fd':
    case 'fdfind':
      return flag(words, 'L', /^--follow$/)
    case 'ag':
      return flag(words, 'f', /^--follow$/)
    case 'ack':
      return flag(words, '', /^--follow$/)
    case 'diff':
      return recursive() && !flag(words, '', /^--no-dereference$/)
    case 'ls':
      return flag(words, 'R', /^--recursive$/) && flag(words, 'L', /^--dereference$/)
    case 'cp':
    case 'rsync':
      return (
        flag(words, 'rRa', /^--(?:recursive|archive)$/) &&
        flag(words, 'L', /^--(?:dereference|copy-links)$/)
      )
    case 'find':
      return words.some((w) => w.literal && /^-(?:L|follow)$/.test(w.text))
    case 'du':
    case 'tree':
      return flag(words, program === 'du' ? 'L' : 'l', /^--(?:dereference|follow)$/)
    case 'tar':
    case 'bsdtar':
      return (
        flag(words, 'h', /^--dereference$/) ||
        (words[1]?.literal === true && /^[A-Za-z]*h/.test(words[1].text))
      )
    case 'zip':
      return recursive() || flag(words, '', /^--recurse-paths$/)
        ? !flag(words, 'y', /^--symlinks$/)
        : false
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return false
    default:
      return false
  }
}

/**
 * The targets outside `root` of the symlinks in the trees below `dirs` (physical paths inside
 * `root`), links inside `root` followed; a string when the trees are too big to check.
 * A repository's `.git` directory is not walked: no commit or read-only command puts a link there.
 */
export function linksLeaving(dirs: string[], root: string): string[] | string {
  const inside = (p: string) => p === root || p.startsWith(`${root}/`)
  const out = new Set<string>()
  const seen = new Set<string>()
  const pending = dirs.filter((d) => inside(d))
  let entries = 0
  while (pending.length > 0) {
    const dir = pending.pop() as string
    if (seen.has(dir)) continue
    seen.add(dir)
    let list: Dirent[]
    try {
      list = readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    for (const entry of list) {
      if (++entries > TREE_CAP) {
        return `the tree holds more than ${TREE_CAP} entries, and a symlink in it could lead anywhere: it reads something unknown`
      }
      const child = `${dir}/${entry.name}`
      if (entry.isDirectory()) {
        if (entry.name !== '.git') pending.push(child)
      } else if (entry.isSymbolicLink()) {
        let target: string
        try {
          target = realpathSync(child)
        } catch {
          continue // dangling or a loop: nothing to read
        }
        if (!inside(target)) out.add(target)
        else if (isDirectoryPath(target)) pending.push(target)
      }
    }
  }
  return [...out]
}

function isDirectoryPath(p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

/** A read the policy cannot see (read-only denies it; the reason says why). */
export interface UnknownRead {
  decision: 'deny'
  rule: 'reads-unknown' | 'dynamic-path'
  reason: string
  matched: string[]
}

export function unknownRead(
  reason: string,
  rule: UnknownRead['rule'] = 'reads-unknown'
): UnknownRead {
  return { decision: 'deny', rule, reason, matched: [] }
}

/**
 * The targets outside `root` of the symlinks in the trees a command reads through them (its
 * directory operands, else the directories it runs in), a reason when the trees are too big to
 * check, or [] when the command does not follow links in trees. `candidates` gives a path's
 * readings (as written and physical, from each base).
 */
export function treeLinks(
  command: Command,
  bases: string[],
  root: string,
  candidates: (p: string) => string[]
): string[] | string {
  if (!followsLinksInTrees(command.words)) return []
  const trees = namedPaths(command.words)
    .flatMap((w) => {
      const targets = operandTargets(w, command, bases)
      return Array.isArray(targets) ? targets : [] // judged as an unknown read already
    })
    .flatMap((t) => candidates(t.text))
    .filter((p) => isDirectoryPath(p) && !lstatSync(p).isSymbolicLink())
  return linksLeaving(trees.length > 0 ? trees : candidates('.'), root)
}
