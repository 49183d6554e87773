import type { PermissionRequest, SessionEvent, Todo } from '../../src/cli/protocol.js'
import type { FinalDecision as Decision } from '../../src/session/fold.js'
import { toReport } from '../../src/reporting/report.js'
import type { CommandRecord, Report, RunStatus } from '../../src/reporting/types.js'
import {
  REPORT_LIMITS,
  createState,
  fold,
  type RunState,
  type StateOptions
} from '../../src/session/fold.js'
import { SECRET, START, play, recordedSession, type SessionOptions } from '../reporting/fixtures.js'

const END = '2026-11-22T10:03:12.000Z'

/** The fold driven input by input, read back as a report with the status the test names. */
class Builder {
  readonly state: RunState
  constructor(extra: Partial<StateOptions> = {}) {
    this.state = createState({
      startedAt: START,
      model: null,
      policySource: '.github/copilot-policy.yml',
      secrets: [SECRET],
      ...extra
    })
  }
  onEvent(event: SessionEvent, receivedAt?: number): void {
    fold(this.state, { type: 'event', event, ...(receivedAt === undefined ? {} : { receivedAt }) })
  }
  onDecision(requestId: string, request: PermissionRequest, decision: Decision): void {
    fold(this.state, { type: 'decision', requestId, request, decision })
  }
  onCommand(record: CommandRecord): void {
    fold(this.state, { type: 'command', record })
  }
  setPlan(content: string | null): void {
    fold(this.state, { type: 'plan', content })
  }
  setTodos(todos: Todo[]): void {
    fold(this.state, { type: 'todos', todos })
  }
  setMetrics(metrics: Parameters<typeof fold>[1] & { type: 'metrics' }): void {
    fold(this.state, metrics)
  }
  finish(options: {
    status: RunStatus
    endedAt: string
    error?: { message: string; type?: string }
  }): Report {
    return toReport(this.state, {
      endedAt: options.endedAt,
      settled: { status: options.status, ...(options.error ? { error: options.error } : {}) }
    })
  }
}

function builder(extra: Partial<StateOptions> = {}): Builder {
  return new Builder(extra)
}

function foldSession(options: SessionOptions = {}): Report {
  const b = builder()
  fold(b.state, { type: 'session-created', sessionId: 's-1' })
  fold(b.state, { type: 'cli', version: '1.0.102' })
  play(b.state, recordedSession(options))
  return b.finish({ status: 'completed', endedAt: END })
}

const ev = (type: string, data: unknown, timestamp?: string): SessionEvent => ({
  type,
  data,
  ...(timestamp === undefined ? {} : { timestamp })
})

describe('fold: a recorded session', () => {
  const report = foldSession()

  it('fills the header from the session and the events', () => {
    expect(report).toMatchObject({
      version: 1,
      status: 'completed',
      sessionId: 's-1',
      cliVersion: '1.0.102',
      model: 'claude-sonnet-4.5', // from the events: none was asked for
      startedAt: START,
      endedAt: END,
      durationMs: 192_000,
      stopReason: 'task_complete',
      summary: 'Fixed `sum()`; the tests pass. Thanks @octocat, see #12.',
      policy: { source: '.github/copilot-policy.yml', builtIn: false }
    })
    expect(report.error).toBeUndefined()
  })

  it('pairs tool starts and completions by toolCallId, with durations from timestamps', () => {
    expect(report.tools).toEqual([
      {
        toolCallId: 'call-1',
        name: 'bash',
        outcome: 'succeeded',
        success: true,
        durationMs: 2600, // 2.4 s wait + the partial-result event in between
        target: 'GH_TOKEN=*** npm test'
      },
      {
        toolCallId: 'call-2',
        name: 'view',
        outcome: 'failed',
        success: false,
        durationMs: 100,
        target: '/ws/src/missing.ts',
        error: 'failure: Path does not exist'
      },
      {
        // Denied before it started: the name comes from the assistant's toolRequests, the
        // target from the policy decision. A denial is not a failure, and the CLI's
        // boilerplate ("Permission denied") gives way to the policy's reason.
        toolCallId: 'call-3',
        name: 'bash',
        outcome: 'denied',
        success: false,
        durationMs: null,
        target: 'git push origin main',
        rule: 'no-push',
        error: 'Pushing is done by the workflow, not the agent.'
      },
      {
        toolCallId: 'call-4',
        name: 'edit',
        outcome: 'succeeded',
        success: true,
        durationMs: 400,
        target: '/ws/src/sum.ts'
      },
      {
        toolCallId: 'call-5',
        name: 'bash',
        outcome: 'unfinished',
        success: null,
        durationMs: null,
        target: 'sleep 1000',
        // when it started, so the report can say how long it had been running
        startedAt: '2026-11-22T10:00:12.700Z'
      }
    ])
    expect(report.toolStats).toEqual({
      bash: { calls: 3, succeeded: 1, failed: 0, denied: 1, durationMs: 2600 },
      view: { calls: 1, succeeded: 0, failed: 1, denied: 0, durationMs: 100 },
      edit: { calls: 1, succeeded: 1, failed: 0, denied: 0, durationMs: 400 }
    })
  })

  it('records every policy decision, secrets redacted deep in the request payload', () => {
    expect(report.permissions.map((p) => [p.requestId, p.kind, p.decision, p.rule])).toEqual([
      ['perm-1', 'shell', 'allow', 'tests'],
      ['perm-2', 'shell', 'deny', 'no-push'],
      ['perm-3', 'write', 'allow', 'src']
    ])
    const [allowed, denied] = report.permissions
    expect(allowed?.subject).toBe('GH_TOKEN=*** npm test')
    expect(allowed?.request.fullCommandText).toBe('GH_TOKEN=*** npm test')
    expect(allowed?.toolCallId).toBe('call-1')
    expect(denied?.reason).toBe('Pushing is done by the workflow, not the agent.')
    expect(denied?.request.args).toEqual({ nested: [{ token: '***' }] })
    expect(report.permissionCounts).toEqual({
      shell: { allow: 1, deny: 1 },
      write: { allow: 1, deny: 0 }
    })
    expect(JSON.stringify(report)).not.toContain(SECRET)
  })

  it('takes the plan from exit_plan_mode.requested when plan.md was not read', () => {
    expect(report.plan.content).toBe('# Plan\n\n1. Run the tests\n2. Fix `sum()`\n')
  })

  it('reads the 1.0.102 shutdown figures nested under accountingSnapshot', () => {
    expect(report.metrics).toEqual({
      // usage events without an amount, a shutdown without totalNanoAiu: not a zero cost
      aiCredits: { nanoAiu: 0, status: 'unavailable', byok: false },
      premiumRequests: 7, // totalPremiumRequestCost
      apiDurationMs: 4500,
      linesAdded: 12,
      linesRemoved: 3,
      filesModified: ['/ws/src/sum.ts'],
      models: {
        'claude-sonnet-4.5': {
          requests: 7,
          inputTokens: 7000,
          outputTokens: 700,
          cacheReadTokens: 3500,
          cacheWriteTokens: 350
        }
      }
    })
  })

  it('reads the flat shutdown shape of older builds the same way', () => {
    expect(foldSession({ shutdown: 'flat' }).metrics).toEqual(report.metrics)
  })

  it('falls back to summing assistant.usage events when no figures came', () => {
    const metrics = foldSession({ shutdown: 'none' }).metrics
    // 6 assistant messages, each followed by one usage event, and one malformed usage event
    // (its tokens caught to 0).
    expect(metrics.models['claude-sonnet-4.5']).toEqual({
      requests: 7,
      inputTokens: 6000,
      outputTokens: 600,
      cacheReadTokens: 3000,
      cacheWriteTokens: 300
    })
    expect(metrics.premiumRequests).toBe(6)
    expect(metrics.apiDurationMs).toBe(6 * 1500)
    expect(metrics.filesModified).toEqual([])
  })

  it('keeps the last ten things the agent did, redacted', () => {
    expect(report.lastActivity).toHaveLength(REPORT_LIMITS.activityLines)
    expect(report.lastActivity.slice(-4)).toEqual([
      'ran bash: sleep 1000',
      'said: All done.',
      'task complete: Fixed `sum()`; the tests pass. Thanks @octocat, see #12.',
      'autopilot stopped: task_complete'
    ])
    const b = builder()
    play(b.state, recordedSession().slice(0, 40))
    const early = b.finish({ status: 'failed', endedAt: END }).lastActivity
    expect(early).toContain('ran bash: GH_TOKEN=*** npm test')
  })

  it('ignores deltas, unknown types and malformed known events', () => {
    const b = builder()
    for (const type of [
      'assistant.message_delta',
      'assistant.streaming_delta',
      'assistant.reasoning_delta',
      'brand.new_event',
      'model.call_failure'
    ]) {
      b.onEvent(ev(type, { toolCallId: 'x', toolName: 'bash', content: 'said' }))
    }
    b.onEvent(ev('tool.execution_start', { toolName: 'bash' }))
    b.onEvent(ev('session.shutdown', 'nonsense'))
    b.onEvent(ev('session.shutdown', { accountingSnapshot: 'nonsense', totalPremiumRequests: 2 }))
    const r = b.finish({ status: 'completed', endedAt: END })
    expect(r.tools).toEqual([])
    expect(r.lastActivity).toEqual([])
    expect(r.metrics.premiumRequests).toBe(2)
  })
})

describe('fold: details', () => {
  it('falls back to the receive time when events carry no timestamp', () => {
    const b = builder()
    b.onEvent(ev('tool.execution_start', { toolCallId: 'a', toolName: 'bash' }), 1000)
    b.onEvent(ev('tool.execution_complete', { toolCallId: 'a', success: true }), 1750)
    b.onEvent(ev('tool.execution_start', { toolCallId: 'b', toolName: 'bash' }), 5000)
    b.onEvent(ev('tool.execution_complete', { toolCallId: 'b', success: true }), 5020)
    b.onEvent(ev('tool.execution_start', { toolCallId: 'c', toolName: 'x' }, 'not a date'), 0)
    b.onEvent(ev('tool.execution_complete', { toolCallId: 'c', success: true }, 'bad'), 9)
    expect(b.finish({ status: 'completed', endedAt: END }).tools.map((t) => t.durationMs)).toEqual([
      750, 20, 9
    ])
  })

  it('redacts and truncates tool details to about 200 characters', () => {
    const b = builder()
    const long = `echo ${SECRET} ${'x'.repeat(1000)}\nsecond line`
    b.onEvent(
      ev('tool.execution_start', {
        toolCallId: 'a',
        toolName: 'bash',
        arguments: { command: long }
      })
    )
    b.onEvent(
      ev('tool.execution_complete', {
        toolCallId: 'a',
        success: false,
        error: { message: `bad token ${SECRET}`, code: 'failure' }
      })
    )
    const [tool] = b.finish({ status: 'failed', endedAt: END }).tools
    expect(tool?.target?.length).toBeLessThanOrEqual(REPORT_LIMITS.detailChars)
    expect(tool?.target).toMatch(/^echo \*\*\* x+…$/)
    expect(tool?.error).toBe('failure: bad token ***')
  })

  it('redacts secrets everywhere: summary, error, plan, todos, commands, request keys', () => {
    const b = builder({ secrets: [SECRET, 'abc', `line-one-secret\nline-two-secret`] })
    b.onEvent(ev('session.task_complete', { summary: `done ${SECRET} abc` }))
    b.onEvent(ev('session.error', { errorType: 'query', message: `no ${SECRET}`, statusCode: 500 }))
    b.setPlan(`plan ${SECRET}`)
    b.setTodos([{ id: '1', title: `todo line-two-secret`, status: 'done' }])
    b.onCommand({
      phase: 'verify',
      command: `curl -H "${SECRET}"`,
      exitCode: 1,
      timedOut: false,
      durationMs: 5,
      outputTail: `out line-one-secret`
    })
    b.onDecision(
      'r',
      { kind: 'custom-tool', toolName: 't', args: { [SECRET]: [SECRET, 1, true, null] } },
      { decision: 'deny', rule: 'default', kind: 'custom-tool', subject: 't' }
    )
    fold(b.state, { type: 'ended', ending: { kind: 'session-error' } })
    const r = toReport(b.state, { endedAt: END })
    expect(r.status).toBe('failed')
    expect(r.summary).toBe('done *** abc') // secrets under 4 characters are ignored
    expect(r.error).toEqual({ message: 'no *** (HTTP 500)', type: 'query' })
    expect(r.plan).toEqual({
      content: 'plan ***',
      todos: [{ id: '1', title: 'todo ***', status: 'done' }]
    })
    expect(r.commands[0]).toMatchObject({ command: 'curl -H "***"', outputTail: 'out ***' })
    expect(r.permissions[0]?.request.args).toEqual({ '***': ['***', 1, true, null] })
  })

  it('keeps the agent’s summary; the error is what settled the run', () => {
    const b = builder()
    b.onEvent(ev('session.task_complete', { summary: 'from the agent' }))
    b.onEvent(ev('session.error', { message: 'model down' }))
    expect(b.finish({ status: 'completed', endedAt: END })).toMatchObject({
      summary: 'from the agent'
    })
    expect(b.finish({ status: 'completed', endedAt: END }).error).toBeUndefined()
    expect(
      b.finish({
        status: 'timed-out',
        endedAt: END,
        error: { message: `timed out ${SECRET}`, type: 'timeout' }
      })
    ).toMatchObject({ error: { message: 'timed out ***', type: 'timeout' } })
  })

  it('finish() is a snapshot: the builder keeps folding, earlier reports do not change', () => {
    const b = builder()
    b.onEvent(ev('tool.execution_start', { toolCallId: 'a', toolName: 'bash' }))
    const first = b.finish({ status: 'incomplete', endedAt: END })
    b.onEvent(ev('tool.execution_complete', { toolCallId: 'a', success: true }))
    const second = b.finish({ status: 'completed', endedAt: END })
    expect(first.tools[0]?.success).toBeNull()
    expect(second.tools[0]?.success).toBe(true)
    expect(first.toolStats?.bash?.succeeded).toBe(0)
  })

  it('orders metric sources: shutdown > getMetrics > usage events, whatever the arrival order', () => {
    const usage = ev('assistant.usage', { model: 'm', inputTokens: 1, outputTokens: 1, cost: 1 })
    const shutdown = ev('session.shutdown', {
      totalPremiumRequests: 9,
      modelMetrics: { m: { requests: { count: 9 }, usage: { inputTokens: 90 } } }
    })
    const b = builder()
    b.onEvent(usage)
    b.onEvent(shutdown)
    b.setMetrics({ type: 'metrics', metrics: { totalPremiumRequests: 5, totalApiDurationMs: 100 } })
    const r = b.finish({ status: 'completed', endedAt: END })
    expect(r.metrics.premiumRequests).toBe(9)
    expect(r.metrics.apiDurationMs).toBe(100) // the shutdown had none: getMetrics fills it
    expect(r.metrics.models.m).toMatchObject({ requests: 9, inputTokens: 90, outputTokens: 0 })

    const c = builder()
    c.onEvent(usage)
    c.setMetrics({
      type: 'metrics',
      metrics: {
        totalPremiumRequestCost: 3,
        codeChanges: { linesAdded: 1, linesRemoved: 2, filesModified: ['a'] }
      }
    })
    expect(c.finish({ status: 'completed', endedAt: END }).metrics).toMatchObject({
      premiumRequests: 3,
      linesAdded: 1,
      linesRemoved: 2,
      filesModified: ['a'],
      models: { m: { requests: 1, inputTokens: 1 } }
    })
  })

  it('keeps a plan read at the end over the one from exit_plan_mode', () => {
    const b = builder()
    b.onEvent(ev('exit_plan_mode.requested', { requestId: 'r', planContent: 'from event' }))
    b.setPlan(null)
    expect(b.finish({ status: 'completed', endedAt: END }).plan.content).toBe('from event')
    b.setPlan('plan.md')
    b.onEvent(ev('exit_plan_mode.requested', { requestId: 'r', planContent: 'later event' }))
    expect(b.finish({ status: 'completed', endedAt: END }).plan.content).toBe('plan.md')
  })

  it("records the checkout's credentials taken out and put back, the last word kept, redacted", () => {
    const b = builder()
    const removed = ['.git/config: http.https://github.com/.extraheader']
    fold(b.state, { type: 'credentials', record: { removed, restored: false } })
    expect(b.finish({ status: 'completed', endedAt: END }).credentials).toEqual({
      removed,
      restored: false
    })
    fold(b.state, {
      type: 'credentials',
      record: { removed, restored: false, error: `could not write ${SECRET}` }
    })
    const report = b.finish({ status: 'completed', endedAt: END })
    expect(report.credentials?.error).toBe('could not write ***')
    fold(b.state, { type: 'credentials', record: { removed, restored: true } })
    expect(b.finish({ status: 'completed', endedAt: END }).credentials).toEqual({
      removed,
      restored: true
    })
    expect(builder().finish({ status: 'completed', endedAt: END }).credentials).toBeUndefined()
  })

  it('treats __proto__ as a plain name', () => {
    const b = builder()
    b.onEvent(ev('tool.execution_start', { toolCallId: 'a', toolName: '__proto__' }))
    b.onEvent(
      ev('session.shutdown', {
        modelMetrics: JSON.parse('{"__proto__": {"requests": {"count": 1}}}') as unknown
      })
    )
    const r = b.finish({ status: 'completed', endedAt: END })
    expect(Object.keys(r.toolStats ?? {})).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(r.toolStats)).toBe(Object.prototype)
    expect(Object.getPrototypeOf(r.metrics.models)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).calls).toBeUndefined()
    expect(({} as Record<string, unknown>).requests).toBeUndefined()
  })

  it('clips huge permission payloads', () => {
    const b = builder()
    b.onDecision(
      'r',
      {
        kind: 'write',
        fileName: 'f',
        newFileContents: 'x'.repeat(1_000_000),
        possiblePaths: Array(500).fill('p')
      },
      { decision: 'allow', rule: 'r', kind: 'write', subject: 'f' }
    )
    const request = b.finish({ status: 'completed', endedAt: END }).permissions[0]?.request
    expect(request?.newFileContents?.length).toBeLessThanOrEqual(REPORT_LIMITS.requestString)
    expect(request?.possiblePaths).toHaveLength(REPORT_LIMITS.requestArray + 1)
  })
})

describe('fold: memory and speed', () => {
  it('keeps bounded records over many tool calls, with exact aggregates and failures kept', () => {
    const b = builder()
    const calls = 20_000
    for (let i = 0; i < calls; i++) {
      b.onEvent(
        ev('tool.execution_start', { toolCallId: `c${i}`, toolName: i % 2 ? 'bash' : 'view' }),
        i
      )
      b.onEvent(
        ev('tool.execution_complete', { toolCallId: `c${i}`, success: i % 1000 !== 7 }),
        i + 1
      )
      b.onDecision(
        `r${i}`,
        { kind: 'shell', fullCommandText: 'ls' },
        { decision: i % 500 === 3 ? 'deny' : 'allow', rule: 'r', kind: 'shell', subject: 'ls' }
      )
    }
    const r = b.finish({ status: 'completed', endedAt: END })
    expect(r.tools.length).toBeLessThan(2 * REPORT_LIMITS.toolRecords)
    expect(r.tools.length + (r.toolsOmitted ?? 0)).toBe(calls)
    expect(r.tools.filter((t) => t.success === false)).toHaveLength(calls / 1000) // all kept
    expect(r.toolStats?.bash).toEqual({
      calls: 10_000,
      succeeded: 10_000 - 20,
      failed: 20,
      denied: 0,
      durationMs: 10_000
    })
    expect(r.toolStats?.view?.calls).toBe(10_000)
    expect(r.permissions.length).toBeLessThan(2 * REPORT_LIMITS.permissionRecords)
    expect(r.permissions.filter((p) => p.decision === 'deny')).toHaveLength(calls / 500)
    expect(r.permissionCounts?.shell).toEqual({ allow: calls - calls / 500, deny: calls / 500 })
  })

  it('bounds calls that start and never complete', () => {
    const b = builder()
    for (let i = 0; i < 10_000; i++) {
      b.onEvent(ev('tool.execution_start', { toolCallId: `c${i}`, toolName: 'bash' }), i)
    }
    const r = b.finish({ status: 'failed', endedAt: END })
    expect(r.tools.length).toBeLessThan(2 * REPORT_LIMITS.toolRecords)
    expect(r.toolStats?.bash?.calls).toBe(10_000)
  })

  // How fast: `npm run bench` (bench/fold.ts, 1M events); no timing in unit tests.
  it('folds a long stream of deltas and usage events, counting every usage', () => {
    const stream: SessionEvent[] = []
    for (let i = 0; i < 100_000; i++) {
      stream.push(
        i % 10 === 9
          ? {
              id: `e${i}`,
              timestamp: '2026-11-22T10:00:00.000Z',
              ephemeral: true,
              type: 'assistant.usage',
              data: { model: 'm', inputTokens: 10, outputTokens: 2, cacheReadTokens: 1, cost: 1 }
            }
          : i % 10 === 8
            ? { id: `e${i}`, type: 'session.background_tasks_changed', data: { tasks: [] } }
            : {
                id: `e${i}`,
                timestamp: '2026-11-22T10:00:00.000Z',
                ephemeral: true,
                type: 'assistant.message_delta',
                data: { messageId: 'm', deltaContent: 'tok' }
              }
      )
    }
    const b = builder()
    for (const event of stream) b.onEvent(event)
    expect(b.finish({ status: 'completed', endedAt: END }).metrics.models.m?.requests).toBe(10_000)
  })
})

describe('fold: MCP servers and the custom agent', () => {
  /** As CLI 1.0.102 sends them (ephemeral events, recorded with bench's recorder). */
  const mcpEvents = (b: Builder) => {
    b.onEvent(ev('session.mcp_server_status_changed', { serverName: 'fixture', status: 'pending' }))
    b.onEvent(
      ev('session.mcp_server_status_changed', {
        serverName: 'fixture',
        status: 'connected',
        configSource: 'user'
      })
    )
    b.onEvent(ev('session.mcp_server_tools_loaded', { serverName: 'fixture', toolCount: 2 }))
    b.onEvent(
      ev('session.mcp_servers_loaded', {
        servers: [
          { name: 'fixture', status: 'connected', serverMetadata: { instructions: null } },
          {
            name: 'broken',
            status: 'failed',
            error: `MCP server process exited; last stderr: token=${SECRET}`
          }
        ]
      })
    )
  }

  it('lists each configured server, whether it started, its tools, calls and denials', () => {
    const b = builder()
    fold(b.state, { type: 'session-created', sessionId: 's-1' })
    fold(b.state, {
      type: 'session-options',
      mcpServers: [
        { name: 'fixture', type: 'local' },
        { name: 'broken', type: 'local' },
        { name: 'silent', type: 'http' }
      ],
      agent: { name: 'reviewer', file: '.github/agents/reviewer.agent.md' }
    })
    b.onEvent(ev('subagent.selected', { agentName: 'reviewer', tools: null }))
    mcpEvents(b)
    b.onEvent(
      ev('tool.execution_start', {
        toolCallId: 'c1',
        toolName: 'fixture-echo',
        arguments: { text: 'hi' },
        mcpServerName: 'fixture',
        mcpToolName: 'echo'
      })
    )
    b.onEvent(
      ev('tool.execution_start', {
        toolCallId: 'c2',
        toolName: 'fixture-token_check',
        arguments: {},
        mcpServerName: 'fixture'
      })
    )
    b.onDecision(
      'r2',
      { kind: 'mcp', toolCallId: 'c2', serverName: 'fixture', toolName: 'fixture-token_check' },
      { decision: 'deny', rule: 'default', kind: 'mcp', subject: 'fixture/token_check' }
    )
    const report = b.finish({ status: 'completed', endedAt: END })
    expect(report.mcpServers).toEqual([
      { name: 'fixture', type: 'local', status: 'connected', tools: 2, calls: 2, denied: 1 },
      {
        name: 'broken',
        type: 'local',
        status: 'failed',
        error: 'MCP server process exited; last stderr: token=***',
        calls: 0,
        denied: 0
      },
      { name: 'silent', type: 'http', status: 'not-reported', calls: 0, denied: 0 }
    ])
    expect(report.agent).toEqual({
      name: 'reviewer',
      file: '.github/agents/reviewer.agent.md',
      selected: true
    })
  })

  it('lists servers the CLI loaded by itself, and leaves both out when there are none', () => {
    const b = builder()
    mcpEvents(b)
    expect(b.finish({ status: 'completed', endedAt: END }).mcpServers?.map((s) => s.type)).toEqual([
      'unknown',
      'unknown'
    ])
    const plain = foldSession()
    expect(plain.mcpServers).toBeUndefined()
    expect(plain.agent).toBeUndefined()
  })
})

describe('subagents and the quota', () => {
  it('counts each subagent’s calls, also those the record limit drops from tools', () => {
    const b = builder()
    b.onEvent(ev('tool.execution_start', { toolCallId: 't1', toolName: 'task', arguments: {} }))
    b.onEvent(ev('tool.execution_start', { toolCallId: 't2', toolName: 'task', arguments: {} }))
    b.onEvent(
      ev('subagent.started', {
        toolCallId: 't1',
        agentName: 'general-purpose',
        agentDisplayName: 'a'
      })
    )
    b.onEvent(ev('subagent.started', { toolCallId: 't2', agentName: 'explore' }))
    const calls = 2 * REPORT_LIMITS.toolRecords + 5
    for (let i = 0; i < calls; i++) {
      const toolCallId = `a${i}`
      b.onEvent(
        ev('tool.execution_start', {
          toolCallId,
          toolName: 'view',
          arguments: {},
          parentToolCallId: 't1'
        })
      )
      b.onEvent(
        ev('tool.execution_complete', { toolCallId, success: true, parentToolCallId: 't1' })
      )
    }
    // a completion without a start (denied before it ran) counts too
    b.onEvent(
      ev('tool.execution_complete', { toolCallId: 'b1', success: false, parentToolCallId: 't2' })
    )
    // an internal call does not
    b.onEvent(
      ev('tool.execution_start', {
        toolCallId: 'r1',
        toolName: 'report_intent',
        arguments: {},
        parentToolCallId: 't2'
      })
    )
    b.onEvent(ev('subagent.completed', { toolCallId: 't1', agentName: 'general-purpose' }))
    const report = b.finish({ status: 'completed', endedAt: END })
    expect(report.toolsOmitted).toBeGreaterThan(0)
    expect(report.subagents?.map((s) => [s.name, s.outcome, s.calls])).toEqual([
      ['a', 'completed', calls],
      ['explore', 'running', 1]
    ])
  })

  it('keeps the quota as recorded, its reset date clipped and redacted', () => {
    const b = builder()
    fold(b.state, {
      type: 'quota',
      quota: {
        premiumUsed: 3,
        remainingPercentage: 99,
        unlimited: false,
        premiumRemaining: 297,
        premiumEntitlement: 300,
        overage: 0,
        resetDate: `${SECRET}${'x'.repeat(100)}`
      }
    })
    const report = b.finish({ status: 'completed', endedAt: END })
    expect(report.quota).toMatchObject({ premiumRemaining: 297, premiumUsed: 3 })
    expect(report.quota?.resetDate).not.toContain(SECRET)
    expect(report.quota?.resetDate?.length).toBeLessThanOrEqual(40)
  })
})
