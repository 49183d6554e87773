/**
 * End to end (issue 32): one task across three repositories. The action runs the real Copilot
 * CLI, offline against a scripted model, in three checkouts whose `origin` names three
 * repositories (not the workflow's own): two fixed and verified, one whose fix fails
 * verification. Then `mode: rollup` of their reports writes one tracking issue through the fake
 * GitHub API: three rows named from the reports, the failure first; a person's text above the
 * marker survives a second roll-up, which updates the same issue; a re-run of the same workflow
 * run without an issue number finds that issue again instead of opening another.
 */
import fs from 'node:fs'
import path from 'node:path'
import { startFakeGitHub, type FakeGitHub } from '../../test-support/github-api.js'
import { startModelServer, type ModelServer } from '../../test-support/model-server.js'
import { cloneOrigin, seedOrigin, testGit } from '../../test-support/origin.js'
import {
  EXAMPLE_POLICY,
  makeWorkspace,
  runAction,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'

const BUGGY = 'export function add(a, b) {\n  return a - b\n}\n'
const TEST = `import { test } from 'node:test'
import assert from 'node:assert'
import { add } from './src/math.js'
test('adds', () => assert.strictEqual(add(2, 3), 5))
test('adds zero', () => assert.strictEqual(add(2, 0), 2))
`
const WORKFLOW_REPOSITORY = 'acme/fleet-control'

const cleanups: Array<() => void> = []
let github: FakeGitHub
let model: ModelServer | undefined

beforeAll(async () => {
  github = await startFakeGitHub()
})

afterAll(async () => {
  await model?.close()
  await github.close()
  for (const cleanup of cleanups.splice(0)) cleanup()
})

/** A checkout of a new repository whose origin is `https://github.com/<repository>.git`. */
function checkout(repository: string): Workspace {
  const { base, origin } = seedOrigin('autopilot-rollup-', {
    'src/math.js': BUGGY,
    'math.test.mjs': TEST,
    'package.json': '{ "type": "module" }\n',
    '.github/copilot-policy.yml': EXAMPLE_POLICY
  })
  const ws = cloneOrigin(origin)
  cleanups.push(() => {
    ws.cleanup()
    fs.rmSync(base, { recursive: true, force: true })
  })
  testGit(ws.dir, 'remote', 'set-url', 'origin', `https://github.com/${repository}.git`)
  return ws
}

/** The agent's run in `ws`: it changes `- b` to `fix`, then completes. */
async function runAgent(ws: Workspace, fix: string): Promise<ActionResult> {
  model = await startModelServer([
    {
      toolCalls: [
        {
          name: 'edit',
          arguments: {
            path: path.join(ws.dir, 'src', 'math.js'),
            old_str: '  return a - b',
            new_str: `  return ${fix}`
          }
        }
      ]
    },
    { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Fixed add.' } }] }
  ])
  try {
    const result = await runAction({
      workspace: ws,
      env: {
        GITHUB_API_URL: github.url,
        GITHUB_REPOSITORY: WORKFLOW_REPOSITORY,
        GITHUB_RUN_ATTEMPT: '1',
        GITHUB_JOB: 'agent'
      },
      inputs: {
        prompt: 'Fix add in src/math.js.',
        model: 'claude-sonnet-4.5',
        'provider-type': 'openai',
        'provider-base-url': model.url,
        'timeout-minutes': '2',
        'verify-commands': 'node --test math.test.mjs',
        comment: 'off'
      }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    return result
  } finally {
    await model.close()
    model = undefined
  }
}

function rollup(ws: Workspace, inputs: Record<string, string>): Promise<ActionResult> {
  return runAction({
    workspace: ws,
    env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: WORKFLOW_REPOSITORY },
    inputs: {
      mode: 'rollup',
      reports: 'reports/**/report.json',
      'github-token': 'installation-token',
      ...inputs
    }
  })
}

/** The table rows of a markdown body: `[repository, status cell]`. */
function rows(body: string): Array<[string, string]> {
  return body
    .split('\n')
    .filter((line) => /^\| \[/.test(line))
    .map((line) => {
      const cells = line.split(' | ')
      return [/\[([^\]]+)\]/.exec(cells[0] ?? '')?.[1] ?? '', cells[1] ?? '']
    })
}

it('runs one task in three repositories and rolls their reports up into one issue, the failure first', async () => {
  const runs: Array<[string, string]> = [
    ['acme/app-one', 'a + b'],
    ['acme/app-two', 'a + b + (b === 0 ? 1 : 0)'], // add(2, 0) is 3: verification fails
    ['acme/app-three', 'b + a']
  ]
  const rollupWs = makeWorkspace()
  cleanups.push(() => rollupWs.cleanup())
  for (const [index, [repository, fix]] of runs.entries()) {
    const result = await runAgent(checkout(repository), fix)
    expect([repository, result.outputs.status]).toEqual([
      repository,
      repository === 'acme/app-two' ? 'verify-failed' : 'completed'
    ])
    // the report names the repository the agent worked on, and the run
    expect(result.report?.checkout).toEqual({ repository, from: 'origin' })
    expect(result.report?.run).toEqual({
      url: `https://github.com/${WORKFLOW_REPOSITORY}/actions/runs/4242/attempts/1`,
      id: '4242',
      attempt: 1,
      job: 'agent'
    })
    // downloaded artifacts: the folder names say nothing the rows may use
    const target = path.join(rollupWs.dir, 'reports', `leg-${index}`, 'report.json')
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.copyFileSync(result.outputs['report-path'] ?? '', target)
  }

  // the run's jobs as GitHub lists them for a calling workflow: each leg's page is linked
  github.setRunJobs(4242, [
    { name: 'plan', html_url: 'https://github.com/acme/fleet-control/actions/runs/4242/job/1' },
    ...runs.map(([repository], i) => ({
      name: `fleet / agent ${repository}`,
      html_url: `https://github.com/acme/fleet-control/actions/runs/4242/job/${10 + i}`
    }))
  ])
  const first = await rollup(rollupWs, {})
  expect(first.exitCode).toBe(0)
  expect(first.cliPids).toEqual([])
  expect(github.issues).toHaveLength(1)
  const issue = github.issues[0]
  if (issue === undefined) throw new Error('no issue')
  expect(`${issue.owner}/${issue.repo}`).toBe(WORKFLOW_REPOSITORY)
  expect(first.outputs['tracking-issue']).toBe(`${WORKFLOW_REPOSITORY}#${issue.number}`)
  expect(first.outputs['tracking-issue-url']).toBe(issue.html_url)
  expect(JSON.parse(first.outputs['rollup-counts'] ?? '{}')).toMatchObject({
    total: 3,
    completed: 2,
    failed: 1
  })
  const body = issue.body ?? ''
  expect(body).toContain('### Copilot across 3 repositories')
  expect(rows(body).map(([repository]) => repository)).toEqual([
    'acme/app-two',
    'acme/app-one',
    'acme/app-three'
  ])
  expect(rows(body)[0]?.[1]).toBe('❌ verify failed')
  expect(body).toMatch(/`node --test math\.test\.mjs` ❌ exit 1 · 1 failed, 1 passed/)
  expect(body).toMatch(/`node --test math\.test\.mjs` ✅ 2 passed/)
  expect(body).not.toContain('leg-')
  expect(body).toContain('[job](https://github.com/acme/fleet-control/actions/runs/4242/job/11) |')
  // the job summary has the same table
  expect(rows(first.summary)).toHaveLength(3)

  // a person writes above the marker; the second roll-up keeps it and updates the same issue
  issue.body = `Bump add() everywhere. Owner: the platform team.\n\n${body}`
  fs.rmSync(path.join(rollupWs.dir, 'reports', 'leg-0'), { recursive: true })
  const second = await rollup(rollupWs, {
    'tracking-issue': `${WORKFLOW_REPOSITORY}#${issue.number}`,
    repositories: runs.map(([repository]) => repository).join('\n')
  })
  expect(second.exitCode).toBe(0)
  expect(github.issues).toHaveLength(1)
  expect(issue.edits).toBe(1)
  const updated = issue.body ?? ''
  expect(updated.startsWith('Bump add() everywhere. Owner: the platform team.\n\n<!-- ')).toBe(true)
  expect(updated.match(/<!-- copilot-autopilot:rollup/g)).toHaveLength(1)
  expect(rows(updated).map(([repository, status]) => [repository, status.slice(0, 12)])).toEqual([
    ['acme/app-two', '❌ verify fai'],
    ['acme/app-one', '❔ no report:'],
    ['acme/app-three', '✅ completed']
  ])
  expect(github.requests.filter((r) => r.path.endsWith('/comments'))).toEqual([])

  // a re-run of the same workflow run without an issue: the issue its marker names, again
  const third = await rollup(rollupWs, {})
  expect(third.exitCode).toBe(0)
  expect(github.issues).toHaveLength(1)
  expect(issue.edits).toBe(2)
  expect(third.outputs['tracking-issue']).toBe(`${WORKFLOW_REPOSITORY}#${issue.number}`)
}, 300_000)
