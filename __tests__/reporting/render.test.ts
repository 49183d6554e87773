import {
  COMMENT_MAX_LENGTH,
  GITHUB_COMMENT_LIMIT,
  relativePath,
  renderComment,
  renderWorking
} from '../../src/reporting/render.js'
import { RUN_STATUSES, type Report, type RunStatus } from '../../src/reporting/types.js'
import {
  ROOT,
  SECRET,
  START,
  badPolicyReport,
  busyReport,
  emptySections,
  expectWellFormed,
  giantReport,
  prose,
  sampleReport,
  structure
} from './sample-reports.js'

const MARKER = '<!-- copilot-autopilot:comment -->'
const RUN_URL = 'https://github.com/octo/app/actions/runs/42'
const SUMMARY_URL = 'https://github.com/octo/app/actions/runs/42/job/7#summary-7'

const comment = (report: Report, options: { maxLength?: number; summaryUrl?: string } = {}) =>
  renderComment(report, { marker: MARKER, runUrl: RUN_URL, ...options })

const HEADLINES: Record<RunStatus, string> = {
  completed: '### ✅ Copilot completed the task',
  'verify-failed': '### ❌ Copilot completed, but verification failed',
  incomplete: '### ⚠️ Copilot stopped before finishing',
  failed: '### ❌ Copilot run failed',
  'timed-out': '### ⏱ Copilot run timed out',
  cancelled: '### 🛑 Copilot run was cancelled',
  'budget-exceeded': '### 💸 Copilot run stopped: its budget ran out',
  'policy-violation': '### ⛔ Copilot changed files the policy protects (reverted)'
}

const PROBLEMS = '#### 🩺 What went wrong and how to fix it'
const CLAIM = "**The agent's summary**"

/** Where each part of the comment starts (-1 when absent). */
function positions(body: string): Record<string, number> {
  return {
    headline: body.indexOf('\n### '),
    problems: body.indexOf(PROBLEMS),
    claim: body.indexOf(CLAIM),
    plan: body.indexOf('<summary>Plan'),
    denials: body.indexOf('<summary>🚫'),
    metrics: body.indexOf('<sub>')
  }
}

describe('renderComment snapshots', () => {
  it.each(RUN_STATUSES)('renders a %s run', (status) => {
    const body = comment(sampleReport(status), { summaryUrl: SUMMARY_URL })
    expect(body).toMatchSnapshot()
    expectWellFormed(body)
    expect(emptySections(body)).toEqual([])
  })

  it('renders a policy that could not be used', () => {
    const body = comment(badPolicyReport(), { summaryUrl: SUMMARY_URL })
    expect(body).toMatchSnapshot()
    expectWellFormed(body)
  })
})

describe('renderComment: the headline', () => {
  it.each(RUN_STATUSES)('agrees with the status (%s); ✅ only when completed', (status) => {
    const body = comment(sampleReport(status))
    const headings = structure(body).headings
    expect(headings[0]).toBe(HEADLINES[status])
    expect(headings[0]?.includes('✅')).toBe(status === 'completed')
    expect(body.includes('✅ Copilot')).toBe(status === 'completed')
  })

  it('puts the marker first, the evidence and one line of links and facts under the headline', () => {
    const body = comment(sampleReport('completed'))
    expect(body.startsWith(`${MARKER}\n\n### ✅ `)).toBe(true)
    expect(body.split('\n')[4]).toBe('**Verified:** `npm test` ✅ 13 passed')
    const meta = body.split('\n')[6]
    expect(meta).toBe(
      `[workflow run](${RUN_URL}) · ⏱ 3 m 12 s · \`claude-sonnet-4.5\` · Copilot CLI \`1.0.102\` · sandbox 🛡️ enforced`
    )
    const off = comment(sampleReport('completed', { sandbox: { state: 'off' } }))
    expect(off).toContain('· sandbox 🔓 off')
    const none = comment(
      sampleReport('completed', { sandbox: undefined, model: null, commands: [] })
    )
    expect(none.split('\n')[4]).toBe(
      `[workflow run](${RUN_URL}) · ⏱ 3 m 12 s · Copilot CLI \`1.0.102\``
    )
  })

  it('says at the top when no OS sandbox guarded the run, and not when one did', () => {
    const lineUnder = (body: string) => body.split('\n')[4] ?? ''
    const off = comment(sampleReport('completed', { sandbox: { state: 'off' } }))
    expect(lineUnder(off)).toMatch(/^> ⚠️ \*\*Unguarded run:\*\* the policy sets `sandbox: off`/)
    const unavailable = comment(
      sampleReport('completed', { sandbox: { state: 'unavailable', reason: 'no bwrap' } })
    )
    expect(lineUnder(unavailable)).toMatch(
      /^> ⚠️ \*\*Unguarded run:\*\* the OS sandbox could not run/
    )
    expect(comment(sampleReport('completed'))).not.toContain('Unguarded')
  })

  it('links the run only with an http(s) URL', () => {
    const body = renderComment(sampleReport('completed'), {
      marker: MARKER,
      runUrl: 'javascript:alert(1)',
      summaryUrl: 'data:text/html,x'
    })
    expect(body).not.toContain('workflow run')
    expect(body).not.toContain('javascript:')
    expect(body).not.toContain('data:')
    expect(body).not.toContain('Full report')
  })
})

describe('renderComment: sections', () => {
  it('orders them: headline, what went wrong, claim, plan, denials, figures', () => {
    const p = positions(comment(sampleReport('verify-failed')))
    const order = Object.entries(p).sort(([, a], [, b]) => a - b)
    expect(Object.values(p).every((i) => i > 0)).toBe(true)
    expect(order.map(([name]) => name)).toEqual([
      'headline',
      'problems',
      'claim',
      'plan',
      'denials',
      'metrics'
    ])
  })

  it('says what went wrong only when the run did not complete', () => {
    for (const status of RUN_STATUSES) {
      const body = comment(sampleReport(status))
      expect({ status, problems: body.includes(PROBLEMS) }).toEqual({
        status,
        problems: status !== 'completed'
      })
    }
  })

  it('leaves out every section it has nothing for', () => {
    const bare = sampleReport('completed', {
      summary: null,
      plan: { content: '  \n', todos: [] },
      permissions: [],
      permissionCounts: {},
      tools: [],
      toolStats: {},
      commands: []
    })
    const body = comment(bare)
    expect(emptySections(body)).toEqual([])
    const p = positions(body)
    expect([p.problems, p.claim, p.plan, p.denials]).toEqual([-1, -1, -1, -1])
    expect(p.metrics).toBeGreaterThan(0)
    // Not completed, and nothing known: one sentence, no empty parts.
    const cancelled = comment({ ...bare, status: 'cancelled' })
    expect(cancelled).toContain(`${PROBLEMS}\n\n🛑 **The workflow run was cancelled** at 3 m 12 s`)
    expect(emptySections(cancelled)).toEqual([])
  })

  it('marks the summary as the agent’s claim, more clearly when the run did not complete', () => {
    const done = comment(sampleReport('completed'))
    expect(done).toContain(
      "**The agent's summary** (its own words; the action verified that `npm test` passed):\n\n> Fixed"
    )
    expect(comment(sampleReport('completed', { commands: [] }))).toContain(
      "**The agent's summary** (its own words; no verify command ran, so the action checked none of it):"
    )
    for (const status of RUN_STATUSES.filter((s) => s !== 'completed')) {
      const body = comment(sampleReport(status, { summary: 'All done, tests pass.' }))
      expect(body).toMatch(/\*\*The agent's summary\*\* \([^)]*only its claim\):\n\n> All done/)
    }
  })

  it('shows the plan with its todos and counts', () => {
    const body = comment(busyReport())
    expect(body).toContain('<summary>Plan · 3 of 5 todos done</summary>')
    expect(body).toContain('- [x] Todo 1')
    expect(body).toContain('- [ ] Todo 4 _(pending)_')
    expect(body).toContain('> 12. Step 12 of the plan')
    const planOnly = comment(sampleReport('completed', { plan: { content: 'Do it', todos: [] } }))
    expect(planOnly).toContain('<summary>Plan</summary>\n\n> Do it\n\n</details>')
  })
})

describe('renderComment: what went wrong', () => {
  it('shows the failing command with the end of its output, at most 30 lines', () => {
    const report = sampleReport('verify-failed')
    const verify = report.commands[1]!
    verify.outputTail = Array.from({ length: 200 }, (_, i) => `out ${i + 1}`).join('\n')
    const body = comment(report)
    expect(body).toContain(
      'The verify command `npm test` failed with exit code 1 after 4.1 s.\n\nThe end of its output:\n\n```text\n… 170 earlier lines cut\nout 171\n'
    )
    expect(body).toContain('out 200\n```')
    expect(body).not.toContain('out 170\n')
    // The error repeats what the command says: left out.
    expect(body).not.toContain('**Error:** The agent said it completed the task')
  })

  it('keeps the failing output under 2,500 characters', () => {
    const report = sampleReport('verify-failed')
    report.commands[1]!.outputTail = Array.from({ length: 40 }, () => 'y'.repeat(300)).join('\n')
    const block = /The end of its output:\n\n```text\n([\s\S]*?)\n```/.exec(comment(report))?.[1]
    expect(block).toBeDefined()
    expect(block!.length).toBeLessThanOrEqual(2500)
    expect(block!.split('\n').length).toBeLessThanOrEqual(31)
  })

  it('says when a command timed out, and that a failed setup kept the agent from starting', () => {
    const report = sampleReport('failed', {
      error: {
        message: 'Setup command `npm ci` timed out after 10 min; the agent was not started.',
        type: 'setup-command'
      },
      commands: [
        {
          phase: 'setup',
          command: 'npm ci',
          exitCode: null,
          timedOut: true,
          durationMs: 600_000,
          outputTail: 'npm WARN deprecated'
        }
      ]
    })
    const body = comment(report)
    expect(body).toContain(
      'The setup command `npm ci` timed out after 10 m 00 s. The agent was not started.'
    )
    expect(body).toContain('**How to fix it:** Fix the setup command')
  })

  it('gives the error with a fix when the cause is known', () => {
    const cases: [Report, string][] = [
      [sampleReport('timed-out'), 'Raise `timeout-minutes`'],
      [sampleReport('incomplete'), 'raise `max-autopilot-continues`'],
      [sampleReport('failed'), 're-running the job usually helps'],
      [
        sampleReport('failed', {
          error: { message: 'HTTP 401: Unauthorized', type: 'session' }
        }),
        '"Copilot Requests" permission'
      ],
      [
        sampleReport('failed', { error: { message: 'rate limit exceeded (429)', type: 'x' } }),
        'Wait for the rate limit'
      ]
    ]
    for (const [report, fix] of cases) {
      const body = comment(report)
      expect(body).toContain(`**Error:** `)
      expect(body).toMatch(new RegExp(`\\*\\*How to fix it:\\*\\* [^\\n]*${escape(fix)}`))
    }
    const cancelled = comment(sampleReport('cancelled'))
    expect(cancelled).toContain('🛑 **The workflow run was cancelled** at 3 m 12 s')
    expect(cancelled).not.toContain('**Error:**') // said once
    expect(cancelled).not.toContain('How to fix it')
  })

  it('keeps code spans in the error literal', () => {
    const body = comment(
      sampleReport('failed', { error: { message: 'bad `a < b` in @config', type: 'x' } })
    )
    expect(body).toContain('**Error:** bad `a < b` in @\u200Dconfig')
  })

  it('lists the last denials of a run that did not complete, with the rule to add', () => {
    const body = comment(sampleReport('incomplete'))
    expect(body).toContain('**Denied by the policy** (the last 2 denials):')
    expect(body).toContain(
      '- 🚫 `shell` `git push origin main` — rule `no-push`: Pushing is done by the workflow.\n'
    )
    expect(body).not.toMatch(/Rule "no-push"/) // its reason says it all
    expect(body).toContain('- 🚫 `url` `https://example.com/` — no rule matched (default deny).')
    expect(body).toContain(
      'Add to the policy\'s `rules:`:\n\n  ```yaml\n  - decision: allow\n    url: ["https://example.com/"]\n  ```'
    )
    expect(comment(sampleReport('completed'))).not.toContain('Denied by the policy')
  })

  it('shows at most the last 3 denials, one per request', () => {
    const body = comment(busyReport('failed'))
    const section = body.slice(body.indexOf('**Denied by the policy**'), body.indexOf(CLAIM))
    expect(section).toContain('(the last 3 denials)')
    expect(section.match(/^- 🚫 /gm)).toHaveLength(3)
    expect(new Set(section.match(/^- 🚫 [^—]*/gm)).size).toBe(3)
  })

  it('says when the CLI refused the agent’s task_complete', () => {
    const report = sampleReport('incomplete', {
      summary: 'Done!',
      completion: { state: 'rejected', reason: 'not applicable in the current mode (plan)' },
      error: {
        message: 'The agent called task_complete, but the Copilot CLI refused it.',
        type: 'task-complete-rejected'
      }
    })
    const body = comment(report)
    expect(body).toContain(
      '⛔ The agent called `task_complete`, but the Copilot CLI refused it: not applicable in the current mode (plan). Whatever its summary says, the task is not complete.'
    )
    expect(body).not.toContain('**Error:**') // said once, not twice
    expect(body).toContain(
      '(its own words; the CLI refused its task_complete, so this is only its claim)'
    )
  })

  it('names a tool the agent could not use, once; a missing path is not that', () => {
    const report = sampleReport('completed')
    const ask = {
      toolCallId: 'a1',
      name: 'ask_user',
      outcome: 'failed' as const,
      success: false,
      durationMs: 3,
      error: 'Tool ask_user is not available'
    }
    report.tools.push(ask, { ...ask, toolCallId: 'a2' })
    report.tools.push({
      toolCallId: 'z',
      name: 'fetch_docs',
      outcome: 'failed',
      success: false,
      durationMs: 1,
      error: 'unknown tool: fetch_docs'
    })
    const body = comment(report)
    expect(body).toContain(PROBLEMS) // completed, but something to fix
    expect(
      body.match(/tried to use `ask_user`, which is not available in autopilot/g)
    ).toHaveLength(1)
    expect(body).toContain(
      'tried to use `fetch_docs`, which is not available (unknown tool: fetch_docs).'
    )
    expect(body).not.toContain('tried to use `view`') // "Path does not exist"
  })
})

describe('renderComment: a policy that could not be used', () => {
  it('has only the headline, the errors and where to read more', () => {
    const body = comment(badPolicyReport(12), { summaryUrl: SUMMARY_URL })
    expect(structure(body).headings).toEqual(['### ❌ The policy file is invalid'])
    expect(body).toContain(
      'The policy `.github/copilot-policy.yml` has 12 errors; the run did not start.'
    )
    const items = body.match(/^- `\.github\/copilot-policy\.yml:\d+:\d+`: .*$/gm) ?? []
    expect(items).toHaveLength(10)
    expect(items[0]).toBe(
      '- `.github/copilot-policy.yml:4:5`: unknown key "alow" — did you mean "allow"?'
    )
    expect(items[1]).toBe(
      '- `.github/copilot-policy.yml:7:5`: rule 1: `shell` must be a list — write `shell: ["npm test"]`'
    )
    expect(body).toContain('- … 2 more errors')
    expect(body).toContain(`Details: [job summary](${SUMMARY_URL}) · [workflow run](${RUN_URL})`)
    for (const absent of [PROBLEMS, CLAIM, '<details>', '<sub>', '⏱']) {
      expect(body).not.toContain(absent)
    }
    expect(comment(badPolicyReport(1))).toContain('has 1 error;')
  })
})

describe('renderComment: denials', () => {
  it('groups them by rule, each rule once, with count, reason and a few targets', () => {
    const body = comment(busyReport())
    const section = /<summary>(🚫[^<]*)<\/summary>\n\n([\s\S]*?)\n\n<\/details>/.exec(body)
    expect(section?.[1]).toBe('🚫 10 requests denied by the policy (3 causes)')
    const lines = section?.[2]?.split('\n') ?? []
    expect(lines).toEqual([
      '- rule `no-push` (6) — Pushing is done by the workflow. — `git push origin HEAD`, `git push --force origin HEAD`',
      '- rule `no-network` (2) — No downloads. — `curl -sSL https://get.example.com/install.sh`',
      '- no rule matched (default deny) (2) — `https://registry.npmjs.org/left-pad`'
    ])
  })

  it('shows at most 3 targets a rule, and says how many more', () => {
    const report = sampleReport('completed')
    const base = report.permissions[1]!
    report.permissions = Array.from({ length: 5 }, (_, i) => ({
      ...base,
      requestId: `d${i}`,
      subject: `git push origin b${i}`
    }))
    report.permissionCounts = { shell: { allow: 0, deny: 5 } }
    const body = comment(report)
    expect(body).toContain(
      '- rule `no-push` (5) — Pushing is done by the workflow. — `git push origin b0`, `git push origin b1`, `git push origin b2`, and 2 more'
    )
  })

  it('says when denials were not kept in the report', () => {
    const report = sampleReport('completed', {
      permissionCounts: { shell: { allow: 1, deny: 40 }, url: { allow: 0, deny: 1 } }
    })
    const body = comment(report)
    expect(body).toContain('<summary>🚫 41 requests denied by the policy (2 causes)</summary>')
    expect(body).toContain('- … 39 more denials not kept in the report (the counts include them)')
  })
})

describe('renderComment: the figures', () => {
  it('are one line, denials not counted as failures', () => {
    const body = comment(busyReport(), { summaryUrl: SUMMARY_URL })
    const sub = body.split('\n').filter((l) => l.startsWith('<sub>'))
    expect(sub).toEqual([
      `<sub>41.25 AI credits ($0.41) · 23 premium requests · 23 model requests · 1.3M tokens: 1.3M input (900k cache read, 12k cache write) + 47.7k output (\`claude-sonnet-4.5\` 1.3M, \`gpt-5-mini\` 32k) · 20 allowed / 10 denied permissions · session \`b6f5c1d2-0000-4000-8000-000000000001\` · Full report: [job summary](${SUMMARY_URL})<br>AI credits are what Copilot bills (1 credit = USD 0.01, metered on tokens); premium requests are the older unit, shown while the CLI reports them; model requests count every call to the model, tool turns included.</sub>`
    ])
    expect(body).toContain(
      '🔧 **60 tool calls:** bash 18 · edit 10 · glob 10 · grep 10 · view 9 · web_fetch 2 · task 1 — 3 failed, 10 denied'
    )
  })

  it('name models only when there is more than one, and link the run without a summary URL', () => {
    const body = comment(sampleReport('completed'))
    const sub = body.split('\n').find((l) => l.startsWith('<sub>')) ?? ''
    expect(sub).toContain(
      '· 77k tokens: 70k input (35k cache read, 3.5k cache write) + 7k output ·'
    )
    expect(body).toContain('🔧 **8 tool calls:**')
    expect(sub).toContain(`Full report: [job summary](${RUN_URL})`)
    expect(sub).not.toContain('`claude-sonnet-4.5`')
  })
})

describe('renderComment: untrusted text', () => {
  it('keeps code in the summary literal, neutralizes the prose around it', () => {
    const report = sampleReport('completed', {
      summary:
        'Made `a < b && c > d` true.\n\n```ts\nif (a < b) notify("@team")\n```\n\nThanks @octocat, fixes #12 </details>'
    })
    const body = comment(report)
    expect(body).toContain('> Made `a < b && c > d` true.')
    expect(body).toContain('> ```ts\n> if (a < b) notify("@team")\n> ```')
    expect(body).toContain('> Thanks @\u200Doctocat, fixes #\u200B12 &lt;/details&gt;')
    const text = prose(body)
    expect(text).not.toMatch(/(^|[^A-Za-z0-9])@[A-Za-z0-9]/)
    expect(text).not.toMatch(/#\d/)
  })

  it('does not let an unclosed fence in the summary swallow what follows', () => {
    const report = sampleReport('completed', {
      summary: 'Here:\n```\nunclosed <b> @x\n\n</details>\n# Owned'
    })
    const body = comment(report)
    expectWellFormed(body)
    expect(structure(body).headings).toEqual(['### ✅ Copilot completed the task'])
    // The plan and the figures are outside any fence.
    const after = body.slice(body.indexOf('<details>'))
    expect(structure(after).unclosedFence).toBe(false)
    expect(prose(body)).toContain('<summary>Plan')
    expect(prose(body)).toContain('<sub>')
  })

  it('neutralizes @mentions and issue references everywhere', () => {
    const report = sampleReport('failed', {
      summary: 'Thanks @octocat and @octo/reviewers; fixes #12, octo/app#13, GH-14',
      error: { message: 'see https://github.com/octo/app/issues/15 @admin', type: 'x' },
      plan: {
        content: 'ask @someone about #16',
        todos: [{ id: '1', title: 'ping @ops', status: 'blocked' }]
      }
    })
    report.permissions[1]!.reason = 'rule by @security-team, see #17'
    const body = comment(report)
    const text = prose(body)
    expect(text).not.toMatch(/(^|[^A-Za-z0-9])@[A-Za-z0-9]/)
    expect(text).not.toMatch(/#\d/)
    expect(text).not.toMatch(/\bGH-\d/)
    expect(text).not.toContain('https://github.com/octo/app/issues')
    expect(body).toContain('@\u200Doctocat')
  })

  it('does not let ``` or </details> anywhere break out of their block', () => {
    const attack = '```\n</details>\n\n# Owned\n<details><summary>x</summary>\n````'
    const report = sampleReport('failed', {
      summary: attack,
      error: { message: attack, type: attack },
      lastActivity: [attack],
      plan: { content: attack, todos: [{ id: '1', title: attack, status: attack }] },
      completion: { state: 'rejected', reason: attack }
    })
    report.commands[0]!.outputTail = attack
    report.commands[0]!.command = attack
    report.commands[0]!.exitCode = 1
    report.permissions[1]!.subject = attack
    report.permissions[1]!.reason = attack
    report.permissions[1]!.rule = attack
    report.metrics.models = { [attack]: report.metrics.models['claude-sonnet-4.5']! }
    report.model = attack
    report.sessionId = attack
    const body = comment(report)
    expectWellFormed(body)
    expect(structure(body).headings.some((h) => h.includes('Owned'))).toBe(false)
    const outside = prose(body)
    expect(outside.match(/<\/details>/g)?.length).toBe(outside.match(/<details( open)?>/g)?.length)
    expect(outside).not.toContain('<summary>x')
  })

  it('keeps HTML comments out: only the marker is one', () => {
    const report = sampleReport('failed', {
      summary: 'done <!-- copilot-autopilot:comment --> `<!-- x -->` <!-- unterminated',
      lastActivity: ['said: <!-- copilot-autopilot:comment -->']
    })
    report.commands[0]!.outputTail = '<!-- copilot-autopilot:comment -->'
    report.commands[0]!.exitCode = 2
    const body = comment(report)
    expect(body.split('<!--')).toHaveLength(2)
    expect(body.indexOf(MARKER)).toBe(0)
  })

  it('redacts secrets given at render time', () => {
    const report = sampleReport('failed', { summary: `token ${SECRET}` })
    report.commands[0]!.exitCode = 1
    report.commands[0]!.outputTail = `curl -H ${SECRET}`
    const body = renderComment(report, { marker: MARKER, secrets: [SECRET] })
    expect(body).not.toContain(SECRET)
    expect(body).toContain('curl -H ***')
  })
})

describe('renderComment: size', () => {
  it('stays under 8,000 characters for a run with 60 calls, 10 denials and 2 commands', () => {
    const report = busyReport()
    expect(report.tools).toHaveLength(60)
    expect(report.permissions.filter((p) => p.decision === 'deny')).toHaveLength(10)
    expect(report.commands).toHaveLength(2)
    for (const status of RUN_STATUSES) {
      const body = comment({ ...report, status })
      expect({ status, length: body.length < 8000 }).toEqual({ status, length: true })
    }
  })

  it('stays under 8,000 characters with the prompt, 40 changed files and 6 verify commands', () => {
    const report = busyReport()
    report.changes = {
      base: 'abc',
      files: Array.from({ length: 40 }, (_, i) => ({
        path: `src/components/feature-${i}/index.tsx`,
        change: 'modified' as const,
        added: 10 * i,
        removed: i
      }))
    }
    for (let i = 0; i < 6; i++) {
      report.commands.push({
        phase: 'verify',
        command: `npm run check:${i}`,
        exitCode: i % 2,
        timedOut: false,
        durationMs: 1000,
        outputTail: 'Tests:       1 failed, 40 passed, 41 total'
      })
    }
    const prompt = 'Fix the failing checkout tests. '.repeat(100)
    for (const status of RUN_STATUSES) {
      const body = renderComment(
        { ...report, status },
        { marker: MARKER, runUrl: RUN_URL, summaryUrl: SUMMARY_URL, prompt }
      )
      expect({ status, length: body.length < 8000 }).toEqual({ status, length: true })
      expect(body).toContain('🔧 **60 tool calls:**')
      expect(body).toContain('+7,800 −780 in 40 files')
    }
  })

  it('keeps a giant report under GitHub’s limit with the headline, the figures and a note', () => {
    expect(GITHUB_COMMENT_LIMIT).toBe(65_536)
    expect(COMMENT_MAX_LENGTH).toBeLessThan(GITHUB_COMMENT_LIMIT)
    const body = comment(giantReport())
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_LENGTH)
    expect(body.startsWith(`${MARKER}\n\n### ❌ Copilot run failed`)).toBe(true)
    expect(body).toContain(PROBLEMS)
    expect(body).toContain('<sub>41.25 AI credits ($0.41) · 7 premium requests')
    expectWellFormed(body)
    // Tighter: trimmed, and says what was.
    const tight = comment(giantReport(), { maxLength: 12_000 })
    expect(tight.length).toBeLessThanOrEqual(12_000)
    expect(tight).toContain('<sub>41.25 AI credits ($0.41) · 7 premium requests')
    const note = /✂️ Trimmed to stay under 12,000 characters: ([^.]+)\./.exec(tight)
    expect(note?.[1]).toContain('plan')
    expect(note?.[1]).toContain('summary')
    expectWellFormed(tight)
  })

  it('honours any limit, trimming only what is needed', () => {
    const report = giantReport()
    for (const maxLength of [40_000, 20_000, 8_000, 3_000]) {
      const body = comment(report, { maxLength })
      expect(body.length).toBeLessThanOrEqual(maxLength)
      expect(body).toContain('### ❌ Copilot run failed')
    }
    expect(comment(busyReport())).not.toContain('Trimmed')
  })
})

describe('relativePath', () => {
  it('shows paths relative to the working directory or the runner checkout', () => {
    expect(relativePath(`${ROOT}/src/x.ts`, ROOT)).toBe('src/x.ts')
    expect(relativePath('/ws/a/b.ts', '/ws/')).toBe('a/b.ts')
    expect(relativePath('/wsx/a.ts', '/ws')).toBe('/wsx/a.ts')
    expect(relativePath('/home/runner/work/r/r/src/x.ts')).toBe('src/x.ts')
  })
})

describe('renderWorking', () => {
  it('says the run started, links it and quotes the prompt safely', () => {
    const body = renderWorking({
      startedAt: START,
      runUrl: RUN_URL,
      prompt: `Fix #12 for @octocat </details> <!-- copilot-autopilot:comment --> ${SECRET}`,
      secrets: [SECRET]
    })
    expect(body).toMatchSnapshot()
    expect(body).toContain('Started 2026-11-22 10:00 UTC · [Workflow run](')
    expect(body).not.toContain('<!--')
    expect(body).not.toContain(SECRET)
    expectWellFormed(body)
    expect(
      renderWorking({ startedAt: START, marker: MARKER }).startsWith(`${MARKER}\n\n### ⏳`)
    ).toBe(true)
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
