/**
 * End to end with the real CLI: MCP servers from the `mcp-servers` input, gated by the policy's
 * `mcp` rules, and a custom agent from `.github/agents`. The MCP server is a tiny stdio server
 * (test-support/mcp-server.mjs); the model is scripted on 127.0.0.1.
 */
import fs from 'node:fs'
import path from 'node:path'
import { DEFAULT_CLI_VERSION } from '../../src/settings.js'
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'
import {
  EXAMPLE_POLICY,
  ROOT,
  makeWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'

const TOKEN = 'fixture-token-7f3a9c21d'
const SERVER = path.join(ROOT, 'test-support', 'mcp-server.mjs')
const complete = { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }

let workspace: Workspace
let model: ModelServer | undefined
let callLog: string
beforeEach(() => {
  workspace = makeWorkspace({})
  // The server runs behind the CLI's outer wall (src/wall/): it writes outside the workspace only
  // where the policy lets the agent write (an absolute write-allow path), not into RUNNER_TEMP.
  const logDir = path.join(path.dirname(workspace.runnerTemp), 'mcp-log')
  fs.mkdirSync(logDir)
  callLog = path.join(logDir, 'mcp-calls.log')
  workspace.write(
    '.github/copilot-policy.yml',
    EXAMPLE_POLICY.replace(
      'rules:',
      `rules:\n  - { id: fixture-echo, decision: allow, mcp: ["fixture/echo"] }\n  - { id: fixture-log, decision: allow, write: ["${logDir}/**"] }`
    )
  )
  workspace.write(
    '.github/agents/reviewer.agent.md',
    '---\ndescription: Reviews changes\ntools: ["view", "grep", "task_complete"]\n---\nYou are the REVIEWER-7 agent. Review, never edit.\n'
  )
})
afterEach(async () => {
  await model?.close()
  model = undefined
  workspace.cleanup()
})

function servers(): string {
  return JSON.stringify({
    mcpServers: {
      fixture: {
        type: 'local',
        command: process.execPath,
        args: [SERVER],
        env: { FIXTURE_TOKEN: TOKEN, MCP_FIXTURE_LOG: callLog },
        tools: ['*']
      }
    }
  })
}

async function run(script: Script, inputs: Record<string, string>): Promise<ActionResult> {
  model = await startModelServer(script)
  const result = await runAction({
    workspace,
    inputs: scriptedInputs(model.url, inputs)
  })
  expect(await waitGone(result.cliPids)).toEqual([])
  return result
}

/** Everything the action wrote that a person or a later step reads. */
const written = (r: ActionResult) =>
  [r.stdout, r.stderr, r.summary, JSON.stringify(r.outputs), JSON.stringify(r.report)].join('\n')

describe('mcp-servers', () => {
  it('starts the server; an mcp rule allows one tool, the default denies the other, the report says so', async () => {
    let offered: string[] = []
    const result = await run(
      (request, i) => {
        if (i === 0) {
          offered = (request.tools ?? []).map((t) => t.function?.name ?? '')
          return {
            toolCalls: [
              { name: 'fixture-echo', arguments: { text: 'hello from the agent' } },
              { name: 'fixture-token_check', arguments: {} }
            ]
          }
        }
        return complete
      },
      { 'mcp-servers': servers() }
    )
    expect(offered).toEqual(expect.arrayContaining(['fixture-echo', 'fixture-token_check']))
    expect(result.outputs.status).toBe('completed')
    // the allowed call reached the server; the denied one never did
    expect(fs.readFileSync(callLog, 'utf8')).toBe('hello from the agent\n')
    // the two calls run in parallel: their results and decisions come in either order
    const results = model!.toolResults()
    expect(results).toHaveLength(2)
    expect(results.filter((r) => r.includes('echo: hello from the agent'))).toHaveLength(1)
    expect(results.filter((r) => r.includes('token:'))).toEqual([])
    const report = result.report!
    expect(report.mcpServers).toHaveLength(1)
    const server = report.mcpServers![0]!
    expect(server).toMatchObject({
      name: 'fixture',
      type: 'local',
      status: 'connected',
      calls: 2,
      denied: 1
    })
    // CLI 1.0.102 says how many tools it loaded (session.mcp_server_tools_loaded); 1.0.85 does not
    if (report.cliVersion === DEFAULT_CLI_VERSION) expect(server.tools).toBe(2)
    else expect([undefined, 2]).toContain(server.tools)
    const decisions = report.permissions.filter((p) => p.kind === 'mcp')
    expect(decisions.map((p) => [p.subject, p.decision, p.rule]).sort()).toEqual([
      ['fixture/echo', 'allow', 'fixture-echo'],
      ['fixture/token_check', 'deny', 'default']
    ])
    expect(result.summary).toContain('#### 🔌 MCP servers')
    // the server's env reached it, and its value reached nothing the action wrote
    expect(result.stdout).toContain(`::add-mask::${TOKEN}`)
    expect(written(result).replace(`::add-mask::${TOKEN}`, '')).not.toContain(TOKEN)
  })

  it('the env reaches the server when the policy allows the call', async () => {
    fs.writeFileSync(
      path.join(workspace.dir, '.github/copilot-policy.yml'),
      EXAMPLE_POLICY.replace('rules:', 'rules:\n  - { decision: allow, mcp: ["fixture/*"] }')
    )
    const result = await run(
      [{ toolCalls: [{ name: 'fixture-token_check', arguments: {} }] }, complete],
      { 'mcp-servers': servers() }
    )
    expect(result.outputs.status).toBe('completed')
    expect(model!.toolResults()[0]).toContain('token: present')
  })

  it('reports a server that did not start, and the run goes on without it', async () => {
    const broken = JSON.stringify({
      broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] }
    })
    const result = await run([complete], { 'mcp-servers': broken })
    expect(result.outputs.status).toBe('completed')
    expect(result.report!.mcpServers).toMatchObject([{ name: 'broken', status: 'failed' }])
    expect(result.summary).toMatch(/MCP servers the agent could not use[\s\S]*`broken` is failed/)
  })

  it('bad JSON fails the step before the CLI starts, naming the input, line and column', async () => {
    model = await startModelServer([complete])
    const result = await runAction({
      workspace,
      inputs: {
        prompt: 'x',
        model: 'm',
        'provider-type': 'openai',
        'provider-base-url': model.url,
        'mcp-servers': `{"fixture": {"command": "node",\n  "env": {"T": "${TOKEN}"}\n  "args": []}}`
      }
    })
    expect(result.exitCode).not.toBe(0)
    expect(result.cliPids).toEqual([])
    expect(model.requests).toHaveLength(0)
    expect(result.stdout).toMatch(
      /::error::.*input 'mcp-servers' is not valid JSON: line 3, column 3: expected "," or "}"/
    )
    expect(written(result)).not.toContain(TOKEN)
  })
})

describe('agent', () => {
  it("runs the session as the repository's agent: its instructions reach the model", async () => {
    const result = await run([complete], { agent: 'reviewer' })
    expect(result.outputs.status).toBe('completed')
    const system = JSON.stringify(
      model!.requests[0]!.body.messages.filter((m) => m.role === 'system')
    )
    expect(system).toContain('You are the REVIEWER-7 agent. Review, never edit.')
    // the agent's tools list narrows what the model is offered
    const offered = (model!.requests[0]!.body.tools ?? []).map((t) => t.function?.name)
    expect(offered).toContain('view')
    expect(offered).not.toContain('bash')
    expect(result.report!.agent).toEqual({
      name: 'reviewer',
      file: '.github/agents/reviewer.agent.md',
      selected: true
    })
    expect(result.summary).toContain('agent `reviewer`')
  })

  it('an unknown agent fails before the CLI starts, listing the agents there are', async () => {
    const result = await runAction({
      workspace,
      inputs: {
        prompt: 'x',
        model: 'm',
        'provider-type': 'openai',
        'provider-base-url': 'http://127.0.0.1:9/v1',
        agent: 'planner'
      }
    })
    expect(result.exitCode).not.toBe(0)
    expect(result.cliPids).toEqual([])
    expect(result.stdout).toContain(
      "Input 'agent' is 'planner', but .github/agents/planner.agent.md does not exist. The agents in .github/agents/ are: reviewer."
    )
  })
})
