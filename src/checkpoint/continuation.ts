/**
 * `/continue` (issue 31, point 3): a maintainer continues a run that stopped before it was done.
 * Pure: whether this run was asked for as a continuation, whether the last run's ending is one a
 * continuation may pick up, and the prompt of the session it starts (or that it starts none).
 *
 * A run that ended `completed` (or `policy-violation`, `failed`) is not continued by `/continue`:
 * there is nothing left of its task to do, or it ended for a reason more credits and time do not
 * fix. A `cancelled` run is: `cancel-in-progress` or a person's cancel stops a run that was not done
 * (the most common stop), and its checkpoint is written on cancel. A follow-up task (`/copilot
 * <task>`, any prompt that is no `/continue`) may still continue any earlier session, so the agent
 * keeps what it learned.
 */
import { z } from 'zod'
import type { RunStatus } from '../reporting/types.js'
import type { ChainLink } from './format.js'

/**
 * The endings `/continue` continues: the run stopped at a limit, was cancelled (a newer run's
 * `cancel-in-progress`, a person), or its work did not verify.
 */
export const CONTINUABLE_STATUSES: readonly RunStatus[] = [
  'budget-exceeded',
  'timed-out',
  'cancelled',
  'incomplete',
  'verify-failed'
]

const CONTINUE_COMMAND = /^\/continue\b/i

/** A comment event's payload, as far as the command in it goes. */
const CommentPayload = z.object({ comment: z.object({ body: z.string() }) })

/** A `/continue` command, from the prompt or from the comment that triggered the run. */
export interface ContinueCommand {
  /** What follows `/continue` and its `+N` credit grant, trimmed; '' for a bare `/continue`. */
  instructions: string
  /**
   * The prompt is the command (the recipe passes the comment's text); false when the workflow
   * wrote its own prompt and the triggering comment is the command.
   */
  inPrompt: boolean
}

/** The text after `/continue` and a `+N` credit grant (`+200`), trimmed. */
function instructionsOf(command: string): string {
  return command
    .trim()
    .replace(CONTINUE_COMMAND, '')
    .trim()
    .replace(/^\+\d+(\.\d+)?\b/, '')
    .trim()
}

/**
 * The `/continue` command this run was asked for with: its prompt is one (the recipe passes the
 * comment's text), or the comment that triggered it is one. Undefined for any other run.
 */
export function continueCommand(
  prompt: string,
  eventPayload: unknown
): ContinueCommand | undefined {
  if (CONTINUE_COMMAND.test(prompt.trim())) {
    return { instructions: instructionsOf(prompt), inPrompt: true }
  }
  const comment = CommentPayload.safeParse(eventPayload)
  if (!comment.success || !CONTINUE_COMMAND.test(comment.data.comment.body.trim())) return undefined
  return { instructions: instructionsOf(comment.data.comment.body), inPrompt: false }
}

/** Whether this run was asked for as a continuation (`/continue`, see continueCommand). */
export function isContinuation(prompt: string, eventPayload: unknown): boolean {
  return continueCommand(prompt, eventPayload) !== undefined
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
  const rest = instructionsOf(prompt)
  if (rest !== '') return rest
  const why = from?.stoppedAt
    ? `it reached ${from.stoppedAt.replace(/`/g, '')}`
    : from?.reason
      ? // "The workflow run was cancelled." → "the workflow run was cancelled" (not "CLI …")
        from.reason.replace(/\.$/, '').replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())
      : `it ended ${from?.status ?? 'early'}`
  return `Continue the task. The last run stopped because ${why}. Pick up where it left off: its changes are in the workspace.`
}

/** What a run that resumed nothing starts: a session with its prompt, or none. */
export type FreshStart = { kind: 'session'; prompt: string } | { kind: 'nothing-to-continue' }

/**
 * What a run that resumed nothing starts (the continuation was refused, there was no checkpoint,
 * or `resume: never`), from its prompt and its `/continue` command if it is a continuation:
 * - a `/continue` with instructions: a fresh session with only the instructions as its prompt
 *   (`/continue` and `+N` are no task), or with the workflow's own prompt when the workflow wrote
 *   one (the triggering comment is the command);
 * - a bare `/continue` (optionally `+N`): no session, since it gave the agent nothing to do;
 * - any other run: a session with its prompt.
 */
export function freshStart(prompt: string, command: ContinueCommand | undefined): FreshStart {
  if (command === undefined) return { kind: 'session', prompt }
  if (command.instructions === '') return { kind: 'nothing-to-continue' }
  return { kind: 'session', prompt: command.inPrompt ? command.instructions : prompt }
}
