/**
 * Human in the loop, end to end: the real CLI (offline, scripted model), the real Octokit client,
 * and a fake GitHub REST API on 127.0.0.1 where the test plays the maintainers, the read-only
 * users and the bots. Covers `decision: ask` answered on the PR, the trusted-actor gate, and the
 * sticky comment showing progress before the final report.
 */
import fs from 'node:fs'
import path from 'node:path'
import {
  makeWorkspace,
  runAction,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'
import { startFakeGitHub, type FakeGitHub } from '../../test-support/github-api.js'
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'

const MODEL = 'claude-sonnet-4.5'
const POLICY = `version: 1
rules:
  - id: ask-marker
    decision: ask
    reason: creating the marker needs a maintainer
    shell: ["touch approved.txt"]
  - { id: marker-file, decision: allow, write: ["approved.txt"] }
  - { id: ask-echo, decision: ask, shell: ["echo *"] }
  - { id: read-all, decision: allow, read: ["**"] }
  - { id: sql, decision: allow, tool: ["sql"] }
  - { id: wait, decision: allow, shell: ["sleep 6"] }
`
const bash = (command: string) => ({
  toolCalls: [{ name: 'bash', arguments: { command, description: 'run' } }]
})
const complete = (summary: string) => ({
  toolCalls: [{ name: 'task_complete', arguments: { summary } }]
})
const ASK_MARKER = /<!-- copilot-autopilot:ask:([0-9a-f]{6}) -->/

let workspace: Workspace
let model: ModelServer | undefined
let github: FakeGitHub

beforeEach(async () => {
  workspace = makeWorkspace({ '.github/copilot-policy.yml': POLICY, 'README.md': '# demo\n' })
  github = await startFakeGitHub()
  github.setPermission('octocat', 'write')
})
afterEach(async () => {
  await model?.close()
  model = undefined
  await github.close()
  workspace.cleanup()
})

interface RunOptions {
  event?: string
  payload?: Record<string, unknown>
  inputs?: Record<string, string>
  env?: Record<string, string>
}

async function run(script: Script, options: RunOptions = {}): Promise<ActionResult> {
  await model?.close()
  model = await startModelServer(script)
  const eventPath = path.join(workspace.runnerTemp, 'event.json')
  fs.writeFileSync(
    eventPath,
    JSON.stringify(
      options.payload ?? {
        action: 'opened',
        number: 7,
        pull_request: { number: 7 },
        sender: { login: 'octocat', type: 'User' }
      }
    )
  )
  return runAction({
    workspace,
    inputs: {
      prompt: 'Create the marker',
      model: MODEL,
      'provider-type': 'openai',
      'provider-base-url': model.url,
      'github-token': 'user-token',
      'approval-timeout-minutes': '0.05', // 3 s
      'approval-poll-seconds': '1',
      ...options.inputs
    },
    env: {
      GITHUB_EVENT_NAME: options.event ?? 'pull_request',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_API_URL: github.url,
      ...options.env
    }
  })
}

/** Answer every ask comment with `body(id)` as `author`, as soon as it is posted. */
function answerAsks(author: string | { login: string; type: 'Bot' }, body: (id: string) => string) {
  return github.onComment((comment, place) => {
    const id = ASK_MARKER.exec(comment.body)?.[1]
    if (id) github.addComment(place.owner, place.repo, place.number, body(id), author)
  })
}

const askScript: Script = [bash('touch approved.txt'), complete('Created the marker')]

describe('decision: ask, answered on the PR', () => {
  it('a writer’s /approve lets the command run, and the report says who approved it', async () => {
    github.setPermission('maintainer', 'maintain')
    answerAsks('maintainer', (id) => `/approve ${id} looks fine`)
    const result = await run(askScript, { inputs: { 'approval-timeout-minutes': '1' } })
    expect(result.outputs.status).toBe('completed')
    expect(workspace.read('approved.txt')).toBe('')
    const [record] = result.report!.permissions
    expect(record).toMatchObject({
      decision: 'allow',
      rule: 'ask-marker',
      approval: { verdict: 'approved', by: 'maintainer', reason: 'looks fine' }
    })
    // The question was a NEW comment (it notifies people), answered, and marked with the outcome.
    const comments = github.comments('octo', 'repo', 7)
    const ask = comments.find((c) => ASK_MARKER.test(c.body))!
    expect(ask.body).toContain('touch approved.txt')
    expect(ask.body).toMatch(/Approved\*\* by `maintainer`/)
    // The sticky comment says who answered.
    const sticky = comments.find((c) => c.body.includes('copilot-autopilot:default'))!
    expect(sticky.body).toMatch(/Asked a maintainer[\s\S]*approved by `maintainer`/)
    expect(result.summary).toMatch(/allow \(asked: approved by `maintainer`\)/)
  })

  it('an /approve from a read-only user is ignored until the timeout: denied', async () => {
    github.setPermission('reader', 'read')
    answerAsks('reader', (id) => `/approve ${id}`)
    const result = await run(askScript)
    expect(workspace.read('approved.txt')).toBeUndefined()
    expect(result.report!.permissions[0]).toMatchObject({
      decision: 'deny',
      approval: { verdict: 'timeout' }
    })
    expect(result.stdout).toMatch(/reader/)
  })

  it('/deny with a reason: denied, and the reason reaches the agent', async () => {
    github.setPermission('maintainer', 'admin')
    answerAsks('maintainer', (id) => `/deny ${id} not in this PR`)
    const result = await run(askScript, { inputs: { 'approval-timeout-minutes': '1' } })
    expect(workspace.read('approved.txt')).toBeUndefined()
    const [record] = result.report!.permissions
    expect(record).toMatchObject({
      decision: 'deny',
      approval: { verdict: 'denied', by: 'maintainer' }
    })
    expect(record!.reason).toContain('not in this PR')
    // What the agent was told: the tool result the model saw next.
    expect(JSON.stringify(model!.requests.at(-1))).toContain('not in this PR')
  })

  it('the question never shows a secret, even when the agent puts one in the request', async () => {
    github.setPermission('maintainer', 'write')
    answerAsks('maintainer', (id) => `/deny ${id}`)
    const result = await run([bash('echo user-token'), complete('Tried')], {
      inputs: { 'approval-timeout-minutes': '1' }
    })
    expect(result.report!.permissions[0]?.approval?.verdict).toBe('denied')
    const written = github.requests
      .filter((r) => r.method === 'POST' || r.method === 'PATCH')
      .map((r) => JSON.stringify(r.body))
    expect(written.some((body) => body.includes('copilot-autopilot:ask:'))).toBe(true)
    for (const body of written) expect(body).not.toContain('user-token')
  })

  it('a bot’s /approve is ignored: denied at the timeout', async () => {
    github.setPermission('helper[bot]', 'admin')
    answerAsks({ login: 'helper[bot]', type: 'Bot' }, (id) => `/approve ${id}`)
    const result = await run(askScript)
    expect(workspace.read('approved.txt')).toBeUndefined()
    expect(result.report!.permissions[0]?.approval?.verdict).toBe('timeout')
  })

  it('a scheduled run with no issue to ask on: the ask is a denial that says why', async () => {
    const result = await run(askScript, { event: 'schedule', payload: { schedule: '0 3 * * *' } })
    expect(workspace.read('approved.txt')).toBeUndefined()
    const [record] = result.report!.permissions
    expect(record).toMatchObject({ decision: 'deny', approval: { verdict: 'unavailable' } })
    expect(record!.approval!.reason).toMatch(/nowhere to ask/)
    expect(github.requests.filter((r) => r.method === 'POST')).toHaveLength(0)
  })
})

describe('the trusted-actor gate', () => {
  it('an untrusted commenter: skipped, successfully, without starting the CLI', async () => {
    github.setPermission('stranger', 'read')
    const result = await run(askScript, {
      event: 'issue_comment',
      payload: {
        action: 'created',
        issue: { number: 7 },
        comment: { body: '/copilot do it', user: { login: 'stranger', type: 'User' } },
        sender: { login: 'stranger', type: 'User' }
      }
    })
    expect(result.exitCode).toBe(0)
    expect(result.outputs.status).toBe('skipped')
    expect(result.cliPids).toEqual([])
    expect(model!.requests).toHaveLength(0)
    expect(result.stdout).toMatch(/::notice::.*stranger.*read/)
    expect(github.comments('octo', 'repo', 7)).toHaveLength(0)
  })

  it('a bot listed in allowed-actors is let through', async () => {
    const result = await run([complete('Bumped the dependency')], {
      event: 'pull_request',
      payload: {
        action: 'opened',
        number: 7,
        pull_request: { number: 7 },
        sender: { login: 'dependabot[bot]', type: 'Bot' }
      },
      inputs: { 'allowed-actors': 'renovate[bot], dependabot[bot]' },
      env: { GITHUB_TRIGGERING_ACTOR: 'dependabot[bot]' }
    })
    expect(result.outputs.status).toBe('completed')
    expect(result.cliPids.length).toBeGreaterThan(0)
    expect(await waitGone(result.cliPids)).toEqual([])
    // Listed: no permission lookup was needed.
    expect(github.requests.some((r) => r.path.includes('/collaborators/'))).toBe(false)
  })
})

describe('live progress', () => {
  it('the sticky comment shows the todos while the agent works, then the report', async () => {
    const sql = (query: string) => ({
      toolCalls: [{ name: 'sql', arguments: { description: 'todos', query } }]
    })
    const result = await run([
      sql(
        "INSERT INTO todos (id, title, status) VALUES ('a', 'Write the fix', 'in_progress'), ('b', 'Add a test', 'pending')"
      ),
      bash('sleep 6'),
      complete('Done')
    ])
    expect(result.outputs.status).toBe('completed')
    const bodies = github.requests
      .filter((r) => r.method === 'PATCH' || r.method === 'POST')
      .map((r) => (r.body as { body: string }).body)
    const progress = bodies.findIndex((b) => /working on it/.test(b) && /Write the fix/.test(b))
    const final = bodies.findIndex((b) => /Copilot completed the task/.test(b))
    expect(progress).toBeGreaterThanOrEqual(0)
    expect(final).toBeGreaterThan(progress)
    expect(bodies[progress]).toMatch(/- \[ \] Write the fix _\(in progress\)_/)
  })
})
