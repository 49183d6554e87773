/**
 * What the comment and the job summary are drawn from: a Report seen through the render options,
 * with the figures both need computed once, and the helpers that put untrusted text into
 * markdown (text.ts does the escaping; everything from the report goes through here).
 */
import { figures, type Figures } from './figures.js'
import { deniedCount } from './outputs.js'
import {
  codeBlock,
  codeSpan,
  inlineMarkdown,
  inlineText,
  neutralizeMarkdown,
  normalizeSecrets,
  redactNormalized,
  tableCell,
  truncate
} from '../text/safe-text.js'
import type {
  CommandRecord,
  ModelUsage,
  PermissionRecord,
  Report,
  ToolCallRecord,
  ToolOutcome,
  ToolStats
} from './types.js'

export interface RenderOptions {
  /** The hidden marker comment that identifies the sticky comment; rendered first, verbatim. */
  marker?: string
  /** Link to the workflow run (http(s) only; anything else is left out). */
  runUrl?: string
  /** Link to the job summary, for the comment's "Full report" (defaults to `runUrl`). */
  summaryUrl?: string
  /** Upper bound on the body's length in UTF-16 code units. */
  maxLength?: number
  /** Show modified files relative to this directory (defaults to report.workingDirectory). */
  workingDirectory?: string
  /** Extra secret values to redact from untrusted text (the report is already redacted). */
  secrets?: readonly string[]
  /** The prompt given to the agent (untrusted), shown collapsed in the comment. */
  prompt?: string
}

/** The denials of one policy rule. */
export interface DenialGroup {
  rule: string
  count: number
  /** The rule's reason (the first one given). */
  reason?: string
  /** What was asked for, distinct, in order. */
  subjects: string[]
}

/** A tool the agent called that the CLI does not have (or not in this mode). */
export interface UnavailableTool {
  name: string
  error: string
}

export class View {
  readonly toolRows: [string, ToolStats][]
  readonly toolTotals: ToolStats
  readonly denied: PermissionRecord[]
  readonly deniedTotal: number
  readonly allowedTotal: number
  readonly denialGroups: DenialGroup[]
  readonly kinds: [string, { allow: number; deny: number }][]
  readonly models: [string, ModelUsage][]
  /** The files changed, relative to the workspace (from git when the report has it). */
  readonly files: string[]
  /** The figures every renderer and the outputs share. */
  readonly figures: Figures
  /** Denials decided by a rule or the default (not the asks a person did not approve). */
  readonly ruleDenied: PermissionRecord[]
  /** Asks nobody answered (no answer in time, or nobody to ask): denied. */
  readonly unanswered: PermissionRecord[]
  readonly failingCommands: CommandRecord[]
  readonly unavailableTools: UnavailableTool[]
  /** The policy file could not be used: the run never started. */
  readonly badPolicy: boolean
  /** Where paths are shown relative to, when known. */
  readonly root: string | undefined
  private readonly secrets: string[]

  constructor(
    readonly report: Report,
    readonly options: RenderOptions & { maxLength: number }
  ) {
    this.secrets = normalizeSecrets(options.secrets ?? [])
    this.badPolicy = (report.policy.issues?.length ?? 0) > 0
    this.toolRows = Object.entries(report.toolStats ?? statsFrom(report.tools)).sort(
      ([a, x], [b, y]) => y.calls - x.calls || a.localeCompare(b)
    )
    this.toolTotals = this.toolRows.reduce(
      (t, [, s]) => ({
        calls: t.calls + finite(s.calls),
        succeeded: t.succeeded + finite(s.succeeded),
        failed: t.failed + finite(s.failed),
        denied: t.denied + finite(s.denied),
        durationMs: t.durationMs + finite(s.durationMs)
      }),
      { calls: 0, succeeded: 0, failed: 0, denied: 0, durationMs: 0 }
    )
    this.denied = report.permissions.filter((p) => p.decision === 'deny')
    this.deniedTotal = deniedCount(report)
    this.kinds = Object.entries(report.permissionCounts ?? countsFrom(report.permissions)).sort(
      ([a, x], [b, y]) => y.allow + y.deny - (x.allow + x.deny) || a.localeCompare(b)
    )
    this.allowedTotal = this.kinds.reduce((n, [, c]) => n + finite(c.allow), 0)
    this.ruleDenied = this.denied.filter((p) => p.approval === undefined)
    this.unanswered = this.denied.filter(
      (p) => p.approval?.verdict === 'timeout' || p.approval?.verdict === 'unavailable'
    )
    this.denialGroups = groupDenials(this.ruleDenied)
    this.models = Object.entries(report.metrics.models).sort(
      ([a, x], [b, y]) => y.requests - x.requests || a.localeCompare(b)
    )
    this.root = options.workingDirectory ?? report.workingDirectory
    this.figures = figures(report)
    this.files = this.figures.changes.files.map((file) => relativePath(file.path, this.root))
    // A command the cancellation interrupted did not fail: the run says it was cancelled.
    const interrupted = (c: CommandRecord): boolean =>
      report.status === 'cancelled' && c.exitCode === null && !c.timedOut
    // Verify commands of an attempt a repair replaced are history (the job summary has them).
    const lastVerify = new Set(this.figures.verify)
    const superseded = (c: CommandRecord): boolean => c.phase === 'verify' && !lastVerify.has(c)
    this.failingCommands = report.commands.filter(
      (c) => (c.timedOut || c.exitCode !== 0) && !interrupted(c) && !superseded(c)
    )
    this.unavailableTools = unavailableTools(report.tools)
  }

  /** Redact with the render-time secrets (the report itself is redacted already). */
  clean(text: string): string {
    return redactNormalized(text, this.secrets)
  }
  /** Untrusted text on one line, no markdown. */
  inline(text: string, max = 200): string {
    return inlineText(this.clean(text), max)
  }
  /** Untrusted markdown on one line: its code spans kept. */
  inlineMd(text: string, max = 200): string {
    return inlineMarkdown(this.clean(text), max)
  }
  /** Untrusted text as an inline code span. */
  code(text: string, max = 200): string {
    return codeSpan(this.clean(text), max)
  }
  /**
   * Untrusted text as an inline code span in a table cell. A table cannot wrap a long unbroken
   * word (a URL, a path), so each is shortened in the middle; the JSON report has it whole.
   */
  cell(text: string, max = 60): string {
    return tableCell(this.code(shortenWords(text, TABLE_WORD), max))
  }
  /** Untrusted multi-line text as a fenced code block. */
  block(text: string, max: number, keep: 'head' | 'tail' = 'head', lang = 'text'): string {
    return codeBlock(truncate(this.clean(text), max, { keep }), lang)
  }
  /** Untrusted markdown, neutralized and quoted so nothing in it reaches past it. */
  quote(text: string, max: number): string {
    return quoteMarkdown(this.clean(text), max)
  }
  /** The run's link, or null. */
  get runUrl(): string | null {
    return safeUrl(this.options.runUrl)
  }
  /** The job summary's link (the run's when not given), or null. */
  get summaryUrl(): string | null {
    return safeUrl(this.options.summaryUrl) ?? this.runUrl
  }
}

// ---------------------------------------------------------------------------------------------
// Markdown helpers

/** The longest unbroken word a table cell shows. */
const TABLE_WORD = 64

/** Words longer than `max` cut in the middle (`https://example.com/aaaa…aaaa/x.tgz`). */
export function shortenWords(text: string, max: number): string {
  return text.replace(/\S+/g, (word) => {
    if (word.length <= max) return word
    const chars = Array.from(word) // never split a surrogate pair
    if (chars.length <= max) return word
    return `${chars.slice(0, max - 21).join('')}…${chars.slice(-20).join('')}`
  })
}

/**
 * Untrusted markdown, cut to `max`, neutralized and quoted line by line. Its headings are
 * demoted to `####`, so none renders larger than the `###` headline.
 */
export function quoteMarkdown(text: string, max: number): string {
  return demoteHeadings(neutralizeMarkdown(truncate(text.trim(), max)))
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n')
}

/** ATX headings `#` to `###` outside fenced code become `####` (setext ones, `**…**`). */
export function demoteHeadings(markdown: string): string {
  const lines = markdown.split('\n')
  let fence: string | null = null
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence !== null) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = null
      }
      continue
    }
    if (marker !== undefined) {
      fence = marker
      continue
    }
    const atx = /^ {0,3}#{1,3}(?=[ \t]|$)/.exec(line)
    if (atx !== null) {
      lines[i] = `####${line.slice(atx[0].length)}`
      continue
    }
    // a setext underline under a paragraph line: the line above becomes bold text
    const previous = lines[i - 1]
    if (
      /^ {0,3}(?:=+|-+)[ \t]*$/.test(line) &&
      previous !== undefined &&
      previous.trim() !== '' &&
      !/^ {0,3}(?:[-*+]|\d+[.)])\s/.test(previous) &&
      !/^ {0,3}-+[ \t]*$/.test(previous)
    ) {
      lines[i - 1] = `**${previous.trim()}**`
      lines[i] = ''
    }
  }
  return lines.join('\n')
}

/** A collapsible block. `title` is ours (or already made safe). */
export function details(title: string, body: string, open = false): string {
  return `<details${open ? ' open' : ''}>\n<summary>${title}</summary>\n\n${body}\n\n</details>`
}

export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : nouns}`
}

export function more(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} more ${n === 1 ? noun : `${noun}s`}`
}

export function safeUrl(url: string | undefined): string | null {
  if (url === undefined) return null
  return /^https?:\/\/[^\s<>()[\]"'`\\]+$/.test(url) ? url : null
}

/**
 * A path relative to `root` when it is inside it, or relative to the runner's checkout
 * (`/home/runner/work/<repo>/<repo>/`) when no root is known. Other paths are shown as they are.
 */
export function relativePath(file: string, root?: string): string {
  if (root) {
    const base = root.replace(/[\\/]+$/, '')
    if (file.startsWith(`${base}/`) || file.startsWith(`${base}\\`)) {
      return file.slice(base.length + 1)
    }
    return file
  }
  const runner = /^\/home\/runner\/work\/[^/]+\/[^/]+\/(.+)$/.exec(file)
  return runner?.[1] ?? file
}

export function isDone(status: string): boolean {
  return status === 'done' || status === 'completed' || status === 'complete'
}

/** `1,234`, `12.3k`, `4.5M`: token counts in one line. */
export function formatCompact(n: number): string {
  if (!Number.isFinite(n)) return '0'
  const abs = Math.abs(n)
  const scaled = (value: number, unit: string): string =>
    `${value >= 100 ? Math.round(value) : Math.round(value * 10) / 10}${unit}`
  if (abs < 1000) return String(Math.round(n))
  if (abs < 1_000_000) return scaled(n / 1000, 'k')
  return scaled(n / 1_000_000, 'M')
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return '0'
  return Number.isInteger(n)
    ? n.toLocaleString('en-US')
    : (Math.round(n * 100) / 100).toLocaleString('en-US')
}

export function finite(n: number): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0
}

// ---------------------------------------------------------------------------------------------
// Tool calls

/** What became of a call; reports written before `outcome` existed are read from `success`. */
export function outcomeOf(call: ToolCallRecord): ToolOutcome {
  switch (call.outcome) {
    case 'succeeded':
    case 'failed':
    case 'denied':
    case 'unfinished':
      return call.outcome
  }
  if (call.success === true) return 'succeeded'
  if (call.success === null) return 'unfinished'
  return call.rule !== undefined || /^denied\b/i.test(call.error ?? '') ? 'denied' : 'failed'
}

export const OUTCOME_ICON: Record<ToolOutcome, string> = {
  succeeded: '✅',
  failed: '❌',
  denied: '🚫',
  unfinished: '⏳'
}

/** Per-tool figures from the records (reports without `toolStats`). Maps: names are untrusted. */
function statsFrom(tools: ToolCallRecord[]): Record<string, ToolStats> {
  const stats = new Map<string, ToolStats>()
  for (const t of tools) {
    let s = stats.get(t.name)
    if (s === undefined) {
      s = { calls: 0, succeeded: 0, failed: 0, denied: 0, durationMs: 0 }
      stats.set(t.name, s)
    }
    s.calls++
    const outcome = outcomeOf(t)
    if (outcome === 'succeeded') s.succeeded++
    if (outcome === 'failed') s.failed++
    if (outcome === 'denied') s.denied++
    s.durationMs += t.durationMs ?? 0
  }
  return Object.fromEntries(stats)
}

function countsFrom(
  permissions: PermissionRecord[]
): Record<string, { allow: number; deny: number }> {
  const counts = new Map<string, { allow: number; deny: number }>()
  for (const p of permissions) {
    let c = counts.get(p.kind)
    if (c === undefined) {
      c = { allow: 0, deny: 0 }
      counts.set(p.kind, c)
    }
    c[p.decision]++
  }
  return Object.fromEntries(counts)
}

/** Denials by rule, each rule once, most denials first (then first seen). */
function groupDenials(denied: PermissionRecord[]): DenialGroup[] {
  const groups = new Map<string, DenialGroup>()
  for (const p of denied) {
    let g = groups.get(p.rule)
    if (g === undefined) {
      g = { rule: p.rule, count: 0, subjects: [] }
      groups.set(p.rule, g)
    }
    g.count++
    if (g.reason === undefined && p.reason) g.reason = p.reason
    if (!g.subjects.includes(p.subject)) g.subjects.push(p.subject)
  }
  return [...groups.values()].sort((a, b) => b.count - a.count)
}

/**
 * A call failed because the tool is not there: the CLI has no such tool, or not in this mode
 * (`ask_user` in autopilot). A path that does not exist is the call's business, not this.
 */
const UNAVAILABLE =
  /\b(?:unknown tool|no such tool|tool\b.*\b(?:not found|not available|unavailable|does not exist|is disabled))|\bnot available\b|\bunavailable\b/i

function unavailableTools(tools: ToolCallRecord[]): UnavailableTool[] {
  const found = new Map<string, UnavailableTool>()
  for (const call of tools) {
    if (outcomeOf(call) !== 'failed' || found.has(call.name)) continue
    const error = call.error ?? ''
    const mentionsTool = error.includes(call.name) || /\btool\b/i.test(error)
    const notFound = /\bnot found\b/i.test(error) && mentionsTool
    if (call.name === 'ask_user' || notFound || (UNAVAILABLE.test(error) && mentionsTool)) {
      found.set(call.name, { name: call.name, error })
    }
  }
  return [...found.values()]
}
