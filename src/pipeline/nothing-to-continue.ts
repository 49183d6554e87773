/**
 * A bare `/continue` that resumed nothing (the last run was done, or there was no checkpoint to
 * continue): no session starts, since the comment gave the agent no task. The run ends `skipped`
 * without failing the step (a maintainer's harmless request; `resume: required` fails before
 * this), and the sticky comment says why and what to do instead.
 */
import { checkpointMarker } from '../checkpoint/format.js'
import type { ResumeOutcome } from '../checkpoint/resume.js'
import { messageOf } from '../errors.js'
import { log } from '../log.js'
import type { CommentPublisher } from '../reporting/publish-comment.js'
import { setOutputs, writeJobSummary } from '../reporting/redacted-writes.js'
import { renderNothingToContinue } from '../reporting/render.js'
import type { Target } from '../reporting/target.js'
import type { RunResult } from './outcome.js'

export interface NothingToContinueOptions {
  /** What the resume found: refused (auto), or not looked for (`resume: never`). */
  resume: Exclude<ResumeOutcome, { kind: 'resumed' }>
  target: Target
  comments: CommentPublisher | undefined
  runUrl: string | undefined
  secrets: readonly string[]
}

/** Says why nothing ran (comment, job summary, log) and sets `status: skipped`. */
export async function endNothingToContinue(options: NothingToContinueOptions): Promise<RunResult> {
  const { resume, target } = options
  const where = target.kind === 'none' ? '' : ` on #${target.number}`
  const reason =
    resume.kind === 'refused'
      ? resume.reason
      : `this workflow does not resume runs (resume: never), so there is no checkpoint${where} to continue.`
  const body = renderNothingToContinue({
    reason,
    hasFix: resume.kind === 'refused' && resume.fix !== undefined,
    ...(options.runUrl === undefined ? {} : { runUrl: options.runUrl }),
    secrets: options.secrets
  })
  log.notice(
    `Nothing to continue: ${reason} No session started: /continue without instructions only continues a run that stopped (status: skipped).`
  )
  const outputs: Record<string, string> = { status: 'skipped' }
  if (options.comments) {
    // The checkpoint the last run's comment vouched for stays vouched for: this run wrote none,
    // and a later `/copilot <task>` (or `/continue` after a stop) may still resume it.
    const vouched = resume.kind === 'refused' ? resume.vouched : undefined
    const published = await options.comments.publish(
      vouched === undefined ? body : `${body}\n${checkpointMarker(vouched.runId, vouched.digest)}`
    )
    if (published.fallback) log.warning(published.fallback)
    if (published.url !== undefined) outputs['comment-url'] = published.url
  }
  try {
    await writeJobSummary(body)
  } catch (error) {
    log.warning(`Could not write the job summary: ${messageOf(error)}`)
  }
  return { report: null, outputs: setOutputs(outputs) }
}
