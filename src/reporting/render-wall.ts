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

const NETWORK: Record<NonNullable<CommandRecord['network']>, string> = {
  none: 'no network',
  proxy: "the policy's hosts",
  shared: "runner's network"
}

/** ` · 🛡️ sandboxed, no network` after a command's result (nothing for reports of older versions). */
export function confinementTag(c: CommandRecord): string {
  switch (c.confinement) {
    case 'sandboxed':
      return ` · 🛡️ sandboxed, ${NETWORK[c.network ?? 'none']}`
    case 'unconfined':
      return ' · ⚠️ unconfined (`unconfined-commands`)'
    case 'no-sandbox':
      return ' · without the OS sandbox'
    default:
      return ''
  }
}

/**
 * What the network proxy refused a command: `` 🚫 refused `evil.example:443` (no url allow rule
 * matches it, 3×), … `` (up to `max` targets); null when nothing was refused.
 */
export function refusedLine(view: View, c: CommandRecord, max = 5, width = 200): string | null {
  const refused = c.refused ?? []
  if (refused.length === 0) return null
  const shown = refused
    .slice(0, max)
    .map(
      (r) =>
        `${view.code(r.target, width)} (${view.inline(r.reason, width)}${r.attempts > 1 ? `, ${r.attempts}×` : ''})`
    )
  const more = refused.length - shown.length + (c.refusedMore ?? 0)
  return `🚫 The network proxy refused ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`
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
 * unconfined, which hosts the network proxy refused them, and the agent's commit undone; null
 * when none of it happened.
 */
export function wallCommentLine(view: View): string | null {
  const killed = view.report.killedProcesses ?? []
  const unconfined = view.report.commands.filter((c) => c.confinement === 'unconfined')
  const refused = view.report.commands.filter((c) => (c.refused ?? []).length > 0)
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
  const first = refused[0]?.refused?.[0]
  if (first !== undefined) {
    const targets = new Set(refused.flatMap((c) => (c.refused ?? []).map((r) => r.target)))
    const more = targets.size - 1 + refused.reduce((sum, c) => sum + (c.refusedMore ?? 0), 0)
    parts.push(
      `🚫 **Network refused** to ${refused.length === 1 ? `a ${refused[0]?.phase ?? 'verify'} command` : `${refused.length} commands`}: ${view.code(first.target, 60)}${more > 0 ? ` and ${more} more` : ''}`
    )
  }
  return parts.length > 0 ? parts.join(' · ') : null
}
