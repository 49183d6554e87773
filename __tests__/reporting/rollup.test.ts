/**
 * One task across many repositories, rolled up (issue 32): report files read back and validated,
 * rows failures first, counts that add up, 500 repositories under GitHub's body limit, every text
 * from a report neutralized, the issue body below a marker that keeps a person's text.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { findFiles } from '../../src/modes/rollup.js'
import { GITHUB_COMMENT_LIMIT } from '../../src/reporting/limits.js'
import { parseReport, readReportFile, type ReportReading } from '../../src/reporting/report-file.js'
import {
  ROLLUP_CATEGORIES,
  ROLLUP_MARKER_PREFIX,
  buildRollup,
  issueBody,
  jobRepository,
  renderRollup,
  rollupMarker,
  roomFor
} from '../../src/reporting/rollup.js'
import type { Report, RunStatus } from '../../src/reporting/types.js'
import { parseRepositoryList, parseTrackingIssue } from '../../src/rollup-inputs.js'
import { sampleReport } from './sample-reports.js'

function reportOf(repository: string, status: RunStatus, extra: Partial<Report> = {}): Report {
  return sampleReport(status, {
    checkout: { repository, from: 'origin' },
    repository: `https://github.com/${repository}`,
    run: { url: 'https://github.com/acme/fleet/actions/runs/9/attempts/1', id: '9', attempt: 1 },
    ...extra
  })
}

function reading(report: unknown, file = 'reports/x/report.json'): ReportReading {
  return parseReport(file, JSON.stringify(report))
}

const STATUSES: RunStatus[] = [
  'completed',
  'verify-failed',
  'incomplete',
  'failed',
  'timed-out',
  'cancelled',
  'budget-exceeded',
  'policy-violation'
]

describe('reading a report file', () => {
  let dir: string
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollup-read-'))
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('accepts a report of this action, with fields it does not know', () => {
    const parsed = reading({ ...reportOf('acme/a', 'completed'), somethingNew: { x: 1 } })
    expect(parsed.kind).toBe('report')
  })

  it('says what is wrong with a missing, unreadable, broken, foreign or newer file', () => {
    const file = (name: string, text: string): string => {
      const full = path.join(dir, name)
      fs.writeFileSync(full, text)
      return full
    }
    const problems = [
      readReportFile(path.join(dir, 'nope.json')),
      readReportFile(dir),
      readReportFile(file('cut.json', JSON.stringify(reportOf('acme/a', 'failed')).slice(0, 200))),
      readReportFile(file('foreign.json', JSON.stringify({ version: 1, status: 'great' }))),
      readReportFile(
        file('newer.json', JSON.stringify({ ...reportOf('acme/a', 'failed'), version: 2 }))
      )
    ].map((r) => (r.kind === 'problem' ? [r.problem, r.reason] : ['report', '']))
    expect(problems.map(([kind]) => kind)).toEqual([
      'missing',
      'unreadable',
      'malformed',
      'malformed',
      'newer'
    ])
    expect(problems[3]?.[1]).toMatch(/^it is not a report of this action at status/)
    expect(problems[4]?.[1]).toMatch(/version 2 report, newer than this action reads \(1\)/)
  })
})

describe('the roll-up', () => {
  it('puts failures first, then the reports it could not read, and counts every row once', () => {
    const readings = [
      reading(reportOf('acme/zeta', 'completed')),
      reading(reportOf('acme/alpha', 'completed')),
      reading(reportOf('acme/beta', 'verify-failed')),
      reading(reportOf('acme/gamma', 'budget-exceeded')),
      parseReport('reports/broken/report.json', '{"version": 1, "status": '),
      reading({ ...reportOf('acme/new', 'completed'), version: 3 }, 'reports/new/report.json')
    ]
    const rollup = buildRollup({ readings, repositories: ['acme/alpha', 'acme/lost'] })
    expect(rollup.rows.map((r) => [r.category, r.repository])).toEqual([
      ['failed', 'acme/beta'],
      ['unreadable', null],
      ['unreadable', null],
      ['missing', 'acme/lost'],
      ['stopped', 'acme/gamma'],
      ['completed', 'acme/alpha'],
      ['completed', 'acme/zeta']
    ])
    expect(rollup.counts).toMatchObject({
      total: 7,
      completed: 2,
      failed: 1,
      stopped: 1,
      unreadable: 2,
      missing: 1,
      waiting: 0,
      cancelled: 0
    })
    const sum = ROLLUP_CATEGORIES.reduce((n, c) => n + rollup.counts[c], 0)
    expect(sum).toBe(rollup.counts.total)
    const body = renderRollup(rollup, { maxLength: 60_000 })
    expect(body).toContain('### Copilot across 7 repositories')
    expect(body).toContain(
      '✅ 2 completed · ❌ 1 failed · ⏸️ 1 stopped at a limit · 🙋 0 waiting for a person · ⚠️ 2 report unreadable · ❔ 1 no report'
    )
    // the verify evidence as the comment says it, the limit that stopped a run
    expect(body).toMatch(
      /\[acme\/beta\]\(https:\/\/github\.com\/acme\/beta\) \| ❌ verify failed \| `npm test` ❌ exit 1/
    )
    expect(body).toContain('⏸️ budget exceeded: stopped at `max-tokens`')
    expect(body).toContain('report file `reports/new/report.json`')
    expect(body).toContain('newer: it is a version 3 report')
    // the failure's row comes before the completed ones
    expect(body.indexOf('acme/beta')).toBeLessThan(body.indexOf('acme/alpha'))
  })

  it('names rows from the report, never from the file or folder it came in', () => {
    const rollup = buildRollup({
      readings: [reading(reportOf('acme/real-name', 'completed'), 'reports/acme-fake/report.json')]
    })
    expect(rollup.rows[0]?.repository).toBe('acme/real-name')
    expect(renderRollup(rollup, { maxLength: 60_000 })).not.toContain('acme-fake')
  })

  it('counts a run an unanswered ask stopped as waiting for a person, and says what needs one', () => {
    const report = reportOf('acme/asks', 'incomplete')
    const permission = report.permissions[0]
    if (permission === undefined) throw new Error('the sample has permissions')
    report.permissions = [
      {
        ...permission,
        kind: 'shell',
        subject: 'npm publish',
        decision: 'deny',
        approval: {
          id: 'a1',
          verdict: 'timeout',
          askedAt: '2026-11-22T10:00:00Z',
          answeredAt: '2026-11-22T10:10:00Z'
        }
      }
    ]
    const violation = reportOf('acme/violator', 'policy-violation')
    const rollup = buildRollup({
      readings: [reading(report), reading(violation)],
      publish: [{ repository: 'acme/asks', outcome: 'failure' }]
    })
    expect(rollup.counts).toMatchObject({ waiting: 1, failed: 1 })
    const body = renderRollup(rollup, { maxLength: 60_000 })
    expect(body).toContain('#### 🙋 What needs a person')
    expect(body).toContain(
      'acme/asks: an ask nobody answered: `shell npm publish` (no answer in time)'
    )
    expect(body).toContain(
      'acme/violator: a policy violation: `.npmrc` created, rule `protected-files` (reverted)'
    )
    expect(body).toContain('acme/asks: the publish step refused or failed')
  })

  it('reads AI credits when the report has them, and goes on without them', () => {
    const withCredits = reportOf('acme/a', 'completed')
    const byok = reportOf('acme/b', 'completed')
    const credits = (r: Report, aiCredits: Report['metrics']['aiCredits']): Report => ({
      ...r,
      metrics: { ...r.metrics, aiCredits }
    })
    const { aiCredits: _, ...noCredits } = reportOf('acme/d', 'completed').metrics
    const rollup = buildRollup({
      readings: [
        reading(credits(withCredits, { nanoAiu: 12.5e9, status: 'complete', byok: false })),
        reading(credits(byok, { nanoAiu: 0, status: 'unavailable', byok: true })),
        reading(
          credits(reportOf('acme/c', 'completed'), {
            nanoAiu: 7.5e9,
            status: 'partial',
            byok: false
          })
        ),
        reading({ ...reportOf('acme/d', 'completed'), metrics: noCredits })
      ]
    })
    expect(rollup.credits).toEqual({ total: 20, reported: 2, byok: 1 })
    const body = renderRollup(rollup, { maxLength: 60_000 })
    expect(body).toContain('**AI credits:** 20 in total (2 runs reported them)')
    expect(body).toContain('1 run billed by your provider')
    expect(body).toContain('**Slowest:** acme/a (3 m 12 s)')
  })

  it('links the publish leg’s pull request only when it is the row’s own repository’s', () => {
    const rollup = buildRollup({
      readings: [
        reading(reportOf('acme/a', 'completed')),
        reading(reportOf('acme/b', 'completed'))
      ],
      publish: [
        {
          repository: 'acme/a',
          outcome: 'success',
          'pull-request-url': 'https://github.com/acme/a/pull/3'
        },
        {
          repository: 'acme/b',
          outcome: 'success',
          'pull-request-url': 'https://github.com/evil/b/pull/4'
        }
      ]
    })
    const body = renderRollup(rollup, { maxLength: 60_000 })
    expect(body).toContain('[pull 3](https://github.com/acme/a/pull/3)')
    expect(body).not.toContain('evil/b')
  })

  it('neutralizes every text that comes from a report', () => {
    const hostile =
      '@octocat <!-- copilot-autopilot:rollup --> </details> <img src=x> | pipe [x](https://evil.example) #12'
    const report = reportOf('acme/a', 'failed', { error: { message: hostile } })
    report.commands = [
      {
        phase: 'verify',
        command: 'npm test | tee </details> @octocat',
        exitCode: 1,
        timedOut: false,
        durationMs: 10,
        outputTail: ''
      }
    ]
    const body = renderRollup(buildRollup({ readings: [reading(report)] }), {
      maxLength: 60_000
    })
    expect(body).not.toContain('<!--')
    // outside code spans (where nothing links, pings or renders as HTML)
    const prose = body.replace(/(`+)[^`]*?\1/g, '')
    expect(prose).not.toContain('@octocat')
    expect(prose).not.toContain('</details> ')
    expect(prose).not.toContain('<img')
    expect(prose).not.toMatch(/[^\\]\]\(https:\/\/evil/)
    expect(prose).toContain('#\u200B12')
    expect(body).not.toMatch(/[^\\]\| pipe/)
    // every table row still has its 7 cells
    for (const line of body.split('\n').filter((l) => l.startsWith('| [acme'))) {
      expect(line.replace(/\\\|/g, '').split('|')).toHaveLength(9)
    }
  })

  it('renders 500 repositories under GitHub’s limit, quickly, and says where the rest are', () => {
    const started = performance.now()
    const readings: ReportReading[] = []
    for (let i = 0; i < 500; i++) {
      const status = STATUSES[i % STATUSES.length] as RunStatus
      readings.push(reading(reportOf(`acme/repository-${String(i).padStart(3, '0')}`, status)))
    }
    readings.push(parseReport('reports/bad/report.json', 'not json'))
    const rollup = buildRollup({ readings })
    const marker = rollupMarker('acme/fleet/9')
    const above = 'Weekly: bump Node to 22 everywhere. Owner: @platform-team\n'
    const body = issueBody(
      above,
      marker,
      renderRollup(rollup, {
        maxLength: roomFor(above, marker, GITHUB_COMMENT_LIMIT - 536),
        runUrl: 'https://github.com/acme/fleet/actions/runs/9'
      })
    )
    const summary = renderRollup(rollup, { maxLength: 300_000 })
    const elapsed = performance.now() - started
    expect(body.length).toBeLessThan(GITHUB_COMMENT_LIMIT)
    expect(elapsed).toBeLessThan(10_000)
    expect(rollup.counts.total).toBe(501)
    const sum = ROLLUP_CATEGORIES.reduce((n, c) => n + rollup.counts[c], 0)
    expect(sum).toBe(501)
    expect(body).toContain('### Copilot across 501 repositories')
    expect(body).toMatch(
      /more repositories\*\* \(.*\) do not fit in an issue: every row is in the \[roll-up’s job summary\]|more repositories\*\* \(.*\) do not fit in an issue: every row is in the \[roll-up's job summary\]/
    )
    expect(body.startsWith(above.trim())).toBe(true)
    // the malformed report is a row, and failures come first
    expect(body).toContain('report file `reports/bad/report.json`')
    const firstRow = body.split('\n').find((l) => l.startsWith('| [acme'))
    expect(firstRow).toMatch(/❌/)
    // the job summary has every row
    expect(summary.split('\n').filter((l) => /^\| (\[acme|report file)/.test(l))).toHaveLength(501)
    const tail = body.slice(body.indexOf('more repositories**'))
    expect(tail.length).toBeGreaterThan(0)
    console.log(tail.slice(0, 400))
    console.log(
      `500 reports read and rendered: ${Math.round(elapsed)} ms, issue body ${body.length} characters, summary ${summary.length}`
    )
  })
})

describe('the agent job of a repository', () => {
  it('is read from the matrix leg’s name, in the called or the calling workflow', () => {
    expect(jobRepository('agent acme/app', 'agent')).toBe('acme/app')
    expect(jobRepository('fleet / agent Acme/App.js', 'agent')).toBe('acme/app.js')
    expect(jobRepository('publish acme/app', 'agent')).toBeUndefined()
    expect(jobRepository('fleet / magent acme/app', 'agent')).toBeUndefined()
    expect(jobRepository('agent acme/app/x', 'agent')).toBeUndefined()
  })

  it('links the job when known, else the run', () => {
    const rollup = buildRollup({
      readings: [
        reading(reportOf('acme/a', 'completed')),
        reading(reportOf('acme/b', 'completed'))
      ],
      jobUrls: new Map([['acme/a', 'https://github.com/acme/fleet/actions/runs/9/job/5']])
    })
    const body = renderRollup(rollup, { maxLength: 60_000 })
    expect(body).toContain('[job](https://github.com/acme/fleet/actions/runs/9/job/5)')
    expect(body).toContain('[run](https://github.com/acme/fleet/actions/runs/9/attempts/1)')
  })
})

describe('the issue body', () => {
  const marker = rollupMarker('acme/fleet/9')

  it('keeps what a person wrote above the marker and replaces what is below', () => {
    const first = issueBody('Tracking the Node 22 bump.\n', marker, 'roll-up one')
    expect(first).toBe(`Tracking the Node 22 bump.\n\n${marker}\nroll-up one\n`)
    const second = issueBody(
      first.replace('Tracking', 'Still tracking'),
      rollupMarker('acme/fleet/10'),
      'roll-up two'
    )
    expect(second).toBe(
      `Still tracking the Node 22 bump.\n\n${rollupMarker('acme/fleet/10')}\nroll-up two\n`
    )
    expect(issueBody(null, marker, 'x')).toBe(`${marker}\nx\n`)
    expect(marker.startsWith(ROLLUP_MARKER_PREFIX)).toBe(true)
    expect(rollupMarker('acme/fleet/9 --><b>')).toBe(
      `${ROLLUP_MARKER_PREFIX} run=acme/fleet/9-b -->`
    )
  })
})

describe('the roll-up’s inputs', () => {
  it('takes a JSON list or one repository per line, and refuses duplicates and malformed names', () => {
    expect(parseRepositoryList('["acme/a", "acme/b"]')).toEqual(['acme/a', 'acme/b'])
    expect(parseRepositoryList('acme/a\n# a comment\n acme/b  # why\n\n')).toEqual([
      'acme/a',
      'acme/b'
    ])
    expect(() => parseRepositoryList('acme/a\nACME/A')).toThrow(
      "Input 'repositories', item 2: 'ACME/A' is listed twice (also as 'acme/a'). Remove one."
    )
    expect(() => parseRepositoryList('acme/a\nacme')).toThrow(
      "Input 'repositories', item 2: 'acme' is not a repository such as acme/widgets"
    )
    expect(() => parseRepositoryList('[1]')).toThrow('must be a JSON list of "owner/name" strings')
    expect(() => parseRepositoryList('[oops')).toThrow('is not a JSON list')
  })

  it('takes a tracking issue as owner/name#number or owner/name', () => {
    expect(parseTrackingIssue('acme/fleet#12')).toEqual({
      owner: 'acme',
      repo: 'fleet',
      number: 12
    })
    expect(parseTrackingIssue('acme/fleet')).toEqual({ owner: 'acme', repo: 'fleet' })
    expect(parseTrackingIssue('')).toBeUndefined()
    expect(() => parseTrackingIssue('#12')).toThrow(
      "Input 'tracking-issue' must be an issue such as"
    )
    expect(() => parseTrackingIssue('acme/fleet#0')).toThrow("Input 'tracking-issue'")
  })

  it('finds report files by glob, following no link', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollup-glob-'))
    try {
      for (const leg of ['agent-acme-a', 'agent-acme-b']) {
        fs.mkdirSync(path.join(dir, leg), { recursive: true })
        fs.writeFileSync(path.join(dir, leg, 'report.json'), '{}')
        fs.writeFileSync(path.join(dir, leg, 'other.json'), '{}')
      }
      fs.symlinkSync(path.join(dir, 'agent-acme-a'), path.join(dir, 'link'))
      expect(findFiles(path.join(dir, '**/report.json'), 'reports')).toEqual([
        path.join(dir, 'agent-acme-a', 'report.json'),
        path.join(dir, 'agent-acme-b', 'report.json')
      ])
      expect(findFiles(path.join(dir, 'agent-acme-a', 'report.json'), 'reports')).toHaveLength(1)
      expect(findFiles(path.join(dir, 'none', '*.json'), 'reports')).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
