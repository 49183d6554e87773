/**
 * The sticky PR comment, for a reviewer who has ten seconds: the headline, what went wrong and
 * how to fix it, the agent's summary as its claim, the plan, the denials by rule, and one line
 * of figures with a link to the job summary, which has everything else.
 */
import {
  asksSection,
  claimSection,
  headline,
  mcpFigures,
  planSection,
  policyIssuesSection,
  policyLinks,
  problemsSection,
  trimNote,
  type Limits
} from './render-sections.js'
import {
  details,
  formatCompact,
  formatNumber,
  plural,
  relativePath,
  type View
} from './render-view.js'
import { formatInt } from '../text/safe-text.js'

export const COMMENT_LIMITS: Limits = {
  summary: 4000,
  plan: 4000,
  todos: 30,
  error: 1500,
  tailLines: 30,
  tail: 2500,
  activity: 5,
  blocking: 3,
  issues: 10,
  detail: 160,
  rules: 10,
  targets: 3,
  // not in the comment
  toolRows: 0,
  calls: 0,
  succeeded: false,
  decisions: 0,
  commands: 0,
  commandOutput: 0,
  kinds: 0,
  models: 3,
  files: 0
}

export function commentParts(view: View, limits: Limits, trimmed: string[]): (string | null)[] {
  if (view.badPolicy) {
    return [
      view.options.marker ?? null,
      headline(view),
      policyIssuesSection(view, limits),
      policyLinks(view, true),
      trimNote(view.options.maxLength, trimmed)
    ]
  }
  return [
    view.options.marker ?? null,
    headline(view),
    problemsSection(view, limits),
    claimSection(view, limits),
    asksSection(view, limits),
    planSection(view, limits),
    denialsSection(view, limits),
    metricsLine(view, limits),
    trimNote(view.options.maxLength, trimmed)
  ]
}

/** `🚫 N requests denied by M rules`: each rule once, with its count, reason and a few targets. */
export function denialsSection(view: View, limits: Limits): string | null {
  const total = view.deniedTotal
  if (total === 0 && view.denialGroups.length === 0) return null
  const groups = view.denialGroups
  const title =
    groups.length > 0
      ? `🚫 ${plural(Math.max(total, view.denied.length), 'request')} denied by ${plural(groups.length, 'rule')}`
      : `🚫 ${plural(total, 'request')} denied`
  const shown = groups.slice(0, limits.rules)
  const list = shown.map((g) => {
    const rule =
      g.rule === 'default'
        ? 'no matching rule (default deny)'
        : view.code(g.rule, Math.min(limits.detail, 100))
    const reason = g.reason ? ` — ${view.inline(g.reason, limits.detail)}` : ''
    const targets = g.subjects
      .slice(0, limits.targets)
      .map((s) => view.code(relativePath(s, view.root), limits.detail))
    const others = g.subjects.length - targets.length
    const tail = others > 0 ? `, and ${formatInt(others)} more` : ''
    const what = targets.length > 0 ? ` — ${targets.join(', ')}${tail}` : ''
    return `- ${rule} (${formatInt(g.count)})${reason}${what}`
  })
  if (groups.length > shown.length) {
    const rest = groups.slice(shown.length).reduce((n, g) => n + g.count, 0)
    list.push(
      `- … ${plural(rest, 'denial')} by ${plural(groups.length - shown.length, 'other rule')}`
    )
  }
  const unkept = total - view.denied.length
  if (unkept > 0) {
    list.push(
      `- … ${plural(unkept, 'more denial')} not kept in the report (the counts include them)`
    )
  }
  return details(title, list.join('\n'))
}

/**
 * One line of figures: premium requests · tokens · lines changed · tool calls · permissions ·
 * session · where the full report is.
 */
export function metricsLine(view: View, limits: Limits): string {
  const { metrics, sessionId } = view.report
  const premium = metrics.premiumRequests
  const facts = [`${formatNumber(premium)} premium ${premium === 1 ? 'request' : 'requests'}`]
  const input = view.models.reduce((n, [, u]) => n + u.inputTokens, 0)
  const output = view.models.reduce((n, [, u]) => n + u.outputTokens, 0)
  if (view.models.length > 0) {
    let tokens = `${formatCompact(input)} in / ${formatCompact(output)} out tokens`
    if (view.models.length > 1 && limits.models > 0) {
      const per = view.models
        .slice(0, limits.models)
        .map(
          ([name, u]) =>
            `${view.code(name, 40)} ${formatCompact(u.inputTokens)}/${formatCompact(u.outputTokens)}`
        )
      if (view.models.length > per.length) per.push('…')
      tokens += ` (${per.join(', ')})`
    }
    facts.push(tokens)
  }
  const files = metrics.filesModified.length
  const lines = metrics.linesAdded + metrics.linesRemoved
  facts.push(
    files === 0 && lines === 0
      ? 'no files changed'
      : `+${formatInt(metrics.linesAdded)} −${formatInt(metrics.linesRemoved)} in ${plural(files, 'file')}`
  )
  const t = view.toolTotals
  const counts: string[] = []
  if (t.failed > 0) counts.push(`${formatInt(t.failed)} failed`)
  if (t.denied > 0) counts.push(`${formatInt(t.denied)} denied`)
  const unfinished = t.calls - t.succeeded - t.failed - t.denied
  if (unfinished > 0) counts.push(`${formatInt(unfinished)} unfinished`)
  facts.push(`${plural(t.calls, 'tool call')}${counts.length > 0 ? ` (${counts.join(', ')})` : ''}`)
  facts.push(
    `${formatInt(view.allowedTotal)} allowed / ${formatInt(view.deniedTotal)} denied permissions`
  )
  const mcp = mcpFigures(view, 3)
  if (mcp !== null) facts.push(mcp)
  if (sessionId) facts.push(`session ${view.code(sessionId, 80)}`)
  const url = view.summaryUrl
  if (url !== null) facts.push(`Full report: [job summary](${url})`)
  return `<sub>${facts.join(' · ')}</sub>`
}
