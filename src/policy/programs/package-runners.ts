/**
 * The commands the package managers run for the agent (`npx tsc`, `npm exec -- tsc`, `pnpm exec
 * tsc`, `pnpm tsc`, `yarn tsc`): their words, so that what the program run writes and reads
 * (`npx tsc --outDir .github`) counts for the whole command line, as it would when run directly.
 * The rules still judge the command line as written (`npx tsc *`); the program run is not a
 * separate command an allow rule must name.
 *
 * Where it cannot be told which word is the program (a word after an option may be that
 * option's value), each word that may be is read as the program, with the words after it.
 */
import type { ShellWord } from '../shell-word.js'
import { lit } from './effects.js'
import { LEADING_DASHES, UNDERSCORES } from './git.js'
import { npmArgv, npmCommand } from './npm-argv.js'
import { NPX_VALUE, PM_COMMANDS, afterOption, npxMayBeValue, pmCommands } from './npm.js'

/** The command lines a package manager's command line runs directly, in every reading. */
export function packageRunnerCommands(words: readonly ShellWord[], name: string): ShellWord[][] {
  const commands =
    name === 'npx'
      ? npxCommand(words)
      : name === 'npm'
        ? npmExecCommands(words)
        : name === 'pnpm' || name === 'yarn'
          ? pmRunCommands(words, name)
          : []
  return commands.map(([program, ...args]) => [binary(program as ShellWord), ...args])
}

/** The program a package spec runs: `tsc@5` and `@scope/tsc@latest` run `tsc`. */
function binary(word: ShellWord): ShellWord {
  const m = word.literal ? /^(?:@[^/@]+\/)?([^/@]+)@[^/]*$/.exec(word.text) : null
  return m === null ? word : lit(m[1] as string)
}

/**
 * npx [its options] PROGRAM ARGS…: PROGRAM and the words after it are the program's own; a word
 * after an option that may take a value is read both ways (that value, or the program).
 */
function npxCommand(words: readonly ShellWord[]): ShellWord[][] {
  const out: ShellWord[][] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) return out // the program only known at run time (npmEffects denies it)
    const t = w.text
    if (t === '--') {
      if (i + 1 < words.length) out.push(words.slice(i + 1))
      return out
    }
    if (t.startsWith('-') && t.length > 1) {
      const eq = t.indexOf('=')
      const key = (eq < 0 ? t : t.slice(0, eq))
        .replace(LEADING_DASHES, '')
        .toLowerCase()
        .replace(UNDERSCORES, '-')
      if (eq < 0 && (NPX_VALUE.has(key) || t === '-c' || t === '-p')) i++
      continue
    }
    out.push(words.slice(i))
    if (!npxMayBeValue(words, i)) return out
  }
  return out
}

/** The program of `npm exec` (`npm x`): each word after the command that may be it. */
function npmExecCommands(words: readonly ShellWord[]): ShellWord[][] {
  const argv = npmArgv(words)
  const out: ShellWord[][] = []
  for (const command of argv.commands) {
    if (!command.word.literal || npmCommand(command.word.text) !== 'exec') continue
    for (const operand of argv.operands) {
      if (operand.index <= command.index || !operand.word.literal) continue
      const rest = words.slice(operand.index + 1)
      // npm's own `--` before the program's words
      const dash = rest.findIndex((w) => w.literal && w.text === '--')
      if (dash >= 0) rest.splice(dash, 1)
      out.push([operand.word, ...rest])
      if (!afterOption(words, operand.index)) break
    }
  }
  return out
}

/**
 * `pnpm exec P`, `yarn exec P`, `yarn run P`, and `pnpm P` / `yarn P` where P is not one of
 * their own commands (they run the package's binary P, or a script of that name).
 */
function pmRunCommands(words: readonly ShellWord[], name: string): ShellWord[][] {
  const out: ShellWord[][] = []
  for (const c of pmCommands(words).candidates) {
    const w = words[c] as ShellWord
    const runs = w.text === 'exec' || (name === 'yarn' && w.text === 'run')
    if (runs) {
      const rest = words.slice(c)
      const programs = pmCommands(rest).candidates
      for (const p of programs) out.push(rest.slice(p))
      // `pnpm exec -- P`: the program after the `--`
      const dash = rest.findIndex((r) => r.literal && r.text === '--')
      if (dash >= 0 && !programs.some((p) => p < dash)) out.push(rest.slice(dash + 1))
    } else if (!PM_COMMANDS.has(w.text)) {
      out.push(words.slice(c))
    }
  }
  return out
}
