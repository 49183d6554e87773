/**
 * Recorded examples: each scenario runs the action (src/index.ts, as the runner starts it) on the
 * real Copilot CLI against a scripted model on 127.0.0.1, in a small git checkout in the runner's
 * layout (a calc library whose test fails until the agent fixes it), and its report is normalized
 * so that recording again gives the same file: ids, times and durations fixed, temp paths replaced
 * by the runner's `/home/runner/work/calc/calc`. `npm run record-examples` writes them to
 * test-support/fixtures/reports/, `npm run preview` renders them into docs/examples/, and
 * __tests__/e2e/recorded-examples.test.ts re-records some and compares them with the committed ones.
 */
import { execFileSync } from 'node:child_process'
import crypto from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import {
  makeRunnerWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type ActionResult,
  type RunActionOptions,
  type RunnerWorkspace
} from './action.js'
import { startModelServer, type ModelServer, type Script, type Turn } from './model-server.js'
import { sandboxTools } from './sandbox-tools.mjs'
import type { Report } from '../src/reporting/types.js'

/** Where the examples say the run happened. */
export const EXAMPLE_REPO = 'octo-org/calc'
export const EXAMPLE_RUN_ID = '12345678901'
export const EXAMPLE_WORKSPACE = '/home/runner/work/calc/calc'
const EXAMPLE_HOME = '/home/runner'
/** The commit every example run starts from. */
export const EXAMPLE_COMMIT = '5d1e3c0a9b7f4e2d8c6a1b3f0e9d7c5a4b2e1f08'
export const EXAMPLE_STARTED_AT = '2026-11-22T10:00:00.000Z'
const EXAMPLE_START = Date.parse(EXAMPLE_STARTED_AT)
const MODEL = 'claude-sonnet-4.5'

// ---------------------------------------------------------------------------------------------
// The project the agent works on

const PACKAGE_JSON = `{
  "name": "calc",
  "version": "2.3.0",
  "type": "module",
  "scripts": {
    "test": "node test/run.js"
  }
}
`

const CALC_BUGGY = `/** Adds two numbers. */
export function sum(a, b) {
  return Math.abs(a) + Math.abs(b)
}

/** Divides a by b. */
export function divide(a, b) {
  if (b === 0) throw new RangeError('division by zero')
  return a / b
}
`

const CALC_TEST = `import assert from 'node:assert/strict'
import { test } from './harness.js'
import { sum, divide } from '../src/calc.js'

test('sum adds positive numbers', () => assert.equal(sum(2, 3), 5))
test('sum adds negative numbers', () => assert.equal(sum(-1, -2), -3))
test('sum of opposites is zero', () => assert.equal(sum(-1, 1), 0))
test('divide divides', () => assert.equal(divide(6, 3), 2))
test('divide by zero throws', () => assert.throws(() => divide(1, 0), RangeError))
`

/** The project's own small test runner: the same output on every Node version, no timings. */
const TEST_HARNESS = `export const tests = []
export function test(name, fn) {
  tests.push({ name, fn })
}
`

const TEST_RUNNER = `import fs from 'node:fs'
import { tests } from './harness.js'

for (const file of fs.readdirSync('test').filter((f) => f.endsWith('.test.js')).sort()) {
  await import(\`./\${file}\`)
}
let failed = 0
for (const { name, fn } of tests) {
  try {
    await fn()
    console.log(\`  ✓ \${name}\`)
  } catch (error) {
    failed++
    console.log(\`  ✕ \${name}\`)
    console.log(\`      \${String(error.message).split('\\n').filter(Boolean).join(' ')}\`)
  }
}
const passed = tests.length - failed
console.log('')
console.log(\`Tests:       \${failed ? \`\${failed} failed, \` : ''}\${passed} passed, \${tests.length} total\`)
process.exitCode = failed ? 1 : 0
if (process.argv.includes('--watch')) {
  console.log('Watching for changes…')
  setInterval(() => {}, 60_000)
}
`

const CI_WORKFLOW = `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - run: npm test
`

/** The repository's policy. `sandbox` is `required` so that a machine without bubblewrap fails loudly. */
export const EXAMPLE_POLICY = `version: 1
default: deny
sandbox:
  mode: required
rules:
  - id: no-push
    decision: deny
    reason: pushing is the workflow's job; it opens the pull request
    shell: ["git push*"]
  - id: no-install
    decision: deny
    reason: dependencies come from the lockfile; ask a maintainer to add one in a separate PR
    shell: ["npm install*", "npm i *", "npm add *"]
  - { id: run-tests, decision: allow, shell: ["npm test*", "node --test*"] }
  - { id: git-read, decision: allow, shell: ["git status*", "git diff*", "git log*"] }
  - { id: look-around, decision: allow, shell: ["ls*", "cat *", "grep *"] }
  - { id: edit-source, decision: allow, write: ["src/**", "test/**", "*.md"] }
  - { id: read-workspace, decision: allow, read: ["**"] }
  - id: protect-ci
    decision: deny
    reason: workflows run with the repository's secrets
    write: [".github/**"]
`

/** A policy with errors (bad-policy). */
const BAD_POLICY = `version: 1
default: deny
rules:
  - id: no-push
    decision: deny
    shell: ["git push*"]
  - id: run-tests
    decison: allow
    shell: ["npm test*"]
  - id: edit-source
    decision: allow
    write: "src/**"
`

const README = '# calc\n\nSmall arithmetic helpers. `npm test` runs the tests.\n'

function projectFiles(policy: string): Record<string, string> {
  return {
    '.github/copilot-policy.yml': policy,
    '.github/workflows/ci.yml': CI_WORKFLOW,
    'package.json': PACKAGE_JSON,
    'README.md': README,
    'src/calc.js': CALC_BUGGY,
    'test/calc.test.js': CALC_TEST,
    'test/harness.js': TEST_HARNESS,
    'test/run.js': TEST_RUNNER
  }
}

/** The task every scenario's run is given (the comment shows it, collapsed). */
export const EXAMPLE_PROMPT =
  'CI fails on main: `sum adds negative numbers` and `sum of opposites is zero` in test/calc.test.js. Find the cause, fix it, and make `npm test` pass. Do not change the tests.'

// ---------------------------------------------------------------------------------------------
// Scenarios

interface Context {
  ws: RunnerWorkspace
  model: () => ModelServer
}

export interface Scenario {
  /** The fixture's name (`completed`, `bad-policy`, ...). */
  name: string
  /** The status the run must end with (the recorder fails otherwise). */
  status: Report['status']
  /** Needs bubblewrap (the audit and the sandbox); every scenario's policy requires it. */
  policy?: string
  inputs?: Record<string, string>
  script: (ctx: Context) => Script
  /** Drives the running action (to send a signal). */
  onSpawn?: (ctx: Context) => RunActionOptions['onSpawn']
  /** The run's duration in the example (the recording's own is machine time). */
  durationMs: number
}

/** Plausible figures for the scripted model's turns: a context that grows, mostly cached. */
function usage(
  turn: number,
  output: number
): NonNullable<Extract<Turn, { content?: string }>['usage']> {
  const input = 14_200 + turn * 2_650
  return { input, output, cacheRead: turn === 0 ? 0 : input - 2_900 }
}

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args })
const bash = (command: string, description: string) => call('bash', { command, description })

/** Builds a script from turns (usage filled in), then `after` for every request beyond. */
function turns(list: Omit<Extract<Turn, { content?: string }>, 'usage'>[], after?: Turn): Script {
  return (_request, index) => {
    const turn = list[index]
    if (turn) return { ...turn, usage: usage(index, 180 + ((index * 137) % 420)) }
    return after ?? { content: 'Done.', usage: usage(index, 40) }
  }
}

const file = (ws: RunnerWorkspace, name: string): string => path.join(ws.dir, name)

const TODOS_SQL =
  "INSERT INTO todos (id, title, description, status) VALUES ('reproduce', 'Reproduce the failing tests', 'npm test', 'done'), ('fix', 'Fix sum() for negative numbers', 'src/calc.js', 'in_progress'), ('suite', 'Run the whole suite', 'npm test', 'pending')"

/** The agent's first steps in every run that gets that far: plan, look, reproduce. */
function opening(ws: RunnerWorkspace): Omit<Extract<Turn, { content?: string }>, 'usage'>[] {
  return [
    {
      content: "I'll reproduce the failure first, then look at `sum()` in src/calc.js.",
      toolCalls: [call('sql', { description: 'Plan the work', query: TODOS_SQL })]
    },
    {
      content: 'Running the test suite to see the failures.',
      toolCalls: [bash('npm test', 'Run the tests')]
    },
    {
      content:
        'Two `sum` tests fail: `sum(-1, -2)` returns 3 and `sum(-1, 1)` returns 2. Reading the implementation.',
      toolCalls: [call('view', { path: file(ws, 'src/calc.js') })]
    }
  ]
}

const fixEdit = (ws: RunnerWorkspace, to: string) =>
  call('edit', {
    path: file(ws, 'src/calc.js'),
    old_str: 'return Math.abs(a) + Math.abs(b)',
    new_str: to
  })

const COMPLETED_SUMMARY = [
  'Fixed `sum()` for negative numbers: it added `Math.abs(a) + Math.abs(b)` instead of `a + b`.',
  '',
  '- `src/calc.js`: `sum()` returns `a + b`',
  '',
  'All 5 tests pass (`npm test`). Pushing was denied by the policy, as expected: the workflow opens the pull request.'
].join('\n')

export const SCENARIOS: Scenario[] = [
  {
    name: 'completed',
    status: 'completed',
    inputs: { 'verify-commands': 'npm test' },
    durationMs: 272_400,
    script: ({ ws }) =>
      turns([
        ...opening(ws),
        {
          content: '`sum()` takes the absolute values of its arguments. It should just add them.',
          toolCalls: [fixEdit(ws, 'return a + b')]
        },
        { content: 'Running the suite again.', toolCalls: [bash('npm test', 'Run all tests')] },
        {
          content: 'All 5 tests pass. Pushing the branch.',
          toolCalls: [bash('git push origin HEAD:fix/sum-negatives', 'Push the fix')]
        },
        {
          content: 'Pushing is denied by the policy; the workflow opens the pull request.',
          toolCalls: [bash('git diff --stat', 'Show the change')]
        },
        {
          toolCalls: [
            call('sql', {
              description: 'Mark done',
              query: "UPDATE todos SET status = 'done'"
            })
          ]
        },
        { toolCalls: [call('task_complete', { summary: COMPLETED_SUMMARY })] }
      ])
  },
  {
    name: 'verify-failed',
    status: 'verify-failed',
    inputs: { 'verify-commands': 'npm test' },
    durationMs: 198_700,
    script: ({ ws }) =>
      turns([
        ...opening(ws),
        {
          content:
            'The negative case returns the sum of the absolute values. Negating it when both are negative fixes `sum(-1, -2)`.',
          toolCalls: [
            fixEdit(
              ws,
              'return a < 0 && b < 0 ? -(Math.abs(a) + Math.abs(b)) : Math.abs(a) + Math.abs(b)'
            )
          ]
        },
        {
          toolCalls: [
            call('task_complete', {
              summary:
                'Fixed `sum()` for negative numbers in `src/calc.js`: when both arguments are negative the result is negated.'
            })
          ]
        }
      ])
  },
  {
    name: 'incomplete',
    status: 'incomplete',
    inputs: { 'max-autopilot-continues': '2', 'verify-commands': 'npm test' },
    durationMs: 341_900,
    script: ({ ws }) =>
      turns(
        [
          ...opening(ws),
          {
            content:
              'I would rather replace this with a well-tested library than patch it. Installing `mathjs`.',
            toolCalls: [bash('npm install mathjs', 'Install mathjs')]
          }
        ],
        {
          content:
            'I cannot install `mathjs`: the policy denies `npm install` (rule `no-install`). I need a maintainer to add the dependency before I can continue.'
        }
      )
  },
  {
    name: 'failed',
    status: 'failed',
    inputs: { 'verify-commands': 'npm test' },
    durationMs: 61_300,
    script: ({ ws }) =>
      turns(opening(ws), {
        status: 400,
        body: JSON.stringify({
          error: {
            message: 'prompt is too long: 212438 tokens > 200000 maximum',
            type: 'invalid_request_error',
            code: 'context_length_exceeded'
          }
        })
      })
  },
  {
    // The agent starts the tests in watch mode, which never returns; timeout-minutes ends the run.
    name: 'timed-out',
    status: 'timed-out',
    inputs: { 'timeout-minutes': '1', 'verify-commands': 'npm test' },
    durationMs: 60_900,
    script: ({ ws }) =>
      turns(
        [
          ...opening(ws),
          {
            content: '`sum()` takes the absolute values of its arguments. It should just add them.',
            toolCalls: [fixEdit(ws, 'return a + b')]
          },
          {
            content: 'Running the tests in watch mode while I check the other helpers.',
            toolCalls: [bash('npm test -- --watch', 'Run the tests in watch mode')]
          }
        ],
        { hang: true }
      )
  },
  {
    // SIGTERM to the action (the workflow run cancelled) once the agent has made its fix.
    name: 'cancelled',
    status: 'cancelled',
    inputs: { 'verify-commands': 'npm test' },
    durationMs: 128_400,
    script: ({ ws }) =>
      turns(
        [
          ...opening(ws),
          {
            content: '`sum()` takes the absolute values of its arguments. It should just add them.',
            toolCalls: [fixEdit(ws, 'return a + b')]
          }
        ],
        { hang: true }
      ),
    onSpawn: (ctx) => (child) => {
      const timer = setInterval(() => {
        if (ctx.model().requests.length <= opening(ctx.ws).length + 1) return
        clearInterval(timer)
        child.kill('SIGTERM')
      }, 50)
      child.on('exit', () => clearInterval(timer))
    }
  },
  {
    name: 'budget-exceeded',
    status: 'budget-exceeded',
    // The turn that crosses max-tokens says something and calls no tool (a tool call would race
    // the stop, and recording again would not give the same report); the model then hangs.
    inputs: { 'max-tokens': '120000', 'verify-commands': 'npm test' },
    durationMs: 187_600,
    script: ({ ws }) =>
      turns(
        [
          ...opening(ws),
          {
            content: '`sum()` takes the absolute values of its arguments.',
            toolCalls: [fixEdit(ws, 'return a + b')]
          },
          { content: 'Running the suite again.', toolCalls: [bash('npm test', 'Run all tests')] },
          {
            content:
              'All 5 tests pass. Before finishing, I will check whether `divide()` and the other helpers make the same mistake with negative numbers.'
          }
        ],
        { hang: true }
      )
  },
  {
    name: 'policy-violation',
    status: 'policy-violation',
    inputs: { 'verify-commands': 'npm test' },
    durationMs: 233_800,
    script: ({ ws }) =>
      turns([
        ...opening(ws),
        {
          content: '`sum()` takes the absolute values of its arguments. It should just add them.',
          toolCalls: [fixEdit(ws, 'return a + b')]
        },
        {
          content:
            'Nothing says which Node versions are supported; a test that keeps `engines` in `package.json` in step will catch this class of bug on other versions.',
          toolCalls: [
            call('create', {
              path: file(ws, 'test/engines.test.js'),
              file_text: [
                "import fs from 'node:fs'",
                "import { test } from './harness.js'",
                '',
                "test('package.json names the supported Node versions', () => {",
                "  const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'))",
                '  if (!pkg.engines) {',
                "    pkg.engines = { node: '>=20' }",
                "    fs.writeFileSync('package.json', JSON.stringify(pkg, null, 2) + '\\n')",
                '  }',
                '})',
                ''
              ].join('\n')
            })
          ]
        },
        { content: 'Running the suite.', toolCalls: [bash('npm test', 'Run all tests')] },
        {
          toolCalls: [
            call('task_complete', {
              summary:
                'Fixed `sum()` for negative numbers (`src/calc.js` returns `a + b`) and added `test/engines.test.js`, which names the supported Node versions in `package.json`.'
            })
          ]
        }
      ])
  },
  {
    name: 'bad-policy',
    status: 'failed',
    policy: BAD_POLICY,
    durationMs: 1_204,
    script: () => []
  }
]

// ---------------------------------------------------------------------------------------------
// Recording

export interface Recording {
  scenario: Scenario
  result: ActionResult
  /** The normalized report, as the fixture holds it. */
  report: Report
}

/** Runs one scenario and returns its normalized report; throws when the run did not end as it must. */
export async function record(scenario: Scenario): Promise<Recording> {
  if (!sandboxTools().bwrap) {
    throw new Error(
      `Recording "${scenario.name}" needs bubblewrap (bwrap on PATH): every example runs in the OS sandbox (apt-get install bubblewrap).`
    )
  }
  const ws = makeRunnerWorkspace(projectFiles(scenario.policy ?? EXAMPLE_POLICY), os.homedir())
  let model: ModelServer | undefined
  try {
    const git = (...args: string[]): string =>
      execFileSync('git', ['-C', ws.dir, ...args], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: ws.home }
      })
    git('init', '-q', '-b', 'main')
    git('add', '-A')
    git(
      '-c',
      'user.email=octocat@example.com',
      '-c',
      'user.name=octocat',
      'commit',
      '-qm',
      'calc 2.3.0'
    )
    const ctx: Context = { ws, model: () => model! }
    model = await startModelServer(scenario.script(ctx))
    const result = await runAction({
      workspace: ws,
      inputs: {
        ...scriptedInputs(model.url),
        prompt: EXAMPLE_PROMPT,
        model: MODEL,
        'provider-api-key': 'sk-example',
        comment: 'off',
        'timeout-minutes': '3',
        ...scenario.inputs
      },
      env: {
        ...ws.env,
        GITHUB_REPOSITORY: EXAMPLE_REPO,
        GITHUB_RUN_ID: EXAMPLE_RUN_ID,
        GITHUB_SHA: git('rev-parse', 'HEAD').trim()
      },
      onSpawn: scenario.onSpawn?.(ctx)
    })
    const left = await waitGone(result.cliPids)
    if (left.length > 0)
      throw new Error(`${scenario.name}: CLI processes left behind: ${left.join(', ')}`)
    if (!result.report) {
      throw new Error(
        `${scenario.name}: the run wrote no report\n${result.stdout}\n${result.stderr}`
      )
    }
    if (result.report.status !== scenario.status) {
      throw new Error(
        `${scenario.name}: the run ended "${result.report.status}", not "${scenario.status}": ${result.report.error?.message ?? ''}\n${result.stdout.slice(-4000)}`
      )
    }
    return { scenario, result, report: normalize(result.report, scenario, ws) }
  } finally {
    await model?.close()
    ws.cleanup()
  }
}

// ---------------------------------------------------------------------------------------------
// Normalization

/** Durations of tool calls in the examples, by tool (a scripted model makes them all instant). */
const TOOL_MS: Record<string, number> = {
  bash: 2_140,
  view: 36,
  edit: 118,
  create: 94,
  sql: 12,
  task_complete: 4,
  glob: 58,
  grep: 205
}

/** A call the policy denied takes no time to speak of. */
const DENIED_MS = 3

/** Durations of setup and verify commands in the examples. */
const COMMAND_MS = 1_870

function isoAt(offsetMs: number): string {
  return new Date(EXAMPLE_START + offsetMs).toISOString()
}

/** A UUID that depends only on `seed`. */
function stableUuid(seed: string): string {
  const h = crypto.createHash('sha256').update(seed).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/** The report with everything a re-recording would change fixed. */
export function normalize(report: Report, scenario: Scenario, ws: RunnerWorkspace): Report {
  // Paths: the workspace, RUNNER_TEMP and HOME as on GitHub's runners; UUIDs stable by order.
  const uuids = new Map<string, string>()
  const replacements: [string, string][] = [
    [ws.dir, EXAMPLE_WORKSPACE],
    [ws.runnerTemp, `${EXAMPLE_HOME}/work/_temp`],
    [ws.workRoot, `${EXAMPLE_HOME}/work`],
    [ws.home, EXAMPLE_HOME]
  ]
  // the checkout's commit (its hash has the recording's time in it) and the run's temp names (a pid)
  const commit = report.changes?.base ?? report.commit
  if (commit) replacements.unshift([commit, EXAMPLE_COMMIT])
  const text = (s: string): string => {
    let out = s
    for (const [from, to] of replacements) out = out.split(from).join(to)
    out = out.replace(/copilot-autopilot-(\d+)-\d+/g, 'copilot-autopilot-$1-2107')
    out = out.replace(UUID, (id) => {
      const key = id.toLowerCase()
      if (!uuids.has(key)) uuids.set(key, stableUuid(`${scenario.name}/${uuids.size}`))
      return uuids.get(key)!
    })
    return out
  }
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value)
    if (Array.isArray(value)) return value.map(walk)
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]))
    }
    return value
  }
  const r = walk(report) as Report
  // The checkpoint's digest and size differ with every recording (ids and times are in it), and
  // the rendered examples do not show it: it is tested in __tests__/e2e/resume.test.ts.
  delete r.checkpoint
  // What the sweep finds still running when a run stops early depends on timing (a command the
  // CLI had not reaped yet): tested in __tests__/e2e/command-wall.test.ts, not recorded here.
  delete r.killedProcesses

  r.startedAt = isoAt(0)
  if (r.endedAt !== null) r.endedAt = isoAt(scenario.durationMs)
  if (r.durationMs !== null) r.durationMs = scenario.durationMs
  const toolMs = (t: Report['tools'][number]): number =>
    t.outcome === 'denied' ? DENIED_MS : (TOOL_MS[t.name] ?? 50)
  for (const t of r.tools) if (t.durationMs !== null) t.durationMs = toolMs(t)
  for (const c of r.commands) c.durationMs = c.timedOut ? c.durationMs : COMMAND_MS
  if (r.toolStats) {
    for (const [name, stats] of Object.entries(r.toolStats)) {
      stats.durationMs = r.tools
        .filter((t) => t.name === name && t.durationMs !== null)
        .reduce((ms, t) => ms + toolMs(t), 0)
    }
  }
  if (r.metrics.apiDurationMs > 0) {
    const requests = Object.values(r.metrics.models).reduce((n, m) => n + m.requests, 0)
    r.metrics.apiDurationMs = requests * 6_300
  }
  for (const p of r.permissions) {
    if (p.approval) {
      p.approval.askedAt = isoAt(60_000)
      p.approval.answeredAt = isoAt(120_000)
    }
  }
  return r
}
