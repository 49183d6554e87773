/**
 * Human in the loop for `decision: ask`. Each request gets a NEW comment on the pull request or
 * issue (a new comment notifies its subscribers; editing the sticky one would not) that names it
 * (kind, subject, rule, reason, a short id) and says how to answer. Then the issue's comments are
 * polled until someone with write, maintain or admin permission answers `/approve` or `/deny`, or
 * the time runs out (denied). The outcome is appended to the ask comment.
 *
 * Choices:
 * - One request at a time: a second `ask` waits for the first to finish; its timeout starts when
 *   its own comment is posted.
 * - Polling lists `GET /repos/{o}/{r}/issues/{n}/comments?since=<the ask's created_at>` (every
 *   page), and only comments with a larger id than the ask comment count, oldest first. Each poll
 *   waits `pollMs` first; the last poll happens at the deadline.
 * - An answer is the first non-empty line of a comment that is not a quote (`>`; so a "Quote
 *   reply" works): `/approve` or `/deny` (any case), then the request id (`a1b2c3`, `#a1b2c3`,
 *   trailing punctuation allowed), then optionally a reason (the rest of the line, trimmed,
 *   clipped to 500 characters). An answer without this request's id is ignored: a bare
 *   `/approve` meant for an earlier question, or another run's, must never approve this one.
 *   But the person who wrote it is told at once (when they have write access: others are ignored
 *   silently): a `confused` reaction on their comment and a short reply naming the
 *   `/approve <id>` it needs and the request waiting for an answer. Once per comment (by id, for
 *   the whole run: a later poll, an edit or the next ask never replies to it again); a failing
 *   reaction or reply is logged as a warning and never blocks the answer.
 * - Ignored: comments by bots (`type: Bot` or a `[bot]` login), by the action's own identity (the
 *   ask comment's author: with a personal token, that person cannot answer), and by users without
 *   write access. Each is logged once at info level.
 * - A failing poll (after the client's retries) is logged (a warning at the first of a streak) and
 *   polling goes on until the deadline; a failing permission check leaves that comment, and the
 *   ones after it, for the next poll (the first valid answer must win); neither ever approves.
 * - Posting failure (403 on a fork PR, an outage) answers `unavailable`: denied.
 * - Abort: `ask` rejects with the signal's reason (an `AbortError` DOMException unless the caller
 *   gave an Error), whether the request was still queued, being posted or waiting for an answer. A
 *   posted ask comment is first marked as no longer waiting (best effort).
 * - `at` of an answer is when the action saw it (same clock as `askedAt`; at most one poll
 *   interval after the reply's own timestamp, which its `commentUrl` shows).
 */
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { messageOf } from '../errors.js'
import {
  clip,
  codeBlock,
  codeSpan,
  formatMinutes,
  inlineMarkdown,
  stripUnsafeChars,
  truncate
} from '../text/safe-text.js'
import type { GitHubClient } from './client.js'
import type { PermissionLevel } from './repo-permissions.js'
import { canWrite, repositoryPermission } from './repo-permissions.js'

export interface AskRequest {
  /** Short id people quote in their answer: use {@link newAskId}. */
  id: string
  /** What kind of action: `shell`, `write`, `url`, … (from the policy engine). */
  kind: string
  /** The command, path or URL (untrusted: neutralized in the comment). */
  subject: string
  /** The policy rule's id. */
  rule: string
  /** The rule's reason, from the policy file (neutralized in the comment). */
  reason?: string
}

export type AskAnswer =
  | {
      verdict: 'approved' | 'denied'
      /** Login of who answered. */
      by: string
      /** ISO time the answer was seen. */
      at: string
      /** The rest of the answer's line, trimmed, at most 500 characters. */
      reason?: string
      /** The answer comment's html_url. */
      commentUrl?: string
      /** The ask comment's html_url. */
      askUrl?: string
      askedAt: string
    }
  | { verdict: 'timeout'; at: string; askUrl?: string; askedAt: string }
  /** The ask comment could not be posted (e.g. 403): denied. */
  | { verdict: 'unavailable'; at: string; askedAt: string; reason: string }

export interface Approvals {
  /** Ask a person; see the module comment. Rejects only when `signal` aborts. */
  ask(request: AskRequest, signal: AbortSignal): Promise<AskAnswer>
}

export interface ApprovalsLog {
  info(message: string): void
  warning(message: string): void
  debug(message: string): void
}

export interface ApprovalTarget {
  owner: string
  repo: string
  /** The pull request or issue number. */
  number: number
}

export interface ApprovalsOptions {
  client: GitHubClient
  target: ApprovalTarget
  /** How long to wait for an answer after the ask comment is posted. */
  timeoutMs: number
  /** How long between polls of the comments. */
  pollMs: number
  log: ApprovalsLog
  /** Clock for timestamps and the deadline (ms since the epoch); default `Date.now`. */
  now?: () => number
}

/** Longest reason kept from an answer. */
export const MAX_ANSWER_REASON = 500

/** A fresh request id: 6 lowercase hex digits. */
export function newAskId(): string {
  return randomBytes(3).toString('hex')
}

/** Ids go into an HTML comment: keep `[A-Za-z0-9_-]`, replace the rest. */
function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '-') || '-'
}

/** The hidden marker of an ask comment. */
export function askMarker(id: string): string {
  return `<!-- copilot-autopilot:ask:${safeId(id)} -->`
}

export interface AnswerCommand {
  verdict: 'approved' | 'denied'
  /** The request id named in the answer, if any (as written). */
  id?: string
  reason?: string
}

const COMMAND = /^\/(approve|deny)(?:\s+(.*))?$/i
const ID_SHAPE = /^[0-9a-f]{6}$/i

/**
 * The answer in a comment body, if it is one: its first non-empty, non-quote line is `/approve` or
 * `/deny`, optionally followed by a request id and a reason. A first word that is `ownId`, or
 * looks like an id (6 hex digits), is the id; the rest of the line is the reason.
 */
export function parseAnswer(body: string, ownId?: string): AnswerCommand | undefined {
  const line = stripUnsafeChars(body)
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('>'))
  if (line === undefined) return undefined
  // `/approve abc123` written as inline code.
  const unwrapped = /^`([^`]+)`$/.exec(line)?.[1]?.trim() ?? line
  const match = COMMAND.exec(unwrapped)
  if (!match) return undefined
  const verdict = (match[1] ?? '').toLowerCase() === 'approve' ? 'approved' : 'denied'
  let rest = (match[2] ?? '').trim()
  let id: string | undefined
  const first = /^(\S+)(?:\s+([\s\S]*))?$/.exec(rest)
  if (first) {
    // `#a1b2c3`, `a1b2c3,` and `a1b2c3.` name the id too
    const word = (first[1] ?? '').replace(/^#/, '').replace(/[.,:;!]+$/, '')
    const isOwn = ownId !== undefined && word.toLowerCase() === ownId.toLowerCase()
    if (isOwn || ID_SHAPE.test(word)) {
      id = word
      rest = (first[2] ?? '').trim()
    }
  }
  const reason = rest === '' ? undefined : clip(rest, MAX_ANSWER_REASON)
  return {
    verdict,
    ...(id === undefined ? {} : { id }),
    ...(reason === undefined ? {} : { reason })
  }
}

/** Longest subject shown inline; longer or multi-line ones go in a code block. */
const INLINE_SUBJECT = 300
/** Longest subject shown at all. */
const MAX_SUBJECT = 8000

/** The ask comment's body. Every untrusted part is neutralized. */
export function renderAsk(request: AskRequest, timeoutMs: number): string {
  const id = codeSpan(request.id, 40)
  const subject = stripUnsafeChars(request.subject).replace(/\n+$/, '')
  const inline = !subject.includes('\n') && subject.length <= INLINE_SUBJECT
  const reason = request.reason?.trim()
  const lines = [
    askMarker(request.id),
    '### 🙋 Copilot asks for approval',
    '',
    'The policy says a person must approve this before Copilot may do it:',
    '',
    `- **Kind:** ${codeSpan(request.kind, 60)}`,
    `- **Request:** ${inline ? codeSpan(subject, INLINE_SUBJECT) : '(below)'}`,
    `- **Rule:** ${codeSpan(request.rule, 120)}${reason ? ` — ${inlineMarkdown(reason, 500)}` : ''}`,
    `- **Request id:** ${id}`,
    ''
  ]
  if (!inline) lines.push(codeBlock(truncate(subject, MAX_SUBJECT), 'text'), '')
  lines.push(
    '**To answer**, add a comment whose first line is',
    '',
    `- ${codeSpan(`/approve ${request.id}`, 60)} to allow it once, or`,
    `- ${codeSpan(`/deny ${request.id} <reason>`, 60)} to refuse it (the reason is passed on to Copilot).`,
    '',
    `Only answers from people with write, maintain or admin access to this repository count. Without an answer within ${formatMinutes(timeoutMs)}, the request is denied.`
  )
  return lines.join('\n')
}

/** `2024-01-01 12:00:05 UTC`. */
function humanTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')
}

/** A link to a reply, when its URL is a plain https URL (no markdown can break out of it). */
function replyLink(url: string | undefined): string {
  return url !== undefined && /^https:\/\/[^\s()<>[\]]+$/.test(url) ? ` ([reply](${url}))` : ''
}

/**
 * The reply to a bare `/approve` or `/deny` (no request id) from someone with write access. Its
 * first line is not a command, so it is never read as an answer.
 */
export function renderMissingId(
  verdict: AnswerCommand['verdict'],
  request: AskRequest,
  askUrl: string | undefined
): string {
  const word = verdict === 'approved' ? 'approve' : 'deny'
  const example = verdict === 'approved' ? `/approve ${request.id}` : `/deny ${request.id} <reason>`
  const link = askUrl !== undefined && /^https:\/\/[^\s()<>[\]]+$/.test(askUrl) ? askUrl : undefined
  const waiting = `${codeSpan(request.id, 40)} (${codeSpan(request.kind, 60)} ${codeSpan(oneLine(request.subject, 120), 120)}${link === undefined ? '' : `, [the request](${link})`})`
  return [
    `⚠️ This \`/${word}\` names no request id, so it was not counted. Every answer must name the request it answers.`,
    '',
    `Waiting for an answer: ${waiting}. To answer it, comment ${codeSpan(example, 60)}.`
  ].join('\n')
}

/** The line appended to the ask comment once it is settled. */
export function renderOutcome(
  answer: AskAnswer | { verdict: 'aborted'; at: string },
  timeoutMs: number
): string {
  switch (answer.verdict) {
    case 'approved':
    case 'denied': {
      const approved = answer.verdict === 'approved'
      const head = approved ? '**✅ Approved**' : '**❌ Denied**'
      const reason = answer.reason ? `: ${inlineMarkdown(answer.reason, MAX_ANSWER_REASON)}` : ''
      const tail = approved
        ? ' Copilot may do this once.'
        : ' Copilot was told it was refused, and why.'
      return `${head} by ${codeSpan(answer.by, 60)} at ${humanTime(answer.at)}${reason}${replyLink(answer.commentUrl)}.${tail}`
    }
    case 'timeout':
      return `**⌛ No answer within ${formatMinutes(timeoutMs)}:** denied at ${humanTime(answer.at)}.`
    case 'aborted':
      return `**⏹ No longer waiting:** the session ended at ${humanTime(answer.at)} before an answer; denied.`
    case 'unavailable':
      return `**Denied:** ${inlineMarkdown(answer.reason, 500)}`
  }
}

const PostedComment = z.object({
  id: z.number(),
  html_url: z.string().optional(),
  created_at: z.string().optional(),
  user: z.object({ login: z.string() }).nullish()
})

const ListedComment = z.object({
  id: z.number(),
  body: z.string().nullish(),
  html_url: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  user: z.object({ login: z.string(), type: z.string().nullish() }).nullish()
})
type ListedComment = z.infer<typeof ListedComment>

interface Posted {
  id: number
  url?: string
  createdAt?: string
  author?: string
  body: string
}

function isBot(user: NonNullable<ListedComment['user']>): boolean {
  return user.type === 'Bot' || /\[bot\]$/i.test(user.login)
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error
    ? reason
    : new DOMException('The approval request was aborted', 'AbortError')
}

/** Resolves after `ms`, or rejects when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError(signal))
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(abortError(signal))
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function until<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal))
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error instanceof Error ? error : new Error(String(error)))
      }
    )
  })
}

function oneLine(text: string, max = 300): string {
  return clip(stripUnsafeChars(text).replace(/\s+/g, ' ').trim(), max)
}

export function createApprovals(options: ApprovalsOptions): Approvals {
  const { client, target, log } = options
  const timeoutMs = Math.max(0, options.timeoutMs)
  const pollMs = Math.max(1, options.pollMs)
  const now = options.now ?? Date.now
  const iso = (): string => new Date(now()).toISOString()
  const where = { owner: target.owner, repo: target.repo }
  const conversation = `${target.owner}/${target.repo}#${target.number}`
  let tail: Promise<void> = Promise.resolve()
  /** Comments already told that they name no request id (by comment id, for the whole run). */
  const toldMissingId = new Set<number>()

  const post = async (body: string, signal: AbortSignal): Promise<Posted> => {
    const { data } = await client.rest.issues.createComment({
      ...where,
      issue_number: target.number,
      body,
      request: { signal }
    })
    const c = PostedComment.parse(data)
    return {
      id: c.id,
      body,
      ...(c.html_url === undefined ? {} : { url: c.html_url }),
      ...(c.created_at === undefined ? {} : { createdAt: c.created_at }),
      ...(c.user ? { author: c.user.login } : {})
    }
  }

  const list = async (posted: Posted, signal: AbortSignal): Promise<ListedComment[]> => {
    const raw: unknown[] = await client.paginate(client.rest.issues.listComments, {
      ...where,
      issue_number: target.number,
      per_page: 100,
      ...(posted.createdAt === undefined ? {} : { since: posted.createdAt }),
      request: { signal }
    })
    const out: ListedComment[] = []
    for (const item of raw) {
      const parsed = ListedComment.safeParse(item)
      if (parsed.success) out.push(parsed.data)
      else log.debug(`Skipped a malformed comment on ${conversation}: ${parsed.error.message}`)
    }
    return out.filter((c) => c.id > posted.id).sort((a, b) => a.id - b.id)
  }

  const appendOutcome = async (posted: Posted, outcome: string): Promise<void> => {
    try {
      await client.rest.issues.updateComment({
        ...where,
        comment_id: posted.id,
        body: `${posted.body}\n\n---\n\n${outcome}`
      })
    } catch (error) {
      log.warning(
        `Could not record the outcome on the approval request comment ${posted.url ?? posted.id}: ${oneLine(messageOf(error))}`
      )
    }
  }

  /** A `confused` reaction on `comment` and a reply saying which `/approve <id>` it needs. */
  const tellMissingId = async (
    comment: ListedComment,
    command: AnswerCommand,
    request: AskRequest,
    posted: Posted
  ): Promise<void> => {
    toldMissingId.add(comment.id)
    try {
      await client.rest.reactions.createForIssueComment({
        ...where,
        comment_id: comment.id,
        content: 'confused'
      })
    } catch (error) {
      log.warning(
        `Could not react to comment ${comment.id} on ${conversation}: ${oneLine(messageOf(error))}`
      )
    }
    try {
      await client.rest.issues.createComment({
        ...where,
        issue_number: target.number,
        body: renderMissingId(command.verdict, request, posted.url)
      })
    } catch (error) {
      log.warning(
        `Could not tell comment ${comment.id} on ${conversation} that it names no request id: ${oneLine(messageOf(error))}`
      )
    }
  }

  interface Found {
    comment: ListedComment
    login: string
    command: AnswerCommand
  }

  const serve = async (request: AskRequest, signal: AbortSignal): Promise<AskAnswer> => {
    const label = `${oneLine(request.kind, 40)} ${oneLine(request.subject, 200)} (request ${oneLine(request.id, 40)}, rule ${oneLine(request.rule, 80)})`
    const askedAt = iso()
    let posted: Posted
    try {
      posted = await post(renderAsk(request, timeoutMs), signal)
    } catch (error) {
      if (signal.aborted) throw abortError(signal)
      const reason = `could not post the approval request on ${conversation}: ${oneLine(messageOf(error))}`
      log.warning(`Denied ${label}: ${reason}`)
      return { verdict: 'unavailable', at: iso(), askedAt, reason }
    }
    const deadline = now() + timeoutMs
    const askUrl = posted.url === undefined ? {} : { askUrl: posted.url }
    log.info(
      `Asked for approval of ${label} on ${conversation}: ${posted.url ?? `comment ${posted.id}`}; waiting up to ${formatMinutes(timeoutMs)}`
    )

    /** Comments settled as not answers (id and version), so each is judged and logged once. */
    const settled = new Set<string>()
    const warned = new Set<string>()
    const ignore = (key: string, message: string): void => {
      settled.add(key)
      log.info(`Ignored a reply to approval request ${request.id}: ${message}`)
    }

    /** The commenter's permission; undefined (warned once per comment) when it cannot be read. */
    const permissionOf = async (
      key: string,
      login: string,
      reply: 'reply' | 'answer'
    ): Promise<PermissionLevel | undefined> => {
      try {
        return await repositoryPermission(client, where, login)
      } catch (error) {
        if (!warned.has(key)) {
          warned.add(key)
          log.warning(
            `Could not check the permission of ${login} on ${where.owner}/${where.repo} for their ${reply} to approval request ${request.id}: ${oneLine(messageOf(error))}; will check again`
          )
        }
        return undefined
      }
    }

    const firstAnswer = async (comments: ListedComment[]): Promise<Found | undefined> => {
      for (const comment of comments) {
        const key = `${comment.id}@${comment.updated_at ?? ''}`
        if (settled.has(key)) continue
        const command = parseAnswer(comment.body ?? '', request.id)
        const user = comment.user
        if (!command || !user) {
          settled.add(key)
          continue
        }
        const login = user.login
        const ownComment =
          posted.author !== undefined && login.toLowerCase() === posted.author.toLowerCase()
        const what = `/${command.verdict === 'approved' ? 'approve' : 'deny'} by ${login} (comment ${comment.id})`
        if (command.id === undefined) {
          // An answer must say which question it answers: a bare /approve meant for an earlier
          // question (or another run's) must not approve this one. A writer is told so at once.
          if (!toldMissingId.has(comment.id) && !isBot(user) && !ownComment) {
            const level = await permissionOf(key, login, 'reply')
            // Not an answer: later answers may go on; this one is judged again next poll.
            if (level === undefined) continue
            if (canWrite(level)) await tellMissingId(comment, command, request, posted)
          }
          ignore(key, `${what} names no request id (the answer must be /approve ${request.id})`)
          continue
        }
        if (command.id.toLowerCase() !== request.id.toLowerCase()) {
          ignore(key, `${what} names request ${oneLine(command.id, 40)}, not ${request.id}`)
          continue
        }
        if (isBot(user)) {
          ignore(key, `${what}: bots cannot answer`)
          continue
        }
        if (ownComment) {
          ignore(key, `${what}: written by the action's own identity`)
          continue
        }
        const level = await permissionOf(key, login, 'answer')
        // Later answers must not overtake this one: try again at the next poll.
        if (level === undefined) return undefined
        if (!canWrite(level)) {
          ignore(
            key,
            `${what}: they have ${level} permission on ${where.owner}/${where.repo}; write, maintain or admin is needed`
          )
          continue
        }
        return { comment, login, command }
      }
      return undefined
    }

    try {
      let failing = false
      for (;;) {
        await sleep(Math.min(pollMs, Math.max(0, deadline - now())), signal)
        let comments: ListedComment[] = []
        try {
          comments = await list(posted, signal)
          if (failing) log.info(`Reading the comments of ${conversation} works again`)
          failing = false
        } catch (error) {
          if (signal.aborted) throw abortError(signal)
          const message = `Could not read the comments of ${conversation} for approval request ${request.id}: ${oneLine(messageOf(error))}; still waiting`
          if (failing) log.debug(message)
          else log.warning(message)
          failing = true
        }
        const found = await firstAnswer(comments)
        if (signal.aborted) throw abortError(signal)
        if (found) {
          const { comment, login, command } = found
          const answer: AskAnswer = {
            verdict: command.verdict,
            by: login,
            at: iso(),
            ...(command.reason === undefined ? {} : { reason: command.reason }),
            ...(comment.html_url === undefined ? {} : { commentUrl: comment.html_url }),
            ...askUrl,
            askedAt
          }
          log.info(
            `Approval request ${request.id} ${command.verdict} by ${login}${command.reason === undefined ? '' : `: ${oneLine(command.reason)}`}`
          )
          await appendOutcome(posted, renderOutcome(answer, timeoutMs))
          return answer
        }
        if (now() >= deadline) {
          const answer: AskAnswer = { verdict: 'timeout', at: iso(), ...askUrl, askedAt }
          log.info(
            `Approval request ${request.id}: no answer within ${formatMinutes(timeoutMs)}; denied`
          )
          await appendOutcome(posted, renderOutcome(answer, timeoutMs))
          return answer
        }
      }
    } catch (error) {
      if (signal.aborted) {
        log.info(`Approval request ${request.id}: aborted while waiting for an answer`)
        await appendOutcome(posted, renderOutcome({ verdict: 'aborted', at: iso() }, timeoutMs))
        throw abortError(signal)
      }
      throw error
    }
  }

  return {
    ask: async (request, signal) => {
      const previous = tail
      let release!: () => void
      tail = new Promise<void>((resolve) => (release = resolve))
      try {
        await until(previous, signal)
        return await serve(request, signal)
      } finally {
        // Free the turn once the previous ask is done too (it may still run when this one aborted).
        void previous.then(release)
      }
    }
  }
}
