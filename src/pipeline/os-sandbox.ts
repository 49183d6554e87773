/**
 * The OS sandbox as main.ts sets it up: the facts about this machine that the policy's sandbox
 * configuration is built from, a fresh CLI when the setup installed what it looks for, and what
 * the log says of the sandbox.
 */
import fs from 'node:fs'
import path from 'node:path'
import { cliHome, commandScratch, type CliWallRequest } from '../cli/early.js'
import { CliStarter } from '../cli/start.js'
import { log } from '../log.js'
import { sandboxConfigFor } from '../policy/index.js'
import type { SessionInputs } from '../session/session-inputs.js'
import { SANDBOX_FIX, type SandboxPlan, type SandboxProbe } from '../session/sandbox-probe.js'
import type { Settings } from '../settings.js'
import type { CliWall } from '../wall/cli-sandbox.js'
import { wallCovers, wallView, type WallExtras } from '../wall/cli-wall.js'

/**
 * The machine's facts the policy's sandbox configuration is built from; `actionDir` is where the
 * action's own files are (main.ts's directory).
 */
export function sandboxContext(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  actionDir: string,
  wall?: CliWall
): Parameters<typeof sandboxConfigFor>[1] {
  const scratch = commandScratch(settings)
  // The CLI interprets the configuration behind its own wall: what exists is what it sees there.
  if (wall !== undefined) {
    return {
      ...sandboxContext(settings, env, actionDir),
      ...wallView(wall)
    }
  }
  return {
    workingDirectory: settings.workingDirectory,
    env,
    actionDir,
    copilotHome: cliHome(settings),
    ...(scratch === undefined ? {} : { scratchDir: scratch }),
    ...runnerInstallation(process.execPath),
    exists: (p) => fs.existsSync(p),
    children: (dir) => {
      try {
        return fs.readdirSync(dir)
      } catch {
        return []
      }
    }
  }
}

/**
 * The runner's installation when the action runs on the runner's own Node
 * (`<runner>/externals/node24/bin/node`): its credentials and logs are kept from the commands.
 */
function runnerInstallation(execPath: string): { runnerDir?: string } {
  const at = execPath.split(path.sep).lastIndexOf('externals')
  if (at <= 0) return {}
  return { runnerDir: execPath.split(path.sep).slice(0, at).join(path.sep) }
}

/**
 * Paths an MCP server's command line names (its command, its arguments, its cwd): the CLI behind
 * its wall must see them to start the server.
 */
export function mcpServerFiles(session: SessionInputs): string[] {
  const servers = Object.values(session.mcpServers?.servers ?? {})
  return servers.flatMap((server) =>
    'command' in server
      ? [server.command, ...server.args, ...(server.cwd === undefined ? [] : [server.cwd])].filter(
          (word) => path.isAbsolute(word) && fs.existsSync(word)
        )
      : []
  )
}

/**
 * What the CLI's outer sandbox must add for this run: the policy's absolute write-allow bases
 * (read-write for the per-command sandbox, so visible behind the wall too) and the MCP servers'
 * files.
 */
export function wallExtras(
  policy: Parameters<typeof sandboxConfigFor>[0],
  settings: Settings,
  env: NodeJS.ProcessEnv,
  actionDir: string,
  session: SessionInputs
): WallExtras {
  const workspace = path.resolve(settings.workingDirectory)
  const scratch = commandScratch(settings)
  const writable = sandboxConfigFor(policy, sandboxContext(settings, env, actionDir)).userPolicy
    .filesystem.readwritePaths
  return {
    readwrite: writable.filter((p) => p !== workspace && p !== scratch),
    readonly: mcpServerFiles(session)
  }
}

/**
 * Whether the CLI runs behind its outer sandbox: where the per-command sandbox runs on
 * bubblewrap (the probe found it working and the policy's sandbox.mode is not `off`).
 */
export function cliWallRequest(
  mode: SandboxPlan['mode'],
  probe: SandboxProbe | undefined,
  extras: () => WallExtras
): CliWallRequest {
  return mode !== 'off' && probe?.available === true && probe.backend === 'bubblewrap'
    ? { extras: extras() }
    : 'unconfined'
}

/** The wall the CLI behind `cli` runs behind, once it has started (undefined: none). */
export async function cliWallOf(cli: CliStarter): Promise<CliWall | undefined> {
  await cli.started.catch(() => undefined)
  return cli.process?.confinement?.wall
}

/**
 * The CLI the session runs in, as `wall` says: `cli` when it already runs so, else a new one
 * (~0.4 s). The entry starts the CLI behind the wall wherever bwrap is on PATH, before the policy
 * is known (the boot overlaps the policy's load): a policy with `sandbox.mode: off` or a bwrap
 * that cannot make its namespaces here costs a restart without it; one that lets commands write
 * outside the workspace (an absolute write-allow path), a restart with that path bound. After
 * the sandbox setup installed something, a fresh CLI finds it (it looks once, at start).
 */
export async function confineCli(
  cli: CliStarter,
  wall: CliWallRequest,
  provisioned: boolean,
  settings: Settings,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal
): Promise<CliStarter> {
  // a CLI still being installed: the install is not wasted (its process is then known); one
  // already spawned is judged at once, not after its boot
  if (cli.process === undefined) await cli.started.catch(() => undefined)
  const running = cli.process?.confinement
  const fits =
    wall === 'unconfined'
      ? running === undefined
      : running !== undefined && wallCovers(running.wall, wall.extras)
  if (fits && !(provisioned && wall !== 'unconfined')) return cli
  await cli.stop()
  log.info(
    provisioned && wall !== 'unconfined'
      ? 'Restarting the Copilot CLI, so that it finds what the sandbox setup installed'
      : wall === 'unconfined'
        ? 'Restarting the Copilot CLI without its outer sandbox (the OS sandbox is off or unavailable)'
        : 'Restarting the Copilot CLI behind its outer sandbox, with the paths the policy lets it write'
  )
  return new CliStarter({ settings, env, log: (line) => log.info(line), signal, wall })
}

export function logSandbox(sandbox: SandboxPlan, cliConfined = false): void {
  const { record } = sandbox
  if (record.state === 'enforced' && cliConfined) {
    log.info(
      "The Copilot CLI itself runs behind the sandbox's outer wall: its file tools and MCP servers see the workspace, its private home and state and read-only system directories, and nothing else of HOME, the work root, RUNNER_TEMP, the runner's or the action's files"
    )
  }
  if (record.state === 'enforced' && record.networkOff) {
    log.warning(
      `OS sandbox: ${record.backend ?? 'enforced'} (sandbox.mode: ${sandbox.mode}) WITHOUT network: the agent's shell commands cannot reach ${record.networkOff.hosts.join(', ')}, which the policy's url rules allow, because ${record.networkOff.reason}`
    )
  } else if (record.state === 'enforced') {
    log.info(
      `OS sandbox: ${record.backend ?? 'enforced'} (sandbox.mode: ${sandbox.mode}); the agent's shell commands cannot write outside the workspace or reach the network beyond the policy's hosts`
    )
  } else if (record.state === 'unavailable') {
    log.warning(
      `The OS sandbox is unavailable (${record.reason ?? 'unknown reason'}): the agent's shell commands run without it, judged by the policy alone, and a program an allowed command runs can write outside the workspace and reach the network. ${SANDBOX_FIX} Or set sandbox.mode: off in the policy to say it is intended.`
    )
  } else {
    log.notice(
      "The OS sandbox is off (sandbox.mode: off): the agent's shell commands are judged by the policy alone."
    )
  }
}
