/**
 * The shell word: the one type the analyzer (shell/), the programs (programs/) and the path checks
 * (sensitive.ts) share. A leaf module, so that none of them imports another for it.
 */

/** One shell word after quote removal. */
export interface ShellWord {
  /** The word's value (quotes removed, escapes applied); dynamic parts keep their source text. */
  text: string
  /** True when the value is fully known before the command runs (no expansion, glob, brace). */
  literal: boolean
  /** For a non-literal word: the known text it starts with (may be empty). */
  prefix: string
  /** The word starts with an unquoted `~` (tilde expansion). */
  tilde: boolean
}

/** A word whose whole value is known. */
export function literalWord(text: string): ShellWord {
  return { text, literal: true, prefix: text, tilde: false }
}

/** A word only known at run time, starting with the known text `prefix`. */
export function dynamicWord(text: string, prefix = ''): ShellWord {
  return { text, literal: false, prefix, tilde: false }
}
