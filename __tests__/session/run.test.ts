/**
 * The session driver against an in-memory SessionApi (test-support/fake-session.ts): the order of
 * calls, answers to permission requests and plan exits, and every way a run ends. The real CLI
 * runs these paths in __tests__/e2e.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { SessionEvent } from '../../src/cli/protocol.js'
import { compilePolicy, type CompiledPolicy } from '../../src/policy/index.js'
import { toReport } from '../../src/reporting/report.js'
import type { Report } from '../../src/reporting/types.js'
import { StateRecorder } from '../../src/session/recorder.js'
import { MAX_QUESTIONS, unshowable, type Question } from '../../src/session/permission-requests.js'
import { SessionRun, type Logger } from '../../src/session/run.js'
import { testRunOptions, type TestRunOptions } from '../../test-support/run-options.js'
import { FakeSession, type ScriptStep } from '../../test-support/fake-session.js'

const POLICY = `version: 1
sandbox: { mode: off }
rules:
  - { id: tests, decision: allow, shell: ["npm test"] }
  - { id: no-push, decision: deny, reason: pushing is the workflow's job, shell: ["git push*"] }
  - { id: ask-lint, decision: ask, reason: lint fixes need a maintainer, shell: ["npm run lint"] }
  - { id: ask-lint-args, decision: ask, shell: ["npm run lint -- *"] }
`

let dir: string
let policy: CompiledPolicy
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'run-test-'))
  policy = await compilePolicy(POLICY, 'policy.yml', dir)
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const lines: string[] = []
const log: Logger = {
  info: (line) => lines.push(line),
  warning: (line) => lines.push(`warning: ${line}`),
  debug: () => undefined,
  group: (_name, work) => work()
}

const ev = (type: string, data: unknown = {}): ScriptStep => ({
  event: { type, data } satisfies SessionEvent
})
const permission = (requestId: string, command: string, toolCallId: string): ScriptStep[] => [
  ev('permission.requested', {
    requestId,
    permissionRequest: { kind: 'shell', fullCommandText: command, toolCallId }
  }),
  { awaitPermission: requestId }
]
const done: ScriptStep[] = [ev('session.task_complete', { summary: 'Done.' }), ev('session.idle')]

async function drive(
  fake: FakeSession,
  options: Partial<TestRunOptions> = {}
): Promise<{ report: Report; ending: string }> {
  const recorder = new StateRecorder({
    startedAt: new Date().toISOString(),
    policySource: 'policy.yml',
    workingDirectory: dir
  })
  const ending = await new SessionRun(
    testRunOptions({ api: fake, policy, recorder, log, dir, ...options })
  ).execute()
  return {
    report: toReport(recorder.state, { endedAt: new Date().toISOString() }),
    ending: ending.kind
  }
}

describe('Run', () => {
  it('creates, sets the mode, sends, waits for idle, reads back and shuts down, in order', async () => {
    const fake = new FakeSession(done)
    const { report, ending } = await drive(fake)
    expect(ending).toBe('idle')
    expect(report.status).toBe('completed')
    expect(fake.methods()).toEqual([
      'create',
      'setMode',
      'send',
      'readPlan',
      'readTodos',
      'metrics',
      'shutdown'
    ])
    expect(fake.calls[1]?.args).toEqual(['fake-session', 'autopilot'])
  })

  it('answers each permission request from the policy, once, and records the rule', async () => {
    const fake = new FakeSession([
      ...permission('p1', 'npm test', 'c1'),
      ...permission('p2', 'git push origin main', 'c2'),
      // A repeated request id is not answered twice.
      ev('permission.requested', {
        requestId: 'p2',
        permissionRequest: { kind: 'shell', fullCommandText: 'npm test', toolCallId: 'c2' }
      }),
      ev('tool.execution_complete', { toolCallId: 'c2', success: false }),
      ...done
    ])
    const { report } = await drive(fake)
    expect(fake.permissionAnswers.get('p1')).toEqual({ kind: 'approve-once' })
    const denied = fake.permissionAnswers.get('p2')
    expect(denied).toMatchObject({ kind: 'reject' })
    expect(denied?.kind === 'reject' && denied.feedback).toContain("pushing is the workflow's job")
    expect(fake.calls.filter((c) => c.method === 'answerPermission')).toHaveLength(2)
    expect(report.permissions.map((p) => [p.requestId, p.decision, p.rule])).toEqual([
      ['p1', 'allow', 'tests'],
      ['p2', 'deny', 'no-push']
    ])
    expect(report.tools[0]).toMatchObject({ outcome: 'denied', rule: 'no-push' })
  })

  it('a failing verify command after task_complete: verify-failed, with its output', async () => {
    const fake = new FakeSession(done)
    const { report } = await drive(fake, {
      verifyCommands: ['echo checking; exit 3', 'true']
    })
    expect(report.status).toBe('verify-failed')
    expect(report.commands.map((c) => [c.command, c.exitCode])).toEqual([
      ['echo checking; exit 3', 3],
      ['true', 0]
    ])
    expect(report.commands[0]?.outputTail).toContain('checking')
  })

  it('a failing setup command: the prompt is never sent', async () => {
    const fake = new FakeSession(done)
    const { report, ending } = await drive(fake, { setupCommands: ['exit 4', 'true'] })
    expect(ending).toBe('setup-failed')
    expect(report.status).toBe('failed')
    expect(fake.methods()).not.toContain('send')
    expect(report.commands).toHaveLength(1)
  })

  it('a silent agent is a hang: aborted, timed-out', async () => {
    const fake = new FakeSession([ev('assistant.turn_start'), { wait: 60_000 }])
    const { report, ending } = await drive(fake, { idleTimeoutMs: 300 })
    expect(ending).toBe('hang')
    expect(report.status).toBe('timed-out')
    expect(fake.methods()).toContain('abort')
  })

  it('a session error ends the run at once, as failed', async () => {
    const fake = new FakeSession([
      ev('session.error', { errorType: 'query', message: 'model down', statusCode: 500 }),
      { wait: 60_000 }
    ])
    const { report } = await drive(fake)
    expect(report.status).toBe('failed')
    expect(report.error?.message).toBe('model down (HTTP 500)')
    expect(fake.methods()).toContain('abort')
  })

  it('cancellation aborts the session and reports cancelled', async () => {
    const cancel = new AbortController()
    const fake = new FakeSession([{ wait: 60_000 }])
    setTimeout(() => cancel.abort(), 200)
    const { report } = await drive(fake, { signal: cancel.signal })
    expect(report.status).toBe('cancelled')
    expect(fake.methods()).toContain('abort')
  })

  it('the CLI exiting ends the run as failed, with what it said', async () => {
    const fake = new FakeSession([{ wait: 60_000 }])
    const { report } = await drive(fake, {
      cliExited: new Promise((resolve) => setTimeout(() => resolve('The Copilot CLI exited'), 100))
    })
    expect(report.status).toBe('failed')
    expect(report.error?.message).toBe('The Copilot CLI exited')
  })

  it('plan first: starts in plan mode and approves leaving it once, by the request or the event', async () => {
    const viaEvent = new FakeSession([
      ev('exit_plan_mode.requested', { requestId: 'x1', planContent: '# Plan' }),
      { awaitExitPlan: 'x1' },
      ...done
    ])
    const { report } = await drive(viaEvent, { session: { planFirst: true } })
    expect(viaEvent.calls[1]?.args).toEqual(['fake-session', 'plan'])
    expect(viaEvent.exitPlanAnswers.get('x1')).toEqual({
      approved: true,
      selectedAction: 'autopilot',
      autoApproveEdits: false
    })
    expect(report.plan.content).toBe('# Plan')

    // The CLI's request answers first; the event's fallback then stays silent.
    const viaRequest = new FakeSession([
      ev('exit_plan_mode.requested', { requestId: 'x2' }),
      { wait: 50 },
      ...done,
      { wait: 2_000 }
    ])
    const running = drive(viaRequest, { session: { planFirst: true } })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(viaRequest.requestExitPlan()).toMatchObject({ approved: true })
    await running
    expect(viaRequest.methods()).not.toContain('answerExitPlan')
  })

  it('reads the todo list when it changes', async () => {
    const fake = new FakeSession([ev('session.todos_changed'), { wait: 50 }, ...done])
    fake.todos = [{ id: '1', title: 'Fix sum()', status: 'done' }]
    const { report } = await drive(fake)
    expect(fake.methods().filter((m) => m === 'readTodos').length).toBeGreaterThanOrEqual(2)
    expect(report.plan.todos).toEqual([{ id: '1', title: 'Fix sum()', status: 'done' }])
  })

  it('a task_complete the CLI refused (plan mode) is incomplete, not completed', async () => {
    const fake = new FakeSession([
      ev('tool.execution_start', { toolCallId: 't', toolName: 'task_complete' }),
      ev('session.task_complete', { summary: 'I did it' }),
      ev('tool.execution_complete', {
        toolCallId: 't',
        success: false,
        error: { message: 'not allowed in plan mode' }
      }),
      ev('session.idle')
    ])
    const { report } = await drive(fake, { session: { planFirst: true } })
    expect(report.status).toBe('incomplete')
    expect(report.summary).toBe('I did it')
    expect(report.completion).toEqual({ state: 'rejected', reason: 'not allowed in plan mode' })
  })
})

describe('Run: what the review found', () => {
  it('verify commands the CLI never ran are recorded as not run, and the run is not completed', async () => {
    const fake = new FakeSession(done)
    fake.onEvent((event) => {
      if (event.type === 'session.idle') fake.closed = true
    })
    const { report } = await drive(fake, { verifyCommands: ['exit 1', 'true'] })
    expect(report.status).toBe('verify-failed')
    expect(report.commands.map((c) => [c.command, c.exitCode, c.outputTail])).toEqual([
      ['exit 1', null, '[not run: the Copilot CLI is gone]'],
      ['true', null, '[not run: the Copilot CLI is gone]']
    ])
  })

  it('a session error from before the prompt does not end the agent’s run', async () => {
    const fake = new FakeSession([{ wait: 50 }, ...done])
    const { report } = await drive(fake, {
      setupCommands: ['sleep 0.3'],
      // the error arrives while the setup command runs
      verifyCommands: []
    })
    expect(report.status).toBe('completed')
    const early = new FakeSession([{ wait: 50 }, ...done])
    setTimeout(() => early.emit({ type: 'session.error', data: { message: 'early' } }), 100)
    const second = await drive(early, { setupCommands: ['sleep 0.4'] })
    expect(second.report.status).toBe('completed')
    expect(early.methods()).not.toContain('abort')
  })

  it('a permission request it cannot read is denied, not left waiting', async () => {
    const fake = new FakeSession([
      ev('permission.requested', { requestId: 'bad', permissionRequest: { kind: 7 } }),
      { awaitPermission: 'bad' },
      ...done
    ])
    const { report } = await drive(fake)
    expect(fake.permissionAnswers.get('bad')).toMatchObject({ kind: 'reject' })
    expect(report.permissions[0]).toMatchObject({ decision: 'deny', rule: 'invalid-request' })
  })
})

describe('Run: asking a person', () => {
  const asking = (): ScriptStep[] => [...permission('p1', 'npm run lint', 'c1'), ...done]

  it('an approval answers approve-once; the wait is neither a hang nor the run’s time', async () => {
    const fake = new FakeSession(asking())
    const questions: Question[] = []
    const { report, ending } = await drive(fake, {
      idleTimeoutMs: 200,
      timeoutMs: 400,
      asker: {
        ask: async (question) => {
          questions.push(question)
          await new Promise((resolve) => setTimeout(resolve, 700))
          return {
            verdict: 'approved',
            by: 'maintainer',
            askedAt: '2026-11-23T10:00:00.000Z',
            at: '2026-11-23T10:00:01.000Z'
          }
        }
      }
    })
    expect(ending).toBe('idle')
    expect(questions).toHaveLength(1)
    const [question] = questions
    expect(question?.id).toMatch(/^[0-9a-f]{6}$/)
    expect({ ...question, id: 'x' }).toEqual({
      id: 'x',
      kind: 'shell',
      subject: 'npm run lint',
      rule: 'ask-lint',
      reason: 'lint fixes need a maintainer'
    })
    expect(fake.permissionAnswers.get('p1')).toEqual({ kind: 'approve-once' })
    expect(report.permissions[0]).toMatchObject({
      decision: 'allow',
      rule: 'ask-lint',
      approval: { verdict: 'approved', by: 'maintainer' }
    })
  })

  it('a timeout denies, and the agent is told why', async () => {
    const fake = new FakeSession(asking())
    const { report } = await drive(fake, {
      asker: {
        ask: () =>
          Promise.resolve({
            verdict: 'timeout',
            askedAt: '2026-11-23T10:00:00.000Z',
            at: '2026-11-23T10:10:00.000Z'
          })
      }
    })
    const answer = fake.permissionAnswers.get('p1')
    expect(answer?.kind === 'reject' && answer.feedback).toMatch(/nobody with write access/)
    expect(report.permissions[0]).toMatchObject({
      decision: 'deny',
      approval: { verdict: 'timeout' }
    })
  })

  it('nowhere to ask: denied at once, saying so', async () => {
    const fake = new FakeSession(asking())
    const { report } = await drive(fake, { noAskerReason: 'there is nowhere to ask: a schedule' })
    expect(fake.permissionAnswers.get('p1')).toMatchObject({ kind: 'reject' })
    expect(report.permissions[0]?.approval).toMatchObject({
      verdict: 'unavailable',
      reason: 'there is nowhere to ask: a schedule'
    })
  })

  it('an asker that throws denies (never allows)', async () => {
    const fake = new FakeSession(asking())
    const { report } = await drive(fake, {
      asker: { ask: () => Promise.reject(new Error('HTTP 500')) }
    })
    expect(report.permissions[0]).toMatchObject({
      decision: 'deny',
      approval: { verdict: 'unavailable' }
    })
    expect(report.permissions[0]?.approval?.reason).toContain('HTTP 500')
  })
})

describe('Run: what may be asked', () => {
  it('never asks about what a person cannot see in full: denied without asking', async () => {
    const asked: Question[] = []
    const asker = {
      ask: (question: Question) => {
        asked.push(question)
        return Promise.resolve({
          verdict: 'approved' as const,
          by: 'maintainer',
          askedAt: '2026-11-23T10:00:00.000Z',
          at: '2026-11-23T10:00:01.000Z'
        })
      }
    }
    for (const hidden of [
      `npm run lint${' '.repeat(8)}`, // blanks pushing text off-screen
      'npm run lint\u200B' // an invisible character
    ]) {
      expect(unshowable(hidden)).toBeDefined()
    }
    expect(unshowable('npm run lint')).toBeUndefined()
    expect(unshowable(`echo ${'x'.repeat(400)}`)).toMatch(/longer than 300/)
    const hiddenFlag = `npm run lint -- --fix${' '.repeat(200)}--max-warnings=1000`
    const fake = new FakeSession([...permission('p1', hiddenFlag, 'c1'), ...done])
    const { report } = await drive(fake, { asker })
    expect(asked).toEqual([])
    expect(report.permissions[0]?.rule).toBe('ask-lint-args')
    expect(report.permissions[0]?.approval?.reason).toMatch(/cannot be shown to a person/)
  })

  it('does not ask again about what a person refused, and asks at most MAX_QUESTIONS times', async () => {
    let asked = 0
    const asker = {
      ask: () => {
        asked++
        return Promise.resolve({
          verdict: 'denied' as const,
          by: 'maintainer',
          reason: 'no',
          askedAt: '2026-11-23T10:00:00.000Z',
          at: '2026-11-23T10:00:01.000Z'
        })
      }
    }
    const script: ScriptStep[] = []
    for (let i = 0; i < 3; i++) script.push(...permission(`p${i}`, 'npm run lint', `c${i}`))
    const fake = new FakeSession([...script, ...done])
    const { report } = await drive(fake, { asker })
    expect(asked).toBe(1)
    expect(report.permissions.map((p) => p.decision)).toEqual(['deny', 'deny', 'deny'])
    expect(report.permissions[2]?.approval?.reason).toMatch(/asked before in this run/)
    expect(MAX_QUESTIONS).toBe(10)
  })
})

describe('Run: verify and repair', () => {
  it('a failing verify after task_complete goes back to the agent with its output, then passes', async () => {
    const fake = new FakeSession(done)
    const marker = path.join(dir, 'repaired')
    rmSync(marker, { force: true })
    const { report } = await drive(fake, {
      verifyRetries: 2,
      // fails the first time (and leaves the marker), passes the second
      verifyCommands: [
        `test -f ${marker} || { touch ${marker}; echo 'expected 3, got 2'; exit 1; }`
      ]
    })
    expect(report.status).toBe('completed')
    const sends = fake.calls.filter((c) => c.method === 'send').map((c) => String(c.args[1]))
    expect(sends).toHaveLength(2)
    expect(sends[1]).toContain('expected 3, got 2')
    expect(sends[1]).toContain('call task_complete again')
    expect(report.repairs).toEqual([{ attempt: 1, failed: [expect.stringContaining('test -f')] }])
    expect(report.commands.map((c) => [c.attempt ?? 0, c.exitCode])).toEqual([
      [0, 1],
      [1, 0]
    ])
  })

  it('stops after verify-retries: verify-failed, each attempt in the report', async () => {
    const fake = new FakeSession(done)
    const { report } = await drive(fake, { verifyRetries: 1, verifyCommands: ['exit 5'] })
    expect(report.status).toBe('verify-failed')
    expect(fake.calls.filter((c) => c.method === 'send')).toHaveLength(2)
    expect(report.commands.map((c) => c.attempt ?? 0)).toEqual([0, 1])
  })

  it('no repair when the agent did not complete', async () => {
    const fake = new FakeSession([ev('session.idle')])
    const { report } = await drive(fake, { verifyRetries: 3, verifyCommands: ['exit 5'] })
    expect(report.status).toBe('incomplete')
    expect(fake.calls.filter((c) => c.method === 'send')).toHaveLength(1)
  })
})

describe('Run: endings during a repair turn', () => {
  it('cancelling while the agent repairs aborts the session', async () => {
    const cancel = new AbortController()
    const fake = new FakeSession([
      ...done.slice(0, 1),
      { wait: 100 },
      ...done.slice(1),
      { wait: 60_000 }
    ])
    let sends = 0
    fake.onEvent(() => undefined)
    const original = fake.send.bind(fake)
    fake.send = (sessionId: string, prompt: string) => {
      sends++
      if (sends === 2) setTimeout(() => cancel.abort(), 50)
      return original(sessionId, prompt)
    }
    const { report } = await drive(fake, {
      signal: cancel.signal,
      verifyRetries: 1,
      verifyCommands: ['exit 1']
    })
    expect(report.status).toBe('cancelled')
    expect(fake.methods()).toContain('abort')
  })
})
