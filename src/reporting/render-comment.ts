/**
 * The sticky PR comment, for a reviewer who has ten seconds: the headline, what went wrong and
 * how to fix it, the agent's summary as its claim, the plan, the denials by rule, and one line
 * of figures with a link to the job summary, which has everything else.
 */
import { usageNote } from './figures.js'
import { formatCredits, formatDollars } from './credits.js'
import { bodyParts, denialCause, mcpFigures, planSection, type Limits } from './render-sections.js'
import {
  details,
  formatCompact,
  formatNumber,
  more,
  plural,
  quoteMarkdown,
  relativePath,
  type View
} from './render-view.js'
import { formatInt } from '../text/safe-text.js'
import { wallCommentLine } from './render-wall.js'

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
  prompt: 1500,
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
  files: 30
}

/** Files listed openly in the comment; the rest are collapsed. */
const OPEN_FILES = 5

export function commentParts(view: View, limits: Limits, trimmed: string[]): (string | null)[] {
  return bodyParts(view, limits, trimmed, true, () => [
    changesSection(view, limits),
    writeBackSection(view, limits),
    toolsLine(view),
    wallCommentLine(view),
    planSection(view, limits),
    denialsSection(view, limits),
    promptSection(view, limits),
    metricsLine(view, limits)
  ])
}

/**
 * `**📝 Files changed** · +27 −2 in 2 files` and a list, +/− per file (from git when the report has
 * the changes); beyond a few, the rest collapsed.
 */
export function changesSection(view: View, limits: Limits): string | null {
  const { changes } = view.figures
  if (changes.files.length === 0) return null
  const title = `**📝 Files changed** · ${changeTotals(view)}${changes.source === 'cli' ? ' (as the Copilot CLI counted them)' : ''}`
  if (limits.files <= 0) return title
  const items = changes.files.slice(0, limits.files).map((f, i) => {
    const name = view.code(view.files[i] ?? f.path, limits.detail)
    const from = f.from === undefined ? '' : ` (from ${view.code(f.from, limits.detail)})`
    const kind = f.change === 'added' ? ' (new)' : f.change === 'deleted' ? ' (deleted)' : ''
    const lines = f.binary
      ? ' binary'
      : f.added === undefined
        ? ''
        : ` +${formatInt(f.added)} −${formatInt(f.removed ?? 0)}`
    return `- ${name}${from}${kind}${lines}`
  })
  const open = items.slice(0, OPEN_FILES)
  const rest = items.slice(open.length)
  const unlisted = changes.files.length - items.length
  if (unlisted > 0) rest.push(`- … ${more(unlisted, 'file')} (see the job summary)`)
  const parts = [`${title}\n\n${open.join('\n')}`]
  if (rest.length > 0) {
    parts.push(details(plural(changes.files.length - open.length, 'more file'), rest.join('\n')))
  }
  return parts.join('\n\n')
}

/**
 * What the run leaves for the publish step (issue 23): the patch of the agent's changes (output
 * `patch-path`) and what it proposed through the safe-output tools, titles neutralized.
 * `💾 **Kept for the publish step:** the patch (output `patch-path`) · pull request “Fix sum()” (draft) · labels `bug``
 */
export function writeBackSection(view: View, limits: Limits): string | null {
  const { changes, safeOutputs } = view.report
  const items: string[] = []
  if (changes?.patchPath !== undefined && changes.files.length > 0) {
    items.push('the patch (output `patch-path`)')
  }
  const max = Math.max(40, limits.detail)
  for (const p of safeOutputs?.proposals ?? []) {
    if (p.kind === 'pull-request') {
      items.push(`pull request “${view.inline(p.title, max)}”${p.draft ? ' (draft)' : ''}`)
    } else if (p.kind === 'issue') {
      items.push(`issue “${view.inline(p.title, max)}”`)
    } else if (p.kind === 'labels') {
      items.push(`labels ${p.labels.map((l) => view.code(l, 50)).join(', ')}`)
    }
  }
  const comments = (safeOutputs?.proposals ?? []).filter((p) => p.kind === 'comment').length
  if (comments > 0) items.push(plural(comments, 'comment'))
  const refused = safeOutputs?.refused.length ?? 0
  if (items.length === 0 && refused === 0) return null
  const lines = [
    `💾 **Kept for the publish step:** ${items.length > 0 ? items.join(' · ') : 'nothing'}`
  ]
  if (refused > 0) {
    lines.push(
      `${plural(refused, 'proposal')} refused as invalid (the agent was told why; the job summary lists them)`
    )
  }
  return lines.join('  \n')
}

/** `+27 −2 in 2 files`, or `no files changed`. */
export function changeTotals(view: View): string {
  const { changes } = view.figures
  if (changes.files.length === 0 && changes.added + changes.removed === 0) return 'no files changed'
  return `+${formatInt(changes.added)} −${formatInt(changes.removed)} in ${plural(changes.files.length, 'file')}`
}

/** `🔧 **13 tool calls:** bash 6 · edit 4 · view 3, 1 failed, 1 denied`: the tools by name. */
export function toolsLine(view: View): string | null {
  const t = view.toolTotals
  if (t.calls === 0) return null
  const shown = view.toolRows
    .slice(0, 8)
    .map(([name, s]) => `${view.inline(name, 40)} ${formatInt(s.calls)}`)
  const others = view.toolRows.slice(8)
  if (others.length > 0) {
    shown.push(
      `${plural(others.length, 'other')} ${formatInt(others.reduce((n, [, s]) => n + s.calls, 0))}`
    )
  }
  const counts: string[] = []
  if (t.failed > 0) counts.push(`${formatInt(t.failed)} failed`)
  if (t.denied > 0) counts.push(`${formatInt(t.denied)} denied`)
  const unfinished = t.calls - t.succeeded - t.failed - t.denied
  if (unfinished > 0) counts.push(`${formatInt(unfinished)} unfinished`)
  return `🔧 **${plural(t.calls, 'tool call')}:** ${shown.join(' · ')}${counts.length > 0 ? ` — ${counts.join(', ')}` : ''}`
}

/** The prompt the agent was given, collapsed (untrusted: neutralized, quoted, clipped). */
export function promptSection(view: View, limits: Limits): string | null {
  const prompt = view.options.prompt?.trim()
  if (!prompt || limits.prompt <= 0) return null
  return details('Prompt', quoteMarkdown(view.clean(prompt), limits.prompt))
}

/** `🚫 N requests denied by M rules`: each rule once, with its count, reason and a few targets. */
export function denialsSection(view: View, limits: Limits): string | null {
  // asks a person did not approve are listed with the asks, not as a rule's denials
  const asked = view.denied.length - view.ruleDenied.length
  const total = Math.max(view.deniedTotal - asked, view.ruleDenied.length)
  if (total === 0 && view.denialGroups.length === 0) return null
  const groups = view.denialGroups
  const title =
    groups.length > 0
      ? `🚫 ${plural(total, 'request')} denied by the policy${groups.length > 1 ? ` (${plural(groups.length, 'cause')})` : ''}`
      : `🚫 ${plural(total, 'request')} denied by the policy`
  const shown = groups.slice(0, limits.rules)
  const list = shown.map((g) => {
    const rule = denialCause(view, g.rule)
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
      `- … ${plural(rest, 'denial')} by ${plural(groups.length - shown.length, 'other cause')}`
    )
  }
  const unkept = total - view.ruleDenied.length
  if (unkept > 0) {
    list.push(
      `- … ${plural(unkept, 'more denial')} not kept in the report (the counts include them)`
    )
  }
  return details(title, list.join('\n'))
}

/**
 * One line of figures: the cost (AI credits and dollars, or who bills it), premium and model
 * requests · tokens · tool calls · permissions · MCP ·
 * session. The files changed and the tools by name have their own lines above it.
 */
export function metricsLine(view: View, limits: Limits): string {
  const { sessionId } = view.report
  const f = view.figures
  const facts = [requestsPhrase(view)]
  if (view.models.length > 0) {
    let tokens = tokensPhrase(view)
    if (view.models.length > 1 && limits.models > 0) {
      const per = view.models
        .slice(0, limits.models)
        .map(
          ([name, u]) => `${view.code(name, 40)} ${formatCompact(u.inputTokens + u.outputTokens)}`
        )
      if (view.models.length > per.length) per.push('…')
      tokens += ` (${per.join(', ')})`
    }
    facts.push(tokens)
  }
  if (f.changes.files.length === 0) facts.push(changeTotals(view))
  facts.push(
    `${formatInt(view.allowedTotal)} allowed / ${formatInt(view.deniedTotal)} denied permissions`
  )
  const mcp = mcpFigures(view, 3)
  if (mcp !== null) facts.push(mcp)
  if (sessionId) facts.push(`session ${view.code(sessionId, 80)}`)
  const url = view.summaryUrl
  if (url !== null) facts.push(`Full report: [job summary](${url})`)
  const note = f.modelRequests > 0 ? `<br>${capitalize(usageNote(f))}.` : ''
  return `<sub>${facts.join(' · ')}${note}</sub>`
}

/**
 * The cost first, then the requests: `12.35 AI credits ($0.12) · 9 premium requests · 13 model
 * requests`; under BYOK `billed by your provider (BYOK) · 13 model requests` (never a 0 as the
 * cost); from a CLI that reports no credits, `9 premium requests · 13 model requests`.
 */
export function requestsPhrase(view: View): string {
  const f = view.figures
  const premium = `${formatNumber(f.premiumRequests)} premium ${f.premiumRequests === 1 ? 'request' : 'requests'}`
  const facts: string[] = []
  switch (f.cost.billedBy) {
    case 'copilot': {
      const amount = `${formatCredits(f.cost.credits)} AI ${f.cost.credits === 1 ? 'credit' : 'credits'} (${formatDollars(f.cost.dollars)})`
      facts.push(f.cost.partial ? `at least ${amount}, some calls reported no amount` : amount)
      if (f.premiumRequests > 0) facts.push(premium)
      break
    }
    case 'provider':
      facts.push('billed by your provider (BYOK)')
      break
    case 'not-reported':
      facts.push(premium)
      break
  }
  if (f.modelRequests > 0) facts.push(plural(f.modelRequests, 'model request'))
  return facts.join(' · ')
}

/** `484k tokens: 474k input (395k cache read, 51k cache write) + 9.6k output` */
export function tokensPhrase(view: View): string {
  const t = view.figures.tokens
  const cache: string[] = []
  if (t.cacheRead > 0) cache.push(`${formatCompact(t.cacheRead)} cache read`)
  if (t.cacheWrite > 0) cache.push(`${formatCompact(t.cacheWrite)} cache write`)
  const input = `${formatCompact(t.input)} input${cache.length > 0 ? ` (${cache.join(', ')})` : ''}`
  return `${formatCompact(t.total)} tokens: ${input} + ${formatCompact(t.output)} output`
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
