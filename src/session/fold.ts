/**
 * The one reading of a run. Everything that happens — CLI events, the policy's decisions, the
 * commands the action ran, what it read back from the session, how waiting ended — is a
 * `RunInput`, and `fold(state, input)` is the only code that interprets it. The driver asks the
 * state whether the session is done (`stopReason`), the final status is settled from it
 * (`settle`), and the report is rendered from it (`toReport` in reporting/report.ts).
 *
 * `fold` does no I/O and reads no clock (receive times come in with the input), so the same
 * inputs always give the same state. It updates the state it is given and returns it: a run has
 * one state and millions of events, so copying it per event would cost more than the run. State
 * stays flat in memory: events are never stored, only aggregates and bounded lists. Every
 * string stored is redacted of the run's secrets.
 */
import {
  UsageMetrics,
  dataOf,
  type PermissionRequest,
  type SessionEvent,
  type Todo
} from '../cli/protocol.js'
import type { Decision } from '../policy/index.js'
import {
  clip,
  formatMinutes,
  normalizeSecrets,
  redactDeepNormalized,
  redactNormalized,
  truncate
} from '../text/safe-text.js'
import type {
  ApprovalRecord,
  AuditRecord,
  CommandRecord,
  AgentRecord,
  CompletionRecord,
  CredentialsRecord,
  InstructionFilesRecord,
  McpServerRecord,
  ModelUsage,
  PermissionRecord,
  PolicyIssueRecord,
  RunStatus,
  SandboxRecord,
  SubagentRecord,
  TodoRecord,
  ToolCallRecord,
  ToolStats
} from '../reporting/types.js'
import { sandboxEvidence } from './sandbox-probe.js'

/** The rule a denial by the OS sandbox is recorded under (tool calls, counts, the comment). */
export const SANDBOX_RULE = 'sandbox'

/** Bounds on what the state keeps. Exported for tests and documentation. */
export const REPORT_LIMITS = {
  /** Audit violations kept (the audit reverts them all; the report names these). */
  violations: 200,
  /** Read-only paths named in the report. */
  readOnlyPaths: 100,
  /** Tool call records kept in `tools` (in-flight, failed and denied calls are kept first). */
  toolRecords: 2000,
  /** Tool calls tracked as started but not completed; beyond this the oldest are given up. */
  pendingTools: 1000,
  /** Distinct tool names with their own line in `toolStats`; the rest count as `(other)`. */
  toolNames: 200,
  /** Permission records kept in `permissions` (denials are kept first). */
  permissionRecords: 2000,
  /** Any one string inside a stored permission request payload. */
  requestString: 2000,
  /** Any one array inside a stored permission request payload. */
  requestArray: 100,
  commands: 200,
  commandOutput: 8000,
  todos: 500,
  subagents: 100,
  /** Credential entries named in `credentials.removed`. */
  credentials: 100,
  planChars: 100_000,
  summaryChars: 20_000,
  errorChars: 8000,
  /** `target` and `error` of a tool call, a permission subject. */
  detailChars: 200,
  activityLines: 10,
  activityChars: 160
} as const

/**
 * Tools the CLI calls for itself, not for the task: they are counted, never listed as the
 * agent's calls or failures. (`report_intent` sets the status line the CLI shows.)
 */
export const INTERNAL_TOOLS: ReadonlySet<string> = new Set(['report_intent'])

/** The tool the agent calls to say it is done. */
const TASK_COMPLETE_TOOL = 'task_complete'

/** Why waiting for the agent ended, as the driver saw it. */
export type Ending =
  | { kind: 'idle' }
  | { kind: 'session-error' }
  | { kind: 'sandbox-failed' }
  | { kind: 'timeout'; limitMs: number }
  /** The run's token budget (max-tokens) ran out. */
  | { kind: 'budget'; used: number; limit: number }
  | { kind: 'hang'; quietMs: number }
  | { kind: 'cancelled'; during: 'setup' | 'agent' | 'verify' }
  | { kind: 'cli-exit'; message: string }
  | { kind: 'setup-failed' }
  /** The run could not go on: bad configuration (`configuration`) or a bug or outage. */
  | { kind: 'crashed'; message: string; type: 'configuration' | 'error' }

/** Everything a run observes, in the order it observes it. */
export type RunInput =
  | { type: 'event'; event: SessionEvent; receivedAt?: number }
  | { type: 'session-created'; sessionId: string }
  | { type: 'cli'; version: string }
  /** What the session is created with: the MCP servers configured, the custom agent. */
  | {
      type: 'session-options'
      mcpServers: ReadonlyArray<{ name: string; type: string }>
      agent?: { name: string; file: string }
    }
  | {
      type: 'policy'
      source: string
      builtIn: boolean
      /** Errors of a policy that could not be used. */
      issues?: readonly PolicyIssueRecord[]
    }
  /** The sandbox as planned; `required`: a failure to engage stops the run. */
  | { type: 'sandbox'; record: SandboxRecord; required: boolean }
  /** Paths the OS sandbox keeps read-only (the protected paths that exist). */
  | { type: 'read-only'; paths: readonly string[] }
  /** The workspace audit after the agent's work (one per agent turn: repairs add theirs). */
  | { type: 'audit'; result: Omit<AuditRecord, 'readOnly' | 'checks'> }
  /** The checkout's credentials taken out of the git config, and whether they are back. */
  | { type: 'credentials'; record: CredentialsRecord }
  /** Instruction files kept from the CLI for the session, and whether they are back. */
  | { type: 'instruction-files'; record: InstructionFilesRecord }
  | {
      type: 'decision'
      requestId: string
      request: PermissionRequest
      /** The final decision (an ask is recorded once a person answered, or could not). */
      decision: FinalDecision
      approval?: ApprovalRecord
    }
  /** A request the policy routed to a person: the question is out, the answer pending. */
  | { type: 'ask'; requestId: string; id: string; kind: string; subject: string; rule: string }
  /** What the run is doing (for live progress). */
  | { type: 'phase'; phase: Phase }
  /** Failing verify commands went back to the agent (verify-retries): a new attempt begins. */
  | { type: 'repair'; attempt: number }
  | { type: 'prompt-sent' }
  | { type: 'command'; record: CommandRecord }
  | { type: 'plan'; content: string | null; path?: string | null }
  | { type: 'todos'; todos: readonly Todo[] }
  | { type: 'metrics'; metrics: UsageMetrics }
  | { type: 'ended'; ending: Ending }

/** A decision as the agent got it: an ask has become an allow or a deny. */
export type FinalDecision = Decision & { decision: 'allow' | 'deny' }

/** The run's phases, as live progress shows them. */
export type Phase = 'starting' | 'setup' | 'agent' | 'verify' | 'finishing'

export interface StateOptions {
  /** ISO time the run started. */
  startedAt: string
  /** The model asked for, if any (the CLI's own choice is filled in from events otherwise). */
  model?: string | null
  policySource: string
  /** Secret values to redact from everything stored (values shorter than 4 are ignored). */
  secrets?: readonly string[]
  /** The agent's working directory (stored in the report, used to show relative paths). */
  workingDirectory?: string
  /** For the failure messages: the limits the run was given. */
  maxAutopilotContinues?: number
  commandTimeoutMs?: number
  /** max-tokens: input + output tokens over all models; the run stops when it is reached. */
  maxTokens?: number
}

interface PendingTool {
  record: ToolCallRecord
  /** The name as the CLI gave it (`record.name` may be `(other)`). */
  rawName: string
  startMs: number
}

/** A decision about a tool call, kept until the call completes. */
interface CallDecision {
  verdict: 'allow' | 'deny'
  rule: string
  reason: string | undefined
  subject: string
}

/** Which source set a metric: later sources only override an equal or lower one. */
export const MetricSource = { Events: 0, GetMetrics: 1, Shutdown: 2 } as const
type MetricSource = (typeof MetricSource)[keyof typeof MetricSource]

interface Sourced<T> {
  value: T
  source: MetricSource
}

export interface RunState {
  readonly secrets: readonly string[]
  readonly options: Readonly<StateOptions>
  readonly startedAt: string
  policy: { source: string; builtIn: boolean; issues?: PolicyIssueRecord[] }
  sandbox: SandboxRecord | undefined
  sandboxRequired: boolean
  /** The workspace audit, over every agent turn. */
  audit: AuditRecord | undefined
  /** The run passed the sandbox to the CLI (planned `enforced`): a failure to engage stops it. */
  sandboxPlanned: boolean
  /** The CLI said the sandbox did not engage (first report). */
  sandboxFailure: string | undefined
  credentials: CredentialsRecord | undefined
  instructionFiles: InstructionFilesRecord | undefined
  workingDirectory: string | undefined

  sessionId: string | null
  model: string | null
  cliVersion: string | null
  /** `starting` until the prompt is sent, `working` until the agent goes idle. */
  phase: 'starting' | 'working' | 'idle'
  /** What the run is doing, for live progress. */
  runPhase: Phase
  /** What the agent says it is doing (`assistant.intent`). */
  intent: string | undefined
  /** Questions out to a person, by permission request id. */
  asks: Map<string, { id: string; kind: string; subject: string; rule: string }>
  mode: string | undefined
  summary: string | null
  completion: CompletionRecord | undefined
  stopReason: string | undefined
  sessionError: { message: string; type?: string } | undefined
  /** A session error arrived while the agent worked (one from before the prompt does not stop it). */
  sessionErrorWhileWorking: boolean
  plan: string | null
  planFromEvent: boolean
  planPath: string | null
  todos: TodoRecord[]

  tools: ToolCallRecord[]
  toolsOmitted: number
  pending: Map<string, PendingTool>
  /** Tool names announced by `assistant.message` toolRequests, for completions without a start. */
  requestedNames: Map<string, string>
  /** Decisions by toolCallId, until the call completes. */
  callDecisions: Map<string, CallDecision>
  toolStats: Map<string, ToolStats>
  internalCalls: number
  /** Tool call ids of internal calls in flight (their completion is not the agent's). */
  internalPending: Set<string>
  subagents: Map<string, SubagentRecord>
  /** MCP servers by name. */
  mcpServers: Map<string, McpServerRecord>
  agent: AgentRecord | undefined

  permissions: PermissionRecord[]
  permissionsOmitted: number
  permissionCounts: Map<string, { allow: number; deny: number }>

  commands: CommandRecord[]
  /**
   * Verify commands run and failed in the current attempt (also those past the record limit);
   * a repair starts a new attempt.
   */
  verify: { ran: number; failed: number }
  repairs: { attempt: number; failed: string[] }[]
  activity: string[]

  eventModels: Map<string, ModelUsage>
  eventPremium: number
  eventApiMs: number
  premium: Sourced<number> | undefined
  apiMs: Sourced<number> | undefined
  code: Sourced<{ linesAdded: number; linesRemoved: number; files: string[] }> | undefined
  models: Sourced<Record<string, ModelUsage>> | undefined

  ending: Ending | undefined
}

export function createState(options: StateOptions): RunState {
  const secrets = normalizeSecrets(options.secrets ?? [])
  const clean = (text: string): string => redactNormalized(text, secrets)
  return {
    secrets,
    options,
    startedAt: options.startedAt,
    policy: { source: clean(options.policySource), builtIn: false },
    sandbox: undefined,
    sandboxRequired: false,
    audit: undefined,
    sandboxPlanned: false,
    sandboxFailure: undefined,
    credentials: undefined,
    instructionFiles: undefined,
    workingDirectory:
      options.workingDirectory === undefined ? undefined : clean(options.workingDirectory),
    sessionId: null,
    model: options.model ? clean(options.model) : null,
    cliVersion: null,
    phase: 'starting',
    runPhase: 'starting',
    intent: undefined,
    asks: new Map(),
    mode: undefined,
    summary: null,
    completion: undefined,
    stopReason: undefined,
    sessionError: undefined,
    sessionErrorWhileWorking: false,
    plan: null,
    planFromEvent: false,
    planPath: null,
    todos: [],
    tools: [],
    toolsOmitted: 0,
    pending: new Map(),
    requestedNames: new Map(),
    callDecisions: new Map(),
    toolStats: new Map(),
    internalCalls: 0,
    internalPending: new Set(),
    subagents: new Map(),
    mcpServers: new Map(),
    agent: undefined,
    permissions: [],
    permissionsOmitted: 0,
    permissionCounts: new Map(),
    commands: [],
    verify: { ran: 0, failed: 0 },
    repairs: [],
    activity: [],
    eventModels: new Map(),
    eventPremium: 0,
    eventApiMs: 0,
    premium: undefined,
    apiMs: undefined,
    code: undefined,
    models: undefined,
    ending: undefined
  }
}

/** Fold one input into the state. Unknown event types, deltas and malformed data are ignored. */
export function fold(state: RunState, input: RunInput): RunState {
  switch (input.type) {
    case 'event':
      onEvent(state, input.event, input.receivedAt)
      break
    case 'session-created':
      state.sessionId = clip(clean(state, input.sessionId), 200)
      break
    case 'cli':
      state.cliVersion = clip(clean(state, input.version), 100)
      break
    case 'session-options':
      for (const server of input.mcpServers) mcpServer(state, server.name, server.type)
      if (input.agent) {
        state.agent = {
          name: clip(clean(state, input.agent.name), 100),
          file: clip(clean(state, input.agent.file), 300),
          selected: false
        }
      }
      break
    case 'policy':
      state.policy = {
        source: clean(state, input.source),
        builtIn: input.builtIn,
        ...(input.issues && input.issues.length > 0
          ? {
              issues: input.issues.slice(0, 100).map((issue) => ({
                file: clip(clean(state, issue.file), 500),
                line: issue.line,
                column: issue.column,
                message: clip(clean(state, issue.message), 1000),
                fix: clip(clean(state, issue.fix), 1000)
              }))
            }
          : {})
      }
      break
    case 'sandbox':
      setSandbox(state, input.record)
      state.sandboxRequired = input.required
      state.sandboxPlanned = input.record.state === 'enforced'
      break
    case 'read-only':
      state.audit = {
        ...(state.audit ?? { checks: 0, changed: 0, violations: [], complete: true }),
        readOnly: input.paths.slice(0, REPORT_LIMITS.readOnlyPaths).map((p) => clean(state, p))
      }
      break
    case 'audit':
      onAudit(state, input.result)
      break
    case 'credentials':
      state.credentials = {
        removed: input.record.removed
          .slice(0, REPORT_LIMITS.credentials)
          .map((key) => clip(clean(state, key), 500)),
        restored: input.record.restored,
        ...(input.record.error === undefined
          ? {}
          : { error: clip(clean(state, input.record.error), 1000) })
      }
      break
    case 'instruction-files':
      state.instructionFiles = {
        kept: input.record.kept.slice(0, REPORT_LIMITS.credentials).map((file) => ({
          path: clip(clean(state, file.path), 500),
          reason: clip(clean(state, file.reason), 500)
        })),
        restored: input.record.restored,
        ...(input.record.error === undefined
          ? {}
          : { error: clip(clean(state, input.record.error), 1000) })
      }
      break
    case 'decision':
      state.asks.delete(input.requestId)
      onDecision(state, input.requestId, input.request, input.decision, input.approval)
      break
    case 'ask':
      if (state.asks.size < REPORT_LIMITS.pendingTools) {
        state.asks.set(input.requestId, {
          id: clip(clean(state, input.id), 20),
          kind: clip(clean(state, input.kind), 100),
          subject: detail(state, input.subject),
          rule: clip(clean(state, input.rule), 200)
        })
      }
      note(state, `asked a person about ${input.kind}: ${input.subject} (rule ${input.rule})`)
      break
    case 'phase':
      state.runPhase = input.phase
      break
    case 'repair': {
      const attempt = state.repairs.length
      const failed = state.commands
        .filter(
          (c) =>
            c.phase === 'verify' && (c.attempt ?? 0) === attempt && (c.exitCode !== 0 || c.timedOut)
        )
        .map((c) => c.command)
      if (state.repairs.length < REPORT_LIMITS.commands) {
        state.repairs.push({ attempt: input.attempt, failed })
      }
      state.verify = { ran: 0, failed: 0 }
      // The agent must complete again: its earlier task_complete was disproved by the checks.
      state.completion = undefined
      note(state, `repair ${input.attempt}: verify failed, sent back to the agent`)
      break
    }
    case 'prompt-sent':
      state.phase = 'working'
      break
    case 'command':
      onCommand(state, input.record)
      break
    case 'plan':
      onPlan(state, input.content, input.path ?? null)
      break
    case 'todos':
      state.todos = input.todos.slice(0, REPORT_LIMITS.todos).map((todo) => ({
        id: clip(clean(state, String(todo.id)), 100),
        title: clip(clean(state, todo.title), 500),
        status: clip(clean(state, todo.status), 50)
      }))
      break
    case 'metrics':
      applyMetrics(state, input.metrics, MetricSource.GetMetrics)
      break
    case 'ended':
      // The first ending is the one that happened; later ones are consequences of it.
      state.ending ??= input.ending
      break
  }
  return state
}

/**
 * Whether the run should stop waiting for the agent, and why: it went idle, the session
 * reported an error, or the sandbox the run passed to the CLI did not engage (in any mode: the
 * CLI then fails every shell command closed, so the agent cannot do its work). Undefined while
 * the agent works.
 */
export function stopReason(
  state: RunState
): Extract<Ending, { kind: 'idle' | 'session-error' | 'sandbox-failed' | 'budget' }> | undefined {
  if ((state.sandboxRequired || state.sandboxPlanned) && state.sandboxFailure !== undefined) {
    return { kind: 'sandbox-failed' }
  }
  const limit = state.options.maxTokens
  if (limit !== undefined && state.phase === 'working') {
    const used = tokensUsed(state)
    if (used >= limit) return { kind: 'budget', used, limit }
  }
  // The CLI has already retried; some versions let autopilot prompt again and again after an
  // error. The run ends at the first one, the same way on every version.
  if (state.sessionErrorWhileWorking && state.phase === 'working') return { kind: 'session-error' }
  if (state.phase === 'idle') return { kind: 'idle' }
  return undefined
}

/** Input + output tokens so far, over all models, from the usage events. */
export function tokensUsed(state: RunState): number {
  let total = 0
  for (const usage of state.eventModels.values()) total += usage.inputTokens + usage.outputTokens
  return total
}

/** Whether the agent's task_complete stands (called, and not refused by the CLI). */
export function completed(state: RunState): boolean {
  return state.completion?.state === 'accepted'
}

/** Whether any verify command ran, and whether all passed. */
export function verifyResult(state: RunState): boolean | undefined {
  if (state.verify.ran === 0) return undefined
  return state.verify.failed === 0
}

export interface Settled {
  status: RunStatus
  error?: { message: string; type?: string }
}

/**
 * The run's status and error, from how it ended and what the session said. The one place a
 * status is decided: `completed` only for a task_complete the CLI accepted, followed by verify
 * commands that all passed.
 */
export function settle(state: RunState): Settled {
  const violation = violationOf(state)
  if (violation !== undefined) return violation
  const ending = state.ending ?? { kind: 'crashed', message: 'the run ended early', type: 'error' }
  const minutes = (ms: number): string => formatMinutes(ms)
  switch (ending.kind) {
    case 'crashed':
      return { status: 'failed', error: { message: ending.message, type: ending.type } }
    case 'cli-exit':
      return { status: 'failed', error: { message: ending.message, type: 'cli-exit' } }
    case 'cancelled':
      return {
        status: 'cancelled',
        error: {
          message:
            ending.during === 'setup'
              ? 'The workflow run was cancelled during the setup commands.'
              : ending.during === 'verify'
                ? 'The workflow run was cancelled during the verify commands.'
                : 'The workflow run was cancelled.',
          type: 'cancelled'
        }
      }
    case 'timeout':
      return {
        status: 'timed-out',
        error: {
          message: `The agent did not finish within ${minutes(ending.limitMs)} (timeout-minutes).`,
          type: 'timeout'
        }
      }
    case 'hang':
      return {
        status: 'timed-out',
        error: {
          message: `The agent went silent: no event for ${minutes(ending.quietMs)} while it was working (idle-timeout-minutes). The model endpoint may be hanging.`,
          type: 'hang'
        }
      }
    case 'budget':
      return {
        status: 'budget-exceeded',
        error: {
          message: `The agent used ${ending.used.toLocaleString('en-US')} tokens (input + output, all models), reaching max-tokens (${ending.limit.toLocaleString('en-US')}): the session was stopped.`,
          type: 'max-tokens'
        }
      }
    case 'sandbox-failed':
      return {
        status: 'failed',
        error: {
          message: state.sandboxRequired
            ? `${state.sandboxFailure ?? 'The OS sandbox did not engage.'} The policy requires the sandbox (sandbox.mode: required): the run is stopped.`
            : `${state.sandboxFailure ?? 'The OS sandbox did not engage.'} The sandbox worked when the action probed it before the session (sandbox.mode: auto), so the session was started with it, and the agent cannot run shell commands: the run is stopped.`,
          type: 'sandbox'
        }
      }
    case 'session-error':
      return {
        status: 'failed',
        ...(state.sessionError ? { error: { ...state.sessionError } } : {})
      }
    case 'setup-failed': {
      const failed = state.commands.find((c) => c.phase === 'setup' && c.exitCode !== 0)
      const what = failed
        ? `Setup command \`${failed.command}\` ${failed.timedOut ? `timed out after ${minutes(state.options.commandTimeoutMs ?? failed.durationMs)}` : `failed with exit code ${failed.exitCode ?? 'none'}`}`
        : 'A setup command failed'
      return {
        status: 'failed',
        error: { message: `${what}; the agent was not started.`, type: 'setup-command' }
      }
    }
    case 'idle': {
      if (completed(state)) {
        if (verifyResult(state) === false) {
          const failed = state.commands.filter(
            (c) =>
              c.phase === 'verify' &&
              (c.attempt ?? 0) === state.repairs.length &&
              (c.exitCode !== 0 || c.timedOut)
          )
          const names = failed.map((c) => `\`${c.command}\``).join(', ')
          return {
            status: 'verify-failed',
            error: {
              message: `The agent said it completed the task, but ${failed.length === 1 ? 'the verify command' : 'verify commands'} ${names} failed.`,
              type: 'verify'
            }
          }
        }
        return { status: 'completed' }
      }
      if (state.sessionError) return { status: 'failed', error: { ...state.sessionError } }
      if (state.completion?.state === 'rejected') {
        return {
          status: 'incomplete',
          error: {
            message: `The agent called task_complete, but the Copilot CLI refused it${state.completion.reason ? ` (${state.completion.reason})` : ''}, and the agent stopped without completing.`,
            type: 'task-complete-rejected'
          }
        }
      }
      const cap = state.stopReason === 'cap_reached'
      if (state.mode === 'plan') {
        return {
          status: 'incomplete',
          error: {
            message:
              'The agent stopped in plan mode: it never asked to leave plan mode and start the work.',
            type: 'plan-mode'
          }
        }
      }
      return {
        status: 'incomplete',
        error: {
          message: cap
            ? `The agent stopped without calling task_complete after the maximum number of autopilot continues (${state.options.maxAutopilotContinues ?? '?'}).`
            : `The agent stopped without calling task_complete${state.stopReason ? ` (autopilot stopped: ${state.stopReason})` : ''}.`,
          type: state.stopReason ?? 'stopped'
        }
      }
    }
  }
}

/**
 * A path the write rules forbid changed while the agent worked: whatever else happened, the run
 * is a policy violation (the paths are reverted; the message names them and their rules).
 */
function violationOf(state: RunState): Settled | undefined {
  const violations = state.audit?.violations ?? []
  if (violations.length === 0) return undefined
  const shown = violations
    .slice(0, 3)
    .map(
      (v) =>
        `\`${v.path}\` (${v.change}, ${v.rule === 'default' ? 'no rule allows it' : `rule \`${v.rule}\``})`
    )
  const more = violations.length > 3 ? ` and ${violations.length - 3} more` : ''
  const kept = violations.filter((v) => !v.reverted).length
  return {
    status: 'policy-violation',
    error: {
      message: `The workspace audit found ${violations.length === 1 ? 'a path' : `${violations.length} paths`} changed that the policy's write rules forbid: ${shown.join(', ')}${more}. ${kept === 0 ? 'Each was put back as it was before the agent started.' : `${kept} could not be put back: check them before using this workspace.`}`,
      type: 'policy-violation'
    }
  }
}

function onAudit(state: RunState, result: Omit<AuditRecord, 'readOnly' | 'checks'>): void {
  const audit = state.audit ?? { checks: 0, changed: 0, violations: [], complete: true }
  const room = Math.max(0, REPORT_LIMITS.violations - audit.violations.length)
  state.audit = {
    ...audit,
    checks: audit.checks + 1,
    changed: audit.changed + result.changed,
    complete: audit.complete && result.complete,
    violations: [
      ...audit.violations,
      ...result.violations.slice(0, room).map((v) => ({
        ...v,
        path: clip(clean(state, v.path), 300),
        rule: clip(clean(state, v.rule), 100),
        ...(v.reason === undefined ? {} : { reason: clip(clean(state, v.reason), 300) }),
        ...(v.note === undefined ? {} : { note: clip(clean(state, v.note), 300) }),
        ...(v.command === undefined ? {} : { command: clip(clean(state, v.command), 300) })
      }))
    ]
  }
}

// ---------------------------------------------------------------------------------------------
// Events

function onEvent(state: RunState, event: SessionEvent, receivedAt: number | undefined): void {
  const type = event.type
  // Deltas are most of the stream: reject them before anything else.
  if (type.endsWith('_delta')) return
  switch (type) {
    case 'assistant.usage':
      return onUsage(state, event)
    case 'assistant.message':
      return onAssistantMessage(state, event)
    case 'tool.execution_start':
      return onToolStart(state, event, receivedAt)
    case 'tool.execution_complete':
      return onToolComplete(state, event, receivedAt)
    case 'subagent.started':
    case 'subagent.completed':
    case 'subagent.failed':
      return onSubagent(state, event)
    case 'session.task_complete': {
      const data = dataOf(event, type)
      if (!data) return
      if (typeof data.summary === 'string') {
        state.summary = clip(clean(state, data.summary), REPORT_LIMITS.summaryChars)
      }
      // success: false when validation failed or the completion was rejected or blocked.
      const refused =
        data.success === false || data.outcome === 'continue' || data.outcome === 'blocked'
      state.completion = refused
        ? { state: 'rejected', reason: detail(state, data.reason ?? data.outcome ?? 'rejected') }
        : { state: 'accepted' }
      note(state, `task complete${data.summary ? `: ${data.summary}` : ''}`)
      return
    }
    case 'user.message': {
      // After a task_complete, a message to the agent is the CLI sending it back to work (e.g.
      // "you called task_complete right after your plan was approved, but have not implemented
      // any of it"): the completion does not stand unless the agent completes again.
      if (state.completion?.state !== 'accepted' || state.phase !== 'working') return
      const data = dataOf(event, type)
      const text = (data?.transformedContent ?? data?.content ?? '')
        .replace(/<current_datetime>[\s\S]*?<\/current_datetime>/g, '')
        .trim()
      state.completion = {
        state: 'rejected',
        reason: detail(
          state,
          text === ''
            ? 'the Copilot CLI sent the agent back to work'
            : `the Copilot CLI sent the agent back to work: ${firstSentence(text)}`
        )
      }
      note(state, 'task_complete was not accepted: the agent was sent back to work')
      return
    }
    case 'session.autopilot_stopped': {
      const data = dataOf(event, type)
      if (!data) return
      state.stopReason = clip(clean(state, data.reason ?? 'unknown'), 100)
      note(state, `autopilot stopped: ${state.stopReason}`)
      return
    }
    case 'session.error': {
      const data = dataOf(event, type)
      const message = data?.message ?? 'the session reported an error'
      const status = data?.statusCode === undefined ? '' : ` (HTTP ${data.statusCode})`
      state.sessionError = {
        message: truncate(clean(state, `${message}${status}`), REPORT_LIMITS.errorChars),
        ...(data?.errorType ? { type: clip(clean(state, data.errorType), 100) } : {})
      }
      if (state.phase === 'working') state.sessionErrorWhileWorking = true
      note(state, `error${data?.errorType ? ` (${data.errorType})` : ''}: ${message}`)
      return
    }
    case 'session.mode_changed': {
      const data = dataOf(event, type)
      if (!data?.newMode) return
      state.mode = data.newMode
      note(state, `mode: ${data.previousMode ?? '?'} → ${data.newMode}`)
      return
    }
    case 'session.idle':
      if (state.phase === 'working') state.phase = 'idle'
      return
    case 'session.mcp_server_status_changed': {
      const data = dataOf(event, type)
      if (!data) return
      const server = mcpServer(state, data.serverName)
      if (!server) return
      server.status = clip(clean(state, data.status), 50)
      if (data.error) server.error = detail(state, data.error)
      else if (data.status === 'connected') delete server.error
      if (data.status === 'failed') note(state, `MCP server ${server.name} failed`)
      return
    }
    case 'session.mcp_server_tools_loaded': {
      const data = dataOf(event, type)
      const server = data && mcpServer(state, data.serverName)
      if (server && data?.toolCount !== undefined) server.tools = data.toolCount
      return
    }
    case 'session.mcp_servers_loaded': {
      for (const reported of dataOf(event, type)?.servers ?? []) {
        const server = mcpServer(state, reported.name)
        if (!server) continue
        server.status = clip(clean(state, reported.status), 50)
        if (reported.error) server.error = detail(state, reported.error)
      }
      return
    }
    case 'subagent.selected': {
      const name = dataOf(event, type)?.agentName
      if (state.agent && name === state.agent.name) state.agent.selected = true
      return
    }
    case 'assistant.intent': {
      const intent = dataOf(event, type)?.intent
      if (intent) state.intent = detail(state, intent)
      return
    }
    case 'session.shutdown':
      return applyMetrics(state, event.data, MetricSource.Shutdown)
    case 'sandbox.decision':
      return onSandboxDecision(state, event)
    case 'exit_plan_mode.requested': {
      const data = dataOf(event, type)
      if (!data) return
      if (typeof data.planContent === 'string' && (state.plan === null || state.planFromEvent)) {
        state.plan = truncate(clean(state, data.planContent), REPORT_LIMITS.planChars)
        state.planFromEvent = true
      }
      note(state, `plan ready${data.summary ? `: ${data.summary}` : ''}`)
      return
    }
    default:
      return
  }
}

function onUsage(state: RunState, event: SessionEvent): void {
  const data = dataOf(event, 'assistant.usage')
  if (!data) return
  const raw = (event.data ?? {}) as { cost?: unknown; duration?: unknown }
  if (typeof raw.cost === 'number' && Number.isFinite(raw.cost)) state.eventPremium += raw.cost
  if (typeof raw.duration === 'number' && Number.isFinite(raw.duration)) {
    state.eventApiMs += raw.duration
  }
  const name = data.model ?? state.model ?? 'unknown'
  let usage = state.eventModels.get(name)
  if (!usage) {
    if (state.eventModels.size >= REPORT_LIMITS.toolNames) return
    usage = zeroUsage()
    state.eventModels.set(name, usage)
  }
  usage.requests++
  usage.inputTokens += data.inputTokens
  usage.outputTokens += data.outputTokens
  usage.cacheReadTokens += data.cacheReadTokens
  usage.cacheWriteTokens += data.cacheWriteTokens
  if (state.model === null && data.model) state.model = clip(clean(state, data.model), 100)
}

function onAssistantMessage(state: RunState, event: SessionEvent): void {
  const data = dataOf(event, 'assistant.message')
  if (!data) return
  if (data.toolRequests) {
    for (const request of data.toolRequests) {
      if (state.requestedNames.size >= REPORT_LIMITS.pendingTools) evictOldest(state.requestedNames)
      state.requestedNames.set(request.toolCallId, request.name)
    }
  }
  const content = data.content?.trim()
  if (content) note(state, `said: ${content}`)
}

function onToolStart(state: RunState, event: SessionEvent, now: number | undefined): void {
  const data = dataOf(event, 'tool.execution_start')
  if (!data) return
  const id = data.toolCallId
  if (INTERNAL_TOOLS.has(data.toolName)) {
    state.requestedNames.delete(id)
    if (!state.internalPending.has(id)) {
      state.internalCalls++
      if (state.internalPending.size >= REPORT_LIMITS.pendingTools)
        evictOldest(state.internalPending)
      state.internalPending.add(id)
    }
    return
  }
  if (state.pending.has(id)) return // a repeated start: keep the first
  state.requestedNames.delete(id)
  const name = toolName(state, data.toolName)
  const target = targetOf(data.arguments)
  const parent = data.parentToolCallId ?? undefined
  const record: ToolCallRecord = {
    toolCallId: clip(clean(state, id), 200),
    name,
    outcome: 'unfinished',
    success: null,
    durationMs: null,
    ...(target === undefined ? {} : { target: detail(state, target) }),
    ...(parent ? { parentToolCallId: clip(clean(state, parent), 200) } : {})
  }
  state.pending.set(id, { record, rawName: data.toolName, startMs: timeOf(event, now) })
  if (state.pending.size > REPORT_LIMITS.pendingTools) {
    // Give up on the oldest never-completed call (its record stays, unfinished).
    const oldest = state.pending.keys().next()
    if (!oldest.done) state.pending.delete(oldest.value)
  }
  stats(state, name).calls++
  if (data.mcpServerName !== undefined) {
    const server = mcpServer(state, data.mcpServerName)
    if (server) server.calls++
  }
  pushTool(state, record)
  note(state, target === undefined ? `ran ${data.toolName}` : `ran ${data.toolName}: ${target}`)
}

function onToolComplete(state: RunState, event: SessionEvent, now: number | undefined): void {
  const data = dataOf(event, 'tool.execution_complete')
  if (!data) return
  const id = data.toolCallId
  if (state.internalPending.delete(id)) return
  const pending = state.pending.get(id)
  const decision = state.callDecisions.get(id)
  state.callDecisions.delete(id)
  let record: ToolCallRecord
  let rawName: string
  if (pending) {
    state.pending.delete(id)
    record = pending.record
    rawName = pending.rawName
    const endMs = timeOf(event, now)
    if (Number.isFinite(endMs) && Number.isFinite(pending.startMs)) {
      record.durationMs = Math.max(0, endMs - pending.startMs)
    }
  } else {
    // Completed without a start we saw (denied before it started, or a dropped event).
    rawName = state.requestedNames.get(id) ?? 'unknown'
    state.requestedNames.delete(id)
    if (INTERNAL_TOOLS.has(rawName)) {
      state.internalCalls++
      return
    }
    const name = toolName(state, rawName)
    const parent = data.parentToolCallId ?? undefined
    record = {
      toolCallId: clip(clean(state, id), 200),
      name,
      outcome: 'unfinished',
      success: null,
      durationMs: null,
      ...(decision === undefined ? {} : { target: decision.subject }),
      ...(parent ? { parentToolCallId: clip(clean(state, parent), 200) } : {})
    }
    stats(state, name).calls++
    pushTool(state, record)
  }
  record.success = data.success
  const toolStats = stats(state, record.name)
  if (record.durationMs !== null) toolStats.durationMs += record.durationMs
  if (data.success) {
    record.outcome = 'succeeded'
    toolStats.succeeded++
    const result = data.result?.content ?? ''
    if (rawName === TASK_COMPLETE_TOOL && /not applicable in the current mode/i.test(result)) {
      // Plan mode withdraws task_complete: the call "succeeds" with this text and nothing ends.
      state.completion = { state: 'rejected', reason: detail(state, result) }
    }
    return
  }
  const message = data.error?.message ?? 'failed'
  const error = data.error?.code ? `${data.error.code}: ${message}` : message
  if (decision?.verdict === 'deny') {
    // The policy said no: not a failure of the tool. The CLI's own text is boilerplate.
    record.outcome = 'denied'
    record.rule = clip(clean(state, decision.rule), 200)
    record.error = detail(state, decision.reason ?? 'denied by the policy')
    record.target ??= decision.subject
    toolStats.denied++
    return
  }
  if (data.toolTelemetry?.properties?.sandbox_denied === 'true') {
    // The CLI's own file tool refused a path the OS sandbox keeps read-only (a protected path
    // that exists), before any permission request: a denial by the sandbox, in the decision log
    // like any other, not a failed call.
    const subject = record.target ?? '(path not reported)'
    const reason = `the OS sandbox keeps this path read-only (${message.replace(/\.$/, '')})`
    onDecision(
      state,
      `${SANDBOX_RULE}:${id}`,
      { kind: 'write', toolCallId: id, fileName: subject },
      { decision: 'deny', rule: SANDBOX_RULE, kind: 'write', subject, reason },
      undefined
    )
    state.callDecisions.delete(id)
    record.outcome = 'denied'
    record.rule = SANDBOX_RULE
    record.error = detail(state, reason)
    toolStats.denied++
    return
  }
  record.outcome = 'failed'
  record.error = detail(state, error)
  toolStats.failed++
  if (rawName === TASK_COMPLETE_TOOL) {
    // The CLI refused the agent's completion (e.g. in plan mode): it does not stand.
    state.completion = { state: 'rejected', reason: record.error }
  }
  note(state, `${record.name} failed: ${error}`)
}

/** Most MCP servers a run lists; more than any workflow configures. */
const MAX_MCP_SERVERS = 50

/** The server `name`, added (as `type`, not yet reported) when new; undefined past the limit. */
function mcpServer(state: RunState, name: string, type = 'unknown'): McpServerRecord | undefined {
  const key = clip(clean(state, name), 100)
  let server = state.mcpServers.get(key)
  if (server === undefined) {
    if (state.mcpServers.size >= MAX_MCP_SERVERS) return undefined
    server = { name: key, type, status: 'not-reported', calls: 0, denied: 0 }
    state.mcpServers.set(key, server)
  }
  return server
}

function onSubagent(state: RunState, event: SessionEvent): void {
  const info =
    dataOf(event, 'subagent.started') ??
    dataOf(event, 'subagent.completed') ??
    dataOf(event, 'subagent.failed')
  if (!info) return
  const id = info.toolCallId
  let record = state.subagents.get(id)
  if (!record) {
    if (state.subagents.size >= REPORT_LIMITS.subagents) return
    const name = info.agentDisplayName ?? info.agentName ?? 'subagent'
    record = {
      toolCallId: clip(clean(state, id), 200),
      name: clip(clean(state, name), 100),
      ...(info.agentDescription ? { description: detail(state, info.agentDescription) } : {}),
      outcome: 'running'
    }
    state.subagents.set(id, record)
  }
  if (event.type === 'subagent.completed') record.outcome = 'completed'
  if (event.type === 'subagent.failed') {
    record.outcome = 'failed'
    if (info.error) record.error = detail(state, info.error)
  }
}

function onSandboxDecision(state: RunState, event: SessionEvent): void {
  const evidence = sandboxEvidence(event)
  // without the sandbox in the session (off, unavailable) its events say nothing of the run
  if (evidence === undefined || (state.sandbox?.state !== 'enforced' && !state.sandboxPlanned)) {
    return
  }
  if (!evidence.engaged && state.sandboxFailure === undefined) {
    state.sandboxFailure = clean(
      state,
      `The OS sandbox did not engage: ${evidence.reason}. The agent's shell commands fail closed without it.`
    )
  }
  // An enforced sandbox the CLI says did not engage is unavailable; the first failure stays.
  if (state.sandbox?.state !== 'enforced') return
  if (evidence.engaged) {
    state.sandbox = { ...state.sandbox, backend: clip(clean(state, evidence.backend), 100) }
  } else {
    setSandbox(state, { ...state.sandbox, state: 'unavailable', reason: evidence.reason })
    note(state, `sandbox: ${evidence.reason}`)
  }
}

function setSandbox(state: RunState, sandbox: SandboxRecord): void {
  state.sandbox = {
    state: sandbox.state,
    ...(sandbox.backend === undefined ? {} : { backend: clip(clean(state, sandbox.backend), 100) }),
    ...(sandbox.reason === undefined ? {} : { reason: clip(clean(state, sandbox.reason), 500) }),
    ...(sandbox.provisioned === undefined
      ? {}
      : { provisioned: sandbox.provisioned.slice(0, 10).map((p) => clip(clean(state, p), 100)) }),
    ...(sandbox.setupSeconds === undefined ? {} : { setupSeconds: sandbox.setupSeconds }),
    ...(sandbox.networkOff === undefined
      ? {}
      : {
          networkOff: {
            hosts: sandbox.networkOff.hosts.slice(0, 50).map((h) => clip(clean(state, h), 200)),
            reason: clip(clean(state, sandbox.networkOff.reason), 500)
          }
        })
  }
}

// ---------------------------------------------------------------------------------------------
// What the driver observes

function onDecision(
  state: RunState,
  requestId: string,
  request: PermissionRequest,
  decision: FinalDecision,
  approval: ApprovalRecord | undefined
): void {
  const kind = clip(clean(state, decision.kind || request.kind || 'unknown'), 100)
  const record: PermissionRecord = {
    requestId: clip(clean(state, requestId), 200),
    toolCallId:
      request.toolCallId === undefined ? null : clip(clean(state, request.toolCallId), 200),
    kind,
    subject: detail(state, decision.subject),
    decision: decision.decision,
    rule: clip(clean(state, decision.rule), 200),
    ...(decision.reason === undefined ? {} : { reason: clip(clean(state, decision.reason), 500) }),
    ...(approval === undefined ? {} : { approval: cleanApproval(state, approval) }),
    request: redactDeepNormalized(request, state.secrets, {
      maxString: REPORT_LIMITS.requestString,
      maxArray: REPORT_LIMITS.requestArray,
      maxDepth: 8
    })
  }
  let counts = state.permissionCounts.get(kind)
  if (!counts) {
    counts = { allow: 0, deny: 0 }
    state.permissionCounts.set(kind, counts)
  }
  counts[decision.decision]++
  if (request.kind === 'mcp' && decision.decision === 'deny' && request.serverName) {
    const server = mcpServer(state, request.serverName)
    if (server) server.denied++
  }
  if (request.toolCallId !== undefined) {
    if (state.callDecisions.size >= REPORT_LIMITS.pendingTools) evictOldest(state.callDecisions)
    state.callDecisions.set(request.toolCallId, {
      verdict: decision.decision,
      rule: record.rule,
      reason: record.reason,
      subject: record.subject
    })
  }
  state.permissions.push(record)
  if (state.permissions.length >= 2 * REPORT_LIMITS.permissionRecords) compactPermissions(state)
  if (decision.decision === 'deny') {
    note(state, `denied ${kind}: ${decision.subject} (rule ${decision.rule})`)
  }
}

function onCommand(state: RunState, record: CommandRecord): void {
  if (record.phase === 'verify') {
    state.verify.ran++
    if (record.exitCode !== 0 || record.timedOut) state.verify.failed++
  }
  if (state.commands.length >= REPORT_LIMITS.commands) return
  const attempt = record.phase === 'verify' ? state.repairs.length : 0
  state.commands.push({
    phase: record.phase,
    ...(attempt > 0 ? { attempt } : {}),
    command: truncate(clean(state, record.command), 2000),
    exitCode: record.exitCode,
    timedOut: record.timedOut,
    durationMs: record.durationMs,
    outputTail: clean(
      state,
      truncate(record.outputTail, REPORT_LIMITS.commandOutput, { keep: 'tail' })
    )
  })
}

function cleanApproval(state: RunState, approval: ApprovalRecord): ApprovalRecord {
  return {
    id: clip(clean(state, approval.id), 20),
    verdict: approval.verdict,
    askedAt: clip(approval.askedAt, 40),
    answeredAt: clip(approval.answeredAt, 40),
    ...(approval.by === undefined ? {} : { by: clip(clean(state, approval.by), 100) }),
    ...(approval.reason === undefined ? {} : { reason: clip(clean(state, approval.reason), 500) }),
    ...(approval.url === undefined ? {} : { url: clip(clean(state, approval.url), 500) })
  }
}

/** The plan (plan.md) as read at the end of the run; null when there is none. */
function onPlan(state: RunState, content: string | null, path: string | null): void {
  if (path) state.planPath = path
  if (content === null || content.trim() === '') {
    // Keep a plan we saw in exit_plan_mode.requested rather than forgetting it.
    if (!state.planFromEvent) state.plan = null
    return
  }
  state.plan = truncate(clean(state, content), REPORT_LIMITS.planChars)
  state.planFromEvent = false
}

// ---------------------------------------------------------------------------------------------
// Metrics

/**
 * Figures from `session.shutdown` or `session.usage.getMetrics`. They come flat or nested
 * under `accountingSnapshot` (1.0.102 nests them, with premium requests as
 * `totalPremiumRequestCost`); the snapshot wins field by field, the flat shape fills gaps.
 */
function applyMetrics(state: RunState, data: unknown, source: MetricSource): void {
  if (data === null || typeof data !== 'object') return
  const flat = UsageMetrics.safeParse(data)
  const nested = UsageMetrics.safeParse(
    (data as { accountingSnapshot?: unknown }).accountingSnapshot
  )
  const layers = [nested.success ? nested.data : undefined, flat.success ? flat.data : undefined]
  const first = <T>(pick: (m: UsageMetrics) => T | undefined): T | undefined => {
    for (const layer of layers) {
      const value = layer === undefined ? undefined : pick(layer)
      if (value !== undefined) return value
    }
    return undefined
  }
  const premium = first((m) => m.totalPremiumRequests) ?? first((m) => m.totalPremiumRequestCost)
  const apiMs = first((m) => m.totalApiDurationMs)
  const code = first((m) => m.codeChanges)
  const modelMetrics = first((m) =>
    m.modelMetrics && Object.keys(m.modelMetrics).length > 0 ? m.modelMetrics : undefined
  )
  const currentModel = first((m) => m.currentModel)

  const wins = (current: Sourced<unknown> | undefined): boolean =>
    current === undefined || current.source <= source
  if (premium !== undefined && wins(state.premium)) state.premium = { value: premium, source }
  if (apiMs !== undefined && wins(state.apiMs)) state.apiMs = { value: apiMs, source }
  if (code !== undefined && wins(state.code)) {
    state.code = {
      value: {
        linesAdded: code.linesAdded,
        linesRemoved: code.linesRemoved,
        files: code.filesModified.map((file) => clip(clean(state, file), 1000))
      },
      source
    }
  }
  if (modelMetrics !== undefined && wins(state.models)) {
    // A Map, then fromEntries: model names are untrusted (`__proto__` must stay a plain key).
    const models = new Map<string, ModelUsage>()
    for (const [name, metric] of Object.entries(modelMetrics)) {
      models.set(clip(clean(state, name), 100), {
        requests: metric.requests?.count ?? 0,
        inputTokens: metric.usage?.inputTokens ?? 0,
        outputTokens: metric.usage?.outputTokens ?? 0,
        cacheReadTokens: metric.usage?.cacheReadTokens ?? 0,
        cacheWriteTokens: metric.usage?.cacheWriteTokens ?? 0
      })
    }
    state.models = { value: Object.fromEntries(models), source }
  }
  if (state.model === null && currentModel) state.model = clip(clean(state, currentModel), 100)
}

// ---------------------------------------------------------------------------------------------
// Helpers

function clean(state: RunState, text: string): string {
  return redactNormalized(text, state.secrets)
}

function detail(state: RunState, text: string): string {
  return clip(clean(state, text.replace(/\s+/g, ' ').trim()), REPORT_LIMITS.detailChars)
}

function toolName(state: RunState, raw: string): string {
  const name = clip(clean(state, raw), 100)
  return state.toolStats.has(name) || state.toolStats.size < REPORT_LIMITS.toolNames
    ? name
    : '(other)'
}

function stats(state: RunState, name: string): ToolStats {
  let s = state.toolStats.get(name)
  if (!s) {
    s = { calls: 0, succeeded: 0, failed: 0, denied: 0, durationMs: 0 }
    state.toolStats.set(name, s)
  }
  return s
}

function timeOf(event: SessionEvent, now: number | undefined): number {
  if (event.timestamp !== undefined) {
    const ms = Date.parse(event.timestamp)
    if (Number.isFinite(ms)) return ms
  }
  return now ?? Number.NaN
}

/** One short line in the lastActivity ring. */
function note(state: RunState, line: string): void {
  const text = clip(clean(state, line.replace(/\s+/g, ' ').trim()), REPORT_LIMITS.activityChars)
  state.activity.push(text)
  if (state.activity.length > REPORT_LIMITS.activityLines) state.activity.shift()
}

function pushTool(state: RunState, record: ToolCallRecord): void {
  state.tools.push(record)
  if (state.tools.length >= 2 * REPORT_LIMITS.toolRecords) compactTools(state)
}

/**
 * Keep `toolRecords` records: every in-flight call, then the most recent failures and denials
 * (up to half), then the most recent others; order preserved. Amortized O(1) per call.
 */
function compactTools(state: RunState): void {
  const inFlight = new Set<ToolCallRecord>()
  for (const { record } of state.pending.values()) inFlight.add(record)
  const limit = REPORT_LIMITS.toolRecords
  const keep = keepRecent(state.tools, limit, (r) =>
    inFlight.has(r) ? 0 : r.outcome === 'failed' || r.outcome === 'denied' ? 1 : 2
  )
  state.toolsOmitted += state.tools.length - keep.length
  state.tools = keep
}

function compactPermissions(state: RunState): void {
  const limit = REPORT_LIMITS.permissionRecords
  const keep = keepRecent(state.permissions, limit, (r) => (r.decision === 'deny' ? 1 : 2))
  state.permissionsOmitted += state.permissions.length - keep.length
  state.permissions = keep
}

/**
 * The items to keep, in their original order: class 0 always, class 1 up to half of `limit`,
 * class 2 with what is left; the most recent of each class first.
 */
function keepRecent<T>(items: T[], limit: number, classOf: (item: T) => 0 | 1 | 2): T[] {
  const keep = new Array<boolean>(items.length).fill(false)
  let kept = 0
  let important = 0
  for (let i = items.length - 1; i >= 0; i--) {
    const cls = classOf(items[i] as T)
    if (cls === 0 || (cls === 1 && important < limit / 2)) {
      keep[i] = true
      kept++
      if (cls === 1) important++
    }
  }
  for (let i = items.length - 1; i >= 0 && kept < limit; i--) {
    if (!keep[i]) {
      keep[i] = true
      kept++
    }
  }
  return items.filter((_, i) => keep[i])
}

export function zeroUsage(): ModelUsage {
  return { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
}

/** Drop the oldest entry of a Map or Set (insertion order): bounds that forget one, not all. */
function evictOldest(collection: Map<string, unknown> | Set<string>): void {
  const oldest = collection.keys().next()
  if (!oldest.done) collection.delete(oldest.value)
}

/** The first sentence (or line) of a text, for a one-line reason. */
function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? ''
  const end = line.search(/[.!?](\s|$)/)
  return end < 0 ? line : line.slice(0, end + 1)
}

/** What a tool call is about: the shell command, else a path, a URL, a pattern, a description. */
function targetOf(args: unknown): string | undefined {
  if (args === null || typeof args !== 'object') return undefined
  const a = args as Record<string, unknown>
  for (const key of [
    'command',
    'path',
    'file_path',
    'filePath',
    'url',
    'pattern',
    'query',
    'description'
  ]) {
    const value = a[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}
