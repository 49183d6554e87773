/**
 * The safe-output tools in the session driver, against an in-memory SessionApi: offered at
 * session.create, decided by the policy's tool rules as custom-tool permission requests, each
 * call answered once through session.tools.handlePendingToolCall.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { SessionEvent } from '../../src/cli/protocol.js'
import type { CreateSessionOptions, ExternalToolResult } from '../../src/cli/session-api.js'
import { compilePolicy } from '../../src/policy/index.js'
import { StateRecorder } from '../../src/session/recorder.js'
import { SessionRun, type Logger } from '../../src/session/run.js'
import { RECORDED, SafeOutputs, readProposals } from '../../src/session/safe-outputs.js'
import { FakeSession, type ScriptStep } from '../../test-support/fake-session.js'
import { testRunOptions } from '../../test-support/run-options.js'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'external-tools-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const log: Logger = {
  info: () => undefined,
  warning: () => undefined,
  debug: () => undefined,
  group: (_name, work) => work()
}
const ev = (type: string, data: unknown = {}): ScriptStep => ({
  event: { type, data } satisfies SessionEvent
})

async function drive(policyText: string, script: ScriptStep[], tools?: SafeOutputs) {
  const fake = new FakeSession(script)
  const policy = await compilePolicy(policyText, 'policy.yml', dir)
  const recorder = new StateRecorder({
    startedAt: new Date().toISOString(),
    policySource: 'policy.yml',
    workingDirectory: dir
  })
  await new SessionRun(
    testRunOptions({
      api: fake,
      policy,
      recorder,
      log,
      dir,
      prompt: 'Do it',
      ...(tools
        ? {
            session: { tools: tools.definitions },
            externalTools: {
              definitions: tools.definitions,
              call: (name: string, args: unknown) => tools.call(name, args)
            }
          }
        : {})
    })
  ).execute()
  return fake
}

const ALLOW = `version: 1
sandbox: { mode: off }
rules:
  - { id: proposals, decision: allow, tool: ["propose_pull_request"] }
`
const call = (requestId: string, toolName: string, args: unknown): ScriptStep[] => [
  ev('permission.requested', {
    requestId: `p-${requestId}`,
    permissionRequest: { kind: 'custom-tool', toolName, args, toolCallId: requestId }
  }),
  { awaitPermission: `p-${requestId}` },
  ev('external_tool.requested', { requestId, toolCallId: requestId, toolName, arguments: args }),
  { awaitToolCall: requestId }
]
const done = [ev('session.task_complete', { summary: 'Done.' }), ev('session.idle')]

describe('external tools in the run', () => {
  it('offers the tools at session.create and answers each call once', async () => {
    const file = path.join(dir, 'proposals.json')
    const tools = new SafeOutputs(['pull-request'], file)
    const fake = await drive(
      ALLOW,
      [
        ...call('t1', 'propose_pull_request', { title: 'Fix', body: 'Body' }),
        ...call('t2', 'propose_pull_request', { title: 'Again', body: 'Body' }),
        // a tool the run never offered
        ev('external_tool.requested', { requestId: 't3', toolName: 'rm_everything' }),
        { awaitToolCall: 't3' },
        ...done
      ],
      tools
    )
    const created = fake.calls.find((c) => c.method === 'create')?.args[0] as CreateSessionOptions
    expect(created.tools?.map((t) => t.name)).toEqual(['propose_pull_request'])
    expect(fake.permissionAnswers.get('p-t1')).toEqual({ kind: 'approve-once' })
    expect(fake.toolAnswers.get('t1')).toEqual({
      textResultForLlm: RECORDED,
      resultType: 'success'
    })
    const second = fake.toolAnswers.get('t2') as ExternalToolResult
    expect(second.resultType).toBe('failure')
    expect(second.textResultForLlm).toMatch(/one per run/)
    expect(fake.toolAnswers.get('t3')?.resultType).toBe('failure')
    expect(fake.methods().filter((m) => m === 'answerToolCall')).toHaveLength(3)
    expect(readProposals(file).proposals).toEqual([
      { kind: 'pull-request', title: 'Fix', body: 'Body', draft: true }
    ])
  })

  it('offers no tools without safe outputs', async () => {
    const fake = await drive(ALLOW, done)
    const created = fake.calls.find((c) => c.method === 'create')?.args[0] as CreateSessionOptions
    expect(created.tools).toBeUndefined()
  })

  it('leaves the call to the policy: without a tool rule, the custom-tool request is denied', async () => {
    const tools = new SafeOutputs(['pull-request'], path.join(dir, 'p.json'))
    const fake = await drive(
      'version: 1\nsandbox: { mode: off }\nrules: []\n',
      [
        ev('permission.requested', {
          requestId: 'p1',
          permissionRequest: { kind: 'custom-tool', toolName: 'propose_pull_request', args: {} }
        }),
        { awaitPermission: 'p1' },
        ...done
      ],
      tools
    )
    expect(fake.permissionAnswers.get('p1')).toMatchObject({ kind: 'reject' })
    expect(fake.toolAnswers.size).toBe(0)
  })
})
