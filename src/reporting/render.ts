/**
 * Markdown for the sticky PR comment and the job summary: pure functions of a Report.
 *
 * The comment is for a reviewer who has ten seconds (render-comment.ts); the job summary has
 * everything (render-summary.ts); both share the headline, what went wrong, the agent's claim
 * and the plan (render-sections.ts). Everything that came from the model, the tools, the
 * repository or the CLI is untrusted and goes through the View's helpers (render-view.ts), which
 * use text.ts: neutralized prose with literal code, code spans, fenced code blocks. Untrusted
 * multi-line markdown is also quoted (`> `), and its fences are closed, so nothing in it reaches
 * the sections after it.
 *
 * The body is kept under `maxLength` by rendering again with tighter limits, least important
 * parts first, and saying what was trimmed.
 */
import { COMMENT_LIMITS, commentParts } from './render-comment.js'
import type { Limits } from './render-sections.js'
import { SUMMARY_LIMITS, summaryParts } from './render-summary.js'
import {
  View,
  details,
  outcomeOf,
  quoteMarkdown,
  safeUrl,
  type RenderOptions
} from './render-view.js'
import { COMMENT_MAX_LENGTH, SUMMARY_MAX_LENGTH } from './limits.js'
import { inlineText, normalizeSecrets, redactNormalized, truncate } from '../text/safe-text.js'
import type { Report } from './types.js'

export { COMMENT_MAX_LENGTH, GITHUB_COMMENT_LIMIT, SUMMARY_MAX_LENGTH } from './limits.js'
export { relativePath, type RenderOptions } from './render-view.js'
export { formatDuration, formatMinutes } from '../text/safe-text.js'

/**
 * The sticky PR comment: headline, what went wrong and how to fix it, the agent's summary as its
 * claim, plan, denials by rule, one line of figures. Everything else is in the job summary
 * (`summaryUrl`, or the run's page).
 */
export function renderComment(report: Report, options: RenderOptions & { marker: string }): string {
  const maxLength = options.maxLength ?? COMMENT_MAX_LENGTH
  const view = new View(report, { ...options, maxLength })
  return fit(view, COMMENT_LIMITS, COMMENT_TRIM, commentParts)
}

/**
 * The job summary: the comment's headline, problems, claim and plan, then the tool calls (per
 * tool, every kept call, subagents' calls under their subagent), the decision log, the commands
 * with their output, the models and the modified files.
 */
export function renderSummary(report: Report, options: RenderOptions = {}): string {
  const maxLength = options.maxLength ?? SUMMARY_MAX_LENGTH
  const view = new View(report, { ...options, maxLength })
  return fit(view, SUMMARY_LIMITS, SUMMARY_TRIM, summaryParts)
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

export interface NothingToContinueOptions {
  /** Why nothing was resumed (untrusted in part: it may quote an API error or a file name). */
  reason: string
  /** Whether `reason` ends with what to do instead (else the comment says it). */
  hasFix: boolean
  runUrl?: string
  secrets?: readonly string[]
}

/**
 * The comment (and job summary) of a bare `/continue` that had no stopped run to continue: no
 * session started, why, and what to do instead. The run's `status` output is `skipped`.
 */
export function renderNothingToContinue(options: NothingToContinueOptions): string {
  const secrets = normalizeSecrets(options.secrets ?? [])
  const url = safeUrl(options.runUrl)
  const fix = options.hasFix
    ? ''
    : ' For more work, comment `/copilot <task>`; `/continue <instructions>` starts a fresh session with them.'
  const parts = [
    '### ⏸️ Copilot did not start: nothing to continue',
    url === null ? null : `[workflow run](${url})`,
    `**⚠️ Not continued:** ${inlineText(redactNormalized(options.reason, secrets), 800)}`,
    `No session started: \`/continue\` without instructions only continues a run that stopped before it was done, and gives a fresh session no task.${fix}`
  ]
  return `${parts.filter((part): part is string => part !== null).join('\n\n')}\n`
}

// ---------------------------------------------------------------------------------------------
// Trimming

interface TrimStep {
  /** What the note says was trimmed. */
  label: string
  /** Whether the step cuts anything from this report with these limits. */
  cuts(view: View, limits: Limits): boolean
  apply(limits: Limits): void
}

type Parts = (view: View, limits: Limits, trimmed: string[]) => (string | null)[]

/** Render; while too long, apply the next step that cuts something, and render again. */
function fit(view: View, defaults: Limits, steps: TrimStep[], parts: Parts): string {
  const limits = { ...defaults }
  const trimmed: string[] = []
  const render = (): string =>
    `${parts(view, limits, trimmed)
      .filter((part): part is string => !!part)
      .join('\n\n')}\n`
  let body = render()
  for (const step of steps) {
    if (body.length <= view.options.maxLength) return body
    if (!step.cuts(view, limits)) continue
    step.apply(limits)
    if (!trimmed.includes(step.label)) trimmed.push(step.label)
    body = render()
  }
  if (body.length <= view.options.maxLength) return body
  // Last resort (a huge marker or a limit far below any report): cut the tail.
  return truncate(body, view.options.maxLength)
}

const longer = (text: string | null | undefined, n: number): boolean => (text?.length ?? 0) > n

/** The limits that are numbers (all but the `succeeded` switch). */
type NumberLimit = { [K in keyof Limits]: Limits[K] extends number ? K : never }[keyof Limits]

/** Set a limit when the report has more characters than it. */
function lower(
  label: string,
  key: NumberLimit,
  to: number,
  text: (view: View) => string | null | undefined
): TrimStep {
  return {
    label,
    cuts: (v, l) => l[key] > to && longer(text(v), to),
    apply: (l) => (l[key] = to)
  }
}

/** Set a limit when the report has more items than it. */
function fewer(
  label: string,
  key: NumberLimit,
  to: number,
  count: (view: View) => number
): TrimStep {
  return {
    label,
    cuts: (v, l) => l[key] > to && count(v) > to,
    apply: (l) => (l[key] = to)
  }
}

/** How many of each listed thing the report has. */
const count = {
  files: (v: View): number => v.files.length,
  todos: (v: View): number => v.report.plan.todos.length,
  denialGroups: (v: View): number => v.denialGroups.length,
  denied: (v: View): number => v.denied.length,
  issues: (v: View): number => v.report.policy.issues?.length ?? 0,
  decisions: (v: View): number => v.report.permissions.length,
  calls: (v: View): number => v.report.tools.length,
  toolRows: (v: View): number => v.toolRows.length,
  commands: (v: View): number => v.report.commands.length,
  kinds: (v: View): number => v.kinds.length,
  models: (v: View): number => v.models.length
}

/** The last step: the error message to 300 characters, less activity and output, shorter details. */
function errorDetails(activity: number, tail: number, detail: number): TrimStep {
  return {
    label: 'error details',
    cuts: (v, l) => l.error > 300 || l.activity > activity || l.tail > tail,
    apply: (l) => {
      l.error = 300
      l.activity = activity
      l.tail = tail
      l.detail = detail
    }
  }
}

const summaryText = (v: View): string | null => v.report.summary
const planText = (v: View): string | null => v.report.plan.content
const promptText = (v: View): string | undefined => v.options.prompt?.trim()
const errorText = (v: View): string | undefined => v.report.error?.message
const longestTail = (v: View): string =>
  v.failingCommands.reduce((a, c) => (c.outputTail.length > a.length ? c.outputTail : a), '')

/** The comment: least important first. The headline and the figures always stay. */
const COMMENT_TRIM: TrimStep[] = [
  lower('prompt', 'prompt', 500, promptText),
  fewer('files changed list', 'files', 5, count.files),
  lower('plan', 'plan', 1000, planText),
  {
    label: 'denied requests list',
    cuts: (v, l) => l.targets > 1 && v.denialGroups.some((g) => g.subjects.length > 1),
    apply: (l) => {
      l.targets = 1
      l.detail = 80
    }
  },
  lower('summary', 'summary', 1500, summaryText),
  lower('error details', 'error', 500, errorText),
  lower('command output', 'tail', 1000, longestTail),
  fewer('todos', 'todos', 10, count.todos),
  lower('plan', 'plan', 0, planText),
  fewer('denied requests list', 'rules', 3, count.denialGroups),
  fewer('suggested rules', 'blocking', 1, count.denied),
  fewer('policy errors', 'issues', 3, count.issues),
  fewer('todos', 'todos', 0, count.todos),
  lower('prompt', 'prompt', 0, promptText),
  fewer('files changed list', 'files', 0, count.files),
  lower('summary', 'summary', 300, summaryText),
  errorDetails(0, 0, 60)
]

/** The job summary: least important first. */
const SUMMARY_TRIM: TrimStep[] = [
  {
    label: 'tool calls list',
    cuts: (v, l) => l.succeeded && v.report.tools.some((c) => outcomeOf(c) === 'succeeded'),
    apply: (l) => {
      l.succeeded = false
      l.detail = 120
    }
  },
  fewer('decision log', 'decisions', 50, count.decisions),
  fewer('modified files list', 'files', 20, count.files),
  lower('plan', 'plan', 3000, planText),
  {
    label: 'command output',
    cuts: (v, l) =>
      l.commandOutput > 1000 && v.report.commands.some((c) => c.outputTail.length > 1000),
    apply: (l) => (l.commandOutput = 1000)
  },
  fewer('tool calls list', 'calls', 30, count.calls),
  fewer('decision log', 'decisions', 0, count.decisions),
  fewer('tool calls list', 'calls', 0, count.calls),
  fewer('modified files list', 'files', 0, count.files),
  lower('plan', 'plan', 0, planText),
  fewer('todos', 'todos', 20, count.todos),
  {
    label: 'command output',
    cuts: (v, l) =>
      l.commandOutput > 0 && v.report.commands.some((c) => c.outputTail.trim() !== ''),
    apply: (l) => (l.commandOutput = 0)
  },
  fewer('tool table', 'toolRows', 10, count.toolRows),
  lower('summary', 'summary', 1500, summaryText),
  lower('error details', 'error', 1000, errorText),
  fewer('todos', 'todos', 0, count.todos),
  fewer('commands', 'commands', 5, count.commands),
  fewer('policy errors', 'issues', 10, count.issues),
  fewer('permission kinds table', 'kinds', 5, count.kinds),
  fewer('model table', 'models', 5, count.models),
  fewer('tool table', 'toolRows', 5, count.toolRows),
  lower('summary', 'summary', 300, summaryText),
  errorDetails(5, 1000, 80)
]
