/**
 * What the programs people allow do beyond their name: the files their options and operands
 * write, the code some options run, the network some options reach. The shell analyzer calls
 * `commandEffects` for every simple command it finds (after wrappers are unwrapped), and the
 * engine checks each effect: writes against `write` rules, URLs against `url` rules, problems are
 * denied (they name a built-in check, not a rule).
 */
import type { ShellWord } from './shell.js'

export type EffectProblemId =
  /** An option or operand that makes the program run other code (`sed e`, `sort --compress-program`). */
  | 'runs-code'
  /** An option or operand that makes the program reach the network (`git ls-remote`, `tar host:f`). */
  | 'network'
  /** A word only known at run time where an option with one of these effects could stand. */
  | 'dynamic-argument'
  /** The program writes files the policy cannot name before it runs (`git apply`, `patch`). */
  | 'writes-unknown'

export type CommandEffect =
  /** A file the command writes (or deletes); `subtree`: and everything below it (`rm -r d`). */
  | { kind: 'write'; label: string; target: ShellWord; subtree?: boolean }
  /** A URL the command fetches or sends to (`curl https://…`): checked against `url` rules. */
  | { kind: 'url'; label: string; target: ShellWord }
  | { kind: 'problem'; id: EffectProblemId; reason: string }

/**
 * The effects of one simple command. `words[0]` is the program (a literal word, maybe a path);
 * wrappers (`env`, `sudo`, `xargs`, `sh -c`, …) have already been unwrapped by the caller.
 */
export function commandEffects(words: readonly ShellWord[]): CommandEffect[] {
  void words
  return []
}
