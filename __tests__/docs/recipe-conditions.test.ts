/**
 * Every recipe's jobs run when they should: each workflow in examples/ and in the README is
 * evaluated, with GitHub's `if:` rules (test-support/workflow-if.ts), for the event it is for and
 * for the failure it exists for, and the test says which jobs run.
 */
import fs from 'node:fs'
import path from 'node:path'
import YAML from 'yaml'
import { ROOT } from '../../test-support/action.js'
import type { JobResult, Scenario, Value, WorkflowJob } from '../../test-support/workflow-if.js'
import { evaluateCondition, runJobs } from '../../test-support/workflow-if.js'

interface Workflow {
  on: unknown
  jobs: Record<string, WorkflowJob & { steps?: Array<Record<string, unknown>> }>
}

function example(name: string): Workflow {
  return YAML.parse(
    fs.readFileSync(path.join(ROOT, 'examples', name, 'workflow.yml'), 'utf8')
  ) as Workflow
}

/** The README's workflow whose `name:` is `name`. */
function readmeWorkflow(name: string): Workflow {
  const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  for (const m of text.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)) {
    const value = YAML.parse(m[1] as string) as unknown
    if (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === name)
      return value as Workflow
  }
  throw new Error(`README.md has no workflow named ${name}`)
}

const REPO = 'acme/widgets'

function pullRequest(headRepo = REPO): Scenario['github'] {
  return {
    event_name: 'pull_request',
    repository: REPO,
    event: {
      action: 'synchronize',
      number: 7,
      pull_request: { number: 7, head: { repo: { full_name: headRepo }, ref: 'fix' } }
    }
  }
}

function comment(body: string, onPullRequest = true): Scenario['github'] {
  const issue: Record<string, Value> = { number: 7 }
  if (onPullRequest) issue.pull_request = { url: `https://api.github.com/repos/${REPO}/pulls/7` }
  return {
    event_name: 'issue_comment',
    repository: REPO,
    event: { action: 'created', comment: { body }, issue }
  }
}

const usesOf = (step: Record<string, unknown>): string =>
  typeof step.uses === 'string' ? step.uses : ''

const nameOf = (step: Record<string, unknown>): string =>
  typeof step.name === 'string' ? step.name : usesOf(step)

const isPublish = (step: Record<string, unknown>): boolean =>
  (step.with as Record<string, unknown> | undefined)?.mode === 'publish'

const stepIf = (workflow: Workflow, job: string, uses: string): unknown =>
  workflow.jobs[job]?.steps?.find((s) => usesOf(s).startsWith(uses))?.if

describe('the if: evaluator', () => {
  const ctx = { github: pullRequest() as Value, needs: {} }
  const ok = { ancestors: ['success' as JobResult] }
  const failed = { ancestors: ['success', 'failure'] as JobResult[] }

  it('adds success() when a condition has no status function, as GitHub does', () => {
    expect(evaluateCondition("github.event_name == 'pull_request'", ctx, ok)).toBe(true)
    expect(evaluateCondition("github.event_name == 'pull_request'", ctx, failed)).toBe(false)
    expect(evaluateCondition("always() && github.event_name == 'pull_request'", ctx, failed)).toBe(
      true
    )
    expect(evaluateCondition(undefined, ctx, failed)).toBe(false)
    expect(evaluateCondition('${{ !cancelled() }}', ctx, failed)).toBe(true)
    expect(evaluateCondition('failure()', ctx, failed)).toBe(true)
    expect(evaluateCondition('cancelled()', ctx, { ancestors: [], cancelled: true })).toBe(true)
    expect(evaluateCondition('success()', ctx, { ancestors: ['skipped'] })).toBe(false)
  })

  it('compares as GitHub does: strings ignoring case, null as empty, || returning an operand', () => {
    const c = { github: { a: 'Main', n: null, list: ['x', 'Y'] } as Value }
    expect(evaluateCondition("github.a == 'main'", c, ok)).toBe(true)
    expect(evaluateCondition("github.n == ''", c, ok)).toBe(true)
    expect(evaluateCondition("github.missing.deep != ''", c, ok)).toBe(false)
    expect(
      evaluateCondition("contains(github.list, 'y') && startsWith(github.a, 'MA')", c, ok)
    ).toBe(true)
    expect(evaluateCondition("(github.n || 'x') == 'x' && github['a'] != 'dev'", c, ok)).toBe(true)
  })

  it('refuses what it does not understand instead of guessing', () => {
    expect(() => evaluateCondition('hashFiles()', { github: {} }, ok)).toThrow('unsupported')
    expect(() => evaluateCondition("secrets.X == 'y'", { github: {} }, ok)).toThrow(
      'unknown context'
    )
    expect(() => evaluateCondition("github.a == 'x", { github: {} }, ok)).toThrow('unterminated')
  })
})

describe('examples/fix-failing-tests', () => {
  const wf = example('fix-failing-tests')

  it('does nothing more when the tests pass', () => {
    expect(runJobs(wf.jobs, { github: pullRequest() })).toEqual({
      tests: 'success',
      fix: 'skipped',
      push: 'skipped'
    })
  })

  it('fixes and pushes after the failed tests job it exists for', () => {
    expect(
      runJobs(wf.jobs, {
        github: pullRequest(),
        outcomes: {
          tests: { result: 'failure' },
          fix: { result: 'success', outputs: { status: 'completed' } }
        }
      })
    ).toEqual({ tests: 'failure', fix: 'success', push: 'success' })
  })

  it('pushes nothing when the agent did not complete, or the PR is from a fork', () => {
    expect(
      runJobs(wf.jobs, {
        github: pullRequest(),
        outcomes: {
          tests: { result: 'failure' },
          fix: { result: 'failure', outputs: { status: 'verify-failed' } }
        }
      })
    ).toMatchObject({ fix: 'failure', push: 'skipped' })
    expect(
      runJobs(wf.jobs, {
        github: pullRequest('someone/fork'),
        outcomes: { tests: { result: 'failure' } }
      })
    ).toMatchObject({ fix: 'skipped', push: 'skipped' })
    expect(
      runJobs(wf.jobs, {
        github: pullRequest(),
        cancelled: true,
        outcomes: { tests: { result: 'failure' }, fix: { outputs: { status: 'completed' } } }
      })
    ).toMatchObject({ push: 'skipped' })
  })

  it('keeps the patch whatever the agent’s outcome', () => {
    expect(stepIf(wf, 'fix', 'actions/upload-artifact')).toBe('always()')
  })
})

describe('examples/comment-command', () => {
  const wf = example('comment-command')

  it('runs the agent for /copilot and publishes what it completed', () => {
    expect(
      runJobs(wf.jobs, {
        github: comment('/copilot fix the typo'),
        outcomes: { agent: { outputs: { status: 'completed' } } }
      })
    ).toEqual({ agent: 'success', publish: 'success' })
  })

  it('ignores other comments, and publishes nothing when the agent failed or was gated', () => {
    expect(runJobs(wf.jobs, { github: comment('thanks!') })).toEqual({
      agent: 'skipped',
      publish: 'skipped'
    })
    expect(
      runJobs(wf.jobs, {
        github: comment('/copilot x'),
        outcomes: { agent: { result: 'failure', outputs: { status: 'timed-out' } } }
      })
    ).toEqual({ agent: 'failure', publish: 'skipped' })
    expect(
      runJobs(wf.jobs, {
        github: comment('/copilot x'),
        outcomes: { agent: { outputs: { status: 'skipped' } } }
      })
    ).toEqual({ agent: 'success', publish: 'skipped' })
  })

  it('keeps the patch whatever the agent’s outcome', () => {
    const uploads = (wf.jobs.agent?.steps ?? []).filter(
      (s) => usesOf(s).startsWith('actions/upload-artifact') && /patch/i.test(String(s.name))
    )
    expect(uploads.map((s) => String(s.if))).toEqual([expect.stringMatching(/^always\(\)/)])
  })
})

describe('examples/scheduled-maintenance', () => {
  const wf = example('scheduled-maintenance')
  const schedule = { event_name: 'schedule', repository: REPO, event: { schedule: '0 6 * * 1' } }

  it('opens a pull request only when the agent completed and changed something', () => {
    const jobs = (status: string, files: string): Record<string, JobResult> =>
      runJobs(wf.jobs, {
        github: schedule,
        outcomes: {
          maintain: {
            result: status === 'completed' ? 'success' : 'failure',
            outputs: { status, 'files-modified': files }
          }
        }
      })
    expect(jobs('completed', '3')).toEqual({ maintain: 'success', 'pull-request': 'success' })
    expect(jobs('completed', '0')).toEqual({ maintain: 'success', 'pull-request': 'skipped' })
    expect(jobs('incomplete', '3')).toEqual({ maintain: 'failure', 'pull-request': 'skipped' })
  })

  it('keeps the patch whatever the agent’s outcome', () => {
    const uploads = (wf.jobs.maintain?.steps ?? []).filter(
      (s) => usesOf(s).startsWith('actions/upload-artifact') && /patch/i.test(String(s.name))
    )
    expect(uploads.map((s) => String(s.if))).toEqual([expect.stringMatching(/^always\(\)/)])
  })
})

describe('the README’s workflows', () => {
  it('the first workflow runs on its own pull requests, not a fork’s, and keeps the patch', () => {
    const wf = readmeWorkflow('Copilot fixes')
    expect(runJobs(wf.jobs, { github: pullRequest() })).toEqual({ agent: 'success' })
    expect(runJobs(wf.jobs, { github: pullRequest('someone/fork') })).toEqual({ agent: 'skipped' })
    expect(stepIf(wf, 'agent', 'actions/upload-artifact')).toBe(
      "always() && steps.copilot.outputs.patch-path != ''"
    )
  })

  it('the first workflow sets a budget and time limits that fit the job', () => {
    const wf = readmeWorkflow('Copilot fixes')
    const job = wf.jobs.agent as unknown as Record<string, unknown> & {
      steps: Array<Record<string, unknown>>
    }
    const inputs = job.steps.find((s) => s.id === 'copilot')?.with as Record<string, string>
    expect(inputs['max-tokens'] ?? inputs['max-ai-credits']).toBeDefined()
    const agentMinutes = Number(inputs['timeout-minutes'])
    const commandMinutes = Number(inputs['command-timeout-seconds']) / 60
    const commands = ['setup-commands', 'verify-commands'].filter((k) => inputs[k]).length
    // the agent's time, each command at most its timeout, and a few minutes for the other steps
    expect(agentMinutes + commands * commandMinutes + 5).toBeLessThanOrEqual(
      Number(job['timeout-minutes'])
    )
  })

  it('the comment workflow runs for /copilot and works on the pull request’s head', () => {
    const wf = readmeWorkflow('Copilot on command')
    expect(runJobs(wf.jobs, { github: comment('/copilot add a test') })).toEqual({
      agent: 'success'
    })
    expect(runJobs(wf.jobs, { github: comment('lgtm') })).toEqual({ agent: 'skipped' })
    const checkout = wf.jobs.agent?.steps?.find((s) => usesOf(s).startsWith('actions/checkout'))
    expect((checkout?.with as Record<string, unknown>).ref).toBe(
      '${{ steps.target.outputs.head-sha }}'
    )
    expect(stepIf(wf, 'agent', 'actions/upload-artifact')).toBe(
      "always() && steps.copilot.outputs.patch-path != ''"
    )
  })

  it('the pull-request recipe publishes only what the agent completed, from a job without an agent', () => {
    const wf = readmeWorkflow('Copilot proposes a pull request')
    const dispatch = { event_name: 'workflow_dispatch', repository: REPO, event: { inputs: {} } }
    expect(
      runJobs(wf.jobs, {
        github: dispatch,
        outcomes: { agent: { outputs: { status: 'completed' } } }
      })
    ).toEqual({ agent: 'success', publish: 'success' })
    for (const status of ['timed-out', 'budget-exceeded', 'verify-failed', 'policy-violation']) {
      expect(
        runJobs(wf.jobs, {
          github: dispatch,
          outcomes: { agent: { result: 'failure', outputs: { status } } }
        })
      ).toEqual({ agent: 'failure', publish: 'skipped' })
    }
    // the agent's work is uploaded whatever its outcome
    expect(stepIf(wf, 'agent', 'actions/upload-artifact')).toBe('always()')
    const perms = (job: string) =>
      (wf.jobs[job] as unknown as { permissions: Record<string, string> }).permissions
    expect(perms('agent')).toEqual({ contents: 'read', 'copilot-requests': 'write' })
    expect(perms('publish')).toEqual({ contents: 'write', 'pull-requests': 'write' })
    const publish = wf.jobs.publish?.steps?.find((s) => s.id === 'publish')
    expect((publish?.with as Record<string, unknown>).mode).toBe('publish')
    expect(wf.jobs.publish?.steps?.map((s) => s.uses)).toContain('actions/download-artifact@v4')
  })
})

describe('every agent job keeps its patch when the agent’s step failed', () => {
  const workflows: Array<[string, Workflow]> = [
    ['examples/fix-failing-tests', example('fix-failing-tests')],
    ['examples/comment-command', example('comment-command')],
    ['examples/scheduled-maintenance', example('scheduled-maintenance')],
    ['README: Copilot fixes', readmeWorkflow('Copilot fixes')],
    ['README: Copilot on command', readmeWorkflow('Copilot on command')],
    ['README: Copilot proposes a pull request', readmeWorkflow('Copilot proposes a pull request')]
  ]

  it.each(workflows)('%s', (_name, wf) => {
    let checked = 0
    for (const job of Object.values(wf.jobs)) {
      const steps = job.steps ?? []
      const agent = steps.findIndex(
        (s) => usesOf(s).startsWith('gated-autopilot/autopilot-action@') && !isPublish(s)
      )
      if (agent < 0) continue
      const uploads = steps
        .slice(agent + 1)
        .filter(
          (s) => usesOf(s).startsWith('actions/upload-artifact') && !/report/i.test(nameOf(s))
        )
      expect(uploads.length).toBeGreaterThan(0)
      for (const upload of uploads) {
        // the action's step failed (timed out, out of budget, verify failed): the steps after it
        // run only if their condition says so
        const runs = evaluateCondition(
          upload.if as string | undefined,
          {
            github: pullRequest(),
            // a session existed: the checkpoint is written however the run ended
            steps: {
              copilot: {
                outputs: {
                  'patch-path': '/tmp/p.patch',
                  'checkpoint-path': '/tmp/c.checkpoint.json',
                  status: 'timed-out'
                }
              }
            }
          },
          { ancestors: ['success', 'failure'] }
        )
        expect([nameOf(upload), runs]).toEqual([nameOf(upload), true])
        checked++
      }
    }
    expect(checked).toBeGreaterThan(0)
  })
})

describe('.github/workflows/fleet.yml (one task across your organization)', () => {
  const wf = YAML.parse(
    fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'fleet.yml'), 'utf8')
  ) as Workflow
  const call = { event_name: 'schedule', repository: REPO, event: { schedule: '0 6 * * 1' } }

  it('plans, runs every repository, publishes and rolls up on a normal run', () => {
    expect(runJobs(wf.jobs, { github: call })).toEqual({
      plan: 'success',
      agent: 'success',
      publish: 'success',
      rollup: 'success'
    })
  })

  it('still publishes the other repositories and rolls up when an agent leg failed', () => {
    // a matrix job's result is failure when any leg failed; each publish leg reads its own status
    expect(runJobs(wf.jobs, { github: call, outcomes: { agent: { result: 'failure' } } })).toEqual({
      plan: 'success',
      agent: 'failure',
      publish: 'success',
      rollup: 'success'
    })
    expect(
      runJobs(wf.jobs, {
        github: call,
        outcomes: { agent: { result: 'failure' }, publish: { result: 'failure' } }
      })
    ).toMatchObject({ rollup: 'success' })
  })

  it('fans out nothing when the plan refuses the list or the ceiling', () => {
    expect(runJobs(wf.jobs, { github: call, outcomes: { plan: { result: 'failure' } } })).toEqual({
      plan: 'failure',
      agent: 'skipped',
      publish: 'skipped',
      rollup: 'skipped'
    })
  })

  it('publishes nothing once the run is cancelled, and still rolls up what finished', () => {
    expect(runJobs(wf.jobs, { github: call, cancelled: true })).toEqual({
      plan: 'skipped',
      agent: 'skipped',
      publish: 'skipped',
      rollup: 'skipped'
    })
    // cancelled while the agents ran: the plan had succeeded
    const needs = {
      plan: { result: 'success', outputs: {} },
      agent: { result: 'cancelled', outputs: {} },
      publish: { result: 'skipped', outputs: {} }
    }
    const midRun = { ancestors: ['success', 'cancelled'] as JobResult[], cancelled: true }
    expect(evaluateCondition(wf.jobs.publish?.if, { github: call, needs }, midRun)).toBe(false)
    expect(
      evaluateCondition(
        wf.jobs.rollup?.if,
        { github: call, needs },
        { ancestors: ['success', 'cancelled', 'skipped'], cancelled: true }
      )
    ).toBe(true)
  })

  it('publishes a repository only when its own agent leg completed, and keeps every leg’s work', () => {
    const steps = wf.jobs.publish?.steps ?? []
    const leg = (status: string) => ({ github: call, steps: { leg: { outputs: { status } } } })
    const publish = steps.find((s) => s.id === 'publish')
    for (const status of ['completed', 'verify-failed', 'missing', '']) {
      expect([
        status,
        evaluateCondition(publish?.if as string, leg(status), { ancestors: ['success'] })
      ]).toEqual([status, status === 'completed'])
    }
    const upload = (wf.jobs.agent?.steps ?? []).find((s) =>
      usesOf(s).startsWith('actions/upload-artifact')
    )
    expect(upload?.if).toMatch(/^always\(\)/)
  })
})
