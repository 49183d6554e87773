/**
 * The wall around the setup and verify commands, and the sweep once the session is over, as
 * main.ts sets them up: the commands get the same world as the agent's shell commands (the
 * policy's sandbox filesystem; the hosts its url rules allow, through the action's proxy) where
 * the CLI's sandbox runs on bubblewrap; after the CLI is gone, every process still carrying the run's mark is killed
 * before the late audit, the patch and the proposals.
 */
import { log } from '../log.js'
import { commandNetwork, type SandboxPolicy } from '../policy/index.js'
import type { KilledProcessRecord } from '../reporting/types.js'
import type { StateRecorder } from '../session/recorder.js'
import { findOnPath, type SandboxPlan } from '../session/sandbox-probe.js'
import type { CommandsConfinement } from '../session/setup-verify.js'
import type { Settings } from '../settings.js'
import { wallNetwork } from '../wall/command-wall.js'
import { runMark, sweepMarked } from '../wall/process-sweep.js'

/**
 * How the setup and verify commands are held in: behind the wall when the sandbox is enforced
 * with bubblewrap (found on the PATH the CLI gets), as today otherwise; the run's mark either way.
 */
export function commandConfinement(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  sandbox: SandboxPlan,
  policy: SandboxPolicy
): CommandsConfinement {
  const mark = runMark(settings.tempDir)
  const bwrap =
    sandbox.config !== undefined && sandbox.record.backend === 'bubblewrap'
      ? findOnPath('bwrap', env.PATH)
      : undefined
  const commands = settings.setupCommands.length + settings.verifyCommands.length
  if (bwrap === undefined || sandbox.config === undefined) {
    if (commands > 0) {
      log.warning(
        "The setup and verify commands run without the OS sandbox (it is off or unavailable): what they run, the agent's code included, can write outside the workspace and reach the network. Whatever they start is still killed when they end."
      )
    }
    return { unconfined: settings.unconfinedCommands, mark }
  }
  // The policy's intent, not the CLI's fallback: the action's own proxy holds the commands to the
  // allowed hosts, and needs no slirp4netns.
  const network = wallNetwork(commandNetwork(policy))
  if (settings.unconfinedCommands.length > 0) {
    log.warning(
      `These commands run UNCONFINED, outside the OS sandbox (input unconfined-commands): ${settings.unconfinedCommands.join('; ')}`
    )
  }
  return {
    wall: {
      bwrap,
      filesystem: sandbox.config.userPolicy.filesystem,
      ...network,
      pathDirs: (env.PATH ?? '').split(':').filter((dir) => dir !== '')
    },
    unconfined: settings.unconfinedCommands,
    mark
  }
}

/**
 * Once the CLI is gone: kills every process still carrying the run's mark (what the agent's
 * commands, the CLI or a setup or verify command started and left running), records and logs it.
 */
export async function sweepAfterSession(
  settings: Settings,
  recorder: StateRecorder,
  redact: (text: string) => string
): Promise<void> {
  const mark = runMark(settings.tempDir)
  const killed = await sweepMarked(mark, mark, [process.pid, process.ppid])
  if (killed.length === 0) return
  const processes: KilledProcessRecord[] = killed.map((p) => ({
    pid: p.pid,
    command: redact(p.commandLine),
    step: p.step,
    when: 'after-session'
  }))
  recorder.record({ type: 'killed', processes })
  log.warning(
    `Killed ${processes.length} process${processes.length === 1 ? '' : 'es'} still running after the session: ${processes.map((p) => `${p.pid} (${p.step}: ${p.command})`).join(', ')}`
  )
}
