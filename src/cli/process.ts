/**
 * The headless Copilot CLI as a child process: spawned in its own process group (so everything it
 * starts can be killed with it), with a private COPILOT_HOME, and its stderr kept (redacted) for
 * failure reports.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { PROCESS_MARK_VARIABLE } from '../wall/process-sweep.js'

export interface CliProcessOptions {
  executable: string
  /** Private directory: COPILOT_HOME (session state, logs, config). */
  home: string
  /** The agent's commands' private scratch directory: their TMPDIR (`scratchEnvironment`). */
  scratch?: string
  /** Extra CLI arguments (e.g. `--log-level debug`). */
  args?: string[]
  env?: NodeJS.ProcessEnv
  /**
   * The run's secret values (tokens, the provider key): a variable holding one is not passed on,
   * whatever its name (a job-level `env:` secret under a name nobody can guess).
   */
  secrets?: readonly string[]
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
 * Environment variables that would hand the CLI credentials or settings we did not choose. The
 * CLI's environment is also every agent command's (the sandbox sets it again after --clearenv),
 * so nothing secret may stay: the inputs, the runner's own tokens and URLs (ACTIONS_*).
 */
export const STRIPPED_ENV =
  /^(COPILOT_|GH_TOKEN$|GITHUB_TOKEN$|GH_ENTERPRISE_TOKEN$|GITHUB_ENTERPRISE_TOKEN$|GITHUB_COPILOT_|INPUT_|ACTIONS_)/i

/** The environment the CLI gets: `env` less STRIPPED_ENV and any variable holding a secret. */
export function cliEnvironment(
  env: NodeJS.ProcessEnv,
  secrets: readonly string[] = []
): NodeJS.ProcessEnv {
  const values = secrets.filter((secret) => secret.length >= 4)
  const out: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(env)) {
    if (STRIPPED_ENV.test(key)) continue
    if (value !== undefined && values.some((secret) => value.includes(secret))) continue
    out[key] = value
  }
  return out
}

/**
 * The one variable the action adds to the CLI's environment so that nothing the CLI starts
 * outlives the run (wall/process-sweep.ts): every process inherits it, `setsid` or not. An
 * environment allowlist must keep it.
 */
export function processMarkEnvironment(mark: string | undefined): Record<string, string> {
  return mark === undefined ? {} : { [PROCESS_MARK_VARIABLE]: mark }
}

/**
 * Where the agent's commands keep temporary files: TMPDIR, a directory of `scratch`. The OS
 * sandbox gives them a private /tmp, except where /tmp holds the workspace (self-hosted layouts):
 * then the host's /tmp is read-only to them, and this is where they write. The CLI passes its
 * environment to every command (setup and verify commands too).
 */
export function scratchEnvironment(scratch: string): Record<string, string> {
  return { TMPDIR: path.join(scratch, 'tmp') }
}

export class CliProcess {
  readonly child: ChildProcessWithoutNullStreams
  readonly exited: Promise<CliExit>
  private exit: CliExit | undefined
  private readonly stderrLines: string[] = []
  private stderrRest = ''

  constructor(options: CliProcessOptions) {
    fs.mkdirSync(options.home, { recursive: true })
    const env = cliEnvironment(options.env ?? process.env, options.secrets)
    env.COPILOT_HOME = options.home
    Object.assign(env, processMarkEnvironment(options.mark))
    if (options.scratch !== undefined) {
      for (const [name, dir] of Object.entries(scratchEnvironment(options.scratch))) {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
        env[name] = dir
      }
    }
    // No credential goes into the environment: the agent's commands are children of the CLI and
    // could read it from /proc/<pid>/environ. The token is handed over JSON-RPC instead
    // (see Connection.provideGitHubToken).
    this.child = spawn(
      options.executable,
      ['--headless', '--stdio', '--no-auto-update', '--no-auto-login', ...(options.args ?? [])],
      { env, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' }
    )
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
