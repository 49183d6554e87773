/**
 * Gets the Copilot CLI to a checked connection: adopts the process the entry started early
 * (early.ts) or finds it (installing it when needed) and starts it, then does the protocol
 * handshake. It runs while the action loads its policy and posts its "working" comment; `stop()`
 * ends whatever it got to, at any point (an install is cancelled, a process group killed).
 */
import { UserError } from '../errors.js'
import { Connection } from './connection.js'
import { CopilotApi } from './session-api.js'
import { spawnCli, type CliWallRequest, type EarlyCli } from './early.js'
import { describeCli, locateCli } from './install.js'
import type { CliProcess } from './process.js'
import type { Settings } from '../settings.js'

export interface StartedCli {
  process: CliProcess
  api: CopilotApi
  /** The CLI's version: reported by the handshake, else known from the install. */
  version: string | null
  protocolVersion: number
}

export interface CliStarterOptions {
  settings: Settings
  /** The process started by the entry, when there is one. */
  early?: EarlyCli
  env: NodeJS.ProcessEnv
  log: (line: string) => void
  /** The run's cancellation. */
  signal: AbortSignal
  /** The CLI's outer sandbox (default: wherever bubblewrap is on PATH, with nothing added). */
  wall?: CliWallRequest
}

export class CliStarter {
  /** Set as soon as the process is spawned (for failure reports and cleanup). */
  process: CliProcess | undefined
  connection: Connection | undefined
  readonly started: Promise<StartedCli>
  /** The handshake succeeded: the process is the Copilot CLI. */
  connected = false
  private readonly stopping = new AbortController()

  constructor(options: CliStarterOptions) {
    this.started = this.start(options)
    // Awaited by the run, or by stop(); a failure must not surface as an unhandled rejection
    // while the run is still busy with its policy.
    void this.started.catch(() => undefined)
  }

  private async start(options: CliStarterOptions): Promise<StartedCli> {
    const { settings, early } = options
    let knownVersion: string | null
    if (early) {
      options.log(describeCli(early.executable, settings.cliVersion))
      this.process = early.process
      knownVersion = early.executable.version
    } else {
      const located = await locateCli({
        cliPath: settings.cliPath,
        cliVersion: settings.cliVersion,
        log: options.log,
        env: options.env,
        signal: AbortSignal.any([options.signal, this.stopping.signal])
      })
      this.stopping.signal.throwIfAborted()
      this.process = spawnCli(located.path, settings, options.env, options.wall)
      knownVersion = located.version
    }
    const cli = this.process
    this.connection = new Connection(cli)
    const api = new CopilotApi(this.connection)
    let hello: Awaited<ReturnType<CopilotApi['connect']>>
    try {
      hello = await api.connect()
    } catch (error) {
      // A CLI that died (maybe before the handshake was even sent): its exit says more.
      if (error instanceof UserError) throw error // it answered: another protocol version
      const exit = await Promise.race([
        cli.exited,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1000).unref())
      ])
      if (!exit) throw error
      throw new Error(
        exit.code === null && exit.signal === null
          ? 'The Copilot CLI could not be started'
          : `The Copilot CLI exited before the handshake (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'})`,
        { cause: error }
      )
    }
    this.connected = true
    return {
      process: this.process,
      api,
      version: hello.version ?? knownVersion,
      protocolVersion: hello.protocolVersion
    }
  }

  /** Ends whatever was started: cancels an install, closes the connection, kills the group. */
  async stop(): Promise<void> {
    // Once stopping, start() creates nothing more (throwIfAborted right before the spawn).
    this.stopping.abort()
    this.connection?.dispose()
    await Promise.all([this.process?.kill(), this.started.catch(() => undefined)])
  }
}
