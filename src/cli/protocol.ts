/**
 * The Copilot CLI's headless JSON-RPC protocol, as zod schemas.
 *
 * Everything the CLI sends is parsed here, at the boundary, before any other module sees it.
 * Schemas are loose (extra fields pass through and are ignored) and the event union is open:
 * an event type we do not know is kept as a plain `SessionEvent` with `data: unknown`.
 */
import { z } from 'zod'

/** The protocol version this action speaks (returned by `connect` and `ping`). */
export const SUPPORTED_PROTOCOL_VERSION = 3

// ---------------------------------------------------------------------------------------------
// Requests we send and their results

export const ConnectResult = z.looseObject({
  ok: z.boolean().optional(),
  protocolVersion: z.number(),
  version: z.string().optional()
})
export type ConnectResult = z.infer<typeof ConnectResult>

export const CreateSessionResult = z.looseObject({
  sessionId: z.string().min(1),
  workspacePath: z.string().optional(),
  mode: z.string().optional()
})
export type CreateSessionResult = z.infer<typeof CreateSessionResult>

export const SendResult = z.looseObject({ messageId: z.string().optional() })

export const PlanReadResult = z.looseObject({
  exists: z.boolean(),
  content: z.string().nullable().optional(),
  path: z.string().nullable().optional()
})
export type PlanReadResult = z.infer<typeof PlanReadResult>

export const TodoStatus = z.string() // pending | in_progress | done | blocked, but tolerate others
export const Todo = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  title: z.string().default(''),
  description: z.string().nullable().optional(),
  status: TodoStatus.default('pending')
})
export type Todo = z.infer<typeof Todo>
export const ReadTodosResult = z.looseObject({ rows: z.array(Todo).default([]) })

export const ShellExecResult = z.looseObject({ processId: z.union([z.string(), z.number()]) })

// ---------------------------------------------------------------------------------------------
// Usage / shutdown metrics (session.usage.getMetrics result and session.shutdown event data)

const num = z.number().catch(0).default(0)

/**
 * Whether the CLI's AI-credit figure covers every model call (CLI 1.0.102 schema `AiCreditsStatus`):
 * `complete`, `partial` (a subtotal), `unavailable` (no call reported an amount: BYOK; a zero
 * then is no zero-cost claim). Anything else is dropped.
 */
export const AiCreditsStatus = z.enum(['complete', 'partial', 'unavailable'])
export type AiCreditsStatus = z.infer<typeof AiCreditsStatus>
const creditsStatus = AiCreditsStatus.optional().catch(undefined)
/** A nano-AIU amount (billionths of an AI credit), when it is a usable number. */
const nanoAiu = z.number().nonnegative().optional().catch(undefined)

export const ModelMetric = z.looseObject({
  requests: z.looseObject({ count: num, cost: num }).catch({ count: 0, cost: 0 }).optional(),
  usage: z
    .looseObject({
      inputTokens: num,
      outputTokens: num,
      cacheReadTokens: num,
      cacheWriteTokens: num
    })
    .optional(),
  totalNanoAiu: nanoAiu
})
export type ModelMetric = z.infer<typeof ModelMetric>

export const CodeChanges = z.looseObject({
  linesAdded: num,
  linesRemoved: num,
  filesModified: z.array(z.string()).catch([]).default([])
})

export const UsageMetrics = z.looseObject({
  totalPremiumRequests: z.number().optional(),
  totalPremiumRequestCost: z.number().optional(),
  /** AI credits used, in nano-AIU (1 AI credit = 1e9 nano-AIU, see reporting/figures.ts). */
  totalNanoAiu: nanoAiu,
  aiCreditsStatus: creditsStatus,
  totalApiDurationMs: z.number().optional(),
  codeChanges: CodeChanges.optional(),
  modelMetrics: z.record(z.string(), ModelMetric).catch({}).optional(),
  currentModel: z.string().optional()
})
export type UsageMetrics = z.infer<typeof UsageMetrics>

export const ShutdownData = UsageMetrics.extend({
  shutdownType: z.string().optional(),
  /** Newer CLI builds nest the same figures here. */
  accountingSnapshot: UsageMetrics.optional()
})
export type ShutdownData = z.infer<typeof ShutdownData>

// ---------------------------------------------------------------------------------------------
// Permission requests (protocol v3)

const str = z.string()
export const ShellSegment = z.looseObject({
  identifier: str.nullable().optional(),
  fullCommandText: str.nullable().optional()
})

/** A permission request as the CLI sends it. `kind` is open: unknown kinds are denied later. */
export const PermissionRequest = z.looseObject({
  kind: z.string(),
  toolCallId: z.string().optional(),
  // shell
  fullCommandText: z.string().optional(),
  commands: z.array(z.looseObject({ identifier: str.nullable().optional() })).optional(),
  commandSegments: z.array(ShellSegment).optional(),
  possiblePaths: z.array(z.string()).optional(),
  possibleUrls: z.array(z.union([z.string(), z.looseObject({ url: str })])).optional(),
  hasWriteFileRedirection: z.boolean().optional(),
  // write
  fileName: z.string().optional(),
  diff: z.string().optional(),
  newFileContents: z.string().optional(),
  // read
  path: z.string().optional(),
  // url
  url: z.string().optional(),
  // mcp / custom-tool
  serverName: z.string().optional(),
  toolName: z.string().optional(),
  args: z.unknown().optional(),
  readOnly: z.boolean().optional()
})
export type PermissionRequest = z.infer<typeof PermissionRequest>

/** What we answer to `session.permissions.handlePendingPermissionRequest`. */
export type PermissionAnswer = { kind: 'approve-once' } | { kind: 'reject'; feedback: string }

// ---------------------------------------------------------------------------------------------
// Session events

/** The envelope of every `session.event` notification. */
export const SessionEvent = z.looseObject({
  id: z.string().optional(),
  timestamp: z.string().optional(),
  parentId: z.string().nullable().optional(),
  ephemeral: z.boolean().optional(),
  type: z.string(),
  data: z.unknown().optional()
})
export type SessionEvent = z.infer<typeof SessionEvent>

export const SessionEventNotification = z.looseObject({
  sessionId: z.string().optional(),
  event: SessionEvent
})

const SubagentData = z.looseObject({
  toolCallId: z.string(),
  agentName: z.string().optional(),
  agentDisplayName: z.string().optional(),
  agentDescription: z.string().optional(),
  error: z.string().optional()
})

/** One model call's usage (`assistant.usage`, and `usage` of `session.usage_record`). */
const AssistantUsage = z.looseObject({
  model: z.string().optional(),
  inputTokens: num,
  outputTokens: num,
  cacheReadTokens: num,
  cacheWriteTokens: num,
  /** The call's AI credits, in nano-AIU (absent under BYOK). */
  copilotUsage: z.looseObject({ totalNanoAiu: nanoAiu }).nullable().optional().catch(undefined),
  aiCreditsStatus: creditsStatus,
  isByok: z.boolean().optional().catch(undefined)
})

/** Data schemas of the event types the action acts on; all other types pass as unknown. */
export const EventData = {
  'assistant.message': z.looseObject({
    content: z.string().nullable().optional(),
    toolRequests: z.array(z.looseObject({ toolCallId: z.string(), name: z.string() })).optional()
  }),
  'assistant.usage': AssistantUsage,
  /** The CLI's durable receipt of one model call (the same call as its `assistant.usage`). */
  'session.usage_record': z.looseObject({ usage: AssistantUsage }),
  /** The CLI's own `sessionLimits.maxAiCredits` was reached; it waits for an answer. */
  'session_limits_exhausted.requested': z.looseObject({
    requestId: z.string().optional(),
    usedAiCredits: z.number().optional().catch(undefined),
    maxAiCredits: z.number().optional().catch(undefined)
  }),
  'tool.execution_start': z.looseObject({
    toolCallId: z.string(),
    toolName: z.string().default('unknown'),
    arguments: z.unknown().optional(),
    /** Set on calls a subagent makes: the `task` call that started the subagent. */
    parentToolCallId: z.string().nullable().optional(),
    /** Set on a call to an MCP server's tool: the server, as configured. */
    mcpServerName: z.string().optional()
  }),
  'tool.execution_complete': z.looseObject({
    toolCallId: z.string(),
    parentToolCallId: z.string().nullable().optional(),
    success: z.boolean().default(false),
    result: z.looseObject({ content: z.string().nullable().optional() }).nullable().optional(),
    error: z
      .looseObject({ message: z.string().optional(), code: z.string().optional() })
      .nullable()
      .optional(),
    /** `properties.sandbox_denied: "true"`: the OS sandbox refused the CLI's own file tool. */
    toolTelemetry: z
      .looseObject({
        properties: z.looseObject({ sandbox_denied: z.string().optional() }).optional()
      })
      .nullable()
      .optional()
      .catch(undefined)
  }),
  'permission.requested': z.looseObject({
    requestId: z.string(),
    permissionRequest: PermissionRequest
  }),
  'permission.completed': z.looseObject({
    requestId: z.string(),
    result: z.looseObject({ kind: z.string() }).optional()
  }),
  'session.task_complete': z.looseObject({
    summary: z.string().nullable().optional(),
    /** False when validation failed or the completion was rejected or blocked. */
    success: z.boolean().optional(),
    outcome: z.string().optional(),
    reason: z.string().optional()
  }),
  'user.message': z.looseObject({
    content: z.string().nullable().optional(),
    transformedContent: z.string().nullable().optional()
  }),
  /** `subagent.started` / `.completed` / `.failed`: a subagent run by a `task` tool call. */
  'subagent.started': SubagentData,
  'subagent.completed': SubagentData,
  'subagent.failed': SubagentData,
  'assistant.intent': z.looseObject({ intent: z.string().optional() }),
  /** An MCP server's state: `pending`, `connected`, `failed` (with `error`), ... */
  'session.mcp_server_status_changed': z.looseObject({
    serverName: z.string(),
    status: z.string(),
    error: z.string().optional()
  }),
  'session.mcp_server_tools_loaded': z.looseObject({
    serverName: z.string(),
    toolCount: z.number().optional()
  }),
  /** Every MCP server once loading ended (CLI 1.0.102: also the failed ones, with `error`). */
  'session.mcp_servers_loaded': z.looseObject({
    servers: z.array(
      z.looseObject({ name: z.string(), status: z.string(), error: z.string().optional() })
    )
  }),
  /** The custom agent the session runs as was selected. */
  'subagent.selected': z.looseObject({ agentName: z.string().optional() }),
  'session.autopilot_stopped': z.looseObject({ reason: z.string().optional() }),
  'session.error': z.looseObject({
    errorType: z.string().optional(),
    message: z.string().optional(),
    statusCode: z.number().optional()
  }),
  'session.mode_changed': z.looseObject({
    previousMode: z.string().optional(),
    newMode: z.string().optional()
  }),
  'session.shutdown': ShutdownData,
  /**
   * What the OS sandbox did for a shell command (CLI 1.0.102: `policy_resolved`,
   * `spawn_completed`, `enforcement_state`, per tool call). Kinds and outcomes are open strings:
   * newer CLIs add more.
   */
  'sandbox.decision': z.looseObject({
    kind: z.string(),
    outcome: z.string().optional(),
    backend: z.string().optional(),
    toolCallId: z.string().nullable().optional(),
    degradationReason: z.string().nullable().optional(),
    attestation: z.string().nullable().optional()
  }),
  /** A call of a tool the action gave the session (`session.create {tools}`), once approved. */
  'external_tool.requested': z.looseObject({
    requestId: z.string().min(1),
    toolCallId: z.string().optional(),
    toolName: z.string(),
    arguments: z.unknown().optional()
  }),
  'exit_plan_mode.requested': z.looseObject({
    requestId: z.string(),
    summary: z.string().nullable().optional(),
    planContent: z.string().nullable().optional(),
    actions: z.array(z.string()).optional(),
    recommendedAction: z.string().nullable().optional()
  })
} as const

export type KnownEventType = keyof typeof EventData
export type EventDataOf<T extends KnownEventType> = z.infer<(typeof EventData)[T]>

/**
 * Parse the data of an event of a known type. Returns undefined when the type is not `type` or
 * the data does not have the shape we rely on (the event is then ignored, not fatal).
 */
export function dataOf<T extends KnownEventType>(
  event: SessionEvent,
  type: T
): EventDataOf<T> | undefined {
  if (event.type !== type) return undefined
  const parsed = EventData[type].safeParse(event.data ?? {})
  return parsed.success ? (parsed.data as EventDataOf<T>) : undefined
}

// ---------------------------------------------------------------------------------------------
// Top-level shell notification (present on some CLI versions only; output is read from files)

export const ShellExitNotification = z.looseObject({
  processId: z.union([z.string(), z.number()]).transform(String),
  exitCode: z.number().nullable().optional()
})

// ---------------------------------------------------------------------------------------------
// Fleet mode, the models and the quota (session.fleet.start, models.list, account.getQuota)

/** `session.fleet.start` → whether the CLI switched the session to fleet mode. */
export const FleetStartResult = z.looseObject({ started: z.boolean() })

/** One model of `models.list`: only what the action reads (the CLI sends much more). */
export const ModelInfo = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  /** `enabled`, `disabled`, `unconfigured`, ... (the organization's policy for the model). */
  policy: z.looseObject({ state: z.string().optional() }).optional().catch(undefined),
  billing: z.looseObject({ multiplier: z.number().optional() }).optional().catch(undefined)
})
export type ModelInfo = z.infer<typeof ModelInfo>
export const ModelsListResult = z.looseObject({ models: z.array(ModelInfo) })

/** One quota type of `account.getQuota` (`premium_interactions`, `chat`, ...). */
export const QuotaSnapshot = z.looseObject({
  isUnlimitedEntitlement: z.boolean().optional(),
  /** -1 for an unlimited entitlement. */
  entitlementRequests: z.number().optional(),
  usedRequests: z.number().optional(),
  remainingPercentage: z.number().optional(),
  overage: z.number().optional(),
  overageAllowedWithExhaustedQuota: z.boolean().optional(),
  resetDate: z.string().optional()
})
export type QuotaSnapshot = z.infer<typeof QuotaSnapshot>
/** Snapshots keyed by quota type; one the action cannot read is left out, not fatal. */
export const QuotaResult = z.looseObject({
  quotaSnapshots: z.record(z.string(), QuotaSnapshot.nullable().catch(null))
})
export type QuotaResult = z.infer<typeof QuotaResult>
