/**
 * Attacks on `mode: publish` end to end (issue 23, red team): hostile patches and proposals files
 * handed to the publish step in a fresh clone of a bare `origin`, against the fake GitHub API.
 * No agent runs here (the publish step never starts the CLI): the inputs are what a hostile agent
 * job could upload. Each test says whether the attack once got through.
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
/** The proposal tools allowed, as an agent job's policy would (the publish step asks it again). */
const POLICY = `${EXAMPLE_POLICY}  - { id: proposals, decision: allow, tool: ["propose_pull_request", "add_labels", "add_comment", "create_issue"] }
`
const ALL_KINDS = 'pull-request, comment, labels, issue'
const sha = (file: string): string =>
  createHash('sha256').update(fs.readFileSync(file)).digest('hex')
const BUGGY = 'export function add(a, b) {\n  return a - b\n}\n'
const FIXED = 'export function add(a, b) {\n  return a + b\n}\n'
const git = testGit

let base: string
let origin: string
let github: FakeGitHub
const workspaces: Workspace[] = []

beforeEach(async () => {
  ;({ base, origin } = seedOrigin('autopilot-safe-attack-', {
    'src/math.js': BUGGY,
    '.github/copilot-policy.yml': POLICY,
    '.github/workflows/ci.yml': 'on: push\n'
  }))
  github = await startFakeGitHub()
  github.addLabel('@octocat')
  github.addLabel('<img src=//evil.example/p.png>')
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

/**
 * The hostile job's upload: a patch (text) and a proposals file, in `ws`'s RUNNER_TEMP, with the
 * digests its step output (a hostile agent job outputs the digests of what it uploads).
 */
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

/** A real patch of `files` over origin's main. */
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
      'safe-outputs': ALL_KINDS,
      'allowed-labels': '*',
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

function expectNothingPublished(ws: Workspace, result: ActionResult): void {
  expect(result.exitCode).not.toBe(0)
  expect(result.outputs.status).toBe('failed')
  expect(originBranches()).toEqual(['refs/heads/main'])
  expect(writes(github)).toEqual([])
  expect(git(ws.dir, 'status', '--porcelain')).toBe('')
}

const PR = { kind: 'pull-request', title: 'Fix add', body: 'Fixes add.', draft: true }

describe('publish, attacked', () => {
  // The default checkout of a pull request's event is its merge commit: the PR's own policy file
  // and tree. Publishing from it would let the pull request loosen the policy that checks it.
  it('refuses to publish from the merge commit of a pull request (the default checkout)', async () => {
    const ws = clone()
    const head = git(ws.dir, 'rev-parse', 'HEAD').trim()
    const result = await publish(ws, upload(ws, patchOf({ 'src/math.js': FIXED }), [PR]), {
      ...pullRequestEvent(ws, 'fix', 'main'),
      GITHUB_REF: 'refs/pull/7/merge',
      GITHUB_SHA: head
    })
    expectNothingPublished(ws, result)
    expect(result.stdout).toContain('merge commit')
    expect(result.stdout).toContain('github.event.pull_request.base.sha')
  })

  // Broken before: git reads the mode with strtoul, so `0120000` or `+120000` is a symlink to git
  // but not to the text check; the symlink was committed, pushed and opened as a pull request.
  // (`+120000` passes even the widened text check: what git stages refuses it.)
  it('refuses a symlink spelled +120000: nothing pushed, the checkout untouched', async () => {
    const ws = clone()
    const patch = [
      patchOf({ 'src/math.js': FIXED }),
      'diff --git a/src/wf b/src/wf',
      'new file mode +120000',
      'index 0000000..1111111',
      '--- /dev/null',
      '+++ b/src/wf',
      '@@ -0,0 +1 @@',
      '+../.github/workflows',
      '\\ No newline at end of file',
      ''
    ].join('\n')
    const result = await publish(ws, upload(ws, patch, [PR]))
    expectNothingPublished(ws, result)
    expect(result.summary).toMatch(/src\/wf \(would be a symlink or submodule entry, mode 120000\)/)
    expect(fs.existsSync(path.join(ws.dir, 'src', 'wf'))).toBe(false)
  }, 60_000)

  // Broken before: a forged file was read proposal by proposal; four comments were all posted.
  it('refuses a proposals file over the run’s counts before writing anything', async () => {
    const ws = clone()
    const comments = Array.from({ length: 4 }, (_, i) => ({ kind: 'comment', body: `spam ${i}` }))
    const result = await publish(ws, upload(ws, patchOf({ 'src/math.js': FIXED }), comments), {
      ...issueEvent(ws)
    })
    expect(result.exitCode).not.toBe(0)
    expect(result.summary).toMatch(/safe-outputs-path.*more than 3 comment/)
    expect(writes(github)).toEqual([])
    expect(originBranches()).toEqual(['refs/heads/main'])
  }, 60_000)

  // Broken before: label names went into the job summary raw (HTML, mentions), and
  // a character reference in a body (`&#64;user`) rendered as a mention that notifies.
  it('neutralizes labels in the summary and character references in what it posts', async () => {
    const ws = clone()
    const label = '<img src=//evil.example/p.png>'
    const result = await publish(
      ws,
      upload(ws, patchOf({ 'src/math.js': FIXED }), [
        { ...PR, title: 'Fix &#64;octocat', body: 'Thanks &#64;octocat and &commat;org/team!' },
        { kind: 'labels', labels: [label, '@octocat'] },
        { kind: 'issue', title: 'Follow-up', body: 'cc &#x40;mallory', labels: [] }
      ])
    )
    expect(result.exitCode).toBe(0)
    expect(result.summary).toContain('Added the labels')
    expect(result.summary).not.toContain('<img')
    expect(result.summary).not.toMatch(/(?<![\w\\])@octocat/)
    const pr = github.pulls[0]
    expect(pr?.labels).toEqual([label, '@octocat']) // the names themselves are GitHub's to show
    for (const text of [pr?.title ?? '', pr?.body ?? '']) {
      expect(text).not.toMatch(/&(?:#|commat;)/)
    }
    const issue = github.requests.find((r) => r.method === 'POST' && r.path.endsWith('/issues'))
    expect(JSON.stringify(issue?.body)).not.toMatch(/&#x40;/)
  }, 60_000)

  // Defended: a proposal cannot name the repository, the base or the head; the token never
  // reaches the commit, the summary or the outputs.
  it('ignores base, head and repo smuggled into a proposal and keeps the token out of everything', async () => {
    const ws = clone()
    const result = await publish(
      ws,
      upload(ws, patchOf({ 'src/math.js': FIXED }), [
        { ...PR, base: 'release', head: 'main', repo: 'evil/repo', owner: 'evil' }
      ])
    )
    expect(result.exitCode).toBe(0)
    expect(github.pulls.map((p) => [p.head, p.base])).toEqual([['copilot/4242', 'main']])
    expect(
      github.requests.every(
        (r) => r.path.startsWith('/repos/octo/repo') || !r.path.startsWith('/repos/')
      )
    ).toBe(true)
    expect(originBranches()).toEqual(['refs/heads/copilot/4242', 'refs/heads/main'])
    const auth = Buffer.from(`x-access-token:${TOKEN}`).toString('base64')
    const pushed = git(origin, 'log', '-p', '--format=%B%n%an <%ae>', 'copilot/4242')
    for (const where of [pushed, result.summary, JSON.stringify(result.outputs)]) {
      expect(where).not.toContain(TOKEN)
      expect(where).not.toContain(auth)
    }
    // in the log only as the runner's mask command, which is how the runner learns to hide it
    const logged = (result.stdout + result.stderr)
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n')
    expect(logged).not.toContain(TOKEN)
    expect(logged).not.toContain(auth)
    expect(fs.readFileSync(path.join(ws.dir, '.git', 'config'), 'utf8')).not.toContain(auth)
  }, 60_000)

  // Broken before: with write rules that allow everything but workflows, a patch could rewrite the
  // policy file itself (the one the publish step checks with), and the next run obeyed it.
  it('refuses a patch that changes the policy file, whatever its write rules allow', async () => {
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
    fs.writeFileSync(path.join(seed, 'Copilot-Policy.yml'), loose)
    git(seed, 'add', '-A')
    git(seed, 'commit', '-q', '-m', 'root policy')
    git(seed, 'push', '-q', 'origin', 'main')
    const ws = clone()
    const patch = patchOf({
      'src/math.js': FIXED,
      'Copilot-Policy.yml': loose.replace('decision: deny', 'decision: allow')
    })
    const result = await publish(ws, { ...upload(ws, patch, [PR]), policy: 'Copilot-Policy.yml' })
    expectNothingPublished(ws, result)
    expect(result.summary).toMatch(/Copilot-Policy\.yml \(.*rule policy-file/)
    // the same rules let the rest through
    const fine = await publish(clone(), {
      ...upload(ws, patchOf({ 'src/math.js': FIXED }), [PR]),
      policy: 'Copilot-Policy.yml'
    })
    expect(fine.exitCode).toBe(0)
  }, 60_000)

  // Defended: a patch bigger than the step reads is refused unread.
  it('refuses a patch over the size limit without reading it', async () => {
    const ws = clone()
    const inputs = upload(ws, '', [PR])
    fs.truncateSync(inputs['patch-path'] ?? '', 100 * 1024 * 1024 + 1)
    const result = await publish(ws, inputs)
    expectNothingPublished(ws, result)
    expect(result.summary).toMatch(/more than the 104857600/)
  }, 60_000)

  // Defended: push-to: pr-branch with a head branch that is no branch name (an option, a refspec,
  // `..`) pushes nowhere.
  it.each(['--orphan', 'main:refs/heads/x', 'a..b', 'x@{1}'])(
    'push-to: pr-branch refuses the head branch %j',
    async (ref) => {
      const ws = clone()
      const result = await publish(
        ws,
        { ...upload(ws, patchOf({ 'src/math.js': FIXED }), [PR]), 'push-to': 'pr-branch' },
        pullRequestEvent(ws, ref)
      )
      expectNothingPublished(ws, result)
      expect(result.summary).toContain('not pushed')
    },
    60_000
  )

  // Broken before: anyone can open a pull request from the repository's own main into another of
  // its branches; push-to: pr-branch then pushed the agent's commit straight onto main.
  it('push-to: pr-branch never pushes to the default branch a pull request names as its head', async () => {
    const seed = path.join(base, 'seed')
    git(seed, 'push', '-q', 'origin', 'main:release')
    const main = git(origin, 'rev-parse', 'main').trim()
    const ws = clone()
    const result = await publish(
      ws,
      { ...upload(ws, patchOf({ 'src/math.js': FIXED }), [PR]), 'push-to': 'pr-branch' },
      pullRequestEvent(ws, 'main', 'release')
    )
    expect(result.exitCode).not.toBe(0)
    expect(result.summary).toMatch(/head branch main is the default branch/)
    expect(git(origin, 'rev-parse', 'main').trim()).toBe(main)
    expect(writes(github)).toEqual([])
  }, 60_000)

  // Defended (by git): in pr-branch mode the paths are checked on the base's tree, but the
  // patch applies to the head's; a symlink there to .github cannot be written through.
  it('push-to: pr-branch cannot write through a symlink the head branch holds', async () => {
    const seed = path.join(base, 'seed')
    git(seed, 'checkout', '-q', '-b', 'feature')
    fs.symlinkSync('../.github/workflows', path.join(seed, 'src', 'wf'))
    git(seed, 'add', '-A')
    git(seed, 'commit', '-q', '-m', 'link')
    git(seed, 'push', '-q', 'origin', 'feature')
    const head = git(origin, 'rev-parse', 'feature').trim()
    const ws = clone()
    const patch = [
      'diff --git a/src/wf/evil.yml b/src/wf/evil.yml',
      'new file mode 100644',
      'index 0000000..1111111',
      '--- /dev/null',
      '+++ b/src/wf/evil.yml',
      '@@ -0,0 +1 @@',
      '+on: pull_request_target',
      ''
    ].join('\n')
    const result = await publish(
      ws,
      { ...upload(ws, patch, [PR]), 'push-to': 'pr-branch' },
      pullRequestEvent(ws, 'feature')
    )
    expect(result.exitCode).not.toBe(0)
    expect(result.summary).toMatch(/beyond a symbolic link/)
    expect(git(origin, 'rev-parse', 'feature').trim()).toBe(head)
    expect(fs.existsSync(path.join(ws.dir, '.github', 'workflows', 'evil.yml'))).toBe(false)
    expect(writes(github)).toEqual([])
  }, 60_000)

  // Defended: a .gitattributes filter in the patch runs nothing (no driver in any config git
  // reads), and the hooks the checkout might hold are off.
  it('runs no filter the patch names and no hook of the checkout', async () => {
    const ws = clone()
    const marker = path.join(base, 'ran')
    const hook = `#!/bin/sh\ntouch ${marker}\n`
    for (const name of ['pre-commit', 'post-commit', 'pre-push', 'post-checkout', 'commit-msg']) {
      fs.writeFileSync(path.join(ws.dir, '.git', 'hooks', name), hook, { mode: 0o755 })
    }
    const result = await publish(
      ws,
      upload(
        ws,
        patchOf({ 'src/math.js': FIXED, 'src/.gitattributes': '* filter=evil diff=evil\n' }),
        [PR]
      ),
      { GIT_CONFIG_PARAMETERS: `'filter.evil.smudge'='touch ${marker}'`, GIT_DIR: '/nowhere' }
    )
    expect(result.exitCode).toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
    expect(git(origin, 'show', 'copilot/4242:src/math.js')).toBe(FIXED)
  }, 60_000)
})

function pullRequestEvent(
  ws: Workspace,
  headRef: string,
  baseRef = 'main'
): Record<string, string> {
  // the pull request as the API knows it (the publish step asks)
  github.seedPullRequest({ number: 7, head: headRef, base: baseRef })
  const file = path.join(ws.runnerTemp, 'event.json')
  fs.writeFileSync(
    file,
    JSON.stringify({
      action: 'opened',
      pull_request: {
        number: 7,
        head: { ref: headRef, repo: { full_name: 'octo/repo' } },
        base: { ref: baseRef }
      },
      repository: { default_branch: 'main' }
    })
  )
  return { GITHUB_EVENT_PATH: file, GITHUB_EVENT_NAME: 'pull_request' }
}

function issueEvent(ws: Workspace): Record<string, string> {
  const file = path.join(ws.runnerTemp, 'issue-event.json')
  fs.writeFileSync(file, JSON.stringify({ action: 'opened', issue: { number: 9 } }))
  return { GITHUB_EVENT_PATH: file, GITHUB_EVENT_NAME: 'issues' }
}
