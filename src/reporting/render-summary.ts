/**
 * The job summary: what the comment says, then everything else — the tool calls (a table per
 * tool, every kept call with its target and outcome, subagents' calls under their subagent), the
 * full decision log, the commands with their output, the models and the modified files.
 */
import { usageNote } from './figures.js'
import { changeTotals, requestsPhrase, tokensPhrase, writeBackSection } from './render-comment.js'
import { bodyParts, commandLine, mcpSection, planSection, type Limits } from './render-sections.js'
import {
  OUTCOME_ICON,
  details,
  more,
  outcomeOf,
  plural,
  relativePath,
  type View
} from './render-view.js'
import { formatDuration, formatInt, tableCell } from '../text/safe-text.js'
import type { PermissionRecord, SubagentRecord, ToolCallRecord } from './types.js'
import { killedProcessesLine, refusedLine, undoneCommitLine } from './render-wall.js'

export const SUMMARY_LIMITS: Limits = {
  summary: 6000,
  plan: 20_000,
  todos: 100,
  error: 4000,
  tailLines: 30,
  tail: 2500,
  activity: 10,
  blocking: 3,
  issues: 100,
  detail: 200,
  prompt: 0,
  rules: 0,
  targets: 0,
  toolRows: 40,
  calls: 300,
  succeeded: true,
  decisions: 300,
  commands: 20,
  commandOutput: 4000,
  kinds: 20,
  models: 10,
  files: 100
}

export function summaryParts(view: View, limits: Limits, trimmed: string[]): (string | null)[] {
  return bodyParts(view, limits, trimmed, false, () => [
    planSection(view, limits),
    toolSection(view, limits),
    mcpSection(view, limits),
    permissionSection(view, limits),
    commandSection(view, limits),
    usageSection(view, limits),
    writeBackSection(view, limits),
    refusedProposals(view),
    subagentsAndQuota(view)
  ])
}

/** The safe-output calls refused as invalid, each with why (the comment only counts them). */
export function refusedProposals(view: View): string | null {
  const refused = view.report.safeOutputs?.refused ?? []
  if (refused.length === 0) return null
  const list = refused
    .slice(0, 20)
    .map((r) => `- ${view.code(r.tool, 60)}: ${view.inline(r.reason, 300)}`)
  if (refused.length > 20) list.push(`- … ${refused.length - 20} more`)
  return details(`Refused proposals (${formatInt(refused.length)})`, list.join('\n'))
}

/**
 * Two lines from the run's extras: each subagent the agent started (fleet mode or a `task` call)
 * with its call count, and the account's premium quota left after the run.
 */
export function subagentsAndQuota(view: View): string | null {
  const lines: string[] = []
  const subagents = view.report.subagents ?? []
  if (subagents.length > 0) {
    const shown = subagents.slice(0, 20).map((s) => {
      const state =
        s.outcome === 'failed' ? ', failed' : s.outcome === 'running' ? ', unfinished' : ''
      // reports from before `calls` was kept: the calls kept in `tools` that name it
      const calls =
        s.calls ?? view.report.tools.filter((c) => c.parentToolCallId === s.toolCallId).length
      return `${view.code(s.name, 60)} (${plural(calls, 'call')}${state})`
    })
    const rest =
      subagents.length > shown.length ? `, … ${more(subagents.length - 20, 'subagent')}` : ''
    lines.push(`**Subagents:** 🤖 ${shown.join(', ')}${rest}`)
  }
  const q = view.report.quota
  if (q !== undefined) {
    const left = q.unlimited
      ? `unlimited (${formatInt(q.premiumUsed)} used this period)`
      : `${formatInt(q.premiumRemaining ?? 0)} of ${formatInt(q.premiumEntitlement ?? 0)} left (${formatInt(Math.round(q.remainingPercentage))}%)`
    const over = q.overage > 0 ? `, ${formatInt(q.overage)} over the entitlement` : ''
    const reset = q.resetDate ? `; resets ${view.inline(q.resetDate.slice(0, 10), 20)}` : ''
    lines.push(`**Premium requests quota:** ${left}${over}${reset}`)
  }
  return lines.length > 0 ? lines.join('  \n') : null
}

// ---------------------------------------------------------------------------------------------
// Tool calls

export function toolSection(view: View, limits: Limits): string | null {
  const { toolRows, toolTotals: t, report } = view
  const internal = report.internalCalls ?? 0
  if (toolRows.length === 0 && report.tools.length === 0) {
    return internal > 0
      ? `#### 🔧 Tool calls\n\nThe agent made no tool calls (${plural(internal, 'internal CLI call')} not shown).`
      : null
  }
  const counts: string[] = []
  if (t.failed > 0) counts.push(`${formatInt(t.failed)} failed`)
  if (t.denied > 0) counts.push(`${formatInt(t.denied)} denied`)
  const head = `#### 🔧 Tool calls · ${plural(t.calls, 'call')}${counts.length > 0 ? ` (${counts.join(', ')})` : ''} · ${formatDuration(t.durationMs)}`
  const parts = [head]
  if (toolRows.length > 0 && limits.toolRows > 0) {
    const rows = toolRows
      .slice(0, limits.toolRows)
      .map(
        ([name, s]) =>
          `| ${view.cell(name)} | ${formatInt(s.calls)} | ${formatInt(s.succeeded)} | ${formatInt(s.failed)} | ${formatInt(s.denied ?? 0)} | ${formatDuration(s.durationMs)} |`
      )
    if (toolRows.length > rows.length) {
      rows.push(`| … ${more(toolRows.length - rows.length, 'other tool')} | | | | | |`)
    }
    parts.push(
      [
        '| Tool | Calls | Succeeded | Failed | Denied | Time |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        ...rows
      ].join('\n')
    )
  }
  const calls = callsList(view, limits)
  if (calls !== null) parts.push(calls)
  const notes: string[] = []
  if (report.toolsOmitted) {
    notes.push(
      `${plural(report.toolsOmitted, 'older call')} ${report.toolsOmitted === 1 ? 'was' : 'were'} not kept (the counts include ${report.toolsOmitted === 1 ? 'it' : 'them'}).`
    )
  }
  if (internal > 0) notes.push(`${plural(internal, 'internal CLI call')} not shown.`)
  if (notes.length > 0) parts.push(notes.join(' '))
  return parts.join('\n\n')
}

/** A node of the calls list: a call, or a subagent whose task call was not kept. */
interface CallNode {
  call?: ToolCallRecord
  subagent?: SubagentRecord
  /** The parent id an unknown subagent is known by. */
  parentId?: string
  children: ToolCallRecord[]
}

/**
 * Every kept call in order, each with its target, outcome, duration and error; the calls a
 * subagent made nested under its `task` call (or under the subagent when that call was not kept).
 */
function callsList(view: View, limits: Limits): string | null {
  if (limits.calls <= 0 || view.report.tools.length === 0) return null
  const subagents = new Map((view.report.subagents ?? []).map((s) => [s.toolCallId, s]))
  const ids = new Set(view.report.tools.map((c) => c.toolCallId))
  const roots: CallNode[] = []
  const byId = new Map<string, CallNode>()
  for (const call of view.report.tools) {
    const parent = call.parentToolCallId
    if (parent === undefined || parent === call.toolCallId) {
      const node: CallNode = { call, children: [] }
      const sub = subagents.get(call.toolCallId)
      if (sub !== undefined) node.subagent = sub
      roots.push(node)
      byId.set(call.toolCallId, node)
      continue
    }
    let node = byId.get(parent)
    if (node === undefined && !ids.has(parent)) {
      // The task call was not kept (or came later): the subagent stands for it.
      node = { parentId: parent, children: [] }
      const sub = subagents.get(parent)
      if (sub !== undefined) node.subagent = sub
      roots.push(node)
      byId.set(parent, node)
    }
    if (node === undefined) {
      // The parent is a later record: keep the order, list it at the top level.
      const own: CallNode = { call, children: [] }
      roots.push(own)
      byId.set(call.toolCallId, own)
    } else {
      node.children.push(call)
    }
  }

  const shows = (call: ToolCallRecord): boolean =>
    limits.succeeded || outcomeOf(call) !== 'succeeded'
  const lines: string[] = []
  let listed = 0
  let hidden = 0
  for (const node of roots) {
    const children = node.children.filter(shows)
    const own = node.call !== undefined && shows(node.call)
    const isSubagent = node.subagent !== undefined || node.children.length > 0
    if (!own && children.length === 0 && !(isSubagent && limits.succeeded)) {
      hidden += (node.call ? 1 : 0) + node.children.length
      continue
    }
    if (listed >= limits.calls) {
      hidden += (node.call ? 1 : 0) + node.children.length
      continue
    }
    lines.push(`- ${nodeLine(view, node, limits)}`)
    listed++
    for (const child of children) {
      if (listed >= limits.calls) {
        hidden++
        continue
      }
      lines.push(`  - ${callLine(view, child, limits.detail)}`)
      listed++
    }
    hidden += node.children.length - children.length
  }
  if (hidden > 0) {
    lines.push(
      `- … ${more(hidden, 'call')}${limits.succeeded ? '' : ' that succeeded'} not listed (see the JSON report)`
    )
  }
  if (lines.length === 0) return null
  const calls = view.report.tools.length
  const failed = view.report.tools.filter((c) => outcomeOf(c) === 'failed').length
  const denied = view.report.tools.filter((c) => outcomeOf(c) === 'denied').length
  const counts = [`${formatInt(failed)} failed`, `${formatInt(denied)} denied`].join(', ')
  return details(`Calls (${formatInt(calls)}: ${counts})`, lines.join('\n'))
}

function nodeLine(view: View, node: CallNode, limits: Limits): string {
  const sub = node.subagent
  const call = node.call
  if (sub === undefined) {
    if (call !== undefined) return callLine(view, call, limits.detail)
    return `🤖 subagent ${view.code(node.parentId ?? '?', 80)} (its call was not kept)`
  }
  const outcome =
    sub.outcome === 'completed'
      ? '✅ completed'
      : sub.outcome === 'failed'
        ? '❌ failed'
        : '⏳ still running'
  const parts = [`🤖 subagent ${view.code(sub.name, 60)}`]
  if (sub.description) parts.push(`— ${view.inline(sub.description, limits.detail)}`)
  const tail = [outcome]
  if (call?.durationMs !== null && call?.durationMs !== undefined) {
    tail.push(formatDuration(call.durationMs))
  }
  if (sub.error) tail.push(view.inline(sub.error, limits.detail))
  else if (call?.error) tail.push(view.inline(call.error, limits.detail))
  return `${parts.join(' ')} · ${tail.join(' · ')}`
}

/** `✅ `bash` `npm test` · 2.4 s` / `🚫 `bash` `git push` · denied by `no-push`: reason` */
export function callLine(view: View, call: ToolCallRecord, max: number): string {
  const outcome = outcomeOf(call)
  const parts = [`${OUTCOME_ICON[outcome]} ${view.code(call.name, 60)}`]
  if (call.target !== undefined && call.target !== '') {
    parts.push(view.code(relativePath(call.target, view.root), max))
  }
  const tail: string[] = []
  if (call.durationMs !== null) tail.push(formatDuration(call.durationMs))
  if (outcome === 'unfinished') tail.push('did not finish')
  if (outcome === 'denied') {
    const cause =
      call.rule === undefined
        ? 'denied'
        : call.rule === 'default' || call.rule === 'outside-workspace'
          ? 'denied: no rule matched (default deny)'
          : `denied by rule ${view.code(call.rule, 100)}`
    const error = call.error && !/^no rule allows it\.?$/i.test(call.error) ? call.error : undefined
    tail.push(`${cause}${error ? `: ${view.inline(error, max)}` : ''}`)
  } else if (call.error !== undefined) {
    tail.push(view.inline(call.error, max))
  }
  return `${parts.join(' ')}${tail.length > 0 ? ` · ${tail.join(' · ')}` : ''}`
}

// ---------------------------------------------------------------------------------------------
// Permissions: the policy, the sandbox, counts per kind, the decision log

export function permissionSection(view: View, limits: Limits): string {
  const { report, kinds } = view
  const source = view.code(relativePath(report.policy.source, view.root), 200)
  const policy = report.policy.builtIn
    ? `**Policy:** the built-in read-only policy applied, because no policy file was found (${source}).`
    : `**Policy:** ${source}`
  const lines = [
    policy,
    sandboxLine(view),
    auditLine(view),
    credentialsLine(view),
    instructionFilesLine(view),
    killedProcessesLine(view)
  ].filter((line): line is string => line !== null)
  const parts = [
    `#### 🔐 Permissions · ${formatInt(view.allowedTotal)} allowed, ${formatInt(view.deniedTotal)} denied`,
    lines.join('  \n')
  ]
  if (kinds.length === 0) {
    parts.push('The agent asked for no permissions.')
    return parts.join('\n\n')
  }
  if (limits.kinds > 0) {
    const rows = kinds
      .slice(0, limits.kinds)
      .map(([kind, c]) => `| ${view.cell(kind)} | ${formatInt(c.allow)} | ${formatInt(c.deny)} |`)
    if (kinds.length > rows.length) {
      rows.push(`| … ${more(kinds.length - rows.length, 'other kind')} | | |`)
    }
    parts.push(['| Kind | Allowed | Denied |', '| --- | ---: | ---: |', ...rows].join('\n'))
  }
  const log = decisionLog(view, limits)
  if (log !== null) parts.push(log)
  return parts.join('\n\n')
}

/** Every decision kept in the report: verdict, kind, subject, rule, reason. Denials first. */
function decisionLog(view: View, limits: Limits): string | null {
  const records = view.report.permissions
  if (records.length === 0) return null
  const omitted = view.report.permissionsOmitted ?? 0
  if (limits.decisions <= 0) {
    return '_The decision log was left out to fit; the JSON report has it._'
  }
  const ordered = [...view.denied, ...records.filter((p) => p.decision !== 'deny')]
  const shown = ordered.slice(0, limits.decisions)
  const rows = shown.map((p) => decisionRow(view, p, limits.detail))
  const notes: string[] = []
  if (ordered.length > shown.length) {
    notes.push(`… ${more(ordered.length - shown.length, 'decision')} (see the JSON report).`)
  }
  if (omitted > 0) {
    notes.push(
      `${plural(omitted, 'decision')} ${omitted === 1 ? 'was' : 'were'} not kept in the report (allowed ones first); the counts above include them.`
    )
  }
  const table = [
    '| | Kind | Subject | Rule | Reason |',
    '| --- | --- | --- | --- | --- |',
    ...rows
  ].join('\n')
  const body = notes.length > 0 ? `${table}\n\n${notes.join(' ')}` : table
  return details(`Decision log (${plural(records.length, 'decision')})`, body)
}

function decisionRow(view: View, p: PermissionRecord, max: number): string {
  const asked =
    p.approval === undefined
      ? ''
      : ` (asked: ${p.approval.verdict}${p.approval.by ? ` by ${view.code(p.approval.by, 40)}` : ''})`
  const verdict = `${p.decision === 'deny' ? '🚫 deny' : '✅ allow'}${asked}`
  const rule =
    p.rule === 'default' || p.rule === 'outside-workspace'
      ? 'no rule matched (default deny)'
      : view.cell(p.rule, 80)
  const reason = p.reason ? tableCell(view.inline(p.reason, max)) : ''
  return `| ${verdict} | ${view.cell(p.kind, 30)} | ${view.cell(relativePath(p.subject, view.root) || '(no subject)', max)} | ${rule} | ${reason} |`
}

/** One line: what the workspace audit after the agent's work checked and found. */
function auditLine(view: View): string | null {
  const audit = view.report.audit
  if (audit === undefined || audit.checks === 0) return null
  const found =
    audit.violations.length === 0
      ? 'nothing the write rules forbid'
      : `${plural(audit.violations.length, 'path')} the write rules forbid (see above)`
  const partial = audit.complete
    ? ''
    : ' (the workspace had more entries than the audit walks: the rest was not checked)'
  const undone = undoneCommitLine(view, 200)
  return `**Workspace audit:** ${plural(audit.changed, 'path')} changed while the agent worked; ${found}${partial}${undone === null ? '' : `  \n${undone}`}`
}

/** One line: whether the agent's shell commands ran in the OS sandbox. */
function sandboxLine(view: View): string | null {
  const sandbox = view.report.sandbox
  if (sandbox === undefined) return null
  const reason = sandbox.reason ? ` — ${view.inline(sandbox.reason, 300)}` : ''
  const audit = view.report.audit
  const readOnly = audit?.readOnly ?? []
  const kept =
    readOnly.length > 0
      ? ` (read-only inside it: ${readOnly
          .slice(0, 8)
          .map((p) => view.code(p, 120))
          .join(', ')}${readOnly.length > 8 ? `, and ${readOnly.length - 8} more` : ''})`
      : ''
  const setUp =
    sandbox.provisioned !== undefined && sandbox.provisioned.length > 0
      ? `, set up on this runner by the action (${sandbox.provisioned.map((p) => view.inline(p, 60)).join(', ')}${sandbox.setupSeconds === undefined ? '' : `; ${sandbox.setupSeconds.toFixed(1)} s`})`
      : ''
  const cli = sandbox.cliConfined
    ? '; the Copilot CLI itself (its file tools and MCP servers) ran behind the same wall, with a private HOME'
    : ''
  switch (sandbox.state) {
    case 'enforced': {
      const enforced = `**Sandbox:** 🛡️ enforced${sandbox.backend ? ` (${view.code(sandbox.backend, 40)})` : ''}${setUp}`
      const off = sandbox.networkOff
      if (off !== undefined) {
        const hosts = off.hosts.slice(0, 10).map((h) => view.code(h, 80))
        const rest =
          off.hosts.length > hosts.length ? `, … ${off.hosts.length - hosts.length} more` : ''
        return `${enforced}: the agent's shell commands ran confined to the workspace${kept} and **without network**: they could not reach ${hosts.join(', ')}${rest}, which the policy's url rules allow — ${view.inline(off.reason, 300)}${cli}`
      }
      return `${enforced}: the agent's shell commands ran confined to the workspace${kept}, without network beyond the policy's hosts${cli}`
    }
    case 'unavailable':
      return `**Sandbox:** ⚠️ unavailable${reason}${setUp}: the agent's shell commands ran without the OS sandbox (the policy still judged each one)`
    case 'off':
      return `**Sandbox:** off (sandbox.mode: off): the agent's shell commands ran without the OS sandbox`
  }
}

/** One line: instruction files the CLI would have read from outside the tree, kept from it. */
function instructionFilesLine(view: View): string | null {
  const record = view.report.instructionFiles
  if (record === undefined || record.kept.length === 0) return null
  const files = record.kept
    .slice(0, 10)
    .map((file) => `${view.code(file.path, 200)} (${view.inline(file.reason, 200)})`)
    .join(', ')
  const more = record.kept.length > 10 ? ` and ${record.kept.length - 10} more` : ''
  const back = record.restored
    ? 'put back after it'
    : `not put back${record.error ? `: ${view.inline(record.error, 300)}` : ''} (the post step tries again)`
  return `**Instruction files:** 🚧 kept from the Copilot CLI during the session, as they lead out of the workspace or are not regular files: ${files}${more}; ${back}`
}

/** One line: the checkout's credentials were out of the git config during the session. */
function credentialsLine(view: View): string | null {
  const credentials = view.report.credentials
  if (credentials === undefined || credentials.removed.length === 0) return null
  if (credentials.restored) {
    return '**Credentials:** 🔑 Checkout credentials taken out of .git/config during the session and put back'
  }
  const reason = credentials.error ? `: ${view.inline(credentials.error, 300)}` : ''
  return `**Credentials:** ⚠️ Checkout credentials taken out of .git/config during the session, not put back${reason} (the post step tries again)`
}

// ---------------------------------------------------------------------------------------------
// Setup and verify commands

export function commandSection(view: View, limits: Limits): string | null {
  const { commands } = view.report
  if (commands.length === 0) return null
  if (limits.commands <= 0) {
    return `#### 🧪 Setup and verify commands\n\n${plural(commands.length, 'command')} left out to fit; the JSON report has them.`
  }
  const shown = commands.slice(0, limits.commands)
  const blocks = shown.map((c) => {
    const refused = refusedLine(view, c)
    const line = `${commandLine(view, c, 300)}${refused === null ? '' : `  \n${refused}`}`
    if (limits.commandOutput <= 0 || c.outputTail.trim() === '') return line
    return `${line}\n\n${details('Output (last lines)', view.block(c.outputTail, limits.commandOutput, 'tail'))}`
  })
  if (commands.length > shown.length) {
    blocks.push(`… ${more(commands.length - shown.length, 'command')} (see the JSON report)`)
  }
  return ['#### 🧪 Setup and verify commands', ...blocks].join('\n\n')
}

// ---------------------------------------------------------------------------------------------
// Usage

export function usageSection(view: View, limits: Limits): string | null {
  const { metrics, sessionId } = view.report
  const f = view.figures
  const parts = ['#### 📊 Usage']
  const facts = [
    requestsPhrase(view),
    ...(view.models.length > 0 ? [tokensPhrase(view)] : []),
    `**API time** ${formatDuration(metrics.apiDurationMs)}`,
    `**Changes** ${changeTotals(view)}`
  ]
  const anything =
    f.cost.billedBy === 'copilot' ||
    f.modelRequests > 0 ||
    f.premiumRequests > 0 ||
    metrics.apiDurationMs > 0 ||
    f.changes.added + f.changes.removed > 0 ||
    view.files.length > 0 ||
    view.models.length > 0
  if (anything) {
    const note =
      f.modelRequests > 0
        ? `\n\n<sub>${usageNote(f).charAt(0).toUpperCase()}${usageNote(f).slice(1)}.</sub>`
        : ''
    parts.push(`${facts.join(' · ')}${note}`)
  }
  if (view.models.length > 0 && limits.models > 0) {
    const rows = view.models
      .slice(0, limits.models)
      .map(
        ([name, u]) =>
          `| ${view.cell(name)} | ${formatInt(u.requests)} | ${formatInt(u.inputTokens + u.outputTokens)} | ${formatInt(u.inputTokens)} | ${formatInt(u.cacheReadTokens)} | ${formatInt(u.cacheWriteTokens)} | ${formatInt(u.outputTokens)} |`
      )
    if (view.models.length > rows.length) {
      rows.push(`| … ${more(view.models.length - rows.length, 'other model')} | | | | | | |`)
    }
    parts.push(
      [
        '| Model | Model requests | Total tokens | Input | Cache read | Cache write | Output |',
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
        ...rows
      ].join('\n')
    )
  }
  if (view.files.length > 0 && limits.files > 0) {
    const shown = f.changes.files.slice(0, limits.files)
    const list = shown.map((file, i) => {
      const lines =
        file.binary === true
          ? ' · binary'
          : file.added === undefined
            ? ''
            : ` · +${formatInt(file.added)} −${formatInt(file.removed ?? 0)}`
      const kind =
        file.change === undefined || file.change === 'modified' ? '' : ` (${file.change})`
      return `- ${view.code(view.files[i] ?? file.path, 200)}${kind}${lines}`
    })
    if (view.files.length > shown.length) {
      list.push(`- … ${more(view.files.length - shown.length, 'file')} (see the JSON report)`)
    }
    parts.push(details(`Files changed (${formatInt(view.files.length)})`, list.join('\n')))
  }
  if (sessionId) parts.push(`<sub>Session ${view.code(sessionId, 100)}</sub>`)
  return parts.length > 1 ? parts.join('\n\n') : null
}
