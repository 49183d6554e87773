/**
 * The action's post step (action.yml `post:`, `post-if: always()`): when the run could not finish
 * itself (it crashed, or was cancelled and killed), ends every process it left running (the CLI,
 * what the agent's commands started: they carry the run's mark), removes the CLI's private HOME,
 * and puts back the checkout credentials a run took out of the workspace's git config and the
 * instruction files it moved aside. The main step names each with core.saveState; a run that
 * cleaned up itself left nothing to do, and this does nothing. Never fails the job.
 */
import * as core from '@actions/core'
import { log } from './log.js'
import { restoreCredentials } from './session/credentials.js'
import { restoreInstructionFiles } from './session/instruction-files.js'
import { removePrivateHome } from './wall/cli-wall.js'
import { runMark, sweepMarked } from './wall/process-sweep.js'

/** The state the main step saves: the directory of the credentials stash. */
export const CREDENTIALS_STATE = 'credentials-stash'
/** The same for the instruction files kept from the CLI (session/instruction-files.ts). */
export const INSTRUCTIONS_STATE = 'instruction-files-stash'

/** The state the main step saves: the run's own directory, and the mark its processes carry. */
export const RUN_DIR_STATE = 'run-dir'
export const RUN_MARK_STATE = 'run-mark'

/** Called by the main step before it starts anything of a run: what the post step cleans up. */
export function rememberRun(tempDir: string): void {
  core.saveState(RUN_DIR_STATE, tempDir)
  core.saveState(RUN_MARK_STATE, runMark(tempDir))
}

export async function postRun(): Promise<void> {
  // first: nothing the run left running may change what is put back next
  await endLeftovers()
  restoreCheckoutCredentials()
  restoreInstructions()
}

/** A command line's program, without its arguments (which may quote what the run saw). */
function programOf(commandLine: string): string {
  return (commandLine.split(' ')[0] ?? '').split('/').pop() ?? ''
}

/** Kills what the run left running and removes the CLI's private HOME, when the run could not. */
async function endLeftovers(): Promise<void> {
  const mark = core.getState(RUN_MARK_STATE)
  if (mark !== '') {
    try {
      const killed = await sweepMarked(mark, mark, [process.pid, process.ppid])
      if (killed.length > 0) {
        log.warning(
          `Killed ${killed.length} process${killed.length === 1 ? '' : 'es'} the run left running (it could not end them itself): ${killed.map((p) => `${p.pid} (${p.step}: ${programOf(p.commandLine)})`).join(', ')}`
        )
      }
    } catch (error) {
      log.warning(
        `Could not look for processes the run left running: ${error instanceof Error ? error.message : String(error)}`
      )
    }
  }
  const tempDir = core.getState(RUN_DIR_STATE)
  if (tempDir === '') return
  try {
    if (removePrivateHome(tempDir)) {
      log.info("Removed the Copilot CLI's private HOME the run left (it could not).")
    }
  } catch (error) {
    log.warning(
      `Could not remove the Copilot CLI's private HOME of the run: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}

/** Puts back the instruction files a run moved aside, when it could not. */
function restoreInstructions(): void {
  const stashDir = core.getState(INSTRUCTIONS_STATE)
  if (stashDir === '') return
  try {
    const record = restoreInstructionFiles(stashDir)
    if (record.restored.length > 0) {
      log.info(`Put the instruction files back: ${record.restored.join(', ')} (the run could not).`)
    }
    if (record.failed.length > 0) {
      log.warning(
        `Could not put the instruction files back: ${record.failed.join('; ')}. They stay in ${stashDir}.`
      )
    }
  } catch (error) {
    log.warning(
      `Could not put the instruction files back: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}

function restoreCheckoutCredentials(): void {
  const stashDir = core.getState(CREDENTIALS_STATE)
  if (stashDir === '') return
  try {
    const record = restoreCredentials(stashDir)
    if (!record.found) return
    if (record.restored.length > 0) {
      log.info(
        `Put the checkout credentials back into ${record.restored.join(', ')} (the run could not).`
      )
    }
    if (record.merged.length > 0) {
      log.warning(
        `${record.merged.join(', ')} changed during the session: the checkout credentials were added back to it entry by entry.`
      )
    }
    if (record.failed.length > 0) {
      log.warning(
        `Could not put the checkout credentials back: ${record.failed.join('; ')}. Later steps that push or fetch with them fail; the stash stays in ${stashDir}.`
      )
    }
  } catch (error) {
    log.warning(
      `Could not put the checkout credentials back: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}
