/**
 * The action's post step (action.yml `post:`, `post-if: always()`): puts back the checkout
 * credentials a run took out of the workspace's git config, and the instruction files it moved
 * aside, when the run could not (it crashed, or was cancelled and killed). The main step names
 * each stash with core.saveState; a run that restored them itself left no stash, and this does
 * nothing. Never fails the job.
 */
import * as core from '@actions/core'
import { log } from './log.js'
import { restoreCredentials } from './session/credentials.js'
import { restoreInstructionFiles } from './session/instruction-files.js'

/** The state the main step saves: the directory of the credentials stash. */
export const CREDENTIALS_STATE = 'credentials-stash'
/** The same for the instruction files kept from the CLI (session/instruction-files.ts). */
export const INSTRUCTIONS_STATE = 'instruction-files-stash'

export function postRun(): void {
  restoreCheckoutCredentials()
  restoreInstructions()
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
