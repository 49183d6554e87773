/**
 * Setup and verify commands that need the network, behind a wall that gives them none, or only
 * the hosts the policy's url rules allow.
 *
 * Behind the command wall (command-wall.ts) a command has no network unless the policy's url
 * rules allow some host, and then only those hosts, through the action's proxy
 * (command-proxy.ts). A policy such as `extends: ci-fix` with no url rule makes `npm ci` fail
 * or, worse, retry until `command-timeout-seconds`. So before such a command runs the action says
 * so (and before one that downloads from a host the rules refuse), when a command without network
 * fails, its failure says what to change, and each host the proxy refuses is named with the fix.
 *
 * What counts as "obviously fetches" is kept small and principled: the install and fetch
 * subcommands of package managers (language and system), URL fetchers, and git's commands that
 * talk to a remote. Not build or test commands (`cargo build`, `npm test`, `mvn package`): they
 * may work offline from the caches the sandbox shows read-only, and a guess would cry wolf.
 *
 * Pure: a command line in, words out. The command line is read word by word, split at the shell's
 * list and pipeline operators, with `VAR=value` prefixes and plain wrappers (`sudo`, `env`,
 * `time`, `timeout N`, ...) skipped: a hint, not a parse (the policy's own parser is for the
 * agent's commands, which the policy decides).
 */

/** A command of the line that fetches, and a host a url rule would have to allow for it. */
export interface Fetcher {
  /** The words that make it a fetch: `npm ci`, `pip install`, `curl`. */
  what: string
  /** The host it fetches from, when known: the registry, or the host of a URL it names. */
  host?: string
}

interface Program {
  /** Subcommands that fetch; empty: every invocation does (curl, wget). */
  subcommands: ReadonlySet<string>
  /** Without a subcommand (`yarn`, `bundle`), it installs. */
  bare?: boolean
  /** Where it fetches from by default. */
  host?: string
}

const set = (...words: string[]): ReadonlySet<string> => new Set(words)

const NPM_REGISTRY = 'registry.npmjs.org'

/** The programs, by the name they are run as. */
const PROGRAMS: ReadonlyMap<string, Program> = new Map<string, Program>([
  // JavaScript
  [
    'npm',
    {
      subcommands: set(
        'install',
        'i',
        'ci',
        'add',
        'update',
        'install-test',
        'it',
        'install-ci-test',
        'cit'
      ),
      host: NPM_REGISTRY
    }
  ],
  [
    'yarn',
    { subcommands: set('install', 'add', 'upgrade'), bare: true, host: 'registry.yarnpkg.com' }
  ],
  [
    'pnpm',
    { subcommands: set('install', 'i', 'add', 'fetch', 'update', 'up'), host: NPM_REGISTRY }
  ],
  ['bun', { subcommands: set('install', 'i', 'add'), host: NPM_REGISTRY }],
  // Python
  ['pip', { subcommands: set('install', 'download'), host: 'pypi.org' }],
  ['pip3', { subcommands: set('install', 'download'), host: 'pypi.org' }],
  ['poetry', { subcommands: set('install', 'add', 'update'), host: 'pypi.org' }],
  ['pipenv', { subcommands: set('install', 'sync'), host: 'pypi.org' }],
  ['uv', { subcommands: set('sync', 'add'), host: 'pypi.org' }],
  // Ruby
  ['bundle', { subcommands: set('install', 'update'), bare: true, host: 'rubygems.org' }],
  ['gem', { subcommands: set('install'), host: 'rubygems.org' }],
  // Rust, Go, PHP, .NET
  ['cargo', { subcommands: set('fetch', 'install', 'update'), host: 'index.crates.io' }],
  ['go', { subcommands: set('get'), host: 'proxy.golang.org' }],
  ['composer', { subcommands: set('install', 'require', 'update'), host: 'repo.packagist.org' }],
  ['dotnet', { subcommands: set('restore'), host: 'api.nuget.org' }],
  // system packages
  ['apt-get', { subcommands: set('install', 'update', 'upgrade', 'download') }],
  ['apt', { subcommands: set('install', 'update', 'upgrade') }],
  ['apk', { subcommands: set('add', 'update') }],
  ['dnf', { subcommands: set('install', 'update') }],
  ['yum', { subcommands: set('install', 'update') }],
  // URL fetchers: every invocation
  ['curl', { subcommands: set() }],
  ['wget', { subcommands: set() }],
  // git's remote commands
  ['git', { subcommands: set('clone', 'fetch', 'pull', 'ls-remote') }]
])

/** Wrappers that run the rest of the line as a command: skipped with their options. */
const WRAPPERS = new Set([
  'sudo',
  'env',
  'time',
  'command',
  'nohup',
  'nice',
  'exec',
  'xargs',
  'timeout',
  'stdbuf',
  'setsid'
])

/** Splits a command line into simple commands' words (quotes removed, not interpreted). */
function simpleCommands(line: string): string[][] {
  return line
    .split(/&&|\|\||[;|&\n()]/)
    .map((part) =>
      part
        .trim()
        .split(/\s+/)
        .map((word) => word.replace(/^['"]+|['"]+$/g, ''))
        .filter((word) => word !== '')
    )
    .filter((words) => words.length > 0)
}

/** The words of one simple command without its `VAR=value` prefixes and wrappers. */
function program(words: readonly string[]): string[] {
  let rest = [...words]
  for (;;) {
    while (rest[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) rest = rest.slice(1)
    const first = rest[0]
    if (first === undefined || !WRAPPERS.has(basename(first))) return rest
    rest = rest.slice(1)
    while (rest[0]?.startsWith('-') === true) rest = rest.slice(1)
    // timeout's duration
    if (basename(first) === 'timeout' && /^\d/.test(rest[0] ?? '')) rest = rest.slice(1)
  }
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1)
}

/** The host of the first `http(s)://` or `git@host:` URL among `words`. */
function urlHost(words: readonly string[]): string | undefined {
  for (const word of words) {
    const url = /^(?:https?|git|ssh):\/\/(?:[^@/]*@)?([^/:?#]+)/i.exec(word)
    if (url?.[1] !== undefined) return url[1].toLowerCase()
    const scp = /^[\w.-]+@([\w.-]+):/.exec(word)
    if (scp?.[1] !== undefined) return scp[1].toLowerCase()
  }
  return undefined
}

/** The first command of `line` that obviously fetches from the network, or undefined. */
export function fetcherIn(line: string): Fetcher | undefined {
  for (const words of simpleCommands(line)) {
    let rest = program(words)
    let name = basename(rest[0] ?? '')
    // python -m pip install, python3 -m pip install
    if (/^python(\d+(\.\d+)?)?$/.test(name) && rest[1] === '-m' && rest[2] !== undefined) {
      rest = rest.slice(2)
      name = basename(rest[0] ?? '')
    }
    // sh -c '…', bash -c '…'
    if ((name === 'sh' || name === 'bash') && rest[1] === '-c') {
      const inner = fetcherIn(rest.slice(2).join(' '))
      if (inner !== undefined) return inner
      continue
    }
    const known = PROGRAMS.get(name)
    if (known === undefined) continue
    const args = rest.slice(1)
    const subcommand = args.find((word) => !word.startsWith('-'))
    const host = urlHost(args) ?? known.host
    const found = (what: string): Fetcher => ({ what, ...(host === undefined ? {} : { host }) })
    if (known.subcommands.size === 0) return found(name)
    if (subcommand === undefined) {
      if (known.bare === true) return found(name)
      continue
    }
    if (known.subcommands.has(subcommand)) return found(`${name} ${subcommand}`)
    // go mod download
    if (name === 'go' && subcommand === 'mod' && args.includes('download')) {
      return found('go mod download')
    }
    // git submodule update (fetches the submodules)
    if (name === 'git' && subcommand === 'submodule' && args.includes('update')) {
      return found('git submodule update')
    }
  }
  return undefined
}

/** The fix, in words: a url rule for the host (`host:port` off 80 and 443), or `unconfined-commands`. */
function fix(host: string | undefined): string {
  const rule =
    host === undefined
      ? 'a `url` allow rule for the host it downloads from'
      : `a \`url\` allow rule for \`${host}\` (\`- { decision: allow, url: ["${host}"] }\`)`
  return `${rule} in the policy (the setup and verify commands then reach the hosts the url allow rules match, through the action's proxy, and no other), or name the command in the input \`unconfined-commands\``
}

/** What a url rule names for `host:port`: the host alone on 80 and 443. */
function ruleTarget(target: string): string {
  const match = /^(.*):(\d+)$/.exec(target)
  if (match?.[1] === undefined) return target
  return match[2] === '443' || match[2] === '80' ? match[1] : target
}

/** The warning when the proxy refuses a command a host and port (once per target). */
export function refusedWarning(
  phase: 'setup' | 'verify',
  command: string,
  target: string,
  reason: string
): string {
  return `The network proxy refused the ${phase} command \`${command}\` a connection to ${target}: ${reason}. If it needs it: ${fix(ruleTarget(target))}.`
}

/** The warning before a command that downloads from a host the url rules refuse. */
export function refusedFetchWarning(
  phase: 'setup' | 'verify',
  command: string,
  fetcher: Fetcher,
  reason: string
): string {
  return `The ${phase} command \`${command}\` downloads (\`${fetcher.what}\`) from ${fetcher.host ?? 'a host'}, which the network proxy will refuse (${reason}). Fix: ${fix(fetcher.host)}.`
}

/** What a failed command adds when the proxy refused it hosts: which, and the fix. */
export function refusedHint(c: {
  refused?: ReadonlyArray<{ target: string; reason: string }>
  refusedMore?: number
}): string | undefined {
  const refused = c.refused ?? []
  const first = refused[0]
  if (first === undefined) return undefined
  const more = (c.refusedMore ?? 0) + refused.length - 1
  const rest = more > 0 ? ` and ${more} other${more === 1 ? '' : 's'}` : ''
  return `The network proxy refused it ${first.target} (${first.reason})${rest}. If it needs them: ${fix(ruleTarget(first.target))}.`
}

/** The warning before a command that obviously fetches runs without network. */
export function noNetworkWarning(
  phase: 'setup' | 'verify',
  command: string,
  fetcher: Fetcher
): string {
  return `The ${phase} command \`${command}\` downloads (\`${fetcher.what}\`), but it runs behind the OS sandbox without network: the policy's url rules allow no host. It will fail, or hang until command-timeout-seconds. Fix: ${fix(fetcher.host)}.`
}

/**
 * What a failed or timed-out command that ran without network adds to its failure: that it had
 * none, and the fix; in full for a command that obviously downloads, in a line for the others
 * (a failing test suite rarely needs the network, and the hint must not drown its output).
 */
export function noNetworkHint(command: string): string {
  const fetcher = fetcherIn(command)
  if (fetcher !== undefined) {
    return `It ran behind the OS sandbox without network (the policy's url rules allow no host), and \`${fetcher.what}\` downloads. Fix: ${fix(fetcher.host)}.`
  }
  return "It ran without network (no url rule allows a host): if it needs one, allow its host with a `url` rule (the setup and verify commands then reach the hosts the url rules allow, through the action's proxy) or name it in `unconfined-commands`."
}

/**
 * What a failed command's record adds of its network: that it had none, or the hosts the proxy
 * refused it; undefined when neither.
 */
export function networkHint(c: {
  command: string
  confinement?: string
  network?: string
  refused?: ReadonlyArray<{ target: string; reason: string }>
  refusedMore?: number
}): { kind: 'offline' | 'refused'; text: string } | undefined {
  if (ranWithoutNetwork(c)) return { kind: 'offline', text: noNetworkHint(c.command) }
  const refused = refusedHint(c)
  return refused === undefined ? undefined : { kind: 'refused', text: refused }
}

/** Whether a command's record says it ran without network: behind the wall, network `none`. */
export function ranWithoutNetwork(c: { confinement?: string; network?: string }): boolean {
  return c.confinement === 'sandboxed' && c.network === 'none'
}
