/**
 * Turns the action's raw inputs into one typed, validated Settings value (like actions/checkout's
 * input-helper). Nothing else reads inputs.
 */
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from './errors.js'
import { runnerSecrets, urlSecrets } from './text/url-credentials.js'
import { isInside, namedInside, readTreeFile, workspaceRoots } from './tree-file.js'
import { parseSafeOutputs, type SafeOutputKind } from './session/safe-output-kinds.js'
import type { Provider } from './cli/session-config.js'
import { invalidPassthrough } from './wall/environment.js'
import { rollupInputs, type RollupSettings } from './rollup-inputs.js'

/** The Copilot CLI version this action is tested against and installs by default. */
export const DEFAULT_CLI_VERSION = '1.0.102'
export const DEFAULT_POLICY_PATH = '.github/copilot-policy.yml'

/** The reasoning efforts the Copilot CLI accepts. */
export const REASONING_EFFORTS = ['low', 'medium', 'high', 'xhigh'] as const
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number]

export interface Settings {
  /**
   * `run` the agent; only `check-policy` (validate, lint and test the policy) for CI; or
   * `publish` the agent job's patch and proposals (no agent; modes/publish.ts); or `rollup` the
   * reports of one task across many repositories into a tracking issue (no agent; modes/rollup.ts).
   */
  mode: 'run' | 'check-policy' | 'publish' | 'rollup'
  prompt: string
  policyPath: string
  model?: string
  /** How hard the model thinks (`session.create {reasoningEffort}`); the CLI's default when unset. */
  reasoningEffort?: ReasoningEffort
  /** max-tokens: input + output tokens over all models, after which the session is stopped. */
  maxTokens?: number
  /** max-ai-credits: the CLI's own session limit (`sessionLimits.maxAiCredits`), GitHub-billed runs. */
  maxAiCredits?: number
  /**
   * resume: continue the session of the last run on this pull request or issue from its
   * checkpoint (`auto`: when one checks out, else fresh; `required`: or fail), or from a file.
   */
  resume: { kind: 'never' | 'auto' | 'required' } | { kind: 'path'; path: string }
  /** Verify-and-repair: how often a failing verify command goes back to the agent to fix. */
  verifyRetries: number
  /**
   * The raw `mcp-servers` and `agent` inputs, and where relative paths start. Reading them needs
   * the JSON and YAML checkers, which the entry chunk does not load: `resolveSessionInputs`
   * (session-inputs.ts) reads them in main.ts, before any CLI is started (the entry does not
   * start one early when they are set).
   */
  raw: { mcpServers: string; agent: string; workspace: string }
  /** mcp-sandbox: run the MCP servers inside the OS sandbox too (default: outside it). */
  mcpSandbox: boolean
  /** Token for the CLI (COPILOT_GITHUB_TOKEN); empty with BYOK. */
  copilotToken?: string
  githubToken?: string
  provider?: Provider
  cliVersion: string
  cliPath?: string
  workingDirectory: string
  timeoutMs: number
  maxAutopilotContinues: number
  planFirst: boolean
  /**
   * fleet: send the prompt in the CLI's fleet mode (`session.fleet.start`): the agent splits the
   * work across parallel subagents (`task` calls). Not with plan-first.
   */
  fleet: boolean
  /**
   * The checked-out tree is trusted: the CLI may load its hooks, MCP servers, skills, agents and
   * language servers (see session/repository-config.ts). Off by default: on a pull request the
   * tree is the PR author's.
   */
  trustedConfig: boolean
  setupCommands: string[]
  /**
   * env-passthrough: the job's variables (names or simple globs) the CLI and the agent's commands
   * get besides the fixed allowlist (wall/environment.ts); a value carrying a secret never passes.
   */
  envPassthrough: string[]
  verifyCommands: string[]
  /**
   * Setup and verify commands (as written there) that run without the OS sandbox's wall, as the
   * workflow's own processes: the input `unconfined-commands`. Never the default.
   */
  unconfinedCommands: string[]
  commandTimeoutMs: number
  /** No event for this long while the agent is busy counts as a hang. */
  idleTimeoutMs: number
  comment: 'update' | 'new' | 'off'
  commentKey: string
  issueNumber?: number
  reportPath: string
  /** Private scratch directory for this run (COPILOT_HOME, logs). */
  tempDir: string
  /** How long an ask waits for a person's answer (ms), and how often it looks. */
  approvalTimeoutMs: number
  approvalPollMs: number
  /** Logins that may trigger the agent without write access (compared case-insensitively). */
  allowedActors: string[]
  /** The trusted-actor gate is off (dangerous). */
  allowAnyActor: boolean
  /**
   * Every secret value the action knows, to redact from logs, comments and outputs: the tokens,
   * the provider key, the credentials in provider-base-url and in MCP server URLs, the `env` and
   * `headers` values of MCP servers, the runner's ACTIONS_* tokens.
   */
  secrets: string[]
  // --- safe outputs (issue 23) ---
  /** safe-outputs: the proposal tools offered to the agent (none by default). */
  safeOutputs: SafeOutputKind[]
  /** patch-path: the agent job's patch (`mode: publish`). */
  patchPath?: string
  /** safe-outputs-path: the agent job's proposals file (`mode: publish`). */
  safeOutputsPath?: string
  /** push-to: a new `copilot/<run id>` branch, or the triggering pull request's head branch. */
  pushTo: 'new-branch' | 'pr-branch'
  // --- publish trusts nothing it did not check (issue 29) ---
  /** patch-sha256: the agent step's digest of the patch (lowercase hex); required with patchPath. */
  patchSha256?: string
  /** safe-outputs-sha256: the agent step's digest of the proposals file; required with safeOutputsPath. */
  safeOutputsSha256?: string
  /** allowed-labels: label names or globs (`*`) publish may add; none by default. */
  allowedLabels: string[]
  /** protected-branches: more long-lived branch names or globs push-to: pr-branch never pushes to. */
  protectedBranches: string[]
  /** `mode: rollup` (issue 32): its inputs; set only in that mode. */
  rollup?: RollupSettings
}

/** Whether the CLI has a credential: a BYOK provider, or a token for Copilot. */
export function hasCredential(settings: Settings): boolean {
  return settings.provider !== undefined || !!settings.copilotToken
}

/** Reads one input the way @actions/core does: INPUT_<NAME> with spaces as underscores. */
export type InputReader = (name: string) => string

export function envInputReader(env: NodeJS.ProcessEnv = process.env): InputReader {
  return (name) => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim()
}

function positiveNumber(name: string, raw: string, fallback: number, integer = false): number {
  if (raw === '') return fallback
  // Plain decimal notation only: Number() alone would also take '0x10', '1e3' or ' '.
  const value = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN
  const ok = integer ? Number.isSafeInteger(value) : Number.isFinite(value) && value > 0
  if (!ok) {
    throw new UserError(
      `Input '${name}' must be a ${integer ? 'whole number ≥ 0' : 'positive number'}, got '${raw}'. Fix the 'with:' block of the step.`
    )
  }
  return value
}

/** verify-retries: a whole number up to MAX_VERIFY_RETRIES. */
export const MAX_VERIFY_RETRIES = 10
function verifyRetries(raw: string): number {
  const retries = positiveNumber('verify-retries', raw, 0, true)
  if (retries > MAX_VERIFY_RETRIES) {
    throw new UserError(
      `Input 'verify-retries' must be at most ${MAX_VERIFY_RETRIES}, got '${raw}'. Fix the 'with:' block of the step.`
    )
  }
  return retries
}

/** The smallest session limit the Copilot CLI accepts (measured on 1.0.102). */
export const MIN_AI_CREDITS = 30

/** `resume`: never (default), auto, required, or the path of a checkpoint file. */
function resumeMode(raw: string): Settings['resume'] {
  if (raw === '' || raw === 'never') return { kind: 'never' }
  if (raw === 'auto' || raw === 'required') return { kind: raw }
  if (/^[a-z]+$/.test(raw)) {
    throw new UserError(
      `Input 'resume' must be never, auto, required or the path of a checkpoint file, got '${raw}'. Fix the 'with:' block of the step.`
    )
  }
  return { kind: 'path', path: raw }
}

/** `max-ai-credits`: a number of AI credits, at least what the CLI accepts. */
function aiCredits(raw: string): number {
  const credits = positiveNumber('max-ai-credits', raw, MIN_AI_CREDITS)
  if (credits < MIN_AI_CREDITS) {
    throw new UserError(
      `Input 'max-ai-credits' must be at least ${MIN_AI_CREDITS} (the smallest session limit the Copilot CLI accepts), got '${raw}'. Fix the 'with:' block of the step.`
    )
  }
  return credits
}

/** `approval-poll-seconds`: a positive number of seconds, at least 1. */
function approvalPollSeconds(raw: string): number {
  const seconds = positiveNumber('approval-poll-seconds', raw, 10)
  if (seconds < 1) {
    throw new UserError(
      `Input 'approval-poll-seconds' must be a positive number of at least 1, got '${raw}'. Fix the 'with:' block of the step.`
    )
  }
  return seconds
}

/** The `issue-number` input: a positive whole number, `#` allowed (`#42`); undefined when empty. */
function parseIssueNumber(raw: string): number | undefined {
  if (raw === '') return undefined
  const text = raw.replace(/^#/, '')
  const value = /^\d+$/.test(text) ? Number(text) : NaN
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new UserError(
      `Input 'issue-number' must be a pull request or issue number such as 42, got '${raw}'. Fix the 'with:' block of the step.`
    )
  }
  return value
}

/** An http(s) URL (the model endpoint of a BYOK provider). */
function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

function lines(raw: string): string[] {
  return raw
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

/** env-passthrough: one variable name or glob (`*`, `?`) a line; `#` starts a comment line. */
function envPassthrough(raw: string): string[] {
  const out: string[] = []
  raw.split(/\r?\n/).forEach((text, index) => {
    const line = text.trim()
    if (line === '' || line.startsWith('#')) return
    if (invalidPassthrough(line)) {
      throw new UserError(
        `Input 'env-passthrough', line ${index + 1}: '${line.slice(0, 60)}' is not a variable name or a glob of * and ?. Write one name a line (MY_SETTING, or MY_APP_* for all that start so).`
      )
    }
    out.push(line)
  })
  return out
}

/**
 * The input `unconfined-commands`: each line one of the setup or verify commands, exactly as
 * written there (a command it names runs without the OS sandbox's wall).
 */
export function unconfinedCommands(
  raw: string,
  setup: readonly string[],
  verify: readonly string[]
): string[] {
  const named: string[] = []
  for (const [index, text] of raw.split(/\r?\n/).entries()) {
    const line = text.trim()
    if (line === '' || line.startsWith('#')) continue
    if (!setup.includes(line) && !verify.includes(line)) {
      throw new UserError(
        `Input 'unconfined-commands', line ${index + 1}: '${line}' is not one of the setup-commands or verify-commands. Write the command exactly as it stands there (one per line), or remove the line.`
      )
    }
    named.push(line)
  }
  return named
}

function oneOf<T extends string>(name: string, raw: string, allowed: readonly T[], fallback: T): T {
  if (raw === '') return fallback
  if ((allowed as readonly string[]).includes(raw)) return raw as T
  throw new UserError(`Input '${name}' must be one of ${allowed.join(', ')}; got '${raw}'.`)
}

/**
 * The `fleet` input: true or false. Fleet mode starts the work at once in parallel subagents,
 * so it does not combine with plan-first, which holds the work until the plan is written: the
 * user picks one.
 */
function fleetInput(raw: string, planFirst: boolean): boolean {
  if (raw !== '' && raw !== 'true' && raw !== 'false') {
    throw new UserError(
      `Input 'fleet' must be true or false, got '${raw}'. Fix the 'with:' block of the step.`
    )
  }
  const fleet = raw === 'true'
  if (fleet && planFirst) {
    throw new UserError(
      "Inputs 'fleet' and 'plan-first' are both true, but fleet mode starts the work at once in parallel subagents while plan-first holds it until a plan is written. Set one of them to false in the 'with:' block of the step."
    )
  }
  return fleet
}

export function readSettings(input: InputReader, env: NodeJS.ProcessEnv = process.env): Settings {
  const workspace = env.GITHUB_WORKSPACE || process.cwd()
  const workingDirectory = path.resolve(workspace, input('working-directory') || '.')
  if (!fs.existsSync(workingDirectory) || !fs.statSync(workingDirectory).isDirectory()) {
    throw new UserError(
      `Input 'working-directory' is '${workingDirectory}', which is not a directory. Check out the repository first (actions/checkout) or fix the path.`
    )
  }
  // A directory of the tree that is a symlink out of it would make the agent work elsewhere.
  const roots = workspaceRoots(workspace)
  const realWorkingDirectory = fs.realpathSync(workingDirectory)
  if (namedInside(roots, workingDirectory) && !isInside(roots.physical, realWorkingDirectory)) {
    throw new UserError(
      `Input 'working-directory' is '${workingDirectory}', which leads to '${realWorkingDirectory}', outside the workspace '${roots.physical}' (a symlink). The agent works only inside the checked-out tree: name a directory of it.`
    )
  }

  const mode = oneOf('mode', input('mode'), ['run', 'check-policy', 'publish', 'rollup'], 'run')
  const promptInput = input('prompt')
  const promptFile = input('prompt-file')
  if (mode === 'run' && (promptInput === '') === (promptFile === '')) {
    throw new UserError(
      "Give exactly one of the inputs 'prompt' or 'prompt-file' (the task for the agent)."
    )
  }
  let prompt = promptInput
  if (promptFile !== '') {
    const { file, text } = readTreeFile({
      what: "input 'prompt-file'",
      name: promptFile,
      base: workspace,
      workspace
    })
    prompt = text.trim()
    if (prompt === '') throw new UserError(`The prompt file '${file}' is empty.`)
  }

  const providerType = input('provider-type')
  const providerBaseUrl = input('provider-base-url')
  const providerApiKey = input('provider-api-key')
  let provider: Provider | undefined
  if (providerType !== '' || providerBaseUrl !== '') {
    const type = oneOf('provider-type', providerType, ['openai', 'azure', 'anthropic'], 'openai')
    if (!isHttpUrl(providerBaseUrl)) {
      throw new UserError(
        // not quoted: a URL that does not parse may still hold a key
        `Input 'provider-base-url' must be the http(s) URL of your model endpoint (BYOK), such as https://api.openai.com/v1; the value given is not one.`
      )
    }
    provider = {
      type,
      baseUrl: providerBaseUrl,
      ...(providerApiKey ? { apiKey: providerApiKey } : {})
    }
  }

  const model = input('model') || undefined
  if (provider && !model) {
    throw new UserError(
      "With a BYOK provider, set the input 'model' to the model's name at that provider."
    )
  }

  const githubToken = input('github-token') || undefined
  const copilotToken = input('copilot-token') || githubToken
  const cliPath = input('cli-path') || undefined
  if (cliPath && !fs.existsSync(cliPath)) {
    throw new UserError(`Input 'cli-path' names '${cliPath}', which does not exist.`)
  }
  const cliVersion = input('cli-version') || DEFAULT_CLI_VERSION
  if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(cliVersion)) {
    throw new UserError(
      `Input 'cli-version' must be an exact version such as ${DEFAULT_CLI_VERSION}, got '${cliVersion}'.`
    )
  }

  const runnerTemp = env.RUNNER_TEMP || path.join(workspace, '..', '.runner-temp')
  const tempDir = path.join(
    runnerTemp,
    `copilot-autopilot-${env.GITHUB_RUN_ID ?? 'local'}-${process.pid}`
  )
  const issueNumber = parseIssueNumber(input('issue-number'))
  const trustedConfig =
    oneOf('trusted-config', input('trusted-config'), ['true', 'false'], 'false') === 'true'
  const planFirst = oneOf('plan-first', input('plan-first'), ['true', 'false'], 'false') === 'true'
  const fleet = fleetInput(input('fleet'), planFirst)

  return {
    mode,
    prompt,
    ...(input('reasoning-effort') === ''
      ? {}
      : {
          reasoningEffort: oneOf(
            'reasoning-effort',
            input('reasoning-effort'),
            REASONING_EFFORTS,
            'medium'
          )
        }),
    verifyRetries: verifyRetries(input('verify-retries')),
    ...(input('max-tokens') === ''
      ? {}
      : { maxTokens: positiveNumber('max-tokens', input('max-tokens'), 0, true) }),
    ...(input('max-ai-credits') === '' ? {} : { maxAiCredits: aiCredits(input('max-ai-credits')) }),
    resume: resumeMode(input('resume')),
    policyPath: path.resolve(workspace, input('policy') || DEFAULT_POLICY_PATH),
    model,
    copilotToken: provider ? undefined : copilotToken,
    githubToken,
    provider,
    cliVersion,
    cliPath: cliPath ? path.resolve(cliPath) : undefined,
    workingDirectory,
    timeoutMs: positiveNumber('timeout-minutes', input('timeout-minutes'), 30) * 60_000,
    maxAutopilotContinues: positiveNumber(
      'max-autopilot-continues',
      input('max-autopilot-continues'),
      10,
      true
    ),
    planFirst,
    fleet,
    trustedConfig,
    raw: { mcpServers: input('mcp-servers'), agent: input('agent'), workspace },
    mcpSandbox: oneOf('mcp-sandbox', input('mcp-sandbox'), ['true', 'false'], 'false') === 'true',
    setupCommands: lines(input('setup-commands')),
    envPassthrough: envPassthrough(input('env-passthrough')),
    verifyCommands: lines(input('verify-commands')),
    unconfinedCommands: unconfinedCommands(
      input('unconfined-commands'),
      lines(input('setup-commands')),
      lines(input('verify-commands'))
    ),
    commandTimeoutMs:
      positiveNumber('command-timeout-seconds', input('command-timeout-seconds'), 600) * 1000,
    idleTimeoutMs:
      positiveNumber('idle-timeout-minutes', input('idle-timeout-minutes'), 10) * 60_000,
    comment: oneOf('comment', input('comment'), ['update', 'new', 'off'], 'update'),
    commentKey: input('comment-key') || 'default',
    issueNumber,
    reportPath: path.resolve(workspace, input('report-path') || path.join(tempDir, 'report.json')),
    tempDir,
    approvalTimeoutMs:
      positiveNumber('approval-timeout-minutes', input('approval-timeout-minutes'), 10) * 60_000,
    approvalPollMs: approvalPollSeconds(input('approval-poll-seconds')) * 1000,
    // logins, comma or newline separated; a leading @ is dropped
    allowedActors: input('allowed-actors')
      .split(/[,\r\n]+/)
      .map((login) => login.trim().replace(/^@/, '').trim())
      .filter((login) => login !== ''),
    allowAnyActor:
      oneOf('allow-any-actor', input('allow-any-actor'), ['true', 'false'], 'false') === 'true',
    // The credentials in provider-base-url (a gateway's key in its path or query) and the
    // runner's own tokens too: the CLI's errors quote the URL, and a file can hold a token.
    secrets: [
      copilotToken,
      githubToken,
      providerApiKey,
      ...(provider ? urlSecrets(provider.baseUrl) : []),
      ...runnerSecrets(env)
    ].filter((s): s is string => !!s && s.length >= 4),
    ...publishInputs(input, workspace, mode),
    ...rollupInputs(input, workspace, mode)
  }
}

/** The safe-output and publish inputs (issue 23). */
function publishInputs(
  input: InputReader,
  workspace: string,
  mode: Settings['mode']
): Pick<
  Settings,
  | 'safeOutputs'
  | 'patchPath'
  | 'safeOutputsPath'
  | 'pushTo'
  | 'patchSha256'
  | 'safeOutputsSha256'
  | 'allowedLabels'
  | 'protectedBranches'
> {
  const patchPath = input('patch-path')
  const safeOutputsPath = input('safe-outputs-path')
  if (mode === 'publish' && patchPath === '' && safeOutputsPath === '') {
    throw new UserError(
      "With 'mode: publish', set the input 'patch-path' (the agent job's output 'patch-path') and/or 'safe-outputs-path' (its output 'safe-outputs-path'), as downloaded from the agent job's artifact."
    )
  }
  return {
    safeOutputs: parseSafeOutputs(input('safe-outputs')),
    ...(patchPath === '' ? {} : { patchPath: path.resolve(workspace, patchPath) }),
    ...(safeOutputsPath === ''
      ? {}
      : { safeOutputsPath: path.resolve(workspace, safeOutputsPath) }),
    pushTo: oneOf('push-to', input('push-to'), ['new-branch', 'pr-branch'], 'new-branch'),
    ...digestInput('patch-sha256', input('patch-sha256'), 'patchSha256'),
    ...digestInput('safe-outputs-sha256', input('safe-outputs-sha256'), 'safeOutputsSha256'),
    allowedLabels: list(input('allowed-labels')),
    protectedBranches: list(input('protected-branches'))
  }
}

/** A comma or newline list, each item trimmed, empty ones dropped. */
function list(raw: string): string[] {
  return raw
    .split(/[,\r\n]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '')
}

/** A SHA-256 input (64 hex digits, any case, an optional `sha256:` in front); absent when empty. */
function digestInput<K extends 'patchSha256' | 'safeOutputsSha256'>(
  name: string,
  raw: string,
  key: K
): Partial<Record<K, string>> {
  if (raw === '') return {}
  const hex = raw.replace(/^sha256:/i, '')
  if (!/^[0-9a-f]{64}$/i.test(hex)) {
    throw new UserError(
      `Input '${name}' must be a SHA-256 digest (64 hex digits), got '${raw.slice(0, 80)}'. Pass the agent step's output '${name}' through the agent job's outputs.`
    )
  }
  return { [key]: hex.toLowerCase() } as Partial<Record<K, string>>
}
