/**
 * Starts the Copilot CLI at the very beginning of the action, before the rest of it (policy
 * engine, GitHub client, reporting) is loaded: the CLI needs ~0.4 s to boot, and everything else
 * the action does before the session is created happens meanwhile.
 *
 * Only a process is started here: nothing is sent to it. No session exists until the policy has
 * loaded and its own tests have passed (main.ts); when they fail, this process is killed unused.
 * This module stays small on purpose (node builtins, settings, the process wrapper): it is the
 * bundle's entry chunk, and what it imports is loaded before the CLI can start.
 */
import fs from 'node:fs'
import path from 'node:path'
import { envInputReader, hasCredential, readSettings, type Settings } from '../settings.js'
import { findCli, type CliExecutable } from './install.js'
import { CliProcess } from './process.js'
import { runMark } from '../wall/process-sweep.js'
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the entry chunk loads only this leaf, not the whole policy engine
import { inScratchArea } from '../policy/scratch-areas.js'
import { AUTHORED_EVENTS, isGatedEvent } from '../github/gated-events.js'
import { cliConfinement, type WallExtras } from '../wall/cli-wall.js'
import { policyTurnsSandboxOff } from './early-wall.js'

/** Whether the event's payload is a new comment or review (or not such an event at all). */
function startsTask(event: string, env: NodeJS.ProcessEnv): boolean {
  const wanted = AUTHORED_EVENTS[event]?.starts
  if (wanted === undefined) return true
  try {
    const payload = JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH ?? '', 'utf8')) as unknown
    return (payload as { action?: unknown } | null)?.action === wanted
  } catch {
    return false // main.ts reads it again and decides
  }
}

/** The run's settings, read once for the whole run, or why they could not be read. */
export type Inputs = { settings: Settings } | { error: unknown }

/** What the entry did before main.ts loaded: the inputs it read, and the CLI it started. */
export interface EarlyStart {
  inputs: Inputs
  cli?: EarlyCli
}

export interface EarlyCli {
  executable: CliExecutable & { source: 'cli-path' | 'tool-cache' }
  process: CliProcess
  /** main.ts takes over: its cancellation handling replaces the guard below. */
  adopt(): void
}

export function readInputs(env: NodeJS.ProcessEnv): Inputs {
  try {
    return { settings: readSettings(envInputReader(env), env) }
  } catch (error) {
    return { error }
  }
}

/** The CLI's private home directory for a run (session state, logs, its pid file). */
export function cliHome(settings: Settings): string {
  return path.join(settings.tempDir, 'copilot-home')
}

/**
 * The agent's commands' private scratch directory (their TMPDIR), where /tmp holds the workspace
 * or the run's files and is therefore read-only inside the OS sandbox; elsewhere the sandbox's
 * /tmp is private and writable, and none is set (a fresh TMPDIR costs the CLI ~0.24 s at
 * startup: `npm run bench`).
 */
export function commandScratch(settings: Settings): string | undefined {
  return inScratchArea([settings.workingDirectory, settings.tempDir])
    ? path.join(settings.tempDir, 'scratch')
    : undefined
}

/**
 * Whether the CLI starts behind its outer sandbox (wall/cli-sandbox.ts), and what the run adds to
 * its view: `unconfined` where the policy turns the sandbox off or it cannot run here.
 */
export type CliWallRequest = { extras: WallExtras } | 'unconfined'

/**
 * Starts the CLI for a run: its private home, `--log-level debug` when the step runs with debug
 * logging (what core.isDebug() reads), and `env` (its allowlist: wall/environment.ts); behind its
 * outer sandbox wherever bubblewrap is on PATH (Linux), unless `wall` says `unconfined`.
 */
export function spawnCli(
  executable: string,
  settings: Settings,
  env: NodeJS.ProcessEnv,
  wall: CliWallRequest = { extras: {} }
): CliProcess {
  const scratch = commandScratch(settings)
  const confinement =
    wall === 'unconfined'
      ? undefined
      : cliConfinement({
          executable,
          workingDirectory: settings.workingDirectory,
          copilotHome: cliHome(settings),
          ...(scratch === undefined ? {} : { scratchDir: scratch }),
          tempDir: settings.tempDir,
          env,
          ...wall.extras
        })
  return new CliProcess({
    executable,
    home: cliHome(settings),
    ...(scratch === undefined ? {} : { scratch }),
    args: env.RUNNER_DEBUG === '1' ? ['--log-level', 'debug'] : [],
    env,
    secrets: settings.secrets,
    passthrough: settings.envPassthrough,
    ...(confinement === undefined
      ? {}
      : { confinement, workingDirectory: settings.workingDirectory }),
    mark: runMark(settings.tempDir)
  })
}

/**
 * Reads the inputs, and starts the CLI when the run will certainly need it and it is at hand
 * (`cli-path` or the tool cache). Starts nothing for invalid inputs (main.ts reports them),
 * `mode: check-policy`, no credential at all, or a CLI that must be installed first.
 */
export function launchEarly(env: NodeJS.ProcessEnv = process.env): EarlyStart {
  const inputs = readInputs(env)
  if ('error' in inputs) return { inputs }
  const { settings } = inputs
  if (settings.mode !== 'run' || !hasCredential(settings)) return { inputs }
  // mcp-servers and agent are checked in main.ts first: a bad one must fail before a CLI starts
  if (settings.raw.mcpServers !== '' || settings.raw.agent !== '') return { inputs }
  // On events others may cause, the CLI waits for the trusted-actor gate (main.ts), unless the
  // gate is off: an untrusted trigger must not start it, even unused.
  const event = env.GITHUB_EVENT_NAME ?? ''
  if (isGatedEvent(event) && !settings.allowAnyActor) return { inputs }
  // nor for an edited or deleted comment, which the gate refuses even then
  if (!startsTask(event, env)) return { inputs }
  const executable = findCli(settings, env)
  if (!executable) return { inputs }
  try {
    // behind its outer wall, unless the policy turns the OS sandbox off (early-wall.ts): it then
    // boots once, as the policy will want it
    const wall = policyTurnsSandboxOff(
      settings.policyPath,
      settings.workingDirectory,
      settings.raw.workspace
    )
      ? 'unconfined'
      : { extras: {} }
    const cli = spawnCli(executable.path, settings, env, wall)
    // Until main.ts is loaded and handles cancellation itself, SIGINT/SIGTERM end the CLI with
    // the action (node's default for these signals is to exit at once).
    const guard = (signal: NodeJS.Signals): void => {
      adopt()
      cli.killNow()
      process.kill(process.pid, signal)
    }
    const adopt = (): void => {
      process.off('SIGINT', guard)
      process.off('SIGTERM', guard)
    }
    process.once('SIGINT', guard)
    process.once('SIGTERM', guard)
    return { inputs, cli: { executable, process: cli, adopt } }
  } catch {
    return { inputs } // main.ts starts it again and reports what fails
  }
}
