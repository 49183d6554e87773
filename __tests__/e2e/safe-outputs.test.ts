/**
 * End to end (issue 23): the real Copilot CLI, offline, against a scripted model; the agent fixes a
 * bug and proposes a pull request and a label through the safe-output tools (nothing is written
 * to GitHub), then a publish run in a fresh clone of a bare `origin` pushes one branch and opens
 * the pull request against the fake GitHub API. A patch touching a workflow is refused whole; a
 * run that times out still leaves its patch; a run without safe-outputs is offered none.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'
import { cloneOrigin, seedOrigin, testGit } from '../../test-support/origin.js'
import { startFakeGitHub, type FakeGitHub } from '../../test-support/github-api.js'
import {
  EXAMPLE_POLICY,
  runAction,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'

const MODEL = 'claude-sonnet-4.5'
const POLICY = `${EXAMPLE_POLICY}  - { id: proposals, decision: allow, tool: ["propose_pull_request", "add_labels", "add_comment", "create_issue"] }
`
const BUGGY = 'export function add(a, b) {\n  return a - b\n}\n'
const FIXED = 'export function add(a, b) {\n  return a + b\n}\n'
const HOSTILE_BODY =
  'Fixes add. Thanks @octocat! <img src=x onerror=alert(1)> [click me](javascript:alert(1)) <!-- hidden -->'

const git = testGit

let base: string
let origin: string
let model: ModelServer | undefined
let github: FakeGitHub
const workspaces: Workspace[] = []

beforeEach(async () => {
  ;({ base, origin } = seedOrigin('autopilot-safe-', {
    'src/math.js': BUGGY,
    '.github/copilot-policy.yml': POLICY,
    '.github/workflows/ci.yml': 'on: push\n'
  }))
  github = await startFakeGitHub()
})

afterEach(async () => {
  await model?.close()
  model = undefined
  await github.close()
  for (const ws of workspaces.splice(0)) ws.cleanup()
  fs.rmSync(base, { recursive: true, force: true })
})

/** A fresh clone of origin as a workspace. */
function clone(): Workspace {
  const ws = cloneOrigin(origin)
  workspaces.push(ws)
  return ws
}

function env(): Record<string, string> {
  return { GITHUB_API_URL: github.url }
}

async function runAgent(
  ws: Workspace,
  script: Script,
  inputs: Record<string, string> = {}
): Promise<ActionResult> {
  model = await startModelServer(script)
  const result = await runAction({
    workspace: ws,
    env: env(),
    inputs: {
      prompt: 'Fix the bug in src/math.js.',
      model: MODEL,
      'provider-type': 'openai',
      'provider-base-url': model.url,
      'timeout-minutes': '2',
      'github-token': 'installation-token',
      ...inputs
    }
  })
  expect(await waitGone(result.cliPids)).toEqual([])
  return result
}

function publish(
  ws: Workspace,
  inputs: Record<string, string>,
  extraEnv: Record<string, string> = {}
): Promise<ActionResult> {
  return runAction({
    workspace: ws,
    env: { ...env(), ...extraEnv },
    inputs: {
      mode: 'publish',
      'github-token': 'installation-token',
      'safe-outputs': 'pull-request, comment, labels, issue',
      'allowed-labels': 'bug',
      ...digestsOf(inputs),
      ...inputs
    }
  })
}

/** The digests of the files the inputs name, as the agent step outputs them. */
function digestsOf(inputs: Record<string, string>): Record<string, string> {
  const sha = (file: string): string =>
    createHash('sha256').update(fs.readFileSync(file)).digest('hex')
  return {
    ...(inputs['patch-path'] ? { 'patch-sha256': sha(inputs['patch-path']) } : {}),
    ...(inputs['safe-outputs-path']
      ? { 'safe-outputs-sha256': sha(inputs['safe-outputs-path']) }
      : {})
  }
}

/** A patch of `files` over a clone of origin at `ref`, and a proposals file, in `ws`'s RUNNER_TEMP. */
function handMadePatch(
  ws: Workspace,
  ref: string,
  files: Record<string, string>,
  proposals: unknown[]
): { patch: string; proposals: string } {
  const scratch = path.join(base, `scratch-${Date.now()}`)
  git(base, 'clone', '-q', '-b', ref, origin, scratch)
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true })
    fs.writeFileSync(path.join(scratch, file), content)
  }
  git(scratch, 'add', '-A')
  const patch = path.join(ws.runnerTemp, `hand-${Date.now()}.patch`)
  fs.writeFileSync(patch, git(scratch, 'diff', '--cached', '--binary'))
  const file = path.join(ws.runnerTemp, `hand-${Date.now()}.json`)
  fs.writeFileSync(file, JSON.stringify({ version: 1, proposals }))
  return { patch, proposals: file }
}

/** A pull_request event payload file for the publish step. */
function pullRequestEvent(ws: Workspace, headRepo: string): Record<string, string> {
  github.seedPullRequest({ number: 7, head: 'feature', base: 'main', headRepo })
  const file = path.join(ws.runnerTemp, 'event.json')
  fs.writeFileSync(
    file,
    JSON.stringify({
      action: 'opened',
      pull_request: {
        number: 7,
        head: { ref: 'feature', repo: { full_name: headRepo } },
        base: { ref: 'main' }
      },
      repository: { default_branch: 'main' }
    })
  )
  return { GITHUB_EVENT_PATH: file, GITHUB_EVENT_NAME: 'pull_request' }
}

function originBranches(): string[] {
  return git(origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/')
    .split('\n')
    .filter((l) => l !== '')
    .sort()
}

const edit = (ws: Workspace) => ({
  toolCalls: [
    {
      name: 'edit',
      arguments: {
        path: path.join(ws.dir, 'src', 'math.js'),
        old_str: '  return a - b',
        new_str: '  return a + b'
      }
    }
  ]
})

function offeredTools(server: ModelServer): string[] {
  return (server.requests[0]?.body.tools ?? []).map((t) => t.function?.name ?? '')
}

const writes = (gh: FakeGitHub) => gh.requests.filter((r) => r.method !== 'GET')

describe('safe outputs', () => {
  it('records the proposals without writing to GitHub; publish pushes one branch and opens the pull request', async () => {
    const agentWs = clone()
    const result = await runAgent(
      agentWs,
      [
        edit(agentWs),
        {
          toolCalls: [
            {
              name: 'propose_pull_request',
              arguments: { title: 'Fix add @octocat', body: HOSTILE_BODY, draft: true }
            },
            { name: 'add_labels', arguments: { labels: ['bug'] } }
          ]
        },
        { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Fixed add.' } }] }
      ],
      { 'safe-outputs': 'pull-request, labels' }
    )
    expect(result.outputs.status).toBe('completed')
    // exactly the tools asked for were offered
    const tools = offeredTools(model as ModelServer)
    expect(tools).toEqual(expect.arrayContaining(['propose_pull_request', 'add_labels']))
    expect(tools).not.toContain('add_comment')
    expect(tools).not.toContain('create_issue')
    expect((model as ModelServer).toolResults().join('\n')).toContain(
      'Recorded; applied after the run'
    )
    // nothing written to GitHub during the agent's run
    expect(writes(github)).toEqual([])
    // the patch holds the fix, and only it
    const patchPath = result.outputs['patch-path'] ?? ''
    expect(patchPath.startsWith(agentWs.runnerTemp)).toBe(true)
    const patch = fs.readFileSync(patchPath, 'utf8')
    expect(patch).toContain('+  return a + b')
    expect(patch).toContain('diff --git a/src/math.js b/src/math.js')
    expect(patch.match(/^diff --git/gm)).toHaveLength(1)
    expect(result.report?.changes?.files).toEqual([
      { path: 'src/math.js', change: 'modified', added: 1, removed: 1 }
    ])
    expect(result.report?.changes?.base).toMatch(/^[0-9a-f]{40}$/)
    expect(result.report?.metrics.linesAdded).toBe(1)
    expect(result.report?.metrics.linesRemoved).toBe(1)
    const proposalsPath = result.outputs['safe-outputs-path'] ?? ''
    const proposals = JSON.parse(fs.readFileSync(proposalsPath, 'utf8')) as {
      version: number
      proposals: unknown[]
    }
    expect(proposals.version).toBe(1)
    // both calls come in one turn and the CLI runs them side by side: either may be first
    expect(proposals.proposals).toHaveLength(2)
    expect(proposals.proposals).toEqual(
      expect.arrayContaining([
        { kind: 'pull-request', title: 'Fix add @octocat', body: HOSTILE_BODY, draft: true },
        { kind: 'labels', labels: ['bug'] }
      ])
    )
    expect(result.report?.safeOutputs?.proposals).toHaveLength(2)

    // the second job: a fresh clone, no agent
    const publishWs = clone()
    // the files are bound to the run: the step output their digests
    expect(result.outputs['patch-sha256']).toBe(
      createHash('sha256').update(fs.readFileSync(patchPath)).digest('hex')
    )
    expect(result.outputs['safe-outputs-sha256']).toBe(
      createHash('sha256').update(fs.readFileSync(proposalsPath)).digest('hex')
    )
    const published = await publish(publishWs, {
      'patch-path': patchPath,
      'patch-sha256': result.outputs['patch-sha256'] ?? '',
      'safe-outputs-path': proposalsPath,
      'safe-outputs-sha256': result.outputs['safe-outputs-sha256'] ?? ''
    })
    expect(published.exitCode).toBe(0)
    expect(originBranches()).toEqual(['refs/heads/copilot/4242', 'refs/heads/main'])
    expect(git(origin, 'show', 'copilot/4242:src/math.js')).toBe(FIXED)
    expect(git(origin, 'rev-list', '--count', 'main..copilot/4242').trim()).toBe('1')
    expect(github.pulls).toHaveLength(1)
    const pr = github.pulls[0]
    expect(pr?.head).toBe('copilot/4242')
    expect(pr?.base).toBe('main')
    expect(pr?.draft).toBe(true)
    expect(pr?.labels).toEqual(['bug'])
    expect(pr?.title).not.toMatch(/@octocat/)
    expect(pr?.body).toContain('Fixes add.')
    expect(pr?.body).not.toMatch(/@octocat/) // the mention no longer notifies
    expect(pr?.body).not.toContain('<img')
    // the link is text now: its bracket is escaped, so GitHub renders no link
    expect(pr?.body).toContain('[click me\\](javascript:alert(1))')
    expect(pr?.body).not.toMatch(/(?<!\\)\]\(javascript:/)
    expect(pr?.body).not.toContain('hidden')
    expect(published.outputs['pull-request-url']).toBe(pr?.html_url)
    expect(published.summary).toContain('Opened pull request')
    expect(published.summary).toContain('Added the labels bug')
    // the CLI never started
    expect(published.cliPids).toEqual([])
  }, 180_000)

  it('refuses a patch that touches a workflow whole: no push, no pull request', async () => {
    const ws = clone()
    fs.writeFileSync(path.join(ws.dir, 'src', 'math.js'), FIXED)
    fs.writeFileSync(path.join(ws.dir, '.github', 'workflows', 'ci.yml'), 'on: push\njobs: {}\n')
    const patchFile = path.join(ws.runnerTemp, 'hostile.patch')
    fs.writeFileSync(patchFile, git(ws.dir, 'diff', '--binary'))
    const proposalsFile = path.join(ws.runnerTemp, 'proposals.json')
    fs.writeFileSync(
      proposalsFile,
      JSON.stringify({
        version: 1,
        proposals: [{ kind: 'pull-request', title: 'CI', body: 'b', draft: false }]
      })
    )
    const publishWs = clone()
    const published = await publish(publishWs, {
      'patch-path': patchFile,
      'safe-outputs-path': proposalsFile
    })
    expect(published.exitCode).not.toBe(0)
    expect(published.outputs.status).toBe('failed')
    expect(published.summary).toContain('.github/workflows/ci.yml')
    expect(published.summary).not.toContain('src/math.js (')
    expect(originBranches()).toEqual(['refs/heads/main'])
    expect(github.pulls).toEqual([])
    expect(writes(github)).toEqual([])
    // the publish job's checkout is untouched
    expect(fs.readFileSync(path.join(publishWs.dir, 'src', 'math.js'), 'utf8')).toBe(BUGGY)
  }, 60_000)

  it('updates the pull request it opened before instead of opening a second one', async () => {
    const ws = clone()
    const pr = { kind: 'pull-request', title: 'Fix add', body: 'First.', draft: false }
    const first = handMadePatch(ws, 'main', { 'src/math.js': FIXED }, [pr])
    expect(
      (await publish(clone(), { 'patch-path': first.patch, 'safe-outputs-path': first.proposals }))
        .exitCode
    ).toBe(0)
    const second = handMadePatch(ws, 'main', { 'src/math.js': FIXED, 'src/more.js': 'x\n' }, [
      { ...pr, body: 'Second.' }
    ])
    const again = await publish(clone(), {
      'patch-path': second.patch,
      'safe-outputs-path': second.proposals
    })
    expect(again.exitCode).toBe(0)
    expect(github.pulls).toHaveLength(1)
    expect(github.pulls[0]?.body).toContain('Second.')
    expect(github.pulls[0]?.draft).toBe(false)
    expect(again.summary).toContain('Updated pull request')
    expect(git(origin, 'show', 'copilot/4242:src/more.js')).toBe('x\n')
    expect(git(origin, 'rev-list', '--count', 'main..copilot/4242').trim()).toBe('1')
  }, 60_000)

  it("push-to: pr-branch commits on the pull request's head branch; a fork's branch is refused", async () => {
    const seed = path.join(base, 'seed')
    git(seed, 'checkout', '-q', '-b', 'feature')
    fs.writeFileSync(path.join(seed, 'src', 'feature.js'), 'feature\n')
    git(seed, 'add', '-A')
    git(seed, 'commit', '-q', '-m', 'feature')
    git(seed, 'push', '-q', 'origin', 'feature')
    const featureHead = git(origin, 'rev-parse', 'refs/heads/feature').trim()
    const ws = clone() // the publish job checks out the base (main)
    const made = handMadePatch(ws, 'feature', { 'src/math.js': FIXED }, [
      { kind: 'pull-request', title: 'Fix', body: 'b', draft: true },
      { kind: 'labels', labels: ['bug'] }
    ])
    const fork = await publish(
      ws,
      { 'patch-path': made.patch, 'safe-outputs-path': made.proposals, 'push-to': 'pr-branch' },
      pullRequestEvent(ws, 'mallory/repo')
    )
    expect(fork.exitCode).not.toBe(0)
    expect(fork.summary).toContain('comes from another repository')
    expect(git(origin, 'rev-parse', 'refs/heads/feature').trim()).toBe(featureHead)

    const ws2 = clone()
    const published = await publish(
      ws2,
      { 'patch-path': made.patch, 'safe-outputs-path': made.proposals, 'push-to': 'pr-branch' },
      pullRequestEvent(ws2, 'octo/repo')
    )
    expect(published.exitCode).toBe(0)
    expect(originBranches()).toEqual(['refs/heads/feature', 'refs/heads/main'])
    expect(git(origin, 'rev-parse', 'refs/heads/feature~1').trim()).toBe(featureHead)
    expect(git(origin, 'show', 'feature:src/math.js')).toBe(FIXED)
    expect(github.requests.filter((r) => r.path.endsWith('/pulls'))).toEqual([])
    const labels = github.requests.filter((r) => r.method === 'POST')
    expect(labels.map((r) => [r.path, r.body])).toEqual([
      ['/repos/octo/repo/issues/7/labels', { labels: ['bug'] }]
    ])
  }, 60_000)

  it('counts a one-line fix in plan mode as +1 −1: the plan is no change of the agent', async () => {
    const ws = clone()
    let planPath = ''
    const result = await runAgent(
      ws,
      (request, index) => {
        if (index === 0) {
          planPath =
            /Save the plan to: (\S+plan\.md)/.exec(JSON.stringify(request.messages))?.[1] ?? ''
          return {
            toolCalls: [
              {
                name: 'create',
                arguments: { path: planPath, file_text: '# Plan\n1. Fix\n2. Check\n3. Done\n' }
              }
            ]
          }
        }
        if (index === 1) {
          return { toolCalls: [{ name: 'exit_plan_mode', arguments: { summary: 'Fix add' } }] }
        }
        if (index === 2) return edit(ws)
        return { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Fixed.' } }] }
      },
      { 'plan-first': 'true' }
    )
    expect(result.outputs.status).toBe('completed')
    expect(planPath).toMatch(/plan\.md$/)
    expect(result.report?.plan.content).toContain('1. Fix')
    expect(result.outputs['lines-added']).toBe('1')
    expect(result.outputs['lines-removed']).toBe('1')
    expect(result.outputs['files-modified']).toBe('1')
    const patch = fs.readFileSync(result.outputs['patch-path'] ?? '', 'utf8')
    expect(patch).not.toContain('plan.md')
  }, 120_000)

  it('leaves the patch of a run that timed out; without safe-outputs no proposal tool is offered', async () => {
    const ws = clone()
    const result = await runAgent(
      ws,
      (_request, index) => (index === 0 ? edit(ws) : { hang: true }),
      { 'timeout-minutes': '0.15' }
    )
    expect(result.outputs.status).toBe('timed-out')
    const tools = offeredTools(model as ModelServer)
    expect(tools).toContain('edit')
    for (const tool of ['propose_pull_request', 'add_comment', 'add_labels', 'create_issue']) {
      expect(tools).not.toContain(tool)
    }
    expect(result.outputs['safe-outputs-path']).toBe('')
    const patch = fs.readFileSync(result.outputs['patch-path'] ?? '', 'utf8')
    expect(patch).toContain('+  return a + b')
    expect(writes(github)).toEqual([])
  }, 120_000)
})
