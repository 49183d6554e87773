/**
 * The tools slice: tool calls and sub-agents (`tools`, `toolStats`, `pending`,
 * `subagents`).
 */
import type { RunState } from './run-state.js'
import {
  INTERNAL_TOOLS,
  REPORT_LIMITS,
  TASK_COMPLETE_TOOL,
  clean,
  detail,
  evictOldest,
  keepRecent,
  note,
  timeOf
} from './run-state.js'
import { SANDBOX_RULE } from './sandbox-audit.js'
import type { SessionEvent } from '../../cli/protocol.js'
import { dataOf } from '../../cli/protocol.js'
import type { ToolCallRecord, ToolStats } from '../../reporting/types.js'
import { clip } from '../../text/safe-text.js'
import { mcpServer } from './servers.js'
import { onDecision } from './decisions.js'
export function onToolStart(state: RunState, event: SessionEvent, now: number | undefined): void {
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
  const startMs = timeOf(event, now)
  // kept while the call runs: a call that never finishes shows how long it ran
  if (Number.isFinite(startMs)) record.startedAt = new Date(startMs).toISOString()
  state.pending.set(id, { record, rawName: data.toolName, startMs })
  if (state.pending.size > REPORT_LIMITS.pendingTools) {
    // Give up on the oldest never-completed call (its record stays, unfinished).
    const oldest = state.pending.keys().next()
    if (!oldest.done) state.pending.delete(oldest.value)
  }
  stats(state, name).calls++
  countSubagentCall(state, parent)
  if (data.mcpServerName !== undefined) {
    const server = mcpServer(state, data.mcpServerName)
    if (server) server.calls++
  }
  pushTool(state, record)
  note(state, target === undefined ? `ran ${data.toolName}` : `ran ${data.toolName}: ${target}`)
}

export function onToolComplete(
  state: RunState,
  event: SessionEvent,
  now: number | undefined
): void {
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
    delete record.startedAt
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
    countSubagentCall(state, parent)
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

/** A call a subagent made counts for it (its `task` call's subagent). */
function countSubagentCall(state: RunState, parent: string | undefined): void {
  const subagent = parent === undefined ? undefined : state.subagents.get(parent)
  if (subagent !== undefined) subagent.calls = (subagent.calls ?? 0) + 1
}

export function onSubagent(state: RunState, event: SessionEvent): void {
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
      outcome: 'running',
      calls: 0
    }
    state.subagents.set(id, record)
  }
  if (event.type === 'subagent.completed') record.outcome = 'completed'
  if (event.type === 'subagent.failed') {
    record.outcome = 'failed'
    if (info.error) record.error = detail(state, info.error)
  }
}

export function toolName(state: RunState, raw: string): string {
  const name = clip(clean(state, raw), 100)
  return state.toolStats.has(name) || state.toolStats.size < REPORT_LIMITS.toolNames
    ? name
    : '(other)'
}

export function stats(state: RunState, name: string): ToolStats {
  let s = state.toolStats.get(name)
  if (!s) {
    s = { calls: 0, succeeded: 0, failed: 0, denied: 0, durationMs: 0 }
    state.toolStats.set(name, s)
  }
  return s
}

export function pushTool(state: RunState, record: ToolCallRecord): void {
  state.tools.push(record)
  if (state.tools.length >= 2 * REPORT_LIMITS.toolRecords) compactTools(state)
}

/**
 * Keep `toolRecords` records: every in-flight call, then the most recent failures and denials
 * (up to half), then the most recent others; order preserved. Amortized O(1) per call.
 */
export function compactTools(state: RunState): void {
  const inFlight = new Set<ToolCallRecord>()
  for (const { record } of state.pending.values()) inFlight.add(record)
  const limit = REPORT_LIMITS.toolRecords
  const keep = keepRecent(state.tools, limit, (r) =>
    inFlight.has(r) ? 0 : r.outcome === 'failed' || r.outcome === 'denied' ? 1 : 2
  )
  state.toolsOmitted += state.tools.length - keep.length
  state.tools = keep
}

/** The first sentence (or line) of a text, for a one-line reason. */
export function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? ''
  const end = line.search(/[.!?](\s|$)/)
  return end < 0 ? line : line.slice(0, end + 1)
}

/** What a tool call is about: the shell command, else a path, a URL, a pattern, a description. */
export function targetOf(args: unknown): string | undefined {
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
