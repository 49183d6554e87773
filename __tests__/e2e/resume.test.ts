/**
 * Continue where it stopped (issue 31), end to end on the real Copilot CLI (offline, scripted
 * model) with the fake GitHub API: the checkpoint every run writes (its contents, no secret of the
 * run in it, its digest in the sticky comment), and resuming from it in a later run.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { Checkpoint, markedDigest, sha256 } from '../../src/checkpoint/format.js'
import { encodedForms } from '../../src/text/safe-text.js'
import { startFakeGitHub, type FakeGitHub } from '../../test-support/github-api.js'
import { makeZip } from '../../test-support/zip.js'
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'
import {
  EXAMPLE_POLICY,
  makeWorkspace,
  runAction,
  waitGone,
  type ActionResult,
  type RunActionOptions,
  type Workspace
} from '../../test-support/action.js'

/** Two or more runs of the real CLI per test. */
const LONG = 300_000

const MODEL = 'claude-sonnet-4.5'
/** Secrets of the run, planted where the agent's tools will print them. */
const PROVIDER_KEY = 'sk-provider-Secret-7c1e9a4b2d'
const RUNTIME_TOKEN = 'actions-runtime-Secret-55f0b3'
const PR = 7

let workspace: Workspace
let model: ModelServer | undefined
let github: FakeGitHub

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: workspace.dir, encoding: 'utf8' }).trim()
}

beforeEach(async () => {
  workspace = makeWorkspace({
    '.github/copilot-policy.yml': EXAMPLE_POLICY,
    'src/calc.js': 'export const sum = (a, b) => Math.abs(a) + Math.abs(b)\n',
    // what the agent reads back: the run's own secrets, as a careless project might hold them
    'notes.txt': `provider key ${PROVIDER_KEY}\nruntime ${RUNTIME_TOKEN}\n`
  })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start')
  github = await startFakeGitHub()
  github.setPermission('octocat', 'write')
})
afterEach(async () => {
  await model?.close()
  model = undefined
  await github.close()
  workspace.cleanup()
})

async function runOnPullRequest(
  script: Script,
  inputs: Record<string, string> = {},
  event: Record<string, unknown> = {
    action: 'opened',
    number: PR,
    pull_request: { number: PR },
    sender: { login: 'octocat', type: 'User' }
  },
  eventName = 'pull_request',
  onSpawn?: RunActionOptions['onSpawn']
): Promise<ActionResult> {
  await model?.close()
  model = await startModelServer(script)
  const eventPath = path.join(workspace.runnerTemp, 'event.json')
  fs.writeFileSync(eventPath, JSON.stringify(event))
  const result = await runAction({
    workspace,
    inputs: {
      prompt: 'Fix sum() for negative numbers',
      model: MODEL,
      'provider-type': 'openai',
      'provider-base-url': model.url,
      'provider-api-key': PROVIDER_KEY,
      'github-token': 'user-token',
      ...inputs
    },
    env: {
      GITHUB_EVENT_NAME: eventName,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_API_URL: github.url,
      ACTIONS_RUNTIME_TOKEN: RUNTIME_TOKEN
    },
    ...(onSpawn ? { onSpawn } : {})
  })
  expect(await waitGone(result.cliPids)).toEqual([])
  return result
}

const bash = (command: string) => ({
  toolCalls: [{ name: 'bash', arguments: { command, description: command } }]
})
const fix = () => ({
  toolCalls: [
    {
      name: 'edit',
      arguments: {
        path: path.join(workspace.dir, 'src', 'calc.js'),
        old_str: 'Math.abs(a) + Math.abs(b)',
        new_str: 'a + b'
      }
    }
  ]
})

/** The agent fixes the file, then the model never answers again. */
const fixThenHang: Script = (_request, index) => (index === 0 ? fix() : { hang: true })

/** Run 1: reads the secrets, fixes the file, and is stopped by max-tokens before it finishes. */
const STOPPED_RUN: () => Script = () => [
  bash('cat notes.txt'),
  fix(),
  bash('npm test'),
  bash('git status'),
  bash('git status')
]

describe('the checkpoint', () => {
  it(
    'is written at a budget stop with the session, the patch and the starting commit, its digest in the comment, no secret in it',
    async () => {
      const start = git('rev-parse', 'HEAD')
      const result = await runOnPullRequest(STOPPED_RUN(), { 'max-tokens': '300' })
      expect(result.outputs.status).toBe('budget-exceeded')
      // the secret did reach the session (the model saw the tool output, redacted or not)
      expect(model!.toolResults().join('\n')).toContain('provider key')
      const file = result.outputs['checkpoint-path']!
      expect(file).toBe(path.join(workspace.runnerTemp, `${path.basename(file)}`))
      expect(file.endsWith('.checkpoint.json')).toBe(true)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      const bytes = fs.readFileSync(file)
      const checkpoint = Checkpoint.parse(JSON.parse(bytes.toString('utf8')))
      expect(checkpoint.sessionId).toBe(result.report!.sessionId)
      expect(checkpoint.startCommit).toBe(start)
      expect(checkpoint.target).toEqual({ kind: 'pr', number: PR })
      expect(checkpoint.run).toMatchObject({
        runId: '4242',
        status: 'budget-exceeded',
        stoppedAt: '`max-tokens` 300'
      })
      expect(checkpoint.patch).toContain('+export const sum = (a, b) => a + b')
      expect(checkpoint.policySha256).toBe(
        sha256(fs.readFileSync(path.join(workspace.dir, '.github/copilot-policy.yml')))
      )
      const names = checkpoint.files.map((f) => f.path)
      expect(names).toContain('events.jsonl')
      expect(names).toContain('workspace.yaml')
      const events = Buffer.from(
        checkpoint.files.find((f) => f.path === 'events.jsonl')!.content,
        'base64'
      ).toString('utf8')
      expect(events).toContain('cat notes.txt')
      // No secret of the run, in any form, anywhere in it: the file, and every file decoded.
      const everything = [
        bytes.toString('utf8'),
        ...checkpoint.files.map((f) => Buffer.from(f.content, 'base64').toString('latin1'))
      ].join('\n')
      for (const secret of [PROVIDER_KEY, RUNTIME_TOKEN]) {
        for (const form of encodedForms(secret)) expect(everything).not.toContain(form)
      }
      expect(events).toContain('provider key ***')
      // The sticky comment records the digest and the run, in its last line.
      const comment = github.comments('octo', 'repo', PR).at(-1)!
      expect(markedDigest(comment.body)).toEqual({ runId: '4242', digest: sha256(bytes) })
      expect(result.report!.checkpoint).toMatchObject({
        path: file,
        sha256: sha256(bytes),
        cut: []
      })
    },
    LONG
  )

  /** The checkpoint a run wrote, checked against its outputs, report and comment; parsed. */
  function checkpointOf(result: ActionResult): Checkpoint {
    const file = result.outputs['checkpoint-path']
    expect(file).toBeTruthy()
    expect(fs.existsSync(file!)).toBe(true)
    const bytes = fs.readFileSync(file!)
    // the report and the comment's marker point at the same file
    expect(result.report!.checkpoint).toMatchObject({ path: file, sha256: sha256(bytes) })
    const comment = github.comments('octo', 'repo', PR).at(-1)!
    expect(markedDigest(comment.body)).toEqual({ runId: '4242', digest: sha256(bytes) })
    const checkpoint = Checkpoint.parse(JSON.parse(bytes.toString('utf8')))
    expect(checkpoint.sessionId).toBe(result.report!.sessionId)
    expect(checkpoint.files.map((f) => f.path)).toContain('events.jsonl')
    // the partial patch: the fix the agent made before the run stopped
    expect(checkpoint.patch).toContain('+export const sum = (a, b) => a + b')
    return checkpoint
  }

  it(
    'is written when the run stops at timeout-minutes, with the partial patch and why it ended',
    async () => {
      const result = await runOnPullRequest(fixThenHang, { 'timeout-minutes': '0.15' })
      expect(result.outputs.status).toBe('timed-out')
      expect(model!.requests.length).toBeGreaterThanOrEqual(2) // the fix was made, then the hang
      const checkpoint = checkpointOf(result)
      expect(checkpoint.run).toMatchObject({
        runId: '4242',
        status: 'timed-out',
        stoppedAt: '`timeout-minutes` 9 s',
        reason: 'The agent did not finish within 9 s (timeout-minutes).'
      })
    },
    LONG
  )

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'is written when the run is cancelled (%s to the action, as the runner sends on cancel)',
    async (signal) => {
      let sent = false
      const result = await runOnPullRequest(fixThenHang, {}, undefined, undefined, (child) => {
        // once the model was asked again after the fix: the edit is in the workspace
        const timer = setInterval(() => {
          if ((model?.requests.length ?? 0) < 2) return
          clearInterval(timer)
          sent = true
          child.kill(signal)
        }, 50)
        child.on('exit', () => clearInterval(timer))
      })
      expect(sent).toBe(true)
      expect(result.outputs.status).toBe('cancelled')
      expect(result.exitCode).not.toBe(0)
      const checkpoint = checkpointOf(result)
      expect(checkpoint.run).toMatchObject({
        runId: '4242',
        status: 'cancelled',
        reason: 'The workflow run was cancelled.'
      })
    },
    LONG
  )
})

const continueEvent = (number = PR, body = '/continue') => ({
  action: 'created',
  issue: {
    number,
    pull_request: { url: `https://api.github.com/repos/octo/repo/pulls/${number}` }
  },
  comment: { id: 1, body, user: { login: 'octocat', type: 'User' } },
  sender: { login: 'octocat', type: 'User' }
})

const complete = (summary: string) => ({
  toolCalls: [{ name: 'task_complete', arguments: { summary } }]
})

/** Every text the model got in one request, joined. */
function requestText(index: number): string {
  return JSON.stringify(model!.requests[index]?.body.messages ?? [])
}

/** What the user said in one request: its user messages' text, joined. */
function userText(index: number): string {
  return (model!.requests[index]?.body.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n')
}

/** The prompt, as the CLI puts it after its own notices in the first user message. */
const lastParagraph = (text: string): string | undefined => text.trim().split('\n\n').at(-1)

describe('resume from the checkpoint', () => {
  it(
    'run 2 (/continue, resume: auto) continues run 1: its conversation, its changes, the chain in the comment',
    async () => {
      const run1 = await runOnPullRequest(STOPPED_RUN(), { 'max-tokens': '300' })
      expect(run1.outputs.status).toBe('budget-exceeded')
      const checkpoint = fs.readFileSync(run1.outputs['checkpoint-path']!)
      // A later job: a fresh checkout of the starting commit (run 1's change is only in its patch).
      git('checkout', '--', 'src/calc.js')
      expect(workspace.read('src/calc.js')).toContain('Math.abs')
      github.addArtifact('octo', 'repo', {
        name: `copilot-checkpoint-${PR}`,
        zip: makeZip([
          { name: path.basename(run1.outputs['checkpoint-path']!), content: checkpoint }
        ])
      })
      const run2 = await runOnPullRequest(
        [complete('Fixed sum() for negative numbers; the tests pass.')],
        { resume: 'auto', prompt: '/continue' },
        continueEvent(),
        'issue_comment'
      )
      if (run2.outputs.status !== 'completed') console.log(run2.stdout.slice(-4000))
      expect(run2.outputs.status).toBe('completed')
      // The model's first request carries run 1's conversation: its tool call and (redacted) output.
      const first = requestText(0)
      expect(first).toContain('cat notes.txt')
      expect(first).toContain('provider key')
      expect(first).toContain(
        'Continue the task. The last run stopped because it reached max-tokens 300'
      )
      // run 1's changes are in the workspace
      expect(workspace.read('src/calc.js')).toContain('a + b')
      expect(run2.report!.sessionId).toBe(run1.report!.sessionId)
      expect(run2.report!.continuedFrom).toEqual([
        expect.objectContaining({
          runId: '4242',
          status: 'budget-exceeded',
          stoppedAt: '`max-tokens` 300'
        })
      ])
      const comment = github.comments('octo', 'repo', PR).at(-1)!.body
      expect(comment).toMatch(
        /↪️ Continued from \[run #4242\]\(https:\/\/github\.com\/octo\/repo\/actions\/runs\/4242\)\*\* \(stopped at `max-tokens` 300\)/
      )
      expect(comment).toContain('the chain of 2 runs')
      // the chain goes on: run 2 wrote its own checkpoint, recorded in the same sticky comment
      const second = Checkpoint.parse(
        JSON.parse(fs.readFileSync(run2.outputs['checkpoint-path']!, 'utf8'))
      )
      expect(second.chain.map((l) => l.runId)).toEqual(['4242'])
      expect(markedDigest(comment)?.digest).toBe(
        sha256(fs.readFileSync(run2.outputs['checkpoint-path']!))
      )
      expect(github.comments('octo', 'repo', PR)).toHaveLength(1)
    },
    LONG
  )

  it(
    'never resumes another pull request’s checkpoint, a changed one, or one whose digest is in no comment of the action’s',
    async () => {
      const run1 = await runOnPullRequest(STOPPED_RUN(), { 'max-tokens': '300' })
      const file = run1.outputs['checkpoint-path']!
      const checkpoint = fs.readFileSync(file)
      git('checkout', '--', 'src/calc.js')
      // with instructions, so that a refused continuation starts a fresh session on them
      const command = '/continue +100 Fix sum() for negative numbers'
      const fresh = async (): Promise<ActionResult> => {
        const run = await runOnPullRequest(
          [complete('Done from scratch.')],
          { resume: 'auto', prompt: command },
          continueEvent(PR, command),
          'issue_comment'
        )
        expect(run.outputs.status).toBe('completed')
        expect(requestText(0)).not.toContain('cat notes.txt')
        expect(lastParagraph(userText(0))).toBe('Fix sum() for negative numbers')
        expect(userText(0)).not.toContain('/continue')
        expect(userText(0)).not.toContain('+100')
        expect(run.report!.sessionId).not.toBe(run1.report!.sessionId)
        expect(workspace.read('src/calc.js')).toContain('Math.abs')
        return run
      }
      const zip = (content: Buffer) => makeZip([{ name: path.basename(file), content }])

      // another pull request's artifact: never looked at for this one
      github.addArtifact('octo', 'repo', { name: 'copilot-checkpoint-8', zip: zip(checkpoint) })
      const other = await fresh()
      expect(other.report!.resumeRefused).toBe(
        'no artifact named copilot-checkpoint-7 (no earlier run uploaded a checkpoint).'
      )
      expect(github.comments('octo', 'repo', PR).at(-1)!.body).toContain('⚠️ Not continued:')

      // changed after its run (the digest in the comment is the original's)
      const changed = Buffer.from(
        checkpoint
          .toString('utf8')
          .replace('"status":"budget-exceeded"', '"status":"budget-exceedeD"')
      )
      expect(changed.equals(checkpoint)).toBe(false)
      // put run 1's digest back in the action's comment, as after run 1
      const own = github.comments('octo', 'repo', PR).at(-1)!
      own.body = `${own.body.replace(/\n<!-- copilot-autopilot-checkpoint [^>]*-->\s*$/, '')}\n<!-- copilot-autopilot-checkpoint run=4242 sha256=${sha256(checkpoint)} -->`
      github.addArtifact('octo', 'repo', { name: `copilot-checkpoint-${PR}`, zip: zip(changed) })
      const tampered = await fresh()
      expect(tampered.report!.resumeRefused).toMatch(
        /SHA-256 .* is in no comment of the action's on #7/
      )

      // a checkpoint vouched for only by someone else's comment (a fork's workflow, a forged marker)
      const forged = Buffer.from(
        checkpoint.toString('utf8').replace('"createdAt":"', '"createdAt":"1')
      )
      github.addComment(
        'octo',
        'repo',
        PR,
        `looks good\n<!-- copilot-autopilot-checkpoint run=1 sha256=${sha256(forged)} -->`,
        'mallory'
      )
      github.addArtifact('octo', 'repo', { name: `copilot-checkpoint-${PR}`, zip: zip(forged) })
      const notOurs = await fresh()
      expect(notOurs.report!.resumeRefused).toMatch(/is in no comment of the action's on #7/)
    },
    LONG
  )

  it(
    '/continue after a completed run does not resume it (required fails; auto: a bare one starts no session, one with instructions starts fresh on them alone, saying why); a follow-up /copilot task does',
    async () => {
      const run1 = await runOnPullRequest([
        bash('cat notes.txt'),
        fix(),
        complete('Fixed sum() for negative numbers.')
      ])
      expect(run1.outputs.status).toBe('completed')
      const upload = (result: ActionResult): void => {
        const file = result.outputs['checkpoint-path']!
        github.addArtifact('octo', 'repo', {
          name: `copilot-checkpoint-${PR}`,
          zip: makeZip([{ name: path.basename(file), content: fs.readFileSync(file) }])
        })
        // a later job: a fresh checkout of the starting commit
        git('checkout', '--', 'src/calc.js')
      }
      upload(run1)
      const vouched = github.comments('octo', 'repo', PR).at(-1)!.body

      // resume: required fails before any session, naming the status and what to do instead
      const required = await runOnPullRequest(
        [complete('never')],
        { resume: 'required', prompt: '/continue' },
        continueEvent(),
        'issue_comment'
      )
      expect(required.exitCode).not.toBe(0)
      expect(required.stdout).toContain(
        'Could not resume (resume: required): the last run on #7 (run 4242) ended with status completed, and /continue continues only a run that stopped before it was done (budget-exceeded, timed-out, cancelled, incomplete or verify-failed). For more work on #7, comment /copilot <task>: a follow-up starts a new task'
      )
      expect(required.report).toBeUndefined()
      expect(model!.requests).toHaveLength(0)
      expect(workspace.read('src/calc.js')).toContain('Math.abs')
      expect(github.comments('octo', 'repo', PR).at(-1)!.body).toBe(vouched)

      // a follow-up task continues the completed run's session: the agent keeps what it learned
      const followUp = await runOnPullRequest(
        [complete('Also checked NaN.')],
        { resume: 'auto', prompt: 'Also make sum() reject NaN.' },
        continueEvent(PR, '/copilot Also make sum() reject NaN.'),
        'issue_comment'
      )
      expect(followUp.outputs.status).toBe('completed')
      expect(followUp.report!.resumeRefused).toBeUndefined()
      expect(followUp.report!.sessionId).toBe(run1.report!.sessionId)
      expect(followUp.report!.continuedFrom).toEqual([
        expect.objectContaining({ runId: '4242', status: 'completed' })
      ])
      expect(requestText(0)).toContain('cat notes.txt')
      expect(requestText(0)).toContain('Also make sum() reject NaN.')
      expect(workspace.read('src/calc.js')).toContain('a + b')
      upload(followUp)

      const followUpDigest = sha256(fs.readFileSync(followUp.outputs['checkpoint-path']!))

      // a bare /continue after the follow-up (completed too), resume: auto: nothing to continue,
      // and no task for a fresh session: no session at all, no failure, the comment says why
      const bare = await runOnPullRequest(
        [complete('never')],
        { resume: 'auto', prompt: '/continue +200' },
        continueEvent(PR, '/continue +200'),
        'issue_comment'
      )
      expect(bare.exitCode).toBe(0)
      expect(bare.outputs.status).toBe('skipped')
      expect(bare.report).toBeUndefined()
      expect(model!.requests).toHaveLength(0)
      expect(workspace.read('src/calc.js')).toContain('Math.abs')
      expect(bare.stdout).toContain(
        'Nothing to continue: the last run on #7 (run 4242) ended with status completed'
      )
      const skipped = github.comments('octo', 'repo', PR).at(-1)!.body
      expect(skipped).toContain('### ⏸️ Copilot did not start: nothing to continue')
      expect(skipped.replace(/\u200b/g, '')).toContain(
        '**⚠️ Not continued:** the last run on #7 (run 4242) ended with status completed, and /continue continues only a run that stopped before it was done'
      )
      expect(skipped.replace(/\u200b/g, '')).toContain(
        'comment /copilot &lt;task&gt;: a follow-up starts a new task'
      )
      expect(skipped).toContain('No session started')
      expect(skipped).toContain('[workflow run](https://github.com/octo/repo/actions/runs/4242)')
      // the follow-up's checkpoint stays vouched for: this run wrote none
      expect(markedDigest(skipped)?.digest).toBe(followUpDigest)
      expect(github.comments('octo', 'repo', PR)).toHaveLength(1)

      // /continue with instructions after a completed run, resume: auto: a fresh session whose
      // prompt is only the instructions, saying at the top of the comment why it started fresh
      const fresh = await runOnPullRequest(
        [complete('Fixed the lint.')],
        { resume: 'auto', prompt: '/continue fix the lint too' },
        continueEvent(PR, '/continue fix the lint too'),
        'issue_comment'
      )
      expect(fresh.outputs.status).toBe('completed')
      // refused for how the last run ended (its checkpoint still vouched for), not for its digest
      expect(fresh.report!.resumeRefused).toMatch(
        /^the last run on #7 \(run 4242\) ended with status completed, and \/continue continues only a run that stopped/
      )
      expect(fresh.report!.continuedFrom).toBeUndefined()
      expect(fresh.report!.sessionId).not.toBe(run1.report!.sessionId)
      expect(requestText(0)).not.toContain('cat notes.txt')
      // the CLI's notices first, then the prompt: the instructions alone
      expect(lastParagraph(userText(0))).toBe('fix the lint too')
      expect(userText(0)).not.toContain('/continue')
      expect(workspace.read('src/calc.js')).toContain('Math.abs')
      const comment = github.comments('octo', 'repo', PR).at(-1)!.body
      // at the top of the comment (#7 does not link there: the reason is shown as untrusted text)
      const top = comment
        .slice(0, comment.indexOf('This run started a fresh session.'))
        .replace(/\u200b/g, '')
      expect(top).toContain(
        '**⚠️ Not continued:** the last run on #7 (run 4242) ended with status completed, and /continue continues only a run that stopped before it was done'
      )
      expect(top).toContain('comment /copilot &lt;task&gt;: a follow-up starts a new task')
      // at the top: under the headline and the run's line, before the agent's summary
      expect(comment.indexOf('⚠️ Not continued')).toBeGreaterThan(comment.indexOf('[workflow run]'))
      expect(comment.indexOf('⚠️ Not continued')).toBeLessThan(
        comment.indexOf("**The agent's summary**")
      )
      expect(github.comments('octo', 'repo', PR)).toHaveLength(1)
    },
    LONG
  )

  it(
    'a bare /continue with no checkpoint at all starts no session, and says to comment /copilot <task>',
    async () => {
      // no earlier run uploaded a checkpoint for #7
      const bare = await runOnPullRequest(
        [complete('never')],
        { resume: 'auto', prompt: '/continue' },
        continueEvent(),
        'issue_comment'
      )
      expect(bare.exitCode).toBe(0)
      expect(bare.outputs.status).toBe('skipped')
      expect(model!.requests).toHaveLength(0)
      const skipped = github.comments('octo', 'repo', PR).at(-1)!.body
      expect(skipped).toContain(
        '**⚠️ Not continued:** no artifact named copilot-checkpoint-7 (no earlier run uploaded a checkpoint).'
      )
      expect(skipped).toContain('For more work, comment `/copilot <task>`')
      expect(markedDigest(skipped)).toBeUndefined()
      expect(bare.outputs['comment-url']).toBeTruthy()
    },
    LONG
  )

  it(
    '/continue after a cancelled run (SIGTERM, as on cancel-in-progress) resumes it',
    async () => {
      let sent = false
      const run1 = await runOnPullRequest(fixThenHang, {}, undefined, undefined, (child) => {
        const timer = setInterval(() => {
          if ((model?.requests.length ?? 0) < 2) return
          clearInterval(timer)
          sent = true
          child.kill('SIGTERM')
        }, 50)
        child.on('exit', () => clearInterval(timer))
      })
      expect(sent).toBe(true)
      expect(run1.outputs.status).toBe('cancelled')
      const file = run1.outputs['checkpoint-path']!
      github.addArtifact('octo', 'repo', {
        name: `copilot-checkpoint-${PR}`,
        zip: makeZip([{ name: path.basename(file), content: fs.readFileSync(file) }])
      })
      git('checkout', '--', 'src/calc.js')

      const run2 = await runOnPullRequest(
        [complete('Finished the fix.')],
        { resume: 'required', prompt: '/continue' },
        continueEvent(),
        'issue_comment'
      )
      expect(run2.outputs.status).toBe('completed')
      expect(run2.report!.sessionId).toBe(run1.report!.sessionId)
      expect(run2.report!.continuedFrom).toEqual([
        expect.objectContaining({ runId: '4242', status: 'cancelled' })
      ])
      // run 1's conversation (its edit), then why it stopped
      expect(requestText(0)).toContain('Math.abs(a) + Math.abs(b)')
      expect(lastParagraph(userText(0))).toBe(
        'Continue the task. The last run stopped because the workflow run was cancelled. Pick up where it left off: its changes are in the workspace.'
      )
      expect(workspace.read('src/calc.js')).toContain('a + b')
    },
    LONG
  )

  it('resume: required fails before any session when the checkpoint does not check out', async () => {
    const result = await runOnPullRequest(
      [complete('never')],
      { resume: 'required', prompt: '/continue' },
      continueEvent(),
      'issue_comment'
    )
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout).toContain(
      'Could not resume (resume: required): no artifact named copilot-checkpoint-7'
    )
    expect(model!.requests).toHaveLength(0)
  })
})
