/**
 * One task across many repositories, rolled up (`mode: rollup`): the reports of every
 * repository's run as rows, failures first, and the markdown of the tracking issue's body and of
 * the job summary. Pure: modes/rollup.ts reads the files and talks to GitHub.
 *
 * Every text that comes from a report (status reasons, commands, paths, subjects) is untrusted
 * (the agent wrote some of it, and a report file passes through artifacts) and goes through the
 * comment's own helpers (render-view.ts, text/safe-text.ts); a repository name is shown only once
 * it is a valid `owner/name`.
 */
import { z } from 'zod'
import { parseRepositoryName } from '../github/origin.js'
import { figures, passed } from './figures.js'
import {
  asReport,
  creditsOf,
  type CreditsFigure,
  type ReportReading,
  type RollupReport
} from './report-file.js'
import { evidenceLine, verifyResult } from './render-sections.js'
import { View, details, formatNumber, more, plural, safeUrl } from './render-view.js'
import { codeSpan, formatDuration, inlineText, tableCell } from '../text/safe-text.js'
import type { RunStatus } from './types.js'

/**
 * How a repository's run ended, for the headline; every row is in exactly one, so the counts add
 * up to the rows. `waiting`: not completed, and an ask of the policy went unanswered;
 * `unreadable`: its report file is missing, broken or of a newer version; `missing`: a repository
 * of the plan without any report file.
 */
export const ROLLUP_CATEGORIES = [
  'failed',
  'unreadable',
  'missing',
  'waiting',
  'stopped',
  'cancelled',
  'completed'
] as const
export type RollupCategory = (typeof ROLLUP_CATEGORIES)[number]

const CATEGORY_OF: Record<RunStatus, RollupCategory> = {
  completed: 'completed',
  'verify-failed': 'failed',
  failed: 'failed',
  'policy-violation': 'failed',
  incomplete: 'stopped',
  'timed-out': 'stopped',
  'budget-exceeded': 'stopped',
  cancelled: 'cancelled'
}

const CATEGORY_WORDS: Record<RollupCategory, { icon: string; words: string }> = {
  failed: { icon: '❌', words: 'failed' },
  unreadable: { icon: '⚠️', words: 'report unreadable' },
  missing: { icon: '❔', words: 'no report' },
  waiting: { icon: '🙋', words: 'waiting for a person' },
  stopped: { icon: '⏸️', words: 'stopped at a limit' },
  cancelled: { icon: '🛑', words: 'cancelled' },
  completed: { icon: '✅', words: 'completed' }
}

const STATUS_WORDS: Record<RunStatus, string> = {
  completed: 'completed',
  'verify-failed': 'verify failed',
  failed: 'failed',
  'policy-violation': 'policy violation',
  incomplete: 'incomplete',
  'timed-out': 'timed out',
  'budget-exceeded': 'budget exceeded',
  cancelled: 'cancelled'
}

/**
 * What the fleet's publish leg of one repository left for the roll-up (a small JSON file in its
 * artifact, see .github/workflows/fleet.yml): the publish step's outcome and the pull request it
 * opened.
 */
export const PublishRecordSchema = z.object({
  repository: z.string(),
  /** The publish step's outcome: success, failure, skipped, cancelled. */
  outcome: z.string(),
  'pull-request-url': z.string().optional()
})
export type PublishRecord = z.infer<typeof PublishRecordSchema>

/** Something a person has to look at, about one repository (markdown, already safe). */
export interface PersonNeed {
  repository: string
  text: string
}

export interface RollupRow {
  category: RollupCategory
  /** `owner/name` when known (from the report, or the plan for a repository without one). */
  repository: string | null
  /** Markdown cells, already safe. */
  cells: {
    repository: string
    status: string
    verify: string
    files: string
    credits: string
    pullRequest: string
    run: string
  }
  credits: CreditsFigure
  durationMs: number | null
  needs: PersonNeed[]
  /** For sorting within a category. */
  sortKey: string
}

export interface Rollup {
  rows: RollupRow[]
  counts: Record<RollupCategory | 'total', number>
  /** Credits over the rows that report them; how many rows do; how many are billed by a provider. */
  credits: { total: number; reported: number; byok: number }
  slowest: { repository: string; durationMs: number } | null
}

export interface RollupInput {
  readings: ReportReading[]
  /** The repositories of the plan: one of them without any report is a `missing` row. */
  repositories?: string[]
  publish?: PublishRecord[]
  /** Where GitHub is (`https://github.com`), to link repositories. */
  serverUrl?: string
  /** Each repository's agent job page (`owner/name` → URL), when the roll-up could look them up. */
  jobUrls?: ReadonlyMap<string, string>
}

/** The rows of a roll-up, failures first, and its counts. */
export function buildRollup(input: RollupInput): Rollup {
  const server = (input.serverUrl ?? 'https://github.com').replace(/\/+$/, '')
  const published = new Map<string, PublishRecord>()
  for (const record of input.publish ?? []) {
    const name = parseRepositoryName(record.repository)
    if (name !== undefined) published.set(key(`${name.owner}/${name.name}`), record)
  }
  const rows: RollupRow[] = []
  const seen = new Set<string>()
  for (const reading of input.readings) {
    const row =
      reading.kind === 'report'
        ? reportRow(reading.report, server, published, input.jobUrls)
        : problemRow(reading.file, reading.problem, reading.reason)
    if (row.repository !== null) seen.add(key(row.repository))
    rows.push(row)
  }
  for (const repository of input.repositories ?? []) {
    const name = parseRepositoryName(repository)
    if (name === undefined) continue
    const full = `${name.owner}/${name.name}`
    if (seen.has(key(full))) continue
    seen.add(key(full))
    rows.push(missingRow(full, server))
  }
  const order = (c: RollupCategory): number => ROLLUP_CATEGORIES.indexOf(c)
  rows.sort((a, b) => order(a.category) - order(b.category) || a.sortKey.localeCompare(b.sortKey))

  const counts = Object.fromEntries([
    ['total', rows.length],
    ...ROLLUP_CATEGORIES.map((c) => [c, rows.filter((r) => r.category === c).length])
  ]) as Record<RollupCategory | 'total', number>
  let total = 0
  let reported = 0
  let byok = 0
  let slowest: Rollup['slowest'] = null
  for (const row of rows) {
    if (row.credits.kind === 'credits') {
      total += row.credits.value
      reported++
    } else if (row.credits.kind === 'byok') {
      byok++
    }
    if (
      row.durationMs !== null &&
      row.repository !== null &&
      (slowest === null || row.durationMs > slowest.durationMs)
    ) {
      slowest = { repository: row.repository, durationMs: row.durationMs }
    }
  }
  return { rows, counts, credits: { total, reported, byok }, slowest }
}

function key(repository: string): string {
  return repository.toLowerCase()
}

/** The repository a report names: its checkout, else the path of its repository URL. */
function repositoryOf(report: RollupReport): string | null {
  const named = report.checkout?.repository ?? repoFromUrl(report.repository)
  if (named === undefined) return null
  const name = parseRepositoryName(named)
  return name === undefined ? null : `${name.owner}/${name.name}`
}

function repoFromUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  const match = /^https?:\/\/[^/]+\/([^/]+\/[^/]+?)\/?$/.exec(url)
  return match?.[1]
}

function repositoryCell(repository: string, server: string): string {
  // owner/name holds only [A-Za-z0-9._-]: escaped for markdown, linked to the repository.
  return `[${inlineText(repository, 140)}](${server}/${repository})`
}

function reportRow(
  report: RollupReport,
  server: string,
  published: Map<string, PublishRecord>,
  jobUrls: ReadonlyMap<string, string> | undefined
): RollupRow {
  const full = asReport(report)
  const view = new View(full, { maxLength: 65_536 })
  const repository = repositoryOf(report)
  const unanswered = report.permissions.filter(
    (p) => p.approval?.verdict === 'timeout' || p.approval?.verdict === 'unavailable'
  )
  const category: RollupCategory =
    report.status !== 'completed' && unanswered.length > 0 ? 'waiting' : CATEGORY_OF[report.status]
  const f = figures(full)
  const credits = creditsOf(report)
  const publish = repository === null ? undefined : published.get(key(repository))
  const who = repository ?? 'a report without a repository'
  const needs: PersonNeed[] = []
  for (const p of unanswered.slice(0, 3)) {
    needs.push({
      repository: who,
      text: `an ask nobody answered: ${view.code(`${p.kind} ${p.subject}`, 80)} (${p.approval?.verdict === 'timeout' ? 'no answer in time' : 'nobody to ask'})`
    })
  }
  if (unanswered.length > 3) {
    needs.push({ repository: who, text: `${more(unanswered.length - 3, 'unanswered ask')}` })
  }
  const violations = report.audit?.violations ?? []
  for (const v of violations.slice(0, 3)) {
    needs.push({
      repository: who,
      text: `a policy violation: ${view.code(v.path, 80)} ${v.change}, rule ${view.code(v.rule, 40)}${v.reverted ? ' (reverted)' : ' (**not reverted**)'}`
    })
  }
  if (violations.length > 3) {
    needs.push({ repository: who, text: more(violations.length - 3, 'policy violation') })
  }
  if (publish !== undefined && publish.outcome === 'failure') {
    needs.push({
      repository: who,
      text: 'the publish step refused or failed: its job summary says why'
    })
  }
  if ((report.policy.issues?.length ?? 0) > 0) {
    needs.push({ repository: who, text: 'the policy file is invalid: the agent never started' })
  }
  return {
    category,
    repository,
    cells: {
      repository:
        repository === null
          ? 'a report that names no repository'
          : repositoryCell(repository, server),
      status: statusCell(view, report, category),
      verify: verifyCell(view, f.verify),
      files: filesCell(f),
      credits: creditsCell(credits),
      pullRequest: pullRequestCell(publish, repository),
      run: runCell(report, repository === null ? undefined : jobUrls?.get(key(repository)))
    },
    credits,
    durationMs: report.durationMs ?? null,
    needs,
    sortKey: repository ?? `~${report.startedAt}`
  }
}

function statusCell(view: View, report: RollupReport, category: RollupCategory): string {
  const icon = CATEGORY_WORDS[category].icon
  const status = `${icon} ${STATUS_WORDS[report.status]}`
  if (report.status === 'completed') return status
  // why it ended: the limit that stopped it (as the comment says it), else the error
  const evidence = evidenceLine(view) ?? ''
  const limit = /\*\*Why it ended:\*\* ([^·]+?)(?: · |$)/.exec(evidence)?.[1]
  if (limit !== undefined) return tableCell(`${status}: ${limit}`)
  if ((report.policy.issues?.length ?? 0) > 0) return `${status}: the policy file is invalid`
  const setup = report.commands.find((c) => c.phase === 'setup' && !passed(c))
  if (setup !== undefined) {
    return tableCell(
      `${status}: setup ${view.code(setup.command, 40)} ${verifyResult(view, setup)}`
    )
  }
  if (report.status === 'verify-failed') return status
  if (report.error !== undefined)
    return tableCell(`${status}: ${view.inline(report.error.message, 120)}`)
  return status
}

/** The verify commands of the last attempt: `npm test` ✅ 41 passed. */
function verifyCell(view: View, verify: ReturnType<typeof figures>['verify']): string {
  if (verify.length === 0) return '—'
  const ordered = [...verify.filter((c) => !passed(c)), ...verify.filter(passed)]
  const shown = ordered
    .slice(0, 2)
    .map((c) => `${view.code(c.command, 40)} ${verifyResult(view, c)}`)
  if (ordered.length > 2) shown.push(more(ordered.length - 2, 'command'))
  return tableCell(shown.join('<br>'))
}

function filesCell(f: ReturnType<typeof figures>): string {
  const n = f.changes.files.length
  if (n === 0) return '0'
  return `${formatNumber(n)} (+${formatNumber(f.changes.added)} −${formatNumber(f.changes.removed)})`
}

function creditsCell(credits: CreditsFigure): string {
  switch (credits.kind) {
    case 'credits':
      return formatNumber(credits.value)
    case 'byok':
      return 'billed by your provider'
    default:
      return '—'
  }
}

/** The publish leg's pull request: only a pull request URL of the row's own repository. */
function pullRequestCell(publish: PublishRecord | undefined, repository: string | null): string {
  if (publish === undefined) return '—'
  const url = publish['pull-request-url'] ?? ''
  const match = /^https:\/\/[^/\s]+\/([^/\s]+\/[^/\s]+)\/pull\/(\d+)$/.exec(url)
  if (match && repository !== null && key(match[1] as string) === key(repository) && safeUrl(url)) {
    return `[pull ${match[2]}](${url})`
  }
  if (publish.outcome === 'failure') return '❌ refused or failed'
  if (publish.outcome === 'skipped') return 'not published'
  return '—'
}

function runCell(report: RollupReport, jobUrl: string | undefined): string {
  const job = safeUrl(jobUrl)
  if (job !== null) return `[job](${job})`
  const url = safeUrl(report.run?.url)
  return url === null ? '—' : `[run](${url})`
}

/**
 * The repository an agent job of a workflow run worked on, from the job's name as the fleet's
 * matrix names it (`agent acme/app`, or `fleet / agent acme/app` in a calling workflow): the
 * `owner/name` after the report's job id (`GITHUB_JOB`). Undefined for any other name.
 */
export function jobRepository(jobName: string, jobId: string): string | undefined {
  const match = new RegExp(`(?:^|/ )${jobId.replace(/[^\w-]/g, '')} ([^\\s/]+/[^\\s/]+)$`).exec(
    jobName.trim()
  )
  const name = match?.[1] === undefined ? undefined : parseRepositoryName(match[1])
  return name === undefined ? undefined : key(`${name.owner}/${name.name}`)
}

function problemRow(file: string, problem: string, reason: string): RollupRow {
  const where = codeSpan(file, 120)
  const category: RollupCategory = 'unreadable'
  return {
    category,
    repository: null,
    cells: {
      repository: tableCell(`report file ${where}`),
      status: tableCell(`${CATEGORY_WORDS[category].icon} ${problem}: ${inlineText(reason, 160)}`),
      verify: '—',
      files: '—',
      credits: '—',
      pullRequest: '—',
      run: '—'
    },
    credits: { kind: 'unknown' },
    durationMs: null,
    needs: [{ repository: `report file ${where}`, text: `the report is ${problem}` }],
    sortKey: file
  }
}

function missingRow(repository: string, server: string): RollupRow {
  const category: RollupCategory = 'missing'
  return {
    category,
    repository,
    cells: {
      repository: repositoryCell(repository, server),
      status: `${CATEGORY_WORDS[category].icon} no report: the run ended before writing one (see the workflow run)`,
      verify: '—',
      files: '—',
      credits: '—',
      pullRequest: '—',
      run: '—'
    },
    credits: { kind: 'unknown' },
    durationMs: null,
    needs: [],
    sortKey: repository
  }
}

// ---------------------------------------------------------------------------------------------
// Markdown

export interface RollupRenderOptions {
  /** Upper bound on the length (UTF-16 code units). */
  maxLength: number
  /** The roll-up's workflow run, whose job summary holds the full table. */
  runUrl?: string
}

/** Room kept for naming the rows that do not fit. */
const TAIL_ROOM = 8_000

const TABLE_HEAD =
  '| Repository | Status | Verify | Files changed | AI credits | Pull request | Run |\n|---|---|---|---|---|---|---|'

function tableRow(row: RollupRow): string {
  const c = row.cells
  return `| ${c.repository} | ${c.status} | ${c.verify} | ${c.files} | ${c.credits} | ${c.pullRequest} | ${c.run} |`
}

/** The headline's order: how many completed first. */
const HEADLINE_ORDER: RollupCategory[] = [
  'completed',
  'failed',
  'stopped',
  'waiting',
  'cancelled',
  'unreadable',
  'missing'
]

/** `N repositories: 2 completed · 1 failed …`, AI credits in total, the slowest run. */
export function rollupHeadline(rollup: Rollup): string {
  const { counts } = rollup
  const parts = HEADLINE_ORDER.filter(
    (c) => counts[c] > 0 || ['completed', 'failed', 'stopped', 'waiting'].includes(c)
  ).map((c) => `${CATEGORY_WORDS[c].icon} ${formatNumber(counts[c])} ${CATEGORY_WORDS[c].words}`)
  const lines = [
    `### Copilot across ${plural(counts.total, 'repository', 'repositories')}`,
    parts.join(' · ')
  ]
  const facts: string[] = []
  const { credits } = rollup
  if (credits.reported > 0) {
    const partial =
      credits.reported < counts.total
        ? ` (${formatNumber(credits.reported)} runs reported them)`
        : ''
    facts.push(`**AI credits:** ${formatNumber(credits.total)} in total${partial}`)
  }
  if (credits.byok > 0) {
    facts.push(`${plural(credits.byok, 'run')} billed by your provider`)
  }
  if (rollup.slowest !== null) {
    facts.push(
      `**Slowest:** ${inlineText(rollup.slowest.repository, 140)} (${formatDuration(rollup.slowest.durationMs)})`
    )
  }
  if (facts.length > 0) lines.push(facts.join(' · '))
  return lines.join('\n\n')
}

/**
 * The roll-up as markdown, under `maxLength`: the headline, what needs a person, the rows that
 * did not complete (failures first) in a table, the completed ones in a collapsed table; rows
 * that do not fit are counted and named as far as room allows, with a pointer to the full table.
 */
export function renderRollup(rollup: Rollup, options: RollupRenderOptions): string {
  const run = safeUrl(options.runUrl)
  const where =
    run === null ? 'the job summary of the roll-up' : `the [roll-up's job summary](${run})`
  const head = rollupHeadline(rollup)
  const needs = needsSection(rollup, 40)
  const footer =
    run === null ? '' : `\n\n<sub>[Workflow run](${run}) · full table in its job summary</sub>`
  const room = options.maxLength - head.length - needs.length - footer.length - 800
  // When not every row fits, keep room to name the ones left out.
  const everyRow = rollup.rows.reduce((n, r) => n + tableRow(r).length + 1, 2 * TABLE_HEAD.length)
  const budget = everyRow > room ? room - Math.min(TAIL_ROOM, Math.floor(room / 4)) : room
  const open = rollup.rows.filter((r) => r.category !== 'completed')
  const done = rollup.rows.filter((r) => r.category === 'completed')
  const parts: string[] = []
  let used = 0
  const left: RollupRow[] = []
  const table = (rows: RollupRow[]): string[] => {
    const lines: string[] = []
    for (const row of rows) {
      const line = tableRow(row)
      if (left.length > 0 || used + line.length + 1 + TABLE_HEAD.length > budget) {
        left.push(row)
        continue
      }
      used += line.length + 1
      lines.push(line)
    }
    return lines
  }
  const openLines = table(open)
  if (openLines.length > 0) parts.push(`${TABLE_HEAD}\n${openLines.join('\n')}`)
  used += TABLE_HEAD.length
  const doneLines = table(done)
  if (doneLines.length > 0) {
    const body = `${TABLE_HEAD}\n${doneLines.join('\n')}`
    parts.push(
      details(`✅ ${plural(doneLines.length, 'repository', 'repositories')} completed`, body)
    )
  }
  if (left.length > 0) parts.push(tailSummary(left, room - used, where))
  const body = [head, needs, ...parts].filter((p) => p !== '').join('\n\n') + footer
  return body.length <= options.maxLength ? body : hardCut(body, options.maxLength, where)
}

/** The rows left out: how many of each category, and their names as far as room allows. */
function tailSummary(rows: RollupRow[], room: number, where: string): string {
  const byCategory = ROLLUP_CATEGORIES.map(
    (c) => [c, rows.filter((r) => r.category === c).length] as const
  )
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${formatNumber(n)} ${CATEGORY_WORDS[c].words}`)
  const intro = `**${plural(rows.length, 'more repository', 'more repositories')}** (${byCategory.join(', ')}) do not fit in an issue: every row is in ${where}.`
  const names: string[] = []
  let length = intro.length
  for (const row of rows) {
    const name = row.repository === null ? null : inlineText(row.repository, 140)
    if (name === null) continue
    if (length + name.length + 2 > Math.max(0, room - 200)) break
    names.push(name)
    length += name.length + 2
  }
  const named = rows.filter((r) => r.repository !== null).length
  const rest = named > names.length ? `, ${more(named - names.length, 'repository')}` : ''
  return names.length === 0 ? intro : `${intro}\n\n${names.join(', ')}${rest}`
}

function needsSection(rollup: Rollup, max: number): string {
  const needs = rollup.rows.flatMap((r) => r.needs)
  if (needs.length === 0) return ''
  const lines = needs
    .slice(0, max)
    .map(
      (n) =>
        `- ${n.repository.includes('[') || n.repository.includes('`') ? n.repository : inlineText(n.repository, 140)}: ${n.text}`
    )
  if (needs.length > max) lines.push(`- ${more(needs.length - max, 'item')} in the job summary`)
  return `#### 🙋 What needs a person\n\n${lines.join('\n')}`
}

/** Last resort (never reached by the budget above): cut at a line and say where the rest is. */
function hardCut(body: string, max: number, where: string): string {
  const note = `\n\n… cut to fit: every row is in ${where}.`
  const cut = body.slice(0, Math.max(0, max - note.length))
  const at = cut.lastIndexOf('\n')
  return `${at > 0 ? cut.slice(0, at) : cut}${note}`
}

// ---------------------------------------------------------------------------------------------
// The tracking issue's body

/** The hidden marker the roll-up's part of the issue body starts with. */
export const ROLLUP_MARKER_PREFIX = '<!-- copilot-autopilot:rollup'

/** The marker of one workflow run's roll-up (`owner/name/runId`), to find its issue again. */
export function rollupMarker(runKey: string | undefined): string {
  const safe = (runKey ?? '').replace(/[^A-Za-z0-9._/-]/g, '').replace(/-{2,}/g, '-')
  return `${ROLLUP_MARKER_PREFIX}${safe === '' ? '' : ` run=${safe}`} -->`
}

/**
 * The issue body: the text a person wrote above the roll-up's marker kept as it is, then the
 * marker and the roll-up. A body without the marker keeps all its text above it.
 */
export function issueBody(
  existing: string | null | undefined,
  marker: string,
  rollup: string
): string {
  const text = existing ?? ''
  const at = text.indexOf(ROLLUP_MARKER_PREFIX)
  const above = (at < 0 ? text : text.slice(0, at)).replace(/\s+$/, '')
  return `${above === '' ? '' : `${above}\n\n`}${marker}\n${rollup}\n`
}

/** The room a roll-up has in an issue body that keeps `existing`'s text above the marker. */
export function roomFor(
  existing: string | null | undefined,
  marker: string,
  limit: number
): number {
  return limit - issueBody(existing, marker, '').length
}

export { CATEGORY_WORDS as ROLLUP_CATEGORY_WORDS }
