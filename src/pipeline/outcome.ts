/**
 * How a run ends for the step: what ended a run that could not go on, the step's failure (the
 * only core.setFailed), the redacted copy of the session's events.
 */
import path from 'node:path'
import * as core from '@actions/core'
import type { CliStarter, StartedCli } from '../cli/start.js'
import { UserError, messageOf } from '../errors.js'
import { log, redactSecrets } from '../log.js'
import { writeRedactedEvents } from '../reporting/events-file.js'
import type { Report } from '../reporting/types.js'
import type { Ending } from '../session/fold.js'
import type { Settings } from '../settings.js'
import { neutralizeWorkflowCommands } from '../text/workflow-commands.js'

export interface RunResult {
  report: Report | null
  outputs: Record<string, string>
}

/** The step fails with `message`, neutralized like every line of the log (src/log.ts). */
export function failStep(message: string): void {
  core.setFailed(neutralizeWorkflowCommands(redactSecrets(message)))
}

/** What ended a run that could not go on: a cancellation, bad configuration, or a bug/outage. */
export function crash(
  error: unknown,
  signal: AbortSignal,
  settings: Settings,
  cli: CliStarter | undefined,
  clean: (text: string) => string
): Ending {
  if (signal.aborted) return { kind: 'cancelled', during: 'agent' }
  let message = messageOf(error)
  const process_ = cli?.process
  if (process_?.hasExited && !(error instanceof UserError)) {
    message += `\nLast stderr lines of the Copilot CLI:\n${process_.lastStderr(15).join('\n')}`
    if (settings.cliPath && !cli?.connected) {
      message += `\nThe executable at 'cli-path' (${settings.cliPath}) did not run as the Copilot CLI: fix 'cli-path', or remove it to let the action install 'cli-version'.`
    }
  }
  if (!(error instanceof UserError))
    log.debug(clean(error instanceof Error ? (error.stack ?? message) : message))
  return {
    kind: 'crashed',
    message: clean(message),
    type: error instanceof UserError ? 'configuration' : 'error'
  }
}

/** The step's result, in agreement with the report's status (the `status` output). */
export function conclude(report: Report, clean: (text: string) => string): void {
  if (report.status === 'completed') {
    log.info(`Completed: ${clean(report.summary ?? '')}`)
    return
  }
  failStep(clean(`Copilot run ${report.status}${report.error ? `: ${report.error.message}` : ''}`))
}

/** Resolves with a description when the CLI exits during the run. */
export function cliExit(started: StartedCli, clean: (text: string) => string): Promise<string> {
  const cli = started.process
  return cli.exited.then(
    (exit) =>
      `The Copilot CLI exited during the run (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'}). Last stderr lines:\n${clean(cli.lastStderr(15).join('\n'))}`
  )
}

/**
 * A redacted copy of the session's events.jsonl in the run's temp directory, or undefined (with a
 * warning) when it cannot be written: the output then points at nothing, never at the raw file.
 */
export async function redactedEvents(
  events: string,
  settings: Settings,
  secrets: readonly string[]
): Promise<string | undefined> {
  try {
    return await writeRedactedEvents(events, path.join(settings.tempDir, 'events.jsonl'), secrets)
  } catch (error) {
    log.warning(
      `Could not write the redacted copy of the session's events (${messageOf(error)}): the output events-path is empty.`
    )
    return undefined
  }
}
