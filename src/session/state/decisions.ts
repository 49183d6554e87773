/**
 * The decisions slice: the policy's decisions on permission requests, their counts and the
 * approvals of asks.
 */
import type { ApprovalRecord, PermissionRecord } from '../../reporting/types.js'
import type { FinalDecision } from './inputs.js'
import type { PermissionRequest } from '../../cli/protocol.js'
import type { RunState } from './run-state.js'
import { REPORT_LIMITS, clean, detail, evictOldest, keepRecent, note } from './run-state.js'
import { clip, redactDeepNormalized } from '../../text/safe-text.js'
import { mcpServer } from './servers.js'
export function onDecision(
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

export function cleanApproval(state: RunState, approval: ApprovalRecord): ApprovalRecord {
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

export function compactPermissions(state: RunState): void {
  const limit = REPORT_LIMITS.permissionRecords
  const keep = keepRecent(state.permissions, limit, (r) => (r.decision === 'deny' ? 1 : 2))
  state.permissionsOmitted += state.permissions.length - keep.length
  state.permissions = keep
}
