/**
 * The setup and verify commands, each run through the session (shell-exec.ts) in its own log group,
 * its record folded into the run's state. Behind the OS sandbox each runs inside the wall
 * (wall/command-wall.ts) unless the workflow named it in `unconfined-commands`; after each, whatever
 * it started and left running is killed (wall/process-sweep.ts) and named in the report.
 */
import type { SessionApi } from '../cli/session-api.js'
import type { CommandConfinement, CommandRecord, KilledProcessRecord } from '../reporting/types.js'
import type { CommandWall } from '../wall/command-wall.js'
import { fetcherIn, noNetworkWarning } from '../wall/command-network.js'
import { commandMark, sweepMarked, type MarkedStep } from '../wall/process-sweep.js'
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
  confinement?: CommandsConfinement
}

/** How the setup and verify commands are held in. */
export interface CommandsConfinement {
  /** The wall (absent: the OS sandbox is off or unavailable, and the commands run without it). */
  wall?: CommandWall
  /** The commands the workflow named in `unconfined-commands`: they run without the wall. */
  unconfined: readonly string[]
  /** The run's process mark (wall/process-sweep.ts `runMark`): what the sweep after each looks for. */
  mark?: string
}

/** Numbers the commands of the run, for their marks. */
let sequence = 0

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
  const confinement = options.confinement
  const how: CommandConfinement =
    confinement?.wall === undefined
      ? 'no-sandbox'
      : confinement.unconfined.includes(command)
        ? 'unconfined'
        : 'sandboxed'
  const wall = how === 'sandboxed' ? confinement?.wall : undefined
  const mark =
    confinement?.mark === undefined ? undefined : commandMark(confinement.mark, phase, ++sequence)
  const killedAfter = (
    found: ReadonlyArray<{ pid: number; commandLine: string; step: MarkedStep }>,
    inWall: boolean
  ): void => {
    if (found.length === 0) return
    const processes: KilledProcessRecord[] = found.map((p) => ({
      pid: p.pid,
      command: redact(p.commandLine),
      step: p.step,
      when: 'after-command',
      ...(inWall ? { inWall: true } : {})
    }))
    options.record({ type: 'killed', processes })
    log.warning(
      `Killed ${processes.length} process${processes.length === 1 ? '' : 'es'} the ${phase} command left running${inWall ? ' in its sandbox (pids as the sandbox numbers them)' : ''}: ${processes.map((p) => `${p.pid} (${p.command})`).join(', ')}`
    )
  }
  return log.group(`${phase}: ${redact(command)}`, async () => {
    log.info(confinementLine(how, wall))
    // behind a wall without network, a command that downloads fails or hangs: said before it runs
    const fetcher = wall?.network === 'none' ? fetcherIn(command) : undefined
    if (fetcher !== undefined) log.warning(redact(noNetworkWarning(phase, command, fetcher)))
    const ran = await runShellCommand(
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
        protectedGroups: options.protectedGroups,
        ...(wall === undefined ? {} : { wall }),
        ...(mark === undefined ? {} : { mark }),
        onLeftovers: (found, inWall) =>
          killedAfter(
            found.map((p) => ({ ...p, step: phase })),
            inWall
          )
      }
    )
    const record: CommandRecord = {
      ...ran,
      confinement: how,
      ...(wall === undefined ? {} : { network: wall.network })
    }
    options.record({ type: 'command', record })
    if (mark !== undefined && confinement?.mark !== undefined) {
      // nothing the command started outlives it (behind the wall, its PID namespace ended it)
      killedAfter(await sweepMarked(mark, confinement.mark, options.protectedGroups), false)
    }
    const result = record.timedOut ? 'timed out' : `exit code ${record.exitCode ?? 'none'}`
    const line = `${phase} command ${result} after ${(record.durationMs / 1000).toFixed(1)} s: ${record.command}`
    if (record.exitCode === 0) log.info(line)
    else log.warning(line)
    return record
  })
}

/** What the log says of how a command runs. */
export function confinementLine(how: CommandConfinement, wall: CommandWall | undefined): string {
  switch (how) {
    case 'sandboxed':
      return `Runs behind the OS sandbox: writes only the workspace (its protected paths read-only), sees no HOME, RUNNER_TEMP or runner files, its own /tmp and processes; ${wall?.network === 'shared' ? "network: the runner's, every host (the policy's url rules allow some host, and the wall cannot hold a command to them)" : 'no network'}`
    case 'unconfined':
      return "Runs UNCONFINED, as the workflow's own process: the input unconfined-commands names it"
    case 'no-sandbox':
      return 'Runs without the OS sandbox (it is off or unavailable: see the sandbox line above)'
  }
}
