/**
 * The trusted-actor gate. On events anyone can cause (a comment, a review, an issue, a pull
 * request, including one from a fork), the CLI only starts when the triggering actor has write,
 * maintain or admin permission on the repository, or is listed in `allowed-actors`. Everything
 * else (push, schedule, workflow_dispatch, …) needs write access to trigger already and runs.
 *
 * The actors are `GITHUB_TRIGGERING_ACTOR` (who started this run, also for a re-run), the
 * event's `sender` and, on a comment or review event, the comment's or review's author: each
 * must pass. Such an event starts the agent only when the comment was `created` (a review
 * `submitted`): when one is edited or deleted, the sender is not who wrote the text. Bots
 * (`dependabot[bot]`, `renovate[bot]`) cannot be collaborators: they run only when listed. Any
 * doubt (no actor, no author, an API failure) refuses: the gate fails closed.
 *
 * Reasons are plain text for a notice or a log line; they contain the actor's login, so render
 * them in markdown only through the neutralizers of text/safe-text.ts.
 */
import { z } from 'zod'
import { messageOf } from '../errors.js'
import { clip } from '../text/safe-text.js'
import type { GitHubClient } from './client.js'
import { AUTHORED_EVENTS, isGatedEvent } from './gated-events.js'
import type { PermissionLevel, RepoRef } from './repo-permissions.js'
import { canWrite, repositoryPermission } from './repo-permissions.js'

/**
 * The people behind a gated event: the triggering actor (who started this run, e.g. a re-run),
 * the event's sender (who commented, opened the PR) and, on a comment or review event, the
 * comment's or review's author. All must be trusted: a maintainer re-running a stranger's
 * skipped run must not run the stranger's text. `refusal`: the event cannot start the agent
 * whoever is behind it (a comment edited or deleted; no author in the payload).
 */
export type GateSubject = { gated: false } | { gated: true; actors: string[]; refusal?: string }

export interface GateSubjectInput {
  eventName: string
  /**
   * The event payload (`github.context.payload`); `sender.login`, `action` and the author
   * (`comment.user.login`, `review.user.login`) are read.
   */
  payload: unknown
  env: Readonly<Record<string, string | undefined>>
}

const Login = z.object({ login: z.string() }).nullish()
const GatePayload = z.object({
  action: z.string().nullish(),
  sender: Login,
  comment: z.object({ user: Login }).nullish(),
  review: z.object({ user: Login }).nullish(),
  issue: z.object({ user: Login }).nullish(),
  pull_request: z.object({ user: Login }).nullish()
})

/**
 * Events whose text (the title and body) is the issue's or pull request's own: when one is
 * `edited`, its author's text may run, so the author is judged too. (Not on `labeled`: a
 * maintainer labelling a stranger's issue or pull request is how they approve its run.)
 */
const EDITED_TEXT: Readonly<Record<string, 'issue' | 'pull_request'>> = {
  issues: 'issue',
  pull_request: 'pull_request',
  pull_request_target: 'pull_request'
}

/** Whether the event is gated, by whom it was triggered and written, and whether it may start. */
export function gateSubject({ eventName, payload, env }: GateSubjectInput): GateSubject {
  if (!isGatedEvent(eventName)) return { gated: false }
  const parsed = GatePayload.safeParse(payload)
  const data = parsed.success ? parsed.data : undefined
  const authored = AUTHORED_EVENTS[eventName]
  const edited = EDITED_TEXT[eventName]
  const author = authored
    ? data?.[authored.object]?.user?.login.trim()
    : edited !== undefined && data?.action?.trim() === 'edited'
      ? data[edited]?.user?.login.trim()
      : undefined
  const candidates = [env.GITHUB_TRIGGERING_ACTOR?.trim(), data?.sender?.login.trim(), author]
  const actors: string[] = []
  for (const login of candidates) {
    if (login && !isListed(login, actors)) actors.push(login)
  }
  if (!authored) return { gated: true, actors }
  const action = data?.action?.trim() ?? ''
  const sender = data?.sender?.login.trim()
  if (action !== authored.starts) {
    const by = [
      author ? `written by ${author}` : undefined,
      sender && action !== '' ? `${action} by ${sender}` : undefined
    ].filter((part) => part !== undefined)
    return {
      gated: true,
      actors,
      refusal: `Skipped: this ${eventName} event is ${action === '' ? 'of no action' : `a ${authored.object} ${action}`}${by.length > 0 ? ` (${by.join(', ')})` : ''}, not a new one: the agent starts only for a ${authored.starts} ${authored.object}, so that editing or deleting someone's ${authored.object} never runs its text. Filter the workflow with \`types: [${authored.starts}]\`.`
    }
  }
  if (!author) {
    return {
      gated: true,
      actors,
      refusal: `Skipped: could not tell who wrote the ${authored.object} of this ${eventName} event (no ${authored.object}.user in the payload), so their permission cannot be checked.`
    }
  }
  return { gated: true, actors }
}

/**
 * Logins from the `allowed-actors` input: separated by commas or newlines, trimmed, a leading `@`
 * dropped, empties ignored. Compare them case-insensitively (see {@link isListed}).
 */
export function parseActorList(raw: string): string[] {
  return raw
    .split(/[,\r\n]+/)
    .map((item) => item.trim().replace(/^@/, '').trim())
    .filter((item) => item !== '')
}

/** Whether `login` is in `list`, ignoring case (GitHub logins are case-insensitive). */
export function isListed(login: string, list: readonly string[]): boolean {
  const wanted = login.toLowerCase()
  return list.some((item) => item.toLowerCase() === wanted)
}

/** A bot account: cannot be a collaborator. */
export function isBotLogin(login: string): boolean {
  return /\[bot\]$/i.test(login)
}

export interface CheckActorInput extends GateSubjectInput {
  /** Parsed `allowed-actors` (see {@link parseActorList}). */
  allowedActors: readonly string[]
  /** `allow-any-actor: true`: no gate at all. */
  allowAnyActor: boolean
  client: GitHubClient
  repo: RepoRef
}

export type ActorCheck =
  { run: true; reason: string } | { run: false; actor: string; reason: string }

/** An error message on one short line. */
function oneLine(text: string): string {
  return clip(text.replace(/\s+/g, ' ').trim(), 300)
}

const FIX = 'To let them run it, add them to allowed-actors, or give them write access.'

/**
 * Whether the CLI may start. `{run: false}` carries the actor (`''` when none was found) and a
 * reason saying who, why, and the fix. Never throws: an API failure refuses with the error in the
 * reason. Makes an API call only when the gate is on, the event is gated and the actor is neither
 * listed nor a bot.
 */
export async function checkActor(input: CheckActorInput): Promise<ActorCheck> {
  const { eventName, repo } = input
  const where = `${repo.owner}/${repo.repo}`
  const subject = gateSubject(input)
  if (!subject.gated) {
    return {
      run: true,
      reason: `${eventName || 'this'} events are not gated: only people with write access can trigger them.`
    }
  }
  if (subject.actors.length === 0 && !input.allowAnyActor) {
    return {
      run: false,
      actor: '',
      reason: `Skipped: could not tell who triggered this ${eventName} event (no GITHUB_TRIGGERING_ACTOR, no sender in the payload), so their permission on ${where} cannot be checked.`
    }
  }
  // Whoever is behind it: an edited or deleted comment is not a task (allow-any-actor or not).
  if (subject.refusal !== undefined) {
    return { run: false, actor: subject.actors.at(-1) ?? '', reason: subject.refusal }
  }
  if (input.allowAnyActor) {
    return { run: true, reason: 'allow-any-actor is on: the triggering actor is not checked.' }
  }
  const reasons: string[] = []
  for (const actor of subject.actors) {
    const check = await checkOne(actor, input)
    if (!check.run) return check
    reasons.push(check.reason)
  }
  return { run: true, reason: reasons.join(' ') }
}

async function checkOne(actor: string, input: CheckActorInput): Promise<ActorCheck> {
  const { eventName, allowedActors, client, repo } = input
  const where = `${repo.owner}/${repo.repo}`
  if (isListed(actor, allowedActors)) {
    return { run: true, reason: `${actor} is listed in allowed-actors.` }
  }
  if (isBotLogin(actor)) {
    return {
      run: false,
      actor,
      reason: `Skipped: ${eventName} was triggered by the bot ${actor}, which is not listed in allowed-actors (bots cannot have repository permissions). To let it run the action, add ${actor} to allowed-actors.`
    }
  }
  let level: PermissionLevel
  try {
    level = await repositoryPermission(client, repo, actor)
  } catch (error) {
    return {
      run: false,
      actor,
      reason: `Skipped: could not check the permission of ${actor} on ${where} (${oneLine(messageOf(error))}), and the action only runs for people with write access. ${FIX}`
    }
  }
  if (canWrite(level)) {
    return { run: true, reason: `${actor} has ${level} permission on ${where}.` }
  }
  const has = level === 'none' ? 'no permission' : `only ${level} permission`
  return {
    run: false,
    actor,
    reason: `Skipped: ${eventName} was triggered by ${actor}, who has ${has} on ${where}; the action only runs for actors with write, maintain or admin permission. ${FIX}`
  }
}
