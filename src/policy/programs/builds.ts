/**
 * Package installers and build tools (gem, cargo, make, maven, gradle; go and pytest have their
 * own modules): where their location options write, and the options that run code the rules
 * never saw. An installer told where to install (`gem install --install-dir D`, `cargo install
 * --root D`) writes that tree, judged by the write rules; one whose default location is HOME
 * (`gem install --user-install`, `cargo install`) writes where later steps' programs run from.
 * A build tool's output options (`cargo --target-dir`, `cargo new PATH`, `mvn -l FILE`,
 * `gem build -o FILE`) are writes there. Its code options (`make --eval`, an alternative
 * makefile or include directory, `cargo --config`, maven's `exec` properties and other settings
 * files, gradle's init scripts and alternative build files) run code the policy cannot see:
 * `runs-code`.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  network,
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
  if (sub === undefined || !sub.literal) return []
  // `gem build -o FILE` writes the gem there; `gem unpack --target DIR` unpacks below DIR
  const output =
    sub.text === 'build' ? ['o', 'output'] : sub.text === 'unpack' ? ['', 'target'] : []
  const [short, long] = output
  if (short !== undefined && long !== undefined) {
    const out: CommandEffect[] = []
    for (let i = 2; i < words.length; i++) {
      const w = words[i] as ShellWord
      if (mayBeOption(w)) return [dynamicArgument(name, w, 'an option that names where it writes')]
      const t = w.text
      const option = t.startsWith('--') ? (t.split('=')[0] as string) : `-${short}`
      if (isLong(t, long) || (short !== '' && t.startsWith(`-${short}`))) {
        const value = valueAt(words, i, option)
        if (value !== undefined)
          out.push(fileWrite(`${name} ${sub.text} ${option}`, value, long === 'target'))
        if (!t.includes('=') && (t.startsWith('--') || t.length === 2)) i++
      }
    }
    return out
  }
  if (!/^(?:install|i|update|pristine)$/.test(sub.text)) return []
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

/** cargo's options that say where it writes: a tree each (`--lockfile-path`: a file). */
const CARGO_OUTPUTS: ReadonlyArray<readonly [string, boolean]> = [
  ['target-dir', true],
  ['artifact-dir', true],
  ['out-dir', true],
  ['lockfile-path', false]
]

/** cargo's options with a value that may stand before the subcommand. */
const CARGO_GLOBAL_VALUES = new Set(['--color', '--config', '-Z', '-C', '--explain'])

/** Options of `cargo new`, `init` and `vendor` that take a value (not the path they write). */
const CARGO_PATH_VALUES = new Set([
  '--vcs',
  '--name',
  '--edition',
  '--registry',
  '--sync',
  '--manifest-path',
  '--config',
  '--color',
  '-Z'
])

export function cargoEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let sub: string | undefined
  let dashes = false
  const operands: ShellWord[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.text
    if (dashes) {
      // the test harness's own options (`cargo test -- --logfile F`)
      if (/^--logfile(?:=|$)/.test(t)) {
        const value = valueAt(words, i, '--logfile')
        if (value !== undefined) out.push(fileWrite(`${name} ${sub ?? ''} -- --logfile`, value))
      }
      continue
    }
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'a --config option that runs a program')]
    if (t === '--') {
      dashes = sub === 'test' || sub === 'bench' || sub === 't'
      if (!dashes) break
      continue
    }
    if (t === '--config' || t.startsWith('--config=') || t === '-Z' || t.startsWith('-Z')) {
      out.push(
        runsCode(
          `${name} ${t.split('=')[0] as string} sets a configuration (a runner, a rustc wrapper) that runs programs`
        )
      )
    }
    if (!t.startsWith('-') && !t.startsWith('+')) {
      if (sub === undefined) sub = t
      else operands.push(w)
    }
    // `--manifest-path P` (`--manifest-path=P`, `--manif P`) builds another crate, like `cd` into
    // it: its build script and config run code the rules never saw
    if (isLong(t, 'manifest-path', 5)) {
      const value = valueAt(words, i, t.split('=')[0] as string)
      if (value === undefined || !value.literal || !/^(?:\.\/)*Cargo\.toml$/.test(value.text)) {
        out.push(runsCode(`${name} --manifest-path builds another crate, whose build script runs`))
      }
    }
    // `cargo install --path P`: another crate's build script, as with --manifest-path
    if (sub === 'install' && /^--path(?:=|$)/.test(t)) {
      const value = valueAt(words, i, '--path')
      if (value === undefined || !value.literal || !/^\.\/?$/.test(value.text)) {
        out.push(runsCode(`${name} install --path builds another crate, whose build script runs`))
      }
    }
    const output = CARGO_OUTPUTS.find(([long]) => t === `--${long}` || t.startsWith(`--${long}=`))
    if (output !== undefined) {
      const value = valueAt(words, i, `--${output[0]}`)
      if (value !== undefined) out.push(fileWrite(`${name} --${output[0]}`, value, output[1]))
    }
    if (sub === 'install' && t === '--root') {
      const value = words[i + 1]
      if (value !== undefined) out.push(fileWrite(`${name} install --root`, value, true))
    } else if (sub === 'install' && t.startsWith('--root=')) {
      out.push(fileWrite(`${name} install --root`, valueAt(words, i, '--root') as ShellWord, true))
    }
    // an option's value is not the subcommand nor a path operand
    if (
      !t.includes('=') &&
      (output !== undefined ||
        t === '--root' ||
        t === '--path' ||
        (sub === undefined ? CARGO_GLOBAL_VALUES : CARGO_PATH_VALUES).has(t))
    ) {
      i++
    }
  }
  // `cargo new PATH`, `cargo init [PATH]`, `cargo vendor [PATH]`: a tree written below PATH
  if (sub === 'new' || sub === 'init' || sub === 'vendor') {
    const path = operands[0] ?? (sub === 'new' ? undefined : lit(sub === 'init' ? '.' : 'vendor'))
    if (path !== undefined) out.push(fileWrite(`${name} ${sub}`, path, true))
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

/** Maven's options with a value (commons-cli: `-s F`, `-sF`, `-s=F`, `--settings F`, `--settings=F`). */
const MAVEN_VALUES: ReadonlyArray<readonly [short: string, long: string]> = [
  ['b', 'builder'],
  ['D', 'define'],
  ['emp', 'encrypt-master-password'],
  ['ep', 'encrypt-password'],
  ['f', 'file'],
  ['gs', 'global-settings'],
  ['gt', 'global-toolchains'],
  ['l', 'log-file'],
  ['P', 'activate-profiles'],
  ['pl', 'projects'],
  ['rf', 'resume-from'],
  ['s', 'settings'],
  ['t', 'toolchains'],
  ['T', 'threads']
]

/** Maven's options without a value (a word that is one is not a short option with its value). */
const MAVEN_FLAGS = new Set(
  'am amd B C c cpu e fae ff fn h llr N npr npu nsu ntp o q U up v V X'.split(' ')
)

/** Options that make Maven read another build, settings or toolchains file. */
const MAVEN_FILES = new Set([
  'file',
  'settings',
  'global-settings',
  'toolchains',
  'global-toolchains'
])

/** A Maven option word: the option's long name and its value (attached, or the next word). */
function mavenOption(
  words: readonly ShellWord[],
  i: number
): { long: string; value?: ShellWord; took: number } | undefined {
  const t = (words[i] as ShellWord).text
  const next = words[i + 1]
  const withNext = (long: string) =>
    next === undefined ? { long, took: 0 } : { long, value: next, took: 1 }
  if (t.startsWith('--')) {
    const eq = t.indexOf('=')
    const long = MAVEN_VALUES.find(([, l]) => l === (eq < 0 ? t.slice(2) : t.slice(2, eq)))?.[1]
    if (long === undefined) return undefined
    return eq < 0 ? withNext(long) : { long, value: lit(t.slice(eq + 1)), took: 0 }
  }
  if (!t.startsWith('-') || MAVEN_FLAGS.has(t.slice(1))) return undefined
  const body = t.slice(1)
  const exact = MAVEN_VALUES.find(([s]) => s === body)
  if (exact !== undefined) return withNext(exact[1])
  const eq = body.indexOf('=')
  const named = eq > 0 ? MAVEN_VALUES.find(([s]) => s === body.slice(0, eq)) : undefined
  if (named !== undefined) return { long: named[1], value: lit(body.slice(eq + 1)), took: 0 }
  // `-sFILE`: a one-letter option with its value attached
  const attached = MAVEN_VALUES.find(([s]) => s.length === 1 && s === body[0])
  return attached === undefined
    ? undefined
    : { long: attached[1], value: lit(body.slice(1)), took: 0 }
}

/** Maven property names that say where a plugin writes. */
const OUTPUT_PROPERTY = /(?:file|dir|directory|folder|output|dest|destination|location)$/i

export function mavenEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.text
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'a property that runs a program')]
    if (/^exec:/.test(t)) {
      return [
        runsCode(
          `${name} ${t}: properties, plugin goals and alternative build or settings files run programs the policy cannot see`
        )
      ]
    }
    const option = w.literal ? mavenOption(words, i) : undefined
    if (option === undefined) continue
    i += option.took
    const property = option.long === 'define' ? (option.value?.text ?? '') : undefined
    if (property !== undefined && (property === '' || RISKY_PROPERTY.test(property))) {
      return [
        runsCode(
          `${name} ${t}: a property that names a program, a JVM option, a plugin or a path runs code the policy cannot see`
        )
      ]
    }
    // a plugin parameter bound to a property that names a file or directory (jacoco.destFile,
    // checkstyle.output.file, surefire.reportsDirectory): the plugin writes there
    if (property !== undefined && OUTPUT_PROPERTY.test(property.split('=')[0] as string)) {
      out.push(writesUnknown(`${name} ${t}: a plugin writes where the property points`))
    }
    if (MAVEN_FILES.has(option.long)) {
      return [
        runsCode(
          `${name} ${t}: properties, plugin goals and alternative build or settings files run programs the policy cannot see`
        )
      ]
    }
    // `-l FILE`: the build's whole output goes to FILE
    if (option.long === 'log-file' && option.value !== undefined) {
      out.push(fileWrite(`${name} --log-file`, option.value))
    }
  }
  return out
}

export function gradleEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.text
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'an init script or a build file')]
    if (t === '--scan')
      return [network(`${name} --scan publishes the build scan to scans.gradle.com`)]
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
