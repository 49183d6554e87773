/**
 * Everything a run leaves behind, from its Report: the JSON report file, the step outputs, the
 * sticky comment and the job summary. Each can fail on its own without losing the others.
 */
import { messageOf } from '../errors.js'
import { log, redactSecretsDeep } from '../log.js'
import { defaultApiUrl } from '../github/client.js'
import type { Settings } from '../settings.js'
import { actionOutputs } from './outputs.js'
import { setOutputs, writeJobSummary, writeJsonFile } from './redacted-writes.js'
import { checkpointMarker } from '../checkpoint/format.js'
import { createCommentPublisher, type CommentPublisher } from './publish-comment.js'
import { renderComment, renderSummary } from './render.js'
import { resolveTarget, type Target } from './target.js'
import { runnerRepository, type RunnerEvent } from '../github/event.js'
import { checkoutOriginUrl, parseRemoteUrl } from '../github/origin.js'
import type { CheckoutRecord, Report, RunRecord } from './types.js'

export interface PublishOptions {
  settings: Settings
  comments: CommentPublisher | undefined
  runUrl: string | undefined
  /** The session's events.jsonl, kept as evidence, when it exists. */
  eventsPath: string | undefined
}

/** Writes the report, posts the comment, sets every output, writes the job summary. */
export async function publish(
  report: Report,
  options: PublishOptions
): Promise<Record<string, string>> {
  const { settings, comments, runUrl } = options
  // The one door (redacted-writes.ts): the report is redacted whole, once complete, before
  // anything is rendered from it; every writer below redacts what it writes once more.
  report = redactSecretsDeep(
    withRunContext(report, process.env, checkoutOriginUrl(settings.workingDirectory))
  )
  let reportPath: string | undefined = settings.reportPath
  try {
    writeJsonFile(settings.reportPath, report)
  } catch (error) {
    log.warning(`Could not write the report to ${settings.reportPath}: ${messageOf(error)}`)
    reportPath = undefined
  }
  let summaryNote = ''
  let commentUrl: string | undefined
  if (comments) {
    const body = renderComment(report, {
      marker: comments.marker,
      runUrl,
      prompt: settings.prompt,
      secrets: settings.secrets
    })
    // The checkpoint's digest, last, where only the action writes: what a resume checks it against.
    const checkpoint = report.checkpoint
    const published = await comments.publish(
      checkpoint === undefined
        ? body
        : `${body}\n${checkpointMarker(process.env.GITHUB_RUN_ID ?? 'local', checkpoint.sha256)}`
    )
    commentUrl = published.url
    if (published.fallback) {
      log.warning(published.fallback)
      summaryNote = `> [!WARNING]\n> The PR comment could not be written: ${published.fallback.replace(/\n/g, ' ')}\n\n`
    }
  }
  const outputs: Record<string, string> = setOutputs(
    actionOutputs(report, {
      reportPath,
      commentUrl,
      eventsPath: options.eventsPath,
      ...(report.checkpoint === undefined ? {} : { checkpointPath: report.checkpoint.path })
    })
  )
  try {
    await writeJobSummary(summaryNote + renderSummary(report, { runUrl }))
  } catch (error) {
    log.warning(`Could not write the job summary: ${messageOf(error)}`)
  }
  return outputs
}

/**
 * The report with the repository and commit it ran on, from the runner's environment, so the
 * comment can link files as the run saw them (the checkout's HEAD when git told it, else
 * GITHUB_SHA). The repository is the checkout's `origin` (`originUrl`) when that names one on the
 * run's server, else the workflow's: in a run over many repositories they differ. The workflow
 * run's link goes in too, for a roll-up. A report that has them keeps them.
 */
export function withRunContext(report: Report, env: NodeJS.ProcessEnv, originUrl?: string): Report {
  const server = (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, '')
  const workflowRepo = runnerRepository(env)
  const remote = originUrl === undefined ? undefined : parseRemoteUrl(originUrl)
  const serverHost = hostOf(server)
  const checkout: CheckoutRecord | undefined =
    remote !== undefined && serverHost !== undefined && remote.host === serverHost
      ? { repository: `${remote.owner}/${remote.name}`, from: 'origin' }
      : workflowRepo !== undefined
        ? { repository: `${workflowRepo.owner}/${workflowRepo.repo}`, from: 'workflow' }
        : undefined
  const commit = report.changes?.base ?? env.GITHUB_SHA
  const run = runRecord(env)
  return {
    ...report,
    ...(report.repository === undefined && checkout !== undefined
      ? { repository: `${server}/${checkout.repository}` }
      : {}),
    ...(report.checkout === undefined && checkout !== undefined ? { checkout } : {}),
    ...(report.run === undefined && run !== undefined ? { run } : {}),
    ...(report.commit === undefined && commit !== undefined && /^[0-9a-f]{7,64}$/i.test(commit)
      ? { commit }
      : {})
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase()
  } catch {
    return undefined
  }
}

/** The workflow run (this attempt) and the job, from the runner's environment. */
function runRecord(env: NodeJS.ProcessEnv): RunRecord | undefined {
  const url = runUrl(env)
  const id = env.GITHUB_RUN_ID
  if (url === undefined || id === undefined) return undefined
  const attempt = Number(env.GITHUB_RUN_ATTEMPT)
  const hasAttempt = Number.isSafeInteger(attempt) && attempt > 0
  return {
    url: hasAttempt ? `${url}/attempts/${attempt}` : url,
    id,
    ...(hasAttempt ? { attempt } : {}),
    ...(env.GITHUB_JOB ? { job: env.GITHUB_JOB } : {})
  }
}

/** The sticky comment's publisher, or undefined (with a notice) when there is nothing to comment on. */
export function commentPublisher(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  target: Target
): CommentPublisher | undefined {
  if (settings.comment === 'off') return undefined
  if (target.kind === 'none') {
    log.notice(`No PR comment: ${target.reason} The report is in the job summary.`)
    return undefined
  }
  if (!settings.githubToken) {
    log.warning(
      "No PR comment: the input 'github-token' is empty. The report is in the job summary."
    )
    return undefined
  }
  return createCommentPublisher({
    token: settings.githubToken,
    apiUrl: defaultApiUrl(env),
    target,
    key: settings.commentKey,
    mode: settings.comment,
    log
  })
}

/** The PR or issue the run reports on (and asks on): the issue-number input, else the event's. */
export function commentTarget(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  event: RunnerEvent
): Target {
  const repo = runnerRepository(env)
  if (!repo)
    return { kind: 'none', reason: 'GITHUB_REPOSITORY is not set (not running on a runner).' }
  return resolveTarget({
    eventName: event.name,
    payload: event.payload,
    ...(settings.issueNumber === undefined ? {} : { issueNumber: settings.issueNumber }),
    repo
  })
}

/** The workflow run's page, when running on a runner. */
export function runUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: id } = env
  return server && repo && id ? `${server}/${repo}/actions/runs/${id}` : undefined
}
