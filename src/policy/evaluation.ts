/**
 * What bash evaluates as code where a reader sees data, and the variables that steer the
 * programs an allowed command runs.
 *
 * bash evaluates arithmetic recursively: a variable named in `(( x ))`, `$(( x ))`, `[[ x -gt 1 ]]`,
 * an array subscript (`b[x]=1`, `${a[x]}`) or an offset (`${s:x}`) is read and its VALUE is
 * evaluated as an arithmetic expression in turn, so `x='a[$(id)]'` runs `id`. The same holds for
 * `${!x}` (indirection), namerefs (`declare -n`), integer variables (`declare -i`), and the
 * variable names `read`, `printf -v`, `unset`, `[ -v ]`, ... take. The policy cannot know a
 * variable's value, so it accepts arithmetic only when it is made of literal numbers and
 * operators, subscripts only when they are literal integers, and no indirection at all.
 */

/** A number bash reads without evaluating anything: 42, 0x1f, 017, 16#ff. */
const NUMBER = String.raw`(?:0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\d+)`
/** Parameters whose value is always a number bash set itself ($?, $#, $$, $!, ${#name}). */
const NUMERIC_PARAMETER = String.raw`(?:\$[?#$!]|\$\{#[A-Za-z_][A-Za-z0-9_]*(?:\[[@*]\])?\}|\$\{#\})`
const INERT_ARITHMETIC = new RegExp(
  String.raw`^(?:\s|"|${NUMBER}|${NUMERIC_PARAMETER}|\*\*|<<|>>|[-+*/%<>=!&|^~?:(),])*$`
)

/**
 * True when evaluating `text` as bash arithmetic reads no variable and runs nothing: only
 * literal numbers, bash's own numeric parameters and operators. (`=` without a name to assign
 * to is a syntax error, so it is harmless here.)
 */
export function isInertArithmetic(text: string): boolean {
  return INERT_ARITHMETIC.test(text)
}

/** A literal array subscript bash does not evaluate: an integer, or `@` / `*`. */
export function isInertSubscript(text: string, allowAll = false): boolean {
  const t = text.trim()
  return /^-?\d+$/.test(t) || (allowAll && (t === '@' || t === '*'))
}

/** The arithmetic comparisons of `[[ ]]`: both operands are evaluated as arithmetic. */
export const ARITHMETIC_TEST_OPERATORS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])

/**
 * Variables that make an allowed command run other code, load other configuration, or write
 * elsewhere: a different program on PATH, a preloaded library, a shell startup file, an
 * interpreter option, a git or npm configuration, a runner command file. Setting, unsetting,
 * exporting, iterating or reading into any of them is denied by the engine itself, whatever the
 * rules say. Names are compared case-insensitively (Windows environments are, and npm reads
 * `npm_config_*` in any case). policy/README.md lists them.
 */
const PROTECTED_NAMES = new Set(
  [
    'HOME',
    'PATH',
    'IFS',
    'CDPATH',
    'PWD',
    'OLDPWD',
    'ENV',
    'BASH_ENV',
    'SHELLOPTS',
    'BASHOPTS',
    'GLOBIGNORE',
    'PS1',
    'PS2',
    'PS3',
    'PS4',
    'PROMPT_COMMAND',
    'FUNCNEST',
    'HISTFILE',
    'INPUTRC',
    'SHELL',
    'TMPDIR',
    'EDITOR',
    'VISUAL',
    'PAGER',
    'MANPAGER',
    'MANOPT',
    'BROWSER',
    'LESSOPEN',
    'LESSCLOSE',
    'LESS',
    'LESSKEY',
    'TZDIR',
    'LOCPATH',
    'NLSPATH',
    'GCONV_PATH',
    'HOSTALIASES',
    'RES_OPTIONS',
    'GLIBC_TUNABLES',
    'OPENSSL_CONF',
    'OPENSSL_ENGINES',
    'OPENSSL_MODULES',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'CURL_CA_BUNDLE',
    'REQUESTS_CA_BUNDLE',
    'CURL_HOME',
    'WGETRC',
    'NETRC',
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'ALL_PROXY',
    'NO_PROXY',
    'FTP_PROXY',
    'JAVA_TOOL_OPTIONS',
    '_JAVA_OPTIONS',
    'JDK_JAVA_OPTIONS',
    'JAVA_HOME',
    'CLASSPATH',
    'MAVEN_OPTS',
    'MAVEN_ARGS',
    'GRADLE_OPTS',
    'GRADLE_USER_HOME',
    'GOFLAGS',
    'GOENV',
    'GOROOT',
    'GOPATH',
    'GOPROXY',
    'GOTOOLCHAIN',
    'CGO_CFLAGS',
    'CGO_LDFLAGS',
    'CC',
    'CXX',
    'LD',
    'AR',
    'CFLAGS',
    'CXXFLAGS',
    'LDFLAGS',
    'CPPFLAGS',
    'MAKEFLAGS',
    'MAKEFILES',
    'MFLAGS',
    'MAKE',
    'RUSTFLAGS',
    'RUSTDOCFLAGS',
    'RUSTC',
    'RUSTC_WRAPPER',
    'RUSTC_WORKSPACE_WRAPPER',
    'RUSTDOC',
    'RUSTUP_HOME',
    'RUSTUP_TOOLCHAIN',
    'GEM_HOME',
    'GEM_PATH',
    'BUNDLE_GEMFILE',
    'PERLLIB',
    'COMPOSER_HOME',
    'DOTNET_ROOT',
    'DOCKER_HOST',
    'DOCKER_CONFIG',
    'KUBECONFIG',
    'GNUPGHOME',
    'SSH_AUTH_SOCK',
    'SSH_ASKPASS',
    'SUDO_ASKPASS',
    'DISPLAY',
    'TERMINFO',
    'TERMINFO_DIRS',
    // $"..." strings are translated through these and the translation is expanded again
    'TEXTDOMAIN',
    'TEXTDOMAINDIR',
    // popd and `cd -` go where these say
    'DIRSTACK',
    // bash evaluates a value assigned to these as arithmetic (a subscript in it runs)
    'RANDOM',
    'SRANDOM',
    'SECONDS',
    'OPTIND',
    'HISTCMD',
    'LINENO'
  ].map((n) => n.toLowerCase())
)

/** Name prefixes (compared case-insensitively) whose every variable is protected. */
const PROTECTED_PREFIXES = [
  'BASH_',
  'LD_',
  'DYLD_',
  'XDG_',
  'GIT_',
  'NODE_',
  'NPM_CONFIG_',
  'YARN_',
  'PNPM_',
  'COREPACK_',
  'BUN_',
  'DENO_',
  'PYTHON',
  'PIP_',
  'UV_',
  'POETRY_',
  'VIRTUAL_ENV',
  'CONDA',
  'PERL5',
  'PERL_',
  'RUBY',
  'CARGO_',
  'GITHUB_',
  'RUNNER_',
  'ACTIONS_',
  'COPILOT_',
  'SSH_',
  'GH_',
  'LC_',
  'MALLOC_',
  'COMP_'
].map((p) => p.toLowerCase())

/** Protected-prefix variables that only carry data their programs do not run. */
const UNPROTECTED = new Set(['node_env', 'lc_all', 'lc_ctype', 'lc_collate', 'lc_messages'])

/** Whether setting, unsetting or exporting the variable `name` is denied by the engine. */
export function isProtectedVariable(name: string): boolean {
  const lower = name.toLowerCase()
  if (UNPROTECTED.has(lower)) return false
  return PROTECTED_NAMES.has(lower) || PROTECTED_PREFIXES.some((p) => lower.startsWith(p))
}

/** `NAME`, `NAME[sub]`, `NAME=…`, `NAME+=…`, `NAME[sub]=…` split into name and subscript. */
export interface VariableTarget {
  name: string
  subscript?: string
}

/** Parses the variable a word names (before any `=`); undefined when it names none. */
export function variableTarget(text: string): VariableTarget | undefined {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?(?:\+?=|$)/s.exec(text)
  if (m === null) return undefined
  const target: VariableTarget = { name: m[1] as string }
  if (m[2] !== undefined) target.subscript = m[2]
  return target
}

/**
 * Why setting the variable a word names is not allowed, or undefined when it may be set (and
 * the rules then decide on the command). `how` says what sets it (`read`, `for`, `export`, ...).
 */
export function variableProblem(
  word: { text: string; literal: boolean; prefix: string },
  how: string
): { id: 'evaluates-code' | 'protected-variable'; reason: string } | undefined {
  const known = word.literal ? word.text : word.prefix
  const target = variableTarget(known)
  if (target === undefined || (!word.literal && !/(?:\+?=)/.test(known))) {
    return {
      id: 'evaluates-code',
      reason: `${how} sets a variable whose name "${word.text}" is only known when it runs (a subscript in it would run commands)`
    }
  }
  if (isProtectedVariable(target.name)) {
    return {
      id: 'protected-variable',
      reason: `${how} sets ${target.name}, a variable that can make later commands run other programs or read other configuration`
    }
  }
  if (target.subscript !== undefined && !isInertSubscript(target.subscript)) {
    return {
      id: 'evaluates-code',
      reason: `the subscript "[${target.subscript}]" in ${how} is evaluated as arithmetic, which can run commands`
    }
  }
  return undefined
}

export type ExpansionProblem = { id: 'evaluates-code' | 'protected-variable'; reason: string }

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/
const SPECIAL = /^(?:[0-9]+|[@*#?$!-])/

/**
 * Checks a parameter expansion `${...}` (its whole source text) for what bash evaluates:
 * indirection, non-literal subscripts and offsets, `@P`, and assignments to protected
 * variables (`${HOME:=x}`). Words inside it (defaults, patterns) are checked by the caller's
 * walk of the tree. Returns the first problem, or undefined.
 */
export function expansionProblem(text: string): ExpansionProblem | undefined {
  if (!text.startsWith('${') || !text.endsWith('}')) return undefined
  let rest = text.slice(2, -1)
  const evaluates = (why: string): ExpansionProblem => ({
    id: 'evaluates-code',
    reason: `${text} ${why}, which can run commands`
  })
  let indirect = false
  if (rest.startsWith('!')) {
    indirect = true
    rest = rest.slice(1)
  } else if (rest.startsWith('#') && rest.length > 1 && !/^#[}:#%/^,@]/.test(rest + '}')) {
    rest = rest.slice(1) // ${#name}: the length
  }
  const name = NAME.exec(rest) ?? SPECIAL.exec(rest)
  if (name === null) return evaluates('is not a plain parameter')
  rest = rest.slice(name[0].length)
  let subscript: string | undefined
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']')
    if (close < 0) return evaluates('has an unterminated subscript')
    subscript = rest.slice(1, close)
    rest = rest.slice(close + 1)
    if (!isInertSubscript(subscript, true)) {
      return evaluates(`evaluates the subscript "[${subscript}]" as arithmetic`)
    }
  }
  if (indirect) {
    // ${!prefix*}, ${!prefix@} list names; ${!a[@]} lists keys: nothing is dereferenced
    const listsNames = (rest === '*' || rest === '@') && subscript === undefined
    const listsKeys = rest === '' && (subscript === '@' || subscript === '*')
    if (!listsNames && !listsKeys) return evaluates('reads the variable named by another one')
    return undefined
  }
  if (rest === '') return undefined
  if (/^:?=/.test(rest) && isProtectedVariable(name[0])) {
    return {
      id: 'protected-variable',
      reason: `${text} assigns ${name[0]}, a variable that can make later commands run other programs`
    }
  }
  if (rest.startsWith('@')) {
    return rest.startsWith('@P') ? evaluates('expands the value as a prompt string') : undefined
  }
  if (rest.startsWith(':') && !/^:[-=?+]/.test(rest)) {
    // ${s:offset} and ${s:offset:length} are arithmetic
    if (!isInertArithmetic(rest.slice(1))) {
      return evaluates(`evaluates the offset "${rest.slice(1)}" as arithmetic`)
    }
  }
  return undefined
}
