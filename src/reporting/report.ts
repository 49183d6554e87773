/**
 * The final state of a run, as the public `Report` (types.ts). The state is the fold's
 * (session/fold.ts): this module reads no event itself, it only lays the state out, settling the
 * status once with `settle`.
 */
import { REPORT_LIMITS, nanoAiuUsed, settle, type RunState, type Settled } from '../session/fold.js'
import { clip, redactNormalized, truncate } from '../text/safe-text.js'
import type { AiCreditsRecord, Metrics, ModelUsage, Report } from './types.js'

export interface ReportOptions {
  /** ISO time the run ended. */
  endedAt: string
  /** The status, when already settled (the default settles it from the state). */
  settled?: Settled
}

/** The report of the run as of now (a later call, after more inputs, gives a later report). */
export function toReport(state: RunState, options: ReportOptions): Report {
  const settled = options.settled ?? settle(state)
  const startMs = Date.parse(state.startedAt)
  const endMs = Date.parse(options.endedAt)
  const durationMs =
    Number.isFinite(startMs) && Number.isFinite(endMs) ? Math.max(0, endMs - startMs) : null
  const clean = (text: string): string => redactNormalized(text, state.secrets)
  const error = settled.error
    ? {
        message: clean(truncate(settled.error.message, REPORT_LIMITS.errorChars)),
        ...(settled.error.type === undefined ? {} : { type: clean(clip(settled.error.type, 100)) })
      }
    : undefined
  const subagents = [...state.subagents.values()].map((record) => ({ ...record }))
  return {
    version: 1,
    status: settled.status,
    sessionId: state.sessionId,
    summary: state.summary,
    cliVersion: state.cliVersion,
    model: state.model,
    startedAt: state.startedAt,
    endedAt: options.endedAt,
    durationMs,
    ...(error ? { error } : {}),
    ...(state.completion === undefined ? {} : { completion: { ...state.completion } }),
    ...(state.stopReason === undefined ? {} : { stopReason: state.stopReason }),
    policy: {
      source: state.policy.source,
      builtIn: state.policy.builtIn,
      ...(state.policy.issues ? { issues: state.policy.issues.map((i) => ({ ...i })) } : {})
    },
    ...(state.sandbox === undefined ? {} : { sandbox: { ...state.sandbox } }),
    ...(state.audit === undefined ? {} : { audit: structuredClone(state.audit) }),
    ...(state.credentials === undefined
      ? {}
      : { credentials: { ...state.credentials, removed: [...state.credentials.removed] } }),
    ...(state.instructionFiles === undefined
      ? {}
      : {
          instructionFiles: {
            ...state.instructionFiles,
            kept: state.instructionFiles.kept.map((file) => ({ ...file }))
          }
        }),
    ...(state.environment === undefined
      ? {}
      : {
          environment: {
            ...state.environment,
            dropped: state.environment.dropped.map((variable) => ({ ...variable }))
          }
        }),
    ...(state.killedProcesses.length === 0
      ? {}
      : { killedProcesses: state.killedProcesses.map((killed) => ({ ...killed })) }),
    ...(state.workingDirectory === undefined ? {} : { workingDirectory: state.workingDirectory }),
    plan: { content: state.plan, todos: state.todos.map((todo) => ({ ...todo })) },
    tools: state.tools.map((record) => ({ ...record })),
    toolStats: Object.fromEntries([...state.toolStats].map(([name, s]) => [name, { ...s }])),
    ...(state.toolsOmitted > 0 ? { toolsOmitted: state.toolsOmitted } : {}),
    ...(subagents.length > 0 ? { subagents } : {}),
    ...(state.mcpServers.size > 0
      ? { mcpServers: [...state.mcpServers.values()].map((server) => ({ ...server })) }
      : {}),
    ...(state.agent === undefined ? {} : { agent: { ...state.agent } }),
    ...(state.repairs.length > 0
      ? { repairs: state.repairs.map((r) => ({ attempt: r.attempt, failed: [...r.failed] })) }
      : {}),
    ...(state.internalCalls > 0 ? { internalCalls: state.internalCalls } : {}),
    permissions: state.permissions.map((record) => ({ ...record })),
    permissionCounts: Object.fromEntries(
      [...state.permissionCounts].map(([kind, c]) => [kind, { ...c }])
    ),
    ...(state.permissionsOmitted > 0 ? { permissionsOmitted: state.permissionsOmitted } : {}),
    ...(state.quota === undefined ? {} : { quota: { ...state.quota } }),
    commands: state.commands.map((record) => ({ ...record })),
    metrics: metrics(state),
    lastActivity: [...state.activity]
  }
}

function metrics(state: RunState): Metrics {
  const models =
    state.models?.value ??
    Object.fromEntries([...state.eventModels].map(([name, usage]) => [name, { ...usage }]))
  return {
    aiCredits: aiCredits(state),
    premiumRequests: state.premium?.value ?? state.eventPremium,
    apiDurationMs: state.apiMs?.value ?? state.eventApiMs,
    linesAdded: state.code?.value.linesAdded ?? 0,
    linesRemoved: state.code?.value.linesRemoved ?? 0,
    filesModified: (state.code?.value.files ?? []).filter((file) => !sessionOwn(state, file)),
    models: Object.fromEntries(
      Object.entries(models).map(([name, u]): [string, ModelUsage] => [name, { ...u }])
    )
  }
}

/** The run's AI credits: the CLI's session totals when it gave them, else the per-call events'. */
function aiCredits(state: RunState): AiCreditsRecord {
  const calls = state.eventCredits
  const fromEvents: AiCreditsRecord['status'] =
    calls.priced + calls.unpriced === 0
      ? 'not-reported'
      : calls.unpriced === 0
        ? 'complete'
        : calls.priced === 0
          ? 'unavailable'
          : 'partial'
  return {
    nanoAiu: nanoAiuUsed(state),
    status: state.creditsStatus?.value ?? fromEvents,
    byok: state.options.byok === true || calls.byok
  }
}

/**
 * The session's own files (its plan.md, under the CLI's `session-state/<id>/`) are not the
 * repository's: the CLI counts them among the files it modified.
 */
function sessionOwn(state: RunState, file: string): boolean {
  if (state.planPath !== null && file === state.planPath) return true
  const id = state.sessionId
  return id !== null && file.replace(/\\/g, '/').includes(`/session-state/${id}/`)
}
