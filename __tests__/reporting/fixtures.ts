/**
 * Fixtures for the reporting tests: a generator of realistic CLI event streams (shapes as
 * recorded from Copilot CLI 1.0.102, trimmed), folded by the session tests.
 */
import type { PermissionRequest, SessionEvent } from '../../src/cli/protocol.js'
import type { FinalDecision as Decision } from '../../src/session/fold.js'
import { fold, type RunState } from '../../src/session/fold.js'

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

/** Folds recorded steps into a run's state, events and decisions in order. */
export function play(state: RunState, steps: Step[]): RunState {
  for (const step of steps) {
    if ('event' in step) fold(state, { type: 'event', event: step.event })
    else fold(state, { type: 'decision', ...step.decision })
  }
  return state
}
