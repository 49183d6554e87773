/**
 * npm, npx, pnpm, yarn: what they install where, the URLs they fetch, the configuration that runs
 * code.
 */
import type { ShellWord } from '../shell-word.js'
import { urlEffect } from './curl-wget.js'
import {
  type CommandEffect,
  dyn,
  dynamicArgument,
  inDirectoryEffects,
  lit,
  network,
  runsCode,
  write,
  writesUnknown
} from './effects.js'
import { LEADING_DASHES, UNDERSCORES, WHITESPACE } from './git.js'
import { type NpmOption, npmArgv, npmCommand } from './npm-argv.js'
import { connectionOption, specEffect } from './packages.js'
import { scriptArgumentEffects } from './linters.js'

// ---------------------------------------------------------------------------------------------
// npm, npx, pnpm, yarn

/**
 * npm configuration that makes npm run other code or load other configuration, with the
 * shortest abbreviation npm accepts for it (nopt expands unambiguous prefixes).
 */
export const NPM_CODE_CONFIG = new Map<string, number>([
  ['node-options', 'node-o'.length],
  ['script-shell', 'scr'.length],
  ['shell', 'she'.length],
  ['userconfig', 'userc'.length],
  ['globalconfig', 'globalc'.length],
  ['onload-script', 'on'.length],
  ['init-module', 'init-m'.length],
  ['call', 'cal'.length],
  ['git', 'git'.length],
  ['editor', 'ed'.length],
  ['browser', 'br'.length],
  ['viewer', 'vi'.length],
  ['node-gyp', 'node-g'.length]
])

/** Node options harmless in --node-options (they set limits and warnings, load nothing). */
export const NODE_SAFE_OPTIONS = new Set([
  '--max-old-space-size',
  '--max-semi-space-size',
  '--stack-size',
  '--enable-source-maps',
  '--no-warnings',
  '--trace-warnings',
  '--no-deprecation',
  '--trace-deprecation',
  '--experimental-vm-modules',
  '--unhandled-rejections',
  '--dns-result-order',
  '--trace-uncaught'
])

export function npmCodeConfig(name: string): string | undefined {
  for (const [option, min] of NPM_CODE_CONFIG) {
    if (name === option || (name.length >= min && option.startsWith(name))) return option
  }
  return undefined
}

export function harmlessNodeOptions(value: ShellWord | undefined): boolean {
  if (value === undefined || !value.literal) return false
  for (const part of value.text.split(WHITESPACE)) {
    if (part === '') continue
    const eq = part.indexOf('=')
    if (!NODE_SAFE_OPTIONS.has(eq < 0 ? part : part.slice(0, eq))) return false
  }
  return true
}

/** A long option only partly known (`--node-opt$X`) that could be one that runs code. */
export function npmCouldRunCode(body: string): boolean {
  const key = body.toLowerCase().replace(UNDERSCORES, '-')
  for (const option of NPM_CODE_CONFIG.keys()) if (option.startsWith(key)) return true
  return false
}

/** Subcommands that change npm's configuration or run an editor or a shell. */
export const NPM_RUNS_CODE: Readonly<Record<string, string>> = {
  set: 'changes npm configuration, where script-shell, node-options and others run code',
  edit: 'runs an editor',
  explore: 'runs a shell in a package directory'
}

export const NPX_VALUE = new Set(['package', 'call', 'prefix', 'cache', 'userconfig', 'workspace'])

/** npm commands that install into (or remove from) the prefix: `node_modules`, the lock file. */
export const NPM_INSTALLS = new Set([
  'ci',
  'dedupe',
  'install',
  'install-ci-test',
  'install-test',
  'prune',
  'rebuild',
  'uninstall',
  'update'
])

/** npm options that always take the next word as their value (strings and paths). */
export const NPM_STRING_OPTIONS = new Set([
  'prefix',
  'tag',
  'registry',
  'cache',
  'userconfig',
  'globalconfig',
  'workspace',
  'loglevel',
  'logs-dir',
  'otp',
  'message',
  'omit',
  'include',
  'install-strategy',
  'before',
  'location',
  'proxy',
  'https-proxy',
  'cafile',
  'ca',
  'script-shell',
  'node-options',
  'shell',
  'editor',
  'preid',
  'save-prefix',
  'pack-destination',
  'scope',
  'noproxy',
  'local-address',
  'cert',
  'key'
])

/** npm commands whose operands are package specs it fetches. */
export const NPM_FETCHES = new Set([
  'install',
  'install-test',
  'install-ci-test',
  'update',
  'exec',
  'add'
])

/** npm options naming a directory every command may write to (logs, the cache). */
export const NPM_WRITE_DIRECTORIES = new Set(['logs-dir', 'cache'])

/** npm commands that write the prefix's package.json (`npm pkg set`, `npm version`). */
export const NPM_WRITES_PACKAGE = new Set(['init', 'pkg', 'version'])

/** A dynamic word in an npm, pnpm or yarn command line: what it could be read as. */
export function npmDynamicWord(w: ShellWord, name: string): CommandEffect | undefined {
  const p = w.prefix
  const body = p.replace(LEADING_DASHES, '')
  const eq = body.indexOf('=')
  if (p.startsWith('-') && eq >= 0) {
    return npmCodeConfig(body.slice(0, eq).toLowerCase().replace(UNDERSCORES, '-')) !== undefined
      ? dynamicArgument(name, w, 'configuration that runs code')
      : undefined
  }
  if (p === '' || p === '-' || p === '--' || (p.startsWith('-') && npmCouldRunCode(body))) {
    return dynamicArgument(name, w, 'an option that runs code (--node-options, --script-shell)')
  }
  return undefined
}

/** A code-running configuration an option sets, by npm's reading or a looser one. */
export function npmCodeOption(option: NpmOption, raw: string): string | undefined {
  const loose = raw
    .replace(LEADING_DASHES, '')
    .split('=')[0]
    ?.toLowerCase()
    .replace(UNDERSCORES, '-')
    .replace(/^config\./, '') // pnpm --config.KEY=VALUE
  const code = npmCodeConfig(option.key) ?? (loose === undefined ? undefined : npmCodeConfig(loose))
  if (code === undefined) return undefined
  if (code === 'node-options' && harmlessNodeOptions(option.value)) return undefined
  return code
}

/** Whether a directory word names the working directory itself (`--prefix .`). */
export function isWorkingDirectory(word: ShellWord): boolean {
  return word.literal && /^\.?\/?$/.test(word.text.replace(/\/+$/, '/'))
}

/** What an install does where it is told to: the directories' trees, or the global prefix. */
export function installEffects(
  label: string,
  directories: ShellWord[],
  global: boolean
): CommandEffect[] {
  const out = directories.map((d) => write(label, d, true))
  if (global) {
    const program = label.split(' ')[0] ?? ''
    out.push(
      writesUnknown(
        `${program} installing globally writes into the global prefix, outside the working directory`
      )
    )
  }
  return out
}

/** npm itself, its words read under every reading npm's parser may make of them (npm.ts). */
export function npmCliEffects(words: readonly ShellWord[]): CommandEffect[] {
  const name = 'npm'
  const out: CommandEffect[] = []
  const argv = npmArgv(words)
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    // after `--` once the command is read, words go to the script, not to npm
    if (w.literal || (argv.scriptArgs !== undefined && i > argv.scriptArgs)) continue
    const effect = npmDynamicWord(w, name)
    if (effect !== undefined) out.push(effect)
  }
  const commands = argv.commands.map(({ word, index }) => ({
    index,
    command: word.literal ? (npmCommand(word.text) ?? word.text) : ''
  }))
  const is = (...names: string[]) => commands.some((c) => names.includes(c.command))
  const exec = is('exec')
  const moved = runnerDirectory(words, name)
  if (moved !== undefined && is('test', 'run', 'start', 'stop', 'restart', 'exec')) {
    out.push(movedScripts(name, moved))
  }

  const directories: ShellWord[] = []
  let global = false
  for (const option of argv.options) {
    const raw = option.text
    const code = npmCodeOption(option, raw)
    if (code !== undefined) {
      out.push(
        runsCode(
          `npm ${raw} sets npm's ${code} configuration, which makes it run other code or load ` +
            'other configuration'
        )
      )
    }
    const value = option.value
    if (option.key === 'package' && exec) {
      out.push(network('npm exec --package downloads and runs a package'))
    }
    if (option.key === 'global' && !option.negated && value?.text !== 'false') global = true
    if (option.key === 'location' && value?.text === 'global') global = true
    const connects = connectionOption(name, option.key, value, option.negated)
    if (connects !== undefined) out.push(connects)
    if (value === undefined) continue
    if (option.key === 'prefix' && !isWorkingDirectory(value)) directories.push(value)
    if (option.key === 'registry' || /^@[^:]+:registry$/.test(option.key)) {
      out.push(urlEffect(`npm --${option.key}`, value, []))
    }
    if (option.key === 'pack-destination' && is('pack')) {
      out.push(write('npm pack --pack-destination', value, true))
    }
    // every npm command writes its debug log and may write its cache there
    if (NPM_WRITE_DIRECTORIES.has(option.key)) out.push(write(`npm --${option.key}`, value, true))
  }

  for (const { index, command } of commands) {
    const what = NPM_RUNS_CODE[command]
    if (what !== undefined) out.push(runsCode(`npm ${command} ${what}`))
    if (command === 'config') {
      const change = argv.operands
        .filter((o) => o.index > index && o.word.literal)
        .map((o) => o.word.text)
        .find((t) => t === 'set' || t === 'edit' || t === 'delete')
      if (change !== undefined) {
        out.push(runsCode(`npm config ${change} ${NPM_RUNS_CODE.set ?? ''}`))
      }
    }
    if (command === 'link') {
      out.push(writesUnknown("npm link links packages through npm's global prefix"))
    }
  }
  // what an install fetches: a tarball URL, a git repository, a GitHub shorthand
  const optionValues = new Set(
    argv.options.flatMap((o) =>
      o.value !== undefined && (NPM_STRING_OPTIONS.has(o.key) || o.key.endsWith(':registry'))
        ? [o.value]
        : []
    )
  )
  for (const { index, command } of commands) {
    if (!NPM_FETCHES.has(command)) continue
    for (const o of argv.operands) {
      // a word npm may read as an option's value (`--prefix src/app`) is judged as that
      const spec = o.index > index && !optionValues.has(o.word)
      const effect = spec ? specEffect(`npm ${command}`, o.word) : undefined
      if (effect !== undefined) out.push(effect)
      // `npm exec P ARGS`: P is the package; ARGS are the program's (once P is known)
      const after = words[o.index - 1]
      const valued =
        after !== undefined && /^-[^=]*$/.test(after.literal ? after.text : after.prefix)
      if (command === 'exec' && o.index > index && !valued && !/^-{2,}$/.test(after?.text ?? ''))
        break
    }
  }
  if (is(...NPM_INSTALLS)) out.push(...installEffects('npm --prefix', directories, global))
  // `npm test -- ARGS`, `npm run S -- ARGS`: ARGS go to the script's program, which the policy
  // cannot see: they are read as each test runner and linter it may run would read them
  if (argv.scriptArgs !== undefined && is('test', 'run', 'start', 'stop', 'restart')) {
    const own = scriptArgumentEffects(words.slice(argv.scriptArgs + 1), 'npm')
    const directory = runnerDirectory(words, 'npm')
    out.push(...(directory === undefined ? own : inDirectoryEffects(own, directory)))
  }
  const writer = commands.find((c) => NPM_WRITES_PACKAGE.has(c.command))
  if (writer !== undefined) {
    for (const d of directories.length > 0 ? directories : [lit('.')]) {
      const file = d.literal
        ? lit(`${d.text.replace(/\/+$/, '')}/package.json`, d.tilde)
        : dyn(d.text)
      out.push(write(`npm ${writer.command}`, file))
    }
  }
  return out
}

/** Options of pnpm and yarn naming where they install. */
export const PM_DIRECTORY = new Set([
  'prefix',
  'dir',
  'cwd',
  'modules-folder',
  'global-dir',
  'global-folder',
  'modules-dir',
  'virtual-store-dir',
  'lockfile-dir',
  'store-dir',
  'cache-folder'
])

/** pnpm and yarn commands whose operands are packages they fetch (`pnpm add github:u/r`). */
export const PM_FETCHES = new Set([
  'add',
  'install',
  'i',
  'update',
  'up',
  'upgrade',
  'upgrade-interactive',
  'dlx',
  'create',
  'global',
  'import',
  'link',
  'ln',
  'patch'
])

/** pnpm and yarn commands that install into (or remove from) the project. */
export const PM_INSTALLS = new Set([
  'install',
  'i',
  'add',
  'update',
  'up',
  'upgrade',
  'remove',
  'rm',
  'uninstall',
  'un',
  'prune',
  'rebuild',
  'rb',
  'link',
  'ln',
  'import',
  'dedupe'
])

/**
 * The words of a pnpm or yarn command line that may be the command. A word right after an
 * option that may take a value may be that value, so the next one may be the command too; the
 * command is `definite` once a word cannot be a value.
 */
export function pmCommands(words: readonly ShellWord[]): {
  candidates: number[]
  definite: boolean
} {
  const candidates: number[] = []
  let valued = false
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (t === '--') break
    if (t.startsWith('-') && t.length > 1) {
      // any option may take the next word as its value, unless its value is attached
      valued = !t.includes('=')
      continue
    }
    if (!w.literal) {
      valued = true // it may be anything: the next word may be the command as well
      continue
    }
    candidates.push(i)
    if (!valued) return { candidates, definite: true }
    valued = false
  }
  return { candidates, definite: false }
}

/**
 * How many of the words are pnpm's own: `pnpm exec [options] PROGRAM ARGS…` hands PROGRAM and
 * its arguments over unread (pnpm's escapeArgs), so `pnpm exec tsc -p x` sets no pnpm option.
 */
function pmOwnWords(
  words: readonly ShellWord[],
  name: string,
  candidates: number[],
  definite: boolean
): number {
  const command = candidates[candidates.length - 1]
  if (name !== 'pnpm' || !definite || command === undefined) return words.length
  if ((words[command] as ShellWord).text !== 'exec') return words.length
  const program = pmCommands(words.slice(command))
  const last = program.candidates[program.candidates.length - 1]
  return program.definite && last !== undefined ? command + last : words.length
}

/** pnpm's and yarn's own commands (and those pnpm hands to npm): not a program they run. */
export const PM_COMMANDS = new Set(
  (
    'access add adduser approve-builds audit autoclean bin bugs c cache cat-file cat-index ' +
    'catalog check config constraints create dedupe deploy deprecate dist-tag dlx docs doctor ' +
    'edit env exec explain fetch find-hash generate-lock-entry get global help i ignored-builds ' +
    'import info init install install-test it licenses link list ll ln login logout node npm ' +
    'outdated owner pack patch patch-commit patch-remove ping pkg plugin policies prefix profile ' +
    'prune publish rb rebuild recursive remove repo rm root run s sdks search self-update server ' +
    'set set-script setup show stage star stars start store t tag team test token un uninstall ' +
    'unlink unplug unpublish unstar up update upgrade upgrade-interactive v version versions view ' +
    'whoami why workspace workspaces xmas'
  ).split(' ')
)

/**
 * npx's own flags, which take no value. Any other option may be one of npm's many settings with
 * a value (`--loglevel silent`, `--omit dev`): the word after it may be its value or the program.
 */
export const NPX_FLAGS = new Set(
  ['y', 'yes', 'no', 'q', 'quiet', 's', 'silent', 'd', 'dd', 'ddd', 'verbose', 'offline']
    .concat(['prefer-offline', 'prefer-online', 'ignore-existing', 'force', 'f', 'global', 'g'])
    .concat(['foreground-scripts', 'no-yes', 'no-install', 'install'])
)

/** Whether the word at `i` of an npx command line may be the value of the option before it. */
export function npxMayBeValue(words: readonly ShellWord[], i: number): boolean {
  const before = words[i - 1]
  if (before === undefined || i < 2 || !before.literal) return false
  const t = before.text
  if (!t.startsWith('-') || t.length < 2 || t.includes('=') || t === '--') return false
  const key = t.replace(LEADING_DASHES, '').toLowerCase().replace(UNDERSCORES, '-')
  return !NPX_FLAGS.has(key) && !NPX_VALUE.has(key) && t !== '-c' && t !== '-p'
}

/** Whether the word before index `i` is an option that may take the word at `i` as its value. */
export function afterOption(words: readonly ShellWord[], i: number): boolean {
  const before = words[i - 1]
  if (before === undefined) return false
  const t = before.literal ? before.text : before.prefix
  return t.startsWith('-') && t.length > 1 && !t.includes('=') && !/^-{2,}$/.test(t)
}

/**
 * The directory a package manager runs its program or script in, when its own options move it:
 * `pnpm -C DIR` / `--dir DIR`, `yarn --cwd DIR`, `npm --prefix DIR` (the last one counts).
 * Its own options only: those before the command (a word after it is the program's).
 */
export function runnerDirectory(words: readonly ShellWord[], name: string): ShellWord | undefined {
  const keys =
    name === 'pnpm' ? ['dir'] : name === 'yarn' ? ['cwd'] : name === 'npm' ? ['prefix'] : []
  if (keys.length === 0) return undefined
  let found: ShellWord | undefined
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (!t.startsWith('-') || t === '--') {
      // an operand: the command, unless it is the value of the option before it
      if (i > 1 && afterOption(words, i)) continue
      break
    }
    const eq = t.indexOf('=')
    const key = (eq < 0 ? t : t.slice(0, eq)).replace(LEADING_DASHES, '').toLowerCase()
    if (name === 'pnpm' && t.startsWith('-C') && !t.startsWith('--')) {
      found = t.length > 2 ? lit(t.slice(2), t.startsWith('-C~')) : words[i + 1]
    } else if (t.startsWith('--') && keys.includes(key)) {
      found =
        eq >= 0 && w.literal
          ? lit(t.slice(eq + 1), t.slice(eq + 1).startsWith('~'))
          : eq >= 0
            ? dyn(w.text.slice(w.text.indexOf('=') + 1), t.slice(eq + 1))
            : words[i + 1]
    }
  }
  const text = found === undefined ? '' : found.literal ? found.text : found.prefix
  return found === undefined || (found.literal && /^\.\/?$/.test(text)) ? undefined : found
}

/**
 * A script or a binary run in the directory the package manager moved to (`npm --prefix DIR
 * test`, `pnpm -C DIR exec P`): DIR's package.json and node_modules, which the rules do not
 * protect as they may protect the working directory's.
 */
function movedScripts(name: string, directory: ShellWord): CommandEffect {
  return runsCode(
    `${name} runs the scripts and binaries of ${directory.text}/package.json and ` +
      `${directory.text}/node_modules, which the rules never saw`
  )
}

/** pnpm's and yarn's commands that run a script named after them (`yarn run S`, `pnpm S`). */
const PM_SCRIPT_RUNNERS = new Set(['run', 'run-script'])
const PM_SCRIPTS = new Set(['test', 't', 'tst', 'start', 'stop', 'restart'])

/**
 * The words pnpm or yarn hand to a script, in each reading of which word is the command: those
 * after `run S` / `run-script S`, after `test`, `start`, …, and after a name that is none of their
 * own commands (a script, or a package binary, whose own reading is package-runners.ts').
 */
function pmScriptArguments(words: readonly ShellWord[], candidates: number[]): ShellWord[][] {
  const out: ShellWord[][] = []
  const dropDash = (args: ShellWord[]) =>
    args[0]?.literal === true && args[0].text === '--' ? args.slice(1) : args
  for (const c of candidates) {
    const t = (words[c] as ShellWord).text
    if (PM_SCRIPT_RUNNERS.has(t)) {
      // the script is the first word after `run` that is not one of pnpm's own options
      const script = words.findIndex(
        (w, i) => i > c && !(w.literal && w.text.startsWith('-') && w.text !== '-')
      )
      if (script > 0) out.push(dropDash(words.slice(script + 1)))
    } else if (PM_SCRIPTS.has(t) || !PM_COMMANDS.has(t)) {
      out.push(dropDash(words.slice(c + 1)))
    }
  }
  return out.filter((args) => args.length > 0)
}

/** npx, pnpm and yarn (npm itself: npmCliEffects). */
export function npmEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  if (name === 'npm') return npmCliEffects(words)
  const out: CommandEffect[] = []
  const npx = name === 'npx'
  const { candidates, definite } = npx ? { candidates: [], definite: true } : pmCommands(words)
  const named = (...names: string[]) =>
    candidates.filter((i) => names.includes((words[i] as ShellWord).text))
  const exec = npx || named('exec', 'x', 'dlx').length > 0
  const directories: ShellWord[] = []
  let global = false
  for (let i = 1; i < pmOwnWords(words, name, candidates, definite); i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      const effect = npmDynamicWord(w, name)
      if (effect !== undefined) out.push(effect)
      if (npx && !w.prefix.startsWith('-')) break
      continue
    }
    const t = w.text
    if (t === '--') break
    if (t.startsWith('-') && t.length > 1) {
      const eq = t.indexOf('=')
      let key = (eq < 0 ? t : t.slice(0, eq))
        .replace(LEADING_DASHES, '')
        .toLowerCase()
        .replace(UNDERSCORES, '-')
      if (key.startsWith('config.')) key = key.slice('config.'.length) // pnpm --config.KEY=VALUE
      const attached = t.slice(eq + 1)
      const value = eq < 0 ? words[i + 1] : lit(attached, attached.startsWith('~'))
      const code = npmCodeOption(
        { text: t, key, negated: false, index: i, ...(value ? { value } : {}) },
        t
      )
      if (code !== undefined) {
        out.push(
          runsCode(
            `${name} ${t} sets ${code} configuration, which makes it run other code or load ` +
              'other configuration'
          )
        )
      }
      if (exec && (key === 'package' || (t === '-p' && name !== 'yarn'))) {
        out.push(network(`${name} ${t} downloads and runs a package`))
      }
      if (exec && (t === '-c' || key === 'shell-mode') && name !== 'yarn')
        out.push(runsCode(`${name} ${t} runs a shell command`))
      const negated = key.startsWith('no-')
      const connects = connectionOption(name, negated ? key.slice(3) : key, value, negated)
      if (connects !== undefined) out.push(connects)
      if (t.startsWith('--')) {
        if (key === 'global' && attached !== 'false') global = true
      } else if (/^-[A-Za-z]*g/.test(t)) {
        global = true
      }
      if (value !== undefined) {
        if ((PM_DIRECTORY.has(key) && t.startsWith('--')) || t === '-C') {
          if (!isWorkingDirectory(value)) directories.push(value)
        } else if (!t.startsWith('--') && t.startsWith('-C') && t.length > 2) {
          directories.push(lit(t.slice(2), t.startsWith('-C~')))
        }
        if (key === 'registry' || /^@[^:]+:registry$/.test(key)) {
          out.push(urlEffect(`${name} --${key}`, value, []))
        }
      }
      if (npx && eq < 0 && (NPX_VALUE.has(key) || t === '-c' || t === '-p')) i++
      continue
    }
    // npx: the first operand is the command, and the words after it are its own; one after an
    // option that may take a value may be that value (package-runners.ts reads it both ways)
    if (npx && !npxMayBeValue(words, i)) break
  }
  for (const i of candidates) {
    const t = (words[i] as ShellWord).text
    if (t === 'dlx') out.push(network(`${name} dlx downloads and runs a package`))
    const what = NPM_RUNS_CODE[t]
    if (what !== undefined) out.push(runsCode(`${name} ${t} ${what}`))
  }
  // `yarn test ARGS`, `pnpm run lint ARGS`, `pnpm lint ARGS`: pnpm and yarn hand every word
  // after the script's name to the script (options included), read as npm's `-- ARGS` are
  if (!npx) {
    const directory = runnerDirectory(words, name)
    const runsThere = candidates.some((c) => {
      if (words[c] === directory) return false // the directory itself (`--dir DIR`)
      const t = (words[c] as ShellWord).text
      return PM_SCRIPT_RUNNERS.has(t) || PM_SCRIPTS.has(t) || t === 'exec' || !PM_COMMANDS.has(t)
    })
    if (directory !== undefined && runsThere) out.push(movedScripts(name, directory))
    for (const args of pmScriptArguments(words, candidates)) {
      const own = scriptArgumentEffects(args, name)
      out.push(...(directory === undefined ? own : inDirectoryEffects(own, directory)))
    }
  }
  for (const i of named('config', 'c')) {
    const change = words
      .slice(i + 1)
      .find((w) => w.literal && (w.text === 'set' || w.text === 'edit' || w.text === 'delete'))
    if (change !== undefined) {
      out.push(runsCode(`${name} config ${change.text} ${NPM_RUNS_CODE.set ?? ''}`))
    }
  }
  // bare `pnpm` / `yarn` installs, as does a command line whose every operand may be a value
  const yarnGlobal = name === 'yarn' && named('global').length > 0
  const installs =
    !npx &&
    (!definite ||
      candidates.some((i) => PM_INSTALLS.has((words[i] as ShellWord).text)) ||
      yarnGlobal)
  if (yarnGlobal) global = true
  if (installs) out.push(...installEffects(`${name} --dir`, directories, global))
  // what an install or a dlx fetches: a tarball URL, a git repository, a GitHub shorthand (not
  // the arguments of a script or program it runs: `pnpm exec tsc --outDir src/out`)
  const first = candidates[0]
  const command = definite
    ? (words[candidates[candidates.length - 1] ?? 0] as ShellWord)
    : undefined
  const fetches = command === undefined || PM_FETCHES.has(command.text)
  if (!npx && first !== undefined && fetches) {
    for (const w of words.slice(first + 1)) {
      const effect = w.literal && !w.text.startsWith('-') ? specEffect(name, w) : undefined
      if (effect !== undefined) out.push(effect)
    }
  } else if (npx) {
    for (const w of words.slice(1)) {
      if (!w.literal) break
      if (w.text.startsWith('-')) continue
      const effect = specEffect(name, w)
      if (effect !== undefined) out.push(effect)
      break
    }
  }
  return out
}
