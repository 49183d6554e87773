/**
 * Where the run's comment goes: the pull request or issue behind the triggering event, or the
 * `issue-number` input. Pure: the caller passes `github.context`'s parts in.
 */
import { z } from 'zod'

export interface RepoRef {
  owner: string
  repo: string
}

export interface CommentTarget extends RepoRef {
  kind: 'pr' | 'issue'
  number: number
  /**
   * `event` when the number comes from the event payload; `input` when the `issue-number` input set
   * it (then `kind` is `pr` only if the event is about that same pull request, since a bare number
   * can name either).
   */
  source: 'event' | 'input'
}

export interface NoTarget {
  kind: 'none'
  /** One sentence for a notice: why there is no comment. */
  reason: string
}

export type Target = CommentTarget | NoTarget

export interface ResolveTargetInput {
  eventName: string
  payload: unknown
  /** The `issue-number` input, as settings.ts parsed it; undefined when unset. */
  issueNumber?: number
  repo: RepoRef
}

const PositiveInt = z.number().int().positive()

// Only the parts we read; z.object drops everything else, so extra fields are fine.
const PullRequestPayload = z.object({ pull_request: z.object({ number: PositiveInt }) })
const IssuePayload = z.object({
  issue: z.object({
    number: PositiveInt,
    // Present (an object with URLs) when the issue is a pull request.
    pull_request: z.unknown().optional()
  })
})

const PR_EVENTS = new Set([
  'pull_request',
  'pull_request_target',
  'pull_request_review',
  'pull_request_review_comment'
])
const ISSUE_EVENTS = new Set(['issues', 'issue_comment'])

type EventTarget = { kind: 'pr' | 'issue'; number: number } | { kind: 'none'; reason: string }

function fromEvent(eventName: string, payload: unknown): EventTarget {
  if (PR_EVENTS.has(eventName)) {
    const parsed = PullRequestPayload.safeParse(payload)
    if (!parsed.success) {
      return {
        kind: 'none',
        reason: `the ${eventName} event payload has no pull_request.number, so there is no pull request to comment on`
      }
    }
    return { kind: 'pr', number: parsed.data.pull_request.number }
  }
  if (ISSUE_EVENTS.has(eventName)) {
    const parsed = IssuePayload.safeParse(payload)
    if (!parsed.success) {
      return {
        kind: 'none',
        reason: `the ${eventName} event payload has no issue.number, so there is no issue to comment on`
      }
    }
    const { number, pull_request } = parsed.data.issue
    return { kind: pull_request != null ? 'pr' : 'issue', number }
  }
  return {
    kind: 'none',
    reason: `the ${eventName || 'unknown'} event is not about a pull request or issue, so no comment is posted (set the issue-number input to comment on one)`
  }
}

export function resolveTarget(input: ResolveTargetInput): Target {
  const { owner, repo } = input.repo
  const event = fromEvent(input.eventName, input.payload)
  const number = input.issueNumber
  if (number !== undefined) {
    const kind = event.kind === 'pr' && event.number === number ? 'pr' : 'issue'
    return { kind, number, owner, repo, source: 'input' }
  }
  if (event.kind === 'none') return event
  return { kind: event.kind, number: event.number, owner, repo, source: 'event' }
}
