/**
 * The OS sandbox as main.ts sets it up: the facts about this machine that the policy's sandbox
 * configuration is built from, a fresh CLI when the setup installed what it looks for, and what
 * the log says of the sandbox.
 */
import fs from 'node:fs'
import path from 'node:path'
import { cliHome, commandScratch } from '../cli/early.js'
import { CliStarter } from '../cli/start.js'
import { log } from '../log.js'
import type { sandboxConfigFor } from '../policy/index.js'
import { SANDBOX_FIX, type SandboxPlan } from '../session/sandbox-probe.js'
import type { Settings } from '../settings.js'

/**
 * The machine's facts the policy's sandbox configuration is built from; `actionDir` is where the
 * action's own files are (main.ts's directory).
 */
export function sandboxContext(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  actionDir: string
): Parameters<typeof sandboxConfigFor>[1] {
  const scratch = commandScratch(settings)
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

/** A new CLI process in place of `cli`, once `cli` has started (an install is not wasted). */
export async function restartCli(
  cli: CliStarter,
  settings: Settings,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal
): Promise<CliStarter> {
  await cli.started
  await cli.stop()
  log.info('Restarting the Copilot CLI, so that it finds what the sandbox setup installed')
  return new CliStarter({ settings, env, log: (line) => log.info(line), signal })
}

export function logSandbox(sandbox: SandboxPlan): void {
  const { record } = sandbox
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
