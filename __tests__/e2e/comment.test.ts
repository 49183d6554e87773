/**
 * End to end for the sticky comment: the real CLI (offline, scripted model), the real Octokit
 * client, and a fake GitHub REST API on 127.0.0.1. The comment must tell exactly what the session
 * reported.
 */
import fs from 'node:fs'
import path from 'node:path'
import { startFakeGitHub, type FakeGitHub } from '../../test-support/github-api.js'
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'
import {
  EXAMPLE_POLICY,
  makeWorkspace,
  runAction,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'

const MODEL = 'claude-sonnet-4.5'
let workspace: Workspace
let model: ModelServer | undefined
let github: FakeGitHub

beforeEach(async () => {
  workspace = makeWorkspace({
    '.github/copilot-policy.yml': EXAMPLE_POLICY,
    'src/index.ts': 'export {}\n'
  })
  github = await startFakeGitHub()
  github.setPermission('octocat', 'write') // the trusted-actor gate checks the PR's author
})
afterEach(async () => {
  await model?.close()
  model = undefined
  await github.close()
  workspace.cleanup()
})

async function runOnPullRequest(
  script: Script,
  inputs: Record<string, string> = {}
): Promise<ActionResult> {
  await model?.close()
  model = await startModelServer(script)
  const eventPath = path.join(workspace.runnerTemp, 'event.json')
  fs.writeFileSync(
    eventPath,
    JSON.stringify({
      action: 'opened',
      number: 7,
      pull_request: { number: 7 },
      sender: { login: 'octocat', type: 'User' }
    })
  )
  const result = await runAction({
    workspace,
    inputs: {
      prompt: 'Fix it, @octocat please review #12',
      model: MODEL,
      'provider-type': 'openai',
      'provider-base-url': model.url,
      'github-token': 'user-token',
      ...inputs
    },
    env: {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_API_URL: github.url
    }
  })
  expect(result.cliPids.length).toBeGreaterThan(0) // a CLI was started
  expect(await waitGone(result.cliPids)).toEqual([])
  return result
}

const sql = (query: string) => ({
  toolCalls: [{ name: 'sql', arguments: { description: 'todos', query } }]
})

describe('the sticky PR comment', () => {
  it('is created when the run starts, then updated with numbers equal to what the session reported', async () => {
    const file = () => path.join(workspace.dir, 'src', 'fix.ts')
    const result = await runOnPullRequest([
      sql(
        "INSERT INTO todos (id, title, description, status) VALUES ('write-fix', 'Write the fix', 'd', 'done'), ('add-test', 'Add a test', 'd', 'pending')"
      ),
      {
        toolCalls: [
          {
            name: 'create',
            arguments: { path: file(), file_text: 'export const a = 1\nexport const b = 2\n' }
          }
        ]
      },
      {
        toolCalls: [
          { name: 'bash', arguments: { command: 'git push origin main', description: 'push' } }
        ]
      },
      {
        toolCalls: [
          { name: 'task_complete', arguments: { summary: 'Fixed it, thanks @octocat (see #12)' } }
        ]
      }
    ])
    expect(result.outputs.status).toBe('completed')
    const comments = github.comments('octo', 'repo', 7)
    expect(comments).toHaveLength(1)
    const [comment] = comments
    expect(comment!.user.login).toBe('octocat')
    expect(result.outputs['comment-url']).toBe(comment!.html_url)
    // The working comment came first; progress and then the final report replaced it.
    const writes = github.requests.filter((r) => r.method !== 'GET')
    expect(writes[0]?.method).toBe('POST')
    expect(writes.slice(1).every((r) => r.method === 'PATCH')).toBe(true)
    expect((writes.at(-1)?.body as { body: string }).body).toBe(comment!.body)
    const first = github.requests.find((r) => r.method === 'POST')!.body as { body: string }
    expect(first.body).toMatch(/working/i)

    const body = comment!.body
    const report = result.report!
    const usage = report.metrics.models[MODEL]!
    expect(usage.inputTokens).toBeGreaterThan(0)
    // Tokens per model, requests, lines: the numbers the session reported at shutdown, exactly
    // in the job summary's table, in one compact line in the comment.
    const row = result.summary
      .split('\n')
      .find((line) => line.includes(`\`${MODEL}\``) && line.startsWith('|'))!
    expect(row.split('|').map((cell) => cell.trim())).toEqual([
      '',
      `\`${MODEL}\``,
      String(usage.requests),
      (usage.inputTokens + usage.outputTokens).toLocaleString('en-US'),
      usage.inputTokens.toLocaleString('en-US'),
      String(usage.cacheReadTokens),
      String(usage.cacheWriteTokens),
      usage.outputTokens.toLocaleString('en-US'),
      ''
    ])
    // BYOK (the scripted model is the run's own provider): the provider bills it, no 0 is shown
    // as the cost, and the CLI said so itself (aiCreditsStatus: unavailable, CLI 1.0.102).
    expect(report.metrics.aiCredits).toMatchObject({ byok: true, nanoAiu: 0 })
    const premium = 'billed by your provider (BYOK)'
    expect(result.summary).toContain(premium)
    expect(body).not.toMatch(/\b0 (premium requests|AI credits)/)
    expect(result.outputs['ai-credits']).toBe('')
    const added =
      report.changes?.files.reduce((n, f) => n + f.added, 0) ?? report.metrics.linesAdded
    expect(added).toBe(2)
    const figures = body.split('\n').find((line) => line.startsWith('<sub>'))!
    expect(figures).toContain(premium)
    // the files changed, with their lines, on their own line above the figures
    expect(body).toMatch(/\*\*📝 Files changed\*\* · \+2 −\d+ in 1 file/)
    expect(result.summary).toContain('`src/fix.ts`')
    // Short: the whole comment fits a glance.
    expect(body.length).toBeLessThan(8000)
    // The todos, as a checklist with status.
    expect(report.plan.todos.map((t) => [t.id, t.status])).toEqual([
      ['write-fix', 'done'],
      ['add-test', 'pending']
    ])
    expect(body).toMatch(/- \[x\] .*Write the fix/)
    expect(body).toMatch(/- \[ \] .*Add a test/)
    // The denial and its rule.
    expect(body).toContain('no-push')
    // Untrusted text pings nobody and links nothing (but is shown).
    expect(body).toContain('Fixed it, thanks')
    expect(body).not.toMatch(/(^|[^\w`])@octocat\b/)
    expect(body).not.toMatch(/(^|\s)#12\b/)
  })

  it('a second run updates the same comment instead of adding one', async () => {
    await runOnPullRequest([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'first run' } }] }
    ])
    const second = await runOnPullRequest([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'second run' } }] }
    ])
    const comments = github.comments('octo', 'repo', 7)
    expect(comments).toHaveLength(1)
    expect(comments[0]!.body).toContain('second run')
    expect(second.outputs['comment-url']).toBe(comments[0]!.html_url)
  })

  it('falls back to the job summary when the token cannot comment, naming the permission', async () => {
    const result = await runOnPullRequest(
      [{ toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }],
      {
        'github-token': 'read-only-token'
      }
    )
    expect(result.outputs.status).toBe('completed')
    expect(result.exitCode).toBe(0)
    expect(github.comments('octo', 'repo', 7)).toHaveLength(0)
    expect(result.stdout).toMatch(/::warning::.*pull-requests: write/)
    expect(result.summary).toMatch(/could not be written/)
    expect(result.summary).toContain('done')
  })

  it('plan first: the agent writes plan.md, the action approves it, autopilot finishes, the comment shows the plan', async () => {
    let planPath = ''
    const result = await runOnPullRequest(
      (request, index) => {
        if (index === 0) {
          planPath =
            /Save the plan to: (\S+plan\.md)/.exec(JSON.stringify(request.messages))?.[1] ?? ''
          return {
            toolCalls: [
              {
                name: 'create',
                arguments: { path: planPath, file_text: '# Plan\n1. Write src/planned.ts\n' }
              }
            ]
          }
        }
        if (index === 1)
          return {
            toolCalls: [{ name: 'exit_plan_mode', arguments: { summary: 'Write one file' } }]
          }
        if (index === 2) {
          return {
            toolCalls: [
              {
                name: 'create',
                arguments: { path: path.join(workspace.dir, 'src', 'planned.ts'), file_text: 'x\n' }
              }
            ]
          }
        }
        return {
          toolCalls: [{ name: 'task_complete', arguments: { summary: 'Implemented the plan' } }]
        }
      },
      { 'plan-first': 'true' }
    )
    expect(planPath).toMatch(/plan\.md$/)
    expect(result.outputs.status).toBe('completed')
    expect(workspace.read('src/planned.ts')).toBe('x\n')
    // The edit after the plan still went through the policy.
    expect(result.report!.permissions.map((p) => [p.kind, p.rule])).toEqual([['write', 'sources']])
    expect(result.report!.plan.content).toContain('Write src/planned.ts')
    expect(github.comments('octo', 'repo', 7)[0]!.body).toContain('Write src/planned.ts')
  })
})
