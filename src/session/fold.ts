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
 *
 * This module is the dispatcher: each input goes to the slice of state/ that owns its part of
 * the state (tools, decisions, metrics, servers, sandbox-audit, verify); state/run-state.ts
 * holds the state and its bounds, state/settle.ts decides the status, state/inputs.ts the types.
 */
import type { RunState } from './state/run-state.js'
import { MetricSource, REPORT_LIMITS, clean, detail, evictOldest, note } from './state/run-state.js'
import type { RunInput } from './state/inputs.js'
import type { SessionEvent } from '../cli/protocol.js'
import { dataOf } from '../cli/protocol.js'
import { applyMetrics, onCreditLimit, onUsage, onUsageRecord } from './state/metrics.js'
import { clip, truncate } from '../text/safe-text.js'
import { firstSentence, onSubagent, onToolComplete, onToolStart } from './state/tools.js'
import { mcpServer } from './state/servers.js'
import { onAudit, onSandboxDecision, setSandbox } from './state/sandbox-audit.js'
import { onCommand } from './state/verify.js'
import { onDecision } from './state/decisions.js'

// What the rest of the action reads of the state, from the slices in state/.
export { SANDBOX_RULE } from './state/sandbox-audit.js'
export {
  REPORT_LIMITS,
  INTERNAL_TOOLS,
  type StateOptions,
  MetricSource,
  type RunState,
  createState,
  zeroUsage
} from './state/run-state.js'
export { nanoAiuUsed } from './state/metrics.js'
export { type Ending, type RunInput, type FinalDecision, type Phase } from './state/inputs.js'
export {
  stopReason,
  tokensUsed,
  completed,
  verifyResult,
  type Settled,
  settle
} from './state/settle.js'

/** Whether what was set aside was put back after the session (its error redacted and clipped). */
function putBack(
  state: RunState,
  record: { restored: boolean; error?: string }
): { restored: boolean; error?: string } {
  return {
    restored: record.restored,
    ...(record.error === undefined ? {} : { error: clip(clean(state, record.error), 1000) })
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
        ...putBack(state, input.record)
      }
      break
    case 'instruction-files':
      state.instructionFiles = {
        kept: input.record.kept.slice(0, REPORT_LIMITS.credentials).map((file) => ({
          path: clip(clean(state, file.path), 500),
          reason: clip(clean(state, file.reason), 500)
        })),
        ...putBack(state, input.record)
      }
      break
    case 'environment':
      state.environment = {
        dropped: input.record.dropped.slice(0, REPORT_LIMITS.credentials).map((variable) => ({
          name: clip(clean(state, variable.name), 200),
          reason: clip(clean(state, variable.reason), 100)
        })),
        notListed: input.record.notListed
      }
      break
    case 'killed':
      for (const killed of input.processes) {
        if (state.killedProcesses.length >= REPORT_LIMITS.killedProcesses) break
        state.killedProcesses.push({
          pid: killed.pid,
          command: clip(clean(state, killed.command), 500),
          step: killed.step,
          when: killed.when,
          ...(killed.inWall === true ? { inWall: true } : {})
        })
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
    case 'quota':
      state.quota = {
        ...input.quota,
        ...(input.quota.resetDate === undefined
          ? {}
          : { resetDate: clip(clean(state, input.quota.resetDate), 40) })
      }
      break
    case 'ended':
      // The first ending is the one that happened; later ones are consequences of it.
      state.ending ??= input.ending
      break
  }
  return state
}

function onEvent(state: RunState, event: SessionEvent, receivedAt: number | undefined): void {
  const type = event.type
  // Deltas are most of the stream: reject them before anything else.
  if (type.endsWith('_delta')) return
  switch (type) {
    case 'assistant.usage':
      return onUsage(state, event)
    case 'session.usage_record':
      return onUsageRecord(state, event)
    case 'session_limits_exhausted.requested':
      return onCreditLimit(state, event)
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
