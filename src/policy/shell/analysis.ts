/**
 * Shell command analysis for the policy: parse a command line with tree-sitter-bash and list
 * every simple command bash would run (through pipelines, lists, subshells, groups, command and
 * process substitution, heredoc bodies, loops, and the commands run by wrappers such as
 * `sh -c`, `eval`, `env`, `xargs`, `sudo`, `find -exec`), every file it would write through a
 * redirection or `tee`, and everything that cannot be known before it runs.
 *
 * The CLI's own parse of the command (`commandSegments`, `possiblePaths`, ...) is never used.
 */
import { type CdTarget, type EffectProblemId, type WriteTarget } from '../programs/index.js'
import { type ShellWord } from '../shell-word.js'

export interface ShellCommand {
  words: ShellWord[]
  /** Leading `NAME=value` assignments (as text), and assignments made by `env` / `export`. */
  assignments: string[]
  /** The normalized command: the words' text joined by single spaces. */
  text: string
  /** The wrappers this command was found in, outermost first (`sudo`, `sh -c`, ...). */
  via: string[]
  /**
   * The variables of `for NAME in WORDS` loops around the command, when nothing in the request
   * can set them otherwise: NAME takes each of WORDS (literal paths or plain globs).
   */
  loops?: Readonly<Record<string, string[]>>
}

export type ShellProblemId =
  | 'unparsable'
  | 'dynamic-command'
  | 'dynamic-path'
  | 'too-complex'
  /** Arithmetic, subscripts, indirection: bash evaluates a variable's value as code. */
  | 'evaluates-code'
  /** A variable that steers later programs (HOME, PATH, GIT_*, ...) is set, unset or exported. */
  | 'protected-variable'
  /** A redirection to bash's /dev/tcp or /dev/udp: a network connection. */
  | 'network-redirect'
  /** /proc/<pid>/environ and the like, or the secrets under HOME. */
  | 'sensitive-path'
  | EffectProblemId

export type ShellItem =
  | { type: 'command'; command: ShellCommand }
  /** A statement that only assigns variables (`x=1`): a command the rules must allow. */
  | { type: 'assignment'; text: string; assignments: string[] }
  /** A file the command writes: a redirection target, a `tee` argument, ... */
  | ({ type: 'write'; text: string } & WriteTarget)
  /**
   * A file the shell opens for the command to read (an input redirection: `< f`, `3< f`), or one
   * a program's script or option makes it read (`sed 'r f'`).
   */
  | { type: 'read'; text: string; target: ShellWord }
  /** A URL the command reaches (`curl https://…`): checked against `url` rules. */
  | { type: 'url'; text: string; target: ShellWord }
  | { type: 'problem'; id: ShellProblemId; text: string; reason: string }

export interface ShellAnalysis {
  items: ShellItem[]
  cdTargets: CdTarget[]
}
