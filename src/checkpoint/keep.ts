/**
 * The run's checkpoint, kept at its end (pipeline/finish.ts): once the CLI has exited (its state
 * folder no longer changes), whenever a session existed, however the run ended. Never throws: a
 * checkpoint that cannot be written is a warning, and the run's other results stand.
 */
import path from 'node:path'
import fs from 'node:fs'
import { cliHome } from '../cli/early.js'
import { messageOf } from '../errors.js'
import { log } from '../log.js'
import type { Target } from '../reporting/target.js'
import type { CheckpointRecord, Report } from '../reporting/types.js'
import type { Settings } from '../settings.js'
import { linkOf } from './chain.js'
import { CommitId, type ChainLink } from './format.js'
import { writeCheckpoint } from './write.js'

/** Where the checkpoint goes: beside the patch in RUNNER_TEMP (`<run dir>.checkpoint.json`). */
export function checkpointFile(settings: Settings): string {
  return path.join(
    path.dirname(settings.tempDir),
    `${path.basename(settings.tempDir)}.checkpoint.json`
  )
}

export interface KeepOptions {
  settings: Settings
  env: NodeJS.ProcessEnv
  report: Report
  target: Target
  /** The run's secrets, normalized. */
  secrets: readonly string[]
}

export function keepCheckpoint(options: KeepOptions): CheckpointRecord | undefined {
  const { settings, report, env } = options
  const sessionId = report.sessionId
  if (sessionId === null) return undefined
  const sessionDir = path.join(cliHome(settings), 'session-state', sessionId)
  const startCommit = report.changes?.base ?? ''
  if (!fs.existsSync(sessionDir)) {
    log.warning(`No checkpoint: the session's state folder ${sessionDir} is not there.`)
    return undefined
  }
  if (!CommitId.safeParse(startCommit).success) {
    log.warning(
      'No checkpoint: the commit the agent started from is not known (the workspace is not a git checkout).'
    )
    return undefined
  }
  const run = linkOf(report, env.GITHUB_RUN_ID ?? 'local')
  const chain: ChainLink[] = (report.continuedFrom ?? []).map((link) => ({ ...link }))
  const target = options.target
  try {
    const written = writeCheckpoint({
      file: checkpointFile(settings),
      sessionDir,
      sessionId,
      startCommit,
      patchPath: report.changes?.patchPath,
      policyPath: report.policy.builtIn ? undefined : settings.policyPath,
      repository: env.GITHUB_REPOSITORY ?? '',
      target:
        target.kind === 'pr' || target.kind === 'issue'
          ? { kind: target.kind, number: target.number }
          : null,
      run,
      chain,
      secrets: options.secrets
    })
    for (const cut of written.cut) log.warning(`The checkpoint leaves out ${cut}.`)
    log.info(
      `Checkpoint of the session: ${written.path} (${written.bytes.toLocaleString('en-US')} bytes, sha256 ${written.sha256})`
    )
    return written
  } catch (error) {
    log.warning(`The checkpoint could not be written: ${messageOf(error)}`)
    return undefined
  }
}
