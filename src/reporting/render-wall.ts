/**
 * What the report says of the wall around the commands (issue 28): the processes left running
 * and killed, the setup and verify commands that ran without the OS sandbox, and the agent's
 * commit the audit undid. Untrusted text (command lines, paths) goes through the View's helpers.
 */
import { plural, type View } from './render-view.js'
import type { CommandRecord, KilledProcessRecord } from './types.js'

const STEP: Record<KilledProcessRecord['step'], string> = {
  agent: "the agent's commands",
  setup: 'a setup command',
  verify: 'a verify command'
}

/** ` · 🛡️ sandboxed, no network` after a command's result (nothing for reports of older versions). */
export function confinementTag(c: CommandRecord): string {
  switch (c.confinement) {
    case 'sandboxed':
      return ` · 🛡️ sandboxed${c.network === 'shared' ? ", runner's network" : ', no network'}`
    case 'unconfined':
      return ' · ⚠️ unconfined (`unconfined-commands`)'
    case 'no-sandbox':
      return ' · without the OS sandbox'
    default:
      return ''
  }
}

/** One process: `` `sleep 60` (pid 12, from a verify command, in its sandbox) `` */
function processItem(view: View, p: KilledProcessRecord, max: number): string {
  const pid = p.inWall === true ? `pid ${p.pid} in its sandbox` : `pid ${p.pid}`
  const when = p.when === 'after-session' ? ', after the session' : ''
  return `${view.code(p.command || '(no command line)', max)} (${pid}, from ${STEP[p.step]}${when})`
}

/** The job summary's line: every process left running that was killed (up to `max`). */
export function killedProcessesLine(view: View, max = 10): string | null {
  const killed = view.report.killedProcesses ?? []
  if (killed.length === 0) return null
  const shown = killed.slice(0, max).map((p) => processItem(view, p, 200))
  const rest = killed.length > shown.length ? `, and ${killed.length - shown.length} more` : ''
  return `**Processes:** 🧹 ${plural(killed.length, 'process', 'processes')} left running after ${killed.length === 1 ? 'its' : 'their'} step, killed: ${shown.join(', ')}${rest}`
}

/**
 * The agent's commit the workspace audit put back, which the policy allows (a note, not a
 * violation): `↩️ The agent's commit was undone (`.git/refs/heads/main`): its changes are in the patch`.
 */
export function undoneCommitLine(view: View, max = 120): string | null {
  const notes = view.report.audit?.notes ?? []
  if (notes.length === 0) return null
  const refs = notes.map((n) => view.code(n.path, max)).join(', ')
  const kept = notes.every((n) => n.reverted)
  return kept
    ? `↩️ **The agent's commit was undone** (${refs}: refs are the workflow's to move); its changes are in the patch`
    : `↩️ **The agent's commit** moved ${refs} (the policy allows \`git commit\`)`
}

/**
 * The comment's short line: how many processes were left running and killed, which commands ran
 * unconfined, and the agent's commit undone; null when none of it happened.
 */
export function wallCommentLine(view: View): string | null {
  const killed = view.report.killedProcesses ?? []
  const unconfined = view.report.commands.filter((c) => c.confinement === 'unconfined')
  const parts: string[] = []
  const undone = undoneCommitLine(view, 60)
  if (undone !== null) parts.push(undone)
  if (killed.length > 0) {
    const first = killed[0]
    const example = first === undefined ? '' : `, e.g. ${view.code(first.command, 60)}`
    parts.push(
      `🧹 **${plural(killed.length, 'process', 'processes')} left running** after ${killed.length === 1 ? 'its' : 'their'} step, killed${example}`
    )
  }
  if (unconfined.length > 0) {
    const names = unconfined
      .slice(0, 3)
      .map((c) => view.code(c.command, 60))
      .join(', ')
    parts.push(
      `⚠️ **Unconfined:** ${names}${unconfined.length > 3 ? ` and ${unconfined.length - 3} more` : ''} ran without the OS sandbox`
    )
  }
  return parts.length > 0 ? parts.join(' · ') : null
}
