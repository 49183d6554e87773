/**
 * The report fold: CLI events, policy decisions and the driver's own observations go in, one
 * `Report` comes out. Pure (no I/O, no clock unless asked for one) and flat in memory: events are
 * never stored, only aggregates and bounded lists, so a run of millions of events costs the same
 * memory as a run of hundreds. Every string stored is redacted of the run's secrets.
 */
import { UsageMetrics, dataOf, type PermissionRequest, type SessionEvent } from '../cli/protocol.js'
import type { Decision } from '../policy/types.js'
import { clip, normalizeSecrets, redactDeep, redactNormalized, truncate } from './text.js'
import { sandboxEvidence } from '../session/sandbox.js'
import type {
  CommandRecord,
  Metrics,
  ModelUsage,
  PermissionRecord,
  Report,
  RunStatus,
  SandboxRecord,
  TodoRecord,
  ToolCallRecord,
  ToolStats
} from './types.js'

/** Bounds on what the builder keeps. Exported for tests and documentation. */
export const REPORT_LIMITS = {
  /** Tool call records kept in `tools` (in-flight and failed calls are kept first). */
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
  planChars: 100_000,
  summaryChars: 20_000,
  errorChars: 8000,
  /** `detail` and `error` of a tool call, a permission subject. */
  detailChars: 200,
  activityLines: 10,
  activityChars: 160
} as const

export interface ReportBuilderOptions {
  /** ISO time the run started. */
  startedAt: string
  /** The model asked for, if any (the CLI's own choice is filled in from events otherwise). */
  model: string | null
  cliVersion?: string | null
  policy: { source: string; builtIn: boolean }
  /** Secret values to redact from everything stored (values shorter than 4 are ignored). */
  secrets?: readonly string[]
  /** The agent's working directory (stored in the report, used to show relative paths). */
  workingDirectory?: string
  /** Receive-time clock (ms) for events without a usable timestamp. Default `Date.now`. */
  now?: () => number
}

export interface FinishOptions {
  /** Decided by the driver. */
  status: RunStatus
  endedAt: string
  /** The outcome's summary; falls back to the agent's `session.task_complete` summary. */
  summary?: string | null
  /** Falls back to the last `session.error` event when the status is not `completed`. */
  error?: { message: string; type?: string }
}

interface PendingTool {
  record: ToolCallRecord
  startMs: number
}

/** Which source set a metric: later sources only override an equal or lower one. */
const Source = { Events: 0, GetMetrics: 1, Shutdown: 2 } as const
type Source = (typeof Source)[keyof typeof Source]

interface Sourced<T> {
  value: T
  source: Source
}

export class ReportBuilder {
  private readonly secrets: string[]
  private readonly clock: () => number
  private readonly startedAt: string
  private policy: { source: string; builtIn: boolean }
  private sandbox: SandboxRecord | undefined
  private readonly workingDirectory: string | undefined

  private sessionId: string | null = null
  private model: string | null
  private cliVersion: string | null
  private summary: string | null = null
  private stopReason: string | undefined
  private lastError: { message: string; type?: string } | undefined
  private plan: string | null = null
  private planFromEvent = false
  private todos: TodoRecord[] = []

  private tools: ToolCallRecord[] = []
  private toolsOmitted = 0
  private readonly pending = new Map<string, PendingTool>()
  /** Tool names announced by `assistant.message` toolRequests, for completions without a start. */
  private readonly requestedNames = new Map<string, string>()
  /** What a decision was about, by toolCallId: the detail of a call denied before it started. */
  private readonly decidedSubjects = new Map<string, string>()
  private readonly toolStats = new Map<string, ToolStats>()

  private permissions: PermissionRecord[] = []
  private permissionsOmitted = 0
  private readonly permissionCounts = new Map<string, { allow: number; deny: number }>()

  private readonly commands: CommandRecord[] = []
  private readonly activity: string[] = []

  // Metrics: summed from assistant.usage events, overridden by getMetrics / shutdown figures.
  private readonly eventModels = new Map<string, ModelUsage>()
  private eventPremium = 0
  private eventApiMs = 0
  private premium: Sourced<number> | undefined
  private apiMs: Sourced<number> | undefined
  private code: Sourced<{ linesAdded: number; linesRemoved: number; files: string[] }> | undefined
  private models: Sourced<Record<string, ModelUsage>> | undefined

  constructor(options: ReportBuilderOptions) {
    this.secrets = normalizeSecrets(options.secrets ?? [])
    this.clock = options.now ?? Date.now
    this.startedAt = options.startedAt
    this.policy = { source: this.clean(options.policy.source), builtIn: options.policy.builtIn }
    this.model = options.model === null ? null : this.clean(options.model)
    this.cliVersion = options.cliVersion ? this.clean(options.cliVersion) : null
    this.workingDirectory =
      options.workingDirectory === undefined ? undefined : this.clean(options.workingDirectory)
  }

  // -------------------------------------------------------------------------------------------
  // Events

  /**
   * Fold one CLI event. `now` is the receive time (ms), used when the event has no usable
   * timestamp. Unknown types, deltas and malformed data are ignored.
   */
  onEvent(event: SessionEvent, now?: number): void {
    const type = event.type
    // Deltas are most of the stream: reject them before anything else.
    if (type.endsWith('_delta')) return
    switch (type) {
      case 'assistant.usage':
        return this.onUsage(event)
      case 'assistant.message':
        return this.onAssistantMessage(event)
      case 'tool.execution_start':
        return this.onToolStart(event, now)
      case 'tool.execution_complete':
        return this.onToolComplete(event, now)
      case 'session.task_complete': {
        const data = dataOf(event, type)
        if (!data) return
        if (typeof data.summary === 'string') {
          this.summary = this.clean(clip(data.summary, REPORT_LIMITS.summaryChars))
        }
        this.note(`task complete${data.summary ? `: ${data.summary}` : ''}`)
        return
      }
      case 'session.autopilot_stopped': {
        const data = dataOf(event, type)
        if (!data) return
        this.stopReason = this.clean(clip(data.reason ?? 'unknown', 100))
        this.note(`autopilot stopped: ${this.stopReason}`)
        return
      }
      case 'session.error': {
        const data = dataOf(event, type)
        if (!data) return
        const message = data.message ?? 'unknown error'
        const status = data.statusCode === undefined ? '' : ` (HTTP ${data.statusCode})`
        this.lastError = {
          message: this.clean(truncate(`${message}${status}`, REPORT_LIMITS.errorChars)),
          ...(data.errorType ? { type: this.clean(clip(data.errorType, 100)) } : {})
        }
        this.note(`error${data.errorType ? ` (${data.errorType})` : ''}: ${message}`)
        return
      }
      case 'session.mode_changed': {
        const data = dataOf(event, type)
        if (data?.newMode) this.note(`mode: ${data.previousMode ?? '?'} → ${data.newMode}`)
        return
      }
      case 'session.shutdown':
        return this.applyMetrics(event.data, Source.Shutdown)
      case 'sandbox.decision':
        return this.onSandboxDecision(event)
      case 'exit_plan_mode.requested': {
        const data = dataOf(event, type)
        if (!data) return
        if (typeof data.planContent === 'string' && (this.plan === null || this.planFromEvent)) {
          this.plan = this.clean(truncate(data.planContent, REPORT_LIMITS.planChars))
          this.planFromEvent = true
        }
        this.note(`plan ready${data.summary ? `: ${data.summary}` : ''}`)
        return
      }
      default:
        return
    }
  }

  private onUsage(event: SessionEvent): void {
    const data = dataOf(event, 'assistant.usage')
    if (!data) return
    const raw = event.data as { cost?: unknown; duration?: unknown }
    if (typeof raw.cost === 'number' && Number.isFinite(raw.cost)) this.eventPremium += raw.cost
    if (typeof raw.duration === 'number' && Number.isFinite(raw.duration)) {
      this.eventApiMs += raw.duration
    }
    const name = data.model ?? this.model ?? 'unknown'
    let usage = this.eventModels.get(name)
    if (!usage) {
      if (this.eventModels.size >= REPORT_LIMITS.toolNames) return
      usage = zeroUsage()
      this.eventModels.set(name, usage)
    }
    usage.requests++
    usage.inputTokens += data.inputTokens
    usage.outputTokens += data.outputTokens
    usage.cacheReadTokens += data.cacheReadTokens
    usage.cacheWriteTokens += data.cacheWriteTokens
    if (this.model === null && data.model) this.model = this.clean(clip(data.model, 100))
  }

  private onAssistantMessage(event: SessionEvent): void {
    const data = dataOf(event, 'assistant.message')
    if (!data) return
    if (data.toolRequests) {
      if (this.requestedNames.size > REPORT_LIMITS.pendingTools) this.requestedNames.clear()
      for (const request of data.toolRequests) {
        this.requestedNames.set(request.toolCallId, request.name)
      }
    }
    const content = data.content?.trim()
    if (content) this.note(`said: ${content}`)
  }

  private onToolStart(event: SessionEvent, now: number | undefined): void {
    const data = dataOf(event, 'tool.execution_start')
    if (!data) return
    const id = data.toolCallId
    if (this.pending.has(id)) return // a repeated start: keep the first
    this.requestedNames.delete(id)
    const name = this.toolName(data.toolName)
    const command = commandOf(data.arguments)
    const record: ToolCallRecord = {
      toolCallId: this.clean(clip(id, 200)),
      name,
      success: null,
      durationMs: null,
      ...(command === undefined ? {} : { detail: this.detail(command) })
    }
    this.pending.set(id, { record, startMs: this.timeOf(event, now) })
    if (this.pending.size > REPORT_LIMITS.pendingTools) {
      // Give up on the oldest never-completed call (its record stays, success null).
      const oldest = this.pending.keys().next()
      if (!oldest.done) this.pending.delete(oldest.value)
    }
    this.stats(name).calls++
    this.pushTool(record)
    const hint = command ?? hintOf(data.arguments)
    this.note(hint === undefined ? `ran ${data.toolName}` : `ran ${data.toolName}: ${hint}`)
  }

  private onToolComplete(event: SessionEvent, now: number | undefined): void {
    const data = dataOf(event, 'tool.execution_complete')
    if (!data) return
    const id = data.toolCallId
    const pending = this.pending.get(id)
    let record: ToolCallRecord
    const subject = this.decidedSubjects.get(id)
    this.decidedSubjects.delete(id)
    if (pending) {
      this.pending.delete(id)
      record = pending.record
      const endMs = this.timeOf(event, now)
      if (Number.isFinite(endMs) && Number.isFinite(pending.startMs)) {
        record.durationMs = Math.max(0, endMs - pending.startMs)
      }
    } else {
      // Completed without a start we saw (denied before it started, or a dropped event).
      const name = this.toolName(this.requestedNames.get(id) ?? 'unknown')
      this.requestedNames.delete(id)
      record = {
        toolCallId: this.clean(clip(id, 200)),
        name,
        success: null,
        durationMs: null,
        ...(subject === undefined ? {} : { detail: subject })
      }
      this.stats(name).calls++
      this.pushTool(record)
    }
    record.success = data.success
    const stats = this.stats(record.name)
    if (record.durationMs !== null) stats.durationMs += record.durationMs
    if (data.success) {
      stats.succeeded++
      return
    }
    stats.failed++
    const message = data.error?.message ?? 'failed'
    const error = data.error?.code ? `${data.error.code}: ${message}` : message
    record.error = this.detail(error)
    if (record.detail === undefined) record.detail = record.error
    this.note(`${record.name} failed: ${error}`)
  }

  // -------------------------------------------------------------------------------------------
  // What the driver tells us

  /** The policy in force, once it is loaded (the builder exists before, so early failures report too). */
  /** The sandbox as planned before the session; `sandbox.decision` events refine it. */
  setSandbox(sandbox: SandboxRecord): void {
    this.sandbox = {
      state: sandbox.state,
      ...(sandbox.backend === undefined ? {} : { backend: this.clean(clip(sandbox.backend, 100)) }),
      ...(sandbox.reason === undefined ? {} : { reason: this.clean(clip(sandbox.reason, 500)) })
    }
  }

  /** An enforced sandbox the CLI says did not engage is unavailable; the first failure stays. */
  private onSandboxDecision(event: SessionEvent): void {
    const evidence = sandboxEvidence(event)
    if (evidence === undefined || this.sandbox?.state !== 'enforced') return
    if (evidence.engaged) {
      this.sandbox = { ...this.sandbox, backend: this.clean(clip(evidence.backend, 100)) }
    } else {
      this.setSandbox({ state: 'unavailable', reason: evidence.reason })
      this.note(`sandbox: ${evidence.reason}`)
    }
  }

  setPolicy(policy: { source: string; builtIn: boolean }): void {
    this.policy = { source: this.clean(policy.source), builtIn: policy.builtIn }
  }

  /** Record the policy's decision: the authoritative permission record. */
  onDecision(requestId: string, request: PermissionRequest, decision: Decision): void {
    const kind = this.clean(clip(decision.kind || request.kind || 'unknown', 100))
    const record: PermissionRecord = {
      requestId: this.clean(clip(requestId, 200)),
      toolCallId:
        request.toolCallId === undefined ? null : this.clean(clip(request.toolCallId, 200)),
      kind,
      subject: this.detail(decision.subject),
      decision: decision.decision,
      rule: this.clean(clip(decision.rule, 200)),
      ...(decision.reason === undefined ? {} : { reason: this.clean(clip(decision.reason, 500)) }),
      request: redactDeep(request, this.secrets, {
        maxString: REPORT_LIMITS.requestString,
        maxArray: REPORT_LIMITS.requestArray,
        maxDepth: 8
      })
    }
    let counts = this.permissionCounts.get(kind)
    if (!counts) {
      counts = { allow: 0, deny: 0 }
      this.permissionCounts.set(kind, counts)
    }
    counts[decision.decision]++
    if (request.toolCallId !== undefined && !this.pending.has(request.toolCallId)) {
      if (this.decidedSubjects.size >= REPORT_LIMITS.pendingTools) this.decidedSubjects.clear()
      this.decidedSubjects.set(request.toolCallId, record.subject)
    }
    this.permissions.push(record)
    if (this.permissions.length >= 2 * REPORT_LIMITS.permissionRecords) this.compactPermissions()
    if (decision.decision === 'deny') {
      this.note(`denied ${kind}: ${decision.subject} (rule ${decision.rule})`)
    }
  }

  /** Record a setup / verify command the action ran itself. */
  onCommand(record: CommandRecord): void {
    if (this.commands.length >= REPORT_LIMITS.commands) return
    this.commands.push({
      phase: record.phase,
      command: this.clean(truncate(record.command, 2000)),
      exitCode: record.exitCode,
      timedOut: record.timedOut,
      durationMs: record.durationMs,
      outputTail: this.clean(
        truncate(record.outputTail, REPORT_LIMITS.commandOutput, { keep: 'tail' })
      )
    })
  }

  /** The plan (plan.md) as read at the end of the run; null when there is none. */
  setPlan(content: string | null): void {
    if (content === null) {
      // Keep a plan we saw in exit_plan_mode.requested rather than forgetting it.
      if (!this.planFromEvent) this.plan = null
      return
    }
    this.plan = this.clean(truncate(content, REPORT_LIMITS.planChars))
    this.planFromEvent = false
  }

  setTodos(
    todos: readonly { id: string | number; title?: string | null; status?: string | null }[]
  ): void {
    this.todos = todos.slice(0, REPORT_LIMITS.todos).map((todo) => ({
      id: this.clean(clip(String(todo.id), 100)),
      title: this.clean(clip(todo.title ?? '', 500)),
      status: this.clean(clip(todo.status ?? 'pending', 50))
    }))
  }

  setSessionId(sessionId: string): void {
    this.sessionId = this.clean(clip(sessionId, 200))
  }

  setCliVersion(version: string): void {
    this.cliVersion = this.clean(clip(version, 100))
  }

  /** `session.usage.getMetrics`: used where no `session.shutdown` event gave the figures. */
  setMetrics(metrics: UsageMetrics): void {
    this.applyMetrics(metrics, Source.GetMetrics)
  }

  // -------------------------------------------------------------------------------------------
  // The report

  /** The report as of now. The builder stays usable (a later call gives a later report). */
  finish(options: FinishOptions): Report {
    const startMs = Date.parse(this.startedAt)
    const endMs = Date.parse(options.endedAt)
    const durationMs =
      Number.isFinite(startMs) && Number.isFinite(endMs) ? Math.max(0, endMs - startMs) : null
    const summary =
      options.summary != null
        ? this.clean(clip(options.summary, REPORT_LIMITS.summaryChars))
        : this.summary
    const error = options.error
      ? {
          message: this.clean(truncate(options.error.message, REPORT_LIMITS.errorChars)),
          ...(options.error.type === undefined ? {} : { type: this.clean(options.error.type) })
        }
      : options.status === 'completed'
        ? undefined
        : this.lastError

    const report: Report = {
      version: 1,
      status: options.status,
      sessionId: this.sessionId,
      summary,
      cliVersion: this.cliVersion,
      model: this.model,
      startedAt: this.startedAt,
      endedAt: options.endedAt,
      durationMs,
      ...(error ? { error: { ...error } } : {}),
      ...(this.stopReason === undefined ? {} : { stopReason: this.stopReason }),
      policy: { ...this.policy },
      ...(this.sandbox === undefined ? {} : { sandbox: { ...this.sandbox } }),
      ...(this.workingDirectory === undefined ? {} : { workingDirectory: this.workingDirectory }),
      plan: { content: this.plan, todos: this.todos.map((todo) => ({ ...todo })) },
      tools: this.tools.map((record) => ({ ...record })),
      toolStats: Object.fromEntries([...this.toolStats].map(([name, s]) => [name, { ...s }])),
      ...(this.toolsOmitted > 0 ? { toolsOmitted: this.toolsOmitted } : {}),
      permissions: this.permissions.map((record) => ({ ...record })),
      permissionCounts: Object.fromEntries(
        [...this.permissionCounts].map(([kind, c]) => [kind, { ...c }])
      ),
      ...(this.permissionsOmitted > 0 ? { permissionsOmitted: this.permissionsOmitted } : {}),
      commands: this.commands.map((record) => ({ ...record })),
      metrics: this.metrics(),
      lastActivity: [...this.activity]
    }
    return report
  }

  private metrics(): Metrics {
    const models =
      this.models?.value ??
      Object.fromEntries([...this.eventModels].map(([name, usage]) => [name, { ...usage }]))
    return {
      premiumRequests: this.premium?.value ?? this.eventPremium,
      apiDurationMs: this.apiMs?.value ?? this.eventApiMs,
      linesAdded: this.code?.value.linesAdded ?? 0,
      linesRemoved: this.code?.value.linesRemoved ?? 0,
      filesModified: [...(this.code?.value.files ?? [])],
      models: Object.fromEntries(Object.entries(models).map(([name, u]) => [name, { ...u }]))
    }
  }

  // -------------------------------------------------------------------------------------------
  // Helpers

  /**
   * Figures from `session.shutdown` or `session.usage.getMetrics`. They come flat or nested
   * under `accountingSnapshot` (1.0.102 nests them, with premium requests as
   * `totalPremiumRequestCost`); the snapshot wins field by field, the flat shape fills gaps.
   */
  private applyMetrics(data: unknown, source: Source): void {
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
    if (premium !== undefined && wins(this.premium)) this.premium = { value: premium, source }
    if (apiMs !== undefined && wins(this.apiMs)) this.apiMs = { value: apiMs, source }
    if (code !== undefined && wins(this.code)) {
      this.code = {
        value: {
          linesAdded: code.linesAdded,
          linesRemoved: code.linesRemoved,
          files: code.filesModified.map((file) => this.clean(clip(file, 1000)))
        },
        source
      }
    }
    if (modelMetrics !== undefined && wins(this.models)) {
      // A Map, then fromEntries: model names are untrusted (`__proto__` must stay a plain key).
      const models = new Map<string, ModelUsage>()
      for (const [name, metric] of Object.entries(modelMetrics)) {
        models.set(this.clean(clip(name, 100)), {
          requests: metric.requests?.count ?? 0,
          inputTokens: metric.usage?.inputTokens ?? 0,
          outputTokens: metric.usage?.outputTokens ?? 0,
          cacheReadTokens: metric.usage?.cacheReadTokens ?? 0,
          cacheWriteTokens: metric.usage?.cacheWriteTokens ?? 0
        })
      }
      this.models = { value: Object.fromEntries(models), source }
    }
    if (this.model === null && currentModel) this.model = this.clean(clip(currentModel, 100))
  }

  private clean(text: string): string {
    return redactNormalized(text, this.secrets)
  }

  private detail(text: string): string {
    return clip(this.clean(text.replace(/\s+/g, ' ').trim()), REPORT_LIMITS.detailChars)
  }

  private toolName(raw: string): string {
    const name = this.clean(clip(raw, 100))
    return this.toolStats.has(name) || this.toolStats.size < REPORT_LIMITS.toolNames
      ? name
      : '(other)'
  }

  private stats(name: string): ToolStats {
    let stats = this.toolStats.get(name)
    if (!stats) {
      stats = { calls: 0, succeeded: 0, failed: 0, durationMs: 0 }
      this.toolStats.set(name, stats)
    }
    return stats
  }

  private timeOf(event: SessionEvent, now: number | undefined): number {
    if (event.timestamp !== undefined) {
      const ms = Date.parse(event.timestamp)
      if (Number.isFinite(ms)) return ms
    }
    return now ?? this.clock()
  }

  /** One short line in the lastActivity ring. */
  private note(line: string): void {
    const text = clip(this.clean(line.replace(/\s+/g, ' ').trim()), REPORT_LIMITS.activityChars)
    this.activity.push(text)
    if (this.activity.length > REPORT_LIMITS.activityLines) this.activity.shift()
  }

  private pushTool(record: ToolCallRecord): void {
    this.tools.push(record)
    if (this.tools.length >= 2 * REPORT_LIMITS.toolRecords) this.compactTools()
  }

  /**
   * Keep `toolRecords` records: every in-flight call, then the most recent failures (up to
   * half), then the most recent others; order preserved. Amortized O(1) per call.
   */
  private compactTools(): void {
    const inFlight = new Set<ToolCallRecord>()
    for (const { record } of this.pending.values()) inFlight.add(record)
    const limit = REPORT_LIMITS.toolRecords
    const keep = keepRecent(this.tools, limit, (r) =>
      inFlight.has(r) ? 0 : r.success === false ? 1 : 2
    )
    this.toolsOmitted += this.tools.length - keep.length
    this.tools = keep
  }

  private compactPermissions(): void {
    const limit = REPORT_LIMITS.permissionRecords
    const keep = keepRecent(this.permissions, limit, (r) => (r.decision === 'deny' ? 1 : 2))
    this.permissionsOmitted += this.permissions.length - keep.length
    this.permissions = keep
  }
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

function zeroUsage(): ModelUsage {
  return { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
}

/** The shell command of a tool call (`bash`, `shell`, `powershell` ... take `command`). */
function commandOf(args: unknown): string | undefined {
  if (args === null || typeof args !== 'object') return undefined
  const command = (args as { command?: unknown }).command
  return typeof command === 'string' ? command : undefined
}

/** A short hint of what a non-shell tool call was about (a path, a URL, a pattern). */
function hintOf(args: unknown): string | undefined {
  if (args === null || typeof args !== 'object') return undefined
  const a = args as Record<string, unknown>
  for (const key of ['path', 'file_path', 'filePath', 'url', 'pattern', 'query', 'description']) {
    const value = a[key]
    if (typeof value === 'string' && value !== '') return clip(value, 120)
  }
  return undefined
}
