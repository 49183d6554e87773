/**
 * Plan-first on the real CLI's traffic: test-support/fixtures/plan-mode-task-complete.events.jsonl
 * is what Copilot CLI 1.0.102 emitted for a plan-first session (recorded verbatim from its
 * `session.event` notifications, strings cut to 200 characters). In it the agent:
 *  1. calls task_complete in plan mode: the CLI withdraws it ("not applicable in the current
 *     mode") — no completion;
 *  2. leaves plan mode (approved), then calls task_complete at once: the CLI emits
 *     session.task_complete, then sends it back to work (a user.message) — no completion;
 *  3. does the work and completes: that completion stands.
 * Replayed through the driver, every prefix that ends before 3 must not be reported completed.
 */
import fs from 'node:fs'
import path from 'node:path'
import { SessionEvent } from '../../src/cli/protocol.js'
import { compilePolicy } from '../../src/policy/index.js'
import { toReport } from '../../src/reporting/report.js'
import { createState, fold, settle } from '../../src/session/fold.js'
import { StateRecorder } from '../../src/session/recorder.js'
import { SessionRun } from '../../src/session/run.js'
import { FakeSession } from '../../test-support/fake-session.js'
import { ROOT } from '../../test-support/action.js'
import { testRunOptions } from '../../test-support/run-options.js'

const events = fs
  .readFileSync(
    path.join(ROOT, 'test-support/fixtures/plan-mode-task-complete.events.jsonl'),
    'utf8'
  )
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => SessionEvent.parse(JSON.parse(line)))

const idle: SessionEvent = { type: 'session.idle', data: { mode: 'plan' } }
const indexOf = (predicate: (e: SessionEvent) => boolean, from = 0): number =>
  events.findIndex((e, i) => i >= from && predicate(e))

function settleAfter(prefix: SessionEvent[]): ReturnType<typeof settle> {
  const state = createState({ startedAt: '2026-11-23T14:02:40.000Z', policySource: 'p.yml' })
  fold(state, { type: 'prompt-sent' })
  for (const event of prefix) fold(state, { type: 'event', event })
  fold(state, { type: 'ended', ending: { kind: 'idle' } })
  return settle(state)
}

describe('plan-first, replaying the CLI’s recorded traffic', () => {
  it('the fixture is the sequence described above', () => {
    expect(events.filter((e) => e.type === 'session.task_complete')).toHaveLength(2)
    expect(events.at(-1)?.type).toBe('session.idle')
  })

  it('task_complete in plan mode is withdrawn: not a completion', () => {
    const withdrawn = indexOf((e) => e.type === 'tool.execution_complete')
    const settled = settleAfter([...events.slice(0, withdrawn + 1), idle])
    expect(settled.status).toBe('incomplete')
  })

  it('task_complete right after the plan was approved, sent back to work: not a completion', () => {
    const sentBack = indexOf(
      (e) => e.type === 'user.message',
      indexOf((e) => e.type === 'session.task_complete')
    )
    const settled = settleAfter([...events.slice(0, sentBack + 1), idle])
    expect(settled.status).toBe('incomplete')
    expect(settled.error?.message).toMatch(/refused.*sent the agent back to work/)
  })

  it('the whole session, driven through Run with its plan approved, completes', async () => {
    const fake = new FakeSession(events.map((event) => ({ event })))
    const recorder = new StateRecorder({
      startedAt: '2026-11-23T14:02:40.000Z',
      policySource: 'p.yml'
    })
    const ending = await new SessionRun(
      testRunOptions({
        api: fake,
        policy: await compilePolicy('version: 1\nsandbox: { mode: off }\n', 'p.yml', ROOT),
        recorder,
        log: {
          info: () => undefined,
          warning: () => undefined,
          debug: () => undefined,
          group: (_n, w) => w()
        },
        dir: ROOT,
        prompt: 'Plan adding a greeting.txt file.',
        session: { planFirst: true },
        scratchDir: path.join(ROOT, '.cache', 'run-test'),
        protectedGroups: []
      })
    ).execute()
    expect(ending.kind).toBe('idle')
    const report = toReport(recorder.state, { endedAt: '2026-11-23T14:02:42.000Z' })
    expect(report.status).toBe('completed')
    expect(report.summary).toBe('Created greeting.txt')
    expect(fake.calls[1]?.args).toEqual(['fake-session', 'plan'])
  })
})
