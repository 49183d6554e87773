/**
 * Leaving plan mode. The CLI both emits `exit_plan_mode.requested` and, on versions that have it,
 * sends the request `exitPlanMode.request`. The request is authoritative (the CLI awaits its
 * answer); the event is answered only when no request follows it within a moment (versions
 * without the request). A plan-first run approves once per visit to plan mode and continues in
 * autopilot; every edit after that still goes through the policy.
 */
import type { ExitPlanResponse, SessionApi } from '../cli/session-api.js'
import { messageOf } from '../errors.js'
import type { Logger } from './log.js'

/** How long an `exit_plan_mode.requested` event waits for the request before it is answered. */
export const EVENT_FALLBACK_MS = 1500

export interface PlanExitOptions {
  api: SessionApi
  log: Logger
  planFirst: boolean
  sessionId: () => string | null
  track: (work: Promise<unknown>) => void
}

export class PlanExit {
  private pendingRequestId: string | undefined
  private timer: NodeJS.Timeout | undefined
  private answered = false

  constructor(private readonly options: PlanExitOptions) {}

  /** The CLI's request: answered now. */
  onRequest(): ExitPlanResponse {
    return this.approve('request')
  }

  /** The event: answered after EVENT_FALLBACK_MS unless the request comes first. */
  onEvent(requestId: string): void {
    this.pendingRequestId = requestId
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.approve('event'), EVENT_FALLBACK_MS)
  }

  /** Back in plan mode: the next request to leave it gets its own answer. */
  onModeChanged(newMode: string | undefined): void {
    if (newMode === 'plan') this.answered = false
  }

  /** No answer may fire after the run. */
  dispose(): void {
    clearTimeout(this.timer)
  }

  private approve(channel: 'request' | 'event'): ExitPlanResponse {
    clearTimeout(this.timer)
    const response: ExitPlanResponse = this.options.planFirst
      ? { approved: true, selectedAction: 'autopilot', autoApproveEdits: false }
      : { approved: false, autoApproveEdits: false }
    if (this.answered) return response
    this.answered = true
    this.options.log.info(
      `Plan ${response.approved ? 'approved' : 'not requested'}: continuing in autopilot`
    )
    const sessionId = this.options.sessionId()
    if (channel === 'event' && this.pendingRequestId && sessionId) {
      this.options.track(
        this.options.api
          .answerExitPlan(sessionId, this.pendingRequestId, response)
          .catch((error: unknown) =>
            this.options.log.warning(`Approving the plan failed: ${messageOf(error)}`)
          )
      )
    }
    return response
  }
}
