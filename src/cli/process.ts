/**
 * The headless Copilot CLI as a child process: spawned in its own process group (so everything it
 * starts can be killed with it), with a private COPILOT_HOME, and its stderr kept (redacted) for
 * failure reports.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { agentEnvironment, commandTempDir, type DroppedVariable } from '../wall/environment.js'
import { wallArguments } from '../wall/cli-sandbox.js'
import type { CliConfinement } from '../wall/cli-wall.js'
import { PROCESS_MARK_VARIABLE } from '../wall/process-sweep.js'

export interface CliProcessOptions {
  executable: string
  /** Private directory: COPILOT_HOME (session state, logs, config). */
  home: string
  /**
   * The agent's commands' private scratch directory, where the OS sandbox cannot give them a
   * private /tmp: their TMPDIR, TMP and TEMP (wall/environment.ts `actionVariables`).
   */
  scratch?: string
  /** Extra CLI arguments (e.g. `--log-level debug`). */
  args?: string[]
  /** The job's environment: the CLI gets its allowlist (wall/environment.ts `agentEnvironment`). */
  env?: NodeJS.ProcessEnv
  /**
   * The run's secret values (tokens, the provider key): a variable carrying one in any form the
   * redactor knows is not passed on, whatever its name.
   */
  secrets?: readonly string[]
  /** env-passthrough: the job's variables the workflow passes on too (names or simple globs). */
  passthrough?: readonly string[]
  /**
   * The outer sandbox the CLI runs in (wall/cli-sandbox.ts): bubblewrap starts it behind the wall,
   * in `workingDirectory`, with the private HOME at HOME.
   */
  confinement?: CliConfinement
  /** The agent's working directory: the CLI's cwd behind the wall. */
  workingDirectory?: string
  /**
   * The run's process mark (wall/process-sweep.ts `runMark`): set in the CLI's environment, so
   * that every process the CLI starts carries it and the sweep after each step finds it.
   */
  mark?: string
}

export interface CliExit {
  code: number | null
  signal: NodeJS.Signals | null
}

/**
 * The one variable the action adds to the CLI's environment so that nothing the CLI starts
 * outlives the run (wall/process-sweep.ts): every process inherits it, `setsid` or not. An
 * environment allowlist must keep it.
 */
export function processMarkEnvironment(mark: string | undefined): Record<string, string> {
  return mark === undefined ? {} : { [PROCESS_MARK_VARIABLE]: mark }
}

export class CliProcess {
  readonly child: ChildProcessWithoutNullStreams
  readonly exited: Promise<CliExit>
  /** The wall the CLI runs behind (undefined: it runs as the action's own child, unconfined). */
  readonly confinement: CliConfinement | undefined
  private exit: CliExit | undefined
  private readonly stderrLines: string[] = []
  private stderrRest = ''
  /** The job's variables kept from the CLI (names and reasons), and how many it did not list. */
  readonly environment: { dropped: DroppedVariable[]; notListed: number }

  constructor(options: CliProcessOptions) {
    fs.mkdirSync(options.home, { recursive: true })
    if (options.scratch !== undefined) {
      fs.mkdirSync(commandTempDir(options.scratch), { recursive: true, mode: 0o700 })
    }
    const { env, dropped, notListed } = agentEnvironment({
      env: options.env ?? process.env,
      secrets: options.secrets ?? [],
      passthrough: options.passthrough ?? [],
      action: {
        copilotHome: options.home,
        ...(options.scratch === undefined ? {} : { scratch: options.scratch })
      }
    })
    // the run's process mark, one of the action's own variables (wall/process-sweep.ts)
    Object.assign(env, processMarkEnvironment(options.mark))
    this.environment = { dropped, notListed }
    // No credential goes into the environment: the agent's commands are children of the CLI and
    // could read it from /proc/<pid>/environ. The token is handed over JSON-RPC instead
    // (see Connection.provideGitHubToken).
    const cliArgs = [
      '--headless',
      '--stdio',
      '--no-auto-update',
      '--no-auto-login',
      ...(options.args ?? [])
    ]
    this.confinement = options.confinement
    const wall = options.confinement
    if (wall) fs.mkdirSync(wall.privateHome, { recursive: true, mode: 0o700 })
    // Behind the wall, bubblewrap leads the process group and the CLI is its child
    // (--die-with-parent: it dies with bubblewrap, which dies with the group).
    const [file, args] = wall
      ? [
          wall.bwrap,
          [
            ...wallArguments(wall.wall, options.workingDirectory ?? process.cwd()),
            wall.executable,
            ...cliArgs
          ]
        ]
      : [options.executable, cliArgs]
    this.child = spawn(file, args, {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32'
    })
    // Never outlive the action: its own group is not killed with the action's.
    const onParentExit = (): void => this.killNow()
    process.on('exit', onParentExit)
    this.exited = new Promise<CliExit>((resolve) => {
      this.child.once('error', (error) => {
        this.pushStderr(`spawn failed: ${error.message}\n`)
        this.exit ??= { code: null, signal: null }
        resolve(this.exit)
      })
      this.child.once('exit', (code, signal) => {
        this.exit ??= { code, signal }
        resolve(this.exit)
      })
    }).then((exit) => {
      process.off('exit', onParentExit)
      return exit
    })
    this.child.stderr.setEncoding('utf8')
    this.child.stderr.on('data', (chunk: string) => this.pushStderr(chunk))
    try {
      fs.writeFileSync(path.join(options.home, 'cli.pid'), String(this.child.pid ?? ''))
    } catch (error) {
      this.killGroup('SIGKILL') // no half-started CLI left behind
      throw error
    }
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  get hasExited(): boolean {
    return this.exit !== undefined
  }

  /** How it exited, once it has. */
  get exitStatus(): CliExit | undefined {
    return this.exit
  }

  /** The last lines the CLI wrote to stderr (unredacted: callers redact). */
  lastStderr(count = 20): string[] {
    const tail = this.stderrRest ? [...this.stderrLines, this.stderrRest] : this.stderrLines
    return tail.slice(-count)
  }

  private pushStderr(chunk: string): void {
    const parts = (this.stderrRest + chunk).split('\n')
    this.stderrRest = parts.pop() ?? ''
    for (const line of parts) if (line.trim() !== '') this.stderrLines.push(line)
    if (this.stderrLines.length > 200) this.stderrLines.splice(0, this.stderrLines.length - 200)
  }

  /** Kill the CLI and its whole process group: SIGTERM, then SIGKILL after `graceMs`. */
  async kill(graceMs = 3000): Promise<CliExit> {
    if (this.exit) {
      this.killGroup('SIGKILL') // anything it left running in its group
      return this.exit
    }
    this.killGroup('SIGTERM')
    const timer = setTimeout(() => this.killGroup('SIGKILL'), graceMs)
    const exit = await this.exited
    clearTimeout(timer)
    this.killGroup('SIGKILL')
    return exit
  }

  /** SIGKILL to the whole group, synchronously (when the action itself is about to die). */
  killNow(): void {
    if (!this.exit) this.killGroup('SIGKILL')
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid
    if (pid === undefined) return
    try {
      if (process.platform === 'win32') this.child.kill(signal)
      else process.kill(-pid, signal)
    } catch {
      // already gone
    }
  }
}
