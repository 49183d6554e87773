/**
 * The one option parser every program's reading uses (parseOptions), its tables, and the rows
 * they are built from.
 */
import type { ShellWord } from '../shell-word.js'
import type { OptionRow } from './program.js'
import { type CommandEffect, dyn, dynamicArgument, lit } from './effects.js'

// ---------------------------------------------------------------------------------------------
// Options

export interface OptionTable {
  /** Short options that take a value (`-o f`, `-of`). */
  shortValue?: string
  /** Short options whose value is optional and only attached (`sed -i.bak`). */
  shortOptional?: string
  /** Long options that take a value (`--output=f`, `--output f`). */
  longValue?: readonly string[]
  /** Long options whose value is optional and only attached (`--in-place=.bak`). */
  longOptional?: readonly string[]
  /** Long options without a value that an abbreviation must not be read as (exact names). */
  flags?: readonly string[]
  /** The long name of short options (`o` → `output`); options are reported by these names. */
  alias?: Readonly<Record<string, string>>
  /** Long options with an effect: their abbreviations (`--outp`) count as them. */
  effectful?: readonly string[]
  /** Short options with an effect (a run-time word `-n$X` could add one). */
  effectfulShort?: string
  /** Options end at the first operand (POSIX getopt), not only at `--` (GNU). */
  posix?: boolean
  /**
   * The table names every long option (`longValue`, `longOptional`, `flags`, `effectful`): a
   * long option is resolved as getopt_long does (a unique prefix: `--sp` is `--split-string`),
   * and one the table does not know (or an ambiguous prefix) stops the parse (`stopped`).
   */
  complete?: boolean
  /** Numeric options (`nice -10`). */
  numeric?: boolean
  /**
   * The operands start with a command (wrappers: `env`, `nice`): a word only known at run time
   * where an option could stand stops the parse (`stopped`), and any other ends the options.
   */
  command?: boolean
}

export interface Option {
  name: string
  value?: ShellWord
}

export interface Parsed {
  options: Option[]
  operands: ShellWord[]
  /** Words only known at run time that could be options with an effect. */
  unknown: ShellWord[]
  /** Index of the first operand (`posix`), or past the last word when there is none. */
  end: number
  /**
   * The parse stopped at `end` on a word it cannot read: an option a `complete` table does not
   * know, or (`command`) a word only known at run time where an option could stand.
   */
  stopped: boolean
}

/** The long option `name` abbreviates in a complete table, or undefined (unknown, ambiguous). */
function resolveComplete(table: OptionTable, name: string): string | undefined {
  const all = [
    ...(table.longValue ?? []),
    ...(table.longOptional ?? []),
    ...(table.flags ?? []),
    ...(table.effectful ?? [])
  ]
  if (all.includes(name)) return name
  const matches = all.filter((o) => o.startsWith(name))
  return matches.length === 1 ? matches[0] : undefined
}

/** The option a long name (maybe abbreviated, GNU getopt_long accepts that) stands for. */
export function resolveLong(table: OptionTable, name: string): string {
  const effectful = table.effectful ?? []
  if (
    effectful.includes(name) ||
    table.longValue?.includes(name) === true ||
    table.longOptional?.includes(name) === true ||
    table.flags?.includes(name) === true
  ) {
    return name
  }
  if (name === '') return name
  // an abbreviation of an option with an effect is read as that option, ambiguous or not
  for (const e of effectful) if (e.startsWith(name)) return e
  let found: string | undefined
  for (const v of table.longValue ?? []) {
    if (v.startsWith(name)) {
      if (found !== undefined) return name
      found = v
    }
  }
  return found ?? name
}

export function hasEffects(table: OptionTable): boolean {
  return (table.effectful?.length ?? 0) > 0 || (table.effectfulShort ?? '') !== ''
}

/** Parses GNU-style options (permuted unless `posix`), their values and the operands. */
export function parseOptions(words: readonly ShellWord[], table: OptionTable, start = 1): Parsed {
  const options: Option[] = []
  const operands: ShellWord[] = []
  const unknown: ShellWord[] = []
  const shortValue = table.shortValue ?? ''
  const shortOptional = table.shortOptional ?? ''
  const alias = table.alias ?? {}
  const effects = hasEffects(table)
  let i = start
  let end: number | undefined
  let stopped = false
  for (; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      const p = w.prefix
      if (table.command === true) {
        // `-$X` or `$X` where options may be: cannot tell what it is; else the command
        stopped = p === '' || p.startsWith('-')
        end = i
        break
      }
      if (p.startsWith('--')) {
        const body = p.slice(2)
        const eq = body.indexOf('=')
        if (eq >= 0) {
          const at = w.text.indexOf('=')
          options.push({
            name: resolveLong(table, body.slice(0, eq)),
            value: dyn(w.text.slice(at + 1), body.slice(eq + 1))
          })
        } else if ((table.effectful ?? []).some((e) => e.startsWith(body) || body.startsWith(e))) {
          unknown.push(w)
        }
        continue
      }
      if (p.startsWith('-') && p.length > 1) {
        let settled = false
        for (let j = 1; j < p.length; j++) {
          const letter = p[j] as string
          if (shortValue.includes(letter) || shortOptional.includes(letter)) {
            options.push({
              name: alias[letter] ?? letter,
              value: dyn(w.text.slice(j + 1), p.slice(j + 1))
            })
            settled = true
            break
          }
          options.push({ name: alias[letter] ?? letter })
        }
        if (!settled && (table.effectfulShort ?? '') !== '') unknown.push(w)
        continue
      }
      if (p === '' || p === '-') {
        // an option or an operand (or several words, or none): cannot tell
        if (effects) unknown.push(w)
        operands.push(w)
        if (table.posix === true) {
          end = i
          break
        }
        continue
      }
      operands.push(w)
      if (table.posix === true) {
        end = i
        break
      }
      continue
    }
    const t = w.text
    if (t === '--') {
      i++
      end = i
      break
    }
    if (t.length < 2 || !t.startsWith('-')) {
      if (table.command === true) {
        end = i
        break
      }
      operands.push(w)
      if (table.posix === true) {
        end = i
        i++
        break
      }
      continue
    }
    if (table.numeric === true && /^-\d+$/.test(t)) {
      options.push({ name: t.slice(1) })
      continue
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=')
      const written = eq < 0 ? t.slice(2) : t.slice(2, eq)
      const complete = table.complete === true ? resolveComplete(table, written) : written
      if (complete === undefined) {
        stopped = true
        end = i
        break
      }
      const name = table.complete === true ? complete : resolveLong(table, written)
      if (eq >= 0) {
        options.push({ name, value: lit(t.slice(eq + 1)) })
      } else if (table.longValue?.includes(name) === true) {
        const value = words[i + 1]
        options.push(value === undefined ? { name } : { name, value })
        i++
      } else {
        options.push({ name })
      }
      continue
    }
    for (let j = 1; j < t.length; j++) {
      const letter = t[j] as string
      const name = alias[letter] ?? letter
      if (shortValue.includes(letter)) {
        const rest = t.slice(j + 1)
        if (rest !== '') {
          options.push({ name, value: lit(rest) })
        } else {
          const value = words[i + 1]
          options.push(value === undefined ? { name } : { name, value })
          i++
        }
        break
      }
      if (shortOptional.includes(letter)) {
        const rest = t.slice(j + 1)
        options.push(rest === '' ? { name } : { name, value: lit(rest) })
        break
      }
      options.push({ name })
    }
  }
  end ??= i
  for (; i < words.length; i++) operands.push(words[i] as ShellWord)
  return { options, operands, unknown, end, stopped }
}

/**
 * The words after the program, read the GNU way by a hand-written parser: before a first `--`
 * (which is skipped), a word `isOption` accepts goes to `option` with its text (a word only known
 * at run time: its known prefix) and index, and returns how many words after it are its values;
 * every other word goes to `operand`.
 */
export function eachWord(
  words: readonly ShellWord[],
  isOption: (word: ShellWord, text: string) => boolean,
  option: (word: ShellWord, text: string, index: number) => number,
  operand: (word: ShellWord) => void
): void {
  let options = true
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (options && t === '--') {
      options = false
      continue
    }
    if (options && isOption(w, t)) i += option(w, t, i)
    else operand(w)
  }
}

export function has(parsed: Parsed, ...names: string[]): boolean {
  return parsed.options.some((o) => names.includes(o.name))
}

export function values(parsed: Parsed, ...names: string[]): ShellWord[] {
  const out: ShellWord[] = []
  for (const o of parsed.options)
    if (o.value !== undefined && names.includes(o.name)) out.push(o.value)
  return out
}

/** A dynamic-argument problem for the first unknown word, if any. */
export function unknownWords(parsed: Parsed, program: string, could: string): CommandEffect[] {
  const first = parsed.unknown[0]
  return first === undefined ? [] : [dynamicArgument(program, first, could)]
}

/** A wrapper's options (`env`, `timeout`, `sudo`): the table of `parseOptions`, POSIX order. */
export interface OptionSpec {
  /** Short options that take a value (`-n 5`, `-n5`). */
  short?: string
  /** Short options whose value is optional and only ever attached (`xargs -e[EOF]`). */
  shortOptional?: string
  /** Long options that take a value (`--signal=KILL`, `--signal KILL`). */
  long?: string[]
  /**
   * The program's long options that take no value (or only an attached `=value`). With it the
   * option table is complete: a long option is resolved as getopt_long does (a unique prefix:
   * `--sp` is `--split-string`), and one the table does not know makes the scan dynamic.
   */
  flags?: string[]
  /** Numeric options (`nice -10`). */
  numeric?: boolean
}

export interface Scan {
  /** Index of the first operand, or `args.length` when there is none. */
  index: number
  /** Options seen, with their values (`-n5` → ['n', '5']). */
  options: Array<[string, ShellWord | undefined]>
  /** A non-literal word where an option could be, or an unknown option: the rest is unknown. */
  dynamic: boolean
}

/** Skips a wrapper's options at the start of `args` (after the command name): parseOptions. */
export function scanOptions(args: ShellWord[], spec: OptionSpec, start = 1): Scan {
  const table: OptionTable = { posix: true, command: true }
  if (spec.short !== undefined) table.shortValue = spec.short
  if (spec.shortOptional !== undefined) table.shortOptional = spec.shortOptional
  if (spec.long !== undefined) table.longValue = spec.long
  if (spec.flags !== undefined) {
    table.flags = spec.flags
    table.complete = true
  }
  if (spec.numeric === true) table.numeric = true
  const parsed = parseOptions(args, table, start)
  return {
    index: parsed.end,
    options: parsed.options.map((o): [string, ShellWord | undefined] => [o.name, o.value]),
    dynamic: parsed.stopped
  }
}

/** Whether an option that does this has an effect the program's handler checks. */
const EFFECTFUL = new Set(['writes', 'runs', 'connects'])

/** A program's option table from its rows (a GNU program; `modes`: how it reads its words). */
export function optionTable(
  rows: readonly OptionRow[],
  modes: Pick<OptionTable, 'posix' | 'complete' | 'numeric' | 'command'> = {}
): OptionTable {
  const table: OptionTable = { ...modes }
  const add = (key: 'longValue' | 'longOptional' | 'flags' | 'effectful', name: string): void => {
    table[key] = [...(table[key] ?? []), name]
  }
  for (const row of rows) {
    const effectful = row.does !== undefined && EFFECTFUL.has(row.does)
    if (row.short !== undefined) {
      if (row.value === 'required') table.shortValue = (table.shortValue ?? '') + row.short
      if (row.value === 'optional') table.shortOptional = (table.shortOptional ?? '') + row.short
      if (effectful) table.effectfulShort = (table.effectfulShort ?? '') + row.short
      if (row.long !== undefined) table.alias = { ...table.alias, [row.short]: row.long }
    }
    if (row.long !== undefined) {
      if (row.value === 'required') add('longValue', row.long)
      else if (row.value === 'optional') add('longOptional', row.long)
      else add('flags', row.long)
      if (effectful) add('effectful', row.long)
    }
  }
  return table
}

/** A wrapper's option spec from its rows: every long option named, so the table is complete. */
export function optionSpec(rows: readonly OptionRow[]): OptionSpec {
  const spec: OptionSpec = { flags: [] }
  for (const row of rows) {
    if (row.short !== undefined && row.value === 'required')
      spec.short = (spec.short ?? '') + row.short
    if (row.short !== undefined && row.value === 'optional')
      spec.shortOptional = (spec.shortOptional ?? '') + row.short
    if (row.long === undefined) continue
    if (row.value === 'required') spec.long = [...(spec.long ?? []), row.long]
    else spec.flags = [...(spec.flags ?? []), row.long]
  }
  return spec
}
