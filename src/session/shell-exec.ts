/**
 * Setup and verify commands, run through the session (`session.shell.exec`) and killed with
 * `session.shell.kill` at their timeout or on cancellation.
 *
 * The CLI's `shell.output` / `shell.exit` notifications arrive on some versions and not on others
 * (observed: 1.0.85 yes, 1.0.92 and 1.0.102 no). So each command runs inside a small wrapper
 * that writes its output to a file (which the action tails, streaming it to the log as it
 * grows), its exit code to a second file and its process group id to a third. Exit codes and
 * output are then right on every CLI version, and the action can make sure the whole process
 * group is gone even when the CLI's kill only reached the leader.
 *
 * The CLI does not sandbox `session.shell.exec` (measured, CLI 1.0.102): behind the OS sandbox the
 * wrapper runs the command inside the wall of wall/command-wall.ts. The wrapper also sets the
 * command's process mark (wall/process-sweep.ts), which everything the command starts inherits.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { SessionApi } from '../cli/session-api.js'
import { messageOf } from '../errors.js'
import type { CommandRecord } from '../reporting/types.js'
import {
  commandWallArgs,
  shellQuote,
  parseLeftovers,
  type CommandWall,
  type LeftoverProcess,
  type WallFacts
} from '../wall/command-wall.js'
import { PROCESS_MARK_VARIABLE, sweepLines } from '../wall/process-sweep.js'

export interface PhaseCommand {
  phase: 'setup' | 'verify'
  command: string
}

export interface ShellRunOptions {
  api: SessionApi
  sessionId: string
  workingDirectory: string
  /** Scratch directory for the wrapper files. */
  scratchDir: string
  timeoutMs: number
  /** Between SIGTERM and SIGKILL. */
  graceMs?: number
  signal: AbortSignal
  /** Receives each line of output as the command runs. */
  onLine: (line: string) => void
  redact: (text: string) => string
  /** Process groups never to signal (the CLI's own, the action's). */
  protectedGroups: number[]
  /** Run the command behind this wall (absent: as the CLI's own child, unconfined). */
  wall?: CommandWall
  /** The socket of the proxy for this command (the wall's network `proxy`): bound into the wall. */
  proxySocket?: string
  /** The command's process mark (wall/process-sweep.ts `commandMark`). */
  mark?: string
  /**
   * What the command left running and its wrapper killed when it ended: inside the wall (`inWall`:
   * pids as the wall's PID namespace numbers them), or found by the command's mark.
   */
  onLeftovers?: (processes: LeftoverProcess[], inWall: boolean) => void
}

const POLL_MS = 200
const TAIL_CHARS = 4000

let counter = 0

export async function runShellCommand(
  spec: PhaseCommand,
  options: ShellRunOptions
): Promise<CommandRecord> {
  const dir = path.join(options.scratchDir, `command-${process.pid}-${++counter}`)
  fs.mkdirSync(dir, { recursive: true })
  const files = {
    script: path.join(dir, 'command.sh'),
    wrapper: path.join(dir, 'run.sh'),
    output: path.join(dir, 'output.log'),
    exit: path.join(dir, 'exit'),
    pgid: path.join(dir, 'pgid'),
    leftovers: path.join(dir, 'leftovers'),
    swept: path.join(dir, 'swept')
  }
  fs.writeFileSync(files.script, spec.command + '\n')
  const q = (file: string): string => `'${file.replace(/'/g, `'\\''`)}'`
  const run =
    options.wall === undefined
      ? `bash ${q(files.script)}`
      : [
          options.wall.bwrap,
          ...commandWallArgs(
            options.wall,
            spec.command,
            options.workingDirectory,
            MACHINE,
            options.proxySocket
          )
        ]
          .map(shellQuote)
          .join(' ')
  fs.writeFileSync(
    files.wrapper,
    [
      ...(options.mark === undefined
        ? []
        : [`export ${PROCESS_MARK_VARIABLE}=${shellQuote(options.mark)}`]),
      // The CLI sets NODE_ENV=production in what it starts through session.shell.exec, whatever
      // the job set (measured, CLI 1.0.102; its bash tool's commands do not get it): `npm ci` and
      // `npm install` then skip devDependencies and `npm test` finds no test runner. The command
      // gets the job's NODE_ENV (the action's own environment is the job's), or none.
      process.env.NODE_ENV === undefined
        ? 'unset NODE_ENV'
        : `export NODE_ENV=${shellQuote(process.env.NODE_ENV)}`,
      // The process group the CLI started the command in (it leads its own group).
      `pgid=$(ps -o pgid= -p $$ 2>/dev/null | tr -d ' '); echo "\${pgid:-$$}" > ${q(files.pgid)}`,
      `${run} > ${q(files.output)} 2>&1 < /dev/null${options.wall === undefined ? '' : ` 3> ${q(files.leftovers)}`}`,
      'code=$?',
      // what the command left running, killed before its exit is known (wall/process-sweep.ts)
      ...(options.mark === undefined ? [] : sweepLines(options.mark, files.swept)),
      `echo $code > ${q(files.exit)}.tmp && mv ${q(files.exit)}.tmp ${q(files.exit)}`,
      ''
    ].join('\n')
  )

  const started = Date.now()
  let exitFromNotification: number | null | undefined
  let processId: string | undefined
  const unsubscribe = options.api.onShellExit((id, exitCode) => {
    if (id === processId) exitFromNotification = exitCode
  })

  let offset = 0
  let partial = ''
  const drain = (final: boolean): void => {
    let chunk = ''
    try {
      const fd = fs.openSync(files.output, 'r')
      try {
        const size = fs.fstatSync(fd).size
        if (size > offset) {
          const buffer = Buffer.alloc(size - offset)
          fs.readSync(fd, buffer, 0, buffer.length, offset)
          offset = size
          chunk = buffer.toString('utf8')
        }
      } finally {
        fs.closeSync(fd)
      }
    } catch {
      return // not created yet
    }
    const lines = (partial + chunk).split('\n')
    partial = final ? '' : (lines.pop() ?? '')
    for (const line of lines) if (!(final && line === '')) options.onLine(options.redact(line))
  }

  let timedOut = false
  let cancelled = false
  try {
    const started_ = await options.api.shellExec(options.sessionId, {
      command: `bash ${q(files.wrapper)}`,
      cwd: options.workingDirectory,
      // The CLI's own timeout (default 30 s) must not fire before ours does.
      timeoutMs: options.timeoutMs + 60_000
    })
    processId = started_.processId
    const deadline = started + options.timeoutMs
    while (!fs.existsSync(files.exit) && exitFromNotification === undefined) {
      if (options.signal.aborted) {
        cancelled = true
        break
      }
      if (Date.now() >= deadline) {
        timedOut = true
        break
      }
      drain(false)
      await sleep(POLL_MS)
    }
    if (timedOut || cancelled) await kill(options, processId, files.pgid)
  } catch (error) {
    drain(true)
    unsubscribe()
    return {
      phase: spec.phase,
      command: options.redact(spec.command),
      exitCode: null,
      timedOut: false,
      durationMs: Date.now() - started,
      outputTail: options.redact(`The command could not be started: ${messageOf(error)}`)
    }
  }
  unsubscribe()
  // The exit file is written after the output is complete; give a notification-only exit a moment.
  if (!timedOut && !cancelled && !fs.existsSync(files.exit)) await sleep(POLL_MS)
  drain(true)
  if (options.onLeftovers !== undefined) {
    for (const [file, inWall] of [
      [files.leftovers, true],
      [files.swept, false]
    ] as const) {
      let text: string
      try {
        text = fs.readFileSync(file, 'utf8')
      } catch {
        continue // nothing was left running, or the wrapper was killed before it looked
      }
      const leftovers = parseLeftovers(text)
      if (leftovers.length > 0) options.onLeftovers(leftovers, inWall)
    }
  }
  let exitCode: number | null = null
  if (fs.existsSync(files.exit)) exitCode = Number.parseInt(fs.readFileSync(files.exit, 'utf8'), 10)
  else if (typeof exitFromNotification === 'number') exitCode = exitFromNotification
  if (timedOut || cancelled) exitCode = null

  return {
    phase: spec.phase,
    command: options.redact(spec.command),
    exitCode: Number.isNaN(exitCode) ? null : exitCode,
    timedOut,
    durationMs: Date.now() - started,
    outputTail: options.redact(
      tail(
        files.output,
        cancelled
          ? '\n[cancelled]'
          : timedOut
            ? `\n[killed after ${Math.round(options.timeoutMs / 1000)} s]`
            : ''
      )
    )
  }
}

/** SIGTERM through the session, SIGKILL after the grace period, then make sure the group is gone. */
async function kill(options: ShellRunOptions, processId: string, pgidFile: string): Promise<void> {
  const send = async (signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    try {
      await options.api.shellKill(options.sessionId, processId, signal)
    } catch {
      // the CLI may already have reaped it, or be gone: the group kill below still applies
    }
  }
  const found = readPgid(pgidFile)
  const pgid = found !== undefined && !options.protectedGroups.includes(found) ? found : undefined
  await send('SIGTERM')
  signalGroup(pgid, 'SIGTERM')
  const graceEnd = Date.now() + (options.graceMs ?? 5_000)
  while (Date.now() < graceEnd && groupAlive(pgid)) await sleep(100)
  if (groupAlive(pgid)) {
    await send('SIGKILL')
    signalGroup(pgid, 'SIGKILL')
  }
}

function readPgid(file: string): number | undefined {
  try {
    const pgid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10)
    return pgid > 1 ? pgid : undefined
  } catch {
    return undefined
  }
}

function signalGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined) return
  try {
    process.kill(-pgid, signal)
  } catch {
    // gone, or not a group leader (then the session kill is all we can do)
  }
}

function groupAlive(pgid: number | undefined): boolean {
  if (pgid === undefined) return false
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/** This machine's paths, for the wall's mounts. */
const MACHINE: WallFacts = {
  entry: (p) => {
    try {
      return fs.statSync(p).isDirectory() ? 'dir' : 'file'
    } catch {
      return undefined
    }
  },
  link: (p) => {
    try {
      return fs.lstatSync(p).isSymbolicLink() ? fs.readlinkSync(p) : undefined
    } catch {
      return undefined
    }
  }
}

function tail(file: string, suffix: string): string {
  let text = ''
  try {
    const size = fs.statSync(file).size
    const fd = fs.openSync(file, 'r')
    try {
      const length = Math.min(size, TAIL_CHARS)
      const buffer = Buffer.alloc(length)
      fs.readSync(fd, buffer, 0, length, size - length)
      text = buffer.toString('utf8')
      if (size > length) text = '…' + text.slice(text.indexOf('\n') + 1)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    // no output
  }
  return text.trimEnd() + suffix
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
