/**
 * What the programs people allow do beyond their name: the files their options and operands
 * write, the code some options run, the network some options reach. The shell analyzer calls
 * `commandEffects` for every simple command it finds (after wrappers are unwrapped), and the
 * engine checks each effect: writes against `write` rules, URLs against `url` rules, problems are
 * denied (they name a built-in check, not a rule).
 *
 * An allow rule such as `sed *` lets the agent choose sed's options, so what a program may do is
 * decided here from its words: one small table per program (which options take a value, which
 * have an effect) and a handler that turns the parsed words into effects. Where a word is only
 * known at run time and could be an option with an effect, the command is denied
 * (`dynamic-argument`); where the effect cannot be known (a script file, a patch), it is denied
 * by what it could do (`runs-code`, `writes-unknown`).
 *
 * The registry the analyzer (shell/) and the engine ask: every program is an entry of
 * `PROGRAMS` (catalog.ts) — its names, its options as rows, how it reads an unknown option and
 * why, its effects (`commandEffects`), what it runs (`runs`: wrappers, `find -exec`, `sh -c`),
 * and examples that __tests__/policy/programs.test.ts decides. What the path checks know of
 * readers is in readers.ts. This folder imports nothing of the analyzer or the engine.
 *
 * Teaching the policy a new program, in five lines (more in src/policy/README.md):
 * 1. programs/<name>.ts: option rows (optionTable) and a handler `(words, name) => effects`.
 * 2. The handler parses with parseOptions and returns write/read/url effects and problems.
 * 3. An entry in PROGRAMS (catalog.ts): names, handler, `unknownOptions` with its reason.
 * 4. Examples with their decision in the entry; programs.test.ts runs them through the engine.
 * 5. `npx tsx scripts/policy-corpus.ts` before and after, and `diff`: no other decision moved.
 */
import type { ShellWord } from '../shell-word.js'
export {
  ATTACHED_DIRECTORY,
  DIRECTORY_OPTION,
  mayMakeLinks,
  namedPaths,
  pathOperands,
  readsRecursively,
  readsTreeContents
} from './readers.js'
export type {
  CdTarget,
  CommandEffect,
  EffectProblemId,
  Recorder,
  Run,
  WriteTarget
} from './effects.js'
export { PROGRAMS } from './catalog.js'
export { globDirectory } from './effects.js'
export { parseOptions, scanOptions, type OptionSpec, type OptionTable } from './options.js'
export type { OptionRow, Program, ProgramExample, UnknownOptions } from './program.js'
export { ENV_OPTIONS, isWrapper, LOADS_CODE, runs, SHELLS, XARGS_OPTIONS } from './wrappers.js'
import { PROGRAMS } from './catalog.js'
import { type CommandEffect, inDirectoryEffects, lit } from './effects.js'
import type { Program } from './program.js'
import { npmArgv, npmCommand } from './npm-argv.js'
import { runnerDirectory } from './npm.js'
import { packageRunnerCommands } from './package-runners.js'

/**
 * The effects of one simple command. `words[0]` is the program (a literal word, maybe a path);
 * wrappers (`env`, `sudo`, `xargs`, `sh -c`, …) have already been unwrapped by the caller.
 */
export function commandEffects(words: readonly ShellWord[]): CommandEffect[] {
  const first = words[0]
  if (first === undefined || !first.literal) return []
  const slash = first.text.lastIndexOf('/')
  const name = slash < 0 ? first.text : first.text.slice(slash + 1)
  const handler = HANDLERS.get(name)
  if (handler === undefined) return []
  const effects = handler(words, name)
  // what `npx tsc …`, `pnpm exec tsc …`, `yarn tsc …` run: the program's own effects
  // (in the directory the package manager moved to: `pnpm -C DIR exec tsc --outDir out`)
  const directory = runnerDirectory(words, name)
  for (const inner of packageRunnerCommands(words, name)) {
    if (inner.length === 0) continue
    const own = commandEffects(inner)
    effects.push(...(directory === undefined ? own : inDirectoryEffects(own, directory)))
  }
  // one problem of each kind is enough to deny, and reads better; a URL once
  let seen = ''
  return effects.filter((e) => {
    if (e.kind === 'url') {
      const key = `|url ${e.target.text}|`
      if (seen.includes(key)) return false
      seen += key
      return true
    }
    if (e.kind !== 'problem') return true
    if (seen.includes(`|${e.id}|`)) return false
    seen += `|${e.id}|`
    return true
  })
}

/**
 * Other spellings of the same command, for deny and ask rules: a rule naming a subcommand
 * (`npm publish*`, `gh pr merge*`, `cargo publish*`) also catches it behind options
 * (`npm --registry=x publish`, `gh -R o/r pr merge`, `gh pr -R "$R" merge`), a toolchain
 * (`cargo +nightly publish`), or npm's abbreviations and aliases (`npm pub`, `npm i` for
 * `npm install`). Which options take a value is not known for every program, so both readings
 * are given: each option a flag, and each option without `=` followed by its value. Every
 * spelling only drops words or names npm's command as npm reads it, so deny and ask rules only
 * ever match more.
 */
export function commandSpellings(words: readonly ShellWord[]): ShellWord[][] {
  const first = words[0]
  if (first === undefined) return []
  const flags: ShellWord[] = [first]
  const valued: ShellWord[] = [first]
  let options = true
  let dropped = false
  const program = first.text.slice(first.text.lastIndexOf('/') + 1)
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    const option = options && t.startsWith('-') && t !== '-'
    const toolchain = options && i === 1 && t.startsWith('+') && /^(cargo|rustup)$/.test(program)
    if (!option && !toolchain) {
      flags.push(w)
      valued.push(w)
      continue
    }
    dropped = true
    if (t === '--') {
      options = false
      continue
    }
    const next = words[i + 1]
    if (option && !t.includes('=') && next !== undefined) {
      const n = next.literal ? next.text : next.prefix
      if (!(n.startsWith('-') && n !== '-')) {
        flags.push(next) // the next word, as this option's value, stays in the flags reading
        i++
      }
    }
  }
  const out: ShellWord[][] = dropped ? [flags, valued] : []
  if (program === 'npm') {
    // as npm may read it: its options left out, each word that may be its command by npm's
    // own name for it, with the operands after it
    const argv = npmArgv(words)
    for (const { word, index } of argv.commands) {
      if (!word.literal) continue
      const name = npmCommand(word.text) ?? word.text
      const rest = argv.operands.filter((o) => o.index > index).map((o) => o.word)
      out.push([first, lit(name), ...rest])
      // `npm install-test x` is `npm install x`, then `npm test`
      if (name === 'install-test') out.push([first, lit('install'), ...rest])
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// The table

/** Each program name's effects reader, from the catalog. */
const HANDLERS = new Map<string, NonNullable<Program['effects']>>()
for (const program of PROGRAMS) {
  const effects = program.effects
  if (effects !== undefined) for (const name of program.names) HANDLERS.set(name, effects)
}

/** What the policy knows of the program `name` (a path's last part), if anything. */
export function programFor(name: string): Program | undefined {
  const base = name.slice(name.lastIndexOf('/') + 1)
  return PROGRAMS.find((p) => p.names.includes(base))
}
