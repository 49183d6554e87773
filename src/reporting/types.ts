/**
 * The run report (JSON, `version: 1`). This is a public contract: the action writes it to
 * `report-path`, the comment and job summary are rendered from it, and `replay` reads it back.
 */
import type { PermissionRequest } from '../cli/protocol.js'
import type { Verdict } from '../policy/types.js'

export type RunStatus = 'completed' | 'incomplete' | 'failed' | 'timed-out' | 'cancelled'

export interface ToolCallRecord {
  toolCallId: string
  name: string
  success: boolean | null // null while still running / never completed
  durationMs: number | null
  /** Short, redacted detail for notable calls: the shell command, the error message. */
  detail?: string
  /** Why a failed call failed (`denied: ...`, `failure: ...`), short and redacted. */
  error?: string
}

/** Aggregate figures for one tool name, over every call (also those not kept in `tools`). */
export interface ToolStats {
  calls: number
  succeeded: number
  failed: number
  durationMs: number
}

export interface PermissionRecord {
  requestId: string
  toolCallId: string | null
  kind: string
  subject: string
  decision: Verdict
  rule: string
  reason?: string
  /** The CLI's permission request as received, secrets redacted. */
  request: PermissionRequest
}

export interface CommandRecord {
  phase: 'setup' | 'verify'
  command: string
  exitCode: number | null
  timedOut: boolean
  durationMs: number
  outputTail: string
}

export interface ModelUsage {
  requests: number
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
}

export interface Metrics {
  premiumRequests: number
  apiDurationMs: number
  linesAdded: number
  linesRemoved: number
  filesModified: string[]
  models: Record<string, ModelUsage>
}

export interface TodoRecord {
  id: string
  title: string
  status: string
}

/**
 * Whether the agent's shell commands ran in the OS sandbox: `enforced` (with the backend that
 * engaged, e.g. `bubblewrap`), `unavailable` (the policy allowed running without it, or it
 * failed at run time: `reason` says why) or `off` (the policy turned it off).
 */
export interface SandboxRecord {
  state: 'enforced' | 'unavailable' | 'off'
  backend?: string
  reason?: string
}

export interface Report {
  version: 1
  status: RunStatus
  sessionId: string | null
  summary: string | null
  cliVersion: string | null
  model: string | null
  startedAt: string
  endedAt: string | null
  durationMs: number | null
  error?: { message: string; type?: string }
  policy: { source: string; builtIn: boolean }
  /** The OS sandbox around the agent's shell commands (absent in reports of older versions). */
  sandbox?: SandboxRecord
  plan: { content: string | null; todos: TodoRecord[] }
  tools: ToolCallRecord[]
  permissions: PermissionRecord[]
  commands: CommandRecord[]
  metrics: Metrics
  /** The last things the agent did, for failure details (assistant text, tool starts). */
  lastActivity: string[]
  /** Why autopilot stopped, as the CLI said (`task_complete`, `cap_reached`, `error`). */
  stopReason?: string
  /** The agent's working directory, to show modified files relative to it. */
  workingDirectory?: string
  /** Per tool name, over every call. `tools` may keep only a bounded subset of the calls. */
  toolStats?: Record<string, ToolStats>
  /** How many tool call records were dropped from `tools` to bound memory (failures are kept). */
  toolsOmitted?: number
  /** Allowed / denied counts per permission kind, over every decision. */
  permissionCounts?: Record<string, { allow: number; deny: number }>
  /** How many permission records were dropped from `permissions` (denials are kept first). */
  permissionsOmitted?: number
}
