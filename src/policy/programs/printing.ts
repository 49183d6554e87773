/**
 * Programs that print what they compute, and the few ways they do more: `date` sets the clock
 * (`-s`, a date operand) and reads a file of dates (`-f`); the checksum tools (`sha256sum -c`)
 * read the files a list names.
 */
import type { ShellWord } from '../shell-word.js'
import type { OptionRow } from './program.js'
import { type CommandEffect, read, readsUnknown, writesUnknown } from './effects.js'
import { has, optionTable, parseOptions, unknownWords, values } from './options.js'

/** GNU date's options (and BSD date's `-j`, which never sets the clock). */
export const DATE_ROWS: OptionRow[] = [
  { short: 'd', long: 'date', value: 'required' },
  { short: 'f', long: 'file', value: 'required', does: 'reads' },
  { short: 'I', long: 'iso-8601', value: 'optional' },
  { long: 'rfc-3339', value: 'required' },
  { short: 'r', long: 'reference', value: 'required', does: 'reads' },
  { short: 's', long: 'set', value: 'required', does: 'writes' },
  { short: 'R', long: 'rfc-email' },
  { short: 'u', long: 'utc' },
  { long: 'universal' },
  { long: 'resolution' },
  { long: 'debug' },
  { long: 'help' },
  { long: 'version' }
]

const DATE = optionTable(DATE_ROWS)

export function dateEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, DATE)
  const out = unknownWords(parsed, name, '--set, which sets the system clock')
  for (const file of values(parsed, 'file')) out.push(read(`${name} -f`, file))
  for (const file of values(parsed, 'reference')) out.push(read(`${name} -r`, file))
  // an operand that is not +FORMAT is a date to set (BSD's -j only parses it)
  const sets =
    has(parsed, 'set') ||
    (!has(parsed, 'j') &&
      parsed.operands.some((o) => !(o.literal ? o.text : o.prefix).startsWith('+')))
  if (sets) out.push(writesUnknown(`${name} sets the system clock`))
  return out
}

/** The checksum tools' options with a value (`b2sum -l`, `cksum -a`, `shasum -a`). */
const CHECKSUM_VALUES = 'la'

/**
 * `sha256sum -c LIST` (`--check`, `--ch`, `-wc`) checks the files LIST names: a read of files
 * the policy cannot see.
 */
export function checksumEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (t === '--') break
    let check = /^--c(?:h(?:e(?:c(?:k)?)?)?)?$/.test(t)
    if (/^-[^-]/.test(t)) {
      for (const letter of t.slice(1)) {
        if (letter === 'c') check = true
        if (CHECKSUM_VALUES.includes(letter)) break
      }
      if (/^-[A-Za-z]*[la]$/.test(t)) i++
    }
    if (check) {
      return [readsUnknown(`${name} -c checks the files a list names, unseen by the policy`)]
    }
  }
  return []
}
