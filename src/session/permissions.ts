/**
 * Answers the agent's permission requests from the policy: every request is decided once, the
 * decision goes into the run's state (with the rule that made it), and the answer to the CLI.
 * Deny by default: a policy that throws denies.
 */
import type { PermissionAnswer, PermissionRequest } from '../cli/protocol.js'
import type { SessionApi } from '../cli/session-api.js'
import { messageOf } from '../errors.js'
import { feedbackFor } from '../policy/index.js'
import type { Decision, Policy } from '../policy/types.js'
import { z } from 'zod'
import type { RunInput } from './fold.js'
import type { Logger } from './log.js'

export interface PermissionsOptions {
  api: SessionApi
  policy: Policy
  log: Logger
  record: (input: RunInput) => void
  /** Keeps the answer's promise until the run ends. */
  track: (work: Promise<unknown>) => void
}

export class Permissions {
  private readonly answered = new Set<string>()

  constructor(private readonly options: PermissionsOptions) {}

  /**
   * A request whose payload does not have the shape the policy reads: denied (deny by default),
   * when at least its id can be read; otherwise nothing can answer it, and the run's idle
   * timeout ends the wait.
   */
  refuseUnreadable(sessionId: string, data: unknown): void {
    const parsed = Unreadable.safeParse(data ?? {})
    if (!parsed.success) {
      this.options.log.warning(
        'A permission request without a request id could not be answered; the agent waits until the idle timeout.'
      )
      return
    }
    const { requestId } = parsed.data
    const kind = parsed.data.permissionRequest.kind
    this.answerWith(
      sessionId,
      requestId,
      { kind },
      {
        decision: 'deny',
        rule: 'invalid-request',
        reason: 'the permission request could not be read',
        kind,
        subject: kind
      }
    )
  }

  /** Decide and answer one request (a repeated request id is answered once). */
  answer(sessionId: string, requestId: string, request: PermissionRequest): void {
    this.answerWith(sessionId, requestId, request, decide(this.options.policy, request))
  }

  private answerWith(
    sessionId: string,
    requestId: string,
    request: PermissionRequest,
    decision: Decision
  ): void {
    if (this.answered.has(requestId)) return
    this.answered.add(requestId)
    this.options.record({ type: 'decision', requestId, request, decision })
    const verdict = decision.decision === 'allow' ? 'allowed' : 'DENIED'
    this.options.log.info(
      `Permission ${verdict} by rule "${decision.rule}": ${decision.kind} ${decision.subject}`
    )
    const answer: PermissionAnswer =
      decision.decision === 'allow'
        ? { kind: 'approve-once' }
        : { kind: 'reject', feedback: feedbackFor(decision) }
    this.options.track(
      this.options.api
        .answerPermission(sessionId, requestId, answer)
        .catch((error: unknown) =>
          this.options.log.warning(
            `Answering permission request ${requestId} failed: ${messageOf(error)}`
          )
        )
    )
  }
}

const Unreadable = z.looseObject({
  requestId: z.string(),
  permissionRequest: z.looseObject({ kind: z.string().catch('unknown') }).catch({ kind: 'unknown' })
})

/** The policy's decision; the policy engine failing is a bug, and must still never allow. */
export function decide(policy: Policy, request: PermissionRequest): Decision {
  try {
    return policy.decide(request)
  } catch (error) {
    return {
      decision: 'deny',
      rule: 'policy-error',
      reason: messageOf(error),
      kind: request.kind,
      subject: request.kind
    }
  }
}
