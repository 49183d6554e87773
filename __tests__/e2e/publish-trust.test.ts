/**
 * Publish trusts nothing it did not check (issue 29), end to end: the publish step in a fresh
 * clone of a bare `origin`, against the fake GitHub API (its pull request, branch protection,
 * rulesets and labels routes), given what a hostile agent job, a hostile pull request or a process
 * left running after the agent's step could hand it. Each test is an attack that got through
 * before.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { cloneOrigin, seedOrigin, testGit } from '../../test-support/origin.js'
import { startFakeGitHub, type FakeGitHub } from '../../test-support/github-api.js'
import {
  EXAMPLE_POLICY,
  runAction,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'

const TOKEN = 'installation-token'
const BUGGY = 'export function add(a, b) {\n  return a - b\n}\n'
const FIXED = 'export function add(a, b) {\n  return a + b\n}\n'
/** The policy of the base branch: pull requests and labels may be proposed, issues and comments not. */
const POLICY = `${EXAMPLE_POLICY}  - { id: proposals, decision: allow, tool: ["propose_pull_request", "add_labels"] }
  - { id: no-noise, decision: deny, tool: ["create_issue", "add_comment"] }
`
// shaped like a GitHub token (not a live one)
const FORMAT_TOKEN = `ghp_${'Zx9Yw8Vu7T'.repeat(3)}abcdef`
const git = testGit
const sha = (file: string): string =>
  createHash('sha256').update(fs.readFileSync(file)).digest('hex')

let base: string
let origin: string
let github: FakeGitHub
const workspaces: Workspace[] = []

beforeEach(async () => {
  ;({ base, origin } = seedOrigin('autopilot-publish-trust-', {
    'src/math.js': BUGGY,
    '.github/copilot-policy.yml': POLICY,
    '.github/workflows/ci.yml': 'on: push\n'
  }))
  github = await startFakeGitHub()
})

afterEach(async () => {
  await github.close()
  for (const ws of workspaces.splice(0)) ws.cleanup()
  fs.rmSync(base, { recursive: true, force: true })
})

function clone(): Workspace {
  const ws = cloneOrigin(origin)
  workspaces.push(ws)
  return ws
}

/** A real patch of `files` over origin's main (a symlink for a `{ link }` value). */
function patchOf(files: Record<string, string>): string {
  const scratch = path.join(base, `scratch-${Math.random().toString(36).slice(2)}`)
  git(base, 'clone', '-q', origin, scratch)
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true })
    fs.writeFileSync(path.join(scratch, file), content)
  }
  git(scratch, 'add', '-A')
  return git(scratch, 'diff', '--cached', '--binary')
}

/** The agent job's upload and the digests its step output. */
function upload(ws: Workspace, patch: string, proposals: unknown[]): Record<string, string> {
  const patchFile = path.join(ws.runnerTemp, 'agent.patch')
  const proposalsFile = path.join(ws.runnerTemp, 'agent.safe-outputs.json')
  fs.writeFileSync(patchFile, patch)
  fs.writeFileSync(proposalsFile, JSON.stringify({ version: 1, proposals }))
  return {
    'patch-path': patchFile,
    'patch-sha256': sha(patchFile),
    'safe-outputs-path': proposalsFile,
    'safe-outputs-sha256': sha(proposalsFile)
  }
}

function publish(
  ws: Workspace,
  inputs: Record<string, string>,
  env: Record<string, string> = {}
): Promise<ActionResult> {
  return runAction({
    workspace: ws,
    env: { GITHUB_API_URL: github.url, ...env },
    inputs: {
      mode: 'publish',
      'github-token': TOKEN,
      'safe-outputs': 'pull-request, labels',
      ...inputs
    }
  })
}

function originBranches(): string[] {
  return git(origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/')
    .split('\n')
    .filter((l) => l !== '')
    .sort()
}

const writes = (gh: FakeGitHub) => gh.requests.filter((r) => r.method !== 'GET')

/** A pull_request event for pull request 7 (head `headRef`), known to the API as well. */
function pullRequestEvent(ws: Workspace, headRef: string): Record<string, string> {
  github.seedPullRequest({ number: 7, head: headRef, base: 'main' })
  const file = path.join(ws.runnerTemp, 'event.json')
  fs.writeFileSync(
    file,
    JSON.stringify({
      action: 'opened',
      pull_request: {
        number: 7,
        head: { ref: headRef, repo: { full_name: 'octo/repo' } },
        base: { ref: 'main' }
      },
      repository: { default_branch: 'main' }
    })
  )
  return { GITHUB_EVENT_PATH: file, GITHUB_EVENT_NAME: 'pull_request' }
}

/** A branch `name` on origin holding one commit of someone else's on top of main. */
function pushBranch(name: string): string {
  const seed = path.join(base, 'seed')
  git(seed, 'checkout', '-q', '-B', name, 'main')
  fs.writeFileSync(path.join(seed, 'src', 'theirs.js'), 'theirs\n')
  git(seed, 'add', '-A')
  git(seed, 'commit', '-q', '-m', 'theirs')
  git(seed, 'push', '-q', 'origin', name)
  git(seed, 'checkout', '-q', 'main')
  return git(origin, 'rev-parse', `refs/heads/${name}`).trim()
}

const PR = { kind: 'pull-request', title: 'Fix add', body: 'Fixes add.', draft: true }

describe('publish judges every proposal again', () => {
  // Broken before: an issue, a comment and labels went to GitHub although this job enabled only
  // pull-request and its checkout's policy denied create_issue and add_comment.
  it('applies only what its own safe-outputs, policy and allowed-labels let through', async () => {
    const ws = clone()
    github.addLabel('automerge')
    const result = await publish(
      ws,
      {
        ...upload(ws, patchOf({ 'src/math.js': FIXED }), [
          PR,
          { kind: 'issue', title: 'Rotate the deploy key now', body: 'now', labels: [] },
          { kind: 'comment', body: 'ok-to-test' },
          { kind: 'labels', labels: ['bug', 'automerge', 'ok-to-test'] }
        ]),
        'safe-outputs': 'pull-request, labels, comment',
        'allowed-labels': 'bug, ok-*'
      },
      pullRequestEvent(ws, 'feature')
    )
    // the pull request and the one allowed, existing label; nothing else
    expect(github.pulls.map((p) => [p.head, p.labels])).toEqual([
      ['feature', []],
      ['copilot/4242', ['bug']]
    ])
    expect(writes(github).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /repos/octo/repo/pulls',
      'POST /repos/octo/repo/issues/101/labels'
    ])
    expect(result.exitCode).not.toBe(0)
    expect(result.summary).toContain(
      "Proposal 2 (issue) was refused: the publish step's input 'safe-outputs' does not enable issue."
    )
    expect(result.summary).toMatch(
      /Proposal 3 \(comment\) was refused: the policy does not allow add_comment \(rule no-noise/
    )
    expect(result.summary).toMatch(/label automerge was refused: it is not in .*allowed-labels/)
    expect(result.summary).toMatch(/label ok-to-test was refused: the repository has no label/)
  }, 90_000)
})

describe('the files are bound to the run that made them', () => {
  // Broken before: a process left running replaced the proposals file after the action's step
  // and before the upload; publish opened the forged issue and a non-draft pull request.
  it('refuses a proposals file or patch that is not the one the agent step wrote', async () => {
    const ws = clone()
    const inputs = upload(ws, patchOf({ 'src/math.js': FIXED }), [PR])
    fs.writeFileSync(
      inputs['safe-outputs-path'] ?? '',
      JSON.stringify({ version: 1, proposals: [{ ...PR, draft: false }] })
    )
    const forged = await publish(ws, inputs)
    expect(forged.exitCode).not.toBe(0)
    expect(forged.summary).toMatch(
      /safe-outputs-path.* was refused: its SHA-256 is [0-9a-f]{64}, not the [0-9a-f]{64} of input .*safe-outputs-sha256/
    )
    const patched = upload(ws, patchOf({ 'src/math.js': FIXED }), [PR])
    fs.appendFileSync(patched['patch-path'] ?? '', '\n')
    const changed = await publish(ws, patched)
    expect(changed.summary).toMatch(/patch-path.* was refused: its SHA-256/)
    expect(originBranches()).toEqual(['refs/heads/main'])
    expect(writes(github)).toEqual([])
  }, 90_000)

  it('refuses a file given without its digest', async () => {
    const ws = clone()
    const { 'patch-sha256': _patch, ...inputs } = upload(ws, patchOf({ 'src/math.js': FIXED }), [
      PR
    ])
    const result = await publish(ws, inputs)
    expect(result.exitCode).not.toBe(0)
    expect(result.summary).toMatch(/Input .*patch-path.* is set but .*patch-sha256.* is not/)
    expect(originBranches()).toEqual(['refs/heads/main'])
    expect(writes(github)).toEqual([])
  }, 60_000)
})

describe('push-to: pr-branch pushes only to review branches', () => {
  // Broken before: the agent's commit landed on release/1.0 and on gh-pages when they were a
  // pull request's head.
  it.each([
    ['release/1.0', () => undefined, /release\/1\.0 is a long-lived branch \(release\/\*\*\)/],
    ['gh-pages', () => undefined, /gh-pages is a long-lived branch \(gh-pages\)/],
    ['deploy-eu', () => undefined, /deploy-eu is a long-lived branch \(deploy-\*, input/],
    ['guarded', () => github.protectBranch('guarded'), /branch guarded has branch protection/],
    [
      'ruled/x',
      () => github.addRuleset('ruled/**', 'non_fast_forward'),
      /branch ruled\/x has a ruleset \(non_fast_forward\)/
    ],
    [
      'closed',
      () => github.seedPullRequest({ number: 7, head: 'closed', base: 'main', state: 'closed' }),
      /pull request #.?7 is closed, not open/
    ]
  ])(
    'refuses the head branch %s',
    async (branch, arrange, why) => {
      const tip = pushBranch(branch)
      const ws = clone()
      const event = pullRequestEvent(ws, branch)
      arrange()
      const result = await publish(
        ws,
        {
          ...upload(ws, patchOf({ 'src/math.js': FIXED }), [PR]),
          'push-to': 'pr-branch',
          'protected-branches': 'deploy-*'
        },
        event
      )
      expect(result.exitCode).not.toBe(0)
      expect(result.summary).toMatch(why)
      expect(git(origin, 'rev-parse', `refs/heads/${branch}`).trim()).toBe(tip)
      expect(writes(github)).toEqual([])
    },
    60_000
  )

  // The /copilot recipe: an issue_comment on a pull request pushes to its head branch, as the
  // API has it (the event names no branch).
  it('pushes to the head of the pull request an issue_comment was made on', async () => {
    const tip = pushBranch('feature')
    github.seedPullRequest({ number: 7, head: 'feature', base: 'main' })
    const ws = clone()
    const event = path.join(ws.runnerTemp, 'comment-event.json')
    fs.writeFileSync(
      event,
      JSON.stringify({
        action: 'created',
        issue: {
          number: 7,
          pull_request: { url: 'https://api.github.com/repos/octo/repo/pulls/7' }
        },
        comment: { body: '/copilot fix add' }
      })
    )
    const result = await publish(
      ws,
      { ...upload(ws, patchOf({ 'src/math.js': FIXED }), [PR]), 'push-to': 'pr-branch' },
      { GITHUB_EVENT_PATH: event, GITHUB_EVENT_NAME: 'issue_comment' }
    )
    expect(result.exitCode).toBe(0)
    expect(git(origin, 'rev-parse', 'refs/heads/feature~1').trim()).toBe(tip)
    expect(git(origin, 'show', 'feature:src/math.js')).toBe(FIXED)
    expect(writes(github)).toEqual([])
  }, 60_000)

  // Broken before: new-branch force-pushed copilot/<run id> whoever had made it.
  it('new-branch never force-pushes over a branch it did not make', async () => {
    const tip = pushBranch('copilot/4242')
    const ws = clone()
    const result = await publish(ws, upload(ws, patchOf({ 'src/math.js': FIXED }), [PR]))
    expect(result.exitCode).not.toBe(0)
    expect(result.summary).toMatch(/branch copilot\/4242 already exists .* never overwritten/)
    expect(git(origin, 'rev-parse', 'refs/heads/copilot/4242').trim()).toBe(tip)
    expect(github.pulls).toEqual([])
  }, 60_000)
})

describe('the policy file by its real path', () => {
  // Broken before: with .github/copilot-policy.yml a symlink, a patch editing its target passed.
  it('refuses a patch that edits the file a symlinked policy file points at', async () => {
    const seed = path.join(base, 'seed')
    const loose = [
      'version: 1',
      'default: deny',
      'rules:',
      '  - { id: workflows, decision: deny, write: [".github/**"] }',
      '  - { id: everything, decision: allow, write: ["**"] }',
      '  - { id: read-all, decision: allow, read: ["**"] }',
      '  - { id: proposals, decision: allow, tool: ["propose_pull_request"] }',
      ''
    ].join('\n')
    fs.mkdirSync(path.join(seed, 'policies'))
    fs.writeFileSync(path.join(seed, 'policies', 'copilot.yml'), loose)
    fs.rmSync(path.join(seed, '.github', 'copilot-policy.yml'))
    fs.symlinkSync('../policies/copilot.yml', path.join(seed, '.github', 'copilot-policy.yml'))
    git(seed, 'add', '-A')
    git(seed, 'commit', '-q', '-m', 'policy by link')
    git(seed, 'push', '-q', 'origin', 'main')
    const ws = clone()
    const patch = patchOf({
      'src/math.js': FIXED,
      'policies/copilot.yml': loose.replace('decision: deny', 'decision: allow')
    })
    const result = await publish(ws, upload(ws, patch, [PR]))
    expect(result.exitCode).not.toBe(0)
    expect(result.summary).toMatch(/policies\/copilot\.yml \(.*rule policy-file/)
    expect(originBranches()).toEqual(['refs/heads/main'])
    expect(writes(github)).toEqual([])
  }, 60_000)
})

describe('nothing credential-shaped leaves', () => {
  // Broken before: publish checked only paths, and pushed a token the agent wrote into a file.
  it.each([
    ['a GitHub token by its format', `export const token = '${FORMAT_TOKEN}'\n`, 'a GitHub token'],
    ["the publish job's own token", `const t = '${TOKEN}'\n`, 'a secret this job knows'],
    [
      'a private key',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEow==\n-----END RSA PRIVATE KEY-----\n',
      'a private key'
    ]
  ])(
    'refuses a patch holding %s, naming the file and line, never the value',
    async (_name, content, what) => {
      const ws = clone()
      const result = await publish(
        ws,
        upload(ws, patchOf({ 'src/math.js': FIXED, 'src/config.js': `// config\n${content}` }), [
          PR
        ])
      )
      expect(result.exitCode).not.toBe(0)
      expect(result.summary).toContain(`src/config.js, line 2) holds ${what}`)
      expect(result.summary).not.toContain(FORMAT_TOKEN)
      expect(result.summary).not.toContain('MIIEow')
      expect(originBranches()).toEqual(['refs/heads/main'])
      expect(writes(github)).toEqual([])
    },
    60_000
  )

  it('refuses a proposal and a label holding a credential, without showing it', async () => {
    const ws = clone()
    const result = await publish(ws, {
      ...upload(ws, patchOf({ 'src/math.js': FIXED }), [
        { ...PR, body: `Deploy key: ${FORMAT_TOKEN}` },
        { kind: 'labels', labels: [FORMAT_TOKEN.slice(0, 50)] }
      ]),
      'allowed-labels': '*'
    })
    expect(result.exitCode).not.toBe(0)
    expect(result.summary).toContain(
      'Proposal 1 (pull-request) was refused: its body holds a GitHub token (line 1).'
    )
    expect(result.summary).toContain(
      'Proposal 2 (labels) was refused: its label 1 holds a GitHub token (line 1).'
    )
    expect(result.summary).not.toContain(FORMAT_TOKEN.slice(0, 40))
    expect(github.pulls).toEqual([])
    expect(writes(github)).toEqual([])
  }, 60_000)
})
