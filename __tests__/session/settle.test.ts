/**
 * The run's status is decided once, from its one state: these cases are what the report used to
 * claim wrongly (a ✅ with a failing verify command, a task_complete the CLI refused, internal
 * calls and denials counted as failures, the session's own plan.md as a repository file).
 */
import type { SessionEvent } from '../../src/cli/protocol.js'
import { toReport } from '../../src/reporting/report.js'
import { formatMinutes } from '../../src/text/safe-text.js'
import type { CommandRecord } from '../../src/reporting/types.js'
import {
  createState,
  fold,
  settle,
  stopReason,
  type Ending,
  type RunInput,
  type RunState
} from '../../src/session/fold.js'

const END = '2026-11-23T10:05:00.000Z'

function state(...inputs: RunInput[]): RunState {
  const s = createState({
    startedAt: '2026-11-23T10:00:00.000Z',
    policySource: '.github/copilot-policy.yml',
    workingDirectory: '/ws',
    maxAutopilotContinues: 5
  })
  for (const input of inputs) fold(s, input)
  return s
}

const event = (type: string, data: unknown = {}): RunInput => ({
  type: 'event',
  event: { type, data } satisfies SessionEvent
})
const ended = (ending: Ending): RunInput => ({ type: 'ended', ending })
const command = (
  phase: 'setup' | 'verify',
  exitCode: number | null,
  timedOut = false
): RunInput => ({
  type: 'command',
  record: {
    phase,
    command: phase === 'setup' ? 'npm ci' : 'npm test',
    exitCode,
    timedOut,
    durationMs: 1200,
    outputTail: 'FAIL src/sum.test.ts'
  } satisfies CommandRecord
})
const taskComplete = event('session.task_complete', { summary: 'All tests pass.' })
const idle = event('session.idle')

describe('settle: one status from one state', () => {
  it('completed only when the agent completed and every verify command passed', () => {
    expect(settle(state(taskComplete, command('verify', 0), ended({ kind: 'idle' })))).toEqual({
      status: 'completed'
    })
  })

  it('verify-failed when a verify command fails after task_complete, naming it', () => {
    const settled = settle(
      state(taskComplete, command('verify', 0), command('verify', 1), ended({ kind: 'idle' }))
    )
    expect(settled.status).toBe('verify-failed')
    expect(settled.error?.message).toContain('`npm test`')
    expect(settled.error?.type).toBe('verify')
    // A timed-out verify command fails too.
    expect(
      settle(state(taskComplete, command('verify', null, true), ended({ kind: 'idle' }))).status
    ).toBe('verify-failed')
  })

  it('the report carries the same status and the agent’s claim, never a completion', () => {
    const report = toReport(state(taskComplete, command('verify', 2), ended({ kind: 'idle' })), {
      endedAt: END
    })
    expect(report.status).toBe('verify-failed')
    expect(report.summary).toBe('All tests pass.')
    expect(report.completion).toEqual({ state: 'accepted' })
  })

  it('a task_complete the CLI refused is not a completion', () => {
    const s = state(
      event('tool.execution_start', { toolCallId: 't1', toolName: 'task_complete' }),
      taskComplete,
      event('tool.execution_complete', {
        toolCallId: 't1',
        success: false,
        error: { message: 'task_complete is not available in plan mode' }
      }),
      ended({ kind: 'idle' })
    )
    expect(s.completion).toEqual({
      state: 'rejected',
      reason: 'task_complete is not available in plan mode'
    })
    const settled = settle(s)
    expect(settled.status).toBe('incomplete')
    expect(settled.error?.message).toContain('refused')
  })

  it('a later accepted task_complete stands', () => {
    const s = state(
      event('tool.execution_start', { toolCallId: 't1', toolName: 'task_complete' }),
      taskComplete,
      event('tool.execution_complete', { toolCallId: 't1', success: false }),
      event('tool.execution_start', { toolCallId: 't2', toolName: 'task_complete' }),
      taskComplete,
      event('tool.execution_complete', { toolCallId: 't2', success: true }),
      ended({ kind: 'idle' })
    )
    expect(settle(s).status).toBe('completed')
  })

  it('a task_complete the CLI marks unsuccessful (blocked, rejected) is incomplete', () => {
    const settled = settle(
      state(
        event('session.task_complete', { success: false, outcome: 'blocked', reason: 'reviewer' }),
        ended({ kind: 'idle' })
      )
    )
    expect(settled.status).toBe('incomplete')
    expect(settled.error?.type).toBe('task-complete-rejected')
    expect(settled.error?.message).toContain('reviewer')
  })

  it('idle without task_complete: incomplete, saying why autopilot stopped', () => {
    expect(
      settle(
        state(
          event('session.autopilot_stopped', { reason: 'cap_reached' }),
          ended({ kind: 'idle' })
        )
      ).error?.message
    ).toContain('maximum number of autopilot continues (5)')
  })

  it.each<[Ending, string, string]>([
    [{ kind: 'timeout', limitMs: 30_000 }, 'timed-out', 'within 30 s'],
    [{ kind: 'timeout', limitMs: 90_000 }, 'timed-out', 'within 1.5 min'],
    [{ kind: 'hang', quietMs: 120_000 }, 'timed-out', 'no event for 2 min'],
    [{ kind: 'cancelled', during: 'setup' }, 'cancelled', 'during the setup commands'],
    [{ kind: 'cli-exit', message: 'The Copilot CLI exited' }, 'failed', 'CLI exited'],
    [{ kind: 'crashed', message: 'bad input', type: 'configuration' }, 'failed', 'bad input']
  ])('%o → %s', (ending, status, message) => {
    const settled = settle(state(ended(ending)))
    expect(settled.status).toBe(status)
    expect(settled.error?.message).toContain(message)
  })

  it('a failing setup command names the command; the agent never started', () => {
    const settled = settle(state(command('setup', 3), ended({ kind: 'setup-failed' })))
    expect(settled.error?.message).toBe(
      'Setup command `npm ci` failed with exit code 3; the agent was not started.'
    )
  })

  it('the first ending is the one that happened', () => {
    const s = state(ended({ kind: 'hang', quietMs: 60_000 }), ended({ kind: 'idle' }))
    expect(settle(s).status).toBe('timed-out')
  })

  it('never rounds half a minute to a minute', () => {
    expect(formatMinutes(30_000)).toBe('30 s')
    expect(formatMinutes(59_000)).toBe('59 s')
    expect(formatMinutes(60_000)).toBe('1 min')
    expect(formatMinutes(150_000)).toBe('2.5 min')
    expect(formatMinutes(100_000)).toBe('1 min 40 s')
  })
})

describe('stopReason: the wait asks the state', () => {
  it('is undefined while the agent works, idle once it is idle', () => {
    const s = state({ type: 'prompt-sent' })
    expect(stopReason(s)).toBeUndefined()
    fold(s, idle)
    expect(stopReason(s)).toEqual({ kind: 'idle' })
  })

  it('an idle before the prompt is not the agent finishing', () => {
    expect(stopReason(state(idle))).toBeUndefined()
  })

  it('stops at a session error while working', () => {
    const s = state({ type: 'prompt-sent' }, event('session.error', { message: 'HTTP 500' }))
    expect(stopReason(s)).toEqual({ kind: 'session-error' })
    expect(settle(fold(s, ended({ kind: 'session-error' })))).toEqual({
      status: 'failed',
      error: { message: 'HTTP 500' }
    })
  })

  it('stops when the sandbox the run started with did not engage, required or auto', () => {
    const failed = event('sandbox.decision', {
      kind: 'enforcement_state',
      outcome: 'failed',
      backend: 'bubblewrap'
    })
    // auto, and the probe found it working: the CLI fails every command closed, so never
    // `completed` beside it
    const optional = state(
      { type: 'sandbox', record: { state: 'enforced' }, required: false },
      { type: 'prompt-sent' },
      failed
    )
    expect(stopReason(optional)).toEqual({ kind: 'sandbox-failed' })
    expect(optional.sandbox?.state).toBe('unavailable')
    expect(settle(fold(optional, ended({ kind: 'sandbox-failed' })))).toEqual({
      status: 'failed',
      error: {
        message: expect.stringMatching(
          /^The OS sandbox did not engage: .*sandbox\.mode: auto.*the agent cannot run shell commands: the run is stopped\.$/
        ) as unknown,
        type: 'sandbox'
      }
    })
    // auto without the sandbox (not passed to the CLI): whatever the events say, the run goes on
    const without = state(
      { type: 'sandbox', record: { state: 'unavailable', reason: 'no bwrap' }, required: false },
      { type: 'prompt-sent' },
      failed
    )
    expect(stopReason(without)).toBeUndefined()
    // and no warning that commands "fail closed": the sandbox was never asked for
    expect(without.sandboxFailure).toBeUndefined()
    expect(without.sandbox).toEqual({ state: 'unavailable', reason: 'no bwrap' })
    const required = state(
      { type: 'sandbox', record: { state: 'enforced' }, required: true },
      { type: 'prompt-sent' },
      failed
    )
    expect(stopReason(required)).toEqual({ kind: 'sandbox-failed' })
    expect(settle(fold(required, ended({ kind: 'sandbox-failed' }))).error?.message).toContain(
      'sandbox.mode: required'
    )
  })
})

describe('what counts as the agent’s work', () => {
  it('internal calls (report_intent) are counted apart, never as tools or failures', () => {
    const report = toReport(
      state(
        event('tool.execution_start', { toolCallId: 'i1', toolName: 'report_intent' }),
        event('tool.execution_complete', { toolCallId: 'i1', success: false }),
        event('assistant.message', { toolRequests: [{ toolCallId: 'i2', name: 'report_intent' }] }),
        event('tool.execution_complete', { toolCallId: 'i2', success: false }),
        ended({ kind: 'idle' })
      ),
      { endedAt: END }
    )
    expect(report.tools).toEqual([])
    expect(report.toolStats).toEqual({})
    expect(report.internalCalls).toBe(2)
  })

  it('calls inside a subagent name it, and the subagent is recorded', () => {
    const report = toReport(
      state(
        event('tool.execution_start', {
          toolCallId: 'task-1',
          toolName: 'task',
          arguments: { description: 'Explore the tests' }
        }),
        event('subagent.started', {
          toolCallId: 'task-1',
          agentName: 'explore',
          agentDisplayName: 'Explore Agent',
          agentDescription: 'Reads code'
        }),
        event('tool.execution_start', {
          toolCallId: 'c1',
          toolName: 'grep',
          arguments: { pattern: 'sum(' },
          parentToolCallId: 'task-1'
        }),
        event('tool.execution_complete', { toolCallId: 'c1', success: true }),
        event('subagent.completed', { toolCallId: 'task-1', agentName: 'explore' }),
        event('tool.execution_complete', { toolCallId: 'task-1', success: true }),
        ended({ kind: 'idle' })
      ),
      { endedAt: END }
    )
    expect(report.subagents).toEqual([
      {
        toolCallId: 'task-1',
        name: 'Explore Agent',
        description: 'Reads code',
        outcome: 'completed',
        calls: 1
      }
    ])
    expect(report.tools.map((t) => [t.name, t.target, t.parentToolCallId])).toEqual([
      ['task', 'Explore the tests', undefined],
      ['grep', 'sum(', 'task-1']
    ])
  })

  it('the session’s own plan.md is not a modified repository file', () => {
    const s = state(
      { type: 'session-created', sessionId: 'abc-123' },
      {
        type: 'metrics',
        metrics: {
          codeChanges: {
            linesAdded: 3,
            linesRemoved: 0,
            filesModified: [
              '/ws/src/sum.ts',
              '/home/runner/.copilot/session-state/abc-123/plan.md',
              '/tmp/x/copilot-home/session-state/abc-123/files/notes.md'
            ]
          }
        }
      }
    )
    expect(toReport(s, { endedAt: END }).metrics.filesModified).toEqual(['/ws/src/sum.ts'])
  })
})

describe('bounds that must not change the outcome', () => {
  it('a refused task_complete is seen past 200 tool names', () => {
    const inputs: RunInput[] = []
    for (let i = 0; i < 210; i++) {
      inputs.push(event('tool.execution_start', { toolCallId: `x${i}`, toolName: `tool_${i}` }))
    }
    inputs.push(
      event('tool.execution_start', { toolCallId: 't', toolName: 'task_complete' }),
      taskComplete,
      event('tool.execution_complete', { toolCallId: 't', success: false }),
      ended({ kind: 'idle' })
    )
    expect(settle(state(...inputs)).status).toBe('incomplete')
  })

  it('a failing verify command past the record limit still fails the run', () => {
    const inputs: RunInput[] = [taskComplete]
    for (let i = 0; i < 200; i++) inputs.push(command('verify', 0))
    inputs.push(command('verify', 7), ended({ kind: 'idle' }))
    expect(settle(state(...inputs)).status).toBe('verify-failed')
  })

  it('a recent denial survives the bound on decisions in flight (the oldest are forgotten)', () => {
    const allow = (i: number): RunInput => ({
      type: 'decision',
      requestId: `r${i}`,
      request: { kind: 'shell', fullCommandText: 'ls', toolCallId: `c${i}` },
      decision: { decision: 'allow', rule: 'ls', kind: 'shell', subject: 'ls' }
    })
    const inputs: RunInput[] = []
    for (let i = 0; i < 999; i++) inputs.push(allow(i))
    inputs.push({
      type: 'decision',
      requestId: 'rd',
      request: { kind: 'shell', fullCommandText: 'git push', toolCallId: 'd' },
      decision: { decision: 'deny', rule: 'no-push', kind: 'shell', subject: 'git push' }
    })
    for (let i = 999; i < 1010; i++) inputs.push(allow(i))
    inputs.push(event('tool.execution_complete', { toolCallId: 'd', success: false }))
    const report = toReport(state(...inputs), { endedAt: END })
    expect(report.tools[0]).toMatchObject({ outcome: 'denied', rule: 'no-push' })
    expect(report.toolStats?.unknown).toMatchObject({ failed: 0, denied: 1 })
  })

  it('usage events with no data are ignored, not thrown', () => {
    expect(() =>
      state({ type: 'event', event: { type: 'assistant.usage', data: null } })
    ).not.toThrow()
  })

  it('secrets are redacted before text is cut', () => {
    const secret = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz'
    const s = createState({ startedAt: END, policySource: 'p', secrets: [secret] })
    fold(s, {
      type: 'event',
      event: {
        type: 'subagent.started',
        data: { toolCallId: 's', agentDisplayName: `${'x'.repeat(80)}${secret}` }
      }
    })
    fold(s, {
      type: 'policy',
      source: 'p',
      builtIn: false,
      issues: [{ file: 'p', line: 1, column: 1, message: `${'y'.repeat(980)}${secret}`, fix: 'f' }]
    })
    const report = toReport(s, { endedAt: END })
    expect(JSON.stringify(report)).not.toContain('ghp_0123')
  })
})

describe('the token budget (max-tokens)', () => {
  const usage = (input: number, output: number): RunInput =>
    event('assistant.usage', { model: 'm', inputTokens: input, outputTokens: output })

  it('stops the run once input + output tokens reach the budget', () => {
    const s = createState({
      startedAt: '2026-11-23T10:00:00.000Z',
      policySource: 'p',
      maxTokens: 1000
    })
    fold(s, { type: 'prompt-sent' })
    fold(s, usage(400, 100))
    expect(stopReason(s)).toBeUndefined()
    fold(s, usage(450, 50))
    expect(stopReason(s)).toEqual({ kind: 'budget', used: 1000, limit: 1000 })
    const settled = settle(
      fold(s, { type: 'ended', ending: { kind: 'budget', used: 1000, limit: 1000 } })
    )
    expect(settled.status).toBe('budget-exceeded')
    expect(settled.error?.message).toContain('max-tokens (1,000)')
  })

  it('no budget, no stop', () => {
    const s = state({ type: 'prompt-sent' }, usage(10_000_000, 1))
    expect(stopReason(s)).toBeUndefined()
  })
})
