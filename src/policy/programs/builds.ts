/**
 * Package installers and build tools: where their location options write, and the options that
 * run code the rules never saw. An installer told where to install (`gem install --install-dir
 * D`, `cargo install --root D`) writes that tree, judged by the write rules; one whose default
 * location is HOME (`gem install --user-install`, `cargo install`, `go install`) writes where
 * later steps' programs run from. A build tool's code options (`make --eval`, an alternative
 * makefile or include directory, `cargo --config`, maven's `exec` properties, gradle's init
 * scripts and alternative build files, pytest's plugins and rootdir) run code the policy cannot
 * see: `runs-code`.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dyn,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  runsCode,
  writesUnknown
} from './effects.js'

/** The value of `--name VALUE` / `--name=VALUE` / `-xVALUE` at `i`, and how many words it took. */
function valueAt(words: readonly ShellWord[], i: number, name: string): ShellWord | undefined {
  const w = words[i] as ShellWord
  const eq = w.text.indexOf('=')
  if (w.text.startsWith('--') && eq > 0) {
    const text = w.text.slice(eq + 1)
    return { ...w, text, prefix: w.literal ? text : w.prefix.slice(eq + 1) }
  }
  if (!w.text.startsWith('--') && w.text.length > name.length) {
    const text = w.text.slice(name.length)
    return { ...w, text, prefix: w.literal ? text : '' }
  }
  return words[i + 1]
}

/** Whether a written option (`--inst`, `--install-dir=x`) may be `--long` (getopt prefixes). */
function isLong(text: string, long: string, min = 3): boolean {
  const name = text.split('=')[0] as string
  return name.startsWith('--') && name.length >= min + 2 && long.startsWith(name.slice(2))
}

export function gemEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const sub = words[1]
  if (sub === undefined || !sub.literal || !/^(?:install|i|update|pristine)$/.test(sub.text))
    return []
  const out: CommandEffect[] = []
  for (let i = 2; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'an install location option')]
    const t = w.text
    if (t === '-i' || t.startsWith('-i') || isLong(t, 'install-dir') || isLong(t, 'bindir')) {
      const option = t.startsWith('--') ? (t.split('=')[0] as string) : '-i'
      const value = valueAt(words, i, option)
      if (value !== undefined) out.push(fileWrite(`${name} ${option}`, value, true))
      if (!t.includes('=') && t.length <= 2) i++
    } else if (isLong(t, 'user-install') || isLong(t, 'build-root')) {
      out.push(writesUnknown(`${name} ${t} installs into HOME, where later steps run gems from`))
    }
  }
  if (!words.some((w) => /^(?:-i|--install-dir|--bindir)/.test(w.text))) {
    out.push(
      writesUnknown(
        `${name} ${sub.text} installs outside the working directory (GEM_HOME, or HOME with --user-install)`
      )
    )
  }
  return out
}

export function cargoEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let sub: string | undefined
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.text
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'a --config option that runs a program')]
    if (t === '--config' || t.startsWith('--config=') || t === '-Z' || t.startsWith('-Z')) {
      out.push(
        runsCode(
          `${name} ${t.split('=')[0] as string} sets a configuration (a runner, a rustc wrapper) that runs programs`
        )
      )
    }
    if (sub === undefined && !t.startsWith('-') && !t.startsWith('+')) sub = t
    // `--manifest-path P` (`--manifest-path=P`, `--manif P`) builds another crate, like `cd` into
    // it: its build script and config run code the rules never saw
    if (isLong(t, 'manifest-path', 5)) {
      const value = valueAt(words, i, t.split('=')[0] as string)
      if (value === undefined || !value.literal || !/^(?:\.\/)*Cargo\.toml$/.test(value.text)) {
        out.push(runsCode(`${name} --manifest-path builds another crate, whose build script runs`))
      }
    }
    if (sub === 'install' && t === '--root') {
      const value = words[i + 1]
      if (value !== undefined) out.push(fileWrite(`${name} install --root`, value, true))
    } else if (sub === 'install' && t.startsWith('--root=')) {
      out.push(fileWrite(`${name} install --root`, valueAt(words, i, '--root') as ShellWord, true))
    }
  }
  if (sub === 'install' && !words.some((w) => /^--root(?:=|$)/.test(w.text))) {
    out.push(
      writesUnknown(
        `${name} install installs into ~/.cargo/bin (CARGO_HOME), on every later step's PATH`
      )
    )
  }
  return out
}

export function goEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const sub = words.slice(1).find((w) => !w.text.startsWith('-'))
  const out: CommandEffect[] = []
  if (sub?.literal === true && sub.text === 'install') {
    out.push(writesUnknown(`${name} install writes GOBIN (~/go/bin), on later steps' PATH`))
  }
  const output = words.findIndex((w) => w.text === '-o')
  if (output > 0 && words[output + 1] !== undefined) {
    out.push(fileWrite(`${name} -o`, words[output + 1] as ShellWord))
  }
  for (const w of words.slice(1)) {
    if (/^-(?:toolexec|exec|overlay|modfile)(?:=|$)/.test(w.text)) {
      out.push(
        runsCode(
          `${name} ${w.text.split('=')[0] as string} runs or reads build input the policy cannot see`
        )
      )
    }
  }
  return out
}

export function makeEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.text
    if (t === '--') break
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'an option that evaluates make code')]
    if (
      /^-[A-Za-z]*[fEI]/.test(t) ||
      isLong(t, 'eval', 2) ||
      isLong(t, 'file', 2) ||
      isLong(t, 'makefile', 2) ||
      isLong(t, 'include-dir', 2)
    ) {
      return [
        runsCode(
          `${name} ${t}: make code from the command line or another file runs recipes the policy cannot see`
        )
      ]
    }
    // `make -C DIR` (any spelling: `-CDIR`, `-sC DIR`, `--directory=DIR`, `--dir DIR`) runs
    // the makefile of DIR, like `cd DIR && make`: another makefile, as with -f
    if ((/^-[A-Za-z]*C/.test(t) && !t.startsWith('--')) || isLong(t, 'directory', 3)) {
      const value = t.startsWith('--')
        ? valueAt(words, i, t)
        : valueAt(words, i, t.slice(0, t.indexOf('C') + 1))
      if (value === undefined || !value.literal || !/^(?:\.\/?)+$/.test(value.text)) {
        return [
          runsCode(
            `${name} ${t}: the makefile of another directory runs recipes the policy cannot see`
          )
        ]
      }
    }
    // `make VAR=value`: a variable can replace any recipe's program (`CC=sh`, `SHELL=…`)
    // (a number or a yes/no flag, `VERBOSE=1`, names no program)
    const assignment = /^[A-Za-z_][A-Za-z0-9_.-]*\+?:{0,2}=(.*)$/.exec(t)
    const flag =
      assignment !== null && /^(?:\d+|true|false|yes|no|on|off)?$/i.test(assignment[1] ?? '')
    if ((assignment !== null && !flag) || !w.literal) {
      return [
        runsCode(
          `${name} ${t}: a variable on the command line can replace the programs recipes run`
        )
      ]
    }
  }
  return []
}

/** Maven properties that name programs, JVM options, plugins, extensions or where things are. */
const RISKY_PROPERTY =
  /exec|jvm|argline|command|script|agent|plugin|ext\.class|fork|compiler|toolchain|settings|home|repo|url|path|classpath|groovy|javascript|interpreter/i

export function mavenEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.text
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'a property that runs a program')]
    const property = /^(?:-D|--define=?)(.*)$/.exec(t)?.[1]
    if (property !== undefined && (property === '' || RISKY_PROPERTY.test(property))) {
      return [
        runsCode(
          `${name} ${t}: a property that names a program, a JVM option, a plugin or a path runs code the policy cannot see`
        )
      ]
    }
    if (
      /^exec:/.test(t) ||
      /^-(?:f|s|gs|t)$|^--(?:file|settings|global-settings|toolchains)/.test(t)
    ) {
      return [
        runsCode(
          `${name} ${t}: properties, plugin goals and alternative build or settings files run programs the policy cannot see`
        )
      ]
    }
  }
  return []
}

export function gradleEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.text
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'an init script or a build file')]
    if (
      /^-(?:I|b|c|p|D|P|g)/.test(t) ||
      /^--(?:init-script|build-file|settings-file|project-dir|gradle-user-home|include-build|project-cache-dir)/.test(
        t
      )
    ) {
      return [
        runsCode(
          `${name} ${t}: init scripts, other build files, properties and another project's build run code the policy cannot see`
        )
      ]
    }
  }
  return []
}

/** pytest's options that write a report or log file where their value points. */
const PYTEST_OUTPUTS =
  /^--(?:junit-?xml|log-file|result-?log|report-log|json-report-file|debug)(?:=(.*))?$/s

export function pytestEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const effects: CommandEffect[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.text
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'a plugin or configuration option')]
    const output = PYTEST_OUTPUTS.exec(t)
    if (output !== null) {
      // `--opt=FILE`, or FILE as the next word (`--debug` alone writes pytestdebug.log here)
      const inline = output[1]
      const next = words[i + 1]
      const target =
        inline !== undefined
          ? w.literal
            ? lit(inline)
            : dyn(inline)
          : !t.startsWith('--debug') && next !== undefined
            ? next
            : undefined
      if (target !== undefined) {
        if (inline === undefined) i++
        effects.push(fileWrite(`${name} ${t}`, target))
      }
      continue
    }
    if (
      (/^-[A-Za-z]*[pco]/.test(t) && !t.startsWith('--')) ||
      /^--(?:rootdir|confcutdir|config-file|override-ini|pyargs|import-mode|basetemp|inifile)/.test(
        t
      )
    ) {
      return [
        runsCode(
          `${name} ${t}: plugins, configuration and conftest.py files from other places run code the policy cannot see`
        )
      ]
    }
  }
  return effects
}
