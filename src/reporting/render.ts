/**
 * Markdown for the sticky PR comment and the job summary: pure functions of a Report.
 *
 * Everything that came from the model, the tools, the repository or the CLI is untrusted and
 * goes through the helpers of text.ts (neutralized prose, code spans, fenced code blocks).
 * Untrusted multi-line markdown is also quoted (`> `), so an unclosed fence or a setext heading
 * in it ends with the quote instead of swallowing the sections after it.
 *
 * The body is kept under `maxLength` by rendering again with tighter limits, least important
 * sections first, and saying what was trimmed.
 */
import { deniedCount } from './outputs.js'
import {
  codeBlock,
  codeSpan,
  formatInt,
  inlineText,
  neutralizeMarkdown,
  normalizeSecrets,
  redactNormalized,
  tableCell,
  truncate
} from './text.js'
import type {
  CommandRecord,
  ModelUsage,
  PermissionRecord,
  Report,
  RunStatus,
  ToolCallRecord,
  ToolStats
} from './types.js'

export interface RenderOptions {
  /** The hidden marker comment that identifies the sticky comment; rendered first, verbatim. */
  marker?: string
  /** Link to the workflow run (http(s) only; anything else is left out). */
  runUrl?: string
  /** Upper bound on the body's length in UTF-16 code units. */
  maxLength?: number
  /** Show modified files relative to this directory (defaults to report.workingDirectory). */
  workingDirectory?: string
  /** Extra secret values to redact from untrusted text (the report is already redacted). */
  secrets?: readonly string[]
}

/** GitHub rejects comment bodies over 65,536 characters; leave room. */
export const COMMENT_MAX_LENGTH = 65_000
/** The job summary allows 1 MiB a step; characters can take 3 bytes (zero-width marks do). */
export const SUMMARY_MAX_LENGTH = 300_000

/** The sticky PR comment. */
export function renderComment(report: Report, options: RenderOptions & { marker: string }): string {
  return render(report, { ...options, maxLength: options.maxLength ?? COMMENT_MAX_LENGTH })
}

/** The job summary: the same content, without needing a marker, with a larger default limit. */
export function renderSummary(report: Report, options: RenderOptions = {}): string {
  return render(report, { ...options, maxLength: options.maxLength ?? SUMMARY_MAX_LENGTH })
}

export interface WorkingOptions {
  /** ISO time the run started. */
  startedAt: string
  runUrl?: string
  /** The prompt given to the agent (untrusted: it may quote an issue or a comment). */
  prompt?: string
  /** Prepended when given (the publisher may add it itself). */
  marker?: string
  secrets?: readonly string[]
}

/** The placeholder comment posted when the run starts, replaced by `renderComment` at the end. */
export function renderWorking(options: WorkingOptions): string {
  const secrets = normalizeSecrets(options.secrets ?? [])
  const started = Number.isFinite(Date.parse(options.startedAt))
    ? `${new Date(options.startedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`
    : null
  const meta = [started === null ? null : `Started ${started}`]
  const url = safeUrl(options.runUrl)
  if (url) meta.push(`[Workflow run](${url})`)
  const parts = [
    options.marker,
    '### ⏳ Copilot is working on it',
    'This comment will be updated with the results when the run ends.',
    meta.filter((m): m is string => m !== null).join(' · ')
  ]
  const prompt = options.prompt?.trim()
  if (prompt) {
    parts.push(details('Prompt', quoteMarkdown(redactNormalized(prompt, secrets), 4000)))
  }
  return `${parts.filter((part): part is string => !!part).join('\n\n')}\n`
}

// ---------------------------------------------------------------------------------------------
// Limits and trimming

interface Limits {
  summary: number
  plan: number
  todos: number
  toolRows: number
  notable: number
  detail: number
  commands: number
  commandOutput: number
  denied: number
  kinds: number
  models: number
  files: number
  error: number
  activity: number
}

const DEFAULT_LIMITS: Limits = {
  summary: 6000,
  plan: 20_000,
  todos: 100,
  toolRows: 30,
  notable: 60,
  detail: 200,
  commands: 20,
  commandOutput: 4000,
  denied: 50,
  kinds: 20,
  models: 10,
  files: 100,
  error: 4000,
  activity: 10
}

interface TrimStep {
  /** What the note says was trimmed. */
  label: string
  /** Whether the step cuts anything from this report. */
  cuts(view: View): boolean
  apply(limits: Limits): void
}

/** Least important first. Each step is tried in turn until the body fits. */
const TRIM_STEPS: TrimStep[] = [
  {
    label: 'notable tool calls',
    cuts: (v) => v.notable.length > 15,
    apply: (l) => {
      l.notable = 15
      l.detail = 120
    }
  },
  { label: 'modified files list', cuts: (v) => v.files.length > 20, apply: (l) => (l.files = 20) },
  {
    label: 'plan',
    cuts: (v) => (v.report.plan.content?.length ?? 0) > 3000,
    apply: (l) => (l.plan = 3000)
  },
  {
    label: 'command output',
    cuts: (v) => v.hasOutput(1000),
    apply: (l) => (l.commandOutput = 1000)
  },
  {
    label: 'denied requests list',
    cuts: (v) => v.denied.length > 10,
    apply: (l) => (l.denied = 10)
  },
  { label: 'notable tool calls', cuts: (v) => v.notable.length > 0, apply: (l) => (l.notable = 0) },
  { label: 'modified files list', cuts: (v) => v.files.length > 0, apply: (l) => (l.files = 0) },
  { label: 'plan', cuts: (v) => v.report.plan.content !== null, apply: (l) => (l.plan = 0) },
  { label: 'todos', cuts: (v) => v.report.plan.todos.length > 20, apply: (l) => (l.todos = 20) },
  { label: 'command output', cuts: (v) => v.hasOutput(0), apply: (l) => (l.commandOutput = 0) },
  { label: 'denied requests list', cuts: (v) => v.denied.length > 0, apply: (l) => (l.denied = 0) },
  {
    label: 'tool table',
    cuts: (v) => v.toolRows.length > 10,
    apply: (l) => (l.toolRows = 10)
  },
  {
    label: 'summary',
    cuts: (v) => (v.report.summary?.length ?? 0) > 1500,
    apply: (l) => (l.summary = 1500)
  },
  {
    label: 'error details',
    cuts: (v) => (v.report.error?.message.length ?? 0) > 1000,
    apply: (l) => (l.error = 1000)
  },
  { label: 'todos', cuts: (v) => v.report.plan.todos.length > 0, apply: (l) => (l.todos = 0) },
  { label: 'commands', cuts: (v) => v.report.commands.length > 5, apply: (l) => (l.commands = 5) },
  {
    label: 'permission kinds table',
    cuts: (v) => v.kinds.length > 5,
    apply: (l) => (l.kinds = 5)
  },
  { label: 'model table', cuts: (v) => v.models.length > 5, apply: (l) => (l.models = 5) },
  {
    label: 'tool table',
    cuts: (v) => v.toolRows.length > 5,
    apply: (l) => (l.toolRows = 5)
  },
  {
    label: 'summary',
    cuts: (v) => (v.report.summary?.length ?? 0) > 300,
    apply: (l) => {
      l.summary = 300
      l.error = 300
      l.activity = 5
      l.detail = 80
    }
  }
]

function render(report: Report, options: RenderOptions & { maxLength: number }): string {
  const view = new View(report, options)
  const limits = { ...DEFAULT_LIMITS }
  const trimmed: string[] = []
  let body = renderWith(view, limits, trimmed)
  for (const step of TRIM_STEPS) {
    if (body.length <= options.maxLength) return body
    if (!step.cuts(view)) continue
    step.apply(limits)
    if (!trimmed.includes(step.label)) trimmed.push(step.label)
    body = renderWith(view, limits, trimmed)
  }
  if (body.length <= options.maxLength) return body
  // Last resort (a huge marker or limit far below any report): cut the tail.
  return truncate(body, options.maxLength)
}

function renderWith(view: View, limits: Limits, trimmed: string[]): string {
  const parts = [
    view.options.marker,
    statusSection(view, limits),
    planSection(view, limits),
    toolSection(view, limits),
    commandSection(view, limits),
    permissionSection(view, limits),
    metricsSection(view, limits),
    failureSection(view, limits),
    trimNote(view, trimmed)
  ]
  return `${parts.filter((part): part is string => !!part).join('\n\n')}\n`
}

// ---------------------------------------------------------------------------------------------
// What the sections need, computed once per render

class View {
  readonly notable: ToolCallRecord[]
  readonly toolRows: [string, ToolStats][]
  readonly toolTotals: ToolStats
  readonly denied: PermissionRecord[]
  readonly kinds: [string, { allow: number; deny: number }][]
  readonly models: [string, ModelUsage][]
  readonly files: string[]
  /** Where paths are shown relative to, when known. */
  readonly root: string | undefined
  private readonly secrets: string[]

  constructor(
    readonly report: Report,
    readonly options: RenderOptions & { maxLength: number }
  ) {
    this.secrets = normalizeSecrets(options.secrets ?? [])
    const failed = report.tools.filter((t) => t.success === false)
    const shell = report.tools.filter((t) => t.success !== false && t.detail !== undefined)
    this.notable = [...failed, ...shell]
    this.toolRows = Object.entries(report.toolStats ?? statsFrom(report.tools)).sort(
      ([a, x], [b, y]) => y.calls - x.calls || a.localeCompare(b)
    )
    this.toolTotals = this.toolRows.reduce(
      (t, [, s]) => ({
        calls: t.calls + s.calls,
        succeeded: t.succeeded + s.succeeded,
        failed: t.failed + s.failed,
        durationMs: t.durationMs + s.durationMs
      }),
      { calls: 0, succeeded: 0, failed: 0, durationMs: 0 }
    )
    this.denied = report.permissions.filter((p) => p.decision === 'deny')
    this.kinds = Object.entries(report.permissionCounts ?? countsFrom(report.permissions)).sort(
      ([a, x], [b, y]) => y.allow + y.deny - (x.allow + x.deny) || a.localeCompare(b)
    )
    this.models = Object.entries(report.metrics.models).sort(
      ([a, x], [b, y]) => y.requests - x.requests || a.localeCompare(b)
    )
    this.root = options.workingDirectory ?? report.workingDirectory
    this.files = report.metrics.filesModified.map((file) => relativePath(file, this.root))
  }

  hasOutput(max: number): boolean {
    return this.report.commands.some((c) => c.outputTail.length > max)
  }

  /** Redact with the render-time secrets (the report itself is redacted already). */
  clean(text: string): string {
    return redactNormalized(text, this.secrets)
  }
  /** Untrusted text on one line. */
  inline(text: string, max = 200): string {
    return inlineText(this.clean(text), max)
  }
  /** Untrusted text as an inline code span. */
  code(text: string, max = 200): string {
    return codeSpan(this.clean(text), max)
  }
  /** Untrusted text as an inline code span in a table cell. */
  cell(text: string, max = 60): string {
    return tableCell(this.code(text, max))
  }
  /** Untrusted multi-line text as a fenced code block. */
  block(text: string, max: number, keep: 'head' | 'tail' = 'head', lang = 'text'): string {
    return codeBlock(truncate(this.clean(text), max, { keep }), lang)
  }
  /** Untrusted markdown, neutralized and quoted so nothing in it reaches past it. */
  quote(text: string, max: number): string {
    return quoteMarkdown(this.clean(text), max)
  }
}

// ---------------------------------------------------------------------------------------------
// Sections

const STATUS: Record<RunStatus, string> = {
  completed: '✅ Copilot completed the task',
  incomplete: '⚠️ Copilot stopped before finishing (incomplete)',
  failed: '❌ Copilot run failed',
  'timed-out': '⏱ Copilot run timed out',
  cancelled: '🛑 Copilot run was cancelled'
}

function statusSection(view: View, limits: Limits): string {
  const { report } = view
  const lines = [`### ${STATUS[report.status] ?? `❔ Copilot run: ${view.inline(report.status)}`}`]
  if (report.summary) {
    lines.push('', view.quote(report.summary, limits.summary))
  } else {
    lines.push('', '_The agent gave no summary._')
  }
  const meta: string[] = []
  if (report.durationMs !== null) meta.push(`**Duration** ${formatDuration(report.durationMs)}`)
  if (report.model) meta.push(`**Model** ${view.code(report.model, 100)}`)
  if (report.cliVersion) meta.push(`**Copilot CLI** ${view.code(report.cliVersion, 50)}`)
  const url = safeUrl(view.options.runUrl)
  if (url) meta.push(`[Workflow run](${url})`)
  if (meta.length > 0) lines.push('', meta.join(' · '))
  return lines.join('\n')
}

function planSection(view: View, limits: Limits): string | null {
  const { content, todos } = view.report.plan
  if (content === null && todos.length === 0) return null
  const done = todos.filter((t) => isDone(t.status)).length
  const title = todos.length > 0 ? `Plan · ${done} of ${todos.length} todos done` : 'Plan'
  const body: string[] = []
  if (todos.length > 0) {
    const shown = todos.slice(0, limits.todos)
    const list = shown.map((todo) => {
      const status = isDone(todo.status) ? '' : ` _(${view.inline(todo.status, 30)})_`
      return `- [${isDone(todo.status) ? 'x' : ' '}] ${view.inline(todo.title || todo.id, 200)}${status}`
    })
    if (todos.length > shown.length) list.push(`- … ${more(todos.length - shown.length, 'todo')}`)
    body.push(list.join('\n'))
  }
  if (content !== null) {
    body.push(
      limits.plan > 0 ? view.quote(content, limits.plan) : '_The plan was left out to fit._'
    )
  }
  return details(title, body.join('\n\n'))
}

function toolSection(view: View, limits: Limits): string {
  const { toolRows, toolTotals: t, report } = view
  if (toolRows.length === 0) return '#### 🔧 Tools\n\nNo tool calls.'
  const head = `#### 🔧 Tools · ${calls(t.calls)}, ${formatInt(t.failed)} failed, ${formatDuration(t.durationMs)}`
  const rows = toolRows
    .slice(0, limits.toolRows)
    .map(
      ([name, s]) =>
        `| ${view.cell(name)} | ${formatInt(s.calls)} | ${formatInt(s.succeeded)} | ${formatInt(s.failed)} | ${formatDuration(s.durationMs)} |`
    )
  if (toolRows.length > rows.length) {
    rows.push(`| … ${more(toolRows.length - rows.length, 'other tool')} | | | | |`)
  }
  const table = [
    '| Tool | Calls | Succeeded | Failed | Time |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows
  ].join('\n')
  const parts = [head, table]
  if (view.notable.length > 0 && limits.notable > 0) {
    const shown = view.notable.slice(0, limits.notable)
    const list = shown.map((call) => notableLine(view, call, limits.detail))
    if (view.notable.length > shown.length) {
      list.push(`- … ${more(view.notable.length - shown.length, 'call')} (see the JSON report)`)
    }
    if (report.toolsOmitted) {
      list.push(
        `- ${formatInt(report.toolsOmitted)} older calls were not kept (the table counts them).`
      )
    }
    const failed = view.notable.filter((c) => c.success === false).length
    const title = `Notable calls (${formatInt(view.notable.length)}, ${formatInt(failed)} failed)`
    parts.push(details(title, list.join('\n')))
  }
  return parts.join('\n\n')
}

function notableLine(view: View, call: ToolCallRecord, max: number): string {
  const icon = call.success === true ? '✅' : call.success === false ? '❌' : '⏳'
  const parts = [`${icon} ${view.code(call.name, 60)}`]
  if (call.detail !== undefined && call.detail !== call.error)
    parts.push(view.code(call.detail, max))
  const tail: string[] = []
  if (call.durationMs !== null) tail.push(formatDuration(call.durationMs))
  if (call.success === null) tail.push('did not finish')
  if (call.error !== undefined) tail.push(view.inline(call.error, max))
  else if (call.success === false && call.detail !== undefined)
    tail.push(view.inline(call.detail, max))
  return `- ${parts.join(' ')}${tail.length > 0 ? ` · ${tail.join(' · ')}` : ''}`
}

function commandSection(view: View, limits: Limits): string | null {
  const { commands } = view.report
  if (commands.length === 0) return null
  const shown = commands.slice(0, limits.commands)
  const blocks = shown.map((c) => commandBlock(view, c, limits.commandOutput))
  if (commands.length > shown.length) {
    blocks.push(`… ${more(commands.length - shown.length, 'command')} (see the JSON report)`)
  }
  return ['#### 🧪 Setup and verify commands', ...blocks].join('\n\n')
}

function commandBlock(view: View, c: CommandRecord, maxOutput: number): string {
  const result = c.timedOut
    ? '⏱ timed out'
    : c.exitCode === 0
      ? '✅ exit 0'
      : c.exitCode === null
        ? '⚠️ no exit code'
        : `❌ exit ${c.exitCode}`
  const line = `**${c.phase === 'setup' ? 'setup' : 'verify'}** ${view.code(c.command, 300)} · ${result} · ${formatDuration(c.durationMs)}`
  if (maxOutput <= 0 || c.outputTail.trim() === '') return line
  return `${line}\n\n${details('Output (last lines)', view.block(c.outputTail, maxOutput, 'tail'))}`
}

function permissionSection(view: View, limits: Limits): string {
  const { report, kinds, denied } = view
  const allowed = kinds.reduce((n, [, c]) => n + c.allow, 0)
  const deniedTotal = deniedCount(report)
  const source = view.code(relativePath(report.policy.source, view.root), 200)
  const policy = report.policy.builtIn
    ? `**Policy:** the built-in read-only policy applied, because no policy file was found (${source}).`
    : `**Policy:** ${source}`
  const parts = [
    `#### 🔐 Permissions · ${formatInt(allowed)} allowed, ${formatInt(deniedTotal)} denied`,
    policy
  ]
  const sandbox = sandboxLine(view)
  if (sandbox !== null) parts[1] = `${policy}  \n${sandbox}`
  if (kinds.length === 0) {
    parts.push('The agent asked for no permissions.')
    return parts.join('\n\n')
  }
  const rows = kinds
    .slice(0, limits.kinds)
    .map(([kind, c]) => `| ${view.cell(kind)} | ${formatInt(c.allow)} | ${formatInt(c.deny)} |`)
  if (kinds.length > rows.length)
    rows.push(`| … ${more(kinds.length - rows.length, 'other kind')} | | |`)
  parts.push(['| Kind | Allowed | Denied |', '| --- | ---: | ---: |', ...rows].join('\n'))
  if (denied.length > 0 && limits.denied > 0) {
    const shown = denied.slice(0, limits.denied)
    const list = shown.map((p) => deniedLine(view, p, limits.detail))
    const unlisted = deniedTotal - shown.length
    if (unlisted > 0) list.push(`- … ${more(unlisted, 'denied request')} (see the JSON report)`)
    parts.push(details(`Denied requests (${formatInt(deniedTotal)})`, list.join('\n'), true))
  } else if (deniedTotal > 0) {
    parts.push('_The list of denied requests was left out to fit; see the JSON report._')
  }
  return parts.join('\n\n')
}

/** One line: whether the agent's shell commands ran in the OS sandbox. */
function sandboxLine(view: View): string | null {
  const sandbox = view.report.sandbox
  if (sandbox === undefined) return null
  const reason = sandbox.reason ? ` — ${view.inline(sandbox.reason, 300)}` : ''
  switch (sandbox.state) {
    case 'enforced':
      return `**Sandbox:** 🛡️ enforced${sandbox.backend ? ` (${view.code(sandbox.backend, 40)})` : ''}: the agent's shell commands ran confined to the workspace, without network beyond the policy's hosts`
    case 'unavailable':
      return `**Sandbox:** ⚠️ unavailable${reason}: the agent's shell commands ran without the OS sandbox (the policy still judged each one)`
    case 'off':
      return `**Sandbox:** off (sandbox.mode: off): the agent's shell commands ran without the OS sandbox`
  }
}

function deniedLine(view: View, p: PermissionRecord, max: number): string {
  const rule = p.rule === 'default' ? 'no rule matched (default)' : `rule ${view.code(p.rule, 100)}`
  const reason = p.reason ? ` — ${view.inline(p.reason, max)}` : ''
  return `- 🚫 ${view.code(p.kind, 40)} ${view.code(p.subject || '(no subject)', max)} · ${rule}${reason}`
}

function metricsSection(view: View, limits: Limits): string {
  const { metrics, sessionId } = view.report
  const facts = [
    `**Premium requests** ${formatNumber(metrics.premiumRequests)}`,
    `**API time** ${formatDuration(metrics.apiDurationMs)}`,
    `**Lines** +${formatInt(metrics.linesAdded)} −${formatInt(metrics.linesRemoved)}`,
    `**Files modified** ${formatInt(metrics.filesModified.length)}`
  ]
  const parts = ['#### 📊 Usage', facts.join(' · ')]
  if (view.models.length > 0) {
    const rows = view.models
      .slice(0, limits.models)
      .map(
        ([name, u]) =>
          `| ${view.cell(name)} | ${formatInt(u.requests)} | ${formatInt(u.inputTokens)} | ${formatInt(u.outputTokens)} | ${formatInt(u.cacheReadTokens)} | ${formatInt(u.cacheWriteTokens)} |`
      )
    if (view.models.length > rows.length) {
      rows.push(`| … ${more(view.models.length - rows.length, 'other model')} | | | | | |`)
    }
    parts.push(
      [
        '| Model | Requests | Input tokens | Output tokens | Cache read | Cache write |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        ...rows
      ].join('\n')
    )
  }
  if (view.files.length > 0 && limits.files > 0) {
    const shown = view.files.slice(0, limits.files)
    const list = shown.map((file) => `- ${view.code(file, 200)}`)
    if (view.files.length > shown.length) {
      list.push(`- … ${more(view.files.length - shown.length, 'file')} (see the JSON report)`)
    }
    parts.push(details(`Files modified (${formatInt(view.files.length)})`, list.join('\n')))
  }
  if (sessionId) parts.push(`<sub>Session ${view.code(sessionId, 100)}</sub>`)
  return parts.join('\n\n')
}

function failureSection(view: View, limits: Limits): string | null {
  const { report } = view
  if (report.status === 'completed') return null
  const parts = ['#### 🩺 What went wrong']
  if (report.error) {
    const type = report.error.type ? ` (${view.inline(report.error.type, 60)})` : ''
    parts.push(`**Error**${type}\n\n${view.block(report.error.message, limits.error)}`)
  } else {
    parts.push(`The run ended with status ${codeSpan(report.status)} and no error message.`)
  }
  if (report.stopReason) parts.push(`Autopilot stopped: ${view.code(report.stopReason, 60)}.`)
  const activity = report.lastActivity.slice(-limits.activity)
  if (activity.length > 0) {
    parts.push(
      `**What the agent was doing last** (most recent last)\n\n${view.block(activity.join('\n'), 4000)}`
    )
  }
  return parts.join('\n\n')
}

function trimNote(view: View, trimmed: string[]): string | null {
  if (trimmed.length === 0) return null
  return `> ✂️ Trimmed to stay under ${formatInt(view.options.maxLength)} characters: ${trimmed.join(', ')}. The JSON report has everything.`
}

// ---------------------------------------------------------------------------------------------
// Small helpers

/** Untrusted markdown, cut to `max`, neutralized and quoted line by line. */
function quoteMarkdown(text: string, max: number): string {
  return neutralizeMarkdown(truncate(text.trim(), max))
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n')
}

/** A collapsible block. `title` is ours (never untrusted text). */
function details(title: string, body: string, open = false): string {
  return `<details${open ? ' open' : ''}>\n<summary>${title}</summary>\n\n${body}\n\n</details>`
}

function isDone(status: string): boolean {
  return status === 'done' || status === 'completed' || status === 'complete'
}

function calls(n: number): string {
  return `${formatInt(n)} ${n === 1 ? 'call' : 'calls'}`
}

function more(n: number, noun: string): string {
  return `${formatInt(n)} more ${n === 1 ? noun : `${noun}s`}`
}

/** `850 ms`, `12.3 s`, `3 m 12 s`, `1 h 02 m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`
  const totalSeconds = Math.floor(ms / 1000)
  const hours = Math.floor(totalSeconds / 3600)
  const minutes = Math.floor((totalSeconds % 3600) / 60)
  const seconds = totalSeconds % 60
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} m`
  return `${minutes} m ${String(seconds).padStart(2, '0')} s`
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return '0'
  return Number.isInteger(n) ? formatInt(n) : (Math.round(n * 100) / 100).toLocaleString('en-US')
}

function safeUrl(url: string | undefined): string | null {
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

/** Per-tool figures from the records (reports without `toolStats`). Maps: names are untrusted. */
function statsFrom(tools: ToolCallRecord[]): Record<string, ToolStats> {
  const stats = new Map<string, ToolStats>()
  for (const t of tools) {
    let s = stats.get(t.name)
    if (!s) stats.set(t.name, (s = { calls: 0, succeeded: 0, failed: 0, durationMs: 0 }))
    s.calls++
    if (t.success === true) s.succeeded++
    if (t.success === false) s.failed++
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
    if (!c) counts.set(p.kind, (c = { allow: 0, deny: 0 }))
    c[p.decision]++
  }
  return Object.fromEntries(counts)
}
