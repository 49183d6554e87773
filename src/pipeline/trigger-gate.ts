/**
 * The trusted-actor gate as the run applies it (the decision itself: github/actor-gate.ts), and
 * the GitHub client the run's own calls use.
 */
import { checkActor, gateSubject, isListed } from '../github/actor-gate.js'
import { createGitHubClient, defaultApiUrl, type GitHubClient } from '../github/client.js'
import { runnerRepository, type RunnerEvent } from '../github/event.js'
import { log } from '../log.js'
import type { Settings } from '../settings.js'

/**
 * The trusted-actor gate: on events anyone may trigger (comments, issues, pull requests), the
 * actors (who triggered the run, the sender, a comment's or review's author) must have write
 * access or be listed in allowed-actors, and a comment or review event must be a new one
 * (github/actor-gate.ts). Returns why the run is refused, or undefined to go on.
 */
export async function refuseActor(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  event: RunnerEvent
): Promise<string | undefined> {
  const repo = runnerRepository(env)
  const subject = gateSubject({ eventName: event.name, payload: event.payload, env })
  if (!subject.gated) return undefined
  // An edited or deleted comment is nobody's new task, whoever is behind it (allow-any-actor too).
  if (subject.refusal !== undefined) return subject.refusal
  const who = subject.actors.join(' and ') || 'whoever triggered this'
  if (settings.allowAnyActor) {
    log.warning(
      `allow-any-actor is true: the agent runs for ${who} without checking their access; anyone who can trigger ${event.name} can make it run.`
    )
    return undefined
  }
  const listed = subject.actors.filter((login) => isListed(login, settings.allowedActors))
  if (subject.actors.length > 0 && listed.length === subject.actors.length) {
    log.info(`${who}: listed in allowed-actors.`)
    return undefined
  }
  if (!settings.githubToken || !repo) {
    return `The agent runs on ${event.name} events only for people with write access, and the access of ${who} cannot be checked (${repo ? "the input 'github-token' is empty" : 'GITHUB_REPOSITORY is not set'}). List them in allowed-actors, or provide github-token.`
  }
  const client = githubClient(settings.githubToken, env)
  const check = await checkActor({
    eventName: event.name,
    payload: event.payload,
    env,
    allowedActors: settings.allowedActors,
    allowAnyActor: false,
    client,
    repo
  })
  if (check.run) {
    log.info(check.reason)
    return undefined
  }
  return check.reason
}

export function githubClient(token: string, env: NodeJS.ProcessEnv): GitHubClient {
  return createGitHubClient({
    token,
    apiUrl: defaultApiUrl(env),
    log
  })
}
