/**
 * More formatters, linters, test runners and build tools read with linters.ts's tables: black and
 * isort (they rewrite the files they are given unless told only to check), flake8 and pylint
 * (report files; pylint's hooks and plugins are Python it runs), Mocha (modules it requires
 * first), Stylelint and markdownlint (`--fix` rewrites, formatters and rules are modules), Babel
 * (its output, plugins and presets) and esbuild (where it writes).
 *
 * A bare package name (`mocha -r ts-node/register`, `babel --presets @babel/preset-env`) is a
 * package installed in the project, as trusted as the tool itself; a path names code the rules
 * never saw (`-r ./src/x.js`).
 */
import type { ShellWord } from '../shell-word.js'
import {
  type LintTool,
  tableEffects,
  namesPath,
  READS,
  WRITES_FILE,
  WRITES_TREE,
  code
} from './linters.js'

/** A module named by path, or by a name of no package (`ts-node/register` is one). */
const PACKAGE_OR_CODE = (why: string) => code(why, (v) => !namesPath(v) || isPackageName(v))

/** `@scope/name/sub` or `name/sub`: a package's module, not a path. */
function isPackageName(v: ShellWord): boolean {
  return (
    v.literal &&
    !v.tilde &&
    /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:\/[\w.-]+)*$/i.test(v.text) &&
    !/^\.|\/\.\.?(?:\/|$)/.test(v.text) &&
    !/\.(?:[cm]?[jt]s|json|py)$/i.test(v.text)
  )
}

export const BLACK: LintTool = {
  values: {
    config: READS,
    code: null,
    'line-length': null,
    'target-version': null,
    include: null,
    exclude: null,
    'extend-exclude': null,
    'force-exclude': null,
    'stdin-filename': null,
    workers: null,
    'required-version': null,
    'python-cell-magics': null,
    'enable-unstable-feature': null
  },
  // read so that they turn the rewriting off
  flags: { check: { kind: 'none' }, diff: { kind: 'none' } },
  short: { l: 'line-length', t: 'target-version', c: 'code', W: 'workers' }
}

export const ISORT: LintTool = {
  values: {
    'settings-path': READS,
    'settings-file': READS,
    sp: READS,
    'line-length': null,
    'line-width': null,
    skip: null,
    'skip-glob': null,
    profile: null,
    jobs: null,
    src: null,
    'virtual-env': null,
    'conda-env': null,
    'python-version': null,
    py: null
  },
  // read so that they turn the rewriting off
  flags: {
    'check-only': { kind: 'none' },
    check: { kind: 'none' },
    diff: { kind: 'none' },
    stdout: { kind: 'none' },
    'show-files': { kind: 'none' },
    'show-config': { kind: 'none' }
  },
  short: { l: 'line-length', s: 'skip', j: 'jobs', c: 'check-only', d: 'stdout' },
  abbreviations: true
}

export const FLAKE8: LintTool = {
  values: {
    'output-file': WRITES_FILE,
    config: READS,
    'append-config': READS,
    format: null,
    'max-line-length': null,
    'max-doc-length': null,
    'max-complexity': null,
    select: null,
    ignore: null,
    'extend-select': null,
    'extend-ignore': null,
    exclude: null,
    'extend-exclude': null,
    filename: null,
    'per-file-ignores': null,
    jobs: null,
    'stdin-display-name': null,
    'require-plugins': null,
    'enable-extensions': null,
    'indent-size': null,
    builtins: null,
    color: null
  },
  short: { j: 'jobs' },
  abbreviations: true
}

/** pylint's own reporters (`--output-format`): a name that loads no module. */
const PYLINT_FORMATS = /^(?:text|parseable|colorized|json|json2|msvs|github)$/

export const PYLINT: LintTool = {
  values: {
    output: WRITES_FILE,
    rcfile: code('an rcfile’s init-hook is Python pylint runs, and its load-plugins modules'),
    'init-hook': code('pylint runs the Python it is given'),
    'load-plugins': code('plugins are Python modules pylint imports'),
    // `json:report.json,colorized`: NAME:FILE writes FILE (not read here: refused with the rest)
    'output-format': code(
      'a reporter other than pylint’s own is a module pylint imports, and NAME:FILE writes FILE',
      (v) => v.literal && v.text.split(',').every((r) => PYLINT_FORMATS.test(r))
    ),
    ignore: null,
    'ignore-patterns': null,
    'ignore-paths': null,
    jobs: null,
    disable: null,
    enable: null,
    'max-line-length': null,
    'fail-under': null,
    'fail-on': null,
    'py-version': null,
    'source-roots': null,
    recursive: null,
    persistent: null,
    reports: null,
    score: null,
    'msg-template': null,
    'extension-pkg-allow-list': code('C extensions it names are loaded into pylint'),
    'extension-pkg-whitelist': code('C extensions it names are loaded into pylint')
  },
  short: { j: 'jobs', d: 'disable', e: 'enable', r: 'reports', s: 'score', f: 'output-format' }
}

/** Node options that load nothing (`mocha -n enable-source-maps`). */
const HARMLESS_NODE_OPTION =
  /^(?:enable-source-maps|no-warnings|no-deprecation|trace-warnings|trace-deprecation|unhandled-rejections=\w+|experimental-vm-modules|max-old-space-size=\d+)$/

export const MOCHA: LintTool = {
  values: {
    require: PACKAGE_OR_CODE('a module Mocha requires before the tests'),
    import: PACKAGE_OR_CODE('a module Node imports before the tests'),
    reporter: PACKAGE_OR_CODE('a reporter given by path is a module Mocha loads'),
    ui: PACKAGE_OR_CODE('an interface given by path is a module Mocha loads'),
    config: code('a configuration file names modules Mocha requires (or is one)'),
    opts: code('an options file names modules Mocha requires'),
    package: READS,
    'node-option': code(
      'Node options can load any module (--require, --import, --loader)',
      (v) => v.literal && v.text.split(',').every((o) => HARMLESS_NODE_OPTION.test(o.trim()))
    ),
    'reporter-option': {
      kind: 'configures',
      why: 'a reporter’s options can name the file it writes (output=F)'
    },
    'reporter-options': {
      kind: 'configures',
      why: 'a reporter’s options can name the file it writes (output=F)'
    },
    timeout: null,
    slow: null,
    grep: null,
    fgrep: null,
    retries: null,
    jobs: null,
    extension: null,
    ignore: null,
    exclude: null,
    spec: null,
    file: null,
    'watch-files': null,
    'watch-ignore': null
  },
  short: {
    r: 'require',
    R: 'reporter',
    u: 'ui',
    n: 'node-option',
    O: 'reporter-option',
    t: 'timeout',
    s: 'slow',
    g: 'grep',
    f: 'fgrep',
    j: 'jobs'
  },
  longShort: true
}

export const STYLELINT: LintTool = {
  values: {
    config: code('a configuration names plugins, modules Stylelint loads (or is one)'),
    'config-basedir': code('plugins and extended configurations are then loaded from elsewhere'),
    'custom-syntax': PACKAGE_OR_CODE('a syntax given by path is a module Stylelint loads'),
    'custom-formatter': code('a formatter is a module Stylelint loads'),
    'output-file': WRITES_FILE,
    'cache-location': WRITES_TREE,
    'ignore-path': READS,
    formatter: null,
    'ignore-pattern': null,
    'stdin-filename': null,
    'max-warnings': null,
    'cache-strategy': null
  },
  flags: {
    fix: { kind: 'rewrites-operands' },
    cache: {
      kind: 'flag-writes',
      target: '.stylelintcache',
      subtree: false,
      unless: ['cache-location']
    }
  },
  short: { c: 'config', f: 'formatter', o: 'output-file', i: 'ignore-path' },
  longShort: true
}

export const MARKDOWNLINT: LintTool = {
  values: {
    config: code('a configuration in JavaScript is a module markdownlint loads', (v) =>
      /\.(?:json|jsonc|ya?ml)$/i.test(v.literal ? v.text : '')
    ),
    rules: code('custom rules are modules markdownlint loads'),
    output: WRITES_FILE,
    'ignore-path': READS,
    ignore: null,
    'config-pointer': null,
    enable: null,
    disable: null
  },
  flags: { fix: { kind: 'rewrites-operands' } },
  short: { c: 'config', r: 'rules', o: 'output', i: 'ignore', p: 'ignore-path', f: 'fix' }
}

export const BABEL: LintTool = {
  values: {
    'out-file': WRITES_FILE,
    'out-dir': WRITES_TREE,
    plugins: PACKAGE_OR_CODE('a plugin given by path is a module Babel loads'),
    presets: PACKAGE_OR_CODE('a preset given by path is a module Babel loads'),
    'config-file': code('a configuration names plugins and presets Babel loads (or is one)'),
    'root-mode': null,
    'env-name': null,
    'source-maps': null,
    'source-map-target': null,
    'source-file-name': null,
    'source-root': null,
    extensions: null,
    ignore: null,
    only: null,
    'out-file-extension': null,
    filename: null
  },
  short: { o: 'out-file', d: 'out-dir', f: 'filename', x: 'extensions', s: 'source-maps' },
  longShort: true
}

export const ESBUILD: LintTool = {
  values: {
    outfile: WRITES_FILE,
    outdir: WRITES_TREE,
    metafile: WRITES_FILE,
    'mangle-cache': WRITES_FILE,
    tsconfig: READS,
    servedir: READS
  }
}

export const blackEffects = tableEffects(BLACK, {
  rewrites: true,
  checkOnly: ['check', 'diff', 'code']
})
export const isortEffects = tableEffects(ISORT, {
  rewrites: true,
  checkOnly: ['check-only', 'check', 'diff', 'stdout', 'show-files', 'show-config']
})
export const flake8Effects = tableEffects(FLAKE8)
export const pylintEffects = tableEffects(PYLINT)
export const mochaEffects = tableEffects(MOCHA)
export const stylelintEffects = tableEffects(STYLELINT)
export const markdownlintEffects = tableEffects(MARKDOWNLINT)
export const babelEffects = tableEffects(BABEL)
export const esbuildEffects = tableEffects(ESBUILD)
