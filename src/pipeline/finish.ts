/**
 * The run's end, once the session and the CLI are done: the report from the run's state, the
 * redacted copy of the session's events, the comment, summary and outputs (reporting/publish.ts),
 * and the step's result.
 */
import fs from 'node:fs'
import path from 'node:path'
import { cliHome } from '../cli/early.js'
import { keepCheckpoint } from '../checkpoint/keep.js'
import type { Target } from '../reporting/target.js'
import { log } from '../log.js'
import type { LiveComment } from '../reporting/progress.js'
import { publish } from '../reporting/publish.js'
import type { CommentPublisher } from '../reporting/publish-comment.js'
import { toReport } from '../reporting/report.js'
import type { Report } from '../reporting/types.js'
import type { StateRecorder } from '../session/recorder.js'
import type { WriteBack } from '../session/write-back.js'
import type { Settings } from '../settings.js'
import { conclude, redactedEvents, type RunResult } from './outcome.js'

export interface FinishOptions {
  settings: Settings
  recorder: StateRecorder
  /** The "working" comment posted at the start: the final one waits for it. */
  working: Promise<void> | undefined
  live: LiveComment | undefined
  /** Resolves when the CLI has exited (it writes its events until then). */
  cliStopped: Promise<void> | undefined
  comments: CommentPublisher | undefined
  runUrl: string | undefined
  /** The run's secrets, normalized (text/safe-text.ts normalizeSecrets). */
  secrets: readonly string[]
  clean: (text: string) => string
  /** The patch and the proposals: they decorate the report and add their outputs. */
  writeBack: WriteBack
  /** The pull request or issue the run is for (the checkpoint names it). */
  target: Target
  /** What the run's report starts from besides its state: the chain it continues (resume). */
  decorate?: (report: Report) => Report
}

export async function finishRun({
  settings,
  recorder,
  working,
  live,
  cliStopped,
  comments,
  runUrl,
  secrets,
  clean,
  writeBack,
  target,
  decorate
}: FinishOptions): Promise<RunResult> {
  if (settings.maxTokens !== undefined && recorder.state.eventModels.size === 0) {
    if (recorder.state.sessionId !== null) {
      log.warning(
        'max-tokens was set, but the Copilot CLI reported no token usage for this run, so the budget could not be enforced.'
      )
    }
  }
  try {
    await working
    await live?.stop()
    let report = writeBack.decorate(toReport(recorder.state, { endedAt: new Date().toISOString() }))
    if (decorate) report = decorate(report)
    const sessionId = recorder.state.sessionId
    const events = sessionId
      ? path.join(cliHome(settings), 'session-state', sessionId, 'events.jsonl')
      : undefined
    // The CLI's own file holds raw secrets when any reached the session: the output points at a
    // redacted copy, written once the CLI is gone (it writes events until it exits).
    await cliStopped?.catch(() => undefined)
    const eventsPath =
      events && fs.existsSync(events) ? await redactedEvents(events, settings, secrets) : undefined
    // The session's state folder is complete once the CLI is gone: the checkpoint of the run.
    const checkpoint = keepCheckpoint({ settings, env: process.env, report, target, secrets })
    if (checkpoint) report = { ...report, checkpoint }
    const outputs = await publish(report, {
      settings,
      comments,
      runUrl,
      eventsPath
    })
    Object.assign(outputs, writeBack.outputs())
    conclude(report, clean)
    return { report, outputs }
  } finally {
    await cliStopped
  }
}
