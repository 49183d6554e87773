/**
 * The chain of runs at the top of the comment and the summary (issue 31, point 4): "Continued from
 * run #N (stopped at `max-ai-credits` 300)", this run's figures and the chain's totals; or, when a
 * resume was asked for and refused, why this run started fresh.
 */
import { formatCredits, formatDollars, dollarsOf } from './credits.js'
import type { View } from './render-view.js'
import { formatCompact } from './render-view.js'

export function chainSection(view: View): string | null {
  const { continuedFrom, resumeRefused } = view.report
  if (resumeRefused !== undefined) {
    return `**⚠️ Not continued:** ${view.inline(resumeRefused, 500)} This run started a fresh session.`
  }
  const last = continuedFrom?.at(-1)
  if (continuedFrom === undefined || last === undefined) return null
  const runs = view.report.repository
    ? (id: string): string =>
        /^\d+$/.test(id)
          ? `[run #${id}](${view.report.repository}/actions/runs/${id})`
          : `run ${view.code(id, 40)}`
    : (id: string): string => `run ${view.code(id, 40)}`
  const stopped = last.stoppedAt
    ? ` (stopped at ${view.inlineMd(last.stoppedAt, 120)})`
    : ` (${view.code(last.status, 40)})`
  const lines = [`**↪️ Continued from ${runs(last.runId)}**${stopped}`]
  const f = view.figures
  const thisRun = f.cost.billedBy === 'copilot' ? f.cost.credits : undefined
  const earlier = continuedFrom.map((link) => link.aiCredits)
  const tokens = continuedFrom.reduce((n, link) => n + (link.tokens ?? 0), 0) + f.tokens.total
  const runsCount = continuedFrom.length + 1
  if (thisRun !== undefined && earlier.every((c) => c !== undefined)) {
    const total = earlier.reduce((n: number, c) => n + (c ?? 0), thisRun)
    lines.push(
      `this run ${formatCredits(thisRun)} AI credits · the chain of ${runsCount} runs ${formatCredits(total)} AI credits (${formatDollars(dollarsOf(total))}), ${formatCompact(tokens)} tokens`
    )
  } else {
    lines.push(
      `this run ${formatCompact(f.tokens.total)} tokens · the chain of ${runsCount} runs ${formatCompact(tokens)} tokens`
    )
  }
  return lines.join(' · ')
}
