/**
 * Fixtures for the reporting tests: a generator of realistic CLI event streams (shapes as
 * recorded from Copilot CLI 1.0.102, trimmed) and hand-made reports for rendering.
 */
import type { PermissionRequest, SessionEvent } from '../../src/cli/protocol.js'
import type { Decision } from '../../src/policy/types.js'
import { fold, type RunState } from '../../src/session/fold.js'
import type { Report, RunStatus } from '../../src/reporting/types.js'

export const SECRET = 'ghp_SuperSecretToken1234567890'
export const START = '2026-11-22T10:00:00.000Z'

/** One thing the driver does: forward an event, or record the policy's decision. */
export type Step =
  | { event: SessionEvent }
  | { decision: { requestId: string; request: PermissionRequest; decision: Decision } }

export interface SessionOptions {
  /** Deltas per assistant message (most of a real stream). */
  deltas?: number
  /** `flat` (older builds), `snapshot` (1.0.102: figures only under accountingSnapshot). */
  shutdown?: 'flat' | 'snapshot' | 'none'
}

/**
 * A recorded-looking session: plan, a few tool calls (one failing, one denied by the policy, one
 * never finishing), deltas, usage events, unknown event types, extra fields, malformed known
 * events, task_complete and shutdown. Timestamps advance 100 ms an event unless said otherwise.
 */
export function recordedSession(options: SessionOptions = {}): Step[] {
  const deltas = options.deltas ?? 5
  const steps: Step[] = []
  let clock = Date.parse(START)
  let n = 0
  let parentId: string | null = null
  const emit = (type: string, data: unknown, extra: Partial<SessionEvent> = {}): void => {
    clock += extra.timestamp === undefined ? 100 : 0
    const id = `ev-${++n}`
    steps.push({
      event: {
        id,
        timestamp: new Date(clock).toISOString(),
        parentId,
        type,
        data,
        ...extra
      }
    })
    parentId = id
  }
  const wait = (ms: number): void => {
    clock += ms
  }
  const decide = (requestId: string, request: PermissionRequest, decision: Decision): void => {
    emit('permission.requested', { requestId, permissionRequest: request }, { ephemeral: true })
    steps.push({ decision: { requestId, request, decision } })
    const kind = decision.decision === 'allow' ? 'approved' : 'denied-interactively-by-user'
    emit(
      'permission.completed',
      { requestId, toolCallId: request.toolCallId, result: { kind } },
      { ephemeral: true }
    )
  }
  const say = (content: string, toolRequests: unknown[] = []): void => {
    emit('assistant.turn_start', { turnId: String(n), interactionId: 'i-1' })
    emit('assistant.intent', { intent: 'Exploring codebase' }, { ephemeral: true })
    for (let i = 0; i < deltas; i++) {
      emit(
        'assistant.message_delta',
        { messageId: 'm', deltaContent: content.slice(i, i + 1) },
        { ephemeral: true }
      )
      emit('assistant.streaming_delta', { totalResponseSizeBytes: i * 10 }, { ephemeral: true })
    }
    emit('assistant.message', {
      messageId: `m-${n}`,
      content,
      toolRequests,
      outputTokens: 12,
      phase: 'final',
      reasoningOpaque: 'xyz'
    })
    emit(
      'assistant.usage',
      {
        model: 'claude-sonnet-4.5',
        inputTokens: 1000,
        outputTokens: 100,
        cacheReadTokens: 500,
        cacheWriteTokens: 50,
        cost: 1,
        duration: 1500,
        initiator: 'agent'
      },
      { ephemeral: true }
    )
  }

  // Session start noise the builder does not know.
  emit('session.start', { sessionId: 's-1', version: 1, producer: 'copilot-agent' })
  emit('session.mode_changed', { previousMode: 'interactive', newMode: 'plan' })
  emit('model.call_start', { model: 'claude-sonnet-4.5' }, { ephemeral: true })
  emit('session.background_tasks_changed', { tasks: [] }, { ephemeral: true })
  emit('session.usage_info', { tokenLimit: 200000, currentTokens: 1200, messagesLength: 3 })

  say('I will write a plan first.')
  emit('exit_plan_mode.requested', {
    requestId: 'plan-1',
    summary: 'Fix the failing test',
    planContent: '# Plan\n\n1. Run the tests\n2. Fix `sum()`\n',
    actions: ['autopilot', 'interactive', 'exit_only'],
    recommendedAction: 'autopilot'
  })
  emit('session.mode_changed', { previousMode: 'plan', newMode: 'autopilot' })

  // 1: a shell call, allowed, succeeds (the command carries a secret).
  say('Running the tests.', [{ toolCallId: 'call-1', name: 'bash', arguments: {} }])
  const shell1: PermissionRequest = {
    kind: 'shell',
    toolCallId: 'call-1',
    fullCommandText: `GH_TOKEN=${SECRET} npm test`,
    commands: [{ identifier: 'npm', readOnly: false }],
    possiblePaths: [],
    hasWriteFileRedirection: false,
    intention: 'Run the tests'
  }
  decide('perm-1', shell1, {
    decision: 'allow',
    rule: 'tests',
    kind: 'shell',
    subject: `GH_TOKEN=${SECRET} npm test`
  })
  emit('tool.execution_start', {
    toolCallId: 'call-1',
    toolName: 'bash',
    arguments: { command: `GH_TOKEN=${SECRET} npm test`, description: 'Run tests', mode: 'sync' }
  })
  emit(
    'tool.execution_partial_result',
    { toolCallId: 'call-1', partialOutput: 'PASS' },
    { ephemeral: true }
  )
  wait(2400)
  emit('tool.execution_complete', {
    toolCallId: 'call-1',
    success: true,
    model: 'claude-sonnet-4.5',
    result: { content: 'Tests: 3 failed, 10 passed', detailedContent: 'long output' },
    toolTelemetry: { exitCode: 1 }
  })

  // 2: a read with no permission request, fails.
  say('Reading the source.', [{ toolCallId: 'call-2', name: 'view' }])
  emit('tool.execution_start', {
    toolCallId: 'call-2',
    toolName: 'view',
    arguments: { path: '/ws/src/missing.ts' }
  })
  emit('tool.execution_complete', {
    toolCallId: 'call-2',
    success: false,
    error: { message: 'Path does not exist', code: 'failure' }
  })

  // 3: a shell call denied by the policy (completes as denied without a start).
  say('Pushing the fix.', [{ toolCallId: 'call-3', name: 'bash' }])
  const push: PermissionRequest = {
    kind: 'shell',
    toolCallId: 'call-3',
    fullCommandText: 'git push origin main',
    commandSegments: [{ identifier: 'git', fullCommandText: 'git push origin main' }],
    args: { nested: [{ token: SECRET }] }
  }
  decide('perm-2', push, {
    decision: 'deny',
    rule: 'no-push',
    reason: 'Pushing is done by the workflow, not the agent.',
    kind: 'shell',
    subject: 'git push origin main'
  })
  emit('tool.execution_complete', {
    toolCallId: 'call-3',
    success: false,
    error: { message: 'Permission denied: Pushing is done by the workflow', code: 'denied' }
  })

  // 4: an edit, allowed, succeeds.
  say('Editing.', [{ toolCallId: 'call-4', name: 'edit' }])
  decide(
    'perm-3',
    { kind: 'write', toolCallId: 'call-4', fileName: '/ws/src/sum.ts', diff: '-a\n+b' },
    { decision: 'allow', rule: 'src', kind: 'write', subject: '/ws/src/sum.ts' }
  )
  emit('tool.execution_start', {
    toolCallId: 'call-4',
    toolName: 'edit',
    arguments: { path: '/ws/src/sum.ts', old_str: 'a', new_str: 'b' }
  })
  wait(300)
  emit('tool.execution_complete', {
    toolCallId: 'call-4',
    success: true,
    result: { content: 'ok' }
  })

  // Malformed known events and odd shapes: ignored, never fatal.
  emit('tool.execution_start', { toolName: 'bash' }) // no toolCallId
  emit('tool.execution_complete', { success: true }) // no toolCallId
  emit('assistant.usage', { model: 'claude-sonnet-4.5', inputTokens: 'many' }) // caught to 0
  emit('assistant.message', { content: 42 }) // content not a string
  emit('permission.requested', { nope: true })
  emit('session.error', 'not an object')
  emit('session.task_complete', null)
  emit('hook.start', { hookType: 'preToolUse' })

  // 5: a call that never completes.
  emit('tool.execution_start', {
    toolCallId: 'call-5',
    toolName: 'bash',
    arguments: { command: 'sleep 1000' }
  })

  say('All done.')
  emit('session.task_complete', {
    summary: 'Fixed `sum()`; the tests pass. Thanks @octocat, see #12.',
    success: true
  })
  emit('session.autopilot_stopped', { reason: 'task_complete' })
  emit('session.idle', { backgroundTasks: { agents: [], shells: [] } }, { ephemeral: true })

  const figures = {
    totalApiDurationMs: 4500,
    codeChanges: { linesAdded: 12, linesRemoved: 3, filesModified: ['/ws/src/sum.ts'] },
    modelMetrics: {
      'claude-sonnet-4.5': {
        requests: { count: 7, cost: 7 },
        usage: {
          inputTokens: 7000,
          outputTokens: 700,
          cacheReadTokens: 3500,
          cacheWriteTokens: 350
        }
      }
    },
    currentModel: 'claude-sonnet-4.5'
  }
  if (options.shutdown === 'flat') {
    emit('session.shutdown', {
      shutdownType: 'routine',
      totalPremiumRequests: 7,
      sessionStartTime: Date.parse(START),
      ...figures
    })
  } else if (options.shutdown !== 'none') {
    emit('session.shutdown', {
      shutdownType: 'routine',
      sessionStartTime: Date.parse(START),
      accountingSnapshot: { totalPremiumRequestCost: 7, ...figures, newField: { x: 1 } }
    })
  }
  return steps
}

/** A report as rendering tests want it: every section present, fixed times. */
export function sampleReport(status: RunStatus, overrides: Partial<Report> = {}): Report {
  const failed = status !== 'completed'
  return {
    version: 1,
    status,
    sessionId: 'b6f5c1d2-0000-4000-8000-000000000001',
    summary: failed ? null : 'Fixed `sum()` in `src/sum.ts`; all 13 tests pass.',
    cliVersion: '1.0.102',
    model: 'claude-sonnet-4.5',
    startedAt: START,
    endedAt: '2026-11-22T10:03:12.000Z',
    durationMs: 192_000,
    ...(failed
      ? {
          error: {
            message:
              status === 'timed-out'
                ? 'The run exceeded timeout-minutes (30).'
                : status === 'cancelled'
                  ? 'The workflow run was cancelled.'
                  : 'Failed to get response from the AI model; retried 5 times (HTTP 500)',
            type: status === 'failed' ? 'query' : 'run'
          },
          stopReason: status === 'incomplete' ? 'cap_reached' : 'error'
        }
      : { stopReason: 'task_complete' }),
    policy: { source: '.github/copilot-policy.yml', builtIn: false },
    workingDirectory: '/home/runner/work/app/app',
    plan: {
      content: '# Plan\n\n1. Run the tests\n2. Fix `sum()`\n',
      todos: [
        { id: '1', title: 'Run the tests', status: 'done' },
        { id: '2', title: 'Fix sum()', status: failed ? 'in_progress' : 'done' },
        { id: '3', title: 'Open a follow-up', status: 'blocked' }
      ]
    },
    tools: [
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
        target: '/home/runner/work/app/app/src/missing.ts',
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
      { toolCallId: 'c4', name: 'edit', outcome: 'succeeded', success: true, durationMs: 300 }
    ],
    toolStats: {
      bash: { calls: 2, succeeded: 1, failed: 0, denied: 1, durationMs: 2400 },
      view: { calls: 1, succeeded: 0, failed: 1, denied: 0, durationMs: 12 },
      edit: { calls: 1, succeeded: 1, failed: 0, denied: 0, durationMs: 300 }
    },
    permissions: [
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
        toolCallId: null,
        kind: 'url',
        subject: 'https://example.com/',
        decision: 'deny',
        rule: 'default',
        request: { kind: 'url', url: 'https://example.com/' }
      }
    ],
    permissionCounts: { shell: { allow: 1, deny: 1 }, url: { allow: 0, deny: 1 } },
    commands: [
      {
        phase: 'setup',
        command: 'npm ci',
        exitCode: 0,
        timedOut: false,
        durationMs: 12_300,
        outputTail: 'added 312 packages in 12s'
      },
      {
        phase: 'verify',
        command: 'npm test',
        exitCode: failed ? 1 : 0,
        timedOut: false,
        durationMs: 4_100,
        outputTail: failed ? 'Tests: 1 failed, 12 passed' : 'Tests: 13 passed'
      }
    ],
    metrics: {
      premiumRequests: 7,
      apiDurationMs: 45_000,
      linesAdded: 12,
      linesRemoved: 3,
      filesModified: ['/home/runner/work/app/app/src/sum.ts', '/tmp/outside.txt'],
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
      'ran view: /ws/src/sum.ts'
    ],
    ...overrides
  }
}

/** Folds recorded steps into a run's state, events and decisions in order. */
export function play(state: RunState, steps: Step[]): RunState {
  for (const step of steps) {
    if ('event' in step) fold(state, { type: 'event', event: step.event })
    else fold(state, { type: 'decision', ...step.decision })
  }
  return state
}
