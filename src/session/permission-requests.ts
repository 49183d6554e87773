/**
 * Answers the agent's permission requests from the policy: every request is decided once, the
 * decision goes into the run's state (with the rule that made it), and the answer to the CLI.
 * Deny by default: a policy that throws denies. A request whose deciding rule is an ask rule
 * goes to a person (an `Asker`, the PR's maintainers); the CLI waits for the answer, and it is
 * denied unless someone with write access approves it in time.
 */
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { PermissionAnswer, PermissionRequest } from '../cli/protocol.js'
import type { SessionApi } from '../cli/session-api.js'
import { messageOf } from '../errors.js'
import { feedbackFor, type Decision, type Policy } from '../policy/index.js'
import type { ApprovalRecord } from '../reporting/types.js'
import type { FinalDecision as Final, RunInput } from './fold.js'
import type { Logger } from './log.js'

/** A question to a person about one request. */
export interface Question {
  /** Short id the answer may name (`/approve a1b2c3`). */
  id: string
  kind: string
  subject: string
  rule: string
  reason?: string
}

/** How a question ended. `timeout` and `unavailable` deny, like `denied`. */
export interface Answer {
  verdict: ApprovalRecord['verdict']
  askedAt: string
  at: string
  by?: string
  reason?: string
  url?: string
}

export interface Asker {
  ask(question: Question, signal: AbortSignal): Promise<Answer>
}

export interface PermissionsOptions {
  api: SessionApi
  policy: Policy
  log: Logger
  record: (input: RunInput) => void
  /** Keeps the answer's promise until the run ends. */
  track: (work: Promise<unknown>) => void
  /** Who answers `ask` rules; without one (nowhere to ask) an ask is denied. */
  asker?: Asker
  /** Why there is no asker, for the denial's reason. */
  noAskerReason?: string
  /** Ends the questions still open when the agent's turn (or the run) ends. */
  signal: () => AbortSignal
}

/** Questions one run may put to people; more are denied without asking (each one notifies). */
export const MAX_QUESTIONS = 10
/** A subject longer than this, or with a line longer than LINE, cannot be shown in full. */
const SHOWABLE_CHARS = 2000
const SHOWABLE_LINE = 300

/** Characters a reader does not see (controls but tab and newline, soft hyphen, zero-width, bidi). */
const INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/

/**
 * Why a request cannot be shown to a person as it is (so it cannot be asked about), or undefined.
 * What a maintainer approves must be what runs: no text hidden off-screen, past a cut, in
 * invisible or control characters, or in runs of blanks.
 */
export function unshowable(subject: string): string | undefined {
  if (subject.length > SHOWABLE_CHARS) return `it is ${subject.length} characters long`
  if (subject.split('\n').some((line) => line.length > SHOWABLE_LINE)) {
    return `a line of it is longer than ${SHOWABLE_LINE} characters`
  }
  if (INVISIBLE.test(subject)) {
    return 'it contains invisible or control characters'
  }
  if (/[ \t]{8,}/.test(subject)) return 'it contains a long run of blanks'
  return undefined
}

export class Permissions {
  private readonly answered = new Set<string>()
  private questions = 0
  /** Requests a person already refused (or nobody approved): not asked again. */
  private readonly refused = new Map<string, string>()

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
    if (!this.claim(requestId)) return
    this.send(
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
    if (!this.claim(requestId)) return
    const decision = decide(this.options.policy, request)
    if (decision.decision === 'ask') this.ask(sessionId, requestId, request, decision)
    else this.send(sessionId, requestId, request, { ...decision, decision: decision.decision })
  }

  private claim(requestId: string): boolean {
    if (this.answered.has(requestId)) return false
    this.answered.add(requestId)
    return true
  }

  /** Put the question to a person; answer the CLI when they did (or could not). */
  private ask(
    sessionId: string,
    requestId: string,
    request: PermissionRequest,
    decision: Decision
  ): void {
    const { asker, log, record } = this.options
    const question: Question = {
      id: randomBytes(3).toString('hex'),
      kind: decision.kind,
      subject: decision.subject,
      rule: decision.rule,
      ...(decision.reason === undefined ? {} : { reason: decision.reason })
    }
    const askedAt = new Date().toISOString()
    const key = `${decision.kind}\u0000${decision.subject}`
    const notAsked = (reason: string): void =>
      this.send(sessionId, requestId, request, deniedAsk(decision, reason), {
        id: question.id,
        verdict: 'unavailable',
        askedAt,
        answeredAt: askedAt,
        reason
      })
    const hidden = unshowable(decision.subject)
    if (hidden !== undefined) {
      notAsked(`it cannot be shown to a person in full (${hidden})`)
      return
    }
    const before = this.refused.get(key)
    if (before !== undefined) {
      notAsked(`it was asked before in this run and ${before}`)
      return
    }
    if (asker && this.questions >= MAX_QUESTIONS) {
      notAsked(`the run already asked ${MAX_QUESTIONS} questions, the most one run may ask`)
      return
    }
    if (!asker) {
      notAsked(
        this.options.noAskerReason ?? 'there is no pull request or issue to ask a maintainer on'
      )
      return
    }
    log.info(
      `Permission ASKED by rule "${decision.rule}" (question ${question.id}): ${decision.kind} ${decision.subject}`
    )
    this.questions++
    record({ type: 'ask', requestId, ...question })
    this.options.track(
      asker
        .ask(question, this.options.signal())
        .catch((error: unknown): Answer => ({
          verdict: 'unavailable',
          askedAt,
          at: new Date().toISOString(),
          reason: `the question could not be asked: ${messageOf(error)}`
        }))
        .then((answer) => {
          const approval: ApprovalRecord = {
            id: question.id,
            verdict: answer.verdict,
            askedAt: answer.askedAt,
            answeredAt: answer.at,
            ...(answer.by === undefined ? {} : { by: answer.by }),
            ...(answer.reason === undefined ? {} : { reason: answer.reason }),
            ...(answer.url === undefined ? {} : { url: answer.url })
          }
          if (answer.verdict !== 'approved') this.refused.set(key, denialReason(answer))
          const final: Final =
            answer.verdict === 'approved'
              ? {
                  ...decision,
                  decision: 'allow',
                  reason: `approved by ${answer.by ?? 'a maintainer'}`
                }
              : deniedAsk(decision, denialReason(answer))
          this.send(sessionId, requestId, request, final, approval)
        })
    )
  }

  private send(
    sessionId: string,
    requestId: string,
    request: PermissionRequest,
    decision: Final,
    approval?: ApprovalRecord
  ): void {
    this.options.record({
      type: 'decision',
      requestId,
      request,
      decision,
      ...(approval ? { approval } : {})
    })
    const verdict = decision.decision === 'allow' ? 'allowed' : 'DENIED'
    const asked = approval ? ` (asked: ${approval.verdict})` : ''
    this.options.log.info(
      `Permission ${verdict} by rule "${decision.rule}"${asked}: ${decision.kind} ${decision.subject}`
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

function deniedAsk(decision: Decision, why: string): Final {
  return {
    ...decision,
    decision: 'deny',
    reason: `${decision.reason ? `${decision.reason}; ` : ''}a person had to approve this and ${why}`
  }
}

function denialReason(answer: Answer): string {
  switch (answer.verdict) {
    case 'denied':
      return `${answer.by ?? 'a maintainer'} denied it${answer.reason ? `: ${answer.reason}` : ''}`
    case 'timeout':
      return 'nobody with write access approved it in time'
    default:
      return answer.reason ?? 'nobody could be asked'
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
