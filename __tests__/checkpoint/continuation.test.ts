/**
 * `/continue` continues only a run that stopped (issue 31, point 3): the decision, and what a
 * resume from a checkpoint file does with it (a real git checkout, a real checkpoint file; no
 * network: `resume: <path>`).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  CONTINUABLE_STATUSES,
  continuationPrompt,
  continuationRefusal,
  continueCommand,
  freshStart,
  isContinuation
} from '../../src/checkpoint/continuation.js'
import {
  CHECKPOINT_FORMAT,
  Checkpoint,
  checkpointMarker,
  sha256
} from '../../src/checkpoint/format.js'
import { resumeFromCheckpoint, type ResumeOptions } from '../../src/checkpoint/resume.js'
import { UserError } from '../../src/errors.js'
import { renderNothingToContinue } from '../../src/reporting/render.js'
import { RUN_STATUSES } from '../../src/reporting/types.js'
import { startFakeGitHub, type FakeGitHub } from '../../test-support/github-api.js'
import { makeZip } from '../../test-support/zip.js'

describe('a continuation', () => {
  it.each([
    ['/continue', {}],
    ['  /Continue +50 and add a test', {}],
    ['/continue\nplease', {}],
    // the workflow wrote its own prompt; the comment that triggered the run is the command
    ['Continue the task.', { comment: { body: '/continue +20' } }]
  ])('is asked for by the prompt %j or the comment', (prompt, payload) => {
    expect(isContinuation(prompt, payload)).toBe(true)
  })

  it.each([
    ['/copilot fix the docs too', { comment: { body: '/copilot fix the docs too' } }],
    ['Fix sum() for negative numbers', {}],
    ['/continued', {}],
    ['please /continue', { comment: { body: 'looks good, /continue later' } }],
    ['Do it.', { comment: { body: 42 } }],
    ['Do it.', null]
  ])('is not asked for by the prompt %j (comment %j)', (prompt, payload) => {
    expect(isContinuation(prompt, payload)).toBe(false)
  })

  it.each([
    ['/continue', '', true],
    ['/continue +200', '', true],
    ['  /CONTINUE   +50  \n', '', true],
    ['/continue +200 and then add a test for divide()', 'and then add a test for divide()', true],
    ['/continue fix the lint too', 'fix the lint too', true],
    ['/continue\nplease also\nupdate the docs', 'please also\nupdate the docs', true],
    ['/continue+20 go on', 'go on', true],
    // `+N` only right after the command: a number later in the text is the maintainer's
    ['/continue fix issue +2', 'fix issue +2', true]
  ])('reads the command %j: instructions %j', (prompt, instructions, inPrompt) => {
    expect(continueCommand(prompt, {})).toEqual({ instructions, inPrompt })
  })

  it('reads the command from the triggering comment when the workflow wrote its own prompt', () => {
    expect(continueCommand('Continue the task.', { comment: { body: '/continue +20' } })).toEqual({
      instructions: '',
      inPrompt: false
    })
    expect(
      continueCommand('Work on #7.', { comment: { body: ' /continue +20 fix the lint too' } })
    ).toEqual({ instructions: 'fix the lint too', inPrompt: false })
    expect(
      continueCommand('/copilot fix it', { comment: { body: '/copilot fix it' } })
    ).toBeUndefined()
  })

  describe('when it resumed nothing (refused, no checkpoint, resume: never)', () => {
    it.each(['/continue', '/continue +200', '  /continue   '])(
      'a bare %j starts no session: it gave the agent nothing to do',
      (prompt) => {
        expect(freshStart(prompt, continueCommand(prompt, {}))).toEqual({
          kind: 'nothing-to-continue'
        })
      }
    )

    it('a bare /continue comment starts no session under a prompt the workflow wrote', () => {
      const prompt = 'Continue the task.'
      const command = continueCommand(prompt, { comment: { body: '/continue +50' } })
      expect(freshStart(prompt, command)).toEqual({ kind: 'nothing-to-continue' })
    })

    it.each([
      ['/continue fix the lint too', 'fix the lint too'],
      ['/continue +200 and then add a test for divide()', 'and then add a test for divide()'],
      ['/Continue\nrun the linter\nand fix it', 'run the linter\nand fix it']
    ])('%j starts a fresh session whose prompt is only the instructions', (prompt, task) => {
      expect(freshStart(prompt, continueCommand(prompt, {}))).toEqual({
        kind: 'session',
        prompt: task
      })
    })

    it('a /continue comment with instructions keeps the prompt the workflow wrote', () => {
      const prompt = 'A maintainer asked: fix the lint too.'
      const command = continueCommand(prompt, { comment: { body: '/continue fix the lint too' } })
      expect(freshStart(prompt, command)).toEqual({ kind: 'session', prompt })
    })

    it('any other run starts a session with its prompt', () => {
      expect(freshStart('Fix sum()', undefined)).toEqual({ kind: 'session', prompt: 'Fix sum()' })
      expect(freshStart('/continued', continueCommand('/continued', {}))).toEqual({
        kind: 'session',
        prompt: '/continued'
      })
    })
  })

  it('a resumed bare /continue says why the last run stopped; with instructions, only them', () => {
    const from = { runId: '41', status: 'budget-exceeded', stoppedAt: '`max-ai-credits` 300' }
    expect(continuationPrompt('/continue +100', from)).toBe(
      'Continue the task. The last run stopped because it reached max-ai-credits 300. Pick up where it left off: its changes are in the workspace.'
    )
    expect(continuationPrompt('/continue +100 fix the lint too', from)).toBe('fix the lint too')
    // a cancelled run: why it ended, as its checkpoint says it
    const cancelled = {
      runId: '41',
      status: 'cancelled',
      reason: 'The workflow run was cancelled.'
    }
    expect(continuationPrompt('/continue', cancelled)).toBe(
      'Continue the task. The last run stopped because the workflow run was cancelled. Pick up where it left off: its changes are in the workspace.'
    )
  })

  it('the comment of a bare /continue that resumed nothing says why, and what to do', () => {
    const refused = renderNothingToContinue({
      reason:
        'the last run on #7 (run 41) ended with status completed, and /continue continues only a run that stopped before it was done. For more work on #7, comment /copilot <task>: a follow-up starts a new task.',
      hasFix: true,
      runUrl: 'https://github.com/octo/repo/actions/runs/43',
      secrets: []
    })
    expect(refused).toContain('### ⏸️ Copilot did not start: nothing to continue')
    expect(refused).toContain('[workflow run](https://github.com/octo/repo/actions/runs/43)')
    expect(refused.replace(/\u200b/g, '')).toContain(
      '**⚠️ Not continued:** the last run on #7 (run 41) ended with status completed'
    )
    expect(refused.replace(/\u200b/g, '')).toContain('comment /copilot &lt;task&gt;')
    expect(refused).toContain('No session started')
    expect(refused).not.toContain('`/copilot <task>`')

    // a reason with no fix of its own (no checkpoint found): the comment says what to do
    const none = renderNothingToContinue({
      reason:
        'the artifacts of octo/repo could not be listed (Bad credentials: sk-Secret-1234567890).',
      hasFix: false,
      secrets: ['sk-Secret-1234567890']
    })
    expect(none).toContain('For more work, comment `/copilot <task>`')
    expect(none).toContain('Bad credentials: ***')
    expect(none).not.toContain('sk-Secret')
    expect(none).not.toContain('workflow run')
  })

  it.each(CONTINUABLE_STATUSES)('picks up a run that ended %s', (status) => {
    expect(continuationRefusal({ runId: '41', status }, 7)).toBeUndefined()
  })

  const refused = RUN_STATUSES.filter((s) => !CONTINUABLE_STATUSES.includes(s))
  it('picks up a run that stopped before it was done, a cancelled one too; no other', () => {
    expect(CONTINUABLE_STATUSES).toEqual([
      'budget-exceeded',
      'timed-out',
      'cancelled',
      'incomplete',
      'verify-failed'
    ])
    expect(refused).toEqual(['completed', 'failed', 'policy-violation'])
  })

  it.each(refused)(
    'is refused after a run that ended %s, naming the status and what to do',
    (status) => {
      const refusal = continuationRefusal({ runId: '41', status }, 7)
      expect(refusal?.reason).toBe(
        `the last run on #7 (run 41) ended with status ${status}, and /continue continues only a run that stopped before it was done (budget-exceeded, timed-out, cancelled, incomplete or verify-failed).`
      )
      expect(refusal?.fix).toBe(
        'For more work on #7, comment /copilot <task>: a follow-up starts a new task (with resume: auto it keeps the earlier session).'
      )
    }
  )
})

describe('resuming the last run’s checkpoint', () => {
  let dir: string
  let workspace: string
  let checkpointPath: string
  let github: FakeGitHub
  const sessionId = 'b3f1c2d4-0000-4000-8000-000000000001'
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: workspace, encoding: 'utf8' }).trim()

  /**
   * The checkpoint of the last run on #7, which ended `status`, its change only in the patch: as a
   * file, and as the artifact `copilot-checkpoint-7` its sticky comment vouches for.
   */
  function lastRunEnded(status: string): Buffer {
    const start = git('rev-parse', 'HEAD')
    fs.writeFileSync(path.join(workspace, 'calc.js'), 'export const sum = (a, b) => a + b\n')
    const patch = execFileSync('git', ['diff', '--binary'], { cwd: workspace, encoding: 'utf8' })
    git('checkout', '--', 'calc.js')
    const checkpoint: Checkpoint = {
      format: CHECKPOINT_FORMAT,
      version: 1,
      createdAt: '2026-11-28T00:00:00.000Z',
      repository: 'octo/repo',
      target: { kind: 'pr', number: 7 },
      run: { runId: '41', status },
      chain: [],
      sessionId,
      startCommit: start,
      patch,
      policySha256: null,
      files: [
        {
          path: 'events.jsonl',
          content: Buffer.from('{"type":"session.start"}\n').toString('base64')
        }
      ],
      cut: []
    }
    const bytes = Buffer.from(JSON.stringify(Checkpoint.parse(checkpoint)))
    fs.writeFileSync(checkpointPath, bytes)
    github.addArtifact('octo', 'repo', {
      name: 'copilot-checkpoint-7',
      zip: makeZip([{ name: 'run.checkpoint.json', content: bytes }])
    })
    github.addComment(
      'octo',
      'repo',
      7,
      `**Copilot** stopped.\n${checkpointMarker('41', sha256(bytes))}`,
      'octocat'
    )
    return bytes
  }

  const options = (
    mode: ResumeOptions['mode'],
    continuation: boolean,
    warnings: string[] = []
  ): ResumeOptions => ({
    mode,
    target: { kind: 'pr', owner: 'octo', repo: 'repo', number: 7, source: 'event' },
    workspace,
    cliHome: path.join(dir, 'copilot-home'),
    repository: 'octo/repo',
    token: 'user-token',
    apiUrl: github.url,
    continuation,
    log: { info: () => undefined, warning: (line) => warnings.push(line), debug: () => undefined }
  })
  const restored = (): boolean =>
    fs.existsSync(path.join(dir, 'copilot-home', 'session-state', sessionId, 'events.jsonl'))
  const calc = (): string => fs.readFileSync(path.join(workspace, 'calc.js'), 'utf8')

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'continuation-'))
    workspace = path.join(dir, 'work')
    checkpointPath = path.join(dir, 'run.checkpoint.json')
    fs.mkdirSync(workspace)
    fs.writeFileSync(
      path.join(workspace, 'calc.js'),
      'export const sum = (a, b) => Math.abs(a) + Math.abs(b)\n'
    )
    git('init', '-q', '-b', 'main')
    git('add', '-A')
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start')
    github = await startFakeGitHub()
  })
  afterEach(async () => {
    await github.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('/continue after a completed run, resume: auto: starts fresh, says why, puts nothing back', async () => {
    const bytes = lastRunEnded('completed')
    const warnings: string[] = []
    const outcome = await resumeFromCheckpoint(options({ kind: 'auto' }, true, warnings))
    const fix =
      'For more work on #7, comment /copilot <task>: a follow-up starts a new task (with resume: auto it keeps the earlier session).'
    expect(outcome).toEqual({
      kind: 'refused',
      reason: `the last run on #7 (run 41) ended with status completed, and /continue continues only a run that stopped before it was done (budget-exceeded, timed-out, cancelled, incomplete or verify-failed). ${fix}`,
      fix,
      // the action's own comment vouched for it: a run that writes no checkpoint keeps its marker
      vouched: { runId: '41', digest: sha256(bytes) }
    })
    expect(warnings).toEqual([
      expect.stringMatching(
        /^Not resuming: the last run on #7 \(run 41\) ended with status completed, .* it keeps the earlier session\)\.$/
      )
    ])
    expect(calc()).toContain('Math.abs')
    expect(restored()).toBe(false)
  })

  it.each(['required', 'a checkpoint file'] as const)(
    '/continue after a policy-violation, resume: %s: fails naming the status and the follow-up',
    async (how) => {
      lastRunEnded('policy-violation')
      const mode: ResumeOptions['mode'] =
        how === 'required' ? { kind: 'required' } : { kind: 'path', path: checkpointPath }
      const resume = resumeFromCheckpoint(options(mode, true))
      await expect(resume).rejects.toThrow(UserError)
      await expect(resume).rejects.toThrow(
        `Could not resume (resume: ${how === 'required' ? 'required' : checkpointPath}): the last run on #7 (run 41) ended with status policy-violation, and /continue continues only a run that stopped before it was done (budget-exceeded, timed-out, cancelled, incomplete or verify-failed). For more work on #7, comment /copilot <task>: a follow-up starts a new task (with resume: auto it keeps the earlier session).`
      )
      expect(calc()).toContain('Math.abs')
      expect(restored()).toBe(false)
    }
  )

  it('/continue after a run that stopped at its budget: resumes, its patch applied, its state back', async () => {
    lastRunEnded('budget-exceeded')
    const outcome = await resumeFromCheckpoint(options({ kind: 'required' }, true))
    expect(outcome).toMatchObject({
      kind: 'resumed',
      resumed: { sessionId, chain: [{ runId: '41', status: 'budget-exceeded' }] }
    })
    expect(calc()).toContain('a + b')
    expect(restored()).toBe(true)
  })

  it('/continue after a cancelled run (cancel-in-progress, a person): resumes it', async () => {
    lastRunEnded('cancelled')
    const outcome = await resumeFromCheckpoint(options({ kind: 'required' }, true))
    expect(outcome).toMatchObject({
      kind: 'resumed',
      resumed: { sessionId, chain: [{ runId: '41', status: 'cancelled' }] }
    })
    expect(calc()).toContain('a + b')
    expect(restored()).toBe(true)
  })

  it('a follow-up task continues a completed run', async () => {
    lastRunEnded('completed')
    const outcome = await resumeFromCheckpoint(options({ kind: 'auto' }, false))
    expect(outcome).toMatchObject({ kind: 'resumed', resumed: { sessionId } })
    expect(calc()).toContain('a + b')
    expect(restored()).toBe(true)
  })
})
