/**
 * Hand-made reports for the rendering tests: one per status, a busy run, a giant one and a
 * policy that could not be used. Shapes as the fold writes them for Copilot CLI 1.0.102 runs.
 */
import type {
  CommandRecord,
  PermissionRecord,
  Report,
  RunStatus,
  ToolCallRecord,
  ToolStats
} from '../../src/reporting/types.js'

export const SECRET = 'ghp_SuperSecretToken1234567890'
export const START = '2026-11-22T10:00:00.000Z'
export const ROOT = '/home/runner/work/app/app'
export const SESSION_ID = 'b6f5c1d2-0000-4000-8000-000000000001'

/** The agent's calls: a shell run, a failed read, a denied push, an edit, a subagent's work. */
export function sampleTools(): ToolCallRecord[] {
  return [
    {
      toolCallId: 'c1',
      name: 'bash',
      outcome: 'succeeded',
      success: true,
      durationMs: 2400,
      target: 'npm test'
    },
    {
      toolCallId: 'c2',
      name: 'view',
      outcome: 'failed',
      success: false,
      durationMs: 12,
      target: `${ROOT}/src/missing.ts`,
      error: 'failure: Path does not exist'
    },
    {
      toolCallId: 'c3',
      name: 'bash',
      outcome: 'denied',
      success: false,
      durationMs: null,
      target: 'git push origin main',
      rule: 'no-push',
      error: 'Pushing is done by the workflow.'
    },
    {
      toolCallId: 'c4',
      name: 'edit',
      outcome: 'succeeded',
      success: true,
      durationMs: 300,
      target: `${ROOT}/src/sum.ts`
    },
    {
      toolCallId: 'c5',
      name: 'task',
      outcome: 'succeeded',
      success: true,
      durationMs: 45_000,
      target: 'Find the tests for sum()'
    },
    {
      toolCallId: 'c6',
      name: 'grep',
      outcome: 'succeeded',
      success: true,
      durationMs: 150,
      target: 'sum\\(',
      parentToolCallId: 'c5'
    },
    {
      toolCallId: 'c7',
      name: 'view',
      outcome: 'succeeded',
      success: true,
      durationMs: 20,
      target: `${ROOT}/src/sum.test.ts`,
      parentToolCallId: 'c5'
    },
    {
      toolCallId: 'c8',
      name: 'web_fetch',
      outcome: 'denied',
      success: false,
      durationMs: null,
      target: 'https://example.com/',
      rule: 'default',
      error: 'no rule allows it',
      parentToolCallId: 'c5'
    }
  ]
}

/** The figures of `sampleTools()`, as the fold keeps them. */
export function sampleToolStats(): Record<string, ToolStats> {
  return {
    bash: { calls: 2, succeeded: 1, failed: 0, denied: 1, durationMs: 2400 },
    view: { calls: 2, succeeded: 1, failed: 1, denied: 0, durationMs: 32 },
    edit: { calls: 1, succeeded: 1, failed: 0, denied: 0, durationMs: 300 },
    task: { calls: 1, succeeded: 1, failed: 0, denied: 0, durationMs: 45_000 },
    grep: { calls: 1, succeeded: 1, failed: 0, denied: 0, durationMs: 150 },
    web_fetch: { calls: 1, succeeded: 0, failed: 0, denied: 1, durationMs: 0 }
  }
}

export function samplePermissions(): PermissionRecord[] {
  return [
    {
      requestId: 'p1',
      toolCallId: 'c1',
      kind: 'shell',
      subject: 'npm test',
      decision: 'allow',
      rule: 'tests',
      request: { kind: 'shell', fullCommandText: 'npm test' }
    },
    {
      requestId: 'p2',
      toolCallId: 'c3',
      kind: 'shell',
      subject: 'git push origin main',
      decision: 'deny',
      rule: 'no-push',
      reason: 'Pushing is done by the workflow.',
      request: { kind: 'shell', fullCommandText: 'git push origin main' }
    },
    {
      requestId: 'p3',
      toolCallId: 'c4',
      kind: 'write',
      subject: `${ROOT}/src/sum.ts`,
      decision: 'allow',
      rule: 'src',
      request: { kind: 'write', fileName: `${ROOT}/src/sum.ts` }
    },
    {
      requestId: 'p4',
      toolCallId: 'c8',
      kind: 'url',
      subject: 'https://example.com/',
      decision: 'deny',
      rule: 'default',
      request: { kind: 'url', url: 'https://example.com/' }
    }
  ]
}

const VERIFY_FAILURE = [
  '> app@1.0.0 test',
  '> jest',
  '',
  'FAIL src/sum.test.ts',
  '  ● sum › adds negative numbers',
  '',
  '    expect(received).toBe(expected) // Object.is equality',
  '',
  '    Expected: -3',
  '    Received: 3',
  '',
  'Tests:       1 failed, 12 passed, 13 total'
].join('\n')

function commands(status: RunStatus): CommandRecord[] {
  const setup: CommandRecord = {
    phase: 'setup',
    command: 'npm ci',
    exitCode: 0,
    timedOut: false,
    durationMs: 12_300,
    outputTail: 'added 312 packages in 12s'
  }
  if (status === 'completed' || status === 'verify-failed') {
    const failed = status === 'verify-failed'
    return [
      setup,
      {
        phase: 'verify',
        command: 'npm test',
        exitCode: failed ? 1 : 0,
        timedOut: false,
        durationMs: 4_100,
        outputTail: failed ? VERIFY_FAILURE : 'Tests:       13 passed, 13 total'
      }
    ]
  }
  return [setup]
}

const ERRORS: Partial<Record<RunStatus, { message: string; type: string }>> = {
  'verify-failed': {
    message: 'The agent said it completed the task, but the verify command `npm test` failed.',
    type: 'verify'
  },
  incomplete: {
    message:
      'The agent stopped without calling task_complete after the maximum number of autopilot continues (10).',
    type: 'cap_reached'
  },
  failed: {
    message: 'Failed to get response from the AI model; retried 5 times (HTTP 500)',
    type: 'query'
  },
  'timed-out': {
    message: 'The agent did not finish within 30 min (timeout-minutes).',
    type: 'timeout'
  },
  cancelled: { message: 'The workflow run was cancelled.', type: 'cancelled' },
  'policy-violation': {
    message:
      "The workspace audit found 2 paths changed that the policy's write rules forbid: `.npmrc` (created, rule `protected-files`), `README.md` (changed, no rule allows it). Each was put back as it was before the agent started.",
    type: 'policy-violation'
  }
}

/** A report as rendering tests want it: every section present, fixed times. */
export function sampleReport(status: RunStatus, overrides: Partial<Report> = {}): Report {
  const completed = status === 'completed' || status === 'verify-failed'
  const error = ERRORS[status]
  return {
    version: 1,
    status,
    sessionId: SESSION_ID,
    summary: completed ? 'Fixed `sum()` in `src/sum.ts`: `a < b && c > d` now holds.' : null,
    cliVersion: '1.0.102',
    model: 'claude-sonnet-4.5',
    startedAt: START,
    endedAt: '2026-11-22T10:03:12.000Z',
    durationMs: 192_000,
    ...(error ? { error: { ...error } } : {}),
    stopReason: completed ? 'task_complete' : status === 'incomplete' ? 'cap_reached' : 'error',
    ...(completed ? { completion: { state: 'accepted' as const } } : {}),
    policy: { source: `${ROOT}/.github/copilot-policy.yml`, builtIn: false },
    sandbox: { state: 'enforced', backend: 'bubblewrap' },
    audit: {
      checks: 1,
      changed: status === 'policy-violation' ? 4 : 2,
      complete: true,
      readOnly: ['.github', '.git/config', '.git/hooks'],
      violations:
        status === 'policy-violation'
          ? [
              {
                path: '.npmrc',
                change: 'created',
                rule: 'protected-files',
                reason: "registry credentials are not the agent's to change",
                reverted: true,
                command: 'npm test'
              },
              { path: 'README.md', change: 'changed', rule: 'default', reverted: true }
            ]
          : []
    },
    workingDirectory: ROOT,
    plan: {
      content: '# Plan\n\n1. Run the tests\n2. Fix `sum()`\n',
      todos: [
        { id: '1', title: 'Run the tests', status: 'done' },
        { id: '2', title: 'Fix sum()', status: completed ? 'done' : 'in_progress' },
        { id: '3', title: 'Open a follow-up', status: 'pending' }
      ]
    },
    tools: sampleTools(),
    toolStats: sampleToolStats(),
    subagents: [
      {
        toolCallId: 'c5',
        name: 'explore',
        description: 'Find the tests for sum()',
        outcome: 'completed'
      }
    ],
    internalCalls: 4,
    permissions: samplePermissions(),
    permissionCounts: {
      shell: { allow: 1, deny: 1 },
      write: { allow: 1, deny: 0 },
      url: { allow: 0, deny: 1 }
    },
    commands: commands(status),
    metrics: {
      // GitHub-billed: 41.25 AI credits as the CLI reports them (nano-AIU)
      aiCredits: { nanoAiu: 41_250_000_000, status: 'complete', byok: false },
      premiumRequests: 7,
      apiDurationMs: 45_000,
      linesAdded: 12,
      linesRemoved: 3,
      filesModified: [`${ROOT}/src/sum.ts`, '/tmp/outside.txt'],
      models: {
        'claude-sonnet-4.5': {
          requests: 7,
          inputTokens: 70_000,
          outputTokens: 7_000,
          cacheReadTokens: 35_000,
          cacheWriteTokens: 3_500
        }
      }
    },
    lastActivity: [
      'ran bash: npm test',
      'said: The tests still fail; looking at sum()',
      `ran view: ${ROOT}/src/sum.ts`
    ],
    ...overrides
  }
}

/** A policy file with errors: the run never started. */
export function badPolicyReport(issues = 2): Report {
  return sampleReport('failed', {
    sessionId: null,
    cliVersion: null,
    durationMs: 40,
    error: {
      message: 'The policy .github/copilot-policy.yml has errors.',
      type: 'policy'
    },
    policy: {
      source: `${ROOT}/.github/copilot-policy.yml`,
      builtIn: false,
      issues: Array.from({ length: issues }, (_, i) => ({
        file: '.github/copilot-policy.yml',
        line: 4 + i * 3,
        column: 5,
        message: i === 0 ? 'unknown key "alow"' : `rule ${i}: \`shell\` must be a list`,
        fix: i === 0 ? 'did you mean "allow"?' : 'write `shell: ["npm test"]`'
      }))
    },
    sandbox: undefined,
    plan: { content: null, todos: [] },
    tools: [],
    toolStats: {},
    subagents: [],
    internalCalls: 0,
    permissions: [],
    permissionCounts: {},
    commands: [],
    metrics: {
      premiumRequests: 0,
      apiDurationMs: 0,
      linesAdded: 0,
      linesRemoved: 0,
      filesModified: [],
      models: {}
    },
    lastActivity: []
  })
}

/**
 * A busy run: 60 tool calls (a subagent among them), 10 denials by 3 rules, a setup and a verify
 * command, two models, a long plan and summary.
 */
export function busyReport(status: RunStatus = 'verify-failed'): Report {
  const tools: ToolCallRecord[] = []
  const permissions: PermissionRecord[] = []
  const names = ['bash', 'view', 'edit', 'grep', 'glob', 'create']
  const denials: [rule: string, kind: 'shell' | 'url', subject: string, reason?: string][] = [
    ['no-push', 'shell', 'git push origin HEAD', 'Pushing is done by the workflow.'],
    ['no-push', 'shell', 'git push --force origin HEAD', 'Pushing is done by the workflow.'],
    ['no-network', 'shell', 'curl -sSL https://get.example.com/install.sh', 'No downloads.'],
    ['default', 'url', 'https://registry.npmjs.org/left-pad']
  ]
  let denied = 0
  for (let i = 0; i < 60; i++) {
    const id = `call-${i}`
    const parent = i >= 20 && i < 30 ? 'call-19' : undefined
    if (i % 6 === 5 && denied < 10) {
      const [rule, kind, subject, reason] = denials[denied % denials.length] as (typeof denials)[0]
      denied++
      tools.push({
        toolCallId: id,
        name: kind === 'url' ? 'web_fetch' : 'bash',
        outcome: 'denied',
        success: false,
        durationMs: null,
        target: subject,
        rule,
        ...(reason ? { error: reason } : {}),
        ...(parent ? { parentToolCallId: parent } : {})
      })
      permissions.push({
        requestId: `p-${i}`,
        toolCallId: id,
        kind,
        subject,
        decision: 'deny',
        rule,
        ...(reason ? { reason } : {}),
        request: kind === 'url' ? { kind, url: subject } : { kind, fullCommandText: subject }
      })
      continue
    }
    const name = i === 19 ? 'task' : (names[i % names.length] as string)
    const failed = i === 7 || i === 31 || i === 44
    tools.push({
      toolCallId: id,
      name,
      outcome: failed ? 'failed' : 'succeeded',
      success: !failed,
      durationMs: 40 + i * 7,
      target: name === 'task' ? 'Map the test suite' : `${ROOT}/src/module-${i}.ts`,
      ...(failed ? { error: `failure: step ${i} went wrong` } : {}),
      ...(parent ? { parentToolCallId: parent } : {})
    })
    if (name === 'bash' || name === 'edit' || name === 'create') {
      permissions.push({
        requestId: `p-${i}`,
        toolCallId: id,
        kind: name === 'bash' ? 'shell' : 'write',
        subject: name === 'bash' ? `npm run step-${i}` : `${ROOT}/src/module-${i}.ts`,
        decision: 'allow',
        rule: name === 'bash' ? 'npm-scripts' : 'src',
        request: { kind: name === 'bash' ? 'shell' : 'write' }
      })
    }
  }
  const stats: Record<string, ToolStats> = {}
  for (const t of tools) {
    const s = (stats[t.name] ??= { calls: 0, succeeded: 0, failed: 0, denied: 0, durationMs: 0 })
    s.calls++
    if (t.outcome === 'succeeded') s.succeeded++
    if (t.outcome === 'failed') s.failed++
    if (t.outcome === 'denied') s.denied++
    s.durationMs += t.durationMs ?? 0
  }
  const counts: Record<string, { allow: number; deny: number }> = {}
  for (const p of permissions) (counts[p.kind] ??= { allow: 0, deny: 0 })[p.decision]++
  const base = sampleReport(status)
  return {
    ...base,
    summary: [
      'Refactored the test helpers and fixed `sum()` for negative numbers.',
      '',
      '- `src/sum.ts`: handle `a < 0 && b < 0`',
      '- `src/helpers/*.ts`: split into modules',
      '',
      'Thanks @octocat for the report in #12.'
    ].join('\n'),
    plan: {
      content: Array.from({ length: 12 }, (_, i) => `${i + 1}. Step ${i + 1} of the plan`).join(
        '\n'
      ),
      todos: Array.from({ length: 5 }, (_, i) => ({
        id: String(i),
        title: `Todo ${i + 1}`,
        status: i < 3 ? 'done' : 'pending'
      }))
    },
    tools,
    toolStats: stats,
    subagents: [
      {
        toolCallId: 'call-19',
        name: 'explore',
        description: 'Map the test suite',
        outcome: 'completed'
      }
    ],
    internalCalls: 12,
    permissions,
    permissionCounts: counts,
    metrics: {
      ...base.metrics,
      premiumRequests: 23,
      models: {
        'claude-sonnet-4.5': {
          requests: 20,
          inputTokens: 1_234_567,
          outputTokens: 45_678,
          cacheReadTokens: 900_000,
          cacheWriteTokens: 12_000
        },
        'gpt-5-mini': {
          requests: 3,
          inputTokens: 30_000,
          outputTokens: 2_000,
          cacheReadTokens: 0,
          cacheWriteTokens: 0
        }
      },
      filesModified: Array.from({ length: 14 }, (_, i) => `${ROOT}/src/module-${i}.ts`)
    }
  }
}

/** Everything far too big, for the size limits. */
export function giantReport(status: RunStatus = 'failed'): Report {
  const tools: ToolCallRecord[] = Array.from({ length: 5000 }, (_, i) => ({
    toolCallId: `c${i}`,
    name: `tool-${i % 300}`,
    outcome: i % 3 === 0 ? 'failed' : 'succeeded',
    success: i % 3 !== 0,
    durationMs: i,
    target: `command ${i} ${'x'.repeat(300)}`,
    ...(i % 3 === 0 ? { error: `failure: ${'e'.repeat(300)}` } : {}),
    ...(i % 7 === 0 && i > 0 ? { parentToolCallId: `c${i - 1}` } : {})
  }))
  const report = sampleReport(status, {
    summary: 'S'.repeat(200_000),
    error: { message: 'E'.repeat(100_000), type: 'query' },
    tools,
    toolStats: Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [
        `tool-${i}`,
        { calls: 10, succeeded: 7, failed: 3, denied: 0, durationMs: 100 }
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
      subject: `s${i}`.repeat(100),
      decision: 'deny' as const,
      rule: `rule-${i % 40}-${'r'.repeat(300)}`,
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
    (_, i) => `${ROOT}/src/file-${i}-${'f'.repeat(100)}.ts`
  )
  const usage = report.metrics.models['claude-sonnet-4.5']
  if (usage === undefined) throw new Error('the sample has claude-sonnet-4.5')
  report.metrics.models = Object.fromEntries(
    Array.from({ length: 500 }, (_, i) => [`model-${i}-${'m'.repeat(100)}`, usage])
  )
  return report
}

// ---------------------------------------------------------------------------------------------
// Reading rendered markdown as GitHub would

/**
 * The block structure as GitHub would see it, from column 0: fenced code blocks (backtick fences
 * of 3+, closed by a fence at least as long), `<details>` open/close lines and section headings
 * outside them.
 */
export function structure(markdown: string): {
  unclosedFence: boolean
  details: string[]
  headings: string[]
} {
  let fence: string | null = null
  const details: string[] = []
  const headings: string[] = []
  for (const line of markdown.split('\n')) {
    if (fence !== null) {
      const close = /^ {0,3}(`{3,})\s*$/.exec(line)?.[1]
      if (close !== undefined && close.length >= fence.length) fence = null
      continue
    }
    const open = /^ {0,3}(`{3,})[^`]*$/.exec(line)
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

/** Balanced, non-nested <details>, every fence closed. */
export function expectWellFormed(markdown: string): void {
  const { unclosedFence, details } = structure(markdown)
  expect(unclosedFence).toBe(false)
  expect(details.join(',')).toBe(
    Array(details.length / 2)
      .fill('open,close')
      .join(',')
  )
}

/**
 * The text outside fenced code and code spans (where GitHub would ping, link and render HTML).
 * Code spans pair as CommonMark pairs them: a run of N unescaped backticks with the next run of
 * exactly N in the same paragraph; a code span leaves a space (it separates the text around it).
 */
export function prose(markdown: string): string {
  const kept: string[] = []
  let fence: string | null = null
  let paragraph: string[] = []
  const flush = (): void => {
    kept.push(withoutSpans(paragraph.join('\n')))
    paragraph = []
  }
  for (const raw of markdown.split('\n')) {
    const line = raw.replace(/^(?:> ?)+/, '') // inside quotes too
    if (fence !== null) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1]
      if (close !== undefined && close[0] === fence[0] && close.length >= fence.length) fence = null
      continue
    }
    const open = /^ {0,3}(`{3,}|~{3,})([^`]*)$/.exec(line)
    if (open) {
      flush()
      fence = open[1] as string
      continue
    }
    if (line.trim() === '') flush()
    else paragraph.push(line)
  }
  flush()
  return kept.join('\n')
}

function withoutSpans(text: string): string {
  let out = ''
  let i = 0
  while (i < text.length) {
    if (text[i] === '\\' && i + 1 < text.length) {
      out += text.slice(i, i + 2)
      i += 2
      continue
    }
    if (text[i] !== '`') {
      out += text[i]
      i++
      continue
    }
    let n = 0
    while (text[i + n] === '`') n++
    let close = -1
    for (let j = i + n; j < text.length;) {
      if (text[j] !== '`') {
        j++
        continue
      }
      let m = 0
      while (text[j + m] === '`') m++
      if (m === n) {
        close = j
        break
      }
      j += m
    }
    if (close < 0) {
      out += '`'.repeat(n)
      i += n
    } else {
      out += ' '
      i = close + n
    }
  }
  return out
}

/**
 * Sections with nothing in them: a heading followed by another heading or the end, a
 * `<details>` with an empty body, a label line (`**…**:`) with nothing after it.
 */
export function emptySections(markdown: string): string[] {
  const found: string[] = []
  const blocks = markdown
    .split(/\n{2,}/)
    .map((b) => b.trim())
    .filter((b) => b !== '')
  blocks.forEach((block, i) => {
    const next = blocks[i + 1]
    if (/^#{1,6} /.test(block) && (next === undefined || /^#{1,6} /.test(next))) found.push(block)
    if (/^\*\*[^*]+\*\*[^\n]*:$/.test(block) && (next === undefined || /^#{1,6} /.test(next))) {
      found.push(block)
    }
  })
  for (const m of markdown.matchAll(/<summary>([^\n]*)<\/summary>\n([\s\S]*?)\n<\/details>/g)) {
    if ((m[2] ?? '').trim() === '') found.push(`<details> ${m[1]}`)
  }
  return found
}
