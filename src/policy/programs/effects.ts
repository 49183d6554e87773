/**
 * What a program does beyond its name (CommandEffect), the helpers that build effects, and what a
 * wrapper runs (Run).
 */
import type { ShellWord } from '../shell-word.js'

export type EffectProblemId =
  /** An option or operand that makes the program run other code (`sed e`, `sort --compress-program`). */
  | 'runs-code'
  /** An option or operand that makes the program reach the network (`git ls-remote`, `tar host:f`). */
  | 'network'
  /** A word only known at run time where an option with one of these effects could stand. */
  | 'dynamic-argument'
  /** The program writes files the policy cannot name before it runs (`git apply`, `patch`). */
  | 'writes-unknown'
  /**
   * The program reads files the policy cannot name before it runs: a script builds the name
   * (awk's `getline < f`, yq's `load(f)`), or a list in a file or the input gives them
   * (`--files0-from`, `xargs -a`).
   */
  | 'reads-unknown'
  /** The program would print a secret (`git config --list` and the checkout's token). */
  | 'reads-secret'

/**
 * A file a command writes (or deletes); `subtree`: and everything below it (`rm -r d`). What
 * lands below it, where known: `removes`, only what is there now (`rm -r`, a moved source);
 * `from`, the trees of these sources (`cp -r SRC DEST`). Otherwise anything may.
 */
export interface WriteTarget {
  target: ShellWord
  subtree?: boolean
  removes?: boolean
  from?: ShellWord[]
}

export type CommandEffect =
  /** A file the command writes (WriteTarget). */
  | ({ kind: 'write'; label: string } & WriteTarget)
  /** A URL the command fetches or sends to (`curl https://…`): checked against `url` rules. */
  | { kind: 'url'; label: string; target: ShellWord }
  /** A file the command reads because a script or option says so (`sed 'r f'`): `read` rules. */
  | { kind: 'read'; label: string; target: ShellWord }
  | { kind: 'problem'; id: EffectProblemId; reason: string }

export type Handler = (words: readonly ShellWord[], name: string) => CommandEffect[]

// ---------------------------------------------------------------------------------------------
// Effects and words

export function lit(text: string, tilde = false): ShellWord {
  return { text, literal: true, prefix: text, tilde }
}

export function dyn(text: string, prefix = ''): ShellWord {
  return { text, literal: false, prefix, tilde: false }
}

/**
 * A program that reads its own environment (`jq -n env`, awk's `ENVIRON`, yq's `strenv()`): the
 * same data as /proc/self/environ, judged as reading it.
 */
export function readsEnvironment(label: string): CommandEffect {
  return read(`${label} (the environment)`, lit('/proc/self/environ'))
}

/** A path word as a program run in `dir` reads it (`pnpm -C DIR exec …`): relative ones below DIR. */
export function inDirectory(word: ShellWord, dir: ShellWord): ShellWord {
  const t = word.literal ? word.text : word.prefix
  if (word.tilde || t.startsWith('/')) return word
  const text = `${dir.text.replace(/\/+$/, '')}/${word.text}`
  if (!dir.literal) return dyn(text, dir.prefix)
  if (!word.literal) return dyn(text, `${dir.text.replace(/\/+$/, '')}/${word.prefix}`)
  return lit(text, dir.tilde)
}

/** The effects of a program run in `dir`: its relative paths below DIR. */
export function inDirectoryEffects(effects: CommandEffect[], dir: ShellWord): CommandEffect[] {
  return effects.map((e) => {
    if (e.kind === 'read') return { ...e, target: inDirectory(e.target, dir) }
    if (e.kind !== 'write') return e
    const moved = { ...e, target: inDirectory(e.target, dir) }
    if (e.from !== undefined) moved.from = e.from.map((f) => inDirectory(f, dir))
    return moved
  })
}

export function write(label: string, target: ShellWord, subtree = false): CommandEffect {
  return subtree ? { kind: 'write', label, target, subtree } : { kind: 'write', label, target }
}

export function read(label: string, target: ShellWord): CommandEffect {
  return { kind: 'read', label, target }
}

export function problem(id: EffectProblemId, reason: string): CommandEffect {
  return { kind: 'problem', id, reason }
}

export function runsCode(reason: string): CommandEffect {
  return problem('runs-code', reason)
}

export function network(reason: string): CommandEffect {
  return problem('network', reason)
}

export function writesUnknown(reason: string): CommandEffect {
  return problem('writes-unknown', reason)
}

export function readsUnknown(reason: string): CommandEffect {
  return problem('reads-unknown', reason)
}

export function dynamicArgument(program: string, word: ShellWord, could: string): CommandEffect {
  return problem(
    'dynamic-argument',
    `"${word.text}" is only known when the command runs, and ${program} could read it as ${could}`
  )
}

/**
 * A response file (`@FILE`: more arguments read from FILE, as tsc and argparse's
 * fromfile_prefix_chars take it): a read of FILE, and arguments the policy cannot see.
 */
export function responseFile(program: string, text: string, could = ''): CommandEffect[] {
  const file = text.slice(1)
  return [
    read(`${program} @`, lit(file)),
    problem(
      'dynamic-argument',
      `${program} ${text} reads more arguments from ${file}, which the policy cannot see${could}`
    )
  ]
}

/**
 * Whether a word only known at run time could be an option: its known start is empty (`"$X"`
 * may expand to `-rf`) or a dash.
 */
export function mayBeOption(word: ShellWord): boolean {
  return !word.literal && (word.prefix === '' || word.prefix.startsWith('-'))
}

/** A recursive write that only removes what is there now (`rm -r`, `mv`'s sources). */
export function removal(effect: CommandEffect): CommandEffect {
  return effect.kind === 'write' && effect.subtree === true ? { ...effect, removes: true } : effect
}

/**
 * A file the command writes. A glob (`src/*.tmp`) writes files inside the directory before its
 * first wildcard: that directory, recursively. Other words only known at run time stay as they
 * are (the engine denies them as `dynamic-path`).
 */
export function fileWrite(label: string, word: ShellWord, subtree = false): CommandEffect {
  if (!word.literal) {
    const dir = globDirectory(word)
    if (dir !== undefined) return write(label, dir, true)
  }
  return write(label, word, subtree)
}

/** The directory a glob's matches are in, when the word is a plain glob that stays below it. */
export function globDirectory(word: ShellWord): ShellWord | undefined {
  const { text, prefix } = word
  if (!text.startsWith(prefix)) return undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    // expansions, braces (`src/{a,../..}`), extglobs: not a plain glob
    if (c === '$' || c === '`' || c === '{' || c === '(' || c === '\\') return undefined
  }
  const cut = prefix.lastIndexOf('/')
  const dir = cut < 0 ? '.' : cut === 0 ? '/' : prefix.slice(0, cut)
  const tail = text.slice(cut + 1)
  // `.*` matches `..` in some shells
  if (tail.startsWith('.') || tail.includes('/.')) return undefined
  return lit(dir, word.tilde && dir.startsWith('~'))
}

export function baseName(text: string): string {
  let end = text.length
  while (end > 1 && text[end - 1] === '/') end--
  const trimmed = text.slice(0, end)
  return trimmed.slice(trimmed.lastIndexOf('/') + 1)
}

export function dirName(text: string): string {
  const cut = text.lastIndexOf('/')
  return cut < 0 ? '.' : cut === 0 ? '/' : text.slice(0, cut)
}

/** `dir/name` as a word: literal when both are. */
export function joinPath(dir: ShellWord, name: string): ShellWord {
  const text = dir.text.endsWith('/') ? `${dir.text}${name}` : `${dir.text}/${name}`
  return dir.literal ? lit(text, dir.tilde) : dyn(text, dir.prefix)
}

export function isAbsolute(text: string): boolean {
  return text.startsWith('/')
}

/** A relative path that stays inside the directory it is relative to (`a/../b`, not `a/../..`). */
export function staysInside(text: string): boolean {
  if (isAbsolute(text)) return false
  let depth = 0
  for (const segment of text.split('/')) {
    if (segment === '..') depth--
    else if (segment !== '' && segment !== '.') depth++
    if (depth < 0) return false
  }
  return true
}

// ---------------------------------------------------------------------------------------------
// What a wrapper runs (wrappers.ts), and what it tells the analyzer on the way

/** Where a command changes the working directory to (`cd DIR`, `env -C DIR`). */
export type CdTarget = { kind: 'path'; word: ShellWord } | { kind: 'home' } | { kind: 'unknown' }

/** What a command runs: other words, a script to parse, or something only known at run time. */
export type Run =
  | { kind: 'words'; words: ShellWord[]; assignments?: string[] }
  | { kind: 'script'; script: ShellWord }
  | { kind: 'dynamic'; reason: string }

/** The analyzer's side of `runs`: writes and directory changes a wrapper or builtin makes. */
export interface Recorder {
  recordWrite(command: string, target: ShellWord): void
  recordCd(target: CdTarget): void
}
