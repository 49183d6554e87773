/**
 * The run's one state (`RunState`), flat in memory, its bounds (`REPORT_LIMITS`), how it starts
 * (`createState`), and the helpers every slice stores text with (redacted, clipped).
 */
import type {
  AgentRecord,
  AuditRecord,
  CommandRecord,
  CompletionRecord,
  CredentialsRecord,
  EnvironmentRecord,
  InstructionFilesRecord,
  KilledProcessRecord,
  McpServerRecord,
  ModelUsage,
  PermissionRecord,
  PolicyIssueRecord,
  QuotaRecord,
  SandboxRecord,
  SubagentRecord,
  TodoRecord,
  ToolCallRecord,
  ToolStats
} from '../../reporting/types.js'
import type { Ending, Phase } from './inputs.js'
import type { AiCreditsStatus, SessionEvent } from '../../cli/protocol.js'
import { clip, normalizeSecrets, redactNormalized } from '../../text/safe-text.js'
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
  /** Killed processes named in `killedProcesses` (the rest are counted in the log). */
  killedProcesses: 100,
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
export const TASK_COMPLETE_TOOL = 'task_complete'

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
  /** max-ai-credits: AI credits the run may use; the action stops the session when reached. */
  maxAiCredits?: number
  /** The model is the user's own provider (BYOK): it bills them, Copilot reports no credits. */
  byok?: boolean
}

export interface PendingTool {
  record: ToolCallRecord
  /** The name as the CLI gave it (`record.name` may be `(other)`). */
  rawName: string
  startMs: number
}

/** A decision about a tool call, kept until the call completes. */
export interface CallDecision {
  verdict: 'allow' | 'deny'
  rule: string
  reason: string | undefined
  subject: string
}

/** Which source set a metric: later sources only override an equal or lower one. */
export const MetricSource = { Events: 0, GetMetrics: 1, Shutdown: 2 } as const
export type MetricSource = (typeof MetricSource)[keyof typeof MetricSource]

export interface Sourced<T> {
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
  environment: EnvironmentRecord | undefined
  /** Processes still running after their step, killed (bounded by REPORT_LIMITS.killedProcesses). */
  killedProcesses: KilledProcessRecord[]
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
  /**
   * AI credits from the per-call events, in nano-AIU: `live` summed over `assistant.usage`,
   * `receipts` over `session.usage_record` (the same calls: the larger sum counts); `priced` and
   * `unpriced` count the calls that did and did not report an amount; `byok` when one said so.
   */
  eventCredits: { live: number; receipts: number; priced: number; unpriced: number; byok: boolean }
  /** The CLI's own `sessionLimits.maxAiCredits` was exhausted (it waits for an answer). */
  creditLimitReached: { used?: number; max?: number } | undefined
  nanoAiu: Sourced<number> | undefined
  creditsStatus: Sourced<AiCreditsStatus> | undefined
  premium: Sourced<number> | undefined
  apiMs: Sourced<number> | undefined
  code: Sourced<{ linesAdded: number; linesRemoved: number; files: string[] }> | undefined
  models: Sourced<Record<string, ModelUsage>> | undefined

  ending: Ending | undefined
  quota: QuotaRecord | undefined
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
    environment: undefined,
    killedProcesses: [],
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
    eventCredits: { live: 0, receipts: 0, priced: 0, unpriced: 0, byok: false },
    creditLimitReached: undefined,
    nanoAiu: undefined,
    creditsStatus: undefined,
    premium: undefined,
    apiMs: undefined,
    code: undefined,
    models: undefined,
    ending: undefined,
    quota: undefined
  }
}

export function clean(state: RunState, text: string): string {
  return redactNormalized(text, state.secrets)
}

export function detail(state: RunState, text: string): string {
  return clip(clean(state, text.replace(/\s+/g, ' ').trim()), REPORT_LIMITS.detailChars)
}

export function timeOf(event: SessionEvent, now: number | undefined): number {
  if (event.timestamp !== undefined) {
    const ms = Date.parse(event.timestamp)
    if (Number.isFinite(ms)) return ms
  }
  return now ?? Number.NaN
}

/** One short line in the lastActivity ring. */
export function note(state: RunState, line: string): void {
  const text = clip(clean(state, line.replace(/\s+/g, ' ').trim()), REPORT_LIMITS.activityChars)
  state.activity.push(text)
  if (state.activity.length > REPORT_LIMITS.activityLines) state.activity.shift()
}

/**
 * The items to keep, in their original order: class 0 always, class 1 up to half of `limit`,
 * class 2 with what is left; the most recent of each class first.
 */
export function keepRecent<T>(items: T[], limit: number, classOf: (item: T) => 0 | 1 | 2): T[] {
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
export function evictOldest(collection: Map<string, unknown> | Set<string>): void {
  const oldest = collection.keys().next()
  if (!oldest.done) collection.delete(oldest.value)
}
