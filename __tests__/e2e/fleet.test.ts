/**
 * End to end with the real CLI: `fleet: true` sends the prompt with `session.fleet.start`, the
 * model's next request carries the CLI's fleet instructions, the agent's parallel subagents
 * (`task` calls) have their own calls decided by the policy, and the report and the job summary
 * group those calls under their subagent. The model is scripted on 127.0.0.1.
 */
import {
  startModelServer,
  type ChatRequest,
  type ModelServer
} from '../../test-support/model-server.js'
import {
  EXAMPLE_POLICY,
  makeWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type Workspace
} from '../../test-support/action.js'

let workspace: Workspace
let model: ModelServer | undefined
beforeEach(() => {
  workspace = makeWorkspace({
    '.github/copilot-policy.yml': EXAMPLE_POLICY,
    'README.md': '# fixture\n'
  })
})
afterEach(async () => {
  await model?.close()
  model = undefined
  workspace.cleanup()
})

const toolNames = (request: ChatRequest): string[] =>
  (request.tools ?? []).map((t) => t.function?.name ?? '')
const userText = (request: ChatRequest): string =>
  request.messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n')

const task = (name: string, marker: string) => ({
  name: 'task',
  arguments: {
    name,
    description: `Subtask ${marker}`,
    prompt: `Do ${marker} and report.`,
    agent_type: 'general-purpose'
  }
})

describe('fleet: true', () => {
  it('reaches the model in fleet mode; the subagents’ calls are decided and grouped under them', async () => {
    const mainRequests: ChatRequest[] = []
    model = await startModelServer((request) => {
      // The main agent is offered task_complete in autopilot; its subagents are not.
      if (toolNames(request).includes('task_complete')) {
        mainRequests.push(request)
        if (mainRequests.length === 1) {
          return { toolCalls: [task('echoer', 'SUBTASK-A'), task('pusher', 'SUBTASK-B')] }
        }
        return { toolCalls: [{ name: 'task_complete', arguments: { summary: 'fleet done' } }] }
      }
      if (request.messages.at(-1)?.role === 'tool') return { content: 'Subtask finished.' }
      const text = userText(request)
      const command = text.includes('SUBTASK-A')
        ? 'echo fleet-a'
        : text.includes('SUBTASK-B')
          ? 'git push origin main'
          : undefined
      if (command === undefined) return { content: 'Nothing to do.' }
      return { toolCalls: [{ name: 'bash', arguments: { command, description: 'run' } }] }
    })
    const result = await runAction({
      workspace,
      inputs: scriptedInputs(model.url, { fleet: 'true' })
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(result.outputs.status).toBe('completed')
    expect(result.stdout).toContain('Prompt sent in fleet mode')

    // The first request of the main agent: our prompt, with the CLI's fleet instructions.
    const first = userText(mainRequests[0]!)
    expect(first).toContain('Do the task.')
    expect(first).toMatch(/fleet mode/i)
    expect(first).toMatch(/sub-?agents/i)
    expect(toolNames(mainRequests[0]!)).toContain('task')

    const report = result.report!
    const tasks = report.tools.filter((c) => c.name === 'task')
    expect(tasks).toHaveLength(2)
    // one subagent per task call, each with its one call counted
    expect((report.subagents ?? []).map((s) => [s.name, s.outcome, s.calls]).sort()).toEqual([
      ['echoer', 'completed', 1],
      ['pusher', 'completed', 1]
    ])
    const byName = new Map((report.subagents ?? []).map((s) => [s.name, s.toolCallId]))
    const bash = report.tools.filter((c) => c.name === 'bash')
    expect(bash.map((c) => [c.parentToolCallId, c.outcome, c.rule ?? null]).sort()).toEqual(
      [
        [byName.get('echoer'), 'succeeded', null],
        [byName.get('pusher'), 'denied', 'no-push']
      ].sort()
    )
    // the policy decided the subagents' calls like the agent's own
    expect(report.permissions.map((p) => [p.subject, p.decision, p.rule]).sort()).toEqual([
      ['echo fleet-a', 'allow', 'tests'],
      ['git push origin main', 'deny', 'no-push']
    ])

    // the job summary: each subagent with its call count, its calls listed under it
    expect(result.summary).toMatch(/\*\*Subagents:\*\* 🤖 .*`(echoer|pusher)` \(1 call\)/)
    expect(result.summary).toMatch(
      /- 🤖 subagent `pusher`[^\n]*\n {2}- 🚫 `bash` `git push origin main`/
    )
    expect(result.summary).toMatch(/- 🤖 subagent `echoer`[^\n]*\n {2}- ✅ `bash` `echo fleet-a`/)
  })
})
