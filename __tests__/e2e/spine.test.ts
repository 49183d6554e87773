/**
 * End to end: the real Copilot CLI, offline, against a scripted model on 127.0.0.1 (BYOK), driven
 * by the action as the runner starts it (INPUT_* environment, GITHUB_OUTPUT, step summary).
 */
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'
import {
  EXAMPLE_POLICY,
  makeWorkspace,
  runAction,
  sessionDirs,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'

const MODEL = 'claude-sonnet-4.5' // a model name for which the CLI offers create/edit tools

let workspace: Workspace
let model: ModelServer | undefined

afterEach(async () => {
  await model?.close()
  model = undefined
  workspace.cleanup()
})

async function runWith(
  script: Script,
  inputs: Record<string, string> = {},
  entry: 'src' | 'dist' = 'src'
): Promise<ActionResult> {
  model = await startModelServer(script)
  const result = await runAction({
    workspace,
    entry,
    inputs: {
      prompt: 'Do the task.',
      model: MODEL,
      'provider-type': 'openai',
      'provider-base-url': model.url,
      'provider-api-key': 'sk-test-secret-value',
      'timeout-minutes': '2',
      ...inputs
    }
  })
  // No process may outlive the action.
  expect(result.cliPids.length).toBeGreaterThan(0)
  expect(await waitGone(result.cliPids)).toEqual([])
  return result
}

const complete = (summary: string) => ({
  toolCalls: [{ name: 'task_complete', arguments: { summary } }]
})
const bash = (command: string) => ({
  toolCalls: [{ name: 'bash', arguments: { command, description: 'run' } }]
})

describe('a policy-gated autopilot run of the real CLI', () => {
  beforeEach(() => {
    workspace = makeWorkspace({
      '.github/copilot-policy.yml': EXAMPLE_POLICY,
      'README.md': '# demo\n',
      'src/index.ts': 'export {}\n'
    })
  })

  it('completes a task with allowed tool calls and really changes files', async () => {
    const target = () => path.join(workspace.dir, 'src', 'hello.ts')
    const result = await runWith([
      {
        content: 'Creating the file.',
        toolCalls: [
          { name: 'create', arguments: { path: target(), file_text: 'export const hello = 1\n' } }
        ]
      },
      bash('echo built'),
      complete('Added src/hello.ts')
    ])
    expect(result.exitCode).toBe(0)
    expect(workspace.read('src/hello.ts')).toBe('export const hello = 1\n')
    expect(result.outputs.status).toBe('completed')
    expect(result.outputs.summary).toBe('Added src/hello.ts')
    expect(result.outputs['permissions-denied']).toBe('0')
    expect(result.outputs['lines-added']).toBe('1')
    expect(result.outputs['files-modified']).toBe('1')
    expect(Number(result.outputs['input-tokens'])).toBe(300) // 3 model calls × 100 scripted tokens
    const report = result.report!
    expect(report.status).toBe('completed')
    expect(report.sessionId).toBe(result.outputs['session-id'])
    expect(sessionDirs(workspace)).toEqual([report.sessionId])
    expect(report.permissions.map((p) => [p.kind, p.decision, p.rule])).toEqual([
      ['write', 'allow', 'sources'],
      ['shell', 'allow', 'tests']
    ])
    expect(report.tools.map((t) => [t.name, t.success]).sort()).toEqual([
      ['bash', true],
      ['create', true],
      ['task_complete', true]
    ])
    expect(result.summary).toContain('Added src/hello.ts')
    // The provider key is a secret: registered with the runner's masking, and otherwise never in
    // the report, outputs or logs.
    expect(result.stdout).toContain('::add-mask::sk-test-secret-value')
    const log = result.stdout.replaceAll('::add-mask::sk-test-secret-value', '')
    const everything =
      JSON.stringify(report) + JSON.stringify(result.outputs) + log + result.summary
    expect(everything).not.toContain('sk-test-secret-value')
  })

  it('denies git push and tells the agent which rule denied it', async () => {
    const result = await runWith([bash('git push origin main'), complete('Tried to push')])
    expect(result.outputs.status).toBe('completed')
    expect(result.outputs['permissions-denied']).toBe('1')
    const denied = result.report!.permissions[0]!
    expect(denied).toMatchObject({
      kind: 'shell',
      decision: 'deny',
      rule: 'no-push',
      subject: 'git push origin main'
    })
    expect(denied.request.fullCommandText).toBe('git push origin main')
    const feedback = model!.toolResults().join('\n')
    expect(feedback).toContain('no-push')
    expect(feedback).toContain("pushing is the workflow's job")
  })

  it('denies a compound command when one segment is denied, and runs none of it', async () => {
    const result = await runWith([
      bash('echo hi > src/note.txt && git push origin main'),
      complete('done')
    ])
    const decision = result.report!.permissions[0]!
    expect(decision.decision).toBe('deny')
    expect(decision.rule).toBe('no-push')
    expect(workspace.read('src/note.txt')).toBeUndefined()
  })

  it('denies a write outside the workspace', async () => {
    const outside = () => path.join(workspace.dir, '..', 'escape.txt')
    const result = await runWith([
      { toolCalls: [{ name: 'create', arguments: { path: outside(), file_text: 'escaped\n' } }] },
      complete('done')
    ])
    const decision = result.report!.permissions[0]!
    expect(decision).toMatchObject({ kind: 'write', decision: 'deny' })
    expect(workspace.read('../escape.txt')).toBeUndefined()
  })

  it('reports incomplete when the agent never calls task_complete', async () => {
    const result = await runWith(() => ({ content: 'I am thinking about it.' }), {
      'max-autopilot-continues': '1'
    })
    expect(result.exitCode).not.toBe(0)
    expect(result.outputs.status).toBe('incomplete')
    expect(result.report!.error?.message).toMatch(/task_complete/)
    expect(result.stdout).toMatch(/::error::.*incomplete/)
  })

  it('times out when the model hangs, and leaves no CLI process behind', async () => {
    const result = await runWith(() => ({ hang: true }), { 'timeout-minutes': '0.05' })
    expect(result.outputs.status).toBe('timed-out')
    expect(result.report!.status).toBe('timed-out')
    expect(result.exitCode).not.toBe(0)
  })

  it('the committed bundle (node dist/index.js) honours the runner contract', async () => {
    const result = await runWith([bash('git push origin main'), complete('Bundle ran')], {}, 'dist')
    expect(result.exitCode).toBe(0)
    expect(result.outputs).toMatchObject({
      status: 'completed',
      summary: 'Bundle ran',
      'permissions-denied': '1'
    })
    expect(result.report!.permissions[0]).toMatchObject({ decision: 'deny', rule: 'no-push' })
    expect(result.summary).toContain('Bundle ran')
    expect(result.summary).toContain('no-push')
  })

  /**
   * A run the policy must stop: it fails, no session ever exists, and the CLI the entry started
   * while the policy loaded is gone; the model was never asked.
   */
  async function runRefused(): Promise<ActionResult> {
    model = await startModelServer([complete('never')])
    const result = await runAction({
      workspace,
      inputs: {
        prompt: 'x',
        model: MODEL,
        'provider-type': 'openai',
        'provider-base-url': model.url
      }
    })
    expect(result.outputs.status).toBe('failed')
    expect(sessionDirs(workspace)).toEqual([])
    expect(result.cliPids.length).toBeGreaterThan(0) // a CLI was started
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(model.requests).toHaveLength(0)
    return result
  }

  it('never creates a session when the policy is invalid, naming file, line and column', async () => {
    workspace.write(
      '.github/copilot-policy.yml',
      'version: 1\nrules:\n  - id: a\n    decison: allow\n    shell: ["ls"]\n'
    )
    const result = await runRefused()
    expect(result.exitCode).not.toBe(0)
    expect(result.report!.error?.message).toMatch(/copilot-policy\.yml:4:5/)
    expect(result.summary).toMatch(/copilot-policy\.yml:4:5/)
    // An annotation on the file, where its author looks.
    expect(result.stdout).toMatch(
      /^::error title=[^,]*,file=\.github\/copilot-policy\.yml,line=4,col=5::.*decison/m
    )
    const issues = result.report!.policy.issues ?? []
    expect(issues.map((i) => [i.line, i.column])).toEqual([[4, 5]])
    expect(issues[0]?.message).toMatch(/decison/)
  })

  it("refuses to run when the policy's own tests fail, naming the test's line", async () => {
    workspace.write(
      '.github/copilot-policy.yml',
      EXAMPLE_POLICY +
        'tests:\n  - { shell: "git status", expect: allow }\n  - { shell: "git push origin main", expect: allow }\n'
    )
    const result = await runRefused()
    const line = EXAMPLE_POLICY.split('\n').length + 2
    expect(result.report!.error?.message).toMatch(
      new RegExp(`copilot-policy\\.yml:${line}:\\d+: test 2 .*expected allow, got deny`)
    )
  })

  it('applies the built-in read-only policy when there is no policy file, and says so', async () => {
    fs.rmSync(path.join(workspace.dir, '.github'), { recursive: true })
    const result = await runWith([
      bash('cat README.md'),
      bash('echo x > out.txt'),
      complete('Looked around')
    ])
    expect(result.report!.policy).toMatchObject({ builtIn: true })
    expect(result.report!.permissions.map((p) => p.decision)).toEqual(['allow', 'deny'])
    expect(workspace.read('out.txt')).toBeUndefined()
    expect(result.stdout).toMatch(/built-in read-only policy/)
    expect(result.summary).toMatch(/read-only/)
  })
})
