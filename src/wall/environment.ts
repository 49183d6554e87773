/**
 * The environment the Copilot CLI gets, which is every command the agent runs too (the OS sandbox
 * starts each command with `--clearenv`, then sets the CLI's environment again), setup and verify
 * commands included. It is an allowlist, not "the job's minus what we recognise": a credential can
 * hide in any variable, in any encoding (`GIT_CONFIG_VALUE_0=AUTHORIZATION: basic <base64>`, the
 * checkout's extraheader through git's environment config; `NPM_CONFIG__AUTH=<base64>`).
 *
 * What passes:
 * - a fixed set (FIXED_VARIABLES): PATH, HOME, the locale, CI, the GitHub and runner variables
 *   that are neither credentials nor paths to the runner's own files, and the toolchain variables
 *   the setup-* actions and the runner images set (read-only directories in the sandbox);
 * - the variables the workflow names in `env-passthrough` (names or simple globs, one a line);
 * - the variables the action itself adds (`actionVariables`): git's housekeeping off, the
 *   commands' TMPDIR, COPILOT_HOME and whatever a later part of the action adds there.
 *
 * Whatever its name, a variable is dropped when its value carries one of the run's secrets in any
 * form the redactor knows (as is, base64 at any offset, URL-encoded: src/text/safe-text.ts) or
 * looks like a credential by its format (a GitHub token, an `Authorization:` header, a JWT, a
 * private key, a URL with a password, and base64 that decodes to one of those). Never passed
 * either: the job's TMPDIR and the variables the CLI turns into a writable root of its sandbox
 * (WRITABLE_ROOTS, measured with CLI 1.0.102), the runner's file commands and tokens, the inputs.
 *
 * What was dropped is reported by name only, never by value. Pure; imports only the redactor
 * (the bundle's entry chunk loads this before the CLI starts).
 */
import path from 'node:path'
import { normalizeSecrets } from '../text/safe-text.js'

/** Exact names always passed (when the job has them). */
const FIXED_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'CI',
  // GitHub's default variables that name the run, not a credential or a runner file
  'GITHUB_ACTIONS',
  'GITHUB_ACTION',
  'GITHUB_ACTION_REPOSITORY',
  'GITHUB_ACTOR',
  'GITHUB_ACTOR_ID',
  'GITHUB_API_URL',
  'GITHUB_BASE_REF',
  'GITHUB_EVENT_NAME',
  'GITHUB_GRAPHQL_URL',
  'GITHUB_HEAD_REF',
  'GITHUB_JOB',
  'GITHUB_REF',
  'GITHUB_REF_NAME',
  'GITHUB_REF_PROTECTED',
  'GITHUB_REF_TYPE',
  'GITHUB_REPOSITORY',
  'GITHUB_REPOSITORY_ID',
  'GITHUB_REPOSITORY_OWNER',
  'GITHUB_REPOSITORY_OWNER_ID',
  'GITHUB_RETENTION_DAYS',
  'GITHUB_RUN_ATTEMPT',
  'GITHUB_RUN_ID',
  'GITHUB_RUN_NUMBER',
  'GITHUB_SERVER_URL',
  'GITHUB_SHA',
  'GITHUB_TRIGGERING_ACTOR',
  'GITHUB_WORKFLOW',
  'GITHUB_WORKFLOW_REF',
  'GITHUB_WORKFLOW_SHA',
  'GITHUB_WORKSPACE',
  'RUNNER_ARCH',
  'RUNNER_OS',
  'RUNNER_NAME',
  'RUNNER_ENVIRONMENT',
  'RUNNER_DEBUG',
  'RUNNER_TOOL_CACHE',
  'RUNNER_WORKSPACE',
  'ImageOS',
  'ImageVersion',
  // toolchains, as setup-java, setup-go, setup-python, setup-dotnet and the runner images set
  // them: directories the sandbox shows read-only (measured: JAVA_HOME, RUSTUP_HOME), and
  // switches. Not GOPATH, CARGO_HOME, GRADLE_USER_HOME: see WRITABLE_ROOTS and the docs.
  'JAVA_HOME',
  'GOROOT',
  'GOTOOLCHAIN',
  'pythonLocation',
  'Python_ROOT_DIR',
  'Python2_ROOT_DIR',
  'Python3_ROOT_DIR',
  'PKG_CONFIG_PATH',
  'LD_LIBRARY_PATH',
  'DOTNET_ROOT',
  'DOTNET_NOLOGO',
  'DOTNET_CLI_TELEMETRY_OPTOUT',
  'DOTNET_SKIP_FIRST_TIME_EXPERIENCE',
  'ANDROID_HOME',
  'ANDROID_SDK_ROOT',
  'ANDROID_NDK',
  'ANDROID_NDK_HOME',
  'ANDROID_NDK_ROOT',
  'ANDROID_NDK_LATEST_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'CONDA'
])

/** Name patterns always passed: the locale's categories, the runner images' toolchain homes. */
const FIXED_PATTERNS = [
  /^LC_[A-Z]+$/,
  /^JAVA_HOME_\d+_(?:X64|ARM64)$/,
  /^GOROOT_\d+_\d+_(?:X64|ARM64)$/
]

/** Whether the fixed set holds `name`. */
export function isFixedVariable(name: string): boolean {
  return FIXED_NAMES.has(name) || FIXED_PATTERNS.some((pattern) => pattern.test(name))
}

/**
 * Variables the Copilot CLI (1.0.102) turns into a read-write root of its sandbox when they name
 * a directory: a command could write there on the host, past the denied paths (`TMPDIR:
 * ${{ runner.temp }}` opened RUNNER_TEMP, the action's private stores and the runner's file
 * commands). Measured by pointing each at its own directory and writing from a sandboxed
 * command (`scripts/measure-writable-roots.ts --raw`): the file landed on the host for these; CARGO_HOME's `registry` and `git`,
 * GRADLE_USER_HOME's `caches` and BUN_INSTALL's `install` below them. The job's values never
 * reach the CLI, env-passthrough or not: the commands' temporary files go to the sandbox's own
 * scratch (TEMP_VARIABLES), the tools use their default caches under HOME, read-only.
 */
export const WRITABLE_ROOTS = [
  'TMPDIR',
  'GOCACHE',
  'GOMODCACHE',
  'GOTMPDIR',
  'NPM_CONFIG_CACHE',
  'YARN_CACHE_FOLDER',
  'PIP_CACHE_DIR',
  'DENO_DIR',
  'COREPACK_HOME',
  'PLAYWRIGHT_BROWSERS_PATH',
  'POETRY_CACHE_DIR',
  'UV_CACHE_DIR',
  'CARGO_HOME',
  'GRADLE_USER_HOME',
  'BUN_INSTALL'
] as const

/** Where programs keep temporary files: the job's values are replaced (`actionVariables`). */
export const TEMP_VARIABLES = ['TMPDIR', 'TMP', 'TEMP'] as const

/** Why a variable of the job was not passed. */
export type DropReason = 'secret' | 'credential' | 'writable-root' | 'reserved'

export interface DroppedVariable {
  name: string
  reason: DropReason
}

/** What each reason means, for the log and the report. */
export const DROP_REASONS: Record<DropReason, string> = {
  secret: "its value carries one of the run's secrets",
  credential: 'its value looks like a credential',
  'writable-root': 'the Copilot CLI would make it a writable directory of its sandbox',
  reserved: 'the action never passes it (its inputs, tokens, runner files or its own settings)'
}

/**
 * Never passed, env-passthrough or not: the CLI's own settings (COPILOT_*), the tokens it or `gh`
 * would use, the step's inputs, the runner's internals (ACTIONS_*: runtime, cache and OIDC
 * tokens), the files the runner reads back after the step (GITHUB_ENV, ...), the action's own
 * files, the event payload's path, and git's environment config (the action sets its own).
 */
const RESERVED =
  /^(?:COPILOT_|GITHUB_COPILOT_|INPUT_|ACTIONS_|GH_TOKEN$|GITHUB_TOKEN$|GH_ENTERPRISE_TOKEN$|GITHUB_ENTERPRISE_TOKEN$|GITHUB_(?:ENV|OUTPUT|PATH|STATE|STEP_SUMMARY|EVENT_PATH|ACTION_PATH)$|RUNNER_TEMP$|GIT_CONFIG_(?:COUNT|KEY_\d+|VALUE_\d+)$)/i

/** Whether the action never passes `name` (RESERVED). */
export function isReserved(name: string): boolean {
  return RESERVED.test(name)
}

/** A name that reads as a credential's: a glob in env-passthrough does not pass it (name it). */
const CREDENTIAL_NAME = /TOKEN|SECRET|PASSW|_AUTH|AUTH_|API_?KEY|PRIVATE|CREDENTIAL/i

/**
 * Git's housekeeping off for the session, through git's environment config: an agent's
 * `git status` in a checkout with many loose objects would otherwise start `gc --auto`, which
 * writes `.git/info/refs` and the packs (a false policy violation) and may outlive the command.
 * The CLI appends its own entries after these (measured, 1.0.102: GIT_CONFIG_COUNT 2 → 5).
 */
export const GIT_HOUSEKEEPING_OFF: Readonly<Record<string, string>> = {
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'gc.auto',
  GIT_CONFIG_VALUE_0: '0',
  GIT_CONFIG_KEY_1: 'maintenance.auto',
  GIT_CONFIG_VALUE_1: 'false'
}

const GITHUB_TOKEN_FORMAT = /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/
const CREDENTIAL_FORMATS: readonly RegExp[] = [
  GITHUB_TOKEN_FORMAT,
  /\bauthorization\s*:/i,
  /\b(?:basic|bearer)\s+[A-Za-z0-9+/=._~-]{12,}/i,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\./, // a JWT
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/, // an AWS access key id
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/, // Slack
  /\bnpm_[A-Za-z0-9]{36}\b/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\bsk-(?:ant-)?[A-Za-z0-9_-]{20,}/, // OpenAI, Anthropic
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google
  /\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i // a URL with a password
]

/** A value that is base64 alone (a `_auth`, a docker `auth`): long enough to hold a credential. */
const BASE64_VALUE = /^[A-Za-z0-9+/_-]{16,}={0,2}$/

/** Whether `value` looks like a credential by its format, as is or base64-decoded once. */
export function looksLikeCredential(value: string): boolean {
  if (CREDENTIAL_FORMATS.some((format) => format.test(value))) return true
  const trimmed = value.trim()
  if (!BASE64_VALUE.test(trimmed)) return false
  const decoded = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString(
    'latin1'
  )
  // text that decodes to `user:password` or to a token is a credential; binary noise is not
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000E-\u001F\u007F-\u00FF]/.test(decoded)) return false
  return (
    CREDENTIAL_FORMATS.some((format) => format.test(decoded)) ||
    /^[^\s:]{1,64}:\S{6,}$/.test(decoded)
  )
}

/** An `env-passthrough` line: a name, or a glob of `*` and `?`. */
function passthroughMatcher(lines: readonly string[]): (name: string) => 'exact' | 'glob' | null {
  const exact = new Set<string>()
  const globs: RegExp[] = []
  for (const line of lines) {
    if (!/[*?]/.test(line)) {
      exact.add(line)
      continue
    }
    const source = line
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')
    globs.push(new RegExp(`^${source}$`))
  }
  return (name) => (exact.has(name) ? 'exact' : globs.some((g) => g.test(name)) ? 'glob' : null)
}

/** A line of `env-passthrough` that is not a name or a simple glob. */
export function invalidPassthrough(line: string): boolean {
  return !/^[A-Za-z_*?][A-Za-z0-9_*?]*$/.test(line)
}

export interface AgentEnvironmentOptions {
  /** The job's environment, as the action got it. */
  env: Readonly<Record<string, string | undefined>>
  /** The run's secret values (Settings.secrets), as they are: their encoded forms are added here. */
  secrets: readonly string[]
  /** env-passthrough: names or simple globs (`*`, `?`) of the job's variables to pass as well. */
  passthrough?: readonly string[]
  /** What the action itself adds (`actionVariables`): set last, never judged by the allowlist. */
  action?: ActionVariablesOptions
}

export interface AgentEnvironment {
  env: Record<string, string>
  /** The job's variables named by the allowlist or env-passthrough that were not passed, and why. */
  dropped: DroppedVariable[]
  /** How many of the job's variables neither the fixed set nor env-passthrough names. */
  notListed: number
}

/**
 * The CLI's (and so every agent command's) environment: the fixed set and the variables
 * env-passthrough names, less those dropped (a secret of the run in any known form, a credential
 * by format, a writable root of the CLI's sandbox, a reserved name), plus the action's own
 * variables (`actionVariables`). The one function the CLI's process code calls.
 */
export function agentEnvironment(options: AgentEnvironmentOptions): AgentEnvironment {
  const secrets = normalizeSecrets(options.secrets)
  const listed = passthroughMatcher(options.passthrough ?? [])
  const writableRoots = new Set<string>(WRITABLE_ROOTS)
  const temp = new Set<string>(TEMP_VARIABLES)
  const env: Record<string, string> = {}
  const dropped: DroppedVariable[] = []
  let notListed = 0
  for (const [name, value] of Object.entries(options.env)) {
    if (value === undefined) continue
    const fixed = isFixedVariable(name)
    const named = fixed ? 'exact' : listed(name)
    if (named === null) {
      notListed++
      continue
    }
    const drop = (reason: DropReason): void => {
      dropped.push({ name, reason })
    }
    if (isReserved(name)) {
      // a glob's match of a reserved name is no request for it; a name written out is
      if (named === 'exact') drop('reserved')
      continue
    }
    if (writableRoots.has(name.toUpperCase()) || temp.has(name.toUpperCase())) {
      if (!temp.has(name.toUpperCase())) drop('writable-root')
      continue
    }
    if (named === 'glob' && CREDENTIAL_NAME.test(name)) {
      notListed++
      continue
    }
    if (secrets.some((secret) => value.includes(secret))) {
      drop('secret')
      continue
    }
    if (looksLikeCredential(value)) {
      drop('credential')
      continue
    }
    env[name] = value
  }
  // A variable the allowlist leaves out still says something when its value is a secret: the
  // workflow learns that its encoded token was there, and was kept from the agent.
  for (const [name, value] of Object.entries(options.env)) {
    // (the step's inputs and the runner's own tokens are in every run: no news)
    if (value === undefined || name in env || /^(?:INPUT_|ACTIONS_)/i.test(name)) continue
    if (dropped.some((d) => d.name === name)) continue
    if (secrets.some((secret) => value.includes(secret))) dropped.push({ name, reason: 'secret' })
    else if (looksLikeCredential(value)) dropped.push({ name, reason: 'credential' })
  }
  if (options.action !== undefined) Object.assign(env, actionVariables(options.action))
  dropped.sort((a, b) => a.name.localeCompare(b.name))
  return { env, dropped, notListed }
}

export interface ActionVariablesOptions {
  /** The CLI's private home (COPILOT_HOME). */
  copilotHome: string
  /**
   * The commands' own scratch directory, where the OS sandbox cannot give them a private /tmp
   * (the workspace or the run's files under /tmp): TMPDIR, TMP and TEMP point into it. Without
   * one they are unset, and programs use /tmp, a private tmpfs inside the sandbox (the CLI's own
   * temporary files stay in the host's /tmp, where its compile cache is warm: a fresh TMPDIR
   * costs it ~0.24 s at startup).
   */
  scratch?: string
}

/**
 * The variables the action itself adds to the CLI's environment, set after the allowlist and
 * never judged by it. Add new ones here (a run marker for the process sweep, a HOME of the
 * sandbox's): one place that says what the action puts in every agent command's environment.
 */
export function actionVariables(options: ActionVariablesOptions): Record<string, string> {
  const vars: Record<string, string> = { ...GIT_HOUSEKEEPING_OFF }
  if (options.scratch !== undefined) {
    const tmp = commandTempDir(options.scratch)
    for (const name of TEMP_VARIABLES) vars[name] = tmp
  }
  vars.COPILOT_HOME = options.copilotHome
  return vars
}

/** The commands' temporary directory inside their scratch directory. */
export function commandTempDir(scratch: string): string {
  return path.join(scratch, 'tmp')
}

/** The log's line about the agent's environment: names and reasons only, never a value. */
export function describeEnvironment(environment: {
  dropped: readonly DroppedVariable[]
  notListed: number
}): string {
  const byReason = new Map<DropReason, string[]>()
  for (const d of environment.dropped) {
    byReason.set(d.reason, [...(byReason.get(d.reason) ?? []), d.name])
  }
  const parts = [...byReason].map(
    ([reason, names]) => `${names.join(', ')} (${DROP_REASONS[reason]})`
  )
  const others = `${environment.notListed} other variable${environment.notListed === 1 ? '' : 's'} of the job not listed (env-passthrough names more)`
  return parts.length === 0
    ? `The agent's environment: the fixed set and env-passthrough; ${others}`
    : `The agent's environment: the fixed set and env-passthrough; not passed: ${parts.join('; ')}; ${others}`
}
