/**
 * The setup and verify commands, each run through the session (shell-exec.ts) in its own log group,
 * its record folded into the run's state. Behind the OS sandbox each runs inside the wall
 * (wall/command-wall.ts) unless the workflow named it in `unconfined-commands`; where the policy's
 * url rules allow some host, with its own proxy (wall/command-proxy.ts) for as long as it runs,
 * whose refusals are logged and recorded with the command. After each, whatever it started and
 * left running is killed (wall/process-sweep.ts) and named in the report.
 */
import path from 'node:path'
import type { SessionApi } from '../cli/session-api.js'
import { messageOf } from '../errors.js'
import { decideConnection } from '../policy/index.js'
import type {
  CommandConfinement,
  CommandRecord,
  KilledProcessRecord,
  RefusedConnectionRecord
} from '../reporting/types.js'
import type { CommandWall } from '../wall/command-wall.js'
import {
  fetcherIn,
  noNetworkWarning,
  refusedFetchWarning,
  refusedWarning
} from '../wall/command-network.js'
import { startCommandProxy, type CommandProxy } from '../wall/command-proxy.js'
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
  const number = ++sequence
  const mark =
    confinement?.mark === undefined ? undefined : commandMark(confinement.mark, phase, number)
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
    const fetcher = wall === undefined ? undefined : fetcherIn(command)
    if (fetcher !== undefined && wall?.network === 'none') {
      log.warning(redact(noNetworkWarning(phase, command, fetcher)))
    }
    // behind the proxy, one that downloads from a host the url rules refuse
    if (fetcher?.host !== undefined && wall?.proxyRules !== undefined) {
      const decision = decideConnection(wall.proxyRules, { host: fetcher.host, port: 443 })
      if (!decision.allowed) {
        log.warning(redact(refusedFetchWarning(phase, command, fetcher, decision.reason)))
      }
    }
    const proxy =
      wall?.network === 'proxy'
        ? await startProxy(
            wall,
            path.join(options.scratchDir, `net-${process.pid}-${number}.sock`),
            phase,
            command,
            options
          )
        : undefined
    let ran: CommandRecord
    let refused: RefusedConnectionRecord[] = []
    let refusedMore = 0
    try {
      ran = await runShellCommand(
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
          ...(proxy === undefined ? {} : { proxySocket: proxy.socketPath }),
          ...(mark === undefined ? {} : { mark }),
          onLeftovers: (found, inWall) =>
            killedAfter(
              found.map((p) => ({ ...p, step: phase })),
              inWall
            )
        }
      )
    } finally {
      if (proxy !== undefined) {
        refused = proxy.refused().map((r) => ({
          target: redact(r.target),
          reason: redact(r.reason),
          attempts: r.attempts
        }))
        refusedMore = proxy.refusedBeyond()
        await proxy.close()
      }
    }
    const network = wall === undefined ? undefined : proxy === undefined ? 'none' : 'proxy'
    const record: CommandRecord = {
      ...ran,
      confinement: how,
      ...(network === undefined ? {} : { network }),
      ...(refused.length > 0 ? { refused } : {}),
      ...(refusedMore > 0 ? { refusedMore } : {})
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

/** The command's proxy, or undefined (said in the log) when it cannot start: then no network. */
async function startProxy(
  wall: CommandWall,
  socketPath: string,
  phase: Phase,
  command: string,
  options: Pick<CommandsOptions, 'log' | 'redact'>
): Promise<CommandProxy | undefined> {
  if (wall.proxyRules === undefined) return undefined
  const { log, redact } = options
  try {
    return await startCommandProxy({
      socketPath,
      network: wall.proxyRules,
      // once per host and port: the proxy counts the others
      onRefused: (r) => log.warning(redact(refusedWarning(phase, command, r.target, r.reason)))
    })
  } catch (error) {
    log.warning(
      redact(
        `The network proxy of the ${phase} command could not start (${messageOf(error)}): it runs without network.`
      )
    )
    return undefined
  }
}

/** What the log says of how a command runs. */
export function confinementLine(how: CommandConfinement, wall: CommandWall | undefined): string {
  switch (how) {
    case 'sandboxed':
      return `Runs behind the OS sandbox: writes only the workspace (its protected paths read-only), sees no HOME, RUNNER_TEMP or runner files, its own /tmp and processes; ${wall?.network === 'proxy' ? "network: only the hosts the policy's url rules allow, through the action's proxy (never the runner's loopback, local network or cloud metadata unless a rule names the address)" : 'no network'}`
    case 'unconfined':
      return "Runs UNCONFINED, as the workflow's own process: the input unconfined-commands names it"
    case 'no-sandbox':
      return 'Runs without the OS sandbox (it is off or unavailable: see the sandbox line above)'
  }
}
