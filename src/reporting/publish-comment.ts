/**
 * The only code that writes comments. One sticky comment per target and key, found again by a
 * hidden marker (`<!-- copilot-autopilot:<key> -->`) and by its author being the token's identity:
 * a comment by anyone else that quotes the marker is never edited.
 *
 * `publish` never throws on API trouble: a read-only token (fork PRs), a missing `permissions:`
 * entry or an outage yields `{fallback}`, a warning for the caller to emit before putting the report
 * in the job summary instead.
 */
import type { ClientOptions, GitHubClient } from '../github/client.js'
import { createGitHubClient, noopLog } from '../github/client.js'
import type { CommentTarget, Target } from './target.js'
import { GITHUB_COMMENT_LIMIT } from './limits.js'
import { redactedBody } from './redacted-writes.js'

export type CommentMode = 'update' | 'new' | 'off'

export interface PublishResult {
  /** The comment's html_url, when one was written (or already said the same). */
  url?: string
  id?: number
  /** Set when nothing could be written: a warning naming the cause and the fix. */
  fallback?: string
  /** Set when publishing is switched off or there is nothing to comment on: why. */
  skipped?: string
}

/** The client's options (token, API URL, log, retries, throttling) plus what to publish where. */
export interface CommentPublisherOptions extends Pick<
  ClientOptions,
  'token' | 'apiUrl' | 'log' | 'retries' | 'retryDelayMs' | 'throttleId' | 'spaceWrites'
> {
  target: Target
  /** Tells several sticky comments on one target apart; default `default`. */
  key?: string
  mode: CommentMode
}

export interface CommentPublisher {
  readonly marker: string
  /**
   * Write `body` (the marker is added). The first call finds our comment (mode `update`) or creates
   * one; later calls on the same publisher update that comment by id. Calls run one at a time.
   */
  publish(body: string): Promise<PublishResult>
}

export const DEFAULT_KEY = 'default'
const GITHUB_ACTIONS_LOGIN = 'github-actions[bot]'

/** Keys become part of an HTML comment: keep `[A-Za-z0-9._-]`, replace the rest with `-`. */
export function normalizeKey(key: string | undefined): string {
  const trimmed = (key ?? '').trim()
  return trimmed === '' ? DEFAULT_KEY : trimmed.replace(/[^A-Za-z0-9._-]/g, '-')
}

export function markerFor(key: string = DEFAULT_KEY): string {
  return `<!-- copilot-autopilot:${normalizeKey(key)} -->`
}

/** The body as posted: marker first (so truncation never drops it), capped at GitHub's limit. */
export function withMarker(body: string, marker: string): string {
  // A caller that embedded the marker itself gets it moved to the front.
  const full = `${marker}\n${body.split(marker).join('')}`
  if (full.length <= GITHUB_COMMENT_LIMIT) return full
  const note = '\n\n…(truncated: the comment exceeded GitHub’s 65,536-character limit)'
  return full.slice(0, GITHUB_COMMENT_LIMIT - note.length) + note
}

type Identity = { kind: 'user'; login: string } | { kind: 'installation' }

interface ListedComment {
  id: number
  body?: string | null
  html_url: string
  user: { login: string; type?: string } | null
  performed_via_github_app?: { slug?: string | null } | null
}

/**
 * Whether the token's identity wrote `comment`. Installation tokens cannot read `/user`: then the
 * author must be a GitHub App bot (`github-actions[bot]`, or `<slug>[bot]` of the app that
 * performed the comment), never a person.
 */
export function isOwnComment(comment: ListedComment, identity: Identity): boolean {
  const login = comment.user?.login
  if (!login) return false
  if (identity.kind === 'user') return login === identity.login
  if (login === GITHUB_ACTIONS_LOGIN) return true
  const slug = comment.performed_via_github_app?.slug
  return comment.user?.type === 'Bot' && !!slug && login === `${slug}[bot]`
}

interface HttpError {
  status: number
  message: string
}

function httpError(error: unknown): HttpError | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined
  const status = error.status
  if (typeof status !== 'number') return undefined
  const message = error instanceof Error ? error.message : String(status)
  return { status, message }
}

function describe(target: CommentTarget): string {
  return `${target.kind === 'pr' ? 'pull request' : 'issue'} #${target.number} in ${target.owner}/${target.repo}`
}

function permissionFor(target: CommentTarget): string {
  if (target.kind === 'pr') return '`pull-requests: write`'
  if (target.source === 'input') {
    return '`issues: write` (`pull-requests: write` if the number is a pull request)'
  }
  return '`issues: write`'
}

/** The warning for a failed publish. Never includes the token: error messages do not carry it. */
export function fallbackMessage(target: CommentTarget, error: unknown): string {
  const where = describe(target)
  const http = httpError(error)
  const firstLine = (s: string): string => (s.split('\n')[0] ?? '').slice(0, 300)
  if (!http) {
    const text = error instanceof Error ? error.message : String(error)
    return `Could not post the run comment on ${where}: ${firstLine(text)}. The report is in the job summary.`
  }
  const detail = `HTTP ${http.status}: ${firstLine(http.message)}`
  if ((http.status === 403 || http.status === 429) && /rate limit/i.test(http.message)) {
    return `Could not post the run comment on ${where} (${detail}): GitHub rate-limited the token. The report is in the job summary.`
  }
  if (http.status === 403 || http.status === 404) {
    return (
      `Could not post the run comment on ${where} (${detail}). ` +
      `Add ${permissionFor(target)} to the workflow's \`permissions:\` block; ` +
      `pull requests from forks get a read-only token whatever the block says. ` +
      `The report is in the job summary.`
    )
  }
  if (http.status === 401) {
    return `Could not post the run comment on ${where} (${detail}): the token was rejected. The report is in the job summary.`
  }
  return `Could not post the run comment on ${where} (${detail}). The report is in the job summary.`
}

export function createCommentPublisher(options: CommentPublisherOptions): CommentPublisher {
  const marker = markerFor(options.key)
  const log = options.log ?? noopLog
  const { target, mode } = options

  if (mode === 'off')
    return { marker, publish: () => Promise.resolve({ skipped: 'comment-mode is off' }) }
  if (target.kind === 'none') {
    return { marker, publish: () => Promise.resolve({ skipped: target.reason }) }
  }

  let client: GitHubClient | undefined
  const octokit = (): GitHubClient => (client ??= createGitHubClient({ ...options, log }))
  const where = { owner: target.owner, repo: target.repo }
  let identity: Identity | undefined
  /** The comment this publisher wrote or adopted; later publishes update it by id. */
  let current: { id: number; body: string; url: string } | undefined
  let queue: Promise<unknown> = Promise.resolve()

  const whoAmI = async (): Promise<Identity> => {
    if (identity) return identity
    try {
      const { data } = await octokit().rest.users.getAuthenticated()
      identity = { kind: 'user', login: data.login }
    } catch (error) {
      const status = httpError(error)?.status
      // GITHUB_TOKEN and GitHub App installation tokens get 403 on /user.
      if (status !== 403 && status !== 404) throw error
      identity = { kind: 'installation' }
    }
    log.debug(
      `Comment author identity: ${identity.kind === 'user' ? identity.login : 'GitHub App installation'}`
    )
    return identity
  }

  const findOurs = async (): Promise<ListedComment | undefined> => {
    const comments = (await octokit().paginate(octokit().rest.issues.listComments, {
      ...where,
      issue_number: target.number,
      per_page: 100
    })) as ListedComment[]
    const candidates = comments.filter((c) => c.body?.includes(marker))
    if (candidates.length === 0) return undefined
    const me = await whoAmI()
    const ours = candidates.filter((c) => isOwnComment(c, me))
    if (ours.length < candidates.length) {
      log.debug(
        `Ignoring ${candidates.length - ours.length} comment(s) with marker ${marker} by other authors`
      )
    }
    return ours[0]
  }

  const create = async (body: string): Promise<PublishResult> => {
    const { data } = await octokit().rest.issues.createComment({
      ...where,
      issue_number: target.number,
      body
    })
    current = { id: data.id, body, url: data.html_url }
    log.debug(`Created comment ${data.id} on ${describe(target)}`)
    return { id: data.id, url: data.html_url }
  }

  /** Update comment `id`; when it was deleted meanwhile (404), create a new one instead. */
  const update = async (id: number, body: string): Promise<PublishResult> => {
    try {
      const { data } = await octokit().rest.issues.updateComment({ ...where, comment_id: id, body })
      current = { id: data.id, body, url: data.html_url }
      log.debug(`Updated comment ${data.id} on ${describe(target)}`)
      return { id: data.id, url: data.html_url }
    } catch (error) {
      if (httpError(error)?.status !== 404) throw error
      log.debug(`Comment ${id} is gone; creating a new one`)
      current = undefined
      return await create(body)
    }
  }

  const write = async (body: string): Promise<PublishResult> => {
    if (current) {
      if (current.body === body) return { id: current.id, url: current.url }
      return await update(current.id, body)
    }
    if (mode === 'update') {
      const found = await findOurs()
      if (found) {
        if (found.body === body) {
          current = { id: found.id, body, url: found.html_url }
          return { id: found.id, url: found.html_url }
        }
        return await update(found.id, body)
      }
    }
    return await create(body)
  }

  const publish = (body: string): Promise<PublishResult> => {
    const run = async (): Promise<PublishResult> => {
      try {
        // the one door: every body is redacted once complete (redacted-writes.ts)
        return await write(withMarker(redactedBody(body), marker))
      } catch (error) {
        const fallback = fallbackMessage(target, error)
        log.debug(`Comment publish failed: ${fallback}`)
        return { fallback }
      }
    }
    const next = queue.then(run, run)
    queue = next
    return next
  }

  return { marker, publish }
}
