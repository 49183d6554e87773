/**
 * The sections the comment and the job summary share, in their order: the headline, what went
 * wrong (and how to fix it), the agent's summary as its claim, the plan. Each returns null when
 * it has nothing to say: no section is ever rendered empty.
 */
import { chainSection } from './render-chain.js'
import { adviseOnDenial, type Advice } from '../policy/index.js'
import { passed } from './figures.js'
import { FAILING_OUTPUT_CHARS, FAILING_OUTPUT_LINES } from './limits.js'
import {
  details,
  isDone,
  more,
  outcomeOf,
  plural,
  relativePath,
  safeUrl,
  type UnavailableTool,
  type View
} from './render-view.js'
import { formatTestCounts, testCounts } from './test-counts.js'
import { codeBlock, formatDuration, formatInt, tailLines } from '../text/safe-text.js'
import type { CommandRecord, McpServerRecord, PermissionRecord, RunStatus } from './types.js'
import { confinementTag } from './render-wall.js'
import { networkHint } from '../wall/command-network.js'

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
  /** Characters of the prompt (the comment's collapsed copy; 0: not shown). */
  prompt: number
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

/**
 * The troubleshooting page of this action (docs/troubleshooting.md, on its default branch), for
 * the "how to fix it" links: `#sandbox-unavailable`, `#incomplete`, `#ask-timed-out`,
 * `#policy-error`, `#budget-exceeded`, `#verify-failed`, `#policy-violation`. The repository is
 * the one package.json names.
 */
export const TROUBLESHOOTING_URL =
  'https://github.com/gated-autopilot/autopilot-action/blob/main/docs/troubleshooting.md'

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

/**
 * `### <status>`; under it the evidence (each verify command of the last attempt with its result
 * and test count; for a stop, the limit that stopped it), then the links and the run's facts:
 * job summary · workflow run · duration · model · CLI · sandbox.
 */
export function headline(view: View): string {
  const title = `### ${statusLine(view)}`
  if (view.badPolicy) return title
  const { report } = view
  const lines = [title]
  const unguarded = unguardedLine(view)
  if (unguarded !== null) lines.push(unguarded)
  const evidence = evidenceLine(view)
  if (evidence !== null) lines.push(evidence)
  const meta: string[] = []
  const run = view.runUrl
  const summary = view.summaryUrl
  if (summary !== null && summary !== run) meta.push(`[job summary](${summary})`)
  if (run !== null) meta.push(`[workflow run](${run})`)
  if (report.durationMs !== null) meta.push(`⏱ ${formatDuration(report.durationMs)}`)
  if (report.model) meta.push(view.code(report.model, 80))
  if (report.agent) meta.push(`agent ${view.code(report.agent.name, 80)}`)
  if (report.cliVersion) meta.push(`Copilot CLI ${view.code(report.cliVersion, 40)}`)
  const sandbox = sandboxWord(view)
  if (sandbox !== null) meta.push(sandbox)
  if (meta.length > 0) lines.push(meta.join(' · '))
  return lines.join('\n\n')
}

/** Verify commands named in the headline's evidence. */
const EVIDENCE_COMMANDS = 4

/** `**Verified:** `npm test` ✅ 41 passed · stopped at `max-tokens` 500,000`, or null. */
export function evidenceLine(view: View): string | null {
  const facts: string[] = []
  const stop = stopFact(view)
  if (stop !== null) facts.push(`**Why it ended:** ${stop}`)
  const setup = view.report.commands.find((c) => c.phase === 'setup' && !passed(c))
  if (setup !== undefined) {
    facts.push(`**Setup:** ${view.code(setup.command, 60)} ${verifyResult(view, setup)}`)
  }
  const verify = view.figures.verify
  if (verify.length > 0) {
    // the failing ones first; a few, and how many more
    const ordered = [...verify.filter((c) => !passed(c)), ...verify.filter(passed)]
    const results = ordered
      .slice(0, EVIDENCE_COMMANDS)
      .map((c) => `${view.code(c.command, 60)} ${verifyResult(view, c)}`)
    if (ordered.length > EVIDENCE_COMMANDS) {
      results.push(`${more(ordered.length - EVIDENCE_COMMANDS, 'command')}`)
    }
    const repairs = view.report.repairs?.length ?? 0
    const after = repairs > 0 ? ` (after ${plural(repairs, 'repair')})` : ''
    const label = view.figures.verifyPassed === true ? 'Verified' : 'Verify'
    facts.push(`**${label}${after}:** ${results.join(' · ')}`)
  }
  return facts.length > 0 ? facts.join(' · ') : null
}

/** `✅ 41 passed`, `✅ exit 0`, `❌ exit 1 · 1 failed, 40 passed`, `⏱ timed out`. */
export function verifyResult(view: View, c: CommandRecord): string {
  const counts = testCounts(view.clean(c.outputTail))
  const tests = counts === null ? null : formatTestCounts(counts)
  if (passed(c)) return `✅ ${tests ?? 'exit 0'}`
  if (c.timedOut) return `⏱ timed out after ${formatDuration(c.durationMs)}`
  if (c.exitCode === null) {
    return view.report.status === 'cancelled' ? '🛑 interrupted' : '⚠️ no exit code'
  }
  return `❌ exit ${c.exitCode}${tests === null ? '' : ` · ${tests}`}`
}

/** The limit that stopped the run, as the error says it: `stopped at `max-tokens` 500,000`. */
function stopFact(view: View): string | null {
  const { report } = view
  const message = report.error?.message ?? ''
  const type = report.error?.type ?? ''
  const limit = (input: string, value: string | undefined): string =>
    `stopped at \`${input}\`${value === undefined ? '' : ` ${value}`}`
  switch (report.status) {
    case 'budget-exceeded':
      if (type === 'max-ai-credits') {
        return limit('max-ai-credits', /max-ai-credits \(([\d,.]+)\)/.exec(message)?.[1])
      }
      return limit('max-tokens', /max-tokens \(([\d,.]+)\)/.exec(message)?.[1])
    case 'timed-out':
      if (type === 'hang') {
        return limit('idle-timeout-minutes', /no event for (.+?) while/.exec(message)?.[1])
      }
      return limit('timeout-minutes', /within (.+?) \(timeout-minutes\)/.exec(message)?.[1])
    case 'incomplete':
      if (report.stopReason === 'cap_reached' || /autopilot continues/i.test(message)) {
        return limit('max-autopilot-continues', /autopilot continues \((\d+)\)/.exec(message)?.[1])
      }
      return null
    case 'cancelled':
      return report.durationMs === null
        ? 'cancelled'
        : `cancelled at ${formatDuration(report.durationMs)}`
    default:
      return null
  }
}

/**
 * At the top of the comment, when no OS sandbox held the agent's commands: the policy alone
 * judged each one, and what the code they ran did was unguarded.
 */
function unguardedLine(view: View): string | null {
  const sandbox = view.report.sandbox
  if (sandbox === undefined || sandbox.state === 'enforced') return null
  const why =
    sandbox.state === 'off'
      ? 'the policy sets `sandbox: off`'
      : 'the OS sandbox could not run on this runner'
  return `> ⚠️ **Unguarded run:** ${why}; the policy alone judged the agent's commands, not what the code they ran did.`
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
    const file = relativePath(issue.file, view.root)
    const code = view.code(`${file}:${issue.line}:${issue.column}`, 240)
    const link = fileUrl(view, file, issue.line)
    const where = link === null ? code : `[${code}](${link})`
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
  links.push(`[troubleshooting](${TROUBLESHOOTING_URL}#policy-error)`)
  return `Details: ${links.join(' · ')}`
}

/**
 * A link to a file of the repository at the run's commit (`#L<line>`), or null when the report
 * does not say which repository and commit, or the path is not inside the workspace.
 */
export function fileUrl(view: View, file: string, line?: number): string | null {
  const { repository, commit } = view.report
  if (repository === undefined || commit === undefined) return null
  if (!/^[0-9a-f]{7,64}$/i.test(commit)) return null
  if (file === '' || file.startsWith('/') || file.split('/').includes('..')) return null
  const base = safeUrl(repository.replace(/\/+$/, ''))
  if (base === null) return null
  const encoded = file.split('/').map(encodeURIComponent).join('/')
  return safeUrl(`${base}/blob/${commit}/${encoded}${line === undefined ? '' : `#L${line}`}`)
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
  const cancelled = report.status === 'cancelled'
  if (cancelled) parts.push(cancelledPart(view))
  const violations = violationsPart(view, limits)
  if (violations !== null) parts.push(violations)
  const ranOut =
    report.status === 'incomplete' ||
    report.status === 'budget-exceeded' ||
    report.status === 'timed-out'
  // A failing command is what went wrong, unless the agent never finished: then its failure is a
  // consequence, said after the cause and the limit.
  const failingParts: string[] = []
  const [failing, ...otherFailing] = view.failingCommands
  if (failing !== undefined) {
    failingParts.push(failingCommandPart(view, failing, limits))
    if (otherFailing.length > 0) {
      const list = otherFailing.slice(0, 5).map((c) => `- ${commandLine(view, c, limits.detail)}`)
      if (otherFailing.length > 5) list.push(`- … ${more(otherFailing.length - 5, 'command')}`)
      failingParts.push(`Also failed:\n\n${list.join('\n')}`)
    }
  }
  if (!ranOut) parts.push(...failingParts)
  // What blocked the agent: for a run that ran out (a limit, or gave up), the cause comes first.
  const blocked: string[] = []
  // a policy violation is what the audit found after the agent's work, not what blocked it
  if (!completed && report.status !== 'policy-violation' && limits.blocking > 0) {
    // a rule's deliberate deny (its reason says what to do) before what no rule matched
    const blocking = blockingDenials(view)
      .slice(-limits.blocking)
      .sort((a, b) => Number(NO_RULE.has(a.rule)) - Number(NO_RULE.has(b.rule)))
    if (blocking.length > 0) {
      const which =
        blocking.length === 1 ? 'the last denial' : `the last ${blocking.length} denials`
      const items = blocking.map((p) => denialItem(view, p, limits))
      blocked.push(`**Denied by the policy** (${which}):\n\n${items.join('\n')}`)
    }
  }
  const unanswered = unansweredPart(view, limits)
  if (unanswered !== null) blocked.push(unanswered)
  if (ranOut) parts.push(...blocked)
  // The error, unless the failing command, the cancellation or the refused task_complete says it.
  const type = report.error?.type
  const said =
    (failing !== undefined && (type === 'verify' || type === 'setup-command')) ||
    (rejected && type === 'task-complete-rejected') ||
    (violations !== null && type === 'policy-violation') ||
    (cancelled && type === 'cancelled')
  if (report.error && !said) parts.push(errorPart(view, limits))
  if (ranOut) parts.push(...failingParts)
  if (rejected) {
    const reason = report.completion?.reason
    parts.push(
      `⛔ The agent called \`task_complete\`, but the Copilot CLI refused it${reason ? `: ${view.inline(reason, limits.detail * 2)}` : ''}. Whatever its summary says, the task is not complete.`
    )
  }
  if (!ranOut) parts.push(...blocked)
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
  if (report.status === 'timed-out' || report.status === 'budget-exceeded' || cancelled) {
    const running = report.tools.filter((c) => outcomeOf(c) === 'unfinished').slice(-3)
    if (running.length > 0) {
      const list = running.map((c) => `- ⏳ ${runningCall(view, c, limits.detail)}`)
      parts.push(`**Still running when the run stopped:**\n\n${list.join('\n')}`)
    }
  }
  // The limit that ended the run, and how to fix it, after the cause.
  const fix = knownFix(view)
  if (fix !== null) parts.push(`**How to fix it:** ${fix}`)
  if (parts.length === 0 && !completed) parts.push(noErrorLine(report.status))
  if (parts.length === 0) return null
  if (!completed && report.status !== 'verify-failed' && limits.activity > 0) {
    const activity = collapseRepeats(report.lastActivity).slice(-limits.activity)
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

/** Consecutive identical lines as one, with how many times (`said: … (×3)`). */
export function collapseRepeats(lines: readonly string[]): string[] {
  const out: Array<{ line: string; times: number }> = []
  for (const line of lines) {
    const last = out[out.length - 1]
    if (last !== undefined && last.line === line) last.times++
    else out.push({ line, times: 1 })
  }
  return out.map(({ line, times }) => (times > 1 ? `${line} (×${times})` : line))
}

/** `🛑 The workflow run was cancelled at 3 m 12 s, during the verify commands; … re-run` */
function cancelledPart(view: View): string {
  const { report } = view
  const at = report.durationMs === null ? '' : ` at ${formatDuration(report.durationMs)}`
  const message = report.error?.message ?? ''
  const during = /during the (setup|verify) commands/.exec(message)?.[1]
  const when = during === undefined ? '' : `, during the ${during} commands`
  const run = view.runUrl
  const rerun = run === null ? '' : ` To finish the task, [re-run the workflow](${run}).`
  return `🛑 **The workflow run was cancelled**${at}${when}; what follows is what the agent had done by then.${rerun}`
}

/** `bash `npx playwright test` · running for 2 m 12 s` */
function runningCall(
  view: View,
  c: { name: string; target?: string; startedAt?: string },
  max: number
): string {
  const target = c.target ? ` ${view.code(relativePath(c.target, view.root), max)}` : ''
  const started = c.startedAt === undefined ? NaN : Date.parse(c.startedAt)
  const ended = view.report.endedAt === null ? NaN : Date.parse(view.report.endedAt)
  const elapsed =
    Number.isFinite(started) && Number.isFinite(ended) && ended >= started
      ? ` · running for ${formatDuration(ended - started)}`
      : ''
  return `${view.code(c.name, 60)}${target}${elapsed}`
}

/** Asks nobody answered: their own line, not a rule's denial. */
function unansweredPart(view: View, limits: Limits): string | null {
  const asks = view.unanswered
  if (asks.length === 0) return null
  const shown = asks.slice(0, 3).map((p) => {
    const what = `${view.code(p.kind, 40)} ${view.code(relativePath(p.subject, view.root) || '(no subject)', limits.detail)}`
    const why =
      p.approval?.verdict === 'timeout'
        ? 'nobody with write access answered in time'
        : 'there was nobody to ask'
    return `- ⌛ ${what} — ${why}, so it was denied`
  })
  if (asks.length > shown.length) shown.push(`- … ${more(asks.length - shown.length, 'question')}`)
  const timeout = asks.some((p) => p.approval?.verdict === 'timeout')
  const fix = timeout
    ? ` Answer \`/approve <id>\` sooner, or raise \`approval-timeout-minutes\` ([troubleshooting](${TROUBLESHOOTING_URL}#ask-timed-out)).`
    : ''
  return `**${plural(asks.length, 'question')} nobody answered** (an ask rule routed ${asks.length === 1 ? 'it' : 'them'} to a maintainer):${fix}\n\n${shown.join('\n')}`
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

/** A fix for the errors whose cause is known, with its troubleshooting link; null when none. */
function knownFix(view: View): string | null {
  const fix = knownFixText(view)
  if (fix === null) return null
  const anchor = troubleshootingAnchor(view)
  return anchor === null ? fix : `${fix} ([troubleshooting](${TROUBLESHOOTING_URL}#${anchor}))`
}

/** Where docs/troubleshooting.md explains this run's ending. */
function troubleshootingAnchor(view: View): string | null {
  const { report } = view
  if (report.error?.type === 'sandbox') return 'sandbox-unavailable'
  switch (report.status) {
    case 'incomplete':
      return 'incomplete'
    case 'budget-exceeded':
      return 'budget-exceeded'
    case 'verify-failed':
      return 'verify-failed'
    case 'policy-violation':
      return 'policy-violation'
    default:
      return null
  }
}

function knownFixText(view: View): string | null {
  const { report } = view
  const message = report.error?.message ?? ''
  const type = report.error?.type ?? ''
  if (report.status === 'completed') return null
  if (report.status === 'verify-failed') {
    const failing = view.figures.verify
      .filter((c) => !passed(c))
      .map((c) => view.code(c.command, 80))
    const what = failing.length > 0 ? failing.join(', ') : 'the verify commands'
    const repaired = (report.repairs?.length ?? 0) > 0
    return repaired
      ? `The agent's repair did not make ${what} pass: fix what ${failing.length === 1 ? 'it reports' : 'they report'} (the end of the output is above) before using these changes, or raise \`verify-retries\` to give the agent more tries.`
      : `Fix what ${what} ${failing.length === 1 ? 'reports' : 'report'} (the end of the output is above) before using these changes, or set \`verify-retries\` so the agent gets the failing output and tries again.`
  }
  if (report.status === 'policy-violation') {
    return 'These paths are protected on purpose: say in the prompt which files the agent must leave alone, and let a person change them when the task needs it.'
  }
  if (type === 'max-ai-credits') {
    return 'Raise `max-ai-credits`, give the agent a smaller task, or continue the run: comment `/continue` on the pull request (docs/recipes.md) to resume from its checkpoint.'
  }
  if (type === 'max-tokens' || report.status === 'budget-exceeded') {
    return 'Raise `max-tokens`, or give the agent a smaller task.'
  }
  if (type === 'hang') {
    return 'Re-run the job; if the agent runs long silent commands, raise `idle-timeout-minutes`.'
  }
  if (type === 'timeout' || report.status === 'timed-out') {
    return 'Raise `timeout-minutes`, or give the agent a smaller task.'
  }
  if (report.stopReason === 'cap_reached' || /autopilot continues/i.test(message)) {
    return view.ruleDenied.length > 0
      ? 'If the denials above are what held the agent up, give it what their reasons ask for (or a prompt that avoids them) and re-run; raise `max-autopilot-continues`, or make the prompt say clearly when the task is done, only if it was still making progress.'
      : 'Raise `max-autopilot-continues`, or make the prompt say clearly when the task is done.'
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
  return `**${label}** ${view.code(c.command, max)} · ${commandResult(c)} · ${formatDuration(c.durationMs)}${confinementTag(c)}`
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
  // a command without network (or refused a host) that fails may have needed it: the fix, said
  // where it failed
  const network = networkHint(c)
  const offline =
    network === undefined
      ? ''
      : `\n\n${network.kind === 'offline' ? '📵' : '🚫'} ${view.inlineMd(network.text, 600)}`
  const line = `${what} ${view.code(c.command, 300)} ${result}.${notStarted}${offline}`
  const output = view.clean(c.outputTail).trim()
  if (limits.tail <= 0 || output === '') return line
  const lines = Math.min(limits.tailLines, FAILING_OUTPUT_LINES)
  const chars = Math.min(limits.tail, FAILING_OUTPUT_CHARS)
  return `${line}\n\nThe end of its output:\n\n${codeBlock(tailLines(output, lines, chars), 'text')}`
}

/** The last rule denials, one per request (kind and subject), in the order they happened. */
function blockingDenials(view: View): PermissionRecord[] {
  const seen = new Set<string>()
  const out: PermissionRecord[] = []
  for (let i = view.ruleDenied.length - 1; i >= 0; i--) {
    const p = view.ruleDenied[i] as PermissionRecord
    const key = `${p.kind}\u0000${p.subject}`
    if (seen.has(key)) continue
    seen.add(key)
    out.unshift(p)
  }
  return out
}

/** Denials by the policy's default or its checks, not by a rule someone wrote. */
const NO_RULE = new Set(['default', 'outside-workspace'])

/** `no rule matched (default deny)` / `rule `no-push``, as a denial's cause is said everywhere. */
export function denialCause(view: View, rule: string): string {
  return NO_RULE.has(rule) ? 'no rule matched (default deny)' : `rule ${view.code(rule, 100)}`
}

/**
 * One list item: what was denied and why. A deliberate deny (a rule that matched) gets its
 * rule's own reason and nothing else; only a request no rule matched gets a rule to add, and
 * only when it stays within the workspace's intent.
 */
function denialItem(view: View, p: PermissionRecord, limits: Limits): string {
  const reason = p.reason?.trim().replace(/\.+$/, '')
  const why = reason ? `: ${view.inline(reason, limits.detail)}` : ''
  const head = `- 🚫 ${view.code(p.kind, 40)} ${view.code(relativePath(p.subject, view.root) || '(no subject)', limits.detail)} — ${denialCause(view, p.rule)}${why}.`
  const advice = advise(view, p)
  if (advice === null) return head
  // A rule's own reason says what to do; without one, say that it denies on purpose.
  if (advice.kind === 'explicit-deny' && reason) return head
  const note = `${head}  \n  ${view.inlineMd(advice.note, 400)}`
  if (advice.kind !== 'add-rule') return note
  const yaml = codeBlock(view.clean(advice.yaml).trimEnd(), 'yaml')
  const indented = yaml
    .split('\n')
    .map((line) => (line === '' ? '' : `  ${line}`))
    .join('\n')
  return `${note} Add to the policy's \`rules:\`:\n\n${indented}`
}

function advise(view: View, p: PermissionRecord): Advice | null {
  try {
    return adviseOnDenial(
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
    return null // advice is a help, never a reason not to report
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
    const verify = view.figures.verify
    label =
      verify.length > 0 && view.figures.verifyPassed === true
        ? `**The agent's summary** (its own words; the action verified that ${verify.map((c) => view.code(c.command, 80)).join(', ')} passed):`
        : "**The agent's summary** (its own words; no verify command ran, so the action checked none of it):"
  } else if (report.completion?.state === 'rejected') {
    label =
      "**The agent's summary** (its own words; the CLI refused its task_complete, so this is only its claim):"
  } else if (report.status === 'policy-violation') {
    label =
      "**The agent's summary** (its own words; it changed files the policy protects, so this is only its claim):"
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
      const status = isDone(todo.status) ? '' : ` _(${view.inline(stateWords(todo.status), 30)})_`
      return `- [${isDone(todo.status) ? 'x' : ' '}] ${view.inline(todo.title || todo.id, 200)}${status}`
    })
    if (todos.length > shown.length) list.push(`- … ${more(todos.length - shown.length, 'todo')}`)
    body.push(list.join('\n'))
  }
  if (content !== null && limits.plan > 0) body.push(view.quote(content, limits.plan))
  if (body.length === 0) body.push('_Left out to fit; the JSON report has it._')
  return details(title, body.join('\n\n'))
}

/** `in_progress` → `in progress`: a state in words. */
export function stateWords(state: string): string {
  return state.replace(/[_-]+/g, ' ').trim()
}

// ---------------------------------------------------------------------------------------------
// Shared bits

/**
 * The parts the comment and the job summary share: the marker and the headline first, the trim
 * note last; between them a bad policy file's errors alone, or else what went wrong, the claim
 * and the asks, then the body's own sections (`rest`).
 */
export function bodyParts(
  view: View,
  limits: Limits,
  trimmed: string[],
  inComment: boolean,
  rest: () => (string | null)[]
): (string | null)[] {
  const middle = view.badPolicy
    ? [policyIssuesSection(view, limits), policyLinks(view, inComment)]
    : [
        problemsSection(view, limits),
        claimSection(view, limits),
        asksSection(view, limits),
        ...rest()
      ]
  return [
    view.options.marker ?? null,
    headline(view),
    chainSection(view),
    ...middle,
    trimNote(view.options.maxLength, trimmed)
  ]
}

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
