/**
 * The OS sandbox the policy implies: the `sandboxConfig` the Copilot CLI takes in
 * `session.create` (schema: `SessionOpenOptions.sandboxConfig` in the npm package
 * `@github/copilot-sdk-linux-x64`, `schemas/api.schema.json`). On Linux the CLI enforces it with
 * bubblewrap around every shell command the agent runs: a second wall behind the policy, for what
 * an allowed program does (a test script the agent wrote, run by an allowed `npm test`).
 *
 * Pure: the run's facts (environment, directories, which paths exist) come in as arguments.
 */
import path from 'node:path'
import { literalOf } from './glob.js'
import type { CompiledRule } from './engine.js'
import { SCRATCH_AREAS, within } from './scratch-areas.js'
import { HOME_CREDENTIALS } from './sensitive.js'

/** `userPolicy.network` of the CLI's sandbox config. */
export interface SandboxNetwork {
  allowOutbound: boolean
  allowLocalNetwork: boolean
  allowedHosts: string[]
  blockedHosts: string[]
}

/** `userPolicy.filesystem` of the CLI's sandbox config. */
export interface SandboxFilesystem {
  readwritePaths: string[]
  readonlyPaths: string[]
  deniedPaths: string[]
}

/** The `sandboxConfig` of `session.create` (the subset the action sets). */
export interface SandboxConfig {
  enabled: boolean
  allowBypass: false
  addCurrentWorkingDirectory: true
  userPolicy: { network: SandboxNetwork; filesystem: SandboxFilesystem }
  /**
   * Whether the MCP servers of the session run inside the sandbox (the CLI's default: yes).
   * `false` runs them as the workflow's own processes, with the runner's network and files.
   */
  sandboxMcpServers?: false
}

/** What the derivation needs of the policy. */
export interface SandboxPolicy {
  rules: readonly CompiledRule[]
  /** The policy file's names (as loaded, and its real path): protected like a denied path. */
  policyFiles?: readonly string[]
}

/** The run's facts. */
export interface SandboxFacts {
  /** The agent's working directory (the workspace): always read-write. */
  workingDirectory: string
  /** The action's environment (RUNNER_TEMP, GITHUB_ENV, HOME, ...). */
  env: NodeJS.ProcessEnv
  /** The action's own files (the bundle's directory) when GITHUB_ACTION_PATH is not set. */
  actionDir?: string
  /** The CLI's private home (session state, logs): denied, the CLI binds what a command needs. */
  copilotHome?: string
  /** Whether a path exists: bubblewrap refuses to bind one that does not. */
  exists: (p: string) => boolean
  /**
   * The entries of a directory. With it, a denied directory that holds the CLI's session state
   * (plan.md: the CLI's own file tools obey the sandbox's denied paths) is denied entry by entry
   * around it; without it, the session state's directories are not denied.
   */
  children?: (dir: string) => string[]
  /**
   * The agent's commands' private writable directory (their TMPDIR, TMP, TEMP: `actionVariables` in
   * wall/environment.ts): read-write, and kept reachable like the session state.
   */
  scratchDir?: string
  /**
   * Paths inside the workspace that exist and that the policy's write rules protect
   * (`protectedPaths`): read-only, so no program, modeled or not, can change them.
   */
  protectedPaths?: readonly string[]
  /**
   * The runner's own installation (the directory holding `externals/`, `_diag/`, `.runner`),
   * when the action runs under it: its credentials and logs denied.
   */
  runnerDir?: string
}

/** Files the runner reads back after the step: writing them injects env/PATH/outputs. */
export const RUNNER_FILE_VARIABLES = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STEP_SUMMARY',
  'GITHUB_STATE'
] as const

/**
 * Software prefixes a command may read (never write): toolchains live there on the runners
 * (`/usr/local/lib/node_modules/npm`, `/opt/hostedtoolcache/node/...`), and the CLI binds only
 * the PATH directories themselves, which breaks `npm` (a link into ../lib).
 */
const READONLY_PREFIXES = ['/usr/local', '/opt']

/**
 * Caches under HOME the CLI's sandbox binds read-write for the tools it recognizes in the
 * project (measured, CLI 1.0.102: its "dev-tool access"; for a package.json, `.npm`, `.cache/node`
 * with corepack, `.cache/yarn`, `.node-gyp`, `.pnpm-store`, ...): code later steps of the job run
 * outside the sandbox (`npx`, corepack's pnpm and yarn, node-gyp headers, cargo and go sources,
 * gradle and maven artifacts). One that exists stays readable, for builds that need it, but read-only. One that
 * does not is not mounted (about 0.4 ms a mount, for every command): the CLI may make it, and
 * the run removes what it made once the CLI is gone (session/home-caches.ts).
 */
export const HOME_CACHES = [
  // the CLI's read-write grants by tool (strings of its runtime, 1.0.102; the toolchains it binds
  // read-only itself), a more specific one winning over its parent: each is listed
  '.npm',
  '.pnpm-store',
  '.local/share/pnpm/store',
  '.yarn',
  '.yarn/berry',
  '.yarnrc',
  '.bun/install/cache',
  '.cache',
  '.cache/go-build',
  '.cache/node',
  '.cache/node/corepack',
  '.cache/electron',
  '.cache/ms-playwright',
  '.cache/yarn',
  '.cache/deno',
  '.cache/node-gyp',
  '.cache/pip',
  '.cache/pypoetry',
  '.cache/ccache',
  '.cache/sccache',
  '.node-gyp',
  '.electron-gyp',
  '.cargo/registry',
  '.cargo/git',
  '.cargo/.package-cache',
  '.cargo/.global-cache',
  'go/pkg/mod',
  '.local/share/virtualenv',
  '.local/share/pipx',
  '.m2/repository',
  '.gradle/gradle.properties',
  '.gradle/caches',
  '.gradle/wrapper/dists',
  '.nuget/packages',
  '.local/share/NuGet/v3-cache',
  '.gem/ruby',
  '.bundle/cache',
  '.gemrc',
  '.sccache',
  '.conan2/p',
  '.conan2/b',
  '.conan2/settings.yml',
  '.conan2/global.conf'
]

/** HOME's caches (HOME_CACHES) as absolute paths, less any that holds what the sandbox keeps. */
export function homeCaches(
  facts: Pick<SandboxFacts, 'env' | 'workingDirectory' | 'copilotHome' | 'scratchDir'>
): string[] {
  const home = absolute(facts.env.HOME)
  if (home === undefined) return []
  const kept = keptPaths(facts)
  return HOME_CACHES.map((name) => path.join(home, name)).filter(
    (cache) => !kept.some((k) => within(cache, k) || within(k, cache))
  )
}

/**
 * Where the CLI unpacks its runtime under HOME (`~/.cache/copilot/pkg/<platform>/<version>`, its
 * ripgrep included), which its `grep` and `glob` tools run inside the sandbox (measured, CLI
 * 1.0.102: without it they fail with `rg: not found`). Behind the CLI's own wall (wall/) this is
 * in its private HOME.
 */
export function cliRuntime(env: NodeJS.ProcessEnv): string[] {
  const home = absolute(env.HOME)
  return home === undefined ? [] : [path.join(home, '.cache', 'copilot', 'pkg')]
}

/**
 * What the runner's installation keeps that no command may read: its registration and
 * credentials (the private key of a self-hosted runner) and its diagnostic logs.
 */
const RUNNER_SECRETS = [
  '.credentials',
  '.credentials_rsaparams',
  '.runner',
  '.env',
  '.path',
  '_diag'
]

/**
 * `dir`'s entries, and theirs, down to each path of `keep`: everything in `dir` but the way to
 * the paths kept.
 */
function around(
  dir: string,
  keep: readonly string[],
  children: (dir: string) => string[]
): string[] {
  if (keep.includes(dir)) return []
  if (!keep.some((k) => within(dir, k))) return [dir]
  return children(dir).flatMap((name) => around(path.join(dir, name), keep, children))
}

/**
 * What the sandbox must keep reachable inside the directories it denies: the workspace, the
 * CLI's session state (plan.md: the CLI's own file tools obey the denied paths) and the
 * commands' scratch directory.
 */
function keptPaths(
  facts: Pick<SandboxFacts, 'workingDirectory' | 'copilotHome' | 'scratchDir'>
): string[] {
  const copilotHome = absolute(facts.copilotHome)
  const scratch = absolute(facts.scratchDir)
  return [
    path.resolve(facts.workingDirectory),
    ...(copilotHome === undefined ? [] : [path.join(copilotHome, 'session-state')]),
    ...(scratch === undefined ? [] : [scratch])
  ]
}

function unique(paths: Iterable<string>): string[] {
  return [...new Set(paths)]
}

/** An absolute, normalized path from an environment value, or undefined. */
function absolute(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' && path.isAbsolute(value)
    ? path.resolve(value)
    : undefined
}

/**
 * The names the write-deny rules hold literally wherever they stand, lower case: `.github` for
 * the globs `.github/**` and `** /.github/**`, `.npmrc` for `** /.npmrc` (without the spaces).
 * A path holding one of these is a candidate for protection (the rules then decide it); a rule
 * without such a name (`*.lock`) protects nothing the sandbox can bind ahead, and the audit
 * after the session covers it.
 */
export function protectedNames(policy: SandboxPolicy): Set<string> {
  const names = new Set<string>()
  for (const rule of policy.rules) {
    if (rule.matcher !== 'write' || rule.decision !== 'deny') continue
    for (const glob of rule.paths) {
      if (glob.absolute) continue
      let pattern = glob.source.replace(/^\.\//, '')
      while (pattern.startsWith('**/')) pattern = pattern.slice(3)
      const first = pattern.split('/')[0] ?? ''
      if (first !== '' && !/[*?[\]{}!()+@]/.test(first)) names.add(first.toLowerCase())
    }
  }
  // the policy file under each of its names: the engine denies writing it (`policy-file`)
  for (const file of policy.policyFiles ?? []) names.add(path.basename(file).toLowerCase())
  return names
}

/**
 * Hosts the sandboxed commands may reach: exact hosts of the url allow rules (a wildcard host
 * rule such as `*.npmjs.com` is not widened to a host list); any host when an allow rule matches
 * every host (`*`). Exact hosts of url deny rules are blocked. Url ask rules add no host: a
 * person approves one request, not every program's way to that host.
 */
export function sandboxNetwork(policy: SandboxPolicy): SandboxNetwork {
  const allowed: string[] = []
  const blocked: string[] = []
  let anyHost = false
  for (const rule of policy.rules) {
    if (rule.matcher !== 'url' || rule.decision === 'ask') continue
    for (const url of rule.urls) {
      const host = literalOf(url.host)
      if (rule.decision === 'deny') {
        if (host !== undefined && host !== '') blocked.push(host)
      } else if (host !== undefined && host !== '') {
        allowed.push(host)
      } else if (url.host.parts.every((part) => part === '')) {
        anyHost = true
      }
    }
  }
  const blockedHosts = unique(blocked)
  const allowedHosts = anyHost ? [] : unique(allowed).filter((h) => !blockedHosts.includes(h))
  return {
    // an empty allowedHosts list lets every host through, so no host at all means no outbound
    allowOutbound: anyHost || allowedHosts.length > 0,
    allowLocalNetwork: false,
    allowedHosts,
    blockedHosts
  }
}

/**
 * The paths no sandboxed command may see: secrets, the runner's files, the action's own, and
 * the scratch areas that do not hold the workspace (each a private tmpfs inside the sandbox).
 *
 * Never a directory holding the workspace: the CLI's file tools (create, edit) refuse every path
 * below a denied one, readwrite or not (measured, CLI 1.0.102). HOME, which holds the workspace
 * on the runners, is then replaced by its credential files (the CLI mounts nothing else of it:
 * the sandbox's root is its own tmpfs, where a write to HOME or the work root is lost).
 */
export function deniedPaths(facts: SandboxFacts): string[] {
  const { env } = facts
  const workspace = path.resolve(facts.workingDirectory)
  const home = absolute(env.HOME)
  const runnerDir = absolute(facts.runnerDir)
  const candidates: Array<string | undefined> = [
    ...SCRATCH_AREAS,
    absolute(env.RUNNER_TEMP),
    ...RUNNER_FILE_VARIABLES.map((name) => {
      const file = absolute(env[name])
      return file === undefined ? undefined : path.dirname(file)
    }),
    absolute(env.GITHUB_ACTION_PATH) ?? absolute(facts.actionDir),
    absolute(facts.copilotHome),
    ...(runnerDir === undefined ? [] : RUNNER_SECRETS.map((name) => path.join(runnerDir, name))),
    home
  ]
  const kept = keptPaths(facts)
  const denied: string[] = []
  for (const candidate of candidates) {
    if (candidate === undefined) continue
    if (candidate === home && within(home, workspace)) {
      // the CLI mounts nothing of HOME but what it binds: its credentials are what to deny
      denied.push(...HOME_CREDENTIALS.map((name) => path.join(candidate, name)))
    } else if (kept.some((k) => within(candidate, k))) {
      if (facts.children !== undefined) denied.push(...around(candidate, kept, facts.children))
      if (candidate === home) {
        denied.push(...HOME_CREDENTIALS.map((name) => path.join(candidate, name)))
      }
    } else denied.push(candidate)
  }
  return unique(denied).filter((p) => !within(p, workspace))
}

/**
 * The CLI's `sandboxConfig` for a run under `policy`: the workspace and the literal bases of the
 * absolute write-allow globs read-write, and the commands' scratch directory (their TMPDIR);
 * inside the workspace, the paths the write rules protect read-only; toolchains read-only, and
 * a scratch area holding the workspace; secrets, the runner's files and the other scratch areas
 * denied;
 * network as the url rules allow, no loopback or local network, no bypass.
 */
export function sandboxConfigFor(policy: SandboxPolicy, facts: SandboxFacts): SandboxConfig {
  const workspace = path.resolve(facts.workingDirectory)
  const denied = deniedPaths(facts)
  const scratch = absolute(facts.scratchDir)
  const writable = [workspace, ...(scratch === undefined ? [] : [scratch])]
  for (const rule of policy.rules) {
    if (rule.matcher !== 'write' || rule.decision !== 'allow') continue
    for (const glob of rule.paths) {
      if (!glob.absolute || glob.base === '') continue
      const base = path.resolve(glob.base)
      // never the root, and never a directory that holds a denied path: deny wins
      if (base === '/' || denied.some((d) => within(base, d))) continue
      writable.push(base)
    }
  }
  const readwrite = unique(writable).filter((p) => p === workspace || facts.exists(p))
  const toolCache = absolute(facts.env.RUNNER_TOOL_CACHE)
  const kept = keptPaths(facts)
  const outside = unique([
    ...READONLY_PREFIXES,
    ...(toolCache ? [toolCache] : []),
    // the CLI would bind these read-write (a workspace inside one keeps its own binding)
    ...homeCaches(facts).filter((cache) => facts.exists(cache)),
    // the CLI's unpacked runtime: its `grep` and `glob` tools run its ripgrep in the sandbox
    ...cliRuntime(facts.env).filter((dir) => facts.exists(dir)),
    // a scratch area holding what the sandbox keeps reachable: the CLI would bind it read-write
    ...SCRATCH_AREAS.filter((area) => kept.some((k) => within(area, k)))
  ]).filter(
    (p) => facts.exists(p) && (SCRATCH_AREAS.includes(p) || !readwrite.some((w) => within(w, p)))
  )
  const inside = unique((facts.protectedPaths ?? []).map((p) => path.resolve(workspace, p))).filter(
    (p) => p !== workspace && within(workspace, p) && facts.exists(p)
  )
  return {
    enabled: true,
    allowBypass: false,
    addCurrentWorkingDirectory: true,
    userPolicy: {
      network: sandboxNetwork(policy),
      filesystem: {
        readwritePaths: readwrite,
        readonlyPaths: [...outside, ...inside],
        deniedPaths: denied.filter((p) => facts.exists(p))
      }
    }
  }
}
