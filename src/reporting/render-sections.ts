/**
 * The sections the comment and the job summary share, in their order: the headline, what went
 * wrong (and how to fix it), the agent's summary as its claim, the plan. Each returns null when
 * it has nothing to say: no section is ever rendered empty.
 */
import { suggestRule } from '../policy/index.js'
import { FAILING_OUTPUT_CHARS, FAILING_OUTPUT_LINES } from './limits.js'
import {
  details,
  isDone,
  more,
  outcomeOf,
  plural,
  relativePath,
  type UnavailableTool,
  type View
} from './render-view.js'
import { codeBlock, formatDuration, formatInt, tailLines } from '../text/safe-text.js'
import type { CommandRecord, McpServerRecord, PermissionRecord, RunStatus } from './types.js'

/** How much of each untrusted text a render shows; the trimming steps lower them. */
export interface Limits {
  /** Characters of the agent's summary. */
  summary: number
  /** Characters of the plan text. */
  plan: number
  todos: number
  /** Characters of the error message. */
  error: number
  /** The failing command's output: lines, characters. */
  tailLines: number
  tail: number
  /** Lines of the agent's last activity. */
  activity: number
  /** The denials that blocked the agent (non-completed runs), with a suggested rule each. */
  blocking: number
  /** Policy file errors listed. */
  issues: number
  /** Characters of a target, a subject or an error in a list. */
  detail: number
  // The comment
  /** Denial rules listed, and targets per rule. */
  rules: number
  targets: number
  // The job summary
  toolRows: number
  /** Call lines listed, and whether succeeded calls are among them. */
  calls: number
  succeeded: boolean
  decisions: number
  commands: number
  commandOutput: number
  kinds: number
  models: number
  files: number
}

// ---------------------------------------------------------------------------------------------
// Headline

const STATUS: Record<RunStatus, string> = {
  completed: '✅ Copilot completed the task',
  'verify-failed': '❌ Copilot completed, but verification failed',
  incomplete: '⚠️ Copilot stopped before finishing',
  failed: '❌ Copilot run failed',
  'timed-out': '⏱ Copilot run timed out',
  cancelled: '🛑 Copilot run was cancelled',
  'budget-exceeded': '💸 Copilot run stopped: its budget ran out',
  'policy-violation': '⛔ Copilot changed files the policy protects (reverted)'
}

export const BAD_POLICY_HEADLINE = '❌ The policy file is invalid'

/** The status line, as the `###` heading shows it (without the `### `). */
export function statusLine(view: View): string {
  if (view.badPolicy) return BAD_POLICY_HEADLINE
  const { status } = view.report
  return STATUS[status] ?? `❔ Copilot run: ${view.inline(String(status), 40)}`
}

/** `### <status>`, and one line of facts under it: duration · model · CLI · sandbox · run. */
export function headline(view: View): string {
  const title = `### ${statusLine(view)}`
  if (view.badPolicy) return title
  const { report } = view
  const meta: string[] = []
  if (report.durationMs !== null) meta.push(`⏱ ${formatDuration(report.durationMs)}`)
  if (report.model) meta.push(view.code(report.model, 80))
  if (report.agent) meta.push(`agent ${view.code(report.agent.name, 80)}`)
  if (report.cliVersion) meta.push(`Copilot CLI ${view.code(report.cliVersion, 40)}`)
  const sandbox = sandboxWord(view)
  if (sandbox !== null) meta.push(sandbox)
  const url = view.runUrl
  if (url !== null) meta.push(`[workflow run](${url})`)
  return meta.length > 0 ? `${title}\n\n${meta.join(' · ')}` : title
}

function sandboxWord(view: View): string | null {
  switch (view.report.sandbox?.state) {
    case 'enforced':
      return view.report.sandbox.networkOff
        ? 'sandbox 🛡️ enforced (no network)'
        : 'sandbox 🛡️ enforced'
    case 'unavailable':
      return 'sandbox ⚠️ unavailable'
    case 'off':
      return 'sandbox 🔓 off'
    default:
      return null
  }
}

// ---------------------------------------------------------------------------------------------
// A policy that could not be used

/** The policy's errors: the whole story of a run that never started. */
export function policyIssuesSection(view: View, limits: Limits): string | null {
  const issues = view.report.policy.issues ?? []
  if (issues.length === 0) return null
  const file = view.code(relativePath(view.report.policy.source, view.root), 200)
  const lines = [`The policy ${file} has ${plural(issues.length, 'error')}; the run did not start.`]
  const shown = issues.slice(0, limits.issues)
  const list = shown.map((issue) => {
    const where = view.code(
      `${relativePath(issue.file, view.root)}:${issue.line}:${issue.column}`,
      240
    )
    const fix = issue.fix ? ` — ${view.inlineMd(issue.fix, limits.detail * 2)}` : ''
    return `- ${where}: ${view.inlineMd(issue.message, limits.detail * 2)}${fix}`
  })
  if (issues.length > shown.length) list.push(`- … ${more(issues.length - shown.length, 'error')}`)
  return [...lines, '', ...list].join('\n')
}

/** Where the rest is: the job summary (from the comment) or the run's log. */
export function policyLinks(view: View, inComment: boolean): string | null {
  const links: string[] = []
  const summary = view.summaryUrl
  const run = view.runUrl
  if (inComment && summary !== null && summary !== run) links.push(`[job summary](${summary})`)
  if (run !== null) links.push(`[workflow run](${run})`)
  if (links.length === 0) return null
  return `Details: ${links.join(' · ')}`
}

// ---------------------------------------------------------------------------------------------
// What went wrong and how to fix it

export const PROBLEMS_HEADING = '#### 🩺 What went wrong and how to fix it'

/**
 * Only when the run did not complete or something is worth fixing; each part only when it has
 * something to say. The error, the failing command with the end of its output, a refused
 * task_complete, the denials that blocked the agent (with the rule that would allow each), tools
 * the agent could not use, and what it was doing last.
 */
/**
 * What the workspace audit found: each path the write rules forbid that changed while the agent
 * worked, its rule, the command that names it, and whether it was put back.
 */
function violationsPart(view: View, limits: Limits): string | null {
  const violations = view.report.audit?.violations ?? []
  if (violations.length === 0) return null
  const max = Math.max(limits.blocking, 5)
  const list = violations.slice(0, max).map((v) => {
    const rule =
      v.rule === 'default'
        ? 'no rule allows it'
        : `rule ${view.code(v.rule, Math.min(limits.detail, 100))}`
    const by = v.command ? `, by ${view.code(v.command, limits.detail)}` : ''
    const fate = v.reverted
      ? '↩️ put back'
      : `⚠️ not put back${v.note ? ` (${view.inline(v.note, limits.detail)})` : ''}`
    return `- ${view.code(v.path, limits.detail)} ${v.change} — ${rule}${by} — ${fate}`
  })
  if (violations.length > max) list.push(`- … ${more(violations.length - max, 'path')}`)
  const kept = violations.filter((v) => !v.reverted).length
  const after =
    kept === 0
      ? 'The workspace is as it was before the agent started for these paths; nothing the agent made of them reaches a later step.'
      : 'Check the paths not put back before a later step uses this workspace.'
  return `⛔ **Changed what the policy forbids** (found by the workspace audit after the agent's work):\n\n${list.join('\n')}\n\n${after}`
}

export function problemsSection(view: View, limits: Limits): string | null {
  const { report } = view
  const completed = report.status === 'completed'
  const parts: string[] = []
  const rejected = report.completion?.state === 'rejected'
  const [failing, ...otherFailing] = view.failingCommands
  if (failing !== undefined) {
    parts.push(failingCommandPart(view, failing, limits))
    if (otherFailing.length > 0) {
      const list = otherFailing.slice(0, 5).map((c) => `- ${commandLine(view, c, limits.detail)}`)
      if (otherFailing.length > 5) list.push(`- … ${more(otherFailing.length - 5, 'command')}`)
      parts.push(`Also failed:\n\n${list.join('\n')}`)
    }
  }
  const violations = violationsPart(view, limits)
  if (violations !== null) parts.unshift(violations)
  // The error, unless the failing command or the refused task_complete already says it all.
  const type = report.error?.type
  const said =
    (failing !== undefined && (type === 'verify' || type === 'setup-command')) ||
    (rejected && type === 'task-complete-rejected') ||
    (violations !== null && type === 'policy-violation')
  if (report.error && !said) parts.push(errorPart(view, limits))
  const fix = knownFix(view)
  if (fix !== null) parts.push(`**How to fix it:** ${fix}`)
  if (rejected) {
    const reason = report.completion?.reason
    parts.push(
      `⛔ The agent called \`task_complete\`, but the Copilot CLI refused it${reason ? `: ${view.inline(reason, limits.detail * 2)}` : ''}. Whatever its summary says, the task is not complete.`
    )
  }
  if (!completed && limits.blocking > 0) {
    const blocking = blockingDenials(view).slice(-limits.blocking)
    if (blocking.length > 0) {
      const which =
        blocking.length === 1 ? 'The last denial' : `The last ${blocking.length} denials`
      const items = blocking.map((p) => denialItem(view, p, limits))
      parts.push(`**Denied by the policy** (${which.toLowerCase()}):\n\n${items.join('\n')}`)
    }
  }
  for (const tool of view.unavailableTools) parts.push(unavailablePart(view, tool, limits))
  const down = mcpServersDown(view)
  if (down.length > 0) {
    const list = down.slice(0, 5).map((s) => {
      const why = s.error ? `: ${view.inline(s.error, limits.detail)}` : ''
      return `- ${view.code(s.name, 80)} ${s.status === 'not-reported' ? 'was not reported as started' : `is ${view.inline(s.status, 30)}`}${why}`
    })
    if (down.length > 5) list.push(`- … ${more(down.length - 5, 'server')}`)
    parts.push(
      `⚠️ **MCP servers the agent could not use** (their tools were not offered to it):\n\n${list.join('\n')}`
    )
  }
  if (report.agent && !report.agent.selected && report.sessionId !== null) {
    parts.push(
      `⚠️ The Copilot CLI did not confirm it selected the custom agent ${view.code(report.agent.name, 80)} (${view.code(report.agent.file, 200)}).`
    )
  }
  if (report.status === 'timed-out' || report.status === 'cancelled') {
    const running = report.tools.filter((c) => outcomeOf(c) === 'unfinished').slice(-3)
    if (running.length > 0) {
      const list = running.map((c) => {
        const target = c.target
          ? ` ${view.code(relativePath(c.target, view.root), limits.detail)}`
          : ''
        return `- ⏳ ${view.code(c.name, 60)}${target}`
      })
      parts.push(`**Still running when the run stopped:**\n\n${list.join('\n')}`)
    }
  }
  if (parts.length === 0 && !completed) parts.push(noErrorLine(report.status))
  if (parts.length === 0) return null
  if (!completed && report.status !== 'verify-failed' && limits.activity > 0) {
    const activity = report.lastActivity.slice(-limits.activity)
    if (activity.length > 0) {
      parts.push(
        details(
          'What the agent was doing last (most recent last)',
          view.block(activity.join('\n'), 4000)
        )
      )
    }
  }
  return [PROBLEMS_HEADING, ...parts].join('\n\n')
}

function errorPart(view: View, limits: Limits): string {
  const error = view.report.error
  if (error === undefined) return ''
  const message = error.message.trim()
  if (!message.includes('\n') && message.length <= Math.min(limits.error, 600)) {
    return `**Error:** ${view.inlineMd(message, limits.error)}`
  }
  const first = message.split('\n', 1)[0] ?? ''
  return `**Error:** ${view.inlineMd(first, 300)}\n\n${view.block(message, limits.error)}`
}

/** A fix for the errors whose cause is known; null when there is nothing sure to say. */
function knownFix(view: View): string | null {
  const { report } = view
  const message = report.error?.message ?? ''
  const type = report.error?.type ?? ''
  if (report.status === 'completed') return null
  if (type === 'max-tokens') {
    return 'Raise `max-tokens`, or give the agent a smaller task.'
  }
  if (type === 'hang') {
    return 'Re-run the job; if the agent runs long silent commands, raise `idle-timeout-minutes`.'
  }
  if (type === 'timeout' || report.status === 'timed-out') {
    return 'Raise `timeout-minutes`, or give the agent a smaller task.'
  }
  if (report.stopReason === 'cap_reached' || /autopilot continues/i.test(message)) {
    return 'Raise `max-autopilot-continues`, or make the prompt say clearly when the task is done.'
  }
  if (type === 'plan-mode') {
    return 'Ask for the work itself in the prompt, or turn `plan-first` off.'
  }
  if (type === 'sandbox') {
    return 'On GitHub-hosted Linux runners the action sets the sandbox up itself; elsewhere install `bubblewrap` on the runner (and `slirp4netns iptables` for url rules; on Ubuntu 24.04 let bwrap create user namespaces, see docs/security.md), or set `sandbox.mode` in the policy to allow running without the OS sandbox.'
  }
  if (/rate.?limit|\b429\b|quota/i.test(message)) {
    return 'Wait for the rate limit or quota to reset, then re-run the job.'
  }
  if (/\bmodel\b.*\b(?:not (?:available|supported|found)|unknown|invalid)\b/i.test(message)) {
    return 'Check the `model` input against the models your Copilot plan (or provider) offers.'
  }
  if (
    /\b401\b|unauthori[sz]ed|not authorized|authentication|copilot requests|no (?:copilot )?(?:credential|token)/i.test(
      message
    )
  ) {
    return 'Check the token: `copilot-token` needs a fine-grained PAT with the "Copilot Requests" permission (or `permissions: copilot-requests: write` for `github-token`).'
  }
  if (/\b5\d\d\b|failed to get response from the ai model/i.test(message)) {
    return 'The model service failed; re-running the job usually helps.'
  }
  if (type === 'setup-command') {
    return 'Fix the setup command (it runs before the agent starts) or the `setup-commands` input.'
  }
  return null
}

function noErrorLine(status: RunStatus): string {
  switch (status) {
    case 'incomplete':
      return 'The agent stopped without calling `task_complete`, and gave no reason.'
    case 'cancelled':
      return 'The workflow run was cancelled.'
    default:
      return `The run ended with status \`${status}\` and no error message.`
  }
}

/** `**verify** `npm test` · ❌ exit 1 · 4.1 s` */
export function commandLine(view: View, c: CommandRecord, max: number): string {
  const label =
    c.phase === 'setup' ? 'setup' : c.attempt ? `verify (after repair ${c.attempt})` : 'verify'
  return `**${label}** ${view.code(c.command, max)} · ${commandResult(c)} · ${formatDuration(c.durationMs)}`
}

export function commandResult(c: CommandRecord): string {
  if (c.timedOut) return '⏱ timed out'
  if (c.exitCode === 0) return '✅ exit 0'
  if (c.exitCode === null) return '⚠️ no exit code'
  return `❌ exit ${c.exitCode}`
}

function failingCommandPart(view: View, c: CommandRecord, limits: Limits): string {
  const what = c.phase === 'setup' ? 'The setup command' : 'The verify command'
  const result = c.timedOut
    ? `timed out after ${formatDuration(c.durationMs)}`
    : c.exitCode === null
      ? `ended without an exit code after ${formatDuration(c.durationMs)}`
      : `failed with exit code ${c.exitCode} after ${formatDuration(c.durationMs)}`
  const notStarted = c.phase === 'setup' ? ' The agent was not started.' : ''
  const line = `${what} ${view.code(c.command, 300)} ${result}.${notStarted}`
  const output = view.clean(c.outputTail).trim()
  if (limits.tail <= 0 || output === '') return line
  const lines = Math.min(limits.tailLines, FAILING_OUTPUT_LINES)
  const chars = Math.min(limits.tail, FAILING_OUTPUT_CHARS)
  return `${line}\n\nThe end of its output:\n\n${codeBlock(tailLines(output, lines, chars), 'text')}`
}

/** The last denials, one per request (kind and subject), in the order they happened. */
function blockingDenials(view: View): PermissionRecord[] {
  const seen = new Set<string>()
  const out: PermissionRecord[] = []
  for (let i = view.denied.length - 1; i >= 0; i--) {
    const p = view.denied[i] as PermissionRecord
    const key = `${p.kind}\u0000${p.subject}`
    if (seen.has(key)) continue
    seen.add(key)
    out.unshift(p)
  }
  return out
}

/** One list item: what was denied, by which rule, and the rule that would allow it. */
function denialItem(view: View, p: PermissionRecord, limits: Limits): string {
  const rule =
    p.rule === 'default'
      ? 'no rule allows it (default deny)'
      : `rule ${view.code(p.rule, 100)} denied it`
  const reason = p.reason
    ? `: ${view.inline(p.reason.trim().replace(/\.+$/, ''), limits.detail)}`
    : ''
  const head = `- 🚫 ${view.code(p.kind, 40)} ${view.code(relativePath(p.subject, view.root) || '(no subject)', limits.detail)} — ${rule}${reason}.`
  const suggestion = suggest(view, p)
  if (suggestion === null) return head
  const note = `${head}  \n  ${view.inlineMd(suggestion.note, 400)}`
  if (suggestion.kind !== 'add-rule') return note
  const yaml = codeBlock(view.clean(suggestion.yaml).trimEnd(), 'yaml')
  const indented = yaml
    .split('\n')
    .map((line) => (line === '' ? '' : `  ${line}`))
    .join('\n')
  return `${note} Add to the policy's \`rules:\`:\n\n${indented}`
}

type Suggestion = ReturnType<typeof suggestRule>

function suggest(view: View, p: PermissionRecord): Suggestion | null {
  try {
    return suggestRule(
      {
        kind: p.kind,
        rule: p.rule,
        subject: p.subject,
        ...(p.reason === undefined ? {} : { reason: p.reason }),
        request: p.request,
        ...(p.approval === undefined ? {} : { approval: p.approval })
      },
      view.root === undefined ? {} : { workingDirectory: view.root }
    )
  } catch {
    return null // a suggestion is a help, never a reason not to report
  }
}

function unavailablePart(view: View, tool: UnavailableTool, limits: Limits): string {
  if (tool.name === 'ask_user') {
    return '🧰 The agent tried to use `ask_user`, which is not available in autopilot: nobody is there to answer. Say in the prompt what it should decide by itself.'
  }
  const error = tool.error ? ` (${view.inline(tool.error, limits.detail)})` : ''
  return `🧰 The agent tried to use ${view.code(tool.name, 60)}, which is not available${error}.`
}

// ---------------------------------------------------------------------------------------------
// The agent's summary, as its claim

export function claimSection(view: View, limits: Limits): string | null {
  const { report } = view
  const summary = report.summary?.trim()
  if (!summary) return null
  let label: string
  if (report.status === 'completed') {
    label = "**The agent's summary** (its own words, not verified by the action):"
  } else if (report.completion?.state === 'rejected') {
    label =
      "**The agent's summary** (its own words; the CLI refused its task_complete, so this is only its claim):"
  } else if (report.status === 'verify-failed') {
    label =
      "**The agent's summary** (its own words; verification failed, so this is only its claim):"
  } else {
    label =
      "**The agent's summary** (its own words; the run did not complete, so this is only its claim):"
  }
  return `${label}\n\n${view.quote(summary, limits.summary)}`
}

// ---------------------------------------------------------------------------------------------
// Plan and todos

export function planSection(view: View, limits: Limits): string | null {
  const { todos } = view.report.plan
  const content = view.report.plan.content?.trim() ? view.report.plan.content : null
  if (content === null && todos.length === 0) return null
  const done = todos.filter((t) => isDone(t.status)).length
  const title = todos.length > 0 ? `Plan · ${done} of ${todos.length} todos done` : 'Plan'
  const body: string[] = []
  if (todos.length > 0 && limits.todos > 0) {
    const shown = todos.slice(0, limits.todos)
    const list = shown.map((todo) => {
      const status = isDone(todo.status) ? '' : ` _(${view.inline(todo.status, 30)})_`
      return `- [${isDone(todo.status) ? 'x' : ' '}] ${view.inline(todo.title || todo.id, 200)}${status}`
    })
    if (todos.length > shown.length) list.push(`- … ${more(todos.length - shown.length, 'todo')}`)
    body.push(list.join('\n'))
  }
  if (content !== null && limits.plan > 0) body.push(view.quote(content, limits.plan))
  if (body.length === 0) body.push('_Left out to fit; the JSON report has it._')
  return details(title, body.join('\n\n'))
}

// ---------------------------------------------------------------------------------------------
// Shared bits

/**
 * Every request the policy put to a person: what, who answered and when (or that nobody did).
 * Listed in full: a person's decision is part of what happened.
 */
export function asksSection(view: View, limits: Limits): string | null {
  const asks = view.report.permissions.filter((p) => p.approval !== undefined)
  if (asks.length === 0) return null
  const items = asks.slice(0, 20).map((p) => `- ${askLine(view, p, limits.detail)}`)
  if (asks.length > items.length)
    items.push(`- … ${asks.length - items.length} more (see the job summary)`)
  return `**🙋 Asked a maintainer** (rule \`decision: ask\`)\n\n${items.join('\n')}`
}

export function askLine(view: View, p: PermissionRecord, max: number): string {
  const a = p.approval
  if (a === undefined) return ''
  const what = `${view.code(p.kind, 40)} ${view.code(relativePath(p.subject, view.root) || '(no subject)', max)}`
  const when = askTime(a.answeredAt)
  const by = a.by ? ` by ${view.code(a.by, 60)}` : ''
  const why = a.reason ? `: ${view.inline(a.reason, max)}` : ''
  const link =
    a.url && /^https?:\/\/[^\s<>()[\]"'`\\]+$/.test(a.url) ? ` ([comment](${a.url}))` : ''
  const outcome =
    a.verdict === 'approved'
      ? `✅ approved${by}${when}${why}`
      : a.verdict === 'denied'
        ? `❌ denied${by}${when}${why}`
        : a.verdict === 'timeout'
          ? `⌛ no answer from anyone with write access${when}: denied`
          : `❌ could not ask${why}: denied`
  return `${what} · rule ${view.code(p.rule, 80)} · question ${view.code(a.id, 10)} → ${outcome}${link}`
}

function askTime(iso: string): string {
  const ms = Date.parse(iso)
  return Number.isFinite(ms) ? ` at ${new Date(ms).toISOString().slice(11, 16)} UTC` : ''
}

export function trimNote(maxLength: number, trimmed: string[]): string | null {
  if (trimmed.length === 0) return null
  return `> ✂️ Trimmed to stay under ${formatInt(maxLength)} characters: ${trimmed.join(', ')}. The JSON report has everything.`
}

// ---------------------------------------------------------------------------------------------
// MCP servers

/** Configured servers that never connected (failed, or not reported before the run ended). */
export function mcpServersDown(view: View): McpServerRecord[] {
  if (view.report.sessionId === null) return [] // no session: nothing was started
  return (view.report.mcpServers ?? []).filter((s) => s.status !== 'connected')
}

/** `MCP: `github` 3 calls (1 denied)`: each server in a few words, for the figures line. */
export function mcpFigures(view: View, max: number): string | null {
  const servers = view.report.mcpServers ?? []
  if (servers.length === 0) return null
  const shown = servers.slice(0, max).map((s) => {
    const denied = s.denied > 0 ? `, ${formatInt(s.denied)} denied` : ''
    const state = s.status === 'connected' ? '' : ` ${view.inline(s.status, 30)}`
    return `${view.code(s.name, 60)}${state} ${plural(s.calls, 'call')}${denied}`
  })
  if (servers.length > shown.length) shown.push('…')
  return `MCP ${shown.join(', ')}`
}

/** The job summary's table of MCP servers: type, state, tools, calls, denials, error. */
export function mcpSection(view: View, limits: Limits): string | null {
  const servers = view.report.mcpServers ?? []
  if (servers.length === 0) return null
  const rows = servers.map((s) => {
    const error = s.error ? view.cell(s.error, limits.detail) : ''
    return `| ${view.cell(s.name, 80)} | ${view.cell(s.type, 20)} | ${view.cell(s.status, 30)} | ${s.tools === undefined ? '' : formatInt(s.tools)} | ${formatInt(s.calls)} | ${formatInt(s.denied)} | ${error} |`
  })
  return [
    '#### 🔌 MCP servers',
    [
      '| Server | Type | State | Tools | Calls | Denied | Error |',
      '| --- | --- | --- | ---: | ---: | ---: | --- |',
      ...rows
    ].join('\n')
  ].join('\n\n')
}
