/**
 * git: its global options, and the files, hosts and programs each subcommand writes, reaches or
 * runs.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dirName,
  dyn,
  dynamicArgument,
  fileWrite,
  isAbsolute,
  joinPath,
  lit,
  mayBeOption,
  network,
  problem,
  read,
  runsCode,
  staysInside,
  write,
  writesUnknown
} from './effects.js'
import { type Option, type OptionTable, parseOptions } from './options.js'

// ---------------------------------------------------------------------------------------------
// git

/** `git -c` settings that cannot make git run anything (keys lower-cased). */
export const GIT_SAFE_CONFIG = new Set([
  'color.ui',
  'color.diff',
  'color.status',
  'color.branch',
  'color.grep',
  'core.quotepath',
  'core.abbrev',
  'diff.noprefix',
  'diff.renames',
  'log.showsignature',
  'user.name',
  'user.email',
  'init.defaultbranch',
  'advice.detachedhead',
  'column.ui',
  'pager.branch',
  'pager.log',
  'pager.diff',
  'pager.show'
])

export const TRAILING_SLASHES = /\/+$/
export const UNDERSCORES = /_/g
export const LEADING_SLASHES = /^\/+/
export const LEADING_DASHES = /^-+/
export const WHITESPACE = /\s+/
/** `-x`, `-ix`: git rebase's --exec in a cluster of short options. */
export const REBASE_EXEC_CLUSTER = /^-[a-zA-Z]*x/
/** `-u`, `-mu`: git read-tree's update of the working tree. */
export const READ_TREE_UPDATE = /^-[a-z]*u/

/**
 * How git's own options before the subcommand can make it run other code, write or connect.
 *
 * `-c`: only settings that run nothing (GIT_SAFE_CONFIG, `core.pager=cat`). `--config-env`,
 * `--exec-path=DIR`, `--paginate`: runs code. `--git-dir`: only `.git` (another repository's
 * config runs programs: core.fsmonitor, core.pager, hooks). `-C DIR`: a literal relative path
 * that stays inside the working directory is treated like `cd DIR && git` (which the shell rules
 * already allow); absolute, `~`, `..`-escaping or run-time paths are denied. A repository the
 * agent plants inside the workspace (a bare repo's `config` in a writable directory) is the
 * same risk as `cd dir && git status`, and is for the write rules and the OS sandbox to stop.
 * `--work-tree`: only `.`. `--namespace` is harmless.
 */
export function gitGlobal(words: readonly ShellWord[]): {
  effects: CommandEffect[]
  index: number
  /** Where `-C` moved git ('' when it did not). */
  dir: string
} {
  const out: CommandEffect[] = []
  let dir = ''
  let i = 1
  const valueOf = (t: string, option: string): ShellWord | undefined => {
    if (t.length > option.length && t[option.length] === '=') return lit(t.slice(option.length + 1))
    i++
    return words[i]
  }
  /** The next word, the value of -c or -C; one only known at run time is a problem (`could`). */
  const literalNext = (could: string): ShellWord | undefined => {
    i++
    const value = words[i]
    if (value === undefined || value.literal) return value
    out.push(dynamicArgument('git', value, could))
    return undefined
  }
  for (; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (mayBeOption(w)) {
        out.push(dynamicArgument('git', w, 'an option (-c, --exec-path) or a subcommand'))
        return { effects: out, index: words.length, dir }
      }
      break
    }
    const t = w.text
    if (!t.startsWith('-')) break
    if (t === '-c') {
      const setting = literalNext('a setting that runs a program (core.pager=sh)')
      if (setting === undefined) continue
      const eq = setting.text.indexOf('=')
      const key = (eq < 0 ? setting.text : setting.text.slice(0, eq)).toLowerCase()
      const value = eq < 0 ? '' : setting.text.slice(eq + 1)
      const pagerCat = key === 'core.pager' && value === 'cat'
      // pager.<cmd> takes a boolean, or the pager command itself: only booleans are safe
      const booleanPager =
        !key.startsWith('pager.') || /^(?:true|false|yes|no|on|off|0|1|)$/i.test(value)
      if ((!GIT_SAFE_CONFIG.has(key) || !booleanPager) && !pagerCat) {
        out.push(
          runsCode(
            `git -c ${setting.text} sets git configuration for the command, and settings such ` +
              'as core.pager, core.fsmonitor, diff.external or alias.* run programs'
          )
        )
      }
    } else if (t === '--config-env' || t.startsWith('--config-env=')) {
      valueOf(t, '--config-env')
      out.push(
        runsCode(
          'git --config-env sets git configuration from a variable, and settings such as ' +
            'core.pager or core.fsmonitor run programs'
        )
      )
    } else if (t.startsWith('--exec-path=')) {
      out.push(runsCode('git --exec-path=DIR runs git subcommands from DIR'))
    } else if (t === '-C') {
      const to = literalNext('a repository whose configuration runs programs')
      if (to === undefined) continue
      dir = isAbsolute(to.text) ? to.text : dir === '' ? to.text : `${dir}/${to.text}`
      if (to.tilde || !staysInside(dir)) {
        out.push(
          runsCode(
            `git -C ${to.text} works in a repository outside the working directory, whose ` +
              'configuration (core.fsmonitor, core.pager, hooks) can run programs'
          )
        )
      }
    } else if (t === '--git-dir' || t.startsWith('--git-dir=')) {
      const v = valueOf(t, '--git-dir')
      if (v === undefined) continue
      const p = v.text.replace(TRAILING_SLASHES, '')
      if (!v.literal || v.tilde || (p !== '.git' && p !== './.git')) {
        out.push(
          runsCode(
            `git --git-dir=${v.text} uses another repository, whose configuration ` +
              '(core.fsmonitor, core.pager, hooks) can run programs'
          )
        )
      }
    } else if (t === '--work-tree' || t.startsWith('--work-tree=')) {
      const v = valueOf(t, '--work-tree')
      if (v === undefined) continue
      if (!v.literal || (v.text !== '.' && v.text !== './')) {
        out.push(
          writesUnknown(`git --work-tree=${v.text} reads and writes files in another directory`)
        )
      }
    } else if (
      t === '--namespace' ||
      t === '--super-prefix' ||
      t === '--attr-source' ||
      t === '--list-cmds'
    ) {
      i++
    } else if (t === '-p' || t === '--paginate') {
      out.push(runsCode('git --paginate runs the configured pager; use --no-pager'))
    }
  }
  return { effects: out, index: i, dir }
}

export function gitEffects(words: readonly ShellWord[]): CommandEffect[] {
  const { effects, index, dir } = gitGlobal(words)
  const sub = words[index]
  if (sub === undefined) return effects
  if (!sub.literal) {
    effects.push(
      problem(
        'dynamic-argument',
        `the git subcommand "${sub.text}" is only known when the command runs`
      )
    )
    return effects
  }
  const handler = GIT_SUBCOMMANDS.get(sub.text)
  if (handler !== undefined) {
    const own = handler(words.slice(index), sub.text)
    // git -C DIR resolves its output paths from DIR, which may be a link out of the rules' reach
    const moved = dir !== '' && dir.replace(TRAILING_SLASHES, '') !== '.'
    effects.push(
      ...own.map((e) =>
        moved && e.kind === 'write'
          ? writesUnknown(`git -C ${dir} writes ${e.target.text} relative to ${dir}`)
          : e
      )
    )
  } else if (!GIT_INERT.has(sub.text)) {
    // plumbing and rarer porcelain run programs (fetch-pack --upload-pack, remote-ext,
    // for-each-repo, merge-index) or write where they are told (mailinfo, interpret-trailers);
    // aliases come from configuration: only subcommands known to do neither are let through
    effects.push(
      runsCode(
        `git ${sub.text} is not a subcommand the policy knows to run nothing and write nothing it can check`
      )
    )
  }
  return effects
}

/** git subcommands with no handler above that read and print only (given inert global options). */
export const GIT_INERT = new Set([
  'status',
  'log',
  'shortlog',
  'blame',
  'annotate',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'rev-list',
  'describe',
  'name-rev',
  'merge-base',
  'cat-file',
  'show-ref',
  'show-branch',
  'for-each-ref',
  'count-objects',
  'check-ignore',
  'check-attr',
  'check-ref-format',
  'cherry',
  'version',
  'help',
  'verify-commit',
  'verify-tag',
  'reflog',
  'branch',
  'add',
  'commit',
  'init',
  'notes',
  'stage',
  'whatchanged',
  'grep',
  'diff',
  'show',
  'range-diff',
  'format-patch',
  'archive'
])

export type GitHandler = (args: readonly ShellWord[], sub: string) => CommandEffect[]

/** git fast-export --export-marks=FILE writes FILE (any other spelling: not known). */
export function gitFastExport(args: readonly ShellWord[]): CommandEffect[] {
  const out: CommandEffect[] = []
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as ShellWord
    if (!w.literal) {
      out.push(dynamicArgument('git fast-export', w, '--export-marks=FILE, which writes FILE'))
    } else if (w.text.startsWith('--export-marks=')) {
      out.push(write('git fast-export --export-marks', lit(w.text.slice('--export-marks='.length))))
    } else if (w.text.startsWith('--export-m')) {
      out.push(writesUnknown(`git fast-export ${w.text} writes a marks file`))
    }
  }
  return out
}

/** A pathspec git writes to: a directory, a glob (git's `*` crosses `/`) or `:(magic)`. */
export function pathspecWrite(label: string, spec: ShellWord): CommandEffect {
  if (spec.literal) {
    const t = spec.text
    if (t.startsWith(':')) {
      return writesUnknown(`${label}: the pathspec "${t}" uses pathspec magic`)
    }
    let cut = -1
    for (let i = 0; i < t.length; i++) {
      const c = t[i]
      if (c === '*' || c === '?' || c === '[' || c === '\\') {
        cut = i
        break
      }
    }
    if (cut >= 0) return write(label, lit(dirName(t.slice(0, cut) + 'x')), true)
  }
  return fileWrite(label, spec, true)
}

/** Scans a git subcommand's options: names (without dashes) and operands, `--` split. */
export interface GitArgs {
  options: Option[]
  before: ShellWord[]
  after: ShellWord[]
  dashDash: boolean
  unknown?: ShellWord
}

export function gitArgs(args: readonly ShellWord[], table: OptionTable): GitArgs {
  const parsed = parseOptions(args, table)
  let dashDash = false
  let split = parsed.operands.length
  // parseOptions puts the words after `--` at the end of operands: find where they start
  for (let i = 1; i < args.length; i++) {
    const w = args[i] as ShellWord
    if (w.literal && w.text === '--') {
      dashDash = true
      split = parsed.operands.length - (args.length - i - 1)
      break
    }
  }
  const result: GitArgs = {
    options: parsed.options,
    before: parsed.operands.slice(0, split),
    after: parsed.operands.slice(split),
    dashDash
  }
  const first = parsed.unknown[0]
  if (first !== undefined) result.unknown = first
  return result
}

export function gitUnknown(a: GitArgs, sub: string, could: string): CommandEffect[] {
  return a.unknown === undefined ? [] : [dynamicArgument(`git ${sub}`, a.unknown, could)]
}

export const GIT_DIFF: OptionTable = {
  shortValue: 'oSGLn',
  shortOptional: 'UlMCB',
  longValue: ['output', 'output-directory'],
  flags: ['output-indicator-new', 'output-indicator-old', 'output-indicator-context'],
  alias: { o: 'output-directory' },
  effectful: ['output', 'ext-diff', 'output-directory'],
  effectfulShort: 'o'
}

export const gitDiffLike: GitHandler = (args, sub) => {
  const a = gitArgs(args, GIT_DIFF)
  const out = gitUnknown(a, sub, 'an option that writes a file (--output) or runs a program')
  const has = (n: string): boolean => a.options.some((o) => o.name === n)
  for (const o of a.options) {
    if (o.name === 'output') {
      out.push(
        o.value === undefined
          ? writesUnknown(`git ${sub} --output`)
          : fileWrite(`git ${sub} --output`, o.value)
      )
    }
    if (o.name === 'ext-diff') {
      out.push(runsCode(`git ${sub} --ext-diff runs the external diff program`))
    }
  }
  if (sub === 'format-patch' && !has('stdout')) {
    const dirs = a.options.filter((o) => o.name === 'output-directory' && o.value !== undefined)
    if (dirs.length > 0) {
      for (const o of dirs) out.push(fileWrite('git format-patch -o', o.value as ShellWord, true))
    } else {
      out.push(write('git format-patch (NNNN-*.patch)', lit('0001-commit.patch')))
    }
  }
  return out
}

export const GIT_GREP: OptionTable = {
  shortValue: 'efABCm',
  shortOptional: 'O',
  longValue: ['max-depth', 'threads', 'context', 'after-context', 'before-context', 'max-count'],
  longOptional: ['open-files-in-pager'],
  flags: ['or', 'and', 'not'],
  alias: { O: 'open-files-in-pager' },
  effectful: ['open-files-in-pager', 'ext-grep'],
  effectfulShort: 'O'
}

export const gitGrep: GitHandler = (args) => {
  const a = gitArgs(args, GIT_GREP)
  const out = gitUnknown(a, 'grep', 'an option that runs a program (-O)')
  if (a.options.some((o) => o.name === 'open-files-in-pager' || o.name === 'ext-grep')) {
    out.push(runsCode('git grep -O/--open-files-in-pager runs a pager program'))
  }
  return out
}

export const GIT_ARCHIVE: OptionTable = {
  shortValue: 'o',
  longValue: ['output', 'remote', 'exec', 'format', 'prefix', 'add-file', 'add-virtual-file'],
  alias: { o: 'output' },
  effectful: ['output', 'remote', 'exec'],
  effectfulShort: 'o'
}

export const gitArchive: GitHandler = (args) => {
  const a = gitArgs(args, GIT_ARCHIVE)
  const out = gitUnknown(
    a,
    'archive',
    'an option that writes a file or connects (--output, --remote)'
  )
  for (const o of a.options) {
    if (o.name === 'output' && o.value !== undefined)
      out.push(fileWrite('git archive --output', o.value))
    if (o.name === 'remote')
      out.push(network('git archive --remote connects to another repository'))
    if (o.name === 'exec') out.push(runsCode('git archive --exec runs a program'))
  }
  return out
}

export const gitNetwork: GitHandler = (_args, sub) => [
  network(`git ${sub} connects to another repository or host`)
]

export const gitRunsCode: GitHandler = (_args, sub) => [runsCode(`git ${sub} runs other programs`)]

export const gitWritesUnknown: GitHandler = (_args, sub) => [
  writesUnknown(
    `git ${sub} rewrites files in the working tree from commits, which can hold any file`
  )
]

export const GIT_CONFIG_READS = new Set([
  'get',
  'get-all',
  'get-regexp',
  'get-urlmatch',
  'get-color',
  'get-colorbool',
  'list',
  'l',
  'show-origin',
  'show-scope',
  'name-only',
  'null',
  'z',
  'includes',
  'no-includes',
  'type',
  'default',
  'bool',
  'int',
  'path',
  'local',
  'global',
  'system',
  'worktree',
  'file',
  'f',
  'blob'
])

export const GIT_CONFIG: OptionTable = {
  shortValue: 'f',
  longValue: ['file', 'blob', 'type', 'default'],
  alias: { f: 'file', l: 'list', z: 'null' }
}

export const gitConfig: GitHandler = (args) => {
  const a = gitArgs(args, GIT_CONFIG)
  const operands = [...a.before, ...a.after]
  const readsOnly = a.options.every((o) => GIT_CONFIG_READS.has(o.name))
  const reading = a.options.some(
    (o) => o.name.startsWith('get') || o.name === 'list' || o.name === 'l'
  )
  const sub = operands[0]
  const subRead = sub?.literal === true && (sub.text === 'get' || sub.text === 'list')
  const allKnown = operands.every((w) => w.literal)
  if (allKnown && readsOnly && (reading || subRead || operands.length <= 1)) {
    // the configuration can hold the checkout's token (http.<url>.extraheader): read keys, not it
    const lists = a.options.some((o) =>
      ['list', 'l', 'get-regexp', 'get-urlmatch'].includes(o.name)
    )
    const secret = operands.some((w) => /^(?:http|credential|url)\./i.test(w.text))
    if (lists || sub?.text === 'list' || secret) {
      return [
        problem(
          'reads-secret',
          'git config would print settings that can hold the checkout token (http.*.extraheader)'
        )
      ]
    }
    return []
  }
  return [
    runsCode(
      'git config changes git configuration, and settings such as core.pager, core.fsmonitor, ' +
        'core.hooksPath or alias.* run programs'
    )
  ]
}

/**
 * The subcommand of `git remote` or `git submodule` (its first word that is not an option), or
 * what to return instead: nothing when there is none, a problem when it is only known at run time.
 */
function ownSubcommand(
  args: readonly ShellWord[],
  name: string,
  could: string
): string | CommandEffect[] {
  const sub = args.slice(1).find((w) => !w.literal || !w.text.startsWith('-'))
  if (sub === undefined) return []
  if (!sub.literal) return [dynamicArgument(name, sub, could)]
  return sub.text
}

export const gitRemote: GitHandler = (args) => {
  const sub = ownSubcommand(args, 'git remote', 'a subcommand that connects')
  if (typeof sub !== 'string') return sub
  switch (sub) {
    case 'get-url':
      return []
    case 'show':
      return args.some((w) => w.literal && w.text === '-n')
        ? []
        : [network('git remote show connects to the remote')]
    case 'update':
    case 'prune':
      return [network(`git remote ${sub} connects to the remote`)]
    default:
      // add, rename, remove, set-url, ... (add -f also fetches)
      return [
        write(`git remote ${sub}`, lit('.git/config')),
        ...(args.some((w) => w.literal && (w.text === '-f' || w.text === '--fetch'))
          ? [network('git remote add -f fetches from the remote')]
          : [])
      ]
  }
}

export const gitSubmodule: GitHandler = (args) => {
  const sub = ownSubcommand(args, 'git submodule', 'a subcommand that runs code')
  if (typeof sub !== 'string') return sub
  switch (sub) {
    case 'status':
    case 'summary':
      return []
    case 'foreach':
      return [runsCode('git submodule foreach runs a shell command in each submodule')]
    case 'update':
    case 'add':
      return [network(`git submodule ${sub} fetches from other repositories`)]
    default:
      return [writesUnknown(`git submodule ${sub} changes submodules and git configuration`)]
  }
}

export const gitStash: GitHandler = (args) => {
  const sub = args[1]
  if (sub === undefined) {
    return [writesUnknown('git stash resets changed files to HEAD, which can hold any file')]
  }
  if (!sub.literal) return [dynamicArgument('git stash', sub, 'pop or apply, which write files')]
  if (sub.text === 'pop' || sub.text === 'apply' || sub.text === 'branch') {
    return [writesUnknown(`git stash ${sub.text} writes the stashed files, which can be any file`)]
  }
  if (STASH_READS.has(sub.text)) return []
  // `git stash`, `push`, `save`, `-p`, ...: the working tree goes back to HEAD, and HEAD can
  // hold anything the agent committed (`git apply --cached` a patch, commit, stash)
  return [writesUnknown('git stash resets changed files to HEAD, which can hold any file')]
}

/** `git stash` subcommands that leave the working tree alone. */
export const STASH_READS = new Set(['list', 'show', 'drop', 'clear', 'create', 'store'])

export const GIT_CHECKOUT: OptionTable = {
  shortValue: 'bB',
  longValue: ['orphan'],
  longOptional: ['track', 'conflict', 'pathspec-from-file', 'recurse-submodules'],
  effectful: ['pathspec-from-file'],
  effectfulShort: 'bB'
}

export const CHECKOUT_HINT =
  'when it names a branch or commit, git checkout rewrites any file that differs there; ' +
  'write "git checkout -- <path>" or "git restore <path>" to restore files'

export const gitCheckout: GitHandler = (args) => {
  const a = gitArgs(args, GIT_CHECKOUT)
  const out = gitUnknown(a, 'checkout', 'a branch or an option')
  const has = (...n: string[]): boolean => a.options.some((o) => n.includes(o.name))
  if (has('pathspec-from-file')) {
    out.push(writesUnknown('git checkout --pathspec-from-file restores files listed in a file'))
  }
  const creates = has('b', 'B', 'orphan')
  // -f / --force throws local changes away: the working tree becomes the commit checked out
  if (has('f', 'force') && a.after.length === 0) {
    out.push(writesUnknown(`git checkout --force: ${CHECKOUT_HINT}`))
  }
  if (a.dashDash) {
    if (a.after.length === 0) {
      if (a.before.length > 0 && !creates) out.push(writesUnknown(`git checkout: ${CHECKOUT_HINT}`))
      if (a.before.length > 0 && creates)
        out.push(writesUnknown('git checkout -b NAME START checks out START'))
    }
    for (const spec of a.after) out.push(pathspecWrite('git checkout', spec))
    return out
  }
  if (creates) {
    if (a.before.length > 0) out.push(writesUnknown('git checkout -b NAME START checks out START'))
    return out
  }
  if (a.before.length === 0) {
    if (has('p', 'patch'))
      out.push(writesUnknown('git checkout -p rewrites chosen changes in any file'))
    if (has('detach')) out.push(writesUnknown(`git checkout --detach: ${CHECKOUT_HINT}`))
    return out
  }
  if (a.before.length === 1) {
    const only = a.before[0] as ShellWord
    if (only.literal && (only.text === '.' || only.text === './')) {
      out.push(write('git checkout', only, true))
    } else {
      out.push(writesUnknown(`git checkout ${only.text}: ${CHECKOUT_HINT}`))
    }
    return out
  }
  // `git checkout <tree-ish> <path>...` or `git checkout <path>...`
  for (const spec of a.before) out.push(pathspecWrite('git checkout', spec))
  return out
}

export const GIT_RESTORE: OptionTable = {
  shortValue: 's',
  longValue: ['source'],
  longOptional: ['conflict', 'pathspec-from-file', 'recurse-submodules'],
  alias: { s: 'source', W: 'worktree', S: 'staged', p: 'patch' },
  effectful: ['pathspec-from-file', 'worktree', 'staged'],
  effectfulShort: 'WS'
}

export const gitRestore: GitHandler = (args) => {
  const a = gitArgs(args, GIT_RESTORE)
  const out = gitUnknown(a, 'restore', 'a path or an option')
  const has = (n: string): boolean => a.options.some((o) => o.name === n)
  if (has('staged') && !has('worktree')) return out
  if (has('pathspec-from-file')) {
    out.push(writesUnknown('git restore --pathspec-from-file restores files listed in a file'))
  }
  const specs = [...a.before, ...a.after]
  if (specs.length === 0 && has('patch')) {
    out.push(writesUnknown('git restore -p rewrites chosen changes in any file'))
  }
  for (const spec of specs) out.push(pathspecWrite('git restore', spec))
  return out
}

export const gitReset: GitHandler = (args) => {
  for (const w of args.slice(1)) {
    if (!w.literal) {
      if (mayBeOption(w)) {
        return [dynamicArgument('git reset', w, '--hard, which rewrites files')]
      }
      continue
    }
    if (w.text === '--') break
    if (w.text === '--hard' || w.text === '--merge' || w.text === '--keep') {
      return [writesUnknown(`git reset ${w.text} rewrites files in the working tree from a commit`)]
    }
  }
  return []
}

export const GIT_CLEAN: OptionTable = {
  shortValue: 'e',
  longValue: ['exclude'],
  alias: { n: 'dry-run', e: 'exclude' },
  effectful: ['dry-run'],
  effectfulShort: 'n'
}

export const gitClean: GitHandler = (args) => {
  const a = gitArgs(args, GIT_CLEAN)
  if (a.options.some((o) => o.name === 'dry-run')) return []
  const out = gitUnknown(a, 'clean', 'a path or an option')
  const specs = [...a.before, ...a.after]
  for (const spec of specs.length > 0 ? specs : [lit('.')]) {
    out.push(pathspecWrite('git clean', spec))
  }
  return out
}

export const GIT_RM: OptionTable = {
  longOptional: ['pathspec-from-file'],
  alias: { r: 'recursive', n: 'dry-run' },
  effectful: ['pathspec-from-file', 'cached', 'dry-run'],
  effectfulShort: 'rn'
}

export const gitRm: GitHandler = (args, sub) => {
  const a = gitArgs(args, GIT_RM)
  const has = (n: string): boolean => a.options.some((o) => o.name === n)
  if (has('dry-run') || (sub === 'rm' && has('cached'))) return []
  const out = gitUnknown(a, sub, 'a path or an option')
  if (has('pathspec-from-file')) {
    out.push(writesUnknown(`git ${sub} --pathspec-from-file changes files listed in a file`))
  }
  for (const spec of [...a.before, ...a.after]) out.push(pathspecWrite(`git ${sub}`, spec))
  return out
}

export const gitRebase: GitHandler = (args) => {
  const out: CommandEffect[] = []
  for (const w of args.slice(1)) {
    if (!w.literal) continue
    if (w.text.startsWith('--exec') || REBASE_EXEC_CLUSTER.test(w.text)) {
      out.push(runsCode('git rebase --exec runs a shell command after each commit'))
      break
    }
  }
  out.push(...gitWritesUnknown(args, 'rebase'))
  return out
}

export const gitBisect: GitHandler = (args) => {
  const sub = args[1]
  if (sub === undefined) return []
  if (!sub.literal) return [dynamicArgument('git bisect', sub, 'run, which runs a program')]
  if (sub.text === 'run') return [runsCode('git bisect run runs a program on each commit')]
  if (['log', 'terms', 'visualize', 'view', 'help'].includes(sub.text)) return []
  return [writesUnknown(`git bisect ${sub.text} checks out commits, which can hold any file`)]
}

export const gitWorktree: GitHandler = (args) => {
  const sub = args[1]
  if (sub === undefined || !sub.literal)
    return sub === undefined
      ? []
      : [dynamicArgument('git worktree', sub, 'add, which writes files')]
  if (!['add', 'move', 'remove'].includes(sub.text)) return []
  const a = gitArgs(args.slice(1), {
    shortValue: 'bB',
    longValue: ['reason'],
    longOptional: ['orphan']
  })
  const out = gitUnknown(a, `worktree ${sub.text}`, 'an option')
  const operands = [...a.before, ...a.after]
  const paths = sub.text === 'add' ? operands.slice(0, 1) : operands
  for (const p of paths) out.push(fileWrite(`git worktree ${sub.text}`, p, true))
  return out
}

export const gitInit: GitHandler = (args) => {
  const a = gitArgs(args, {
    longValue: ['template', 'separate-git-dir', 'object-format', 'ref-format'],
    longOptional: ['shared'],
    effectful: ['separate-git-dir', 'template'],
    effectfulShort: ''
  })
  const out = gitUnknown(a, 'init', 'an option')
  const dir = [...a.before, ...a.after][0] ?? lit('.')
  const bare = a.options.some((o) => o.name === 'bare')
  out.push(fileWrite('git init', bare ? dir : joinPath(dir, '.git'), true))
  for (const o of a.options) {
    if (o.name === 'separate-git-dir' && o.value !== undefined) {
      out.push(fileWrite('git init --separate-git-dir', o.value, true))
    }
  }
  return out
}

export const gitBundle: GitHandler = (args) => {
  const sub = args[1]
  if (sub?.literal !== true || sub.text !== 'create') return []
  const a = gitArgs(args.slice(1), { longValue: ['version'] })
  const file = a.before[0]
  return file === undefined ? [] : [fileWrite('git bundle create', file)]
}

export const gitMergeFile: GitHandler = (args) => {
  const a = gitArgs(args, { shortValue: 'L', longValue: ['marker-size', 'diff-algorithm'] })
  if (a.options.some((o) => o.name === 'p' || o.name === 'stdout')) return []
  const current = a.before[0]
  return current === undefined ? [] : [fileWrite('git merge-file', current)]
}

export const gitHelp: GitHandler = (args) =>
  args.some((w) => !w.literal || w.text === '-w' || /^--we/.test(w.text))
    ? [runsCode('git help --web runs a web browser')]
    : []

export const gitApply: GitHandler = (args) => {
  const a = gitArgs(args, {
    shortValue: 'pC',
    longValue: ['exclude', 'include', 'directory', 'whitespace', 'build-fake-ancestor'],
    effectful: ['apply', 'index'],
    effectfulShort: ''
  })
  const names = new Set(a.options.map((o) => o.name))
  const reportOnly =
    !names.has('apply') && ['check', 'stat', 'numstat', 'summary'].some((n) => names.has(n))
  if (reportOnly || (names.has('cached') && !names.has('index'))) return []
  return [writesUnknown('git apply writes the files named in the patch')]
}

export const GIT_TAG: OptionTable = {
  shortValue: 'mFu',
  shortOptional: 'n',
  longValue: [
    'message',
    'file',
    'local-user',
    'cleanup',
    'contains',
    'no-contains',
    'merged',
    'no-merged',
    'points-at',
    'sort',
    'format'
  ],
  longOptional: ['column', 'color'],
  flags: ['list', 'delete', 'verify', 'annotate', 'sign', 'force', 'edit', 'ignore-case'],
  alias: {
    l: 'list',
    d: 'delete',
    v: 'verify',
    a: 'annotate',
    s: 'sign',
    f: 'force',
    e: 'edit',
    i: 'ignore-case',
    m: 'message',
    F: 'file',
    u: 'local-user'
  },
  effectful: ['list', 'delete', 'file', 'edit'],
  effectfulShort: 'ldFe'
}

/** `git tag` options that make it list tags (the filters imply --list). */
const TAG_LISTS = ['list', 'n', 'contains', 'no-contains', 'merged', 'no-merged', 'points-at']

/**
 * `git tag`: listing (no name, -l, -n, the filters) and verifying read; creating (`git tag NAME`),
 * replacing (-f) and deleting (-d) write the tag's ref; -F reads the message from a file; -e
 * runs an editor.
 */
export const gitTag: GitHandler = (args) => {
  const a = gitArgs(args, GIT_TAG)
  const has = (...n: string[]): boolean => a.options.some((o) => n.includes(o.name))
  const names = [...a.before, ...a.after]
  if (has(...TAG_LISTS) || (names.length === 0 && !has('delete'))) return []
  const out = gitUnknown(a, 'tag', 'an option that creates or deletes a tag (-d, -f)')
  if (has('verify')) return out
  for (const o of a.options) {
    if (o.name === 'file' && o.value !== undefined && o.value.text !== '-') {
      out.push(read('git tag -F', o.value))
    }
  }
  if (has('edit')) out.push(runsCode('git tag -e runs an editor'))
  const refs = has('delete') ? names : names.slice(0, 1)
  for (const tag of refs) {
    const ref = tag.literal
      ? lit(`.git/refs/tags/${tag.text}`)
      : dyn(`.git/refs/tags/${tag.text}`, '.git/refs/tags/')
    out.push(write(`git tag${has('delete') ? ' -d' : ''}`, ref))
  }
  return out
}

/** `git fsck --lost-found` writes what it finds below .git/lost-found. */
export const gitFsck: GitHandler = (args) =>
  args.some((w) => !w.literal || /^--lost(?:-f(?:o(?:u(?:n(?:d)?)?)?)?)?$/.test(w.text))
    ? [write('git fsck --lost-found', lit('.git/lost-found'), true)]
    : []

export const GIT_SUBCOMMANDS = new Map<string, GitHandler>([
  ['log', gitDiffLike],
  ['show', gitDiffLike],
  ['diff', gitDiffLike],
  ['diff-tree', gitDiffLike],
  ['diff-index', gitDiffLike],
  ['diff-files', gitDiffLike],
  ['whatchanged', gitDiffLike],
  ['range-diff', gitDiffLike],
  ['format-patch', gitDiffLike],
  ['grep', gitGrep],
  ['archive', gitArchive],
  ['fetch', gitNetwork],
  ['pull', gitNetwork],
  ['push', gitNetwork],
  ['clone', gitNetwork],
  ['ls-remote', gitNetwork],
  ['send-email', gitNetwork],
  ['request-pull', gitNetwork],
  ['svn', gitNetwork],
  ['p4', gitNetwork],
  ['cvsimport', gitNetwork],
  ['archimport', gitNetwork],
  ['http-fetch', gitNetwork],
  ['http-push', gitNetwork],
  ['upload-pack', gitNetwork],
  ['receive-pack', gitNetwork],
  ['upload-archive', gitNetwork],
  ['daemon', gitNetwork],
  ['maintenance', gitNetwork],
  ['remote', gitRemote],
  ['submodule', gitSubmodule],
  ['config', gitConfig],
  ['difftool', gitRunsCode],
  ['mergetool', gitRunsCode],
  ['filter-branch', gitRunsCode],
  ['filter-repo', gitRunsCode],
  ['instaweb', gitRunsCode],
  ['web--browse', gitRunsCode],
  ['hook', gitRunsCode],
  ['bisect', gitBisect],
  ['rebase', gitRebase],
  ['merge', gitWritesUnknown],
  ['cherry-pick', gitWritesUnknown],
  ['revert', gitWritesUnknown],
  ['am', gitWritesUnknown],
  ['switch', gitSwitch],
  ['checkout-index', gitWritesUnknown],
  ['read-tree', gitReadTree],
  ['sparse-checkout', gitWritesUnknown],
  ['apply', gitApply],
  [
    'fast-import',
    () => [
      writesUnknown('git fast-import writes objects, refs and marks files the policy cannot name')
    ]
  ],
  ['fast-export', gitFastExport],
  ['stash', gitStash],
  ['checkout', gitCheckout],
  ['restore', gitRestore],
  ['reset', gitReset],
  ['clean', gitClean],
  ['rm', gitRm],
  ['mv', gitRm],
  ['worktree', gitWorktree],
  ['init', gitInit],
  ['bundle', gitBundle],
  ['merge-file', gitMergeFile],
  ['help', gitHelp],
  ['tag', gitTag],
  ['fsck', gitFsck]
])

export function gitSwitch(args: readonly ShellWord[]): CommandEffect[] {
  const a = gitArgs(args, {
    shortValue: 'cC',
    longValue: ['create', 'force-create', 'orphan'],
    longOptional: ['track', 'conflict', 'recurse-submodules'],
    effectful: ['create', 'force-create', 'orphan'],
    effectfulShort: 'cC'
  })
  const creates = a.options.some((o) =>
    ['c', 'C', 'create', 'force-create', 'orphan'].includes(o.name)
  )
  const operands = [...a.before, ...a.after]
  // --force / --discard-changes reset the working tree, --orphan empties it
  const resets = a.options.some((o) => ['f', 'force', 'discard-changes', 'orphan'].includes(o.name))
  if (creates && operands.length === 0 && !resets) return gitUnknown(a, 'switch', 'a branch')
  return [
    ...gitUnknown(a, 'switch', 'a branch'),
    writesUnknown('git switch rewrites any file that differs in the branch it switches to')
  ]
}

export function gitReadTree(args: readonly ShellWord[]): CommandEffect[] {
  return args.some((w) => !w.literal || w.text === '--reset' || READ_TREE_UPDATE.test(w.text))
    ? gitWritesUnknown(args, 'read-tree')
    : []
}
