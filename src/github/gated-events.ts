/**
 * Which events the trusted-actor gate checks, and which carry a comment or review as their task.
 * A leaf module without imports: the early entry (cli/early.ts) reads it before anything else is
 * loaded, and the gate itself (actor-gate.ts) decides with it.
 */

/**
 * The events only people with write access can cause (a push, a schedule set in the default
 * branch, a manual or API dispatch, the merge queue): not gated. Every other event, including
 * ones GitHub adds later, is gated — an allowlist, so a new way for strangers to trigger a
 * workflow (a discussion comment, a star, a fork's workflow_run) fails closed.
 */
export const UNGATED_EVENTS = [
  'push',
  'schedule',
  'workflow_dispatch',
  'repository_dispatch',
  'merge_group'
] as const

/** Whether the event's actor must be checked. No event name: not on a runner (local runs). */
export function isGatedEvent(eventName: string): boolean {
  return eventName !== '' && !(UNGATED_EVENTS as readonly string[]).includes(eventName)
}

/**
 * The events whose task is the text of a comment or a review, what in the payload holds it, and
 * the one action that makes it a new task: `created` (`submitted` for a review). On any other
 * (`edited`, `deleted`, `dismissed`) the sender is whoever edited, deleted or dismissed it, not
 * who wrote the text the workflow hands the agent: those never start it.
 */
export const AUTHORED_EVENTS: Readonly<
  Record<string, { object: 'comment' | 'review'; starts: string }>
> = {
  issue_comment: { object: 'comment', starts: 'created' },
  pull_request_review_comment: { object: 'comment', starts: 'created' },
  discussion_comment: { object: 'comment', starts: 'created' },
  pull_request_review: { object: 'review', starts: 'submitted' }
}
