import { SUMMARY_MAX_LENGTH, renderComment, renderSummary } from '../../src/reporting/render.js'
import { RUN_STATUSES, type Report, type ToolCallRecord } from '../../src/reporting/types.js'
import {
  ROOT,
  badPolicyReport,
  busyReport,
  emptySections,
  expectWellFormed,
  giantReport,
  prose,
  sampleReport,
  structure
} from './sample-reports.js'

const RUN_URL = 'https://github.com/octo/app/actions/runs/42'
const summary = (report: Report, maxLength?: number) =>
  renderSummary(report, { runUrl: RUN_URL, ...(maxLength ? { maxLength } : {}) })

/** The block of the calls list. */
function callsOf(body: string): string[] {
  const m = /<summary>Calls \([^)]*\)<\/summary>\n\n([\s\S]*?)\n\n<\/details>/.exec(body)
  return m?.[1]?.split('\n') ?? []
}

describe('renderSummary', () => {
  it.each(RUN_STATUSES)('starts as the comment does (%s), without a marker', (status) => {
    const report = sampleReport(status)
    const body = summary(report)
    const comment = renderComment(report, { marker: '<!-- m -->', runUrl: RUN_URL })
    // Headline, what went wrong and claim: the same text in both (the comment then has the
    // files changed and the tools by name, which the summary has in its own sections).
    const ends = ['\n\n**📝', '\n\n🔧', '\n\n<details>\n<summary>Plan']
      .map((end) => comment.indexOf(end))
      .filter((i) => i > 0)
    const shared = comment.slice('<!-- m -->\n\n'.length, Math.min(...ends))
    expect(shared.length).toBeGreaterThan(100)
    expect(body.startsWith(shared)).toBe(true)
    // and the plan, the same
    const plan = (text: string) =>
      text.slice(
        text.indexOf('<summary>Plan'),
        text.indexOf('</details>', text.indexOf('<summary>Plan'))
      )
    expect(plan(body)).toBe(plan(comment))
    expect(body.startsWith('### ')).toBe(true)
    expectWellFormed(body)
    expect(emptySections(body)).toEqual([])
  })

  it('has the sections in order, the tool calls after the plan', () => {
    const body = summary(busyReport())
    expect(structure(body).headings.map((h) => h.replace(/ ·.*/, ''))).toEqual([
      '### ❌ Copilot completed, but verification failed',
      '#### 🩺 What went wrong and how to fix it',
      '#### 🔧 Tool calls',
      '#### 🔐 Permissions',
      '#### 🧪 Setup and verify commands',
      '#### 📊 Usage'
    ])
    expect(body.indexOf('<summary>Plan')).toBeLessThan(body.indexOf('#### 🔧 Tool calls'))
    expect(body.indexOf("**The agent's summary**")).toBeLessThan(body.indexOf('<summary>Plan'))
  })

  it('has a table per tool, denied calls apart from failed ones', () => {
    const body = summary(sampleReport('completed'))
    expect(body).toContain('#### 🔧 Tool calls · 8 calls (1 failed, 2 denied) · 47.8 s')
    expect(body).toContain('| Tool | Calls | Succeeded | Failed | Denied | Time |')
    expect(body).toContain('| `bash` | 2 | 1 | 0 | 1 | 2.4 s |')
    expect(body).toContain('| `view` | 2 | 1 | 1 | 0 | 32 ms |')
    expect(body).toContain('| `web_fetch` | 1 | 0 | 0 | 1 | 0 ms |')
  })

  it('lists every call with its target, outcome, duration and error', () => {
    const lines = callsOf(summary(sampleReport('completed')))
    expect(lines.slice(0, 4)).toEqual([
      '- ✅ `bash` `npm test` · 2.4 s',
      '- ❌ `view` `src/missing.ts` · 12 ms · failure: Path does not exist',
      '- 🚫 `bash` `git push origin main` · denied by rule `no-push`: Pushing is done by the workflow.',
      '- ✅ `edit` `src/sum.ts` · 300 ms'
    ])
  })

  it('groups a subagent’s calls under it', () => {
    const lines = callsOf(summary(sampleReport('completed')))
    expect(lines.slice(4)).toEqual([
      '- 🤖 subagent `explore` — Find the tests for sum() · ✅ completed · 45.0 s',
      '  - ✅ `grep` `sum\\(` · 150 ms',
      '  - ✅ `view` `src/sum.test.ts` · 20 ms',
      '  - 🚫 `web_fetch` `https://example.com/` · denied: no rule matched (default deny)'
    ])
  })

  it('groups calls under their subagent when its task call was not kept', () => {
    const report = sampleReport('completed')
    report.tools = report.tools.filter((t) => t.toolCallId !== 'c5')
    report.subagents = [
      { toolCallId: 'c5', name: 'explore', outcome: 'failed', error: 'model error' }
    ]
    const lines = callsOf(summary(report))
    const at = lines.indexOf('- 🤖 subagent `explore` · ❌ failed · model error')
    expect(at).toBeGreaterThan(0)
    expect(lines.slice(at + 1)).toEqual([
      '  - ✅ `grep` `sum\\(` · 150 ms',
      '  - ✅ `view` `src/sum.test.ts` · 20 ms',
      '  - 🚫 `web_fetch` `https://example.com/` · denied: no rule matched (default deny)'
    ])
    // A parent nobody knows: its calls still stay together.
    report.subagents = []
    const unknown = callsOf(summary(report))
    expect(unknown).toContain('- 🤖 subagent `c5` (its call was not kept)')
  })

  it('names each subagent with its call count, and the premium quota left', () => {
    const report = sampleReport('completed')
    // a report from before `calls` was kept: the calls kept under it are counted
    expect(summary(report)).toContain('**Subagents:** 🤖 `explore` (3 calls)')
    report.subagents = [
      { toolCallId: 'c5', name: 'explore', outcome: 'completed', calls: 12 },
      { toolCallId: 'c9', name: 'fixer `x` @admin', outcome: 'failed', calls: 1 },
      { toolCallId: 'c10', name: 'slow', outcome: 'running' }
    ]
    report.quota = {
      premiumRemaining: 228,
      premiumEntitlement: 300,
      premiumUsed: 72,
      remainingPercentage: 76,
      unlimited: false,
      overage: 0,
      resetDate: '2026-12-01T00:00:00.000Z'
    }
    const body = summary(report)
    const line = body.split('\n').find((l) => l.startsWith('**Subagents:**'))
    expect(line).toMatch(
      /^\*\*Subagents:\*\* 🤖 `explore` \(12 calls\), `{2,}.*` \(1 call, failed\), `slow` \(0 calls, unfinished\)/
    )
    // the name the model gave is code: no mention, no markup
    expect(line).toContain('``fixer `x` @admin``')
    expect(body).toContain('**Premium requests quota:** 228 of 300 left (76%); resets 2026-12-01')
    report.quota = { premiumUsed: 9, remainingPercentage: 100, unlimited: true, overage: 0 }
    expect(summary(report)).toContain('**Premium requests quota:** unlimited (9 used this period)')
    delete report.quota
    report.subagents = []
    expect(summary(report)).not.toMatch(/\*\*(Subagents|Premium requests quota):/)
    expectWellFormed(summary(report))
  })

  it('does not list internal calls, only counts them', () => {
    const body = summary(sampleReport('completed'))
    expect(body).toContain('4 internal CLI calls not shown.')
    expect(body).not.toContain('report_intent')
    expect(summary(sampleReport('completed', { internalCalls: 0 }))).not.toContain('internal')
  })

  it('has the full decision log, denials first', () => {
    const body = summary(sampleReport('completed'))
    const log =
      /<summary>Decision log \(4 decisions\)<\/summary>\n\n([\s\S]*?)\n\n<\/details>/.exec(
        body
      )?.[1]
    expect(log?.split('\n')).toEqual([
      '| | Kind | Subject | Rule | Reason |',
      '| --- | --- | --- | --- | --- |',
      '| 🚫 deny | `shell` | `git push origin main` | `no-push` | Pushing is done by the workflow. |',
      '| 🚫 deny | `url` | `https://example.com/` | no rule matched (default deny) |  |',
      '| ✅ allow | `shell` | `npm test` | `tests` |  |',
      '| ✅ allow | `write` | `src/sum.ts` | `src` |  |'
    ])
  })

  it('has the commands with their output, the models, the files, the sandbox and the policy', () => {
    const body = summary(sampleReport('verify-failed'))
    expect(body).toContain('**verify** `npm test` · ❌ exit 1 · 4.1 s')
    expect(body).toContain('Tests:       1 failed, 12 passed, 13 total\n```')
    expect(body).toContain('| `claude-sonnet-4.5` | 7 | 77,000 | 70,000 | 35,000 | 3,500 | 7,000 |')
    expect(body).toContain('- `src/sum.ts`\n- `/tmp/outside.txt`')
    expect(body).toContain('**Policy:** `.github/copilot-policy.yml`')
    expect(body).toContain('**Sandbox:** 🛡️ enforced (`bubblewrap`)')
    const builtIn = summary(
      sampleReport('completed', { policy: { source: 'built-in:read-only', builtIn: true } })
    )
    expect(builtIn).toContain('the built-in read-only policy applied')
  })

  it("says the checkout's credentials were out of .git/config during the session", () => {
    const removed = ['.git/config: http.https://github.com/.extraheader']
    const back = summary(sampleReport('completed', { credentials: { removed, restored: true } }))
    expect(back).toContain(
      '**Sandbox:** 🛡️ enforced (`bubblewrap`)' +
        ": the agent's shell commands ran confined to the workspace (read-only inside it: `.github`, `.git/config`, `.git/hooks`), without network beyond the policy's hosts  \n" +
        '**Workspace audit:** 2 paths changed while the agent worked; nothing the write rules forbid  \n' +
        '**Credentials:** 🔑 Checkout credentials taken out of .git/config during the session and put back\n'
    )
    const failed = summary(
      sampleReport('completed', {
        credentials: { removed, restored: false, error: '.git/config: its directory is gone' }
      })
    )
    expect(failed).toContain(
      '**Credentials:** ⚠️ Checkout credentials taken out of .git/config during the session, not put back: .git/config: its directory is gone (the post step tries again)'
    )
    expect(summary(sampleReport('completed'))).not.toContain('**Credentials:**')
    expect(
      summary(sampleReport('completed', { credentials: { removed: [], restored: true } }))
    ).not.toContain('**Credentials:**')
  })

  it('leaves out what a run did not have', () => {
    const body = summary(
      sampleReport('completed', {
        tools: [],
        toolStats: {},
        internalCalls: 0,
        commands: [],
        plan: { content: null, todos: [] }
      })
    )
    expect(body).not.toContain('#### 🔧')
    expect(body).not.toContain('#### 🧪')
    expect(body).not.toContain('<summary>Plan')
    expect(emptySections(body)).toEqual([])
  })

  it('renders a policy that could not be used: the errors, all of them', () => {
    const body = summary(badPolicyReport(12))
    expect(structure(body).headings).toEqual(['### ❌ The policy file is invalid'])
    expect(body.match(/^- `\.github\/copilot-policy\.yml:\d+:\d+`: /gm)).toHaveLength(12)
    expect(body).toContain(`Details: [workflow run](${RUN_URL})`)
  })

  it('renders old reports from the records: no aggregates, no outcome', () => {
    const report = sampleReport('completed')
    delete report.toolStats
    delete report.permissionCounts
    report.tools = report.tools.map((t) => {
      const { outcome: _outcome, ...rest } = t
      return rest as ToolCallRecord
    })
    const body = summary(report)
    expect(body).toContain('| `bash` | 2 | 1 | 0 | 1 | 2.4 s |')
    expect(body).toContain('#### 🔐 Permissions · 2 allowed, 2 denied')
    expect(body).toContain('- 🚫 `bash` `git push origin main` · denied by rule `no-push`')
  })

  it('keeps untrusted text in the call list and the log safe', () => {
    const attack = '`x` </details> @admin #1 <!-- m -->'
    const report = sampleReport('failed')
    report.tools[1]!.error = attack
    report.tools[1]!.target = attack
    report.permissions[1]!.reason = attack
    report.permissions[1]!.subject = attack
    report.subagents![0]!.description = attack
    const body = summary(report)
    expectWellFormed(body)
    const text = prose(body)
    expect(text).not.toContain('</details> @')
    expect(text).not.toMatch(/(^|[^A-Za-z0-9])@[A-Za-z0-9]/)
    expect(body).not.toContain('<!--')
  })
})

describe('renderSummary: size', () => {
  it('keeps a giant report under the limit, trimming the least important first', () => {
    const body = summary(giantReport())
    expect(body.length).toBeLessThanOrEqual(SUMMARY_MAX_LENGTH)
    expect(body).toContain('#### 📊 Usage')
    expect(body).toContain('7 premium requests')
    const note = /✂️ Trimmed to stay under 300,000 characters: ([^.]+)\./.exec(body)
    expect(note?.[1]?.split(', ')[0]).toBe('tool calls list')
    expectWellFormed(body)
  })

  it('honours any limit', () => {
    const report = giantReport()
    for (const maxLength of [200_000, 50_000, 20_000, 8_000]) {
      const body = summary(report, maxLength)
      expect(body.length).toBeLessThanOrEqual(maxLength)
      expect(body).toContain('### ❌ Copilot run failed')
    }
    expect(summary(busyReport())).not.toContain('Trimmed')
  })

  it('drops succeeded calls before failed ones', () => {
    const report = giantReport()
    const body = summary(report, 200_000)
    const lines = callsOf(body)
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.some((l) => l.startsWith('- ❌'))).toBe(true)
    // A call that succeeded is left only to show the failed calls made inside it.
    lines.forEach((line, i) => {
      if (!/^\s*- ✅/.test(line)) return
      expect({ line, next: lines[i + 1]?.startsWith('  - ❌') }).toEqual({ line, next: true })
    })
  })

  it('shows paths relative to the working directory', () => {
    const body = summary(sampleReport('completed', { workingDirectory: `${ROOT}/src` }))
    expect(body).toContain('- `sum.ts`')
  })
})

describe('MCP servers and the custom agent', () => {
  const report = sampleReport('completed', {
    agent: { name: 'reviewer', file: '.github/agents/reviewer.agent.md', selected: true },
    mcpServers: [
      { name: 'github', type: 'http', status: 'connected', tools: 12, calls: 3, denied: 1 },
      {
        name: 'db',
        type: 'local',
        status: 'failed',
        error: 'exited: <img src=x onerror=alert(1)> | @team [x](https://evil.example)',
        calls: 0,
        denied: 0
      }
    ]
  })

  it('the comment names the agent, warns about a server that did not start, and counts calls', () => {
    const body = renderComment(report, { marker: '<!-- m -->', runUrl: RUN_URL })
    expectWellFormed(body)
    expect(body).toContain('agent `reviewer`')
    expect(body).toMatch(/MCP servers the agent could not use[\s\S]*- `db` is failed: exited:/)
    expect(body).toContain('MCP `github` 3 calls, 1 denied, `db` failed 0 calls')
    // untrusted text from the server is neutralized, not rendered: no HTML, link or mention
    expect(body).not.toContain('<img')
    expect(body).toContain('&lt;img')
    expect(body).not.toContain('[x](https://evil')
    expect(body).not.toMatch(/(^|[^`])@team/)
  })

  it('the job summary has a row per server', () => {
    const body = summary(report)
    expectWellFormed(body)
    expect(body).toContain('#### 🔌 MCP servers')
    expect(body).toContain('| `github` | `http` | `connected` | 12 | 3 | 1 |  |')
    // the server's error stays literal, inside a code span
    expect(body).toContain(
      '| `db` | `local` | `failed` |  | 0 | 0 | `exited: <img src=x onerror=alert(1)> \\| @team [x](https://evil.example)` |'
    )
  })

  it('says nothing of servers or an agent when the run had none', () => {
    const plain = sampleReport('completed')
    expect(renderComment(plain, { marker: '<!-- m -->', runUrl: RUN_URL })).not.toMatch(
      /MCP|agent `/
    )
    expect(summary(plain)).not.toContain('MCP servers')
  })
})
