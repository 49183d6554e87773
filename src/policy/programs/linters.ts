/**
 * Linters, formatters and test runners (ESLint, Prettier, Jest, Vitest, mypy, Ruff): where their
 * options write, which options load code, and which make them rewrite the files they check.
 *
 * One reading for all of them, from a table per tool (LintTool):
 * - an option whose value is a file or tree the tool writes (`eslint -o F`, `jest --outputFile F`,
 *   `mypy --cache-dir D`, `ruff --output-file F`): a write there, judged by the write rules;
 * - an option that makes it rewrite its operands (`eslint --fix`, `prettier --write`,
 *   `ruff check --fix`, `ruff format`): a write to each operand (a directory: its tree; none: the
 *   working directory's tree), as an in-place editor's;
 * - an option that loads a module, a plugin, a configuration that is code, or runs a program
 *   (`eslint -c F`, `-f ./fmt.cjs`, `--plugin`, `prettier --plugin`, `jest --config`,
 *   `mypy --config-file` (its plugins), `--python-executable`): `runs-code`, the code the rules
 *   never saw; a configuration that is data but can set where the tool writes (`ruff --config`):
 *   `writes-unknown`;
 * - a word only known at run time where such an option could stand: `dynamic-argument`.
 * Options are matched by name however spelled: `--name=value` and `--name value`, yargs' camelCase
 * and kebab-case alike (`--outputFile`, `--output-file`), and for argparse (mypy) any prefix of an
 * option's name, which argparse accepts as the option.
 *
 * The configuration a tool finds by itself in the working directory is not read here: a policy
 * that allows these tools lets the project's code run (src/policy/code-execution.ts), and the OS
 * sandbox is then the wall.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  type Handler,
  dyn,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  read,
  removal,
  responseFile,
  runsCode,
  staysInside,
  writesUnknown
} from './effects.js'

/** What one option does, for the tool's table. */
type Does =
  | { kind: 'writes-file' }
  | { kind: 'writes-tree' }
  | { kind: 'reads' }
  /** Loads code (a module, a plugin, a program), unless `safe` says this value does not. */
  | { kind: 'runs-code'; why: string; safe?: (value: ShellWord) => boolean }
  /** A configuration that can say where the tool writes (`ruff --config`). */
  | { kind: 'configures'; why: string; safe?: (value: ShellWord) => boolean }
  /** A flag: the tool rewrites its operands. */
  | { kind: 'rewrites-operands' }
  /** A flag that makes the tool do something the policy cannot follow. */
  | { kind: 'flag-runs-code'; why: string }
  /** A flag that makes the tool write files the policy cannot name (`jest --init`). */
  | { kind: 'flag-writes-unknown'; why: string }
  /** A flag that writes `target`, unless one of `unless` says where instead. */
  | { kind: 'flag-writes'; target: string; subtree: boolean; unless?: readonly string[] }
  /** An option with a value that also writes a file of its own (`eslint --suppress-rule R`). */
  | { kind: 'value-writes'; target: string; unless: string }
  /** A value that is a file the tool writes, unless it is one of `unless` (`--json true`). */
  | { kind: 'writes-file-unless'; unless: RegExp }
  /** A flag read only so that another option can depend on it (`ruff format --check`). */
  | { kind: 'none' }

export interface LintTool {
  /** Long options (normalized: lower case, kebab) that take a value, with what they do. */
  values: Readonly<Record<string, Does | null>>
  /** Long flags with an effect. */
  flags?: Readonly<Record<string, Does>>
  /** Short options: the letter → the long name it stands for. */
  short?: Readonly<Record<string, string>>
  /** Long aliases: another name → the long name it stands for (Jest's `--env`). */
  aliases?: Readonly<Record<string, string>>
  /**
   * Dotted options set any key of the tool's configuration (Vitest's `--poolOptions.forks.execArgv`,
   * accepted below any option the tool knows): those named in the table or in `inert` are read as
   * the table says; any other is a setting this engine does not model (`writes-unknown`).
   */
  dotted?: { inert: ReadonlySet<string> }
  /**
   * A short option's letter after two dashes is that option (`--c F` is `-c F`): optionator,
   * yargs, minimist and mri read it so; argparse and clap do not.
   */
  longShort?: boolean
  /** argparse: a prefix of an option's name is that option. */
  abbreviations?: boolean
  /** `@FILE` reads more arguments from FILE (argparse's fromfile_prefix_chars). */
  fromFile?: boolean
}

export const WRITES_FILE: Does = { kind: 'writes-file' }
export const WRITES_TREE: Does = { kind: 'writes-tree' }
export const READS: Does = { kind: 'reads' }

export function code(why: string, safe?: (value: ShellWord) => boolean): Does {
  return safe === undefined ? { kind: 'runs-code', why } : { kind: 'runs-code', why, safe }
}

/** A value that names a file or module by path (`./fmt.cjs`, `src/x.mjs`), not a bare name. */
export function namesPath(value: ShellWord): boolean {
  const t = value.literal ? value.text : value.prefix
  return !value.literal || value.tilde || /[/\\.]/.test(t) || t === ''
}

/** ESLint's own formatters (ESLint 8 and 9): a name that loads no package. */
const ESLINT_FORMATTERS = new Set([
  'stylish',
  'json',
  'json-with-metadata',
  'html',
  'checkstyle',
  'compact',
  'jslint-xml',
  'junit',
  'tap',
  'unix',
  'visualstudio'
])

export const ESLINT: LintTool = {
  values: {
    config: code('a configuration file is a JavaScript module ESLint imports'),
    format: code(
      'a formatter other than ESLint’s own is a module ESLint loads',
      (v) => v.literal && ESLINT_FORMATTERS.has(v.text)
    ),
    plugin: code('a plugin is a module ESLint loads'),
    rulesdir: code('rules from a directory are modules ESLint loads'),
    parser: code('a parser is a module ESLint loads'),
    'resolve-plugins-relative-to': code('plugins are then loaded from another directory'),
    'output-file': WRITES_FILE,
    'cache-location': WRITES_TREE,
    'cache-file': WRITES_FILE,
    'suppressions-location': WRITES_FILE,
    'ignore-path': READS,
    ext: null,
    global: null,
    'parser-options': null,
    env: null,
    'ignore-pattern': null,
    rule: null,
    'cache-strategy': null,
    'max-warnings': null,
    'fix-type': null,
    'report-unused-disable-directives-severity': null,
    'report-unused-inline-configs': null,
    'print-config': null,
    'stdin-filename': null,
    'suppress-rule': {
      kind: 'value-writes',
      target: 'eslint-suppressions.json',
      unless: 'suppressions-location'
    },
    flag: null,
    concurrency: null
  },
  flags: {
    fix: { kind: 'rewrites-operands' },
    cache: {
      kind: 'flag-writes',
      target: '.eslintcache',
      subtree: false,
      unless: ['cache-location', 'cache-file']
    },
    'suppress-all': {
      kind: 'flag-writes',
      target: 'eslint-suppressions.json',
      subtree: false,
      unless: ['suppressions-location']
    },
    'prune-suppressions': {
      kind: 'flag-writes',
      target: 'eslint-suppressions.json',
      subtree: false,
      unless: ['suppressions-location']
    },
    init: { kind: 'flag-runs-code', why: 'eslint --init installs and runs npm packages' },
    mcp: {
      kind: 'flag-runs-code',
      why: 'eslint --mcp downloads and runs the ESLint MCP server (npx @eslint/mcp)'
    },
    'inspect-config': {
      kind: 'flag-runs-code',
      why: 'eslint --inspect-config downloads and runs the config inspector'
    }
  },
  short: { c: 'config', f: 'format', o: 'output-file' },
  longShort: true
}

export const PRETTIER: LintTool = {
  values: {
    // a configuration in any format names plugins, modules Prettier imports
    config: code('a configuration file names plugins, modules Prettier imports'),
    plugin: code('a plugin is a module Prettier loads'),
    parser: code('a parser given by path is a module Prettier loads', (v) => !namesPath(v)),
    'cache-location': WRITES_FILE,
    'ignore-path': READS,
    'cache-strategy': null,
    'config-precedence': null,
    // `prettier --help write`: help on an option
    help: null,
    'find-config-path': null,
    'file-info': null,
    'cursor-offset': null,
    'end-of-line': null,
    'log-level': null,
    'print-width': null,
    'range-end': null,
    'range-start': null,
    'stdin-filepath': null,
    'tab-width': null,
    'trailing-comma': null,
    'arrow-parens': null,
    'embedded-language-formatting': null,
    'html-whitespace-sensitivity': null,
    'object-wrap': null,
    'prose-wrap': null,
    'quote-props': null,
    'experimental-operator-position': null
  },
  flags: {
    write: { kind: 'rewrites-operands' },
    cache: {
      kind: 'flag-writes',
      target: 'node_modules/.cache/prettier',
      subtree: true,
      unless: ['cache-location']
    }
  },
  short: { w: 'write', h: 'help' },
  longShort: true
}

/**
 * Jest's options that name a module it loads (a runner, an environment, a transform, …), or set
 * configuration that does (`--moduleNameMapper`, `--haste`). Jest refuses options it does not know.
 */
const JEST_MODULES = [
  'config',
  'setup-files',
  'setup-files-after-env',
  'global-setup',
  'global-teardown',
  'test-runner',
  'test-environment',
  'transform',
  'resolver',
  'reporters',
  'preset',
  'test-sequencer',
  'prettier-path',
  'runner',
  'test-results-processor',
  'filter',
  'haste',
  'snapshot-serializers',
  'module-name-mapper'
]

/** Jest's own coverage reporters (istanbul's): a name that loads no module. */
const JEST_COVERAGE_REPORTERS =
  /^(?:clover|cobertura|html|html-spa|json|json-summary|lcov|lcovonly|none|teamcity|text|text-lcov|text-summary)$/

/** A value that names places inside the working directory only (`src`, `node_modules`). */
const INSIDE = (v: ShellWord) =>
  v.literal && !v.tilde && v.text.split(',').every((p) => p !== '' && staysInside(p.trim()))

export const JEST: LintTool = {
  values: {
    ...Object.fromEntries(
      JEST_MODULES.map((name) => [
        name,
        name === 'test-environment'
          ? code('a test environment other than node or jsdom is a module Jest loads', (v) =>
              /^(?:node|jsdom)$/.test(v.literal ? v.text : '')
            )
          : name === 'reporters'
            ? code('a reporter other than Jest’s own is a module Jest loads', (v) =>
                /^(?:default|summary|github-actions|agent)$/.test(v.literal ? v.text : '')
              )
            : code(`--${name} names a module Jest loads`)
      ])
    ),
    'output-file': WRITES_FILE,
    'coverage-directory': WRITES_TREE,
    'cache-directory': WRITES_TREE,
    'root-dir': code(
      'tests from another root are code the rules never saw',
      (v) => !namesPath(v) || (v.literal && /^\.\/?$/.test(v.text))
    ),
    roots: code('tests and modules from other roots are code the rules never saw', INSIDE),
    'test-name-pattern': null,
    // Jest 29's name for what Jest 30 calls --testPathPatterns
    'test-path-pattern': null,
    'test-path-ignore-patterns': null,
    'test-match': null,
    'test-regex': null,
    'max-workers': null,
    'test-timeout': null,
    'coverage-provider': null,
    'coverage-reporters': code(
      'a coverage reporter other than istanbul’s own is a module',
      (v) => v.literal && v.text.split(',').every((r) => JEST_COVERAGE_REPORTERS.test(r.trim()))
    ),
    'collect-coverage-from': null,
    'coverage-path-ignore-patterns': null,
    'coverage-threshold': null,
    'module-directories': code('modules are then resolved from other directories', INSIDE),
    'module-file-extensions': null,
    'module-paths': code('modules are then resolved from other directories', INSIDE),
    'transform-ignore-patterns': null,
    'unmocked-module-path-patterns': null,
    'watch-path-ignore-patterns': null,
    'notify-mode': null,
    seed: null,
    shard: null,
    'select-projects': null,
    projects: code(
      'another project’s configuration names modules Jest loads',
      (v) => v.literal && /^\.\/?$/.test(v.text)
    ),
    'max-concurrency': null,
    'changed-since': null,
    'open-handles-timeout': null,
    'worker-graceful-exit-timeout': null,
    'test-environment-options': null,
    'test-failure-exit-code': null,
    'module-path-ignore-patterns': null,
    'ignore-projects': null,
    globals: null,
    'test-path-patterns': null
  },
  flags: {
    // the coverage reports, in ./coverage (the directory: the files in it have the reporters'
    // own names, lcov.info, clover.xml, …; a reporter that names others is a module, runs-code)
    coverage: {
      kind: 'flag-writes',
      target: 'coverage',
      subtree: false,
      unless: ['coverage-directory']
    },
    'collect-coverage': {
      kind: 'flag-writes',
      target: 'coverage',
      subtree: false,
      unless: ['coverage-directory']
    },
    init: {
      kind: 'flag-writes-unknown',
      why: 'jest --init (Jest 29) writes a configuration file and package.json’s test script'
    }
  },
  // Jest 29's `--env` is its own option, Jest 30's an alias: both the test environment
  aliases: { env: 'test-environment' },
  short: { c: 'config', o: 'only-changed', w: 'max-workers', t: 'test-name-pattern' },
  longShort: true
}

/**
 * Vitest's dotted options that set nothing a rule could see: booleans, numbers, globs, names of
 * Vitest's own choices (Vitest 3.2's and 4.1's CLI, from their cliOptionsConfig). Any other
 * dotted key is a setting not modelled here.
 */
const VITEST_INERT = new Set([
  ...['all', 'enabled', 'include', 'exclude', 'extension', 'clean', 'clean-on-rerun']
    .concat(['report-on-failure', 'allow-external', 'skip-full', 'ignore-class-methods'])
    .concat(['processing-concurrency', 'thresholds', 'watermarks'])
    .map((k) => `coverage.${k}`),
  ...['100', 'per-file', 'lines', 'functions', 'branches', 'statements'].map(
    (k) => `coverage.thresholds.${k}`
  ),
  ...['statements', 'lines', 'branches', 'functions'].map((k) => `coverage.watermarks.${k}`),
  ...['enabled', 'name', 'headless', 'isolate', 'ui', 'file-parallelism', 'connect-timeout'].map(
    (k) => `browser.${k}`
  ),
  ...['threads', 'vm-threads', 'forks', 'vm-forks'].flatMap((pool) =>
    ['isolate', 'single-thread', 'single-fork', 'use-atomics', 'memory-limit']
      .concat(['max-threads', 'min-threads', 'max-forks', 'min-forks'])
      .map((k) => `pool-options.${pool}.${k}`)
  ),
  ...[
    'shuffle',
    'shuffle.files',
    'shuffle.tests',
    'concurrent',
    'seed',
    'hooks',
    'setup-files'
  ].map((k) => `sequence.${k}`),
  ...['a-annotation', 'a-indicator', 'b-annotation', 'b-indicator', 'common-indicator']
    .concat(['context-lines', 'empty-first-or-last-line-placeholder', 'expand'])
    .concat(['include-change-counts', 'omit-annotation-lines', 'print-basic-prototype'])
    .concat(['max-depth', 'truncate-threshold', 'truncate-annotation'])
    .map((k) => `diff.${k}`),
  ...['enabled', 'only', 'allow-js', 'ignore-source-errors', 'spawn-timeout'].map(
    (k) => `typecheck.${k}`
  ),
  // Vitest 4
  ...['condition', 'count', 'delay'].map((k) => `retry.${k}`),
  'coverage.changed',
  'coverage.exclude-after-remap',
  'browser.details-panel-position',
  'browser.locators',
  'browser.locators.exact',
  'browser.track-unhandled-errors',
  'experimental.import-durations',
  'experimental.import-durations.fail-on-danger',
  'experimental.import-durations.limit',
  'experimental.import-durations.print',
  'experimental.import-durations.thresholds',
  'experimental.import-durations.thresholds.danger',
  'experimental.import-durations.thresholds.warn',
  'experimental.pre-parse',
  'expect.require-assertions',
  'expect.poll',
  'expect.poll.interval',
  'expect.poll.timeout'
])

const VITEST_API_RUNS_CODE: Does = {
  kind: 'flag-runs-code',
  why: 'Vitest’s API server then runs code and writes files it is sent'
}

export const VITEST: LintTool = {
  values: {
    config: code('a configuration file is a module Vitest imports'),
    workspace: code('a workspace file names projects whose configuration Vitest imports'),
    'output-file': WRITES_FILE,
    'output-json': WRITES_FILE,
    json: { kind: 'writes-file-unless', unless: /^(?:true|false)$/ },
    'attachments-dir': WRITES_TREE,
    'coverage.reports-directory': WRITES_TREE,
    'coverage.html-dir': WRITES_TREE,
    'merge-reports': READS,
    compare: READS,
    'typecheck.tsconfig': READS,
    reporter: code('a reporter given by path is a module Vitest loads', (v) => !namesPath(v)),
    'global-setup': code('a global setup file is code Vitest runs'),
    'setup-files': code('setup files are code Vitest runs'),
    environment: code('an environment other than Vitest’s own is a module it loads', (v) =>
      /^(?:node|jsdom|happy-dom|edge-runtime)$/.test(v.literal ? v.text : '')
    ),
    root: code('tests from another root are code the rules never saw', (v) => !namesPath(v)),
    dir: code('tests from another directory are code the rules never saw', INSIDE),
    'coverage.provider': code('a coverage provider other than Vitest’s own is a module', (v) =>
      /^(?:v8|istanbul)$/.test(v.literal ? v.text : '')
    ),
    'coverage.reporter': code(
      'a coverage reporter other than istanbul’s own is a module',
      (v) => v.literal && v.text.split(',').every((r) => JEST_COVERAGE_REPORTERS.test(r.trim()))
    ),
    'coverage.custom-provider-module': code('a custom coverage provider is a module Vitest loads'),
    browser: null,
    'browser.provider': code('a browser provider other than Vitest’s own is a module', (v) =>
      /^(?:playwright|webdriverio|preview)$/.test(v.literal ? v.text : '')
    ),
    'browser.provider-options': code('launch options can name the browser program Vitest runs'),
    'typecheck.checker': code('the type checker is a program Vitest runs', (v) =>
      /^(?:tsc|vue-tsc)$/.test(v.literal ? v.text : '')
    ),
    pool: code('a pool other than Vitest’s own is a module it loads', (v) =>
      /^(?:threads|forks|vmThreads|vmForks|typescript)$/.test(v.literal ? v.text : '')
    ),
    'pool-options': code('pool options set the Node arguments of the workers (execArgv)'),
    // Vitest 4: the workers' Node arguments (`--execArgv=--require=F`)
    'exec-argv': code('the workers’ Node arguments can load any module (--require, --import)'),
    'experimental.vcs-provider': code('a VCS provider is a module Vitest loads'),
    ...Object.fromEntries(
      ['threads', 'vm-threads', 'forks', 'vm-forks'].map((pool) => [
        `pool-options.${pool}`,
        code('pool options set the Node arguments of the workers (execArgv)')
      ])
    ),
    sequence: code('sequence options can name a sequencer, a module Vitest loads'),
    'sequence.sequencer': code('a sequencer is a module Vitest loads'),
    diff: code('a diff configuration is a module Vitest imports'),
    inspect: code('a debugger runs any code sent to it'),
    'inspect-brk': code('a debugger runs any code sent to it'),
    'snapshot-serializers': code('snapshot serializers are modules Vitest loads'),
    // the API server (and the UI's) runs code and writes files it is sent; on localhost its
    // allowExec and allowWrite default to true
    api: code('Vitest’s API server runs code and writes files it is sent'),
    'browser.api': code('Vitest’s API server runs code and writes files it is sent'),
    silent: null,
    project: null,
    'test-name-pattern': null,
    'test-timeout': null,
    'hook-timeout': null,
    'teardown-timeout': null,
    'slow-test-threshold': null,
    'max-workers': null,
    'min-workers': null,
    'max-concurrency': null,
    bail: null,
    retry: null,
    exclude: null,
    shard: null,
    changed: null,
    mode: null,
    'config-loader': null,
    // Vitest 4
    'tags-filter': null,
    'static-parse-concurrency': null,
    'vm-memory-limit': null,
    'list-tags': null
  },
  flags: {
    ui: VITEST_API_RUNS_CODE,
    coverage: {
      kind: 'flag-writes',
      target: 'coverage',
      subtree: false,
      unless: ['coverage.reports-directory']
    },
    'coverage.enabled': {
      kind: 'flag-writes',
      target: 'coverage',
      subtree: false,
      unless: ['coverage.reports-directory']
    },
    'api.allow-exec': VITEST_API_RUNS_CODE,
    'api.allow-write': VITEST_API_RUNS_CODE,
    'browser.api.allow-exec': VITEST_API_RUNS_CODE,
    'browser.api.allow-write': VITEST_API_RUNS_CODE,
    'coverage.thresholds.auto-update': {
      kind: 'flag-writes-unknown',
      why: 'Vitest then rewrites the thresholds in its configuration file'
    }
  },
  aliases: { reporters: 'reporter' },
  short: { c: 'config', r: 'root', t: 'test-name-pattern' },
  longShort: true,
  dotted: { inert: VITEST_INERT }
}

/** mypy's report options: each writes its report below the directory it names. */
const MYPY_REPORTS = [
  'any-exprs-report',
  'cobertura-xml-report',
  'html-report',
  'linecount-report',
  'linecoverage-report',
  'lineprecision-report',
  'txt-report',
  'xml-report',
  'xslt-html-report',
  'xslt-txt-report'
]

export const MYPY: LintTool = {
  values: {
    ...Object.fromEntries(MYPY_REPORTS.map((name) => [name, WRITES_TREE])),
    'junit-xml': WRITES_FILE,
    'cache-dir': WRITES_TREE,
    // options mypy hides from --help (help=SUPPRESS) that write where they point
    'timing-stats': WRITES_FILE,
    'line-checking-stats': WRITES_TREE,
    'config-file': code('a configuration file names plugins, Python modules mypy imports'),
    'python-executable': code('mypy runs the interpreter it is given'),
    'custom-typeshed-dir': READS,
    'python-version': null,
    platform: null,
    'always-true': null,
    'always-false': null,
    'disable-error-code': null,
    'enable-error-code': null,
    'enable-incomplete-feature': null,
    exclude: null,
    'exclude-gitignore': null,
    module: null,
    package: null,
    command: null,
    'shadow-file': null,
    'junit-format': null,
    'find-occurrences': null,
    'cache-fine-grained': null,
    'untyped-calls-exclude': null,
    'deprecated-calls-exclude': null,
    'fixed-format-cache': null
  },
  flags: {
    // `--cache-map SOURCE META DATA …` (hidden): the cache files of each source, anywhere
    'cache-map': {
      kind: 'flag-writes-unknown',
      why: 'mypy --cache-map names the files it writes each module’s cache to'
    },
    'install-types': {
      kind: 'flag-runs-code',
      why: 'mypy --install-types runs pip to install packages'
    }
  },
  short: { m: 'module', p: 'package', c: 'command' },
  abbreviations: true,
  fromFile: true
}

/**
 * An inline Ruff setting (`--config 'KEY = VALUE'`) that cannot make Ruff write: a bare key (no
 * quotes, so no TOML escapes such as `"f\u0069x"`) naming a style or rule-selection setting. Any
 * other key may turn fixing on (`fix`, `unsafe-fixes`), name where Ruff writes (`output-file`,
 * `cache-dir`) or load another configuration that does (`extend`).
 */
const RUFF_INERT_SETTING =
  /^\s*(?:line-length|indent-width|target-version|preview|(?:lint|format)\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\s*=/

export const RUFF: LintTool = {
  values: {
    config: {
      kind: 'configures',
      why: 'a configuration can turn fixing on and name where Ruff writes its output and cache',
      // one inline `KEY = VALUE` setting that sets none of those (RUFF_INERT_SETTING)
      safe: (v) =>
        v.literal &&
        !/[\r\n]/.test(v.text) &&
        RUFF_INERT_SETTING.test(v.text) &&
        !/^\s*lint\.extend-safe-fixes/.test(v.text)
    },
    'output-file': WRITES_FILE,
    'cache-dir': WRITES_TREE,
    select: null,
    'extend-select': null,
    ignore: null,
    'extend-ignore': null,
    'per-file-ignores': null,
    'extend-per-file-ignores': null,
    fixable: null,
    unfixable: null,
    'extend-fixable': null,
    exclude: null,
    'extend-exclude': null,
    'line-length': null,
    'target-version': null,
    'output-format': null,
    'stdin-filename': null,
    'dummy-variable-rgx': null,
    extension: null,
    range: null,
    'indent-width': null
  },
  flags: {
    fix: { kind: 'rewrites-operands' },
    'fix-only': { kind: 'rewrites-operands' },
    'add-noqa': { kind: 'rewrites-operands' },
    check: { kind: 'none' },
    diff: { kind: 'none' }
  },
  short: { o: 'output-file', e: 'exit-zero', n: 'no-cache', s: 'silent', q: 'quiet', w: 'watch' }
}

/**
 * `outputFile` → `output-file` (yargs reads both), each dotted key alike (`poolOptions.forks` →
 * `pool-options.forks`); `--OUTDIR` stays as typed elsewhere.
 */
function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()
}

/**
 * The word after an option with a value. One that looks like an option (`--fix`) is its value for
 * some parsers (optionator, yargs' arrays) and an option of its own for others (minimist, mri,
 * argparse): it is read both ways, so that neither hides what it does (`consumed` false: the
 * loop reads it again as an option).
 */
function valueAfter(
  words: readonly ShellWord[],
  i: number
): { word: ShellWord; consumed: boolean } | undefined {
  const word = words[i + 1]
  if (word === undefined) return undefined
  const t = word.literal ? word.text : word.prefix
  return { word, consumed: !(t.startsWith('-') && t !== '-' && t !== '--') }
}

/** The option a written name stands for in `tool`, or undefined (an unknown option). */
function resolveName(tool: LintTool, name: string): string | undefined {
  const known = (n: string) =>
    takesValue(tool, n) || (tool.flags !== undefined && Object.hasOwn(tool.flags, n))
  if (known(name)) return name
  const alias =
    tool.aliases !== undefined && Object.hasOwn(tool.aliases, name) ? tool.aliases[name] : undefined
  if (alias !== undefined) return alias
  // `--outputFile.json=F` (Vitest): the option is `output-file`
  const dot = name.indexOf('.')
  if (dot > 0 && known(name.slice(0, dot)) && !known(name)) {
    // a key of the configuration below another option is a setting of its own (`unmodelled`)
    return tool.dotted === undefined || name.slice(0, dot) === 'output-file'
      ? name.slice(0, dot)
      : undefined
  }
  if (tool.abbreviations === true && name.length >= 2) {
    const all = [...Object.keys(tool.values), ...Object.keys(tool.flags ?? {})]
    // argparse takes a unique prefix as the option (an ambiguous one is refused): any option
    // with an effect that the prefix could stand for is read as that option
    const effectful = all.filter((n) => n.startsWith(name) && effectOf(tool, n) !== undefined)
    if (effectful.length > 0) return effectful[0]
    const any = all.find((n) => n.startsWith(name))
    if (any !== undefined) return any
  }
  return undefined
}

/**
 * A dotted option (`--poolOptions.forks.execArgv`) of a tool whose dotted options set any key of
 * its configuration, which neither its table nor its inert keys name: a setting not modelled here.
 */
function unmodelled(tool: LintTool, name: string): boolean {
  if (tool.dotted === undefined || !name.includes('.')) return false
  if (tool.dotted.inert.has(name) || Object.hasOwn(tool.values, name)) return false
  if (tool.flags !== undefined && Object.hasOwn(tool.flags, name)) return false
  return !name.startsWith('output-file.')
}

/**
 * What an unmodelled dotted key does: a key below an option that loads code loads code
 * (`--poolOptions.forks.execArgv` below `--poolOptions`); any other can set where the tool writes.
 */
function unmodelledSetting(tool: LintTool, key: string, label: string): CommandEffect {
  for (let at = key.lastIndexOf('.'); at > 0; at = key.lastIndexOf('.', at - 1)) {
    const does = effectOf(tool, key.slice(0, at))
    if (does?.kind === 'runs-code') return runsCode(`${label}: ${does.why}`)
  }
  return writesUnknown(`${label}: a setting of the tool's configuration this engine does not model`)
}

/** Whether `name` is one of the tool's options with a value (own keys only: not `constructor`). */
function takesValue(tool: LintTool, name: string): boolean {
  return Object.hasOwn(tool.values, name)
}

function effectOf(tool: LintTool, name: string): Does | undefined {
  if (takesValue(tool, name)) return tool.values[name] ?? undefined
  return tool.flags !== undefined && Object.hasOwn(tool.flags, name) ? tool.flags[name] : undefined
}

/**
 * An operand these tools expand themselves (`prettier --write '**\/*.yml'`, quoted so the shell
 * leaves it): the directory before its first pattern character, whose tree it may match (a brace
 * or a pattern at the start: the working directory). Dot-directories included: Prettier's and
 * ESLint's own globbing matches `.github`.
 */
function expandedByTool(word: ShellWord): ShellWord {
  if (!word.literal) return word
  const at = word.text.search(/[*?[{]/)
  if (at < 0) return word
  const cut = word.text.lastIndexOf('/', at)
  const dir = cut < 0 ? '.' : cut === 0 ? '/' : word.text.slice(0, cut)
  return lit(dir, word.tilde && dir.startsWith('~'))
}

/**
 * How a tool's words are read beyond its table: `rewrites`, the tool rewrites its operands
 * whatever its options say (`ruff format`); `checkOnly`, options that turn that off (`--check`);
 * `operandsUnknown`, a script's arguments, whose script names files of its own.
 */
export interface LintOptions {
  rewrites?: boolean
  checkOnly?: readonly string[]
  operandsUnknown?: boolean
}

/** One option as read: its name in the table, and its value word when it takes one. */
interface ReadOption {
  name: string
  written: string
  value?: ShellWord
}

/**
 * The effects of one linter's or test runner's words (words[0] is the program; `from` is where its
 * options start, after a subcommand). `rewrites`: the tool rewrites its operands whatever its
 * options say (`ruff format`); `checkOnly`: options that turn that off (`--check`, `--diff`).
 */
export function lintEffects(
  tool: LintTool,
  words: readonly ShellWord[],
  name: string,
  from = 1,
  options: LintOptions = {}
): CommandEffect[] {
  const out: CommandEffect[] = []
  const read_: ReadOption[] = []
  const operands: ShellWord[] = []
  let rewrites = options.rewrites === true
  let onlyOperands = false
  for (let i = from; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (onlyOperands) {
      operands.push(w)
      continue
    }
    // `--name=$X`: a known option whose value only is known at run time
    const eqAt = t.indexOf('=')
    if (!w.literal && t.startsWith('--') && eqAt > 2) {
      if (unmodelled(tool, kebab(t.slice(2, eqAt)))) {
        out.push(unmodelledSetting(tool, kebab(t.slice(2, eqAt)), `${name} ${t.slice(0, eqAt)}`))
        continue
      }
      const option = resolveName(tool, kebab(t.slice(2, eqAt)))
      if (option !== undefined && takesValue(tool, option)) {
        const rest = w.text.slice(w.text.indexOf('=') + 1)
        read_.push({ name: option, written: t.slice(0, eqAt), value: dyn(rest, t.slice(eqAt + 1)) })
      }
      continue
    }
    if (!w.literal && (mayBeOption(w) || (tool.fromFile === true && t.startsWith('@')))) {
      out.push(dynamicArgument(name, w, 'an option that names where it writes or code it loads'))
      continue
    }
    if (t === '--') {
      onlyOperands = true
      continue
    }
    if (tool.fromFile === true && t.startsWith('@')) {
      out.push(...responseFile(name, t))
      continue
    }
    if (!t.startsWith('-') || t === '-') {
      operands.push(w)
      continue
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=')
      const rawName = eq < 0 ? t.slice(2) : t.slice(2, eq)
      const negated = rawName.startsWith('no-') && resolveName(tool, kebab(rawName)) === undefined
      const spelled = kebab(negated ? rawName.slice(3) : rawName)
      const letter =
        tool.longShort === true && spelled.length === 1 && Object.hasOwn(tool.short ?? {}, spelled)
          ? tool.short?.[spelled]
          : undefined
      const key = letter ?? spelled
      if (!negated && unmodelled(tool, key)) {
        out.push(unmodelledSetting(tool, key, `${name} ${eq < 0 ? t : t.slice(0, eq)}`))
        continue
      }
      const option = resolveName(tool, key)
      if (option === undefined) continue
      if (negated) continue // `--no-fix`, `--no-cache`: the effect off
      if (takesValue(tool, option)) {
        const next = eq < 0 ? valueAfter(words, i) : undefined
        const value = eq >= 0 ? lit(t.slice(eq + 1), t.slice(eq + 1).startsWith('~')) : next?.word
        if (next?.consumed === true) i++
        read_.push(
          value === undefined ? { name: option, written: t } : { name: option, written: t, value }
        )
      } else {
        if (eq >= 0 && /^(?:false|0)$/i.test(t.slice(eq + 1))) continue
        read_.push({ name: option, written: t })
      }
      continue
    }
    // short options: `-o F`, `-oF`, `-c F`; letters before a valued one are flags (`-wo F`)
    for (let k = 1; k < t.length; k++) {
      const letter = t[k] as string
      const long =
        tool.short !== undefined && Object.hasOwn(tool.short, letter)
          ? tool.short[letter]
          : undefined
      if (long === undefined) continue
      if (takesValue(tool, long)) {
        const attached = t.slice(k + 1)
        const next = attached === '' ? valueAfter(words, i) : undefined
        const value = attached !== '' ? lit(attached, attached.startsWith('~')) : next?.word
        if (next?.consumed === true) i++
        read_.push(
          value === undefined
            ? { name: long, written: `-${t[k]}` }
            : { name: long, written: `-${t[k]}`, value }
        )
        break
      }
      read_.push({ name: long, written: `-${t[k]}` })
    }
  }
  const given = new Set(read_.map((o) => o.name))
  if (options.checkOnly?.some((c) => given.has(c))) rewrites = false
  for (const option of read_) {
    const does = effectOf(tool, option.name)
    if (does === undefined) continue
    const label = `${name} ${option.written}`
    const value = option.value
    switch (does.kind) {
      case 'writes-file':
      case 'writes-tree':
        if (value !== undefined) out.push(fileWrite(label, value, does.kind === 'writes-tree'))
        break
      case 'reads':
        if (value !== undefined) out.push(read(label, value))
        break
      case 'runs-code':
        if (value !== undefined && does.safe?.(value) === true) break
        out.push(runsCode(`${label}: ${does.why}`))
        break
      case 'configures':
        if (value !== undefined && does.safe?.(value) === true) break
        if (value?.literal === true && !value.text.includes('=')) out.push(read(label, value))
        out.push(writesUnknown(`${label}: ${does.why}`))
        break
      case 'rewrites-operands':
        rewrites = true
        break
      case 'flag-runs-code':
        out.push(runsCode(does.why))
        break
      case 'value-writes':
        if (!given.has(does.unless)) out.push(fileWrite(label, lit(does.target)))
        break
      case 'flag-writes':
        if (does.unless === undefined || !does.unless.some((u) => given.has(u))) {
          out.push(fileWrite(label, lit(does.target), does.subtree))
        }
        break
      case 'flag-writes-unknown':
        out.push(writesUnknown(`${label}: ${does.why}`))
        break
      case 'writes-file-unless':
        if (value !== undefined && !(value.literal && does.unless.test(value.text))) {
          out.push(fileWrite(label, value))
        }
        break
      case 'none':
        break
    }
  }
  // a script's arguments without a file (`npm run lint -- --fix`): what the script itself names
  // is the script's doing, as `npm run fix` would be (the sandbox's and the audit's part); the
  // files its arguments name are judged
  if (rewrites && !(options.operandsUnknown === true && operands.length === 0)) {
    const label = `${name} rewrites`
    const targets = operands.filter((o) => !(o.literal && o.text === '-'))
    for (const target of targets.length > 0 ? targets : [lit('.')]) {
      // the files there now, rewritten in place: nothing new lands below (removal: what is there)
      out.push(removal(fileWrite(label, expandedByTool(target), true)))
    }
  }
  return out
}

/**
 * The arguments a package manager passes to a script (`npm test -- ARGS`): the script's program
 * is not known, so ARGS are read as each of the test runners and linters here would read
 * them (ESLint, Prettier, Jest, Vitest). `--fix` rewrites the files ARGS name; without any, those
 * the script itself names, which is the script's doing (`npm run fix` alike).
 */
export function scriptArgumentEffects(args: readonly ShellWord[], name: string): CommandEffect[] {
  const label = `${name} (the script's arguments)`
  const words = [lit('script'), ...args]
  return [ESLINT, PRETTIER, JEST, VITEST].flatMap((tool) =>
    lintEffects(tool, words, label, 1, { operandsUnknown: true })
  )
}

/** The handler of a tool read from its table alone (lintEffects with these options). */
export function tableEffects(tool: LintTool, options: LintOptions = {}): Handler {
  return (words, name) => lintEffects(tool, words, name, 1, options)
}

export const eslintEffects = tableEffects(ESLINT)
export const prettierEffects = tableEffects(PRETTIER)
export const jestEffects = tableEffects(JEST)

export function vitestEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  // `vitest init browser` installs packages and writes a configuration
  const command = words.slice(1).find((w) => !w.literal || !w.text.startsWith('-'))
  if (command?.literal === true && command.text === 'init') {
    return [runsCode(`${name} init installs packages and writes Vitest’s configuration`)]
  }
  return lintEffects(VITEST, words, name)
}

export const mypyEffects = tableEffects(MYPY)

/** Ruff's subcommands that read files and may write them (`check` is also the default). */
const RUFF_COMMANDS = new Set([
  'check',
  'format',
  'clean',
  'rule',
  'config',
  'linter',
  'version',
  'help',
  'server',
  'analyze',
  'generate-shell-completion'
])

export function ruffEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  // `ruff [global options] SUBCOMMAND …`; without one (older Ruff), `ruff PATHS` is `ruff check`
  let sub: string | undefined
  let at = 1
  for (; at < words.length; at++) {
    const w = words[at] as ShellWord
    if (!w.literal) break
    if (RUFF_COMMANDS.has(w.text)) {
      sub = w.text
      break
    }
    if (!w.text.startsWith('-')) break
    // a global option with a value (`--config F`) before the subcommand
    if (w.text === '--config') at++
  }
  if (sub === undefined) return lintEffects(RUFF, words, name)
  const rest = [...words.slice(0, at), ...words.slice(at + 1)]
  const label = `${name} ${sub}`
  if (sub === 'check') return lintEffects(RUFF, rest, label)
  if (sub === 'format') {
    return lintEffects(RUFF, rest, label, 1, { rewrites: true, checkOnly: ['check', 'diff'] })
  }
  if (sub === 'clean') return [fileWrite(label, lit('.ruff_cache'), true)]
  if (sub === 'analyze') return lintEffects(RUFF, rest, label)
  return []
}
