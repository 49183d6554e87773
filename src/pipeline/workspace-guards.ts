/**
 * What is set aside or watched around the session, and put back after it: the checkout's
 * credentials (session/credentials.ts), instruction files that lead out of the workspace
 * (session/instruction-files.ts), the workspace audit (session/audit.ts) and the caches the
 * sandbox makes under HOME (session/home-caches.ts). Each says what it did in the log and records
 * it in the run's state; the post step finds the stashes should the run not get to put them back.
 */
import path from 'node:path'
import * as core from '@actions/core'
import { messageOf } from '../errors.js'
import { addSecrets, log } from '../log.js'
import { CREDENTIALS_STATE, INSTRUCTIONS_STATE } from '../post-run.js'
import { AUDIT_INCOMPLETE, type AuditReport, type WorkspaceAudit } from '../session/audit.js'
import { restoreCredentials, stashCredentials, type StashRecord } from '../session/credentials.js'
import type { HomeCaches } from '../session/home-caches.js'
import { restoreInstructionFiles, stashInstructionFiles } from '../session/instruction-files.js'
import type { StateRecorder } from '../session/recorder.js'
import type { Settings } from '../settings.js'
import { removePrivateHome } from '../wall/cli-wall.js'

/** What the run set aside or watches while the session runs, to put back or check after it. */
export interface Guards {
  audit?: WorkspaceAudit
  homeCaches?: HomeCaches
  credentialsStash?: string
  instructionsStash?: string
  /**
   * The run's directory (settings.tempDir), in which the CLI's private HOME behind its wall is
   * (wall/cli-wall.ts): removed once the CLI is gone, if a CLI of the run had one.
   */
  privateHomeIn?: string
  /**
   * Kills whatever the run's commands left running (pipeline/command-confinement.ts): first of
   * all once the CLI is gone, before the late audit, the patch and the proposals.
   */
  sweep?: () => Promise<void>
}

/**
 * After the session: once the CLI (and every process the agent started in its sandbox with it) is
 * gone, and whatever the run's commands left running is killed, what was written after the last
 * audit is audited too, HOME's caches are swept, the credentials go back, the CLI's private HOME
 * is removed, then the patch is written and the instruction files go back.
 */
export async function releaseGuards(
  guards: Guards,
  cliStopped: Promise<void> | undefined,
  env: NodeJS.ProcessEnv,
  recorder: StateRecorder,
  /** Runs once nothing runs in the workspace any more and the audit is done, before the stashed instruction files go back (the patch). */
  settled?: () => Promise<void>
): Promise<void> {
  if (guards.sweep !== undefined) {
    await cliStopped?.catch(() => undefined)
    try {
      await guards.sweep()
    } catch (error) {
      log.warning(`Could not look for processes left running: ${messageOf(error)}`)
    }
  }
  try {
    if (guards.audit !== undefined || guards.credentialsStash !== undefined) {
      await cliStopped?.catch(() => undefined)
      await lateAudit(guards.audit, recorder)
      sweepHomeCaches(guards.homeCaches)
      if (guards.credentialsStash !== undefined) {
        restoreCheckoutCredentials(guards.credentialsStash, env, recorder)
      }
    }
    if (guards.privateHomeIn !== undefined) {
      await cliStopped?.catch(() => undefined)
      removeCliHome(guards.privateHomeIn)
    }
    if (settled !== undefined) {
      await cliStopped?.catch(() => undefined)
      await settled()
    }
  } finally {
    // only now: the agent's changes are recorded from the audit's store too (session/changes.ts)
    guards.audit?.discard()
  }
  if (guards.instructionsStash !== undefined) {
    await cliStopped?.catch(() => undefined)
    restoreUnsafeInstructions(guards.instructionsStash, recorder)
  }
}

/** Records an audit's result and says each violation in the log. */
export function reportAudit(result: AuditReport, recorder: StateRecorder): void {
  recorder.record({ type: 'audit', result })
  for (const n of result.notes ?? []) {
    log.info(`Workspace audit: ${n.path} was ${n.change}: ${n.reason}`)
  }
  for (const v of result.violations) {
    log.warning(
      `Workspace audit: ${v.path} was ${v.change}, which ${v.rule === 'default' ? 'no write rule allows' : `rule ${v.rule} forbids`}${v.command ? ` (the command: ${v.command})` : ''}; ${v.reverted ? 'put back' : `NOT put back: ${v.note ?? 'unknown reason'}`}`
    )
  }
}

/** HOME's caches the CLI made for the session go with it (session/home-caches.ts). */
function sweepHomeCaches(guard: HomeCaches | undefined): void {
  if (guard === undefined) return
  try {
    const removed = guard.sweep()
    if (removed.length > 0) {
      log.info(
        `Removed the caches the sandbox made under HOME for the session: ${removed.join(', ')}`
      )
    }
  } catch (error) {
    log.warning(`Could not remove the caches the sandbox made under HOME: ${messageOf(error)}`)
  }
}

/** The CLI's private HOME goes with it (wall/cli-wall.ts). */
function removeCliHome(tempDir: string): void {
  try {
    if (removePrivateHome(tempDir)) log.info("Removed the Copilot CLI's private HOME of the run")
  } catch (error) {
    log.warning(`Could not remove the Copilot CLI's private HOME of the run: ${messageOf(error)}`)
  }
}

/** The audit once the CLI is gone (late writes); a failure fails the run. */
async function lateAudit(
  audit: WorkspaceAudit | undefined,
  recorder: StateRecorder
): Promise<void> {
  if (audit === undefined) return
  try {
    await audit.lateCheck()
  } catch (error) {
    // unchecked is not clean: the run fails as a policy violation that names the failure
    reportAudit(
      {
        changed: 0,
        complete: false,
        violations: [
          {
            path: '.',
            change: 'changed',
            rule: AUDIT_INCOMPLETE,
            reason: `the workspace audit after the session failed: ${messageOf(error)}`,
            reverted: false,
            note: 'not checked'
          }
        ]
      },
      recorder
    )
  }
}

/**
 * Takes the checkout's credentials out of the workspace's git config for the session
 * (session/credentials.ts); the post step finds the stash through the saved state should the run
 * not get to put them back. Returns the stash directory.
 */
export function stashCheckoutCredentials(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  recorder: StateRecorder
): string {
  const stashDir = path.join(settings.tempDir, 'credentials')
  let record: StashRecord
  try {
    record = stashCredentials(settings.raw.workspace, stashDir, {
      directories: [settings.workingDirectory],
      env,
      onSecret: (secret) => addSecrets([secret]),
      beforeChange: () => core.saveState(CREDENTIALS_STATE, stashDir)
    })
  } catch (error) {
    // Whatever was taken out so far goes back; the session does not start with a half-done job.
    try {
      restoreCredentials(stashDir, { env })
    } catch {
      // the post step tries again
    }
    throw new Error(
      `Could not take the checkout credentials out of the workspace's git config: ${messageOf(error)}`,
      { cause: error }
    )
  }
  if (record.removed.length > 0) {
    recorder.record({ type: 'credentials', record: { removed: record.removed, restored: false } })
    log.info(
      `Took the checkout credentials out of ${record.files.join(', ')} for the session: ${record.removed.join(', ')}`
    )
  }
  return stashDir
}

/**
 * Moves aside the instruction files the CLI would read from an untrusted tree although they lead
 * out of the workspace or are not regular files (session/instruction-files.ts); the post step
 * finds the stash through the saved state should the run not get to put them back. Returns the
 * stash directory, or undefined when nothing was moved.
 */
export function stashUnsafeInstructions(
  settings: Settings,
  recorder: StateRecorder
): string | undefined {
  const stashDir = path.join(settings.tempDir, 'instruction-files')
  let kept: ReturnType<typeof stashInstructionFiles>
  try {
    kept = stashInstructionFiles(settings.raw.workspace, settings.workingDirectory, stashDir, {
      beforeChange: () => core.saveState(INSTRUCTIONS_STATE, stashDir)
    })
  } catch (error) {
    try {
      restoreInstructionFiles(stashDir)
    } catch {
      // the post step tries again
    }
    throw new Error(
      `Could not keep the instruction files that lead out of the workspace from the Copilot CLI: ${messageOf(error)}`,
      { cause: error }
    )
  }
  if (kept.length === 0) return undefined
  recorder.record({ type: 'instruction-files', record: { kept, restored: false } })
  log.warning(
    `Kept from the Copilot CLI for the session (they lead out of the workspace or are not regular files, and the CLI reads instruction files by itself): ${kept.map((file) => `${file.path} (${file.reason})`).join(', ')}`
  )
  return stashDir
}

/** A put-back's record, and what it could not put back (its failures, or what it threw). */
function attempt<T extends { failed: readonly string[] }>(
  restore: () => T
): { record?: T; error?: string } {
  try {
    const record = restore()
    return record.failed.length > 0 ? { record, error: record.failed.join('; ') } : { record }
  } catch (caught) {
    return { error: messageOf(caught) }
  }
}

/** How a put-back went, for the run's state; a failure is logged: the post step tries again. */
function putBackOutcome(
  what: string,
  error: string | undefined
): { restored: boolean; error?: string } {
  if (error === undefined) return { restored: true }
  log.warning(`Could not put ${what} back (the post step tries again): ${error}`)
  return { restored: false, error }
}

/** Puts the instruction files back after the session; a failure is left to the post step. */
function restoreUnsafeInstructions(stashDir: string, recorder: StateRecorder): void {
  const kept = recorder.state.instructionFiles?.kept ?? []
  const { record, error } = attempt(() => restoreInstructionFiles(stashDir))
  if (record && record.restored.length > 0) {
    log.info(`Put the instruction files back: ${record.restored.join(', ')}`)
  }
  recorder.record({
    type: 'instruction-files',
    record: { kept, ...putBackOutcome('the instruction files', error) }
  })
}

/** Puts the credentials back after the session; a failure is reported, and left to the post step. */
function restoreCheckoutCredentials(
  stashDir: string,
  env: NodeJS.ProcessEnv,
  recorder: StateRecorder
): void {
  const removed = recorder.state.credentials?.removed ?? []
  const { record, error } = attempt(() => restoreCredentials(stashDir, { env }))
  if (record && !record.found) return
  if (record && record.restored.length > 0) {
    log.info(`Put the checkout credentials back into ${record.restored.join(', ')}`)
  }
  if (record && record.merged.length > 0) {
    log.warning(
      `${record.merged.join(', ')} changed during the session: the checkout credentials were added back to it entry by entry.`
    )
  }
  recorder.record({
    type: 'credentials',
    record: { removed, ...putBackOutcome('the checkout credentials', error) }
  })
}
