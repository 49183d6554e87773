/**
 * The setup and verify commands, each run through the session (shell-exec.ts) in its own log group,
 * its record folded into the run's state.
 */
import type { SessionApi } from '../cli/session-api.js'
import type { CommandRecord } from '../reporting/types.js'
import type { RunInput } from './fold.js'
import type { Logger } from './log.js'
import { runShellCommand } from './shell-exec.js'

export interface CommandsOptions {
  api: SessionApi
  log: Logger
  record: (input: RunInput) => void
  workingDirectory: string
  /** Scratch directory for command wrappers. */
  scratchDir: string
  timeoutMs: number
  signal: AbortSignal
  /** Process groups a command kill must never signal (the CLI's, the action's). */
  protectedGroups: number[]
  redact: (text: string) => string
}

export type Phase = CommandRecord['phase']

/**
 * Runs `commands` in order; stops at the first failure (setup) or runs them all (verify), and
 * stops when the run is cancelled or the CLI is gone. Returns whether every command passed.
 */
export async function runCommands(
  sessionId: string,
  phase: Phase,
  commands: readonly string[],
  options: CommandsOptions
): Promise<boolean> {
  let passed = true
  for (const [index, command] of commands.entries()) {
    if (options.signal.aborted || options.api.isClosed) {
      // A verify command that did not run did not pass: it is recorded as such, never dropped.
      if (phase === 'verify') {
        const why = options.signal.aborted ? 'the run was cancelled' : 'the Copilot CLI is gone'
        for (const skipped of commands.slice(index)) {
          options.record({
            type: 'command',
            record: {
              phase,
              command: options.redact(skipped),
              exitCode: null,
              timedOut: false,
              durationMs: 0,
              outputTail: `[not run: ${why}]`
            }
          })
        }
      }
      return false
    }
    const record = await runCommand(sessionId, phase, command, options)
    if (record.exitCode !== 0) {
      passed = false
      if (phase === 'setup') return false
    }
  }
  return passed
}

function runCommand(
  sessionId: string,
  phase: Phase,
  command: string,
  options: CommandsOptions
): Promise<CommandRecord> {
  const { log, redact } = options
  return log.group(`${phase}: ${redact(command)}`, async () => {
    const record = await runShellCommand(
      { phase, command },
      {
        api: options.api,
        sessionId,
        workingDirectory: options.workingDirectory,
        scratchDir: options.scratchDir,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        onLine: (line) => log.info(line),
        redact,
        protectedGroups: options.protectedGroups
      }
    )
    options.record({ type: 'command', record })
    const result = record.timedOut ? 'timed out' : `exit code ${record.exitCode ?? 'none'}`
    const line = `${phase} command ${result} after ${(record.durationMs / 1000).toFixed(1)} s: ${record.command}`
    if (record.exitCode === 0) log.info(line)
    else log.warning(line)
    return record
  })
}
