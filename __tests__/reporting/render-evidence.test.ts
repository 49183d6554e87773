/**
 * The comment shows the evidence (issue 22): verify results in the headline, tools by name and
 * files changed, one set of figures, advice that never works around a deny, and rendering a
 * reader does not trip over.
 */
import fs from 'node:fs'
import { initBashParser } from '../../src/policy/index.js'
import { withRunContext } from '../../src/reporting/publish.js'
import { TROUBLESHOOTING_URL } from '../../src/reporting/render-sections.js'
import { renderComment, renderSummary } from '../../src/reporting/render.js'
import type { PermissionRecord, Report } from '../../src/reporting/types.js'
import { badPolicyReport, busyReport, sampleReport } from './sample-reports.js'

const MARKER = '<!-- copilot-autopilot:comment -->'
const RUN_URL = 'https://github.com/octo/app/actions/runs/42'
const SUMMARY_URL = 'https://github.com/octo/app/actions/runs/42/job/7#summary-7'

const comment = (report: Report, extra: { prompt?: string } = {}): string =>
  renderComment(report, { marker: MARKER, runUrl: RUN_URL, summaryUrl: SUMMARY_URL, ...extra })
const summary = (report: Report): string => renderSummary(report, { runUrl: RUN_URL })

/** The headline block: the `###` line and the lines of facts under it, up to its links line. */
function top(body: string): string {
  const start = body.indexOf('### ')
  return body.slice(start, body.indexOf('\n', body.indexOf(`[workflow run](${RUN_URL})`)))
}

beforeAll(async () => {
  await initBashParser()
})

describe('1. the headline shows the evidence', () => {
  it('names each verify command with its result and test count, and links the job summary and run', () => {
    const report = sampleReport('completed')
    report.commands.push({
      phase: 'verify',
      command: 'npm run lint',
      exitCode: 0,
      timedOut: false,
      durationMs: 900,
      outputTail: ''
    })
    const head = top(comment(report))
    expect(head).toContain('`npm test` ✅ 13 passed')
    expect(head).toContain('`npm run lint` ✅ exit 0')
    expect(head).toContain(`[job summary](${SUMMARY_URL})`)
    expect(head).toContain(`[workflow run](${RUN_URL})`)
  })

  it('says what the action verified, never "not verified by the action", when verify passed', () => {
    const body = comment(sampleReport('completed'))
    expect(body).not.toContain('not verified by the action')
    expect(body).toContain('`npm test` passed')
  })

  it('shows the failing verify command with its exit code and count, and a fix', () => {
    const body = comment(sampleReport('verify-failed'))
    expect(top(body)).toContain('`npm test` ❌ exit 1 · 1 failed, 12 passed')
    const problems = body.slice(body.indexOf('#### 🩺'))
    expect(problems).toMatch(/\*\*How to fix it:\*\*.*`verify-retries`/)
    expect(problems).toContain(`${TROUBLESHOOTING_URL}#verify-failed`)
  })

  it('after a repair whose second attempt passed, shows the passing attempt, not the first failure', () => {
    const report = sampleReport('completed', {
      repairs: [{ attempt: 1, failed: ['npm test'] }]
    })
    const first = report.commands[1]!
    report.commands = [
      report.commands[0]!,
      { ...first, exitCode: 1, outputTail: 'Tests:       1 failed, 12 passed, 13 total' },
      { ...first, attempt: 1 }
    ]
    const body = comment(report)
    expect(top(body)).toContain('**Verified (after 1 repair):** `npm test` ✅ 13 passed')
    expect(body).not.toContain('#### 🩺')
    // the job summary keeps the history
    expect(summary(report)).toContain('**verify (after repair 1)** `npm test` · ✅ exit 0')
  })

  it('names a setup command that failed', () => {
    const report = sampleReport('failed', {
      error: { message: 'Setup command `npm ci` failed with exit code 1', type: 'setup-command' }
    })
    report.commands[0]!.exitCode = 1
    expect(top(comment(report))).toContain('**Setup:** `npm ci` ❌ exit 1')
  })

  it('says the limit that stopped a run', () => {
    const budget = sampleReport('budget-exceeded', {
      error: {
        message:
          'The agent used 77,000 tokens (input + output, all models), reaching max-tokens (75,000): the session was stopped.',
        type: 'max-tokens'
      }
    })
    expect(top(comment(budget))).toContain('stopped at `max-tokens` 75,000')
    expect(top(comment(sampleReport('timed-out')))).toContain('stopped at `timeout-minutes` 30 min')
    expect(top(comment(sampleReport('incomplete')))).toContain(
      'stopped at `max-autopilot-continues` 10'
    )
    expect(top(comment(sampleReport('cancelled')))).toContain('cancelled at 3 m 12 s')
  })
})

describe('2. tools by name and files changed', () => {
  it('keeps the tool summary in one line by tool', () => {
    const body = comment(sampleReport('completed'))
    expect(body).toContain(
      'bash 2 · view 2 · edit 1 · grep 1 · task 1 · web_fetch 1 — 1 failed, 2 denied'
    )
  })

  it('lists the files changed with +/− per file from report.changes, collapsed beyond a few', () => {
    const report = sampleReport('completed')
    report.changes = {
      base: 'abc',
      files: Array.from({ length: 8 }, (_, i) => ({
        path: `src/file${i}.ts`,
        change: i === 0 ? ('added' as const) : ('modified' as const),
        added: i + 1,
        removed: i
      }))
    }
    const body = comment(report)
    expect(body).toContain('`src/file0.ts` (new) +1 −0')
    expect(body).toContain('`src/file1.ts` +2 −1')
    expect(body).toContain('+36 −28 in 8 files')
    const later = body.indexOf('`src/file7.ts`')
    const collapsed = body.lastIndexOf('<details>', later)
    expect(collapsed).toBeGreaterThan(body.indexOf('`src/file1.ts`'))
  })

  it('falls back to the CLI’s list of files when report.changes is absent', () => {
    const body = comment(sampleReport('completed'))
    expect(body).toContain('`src/sum.ts`')
    expect(body).toContain('+12 −3 in 2 files')
  })
})

describe('3. one set of figures', () => {
  it('labels total, input, output, cache read and cache write, the same in comment and summary', () => {
    const report = sampleReport('completed')
    const phrase = '77k tokens: 70k input (35k cache read, 3.5k cache write) + 7k output'
    expect(comment(report)).toContain(phrase)
    expect(summary(report)).toContain(phrase)
  })

  it('leads with AI credits and dollars, premium and model requests beside them, the units explained once', () => {
    const body = comment(sampleReport('completed'))
    expect(body).toContain('41.25 AI credits ($0.41) · 7 premium requests · 7 model requests')
    expect(body.match(/AI credits are what Copilot bills/gi)).toHaveLength(1)
    const s = summary(sampleReport('completed'))
    expect(s.match(/AI credits are what Copilot bills/gi)).toHaveLength(1)
  })
})

describe('4. advice ranked and safe', () => {
  const denial = (p: Partial<PermissionRecord> & { subject: string }): PermissionRecord => ({
    requestId: `r-${p.subject}`,
    toolCallId: null,
    kind: 'shell',
    decision: 'deny',
    rule: 'default',
    request: { kind: 'shell', fullCommandText: p.subject },
    ...p
  })

  function incomplete(permissions: PermissionRecord[]): Report {
    return sampleReport('incomplete', { permissions, permissionCounts: undefined })
  }

  it('gives a deliberate deny its rule’s own reason, never a suggested rule or “remove that rule”', () => {
    const body = comment(
      incomplete([
        denial({
          subject: 'npm install date-fns@4',
          rule: 'no-install',
          reason: 'Installing packages needs network access; ask for it in setup-commands.'
        })
      ])
    )
    expect(body).toContain('Installing packages needs network access')
    expect(body).not.toMatch(/narrow or remove|remove that rule/)
    expect(body).not.toContain('```yaml')
  })

  it('in a run that never finished, puts the denial that blocked it and the limit before a failing verify command', () => {
    const report = incomplete([
      denial({ subject: 'npm install mathjs', rule: 'no-install', reason: 'use the lockfile' })
    ])
    report.commands.push({
      phase: 'verify',
      command: 'npm test',
      exitCode: 1,
      timedOut: false,
      durationMs: 1800,
      outputTail: 'Tests:       2 failed, 3 passed, 5 total'
    })
    const body = comment(report)
    const denied = body.indexOf('**Denied by the policy**')
    const limit = body.indexOf('**Error:**')
    const verify = body.indexOf('The verify command `npm test` failed')
    expect(denied).toBeGreaterThan(-1)
    expect(limit).toBeGreaterThan(denied)
    expect(verify).toBeGreaterThan(limit)
  })

  it('says a line the agent repeated once, with how many times', () => {
    const said = 'said: I cannot install `mathjs`: the policy denies it.'
    const report = incomplete([])
    report.lastActivity = ['ran bash: npm install mathjs', said, said, said, 'autopilot stopped']
    const body = comment(report)
    expect(body).toContain(`${said} (×3)`)
    expect(body.split(said).length - 1).toBe(1)
  })

  it('suggests no rule for /tmp downloads, raw registry URLs or paths outside the workspace', () => {
    const body = comment(
      incomplete([
        denial({
          subject: 'curl -sSL https://registry.npmjs.org/x/-/x-1.0.0.tgz -o /tmp/x.tgz'
        }),
        denial({
          kind: 'url',
          subject: 'https://registry.npmjs.org/date-fns',
          request: { kind: 'url', url: 'https://registry.npmjs.org/date-fns' }
        }),
        denial({
          kind: 'read',
          subject: '/etc/hosts',
          request: { kind: 'read', path: '/etc/hosts' }
        })
      ])
    )
    expect(body).not.toContain('```yaml')
    expect(body).not.toContain('decision: allow')
  })

  it('still suggests a rule for a request inside the workspace that no rule matched', () => {
    const body = comment(incomplete([denial({ subject: 'npm run build' })]))
    expect(body).toContain('shell: ["npm run build"]')
  })

  it('says “no rule matched (default deny)”, never “denied by `default`”', () => {
    const report = incomplete([denial({ subject: 'npm run build' })])
    for (const body of [comment(report), summary(report)]) {
      expect(body).toContain('no rule matched (default deny)')
      expect(body).not.toContain('by `default`')
      expect(body).not.toMatch(/\| default \|/)
    }
  })

  it('lists an ask nobody answered on its own line, not as a rule denial', () => {
    const ask = denial({
      subject: 'git push origin HEAD',
      rule: 'push-asks',
      approval: {
        id: 'q1',
        verdict: 'timeout',
        askedAt: '2026-11-22T10:01:00.000Z',
        answeredAt: '2026-11-22T10:31:00.000Z'
      }
    })
    const body = comment(incomplete([ask]))
    expect(body).not.toContain('requests denied by')
    expect(body).not.toContain('rule `push-asks` denied it')
    expect(body).toMatch(/nobody answered/i)
  })

  it('puts the cause that blocked the agent before the limit that ended the run', () => {
    const body = comment(
      incomplete([
        denial({
          subject: 'npm install date-fns@4',
          rule: 'no-install',
          reason: 'Installing packages needs network access.'
        })
      ])
    )
    const cause = body.indexOf('Installing packages needs network access')
    const limit = body.indexOf('max-autopilot-continues`, or')
    expect(cause).toBeGreaterThan(0)
    expect(limit).toBeGreaterThan(cause)
  })

  it('links “how to fix it” to the troubleshooting page of the action’s repository', () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
      repository: { url: string }
    }
    const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')
    expect(TROUBLESHOOTING_URL).toBe(`${repository}/blob/main/docs/troubleshooting.md`)
    expect(comment(sampleReport('incomplete'))).toContain(`${TROUBLESHOOTING_URL}#incomplete`)
    expect(comment(sampleReport('budget-exceeded'))).toContain(
      `${TROUBLESHOOTING_URL}#budget-exceeded`
    )
    expect(comment(sampleReport('policy-violation'))).toContain(
      `${TROUBLESHOOTING_URL}#policy-violation`
    )
  })
})

describe('5. rendering', () => {
  it('says a cancelled run was cancelled first, with a re-run link, before any command output', () => {
    const report = sampleReport('cancelled')
    report.commands.push({
      phase: 'verify',
      command: 'npm test',
      exitCode: null,
      timedOut: false,
      durationMs: 2000,
      outputTail: 'PASS src/a.test.ts'
    })
    const body = comment(report)
    const problems = body.slice(body.indexOf('#### 🩺'))
    const first = problems.split('\n\n')[1]!
    expect(first).toContain('cancelled')
    expect(first).toContain(`[re-run the workflow](${RUN_URL})`)
    expect(body).not.toContain('PASS src/a.test.ts')
  })

  it('shows how long a command still running had been running', () => {
    const report = sampleReport('timed-out')
    report.tools.push({
      toolCallId: 'c9',
      name: 'bash',
      outcome: 'unfinished',
      success: null,
      durationMs: null,
      target: 'npx playwright test',
      startedAt: '2026-11-22T10:01:00.000Z'
    })
    expect(comment(report)).toMatch(/`npx playwright test` · running for 2 m 12 s/)
  })

  it('uses human words for todo states', () => {
    const body = comment(sampleReport('incomplete'))
    expect(body).not.toContain('in_progress')
    expect(body).toContain('_(in progress)_')
  })

  it('demotes headings inside the agent’s text below the headline', () => {
    const report = sampleReport('completed', { summary: '# Done\n\n## Changes\n\nFixed it.' })
    for (const body of [comment(report), summary(report)]) {
      expect(body).not.toMatch(/^> {0,3}#{1,3} /m)
      expect(body).toMatch(/^> #### Plan$/m)
    }
  })

  it('shortens long words in table cells without splitting a character', () => {
    const report = sampleReport('completed')
    report.permissions[1]!.subject = `git push origin ${'😀'.repeat(100)}`
    const body = summary(report)
    expect(body).toContain('😀…😀')
    expect(body).not.toMatch(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
    )
  })

  it('wraps long lines: no unbroken code span longer than a table can show', () => {
    const long = `curl -sSL https://example.com/${'a'.repeat(300)}`
    const report = busyReport('incomplete')
    report.permissions.push({
      requestId: 'long',
      toolCallId: null,
      kind: 'shell',
      subject: long,
      decision: 'deny',
      rule: 'default',
      request: { kind: 'shell', fullCommandText: long }
    })
    for (const body of [comment(report), summary(report)]) {
      const rows = body.split('\n').filter((l) => l.startsWith('|'))
      for (const row of rows) {
        for (const span of row.match(/`[^`]*`/g) ?? []) {
          expect(
            span
              .replace(/\s+/g, ' ')
              .split(' ')
              .every((w) => w.length <= 100)
          ).toBe(true)
        }
      }
    }
  })

  it('links the policy’s file:line to the file at the run’s commit', () => {
    const report = badPolicyReport()
    report.repository = 'https://github.com/octo/app'
    report.commit = '0123456789abcdef0123456789abcdef01234567'
    const body = comment(report)
    expect(body).toContain(
      'https://github.com/octo/app/blob/0123456789abcdef0123456789abcdef01234567/.github/copilot-policy.yml#L'
    )
  })

  it('takes the repository and commit from the runner, the checkout’s HEAD first', () => {
    const env = {
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'octo/app',
      GITHUB_SHA: 'fedcba9876543210fedcba9876543210fedcba98'
    }
    expect(withRunContext(sampleReport('completed'), env)).toMatchObject({
      repository: 'https://github.com/octo/app',
      commit: 'fedcba9876543210fedcba9876543210fedcba98'
    })
    const report = sampleReport('completed', {
      changes: { base: '0123456789abcdef0123456789abcdef01234567', files: [] }
    })
    expect(withRunContext(report, env).commit).toBe('0123456789abcdef0123456789abcdef01234567')
    const outside = withRunContext(sampleReport('completed'), {})
    expect(outside).not.toHaveProperty('repository')
    expect(outside).not.toHaveProperty('commit')
  })

  it('shows the prompt, collapsed and neutralized, in the final comment', () => {
    const body = comment(sampleReport('completed'), {
      prompt: 'Fix the bug @octo/team <img src=x onerror=alert(1)>'
    })
    expect(body).toContain('<summary>Prompt</summary>')
    expect(body).not.toContain('<img')
    expect(body).not.toMatch(/(^|\s)@octo\/team/)
  })
})
