/**
 * What the policy knows of one program (or a family that shares its reading): the names it is
 * run by, what it does beyond its name (`effects`: the files it writes, the URLs it fetches, the
 * code it runs), the commands it runs (`runs`, for the analyzer to judge in turn), how an option
 * its table does not name is read, and example command lines with the decision they get.
 */
import type { CommandEffect, Recorder, Run } from './effects.js'
import type { ShellWord } from '../shell-word.js'

/** What an option does, as the policy checks it. */
export type OptionDoes = 'reads' | 'writes' | 'runs' | 'connects' | 'sets-variable'

/**
 * One option of a program, as a row: its short and long name, whether it takes a value, what it
 * does. `optionTable` / `optionSpec` (options.ts) build the parser's table from the rows.
 */
export interface OptionRow {
  /** The letter of `-o` (without the dash). */
  short?: string
  /** The name of `--output` (without the dashes); with `short`, the name options are read by. */
  long?: string
  /** `required`: the next word or attached (`-o f`, `--output=f`); `optional`: attached only. */
  value?: 'required' | 'optional'
  /** What it does beyond printing; absent: nothing the policy checks. */
  does?: OptionDoes
}

/**
 * An option the program's table does not name: `deny` (the command is denied as only known at
 * run time), or `allow`, with why that is safe for this program.
 */
export type UnknownOptions = { allowed: false; reason: string } | { allowed: true; reason: string }

/** An example command line and the decision the examples policy (programs.test.ts) gives it. */
export type ProgramExample = readonly [command: string, decision: 'allow' | 'deny', check?: string]

export interface Program {
  /** The names it is run by (its own first, then other spellings: `gsed`, `gtar`). */
  names: readonly string[]
  /** Its options with an effect, as rows, where the program's reading is built from rows. */
  options?: readonly OptionRow[]
  unknownOptions: UnknownOptions
  effects?: (words: readonly ShellWord[], name: string) => CommandEffect[]
  runs?: (words: ShellWord[], recorder: Recorder) => Run[]
  examples: readonly ProgramExample[]
}

/** Why an option a GNU-style program's table does not name is safe to allow. */
export const GETOPT_REFUSES =
  'the table names every option with an effect (abbreviations of them count as them); any ' +
  'other option is one the program knows as harmless or refuses before it acts'

/** Why a wrapper with a complete option table denies an option the table does not name. */
export const COMPLETE_TABLE =
  'an option the table does not know could take the next word as its value, so the command ' +
  'the wrapper runs would be unknown'
