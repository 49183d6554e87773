/**
 * How npm reads its command line, as npm 11 does it (nopt and cmd-list.js, checked against npm
 * 11.19.1 with `npm config get KEY ARGS`): which option a word sets, which word is the value of
 * an option, and which command a word names. The policy's npm checks (commands.ts) and its
 * deny/ask matching of npm commands (`npm pub` is `npm publish`) read npm's words through here,
 * so that an abbreviation, alias or shorthand spelling means to the policy what it means to npm.
 *
 * nopt, for each word starting with `-` (one dash or two, alike):
 * - `KEY=VALUE` splits at the first `=`;
 * - an exact configuration key is that key;
 * - an exact shorthand expands (`-C` → `--prefix`, `-s` → `--loglevel silent`);
 * - a word of single-character shorthands expands each (`-sC` → `-s -C`, `--gl` → `-g -l`);
 * - an unambiguous abbreviation of a key is that key (`--prefi` → `--prefix`), else of a
 *   shorthand; `no-` negates;
 * - how a key takes a value depends on its type, so every reading is kept (NpmOption).
 */
import type { ShellWord } from '../shell-word.js'

/** npm 11's configuration keys (@npmcli/config definitions). */
const KEYS = (
  '_auth access all allow-same-version allow-directory allow-file allow-git allow-remote ' +
  'allow-scripts also audit audit-level auth-type before bin-links browser bypass-2fa ca cache ' +
  'cache-max cache-min cafile call cert cidr color commit-hooks cpu ' +
  'dangerously-allow-all-scripts depth description dev diff diff-ignore-all-space ' +
  'diff-name-only diff-no-prefix diff-dst-prefix diff-src-prefix diff-text diff-unified dry-run ' +
  'editor engine-strict expect-result-count expect-results expires fetch-retries ' +
  'fetch-retry-factor fetch-retry-maxtimeout fetch-retry-mintimeout fetch-timeout force ' +
  'foreground-scripts format-package-lock fund git git-tag-version global globalconfig ' +
  'global-style heading https-proxy if-present ignore-scripts include include-staged ' +
  'include-workspace-root include-attestations init-author-email init-author-name ' +
  'init-author-url init-license init-module init-type init-version init-private ' +
  'init.author.email init.author.name init.author.url init.license init.module init.version ' +
  'install-links install-strategy json key legacy-bundling legacy-peer-deps libc link ' +
  'local-address location lockfile-version loglevel logs-dir logs-max long name maxsockets ' +
  'message min-release-age min-release-age-exclude node-gyp node-options noproxy offline omit ' +
  'omit-lockfile-registry-resolved only orgs optional os otp package package-lock ' +
  'package-lock-only pack-destination packages parseable allow-scripts-pending ' +
  'allow-scripts-pin prefer-dedupe prefer-offline prefer-online prefix preid production ' +
  'progress provenance provenance-file proxy read-only rebuild-bundle registry ' +
  'replace-registry-host save save-bundle save-dev save-exact save-optional save-peer ' +
  'save-prefix save-prod sbom-format sbom-type scope scopes packages-all ' +
  'packages-and-scopes-permission orgs-permission password token-description script-shell ' +
  'searchexclude searchlimit searchopts searchstaleness shell shrinkwrap sign-git-commit ' +
  'sign-git-tag strict-peer-deps strict-allow-scripts strict-ssl tag tag-version-prefix timing ' +
  'umask unicode update-notifier usage user-agent userconfig version versions viewer which ' +
  'workspace workspaces workspaces-update yes'
).split(' ')

const SHORTHANDS: Readonly<Record<string, readonly string[]>> = {
  'enjoy-by': ['--before'],
  d: ['--loglevel', 'info'],
  dd: ['--loglevel', 'verbose'],
  ddd: ['--loglevel', 'silly'],
  quiet: ['--loglevel', 'warn'],
  q: ['--loglevel', 'warn'],
  s: ['--loglevel', 'silent'],
  silent: ['--loglevel', 'silent'],
  verbose: ['--loglevel', 'verbose'],
  desc: ['--description'],
  help: ['--usage'],
  local: ['--no-global'],
  n: ['--no-yes'],
  no: ['--no-yes'],
  porcelain: ['--parseable'],
  readonly: ['--read-only'],
  reg: ['--registry'],
  iwr: ['--include-workspace-root'],
  ws: ['--workspaces'],
  a: ['--all'],
  c: ['--call'],
  f: ['--force'],
  g: ['--global'],
  L: ['--location'],
  l: ['--long'],
  m: ['--message'],
  p: ['--parseable'],
  C: ['--prefix'],
  S: ['--save'],
  B: ['--save-bundle'],
  D: ['--save-dev'],
  E: ['--save-exact'],
  O: ['--save-optional'],
  P: ['--save-prod'],
  '?': ['--usage'],
  H: ['--usage'],
  h: ['--usage'],
  v: ['--version'],
  w: ['--workspace'],
  y: ['--yes']
}

/** npm 11's commands and aliases (lib/utils/cmd-list.js). */
const COMMANDS = (
  'access adduser approve-scripts audit bugs cache ci completion config dedupe deny-scripts ' +
  'deprecate diff dist-tag docs doctor edit exec explain explore find-dupes fund get help ' +
  'help-search init install install-ci-test install-scripts install-test link ll login logout ' +
  'ls org outdated owner pack ping pkg prefix profile prune publish query rebuild repo restart ' +
  'root run sbom search set shrinkwrap stage star stars start stop team test token trust ' +
  'undeprecate uninstall unpublish unstar update version view whoami'
).split(' ')

const ALIASES: Readonly<Record<string, string>> = {
  author: 'owner',
  home: 'docs',
  issues: 'bugs',
  info: 'view',
  show: 'view',
  find: 'search',
  add: 'install',
  unlink: 'uninstall',
  remove: 'uninstall',
  rm: 'uninstall',
  r: 'uninstall',
  un: 'uninstall',
  rb: 'rebuild',
  list: 'ls',
  ln: 'link',
  create: 'init',
  i: 'install',
  it: 'install-test',
  cit: 'install-ci-test',
  u: 'update',
  up: 'update',
  c: 'config',
  s: 'search',
  se: 'search',
  tst: 'test',
  t: 'test',
  ddp: 'dedupe',
  v: 'view',
  'run-script': 'run',
  'clean-install': 'ci',
  'clean-install-test': 'install-ci-test',
  x: 'exec',
  why: 'explain',
  la: 'll',
  verison: 'version',
  ic: 'ci',
  innit: 'init',
  in: 'install',
  ins: 'install',
  inst: 'install',
  insta: 'install',
  instal: 'install',
  isnt: 'install',
  isnta: 'install',
  isntal: 'install',
  isntall: 'install',
  'install-clean': 'ci',
  'isntall-clean': 'ci',
  hlep: 'help',
  'dist-tags': 'dist-tag',
  upgrade: 'update',
  udpate: 'update',
  rum: 'run',
  sit: 'install-ci-test',
  urn: 'run',
  ogr: 'org',
  'add-user': 'adduser'
}

/** The `abbrev` package: every unambiguous prefix of a word, and each word itself. */
function abbreviations(words: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  const sorted = [...new Set(words)].sort()
  for (let i = 0; i < sorted.length; i++) {
    const word = sorted[i] as string
    const prev = sorted[i - 1] ?? ''
    const next = sorted[i + 1] ?? ''
    const shared = Math.max(commonPrefix(word, prev), commonPrefix(word, next))
    for (let n = shared + 1; n <= word.length; n++) out.set(word.slice(0, n), word)
  }
  for (const word of sorted) out.set(word, word)
  return out
}

function commonPrefix(a: string, b: string): number {
  let n = 0
  while (n < a.length && a[n] === b[n]) n++
  return n
}

const KEY_ABBREVIATIONS = abbreviations(KEYS)
const SHORTHAND_ABBREVIATIONS = abbreviations(Object.keys(SHORTHANDS))
const COMMAND_ABBREVIATIONS = abbreviations([...COMMANDS, ...Object.keys(ALIASES)])

/** The command a word names to npm (`pub` → `publish`, `i` → `install`), or undefined. */
export function npmCommand(word: string): string | undefined {
  let c = /[A-Z]/.test(word) ? word.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`) : word
  if (COMMANDS.includes(c)) return c
  const alias = ALIASES[c]
  if (alias !== undefined) return alias
  c = COMMAND_ABBREVIATIONS.get(c) ?? ''
  while (ALIASES[c] !== undefined) c = ALIASES[c] as string
  return c === '' ? undefined : c
}

/**
 * One option as npm may read it: the key, negated by `no-`, and the word that may be its value.
 * npm's reading depends on each option's type (a string option does not take a next word that
 * looks like an option; a boolean one takes only `true`/`false`; `--KEY=VALUE` of a boolean key
 * leaves VALUE as an operand), so the policy does not pick one reading: every word that may be
 * an option is read as one, every word that may be an option's value is also read as a value,
 * and every word that may be the command is a command. A check that holds for each reading holds
 * for npm's.
 */
export interface NpmOption {
  /** The word (or the part of `KEY=VALUE`) it was read from. */
  text: string
  key: string
  negated: boolean
  /** The word that may be its value (after `=`, the next word, or a shorthand's own value). */
  value?: ShellWord
  /** The index of the word it was read from. */
  index: number
}

/** The options a name (`prefix`, `sC`, `no-global`) stands for, as keys. */
function optionKeys(name: string): Array<{ key: string; negated: boolean; value?: string }> {
  const expansion = expand(name)
  const out: Array<{ key: string; negated: boolean; value?: string }> = []
  for (let k = 0; k < expansion.length; k++) {
    let key = (expansion[k] as string).replace(/^-+/, '')
    let negated = false
    while (key.toLowerCase().startsWith('no-')) {
      negated = !negated
      key = key.slice(3)
    }
    key = KEY_ABBREVIATIONS.get(key) ?? key
    const own = expansion[k + 1]
    if (own !== undefined && !own.startsWith('-')) {
      out.push({ key, negated, value: own }) // `-s` is `--loglevel silent`
      k++
    } else {
      out.push({ key, negated })
    }
  }
  return out
}

/** nopt's resolveShort: the words a name stands for (itself when it is not a shorthand). */
function expand(name: string): readonly string[] {
  if (KEY_ABBREVIATIONS.get(name) === name) return [name]
  const exact = SHORTHANDS[name]
  if (exact !== undefined) return exact
  if (name.length > 1 && [...name].every((c) => SHORTHANDS[c] !== undefined)) {
    return [...name].flatMap((c) => SHORTHANDS[c] as readonly string[])
  }
  if (KEY_ABBREVIATIONS.has(name)) return [name]
  const short = SHORTHAND_ABBREVIATIONS.get(name)
  if (short !== undefined) return SHORTHANDS[short] as readonly string[]
  return [name]
}

function literal(text: string): ShellWord {
  return { text, literal: true, prefix: text, tilde: text.startsWith('~') }
}

/** One word of npm's command line after `KEY=VALUE` is split in two, as nopt splits it. */
interface Token {
  word: ShellWord
  /** The index of the word in the command. */
  index: number
  /** VALUE of `KEY=VALUE`. */
  attached: boolean
}

/** npm's command line under every reading: its options, operands and possible commands. */
export interface NpmArgv {
  options: NpmOption[]
  /** The words that may be npm's command, in order (the last is the one no reading skips). */
  commands: Array<{ word: ShellWord; index: number }>
  /** Every word that is not an option, in order (an option's value may be among them). */
  operands: Array<{ word: ShellWord; index: number }>
  /**
   * The index of the `--` after which npm reads no option, once its command was read (or of
   * the command, when a `--` came before it): the words after it are the script's.
   */
  scriptArgs?: number
}

const isOptionText = (t: string) => t.startsWith('-') && t.length > 1 && !/^-{2,}$/.test(t)

/** Reads `words` (words[0] is npm) under every reading npm's parser may make of them. */
export function npmArgv(words: readonly ShellWord[]): NpmArgv {
  const tokens: Token[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const eq = w.literal && isOptionText(w.text) ? w.text.indexOf('=') : -1
    if (eq < 0) {
      tokens.push({ word: w, index: i, attached: false })
    } else {
      tokens.push({ word: literal(w.text.slice(0, eq)), index: i, attached: false })
      tokens.push({ word: literal(w.text.slice(eq + 1)), index: i, attached: true })
    }
  }
  const argv: NpmArgv = { options: [], commands: [], operands: [] }
  let options = true
  /** The previous token may take this one as its value. */
  let valued = false
  let found = false
  for (let t = 0; t < tokens.length; t++) {
    const { word, index, attached } = tokens[t] as Token
    const text = word.literal ? word.text : word.prefix
    if (options && /^-{2,}$/.test(text) && word.literal && !attached) {
      options = false // the rest are operands; the first may still be the command
      if (found) argv.scriptArgs = index
      valued = false
      continue
    }
    if (options && isOptionText(text)) {
      if (word.literal) {
        const next = tokens[t + 1]
        for (const o of optionKeys(text.replace(/^-+/, ''))) {
          const option: NpmOption = { key: o.key, negated: o.negated, index, text }
          if (o.value !== undefined) option.value = literal(o.value)
          else if (next !== undefined && !/^-{2,}$/.test(next.word.text)) option.value = next.word
          argv.options.push(option)
        }
      }
      valued = true
      continue
    }
    // an operand, or the value of the option before it (VALUE of KEY=VALUE may be either)
    argv.operands.push({ word, index })
    if (!found) {
      argv.commands.push({ word, index })
      if (!valued && !attached) {
        found = true
        // `npm -- test ARGS`: after a `--` before the command, every word after it is the
        // script's (npm reads no option there and hands them over)
        if (!options) argv.scriptArgs = index
      }
    }
    valued = false
  }
  return argv
}
