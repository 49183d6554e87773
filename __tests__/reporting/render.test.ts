import { ReportBuilder } from '../../src/reporting/report.js'
import {
  COMMENT_MAX_LENGTH,
  formatDuration,
  relativePath,
  renderComment,
  renderSummary,
  renderWorking
} from '../../src/reporting/render.js'
import type { Report, RunStatus, ToolCallRecord } from '../../src/reporting/types.js'
import { SECRET, START, play, recordedSession, sampleReport } from './fixtures.js'

const MARKER = '<!-- copilot-autopilot:comment -->'
const RUN_URL = 'https://github.com/octo/app/actions/runs/42'
const STATUSES: RunStatus[] = ['completed', 'incomplete', 'failed', 'timed-out', 'cancelled']

const comment = (report: Report, maxLength?: number): string =>
  renderComment(report, { marker: MARKER, runUrl: RUN_URL, ...(maxLength ? { maxLength } : {}) })

/**
 * The block structure as GitHub would see it, from column 0: fenced code blocks (backtick fences
 * of 3+), `<details>` open/close lines and section headings outside them.
 */
function structure(markdown: string): {
  unclosedFence: boolean
  details: string[]
  headings: string[]
} {
  let fence: string | null = null
  const details: string[] = []
  const headings: string[] = []
  for (const line of markdown.split('\n')) {
    if (fence !== null) {
      if (line.trimEnd() === fence || (line.startsWith(fence) && /^`+\s*$/.test(line))) fence = null
      continue
    }
    const open = /^(`{3,})/.exec(line)
    if (open) {
      fence = open[1] as string
      continue
    }
    if (/^<details( open)?>$/.test(line)) details.push('open')
    if (line === '</details>') details.push('close')
    if (/^#{1,6} /.test(line)) headings.push(line)
  }
  return { unclosedFence: fence !== null, details, headings }
}

/** Balanced, non-nested <details> (the renderer never nests them). */
function expectWellFormed(markdown: string): void {
  const { unclosedFence, details } = structure(markdown)
  expect(unclosedFence).toBe(false)
  expect(details.join(',')).toBe(
    Array(details.length / 2)
      .fill('open,close')
      .join(',')
  )
}

/** The text outside code spans and fenced code (where GitHub would ping and link). */
function prose(markdown: string): string {
  return markdown
    .replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '')
    .replace(/(?<![`\\])(`+)(?!`).*?(?<!`)\1(?!`)/g, '')
}

describe('renderComment snapshots', () => {
  it.each(STATUSES)('renders a %s run', (status) => {
    const body = comment(sampleReport(status))
    expect(body).toMatchSnapshot()
    expectWellFormed(body)
  })

  it('renders a report folded from a recorded session, with the built-in policy', () => {
    const b = new ReportBuilder({
      startedAt: START,
      model: null,
      cliVersion: '1.0.102',
      policy: { source: 'built-in:read-only', builtIn: true },
      secrets: [SECRET],
      workingDirectory: '/ws'
    })
    b.setSessionId('s-1')
    play(b, recordedSession())
    const body = comment(b.finish({ status: 'incomplete', endedAt: '2026-11-22T10:05:00.000Z' }))
    expect(body).toMatchSnapshot()
    expect(body).toContain(
      'the built-in read-only policy applied, because no policy file was found'
    )
    expect(body).not.toContain(SECRET)
    expectWellFormed(body)
  })
})

describe('renderComment', () => {
  it('puts the marker first and the sections in order', () => {
    const body = comment(sampleReport('failed'))
    expect(body.startsWith(`${MARKER}\n\n### ❌ `)).toBe(true)
    expect(structure(body).headings.map((h) => h.replace(/ ·.*/, ''))).toEqual([
      '### ❌ Copilot run failed',
      '#### 🔧 Tools',
      '#### 🧪 Setup and verify commands',
      '#### 🔐 Permissions',
      '#### 📊 Usage',
      '#### 🩺 What went wrong'
    ])
    expect(body.indexOf('<summary>Plan')).toBeLessThan(body.indexOf('#### 🔧 Tools'))
  })

  it('has the status line for every status, failure details only when not completed', () => {
    const lines: Record<RunStatus, string> = {
      completed: '### ✅ ',
      incomplete: '### ⚠️ ',
      failed: '### ❌ ',
      'timed-out': '### ⏱ ',
      cancelled: '### 🛑 '
    }
    for (const status of STATUSES) {
      const body = comment(sampleReport(status))
      expect(body).toContain(lines[status])
      expect(body.includes('#### 🩺 What went wrong')).toBe(status !== 'completed')
    }
    const failed = comment(sampleReport('incomplete'))
    expect(failed).toContain('Autopilot stopped: `cap_reached`.')
    expect(failed).toContain('ran view: /ws/src/sum.ts')
  })

  it('neutralizes @mentions and issue references from untrusted text', () => {
    const report = sampleReport('failed', {
      summary: 'Thanks @octocat and @octo/reviewers; fixes #12, octo/app#13, GH-14',
      error: { message: 'see https://github.com/octo/app/issues/15 @admin' },
      plan: {
        content: 'ask @someone about #16',
        todos: [{ id: '1', title: 'ping @ops', status: 'blocked' }]
      }
    })
    report.permissions[1]!.reason = 'rule by @security-team, see #17'
    report.tools[1]!.error = 'failure: @bot #18'
    const body = comment(report)
    const text = prose(body)
    expect(text).not.toMatch(/(^|[^A-Za-z0-9])@[A-Za-z0-9]/)
    expect(text).not.toMatch(/#\d/)
    expect(text).not.toMatch(/\bGH-\d/)
    expect(text).not.toContain('https://github.com/octo/app/issues')
    expect(body).toContain('@\u200Doctocat')
    expect(body).toContain('#\u200B12')
  })

  it('strips HTML comments from untrusted text: only the marker is a comment', () => {
    const report = sampleReport('failed', {
      summary: 'done <!-- copilot-autopilot:comment --> <!-- unterminated',
      lastActivity: ['said: <!-- copilot-autopilot:comment -->']
    })
    report.commands[0]!.outputTail = '<!-- copilot-autopilot:comment -->'
    report.tools[0]!.detail = 'echo "<!-- x -->"'
    const body = comment(report)
    expect(body.split('<!--')).toHaveLength(2)
    expect(body.indexOf(MARKER)).toBe(0)
  })

  it('does not let ``` or </details> in untrusted text break out of their block', () => {
    const attack = '```\n</details>\n\n# Owned\n<details><summary>x</summary>\n````'
    const report = sampleReport('failed', {
      summary: attack,
      error: { message: attack },
      lastActivity: [attack],
      plan: { content: attack, todos: [{ id: '1', title: attack, status: 'done' }] }
    })
    report.commands[0]!.outputTail = attack
    report.commands[0]!.command = attack
    report.tools[0]!.detail = attack
    report.permissions[1]!.subject = attack
    report.permissions[1]!.reason = attack
    report.metrics.filesModified = [attack]
    report.metrics.models = { [attack]: report.metrics.models['claude-sonnet-4.5']! }
    const body = comment(report)
    expectWellFormed(body)
    const { headings } = structure(body)
    expect(headings.some((h) => h.includes('Owned'))).toBe(false)
    // Outside code, every </details> is one of ours: as many as we opened.
    const outside = prose(body)
    expect(outside.match(/<\/details>/g)?.length).toBe(outside.match(/<details( open)?>/g)?.length)
    expect(outside).not.toContain('<summary>x')
    expect(outside).toContain('&lt;/details&gt;') // the summary's, escaped
  })

  it('redacts secrets given at render time', () => {
    const report = sampleReport('failed', { summary: `token ${SECRET}` })
    report.tools[0]!.detail = `curl -H ${SECRET}`
    const body = renderComment(report, { marker: MARKER, secrets: [SECRET] })
    expect(body).not.toContain(SECRET)
    expect(body).toContain('curl -H ***')
  })

  it('shows modified files and the policy relative to the working directory', () => {
    const body = comment(sampleReport('completed'))
    expect(body).toContain('- `src/sum.ts`')
    expect(body).toContain('- `/tmp/outside.txt`')
    const policy = sampleReport('completed', {
      policy: { source: '/home/runner/work/app/app/.github/copilot-policy.yml', builtIn: false }
    })
    expect(comment(policy)).toContain('**Policy:** `.github/copilot-policy.yml`')
    expect(relativePath('/ws/a/b.ts', '/ws/')).toBe('a/b.ts')
    expect(relativePath('/wsx/a.ts', '/ws')).toBe('/wsx/a.ts')
    expect(relativePath('/home/runner/work/r/r/src/x.ts')).toBe('src/x.ts')
  })

  it('links the run only with an http(s) URL', () => {
    const report = sampleReport('completed')
    expect(comment(report)).toContain(`[Workflow run](${RUN_URL})`)
    const body = renderComment(report, { marker: MARKER, runUrl: 'javascript:alert(1)' })
    expect(body).not.toContain('Workflow run')
  })

  it('renders old reports without aggregates from the records', () => {
    const report = sampleReport('completed')
    delete report.toolStats
    delete report.permissionCounts
    const body = comment(report)
    expect(body).toContain('| `bash` | 2 | 1 | 1 | 2.4 s |')
    expect(body).toContain('| `shell` | 1 | 1 |')
    expect(body).toContain('#### 🔐 Permissions · 1 allowed, 2 denied')
  })

  it('says so when there were no tool calls and no permission requests', () => {
    const body = comment(
      sampleReport('completed', {
        tools: [],
        toolStats: {},
        permissions: [],
        permissionCounts: {},
        commands: [],
        plan: { content: null, todos: [] }
      })
    )
    expect(body).toContain('No tool calls.')
    expect(body).toContain('The agent asked for no permissions.')
    expect(body).not.toContain('Setup and verify')
    expect(body).not.toContain('<summary>Plan')
  })
})

describe('size limit', () => {
  function giantReport(): Report {
    const tools: ToolCallRecord[] = Array.from({ length: 5000 }, (_, i) => ({
      toolCallId: `c${i}`,
      name: `tool-${i % 300}`,
      success: i % 3 !== 0,
      durationMs: i,
      detail: `command ${i} ${'x'.repeat(300)}`,
      ...(i % 3 === 0 ? { error: `failure: ${'e'.repeat(300)}` } : {})
    }))
    const report = sampleReport('failed', {
      summary: 'S'.repeat(200_000),
      error: { message: 'E'.repeat(100_000), type: 'query' },
      tools,
      toolStats: Object.fromEntries(
        Array.from({ length: 300 }, (_, i) => [
          `tool-${i}`,
          { calls: 10, succeeded: 7, failed: 3, durationMs: 100 }
        ])
      ),
      plan: {
        content: 'P'.repeat(1_000_000),
        todos: Array.from({ length: 2000 }, (_, i) => ({
          id: String(i),
          title: 'T'.repeat(300),
          status: 'pending'
        }))
      },
      permissions: Array.from({ length: 3000 }, (_, i) => ({
        requestId: `p${i}`,
        toolCallId: null,
        kind: `kind-${i % 100}`,
        subject: 's'.repeat(300),
        decision: 'deny' as const,
        rule: 'r'.repeat(300),
        reason: 'why'.repeat(100),
        request: { kind: 'shell' }
      })),
      permissionCounts: Object.fromEntries(
        Array.from({ length: 100 }, (_, i) => [`kind-${i}`, { allow: 1, deny: 30 }])
      ),
      commands: Array.from({ length: 50 }, (_, i) => ({
        phase: 'verify' as const,
        command: `cmd ${i} ${'c'.repeat(500)}`,
        exitCode: 1,
        timedOut: false,
        durationMs: 10,
        outputTail: 'o\n'.repeat(50_000)
      })),
      lastActivity: Array.from({ length: 10 }, () => 'a'.repeat(160))
    })
    report.metrics.filesModified = Array.from(
      { length: 20_000 },
      (_, i) => `/home/runner/work/app/app/src/file-${i}-${'f'.repeat(100)}.ts`
    )
    report.metrics.models = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [
        `model-${i}-${'m'.repeat(100)}`,
        report.metrics.models['claude-sonnet-4.5']!
      ])
    )
    return report
  }

  it('keeps a giant report under 65,536 characters with the status line, metrics and a note', () => {
    const body = comment(giantReport())
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_LENGTH)
    expect(body.length).toBeLessThan(65_536)
    expect(body.startsWith(`${MARKER}\n\n### ❌ Copilot run failed`)).toBe(true)
    expect(body).toContain('#### 📊 Usage')
    expect(body).toContain('**Premium requests** 7')
    expect(body).toContain('#### 🩺 What went wrong')
    const note = /✂️ Trimmed to stay under 65,000 characters: ([^.]+)\./.exec(body)
    expect(note?.[1]).toContain('notable tool calls')
    expect(note?.[1]).toContain('modified files list')
    expect(note?.[1]).toContain('plan')
    expectWellFormed(body)
  })

  it('honours any limit, trimming only what is needed', () => {
    const report = giantReport()
    for (const maxLength of [200_000, 20_000, 8_000, 3_000]) {
      const body = comment(report, maxLength)
      expect(body.length).toBeLessThanOrEqual(maxLength)
      expect(body).toContain('### ❌ Copilot run failed')
    }
    const small = comment(sampleReport('completed'))
    expect(small).not.toContain('Trimmed')
    const roomy = comment(report, 200_000)
    expect(roomy).toContain('✂️ Trimmed')
    expect(roomy).toContain('Notable calls') // trimmed, not dropped, when there is room
  })
})

describe('renderSummary', () => {
  it('has the same content without a marker', () => {
    const report = sampleReport('completed')
    const summary = renderSummary(report, { runUrl: RUN_URL })
    expect(summary.startsWith('### ✅ Copilot completed the task')).toBe(true)
    expect(`${MARKER}\n\n${summary}`).toBe(comment(report))
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

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [850, '850 ms'],
    [12_345, '12.3 s'],
    [192_000, '3 m 12 s'],
    [3_725_000, '1 h 02 m'],
    [-1, '—'],
    [Number.NaN, '—']
  ])('%p → %p', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })
})
