/**
 * pytest (and its common plugins' options): the reports, logs, profiles and directories its
 * options write (`--junit-xml`, `--log-file`, `--debug FILE`, `--basetemp`, `--cov-report
 * xml:F`, `--html`, `--benchmark-json`, `-o cache_dir=D`), the network it reaches (`--pastebin`,
 * an elasticsearch benchmark storage), and the options that load code from places the rules
 * never saw (`-p`, `-c`, `--rootdir`, `--confcutdir`, `-o addopts=…`, `--cov-config`).
 *
 * pytest reads its command line with argparse: `--name=value` or `--name value`; an option
 * whose value is optional (`--debug`) takes the next word unless it starts with `-`; short
 * options cluster (`-xq`), the last one taking the rest of the word or the next word as its
 * value (`-kEXPR`, `-k EXPR`, `-xpNAME`). pytest refuses abbreviated long options; older ones
 * took them, so a written name that starts an option with an effect counts as it.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  network,
  read,
  responseFile,
  runsCode
} from './effects.js'

/** Options whose value is a file pytest writes (a report, a log, a profile prefix). */
const WRITES_FILE = new Set([
  'junitxml',
  'junit-xml',
  'log-file',
  'resultlog',
  'result-log',
  'report-log',
  'json-report-file',
  'debug',
  'html',
  'benchmark-json',
  'benchmark-cprofile-dump',
  'benchmark-histogram'
])

/** Options whose value is a directory written below (`--basetemp` is emptied first). */
const WRITES_TREE = new Set(['basetemp', 'alluredir', 'benchmark-storage'])

/** Options that load plugins, configuration or conftest.py files from other places. */
const LOADS_CODE = new Set([
  'rootdir',
  'confcutdir',
  'config-file',
  'inifile',
  'override-ini',
  'pyargs',
  'import-mode',
  'cov-config',
  'plugins',
  // `--pdbcls=MODULE:CLASS` (with --pdb or --trace): pytest imports MODULE
  'pdbcls'
])

/** Long options with a value; `?`: optional (taken from the next word unless it is an option). */
const LONG_VALUES: Readonly<Record<string, 'required' | 'optional'>> = {
  'junit-xml': 'required',
  junitxml: 'required',
  'junit-prefix': 'required',
  'log-file': 'required',
  'log-file-mode': 'required',
  'log-file-level': 'required',
  'log-file-format': 'required',
  'log-file-date-format': 'required',
  'log-level': 'required',
  'log-format': 'required',
  'log-date-format': 'required',
  'log-cli-level': 'required',
  'log-cli-format': 'required',
  'log-cli-date-format': 'required',
  'log-disable': 'required',
  resultlog: 'required',
  'result-log': 'required',
  'report-log': 'required',
  'json-report-file': 'required',
  debug: 'optional',
  html: 'required',
  css: 'required',
  'benchmark-json': 'required',
  'benchmark-storage': 'required',
  'benchmark-save': 'required',
  'benchmark-cprofile-dump': 'optional',
  'benchmark-histogram': 'optional',
  'benchmark-netrc': 'optional',
  'benchmark-compare': 'optional',
  'benchmark-warmup': 'optional',
  basetemp: 'required',
  alluredir: 'required',
  rootdir: 'required',
  confcutdir: 'required',
  'config-file': 'required',
  inifile: 'required',
  'override-ini': 'required',
  'import-mode': 'required',
  'cov-config': 'required',
  'cov-report': 'required',
  cov: 'optional',
  'cache-show': 'optional',
  pastebin: 'required',
  tb: 'required',
  capture: 'required',
  'show-capture': 'required',
  durations: 'required',
  'durations-min': 'required',
  maxfail: 'required',
  deselect: 'required',
  ignore: 'required',
  'ignore-glob': 'required',
  'last-failed-no-failures': 'required',
  'doctest-glob': 'required',
  'doctest-report': 'required',
  assert: 'required',
  pythonwarnings: 'required',
  color: 'required',
  'code-highlight': 'required',
  dist: 'required',
  numprocesses: 'required',
  maxprocesses: 'required',
  'max-worker-restart': 'required',
  tx: 'required',
  px: 'required',
  pdbcls: 'required',
  rsyncdir: 'required',
  timeout: 'required',
  'timeout-method': 'required',
  reruns: 'required',
  'reruns-delay': 'required'
}

/** Short options with a value (pytest's and pytest-xdist's `-n`). */
const SHORT_VALUES: Readonly<Record<string, string>> = {
  k: 'keyword',
  m: 'markexpr',
  r: 'reportchars',
  W: 'pythonwarnings',
  c: 'config-file',
  p: 'plugins',
  o: 'override-ini',
  n: 'numprocesses'
}

/** `-o KEY=VALUE` settings that load nothing (two name where pytest writes). */
const SAFE_INI = new Set([
  'cache_dir',
  'log_file',
  'junit_family',
  'junit_suite_name',
  'junit_logging',
  'junit_log_passing_tests',
  'junit_duration_report',
  'console_output_style',
  'xfail_strict',
  'log_cli',
  'log_cli_level',
  'log_level',
  'log_format',
  'log_date_format',
  'log_file_level',
  'log_file_format',
  'log_file_date_format',
  'log_auto_indent',
  'faulthandler_timeout',
  'tmp_path_retention_count',
  'tmp_path_retention_policy',
  'verbosity_assertions',
  'verbosity_test_cases',
  'truncation_limit_lines',
  'truncation_limit_chars'
])

/**
 * Flags that start Python's debugger, which runs any Python its input sends (a heredoc, a pipe):
 * on a failure (`--pdb`) or at each test's start (`--trace`).
 */
const DEBUGGER = new Set(['pdb', 'trace'])

/** The long option a written name stands for: itself, or an option with an effect it starts. */
function longName(written: string): string {
  if (LONG_VALUES[written] !== undefined || DEBUGGER.has(written) || written.length < 3) {
    return written
  }
  const effectful = [...WRITES_FILE, ...WRITES_TREE, ...LOADS_CODE, 'pastebin', 'cov-report']
  return effectful.find((o) => o.startsWith(written)) ?? written
}

/** What one option with its value (when it has one) does. */
function optionEffects(
  name: string,
  option: string,
  value: ShellWord | undefined
): CommandEffect[] {
  const label = `${name} --${option}`
  if (DEBUGGER.has(option))
    return [runsCode(`${label} starts Python's debugger, which runs what its input sends`)]
  if (option === 'pastebin') return [network(`${label} sends test output to bpaste.net`)]
  // pytest-xdist's gateways: `popen//python=PROG` runs PROG, `ssh=HOST` another machine; only
  // a local worker of the same Python (`popen`, `4*popen`) runs nothing else
  if (option === 'tx' || option === 'px') {
    if (value?.literal === true && /^(?:\d+\*)?popen$/.test(value.text)) return []
    return [
      runsCode(`${label}: an execnet gateway can run another program or reach another machine`)
    ]
  }
  // `-W action:message:CATEGORY:module:line`: a category with a dot is a class Python imports
  // (`ignore::src.plug.W` imports src/plug.py)
  if (option === 'pythonwarnings') {
    const category = value?.literal === true ? (value.text.split(':')[2] ?? '') : undefined
    if (category === undefined || category.includes('.')) {
      return [runsCode(`${label}: a warning category named by its module is imported`)]
    }
    return []
  }
  if (option === 'plugins') {
    // `-p no:NAME` only turns a plugin off
    if (value?.literal === true && value.text.startsWith('no:')) return []
    return [runsCode(`${name} -p loads a plugin module the policy cannot see`)]
  }
  if (option === 'override-ini' && value?.literal === true) {
    const eq = value.text.indexOf('=')
    const key = eq < 0 ? value.text : value.text.slice(0, eq)
    const target = lit(value.text.slice(eq + 1))
    if (eq > 0 && key === 'cache_dir') return [fileWrite(`${name} -o cache_dir`, target, true)]
    if (eq > 0 && key === 'log_file') return [fileWrite(`${name} -o log_file`, target)]
    if (SAFE_INI.has(key)) return []
  }
  if (LOADS_CODE.has(option)) {
    return [
      runsCode(
        `${label}: plugins, configuration and conftest.py files from other places run code the policy cannot see`
      )
    ]
  }
  if (value === undefined) return []
  if (option === 'benchmark-storage' && value.literal && /^elasticsearch\+/i.test(value.text)) {
    return [network(`${label} sends benchmark results to elasticsearch`)]
  }
  if (option === 'benchmark-storage' && value.literal) {
    return [fileWrite(label, lit(value.text.replace(/^file:\/\//i, '')), true)]
  }
  if (WRITES_TREE.has(option)) return [fileWrite(label, value, true)]
  if (WRITES_FILE.has(option)) return [fileWrite(label, value)]
  if (option === 'benchmark-netrc' && !(value.literal && value.text === '')) {
    return [read(label, value)]
  }
  if (option === 'cov-report') {
    // TYPE:DEST writes DEST (html and annotate: a directory)
    const m = value.literal ? /^([a-z-]+):(.+)$/.exec(value.text) : null
    if (m !== null) {
      const tree = m[1] === 'html' || m[1] === 'annotate'
      return [fileWrite(label, lit(m[2] as string), tree)]
    }
    if (!value.literal && value.text.includes(':')) return [fileWrite(label, value)]
  }
  return []
}

export function pytestEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (mayBeOption(w)) {
        return [dynamicArgument(name, w, 'a plugin, configuration or report option')]
      }
      continue
    }
    const t = w.text
    if (t === '--') break
    // `@FILE`: more arguments from FILE (argparse's fromfile_prefix_chars)
    if (t.startsWith('@') && t.length > 1) {
      out.push(...responseFile(name, t))
      continue
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=')
      const option = longName(eq < 0 ? t.slice(2) : t.slice(2, eq))
      const kind = LONG_VALUES[option]
      let value: ShellWord | undefined
      if (eq >= 0) value = lit(t.slice(eq + 1))
      else if (kind !== undefined) {
        const next = words[i + 1]
        const optional = kind === 'optional'
        if (
          next !== undefined &&
          (!optional || !(next.literal ? next.text : next.prefix).startsWith('-'))
        ) {
          if (!next.literal && optional && mayBeOption(next)) {
            return [dynamicArgument(name, next, 'a plugin, configuration or report option')]
          }
          value = next
          i++
        }
      }
      // `--debug` alone writes pytestdebug.log here
      if (option === 'debug' && value === undefined) value = lit('pytestdebug.log')
      out.push(...optionEffects(name, option, value))
      continue
    }
    if (!t.startsWith('-') || t === '-') continue
    // a cluster of short options: the first with a value takes the rest, or the next word
    for (let j = 1; j < t.length; j++) {
      const option = SHORT_VALUES[t[j] as string]
      if (option === undefined) continue
      const rest = t.slice(j + 1)
      const value = rest !== '' ? lit(rest) : words[i + 1]
      if (rest === '') i++
      out.push(...optionEffects(name, option, value))
      break
    }
  }
  return out
}
