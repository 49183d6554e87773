/**
 * `/continue` (issue 31, point 3): a maintainer continues a run that stopped before it was done.
 * Pure: whether this run was asked for as a continuation, whether the last run's ending is one a
 * continuation may pick up, and the continuation's prompt.
 *
 * A run that ended `completed` (or `policy-violation`, `failed`, `cancelled`, ...) is not continued
 * by `/continue`: there is nothing left of its task to do, or it ended for a reason more credits and
 * time do not fix. A follow-up task (`/copilot <task>`, any prompt that is no `/continue`) may still
 * continue any earlier session, so the agent keeps what it learned.
 */
import { z } from 'zod'
import type { RunStatus } from '../reporting/types.js'
import type { ChainLink } from './format.js'

/** The endings `/continue` continues: the run stopped at a limit, or its work did not verify. */
export const CONTINUABLE_STATUSES: readonly RunStatus[] = [
  'budget-exceeded',
  'timed-out',
  'incomplete',
  'verify-failed'
]

const CONTINUE_COMMAND = /^\/continue\b/i

/** A comment event's payload, as far as the command in it goes. */
const CommentPayload = z.object({ comment: z.object({ body: z.string() }) })

/**
 * Whether this run was asked for as a continuation: its prompt is a `/continue` command (the
 * recipe passes the comment's text), or the comment that triggered it is one.
 */
export function isContinuation(prompt: string, eventPayload: unknown): boolean {
  if (CONTINUE_COMMAND.test(prompt.trim())) return true
  const comment = CommentPayload.safeParse(eventPayload)
  return comment.success && CONTINUE_COMMAND.test(comment.data.comment.body.trim())
}

/** Why a continuation may not pick up the run that ended as `last`, and what to do instead. */
export interface ContinuationRefusal {
  reason: string
  fix: string
}

/**
 * Undefined when `/continue` may continue the run `last` (it ended with one of
 * CONTINUABLE_STATUSES); else why not, and what to do instead. `number` is the pull request or
 * issue the run is for, when there is one.
 */
export function continuationRefusal(
  last: ChainLink,
  number: number | undefined
): ContinuationRefusal | undefined {
  if ((CONTINUABLE_STATUSES as readonly string[]).includes(last.status)) return undefined
  const where = number === undefined ? '' : ` on #${number}`
  const run = last.runId === '' ? '' : ` (run ${last.runId})`
  const allowed = CONTINUABLE_STATUSES.slice(0, -1).join(', ')
  return {
    reason: `the last run${where}${run} ended with status ${last.status}, and /continue continues only a run that stopped before it was done (${allowed} or ${CONTINUABLE_STATUSES.at(-1) ?? ''}).`,
    fix: `For more work${where}, comment /copilot <task>: a follow-up starts a new task (with resume: auto it keeps the earlier session).`
  }
}

/**
 * The prompt of a continuation: the comment's text after `/continue` (and a `+N` credit grant),
 * or, when nothing is left, "Continue the task. The last run stopped because …".
 */
export function continuationPrompt(prompt: string, from: ChainLink | undefined): string {
  if (!CONTINUE_COMMAND.test(prompt.trim())) return prompt
  const rest = prompt
    .trim()
    .replace(CONTINUE_COMMAND, '')
    .trim()
    .replace(/^\+\d+(\.\d+)?\b/, '')
    .trim()
  if (rest !== '') return rest
  const why = from?.stoppedAt
    ? `it reached ${from.stoppedAt.replace(/`/g, '')}`
    : from?.reason
      ? from.reason.replace(/\.$/, '')
      : `it ended ${from?.status ?? 'early'}`
  return `Continue the task. The last run stopped because ${why}. Pick up where it left off: its changes are in the workspace.`
}
