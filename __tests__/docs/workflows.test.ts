/**
 * The recipes are code: every workflow in .github/workflows and examples/ passes actionlint, uses
 * only the inputs and outputs action.yml declares, keeps the agent's job unable to push, and every
 * example policy compiles and decides the way docs/recipes.md says it does.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import YAML from 'yaml'
import { actionlint, realFindings } from '../../test-support/actionlint.js'
import type { PermissionRequest } from '../../src/cli/protocol.js'
import { compilePolicy, type CompiledPolicy } from '../../src/policy/index.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
/** How the examples refer to this action (a placeholder the reader replaces). */
const ACTION = 'gated-autopilot/autopilot-action@'
const RECIPES = ['comment-command', 'fix-failing-tests', 'scheduled-maintenance']

type Data = Record<string, unknown>

function isRecord(value: unknown): value is Data {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function record(value: unknown, what: string): Data {
  if (!isRecord(value)) throw new Error(`${what} is not a mapping`)
  return value
}

function read(relative: string): string {
  return fs.readFileSync(path.join(ROOT, relative), 'utf8')
}

function parseYaml(relative: string): Data {
  const doc = YAML.parseDocument(read(relative))
  if (doc.errors.length > 0)
    throw new Error(`${relative}: ${doc.errors.map((e) => e.message).join('; ')}`)
  return record(doc.toJS(), relative)
}

function listFiles(dir: string, filter: (name: string) => boolean): string[] {
  const full = path.join(ROOT, dir)
  if (!fs.existsSync(full)) return []
  return fs
    .readdirSync(full)
    .filter(filter)
    .sort()
    .map((name) => path.posix.join(dir, name))
}

const repoWorkflows = listFiles('.github/workflows', (n) => /\.ya?ml$/.test(n))
const exampleWorkflows = RECIPES.map((r) => `examples/${r}/workflow.yml`)
const examplePolicies = RECIPES.map((r) => `examples/${r}/copilot-policy.yml`)
const allWorkflows = [...repoWorkflows, ...exampleWorkflows]

const action = parseYaml('action.yml')
const actionInputs = new Set(Object.keys(record(action.inputs, 'action.yml inputs')))
const actionOutputs = new Set(Object.keys(record(action.outputs, 'action.yml outputs')))

interface Step {
  job: string
  index: number
  step: Data
}

function jobsOf(workflow: Data): Array<[string, Data]> {
  return Object.entries(record(workflow.jobs, 'jobs')).map(([id, job]) => [id, record(job, id)])
}

function stepsOf(jobId: string, job: Data): Step[] {
  const steps = Array.isArray(job.steps) ? (job.steps as unknown[]) : []
  return steps.map((step, index) => ({
    job: jobId,
    index,
    step: record(step, `${jobId} step ${index}`)
  }))
}

function usesAction(step: Data): boolean {
  return typeof step.uses === 'string' && step.uses.startsWith(ACTION)
}

/** Every string anywhere inside a value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (isRecord(value)) return Object.values(value).flatMap(strings)
  return []
}

/** `steps.<id>.outputs.<name>` and `steps.<id>.outputs['<name>']` references. */
function outputReferences(text: string): Array<{ id: string; name: string }> {
  const refs: Array<{ id: string; name: string }> = []
  const pattern = /steps\.([A-Za-z_][\w-]*)\.outputs(?:\.([A-Za-z_][\w-]*)|\[\s*'([^']+)'\s*\])/g
  for (const match of text.matchAll(pattern)) {
    refs.push({ id: match[1] as string, name: (match[2] ?? match[3]) as string })
  }
  return refs
}

/** A workflow whose jobs call this repository's reusable workflow `.github/workflows/fleet.yml`. */
function callsReusableWorkflow(block: string): boolean {
  let value: unknown
  try {
    value = YAML.parse(block)
  } catch {
    return false
  }
  if (!isRecord(value) || !isRecord(value.jobs)) return false
  const jobs = Object.values(value.jobs).filter(isRecord)
  return (
    jobs.length > 0 &&
    jobs.some(
      (job) =>
        typeof job.uses === 'string' &&
        job.uses.startsWith('gated-autopilot/autopilot-action/.github/workflows/fleet.yml@')
    )
  )
}

// ------------------------------------------------------------------------------------------------

describe('the workflow files', () => {
  it('are the three recipes and this repository’s CI', () => {
    expect(RECIPES.map((r) => fs.existsSync(path.join(ROOT, 'examples', r)))).toEqual([
      true,
      true,
      true
    ])
    expect(
      listFiles('examples', (n) => fs.statSync(path.join(ROOT, 'examples', n)).isDirectory())
    ).toEqual(RECIPES.map((r) => `examples/${r}`))
    expect(repoWorkflows).toEqual(
      expect.arrayContaining(['.github/workflows/check-dist.yml', '.github/workflows/ci.yml'])
    )
  })
})

describe('actionlint', () => {
  it('finds nothing in .github/workflows/*.yml and examples/*/workflow.yml', () => {
    expect(realFindings(actionlint(allWorkflows))).toEqual([])
  })

  it('really lints: it reports script injection and an undefined step output in a bad workflow', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'actionlint-bad-'))
    try {
      const bad = path.join(dir, 'bad.yml')
      fs.writeFileSync(
        bad,
        [
          'on: issue_comment',
          'jobs:',
          '  a:',
          '    runs-on: ubuntu-latest',
          '    steps:',
          '      - run: echo "${{ github.event.comment.body }}"',
          '      - run: echo "${{ steps.nope.outputs.x }}"',
          ''
        ].join('\n')
      )
      const kinds = actionlint([bad]).map((f) => f.kind)
      expect(kinds).toEqual(['expression', 'expression'])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe.each(exampleWorkflows)('%s', (file) => {
  const workflow = parseYaml(file)
  const jobs = jobsOf(workflow)
  const all = jobs.flatMap(([id, job]) => stepsOf(id, job)).filter((s) => usesAction(s.step))
  /** `mode: publish` steps: no agent, the write token (the README's "pull request from the agent"). */
  const isPublish = (s: Step): boolean => isRecord(s.step.with) && s.step.with.mode === 'publish'
  const ours = all.filter((s) => !isPublish(s))
  const publishing = all.filter(isPublish)

  it('uses the action with inputs action.yml declares, and exactly one of prompt and prompt-file', () => {
    expect(ours.length).toBeGreaterThan(0)
    for (const { step } of all) {
      expect(typeof step.id).toBe('string')
      const inputs = Object.keys(record(step.with, `${file}: with`))
      expect(inputs.filter((name) => !actionInputs.has(name))).toEqual([])
    }
    for (const { step } of ours) {
      const inputs = Object.keys(record(step.with, `${file}: with`))
      expect(inputs.filter((name) => name === 'prompt' || name === 'prompt-file')).toHaveLength(1)
    }
  })

  it('publishes only from a job without an agent, which bills no Copilot and runs no setup', () => {
    const agentJobs = new Set(ours.map((s) => s.job))
    for (const { job, step } of publishing) {
      expect({ job, agentHere: agentJobs.has(job) }).toEqual({ job, agentHere: false })
      const inputs = Object.keys(record(step.with, `${file}: with`))
      expect(
        inputs.filter((n) => /^(prompt|prompt-file|setup-commands|verify-commands)$/.test(n))
      ).toEqual([])
      const jobData = jobs.find(([id]) => id === job)?.[1] ?? {}
      const permissions = record(jobData.permissions, `${file}: jobs.${job}.permissions`)
      expect(permissions['copilot-requests']).toBeUndefined()
      expect(permissions['id-token']).toBeUndefined()
    }
  })

  it('reads only outputs action.yml declares from the action’s step', () => {
    const ourIds = new Set(ours.map((s) => s.step.id as string))
    let references = 0
    for (const [id, job] of jobs) {
      for (const ref of strings(job).flatMap(outputReferences)) {
        if (!ourIds.has(ref.id)) continue
        references++
        expect({ job: id, output: ref.name, declared: actionOutputs.has(ref.name) }).toEqual({
          job: id,
          output: ref.name,
          declared: true
        })
      }
    }
    expect(references).toBeGreaterThan(0)
  })

  it('checks out with actions/checkout@v4 and gives the agent’s job no token it can push with', () => {
    // Default auth hands the job's GITHUB_TOKEN to the CLI as its Copilot credential, so the job
    // that runs the agent must not hold contents: write, and must not leave a token in .git/config.
    expect(isRecord(workflow.permissions) && Object.keys(workflow.permissions).length === 0).toBe(
      true
    )
    const agentJobs = new Set(ours.map((s) => s.job))
    for (const [id, job] of jobs) {
      const permissions = record(job.permissions, `${file}: jobs.${id}.permissions`)
      const steps = stepsOf(id, job).map((s) => s.step)
      const checkouts = steps.filter(
        (s) => typeof s.uses === 'string' && s.uses.startsWith('actions/checkout@')
      )
      expect(checkouts.map((s) => s.uses)).toEqual(checkouts.map(() => 'actions/checkout@v4'))
      if (!agentJobs.has(id)) continue
      expect(checkouts.length).toBeGreaterThan(0)
      expect({ job: id, contents: permissions.contents }).toEqual({ job: id, contents: 'read' })
      expect(permissions['copilot-requests']).toBe('write')
      expect(permissions['id-token']).toBeUndefined()
      for (const checkout of checkouts) {
        expect(record(checkout.with, 'checkout with')['persist-credentials']).toBe(false)
      }
    }
  })

  it('names, in its policy file, the path the workflow loads it from', () => {
    const policyInput = ours.map((s) => record(s.step.with, 'with').policy)
    expect(policyInput).toHaveLength(1)
    const policyPath = String(policyInput[0]).replace(/^trusted\//, '')
    expect(read(file.replace('workflow.yml', 'copilot-policy.yml'))).toContain(policyPath)
    // a publish step checks the patch against the same policy
    for (const { step } of publishing) {
      expect(String(record(step.with, 'with').policy).replace(/^trusted\//, '')).toBe(policyPath)
    }
  })
})

describe('the comment-triggered recipe', () => {
  const file = 'examples/comment-command/workflow.yml'
  const text = read(file)
  const workflow = parseYaml(file)
  const jobs = jobsOf(workflow)
  const agent = jobs.find(([id]) => id === 'agent')?.[1] ?? {}

  it('runs for comments that start with /copilot or /continue, leaving who may run it to the action’s gate', () => {
    const condition = String(agent.if)
    expect(condition).toBe(
      "startsWith(github.event.comment.body, '/copilot ') || startsWith(github.event.comment.body, '/continue')"
    )
    // The gate is on: nothing in the recipe turns it off.
    const ours = stepsOf('agent', agent).find((s) => usesAction(s.step))
    expect(record(ours?.step.with, 'with')['allow-any-actor']).toBeUndefined()
    // Skipped runs publish nothing.
    expect(text).toContain("needs.agent.outputs.status == 'completed'")
    expect(record(workflow.on, 'on')).toEqual({ issue_comment: { types: ['created'] } })
  })

  it('never interpolates the comment into a script, and refuses pull requests from forks', () => {
    for (const [, job] of jobs) {
      for (const { step } of stepsOf('', job)) {
        if (typeof step.run === 'string') expect(step.run).not.toMatch(/\$\{\{/)
      }
    }
    expect(text).toContain('COMMENT_BODY: ${{ github.event.comment.body }}')
    expect(text).toMatch(/if \[ "\$head_repo" != "\$REPO" \]; then/)
  })

  it('loads the policy from the default branch, not from the code it works on', () => {
    const ours = stepsOf('agent', agent).find((s) => usesAction(s.step))
    const inputs = record(ours?.step.with, 'with')
    expect(inputs.policy).toBe('trusted/.github/copilot/command-policy.yml')
    expect(inputs['working-directory']).toBe('work')
    expect(inputs['prompt-file']).toBe('${{ runner.temp }}/copilot-task.md')
  })
})

describe.each(examplePolicies)('%s', (file) => {
  const text = read(file)

  it('is YAML with version 1 and a list of rules', () => {
    const policy = parseYaml(file)
    expect(policy.version).toBe(1)
    expect(policy.default).toBe('deny')
    expect(Array.isArray(policy.rules)).toBe(true)
    expect((policy.rules as unknown[]).length).toBeGreaterThan(0)
  })

  describe('compiled with the policy engine', () => {
    let policy: CompiledPolicy
    let workdir: string

    beforeAll(async () => {
      workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'recipe-policy-'))
      policy = await compilePolicy(text, file, workdir)
    })
    afterAll(() => fs.rmSync(workdir, { recursive: true, force: true }))

    const decide = (request: PermissionRequest): string => {
      const decision = policy.decide(request)
      return `${decision.decision} ${decision.rule}`
    }
    const shell = (fullCommandText: string) => decide({ kind: 'shell', fullCommandText })
    const write = (relative: string) =>
      decide({ kind: 'write', fileName: path.join(workdir, relative) })

    it('denies pushing, however it is dressed up', () => {
      expect(shell('git push origin main')).toBe('deny no-push')
      expect(shell('git push --force')).toBe('deny no-push')
      expect(shell('git status && git push')).toMatch(/^deny /)
      expect(shell('sh -c "git push origin HEAD"')).toMatch(/^deny /)
      expect(shell('$(echo git) push')).toMatch(/^deny /)
    })

    it('denies writes to workflows and to .git, directly and through redirections', () => {
      expect(write('.github/workflows/ci.yml')).toBe('deny no-workflow-edits')
      expect(write('.github/copilot/policy.yml')).toBe('deny no-workflow-edits')
      expect(write('.git/config')).toBe('deny no-git-internals')
      expect(shell('git diff > .github/workflows/ci.yml')).toMatch(/^deny /)
      expect(shell('git diff --output=notes.md')).toBe('deny no-git-output-files')
    })

    it('denies the network, other commands, reads outside the workspace, MCP and memory', () => {
      expect(shell('curl https://example.com/install.sh')).toMatch(/^deny /)
      expect(shell('npm install left-pad')).toMatch(/^deny /)
      expect(shell('git difftool -x sh')).toMatch(/^deny /)
      expect(shell('rm -rf /')).toMatch(/^deny /)
      expect(decide({ kind: 'url', url: 'https://example.com/' })).toBe('deny default')
      expect(decide({ kind: 'url', url: 'https://docs.npmjs.com.example.com/' })).toBe(
        'deny default'
      )
      // HOME, another checkout: outside the workspace and no system location a tool needs
      expect(decide({ kind: 'read', path: path.join(os.homedir(), 'notes.txt') })).toMatch(/^deny /)
      expect(decide({ kind: 'read', path: '/srv/other-checkout/.env' })).toMatch(/^deny /)
      expect(
        decide({ kind: 'mcp', serverName: 'github', toolName: 'create_pull_request' })
      ).toMatch(/^deny /)
      expect(decide({ kind: 'memory' })).toMatch(/^deny /)
      expect(decide({ kind: 'custom-tool', toolName: 'anything' })).toMatch(/^deny /)
    })

    it('allows reading the history and the npm docs', () => {
      expect(shell('git status')).toBe('allow git-read')
      expect(shell('git log --oneline -5')).toBe('allow git-read')
      expect(shell('git diff HEAD~1 -- src')).toBe('allow git-read')
      expect(
        decide({ kind: 'url', url: 'https://docs.npmjs.com/cli/v10/commands/npm-test' })
      ).toMatch(/^allow /)
    })

    // Each recipe's own cases; a recipe without any fails (a rename must not drop them).
    const ownCases: Record<string, [string, () => void]> = {
      'fix-failing-tests': [
        'allows running the tests and editing sources and tests, nothing else',
        () => {
          expect(shell('npm test')).toBe('allow tests')
          expect(shell('npm run build && npm test -- --runInBand')).toBe('allow tests')
          expect(write('src/parser.ts')).toBe('allow sources-and-tests')
          expect(write('__tests__/parser.test.ts')).toBe('allow sources-and-tests')
          expect(write('lib/util.spec.js')).toBe('allow sources-and-tests')
          expect(write('package.json')).toBe('deny no-manifest-edits')
          expect(write('README.md')).toBe('deny default')
          expect(write('scripts/build.mjs')).toBe('deny default')
          expect(decide({ kind: 'url', url: 'https://docs.github.com/' })).toBe('deny default')
        }
      ],
      'scheduled-maintenance': [
        'allows editing documentation and inspecting dependencies, not code or tests',
        () => {
          expect(write('docs/recipes.md')).toBe('allow docs')
          expect(write('README.md')).toBe('allow docs')
          expect(write('src/index.ts')).toBe('deny default')
          expect(write('package.json')).toBe('deny default')
          expect(shell('npm outdated')).toBe('allow inspect')
          expect(shell('npm test')).toBe('deny default')
          expect(shell('npm update')).toBe('deny no-dependency-changes')
        }
      ],
      'comment-command': [
        'allows editing the working tree except workflows, .git and manifests, and running tests',
        () => {
          expect(write('src/index.ts')).toBe('allow workspace-writes')
          expect(write('docs/guide.md')).toBe('allow workspace-writes')
          expect(write('package.json')).toBe('deny no-manifest-edits')
          expect(write('../trusted/.github/copilot/command-policy.yml')).toMatch(/^deny /)
          expect(shell('npm test')).toBe('allow tests')
          expect(shell('git commit -am x')).toBe('deny no-push')
        }
      ]
    }
    const recipe = file.split('/')[1] ?? ''
    const [title, cases] = ownCases[recipe] ?? [
      'has recipe-specific cases',
      () => {
        throw new Error(`no recipe-specific cases for ${recipe}`)
      }
    ]
    it(title, cases)
  })
})

describe('the docs', () => {
  const readme = read('README.md')
  const sectionStart = readme.indexOf('\n## Recipes and security\n')
  const pages: Array<[string, string]> = [
    ['docs/recipes.md', read('docs/recipes.md')],
    ['docs/security.md', read('docs/security.md')],
    ['README.md', sectionStart < 0 ? '' : readme.slice(sectionStart)]
  ]

  const FENCE = /^```(\w*)\n([\s\S]*?)^```$/gm
  const withoutCode = (markdown: string) => markdown.replace(FENCE, '')

  /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
  function anchors(markdown: string): Set<string> {
    const result = new Set<string>()
    for (const match of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)) {
      const heading = (match[1] as string).trim().toLowerCase()
      result.add(heading.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'))
    }
    return result
  }

  const indentOf = (line: string) => line.length - line.trimStart().length

  /** Whether `block` appears in `text` line by line, shifted right by one fixed indentation. */
  function containsExcerpt(text: string, block: string): boolean {
    const lines = text.split('\n')
    const body = block.replace(/\n$/, '').split('\n')
    const first = body[0] as string
    for (let i = 0; i + body.length <= lines.length; i++) {
      const shift = indentOf(lines[i] as string) - indentOf(first)
      if (shift < 0) continue
      const prefix = ' '.repeat(shift)
      if (
        body.every((line, k) =>
          line === '' ? lines[i + k]?.trim() === '' : lines[i + k] === prefix + line
        )
      ) {
        return true
      }
    }
    return false
  }

  it('has the README section at the end of README.md', () => {
    expect(sectionStart).toBeGreaterThan(0)
    expect(readme.slice(sectionStart + 1).match(/^## /gm)).toHaveLength(1)
  })

  it.each(pages.map(([file]) => file))('%s: every relative link and anchor resolves', (file) => {
    const markdown = pages.find(([name]) => name === file)?.[1] ?? ''
    const broken: string[] = []
    let checked = 0
    for (const match of withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string
      if (/^[a-z]+:/i.test(target)) continue
      checked++
      const [relative, anchor] = target.split('#') as [string, string | undefined]
      const resolved = relative === '' ? file : path.posix.join(path.posix.dirname(file), relative)
      if (!fs.existsSync(path.join(ROOT, resolved))) {
        broken.push(target)
      } else if (anchor !== undefined && !anchors(read(resolved)).has(anchor)) {
        broken.push(target)
      }
    }
    expect(checked).toBeGreaterThan(0)
    expect(broken).toEqual([])
  })

  it('quotes the examples verbatim: every YAML and shell block in recipes.md is in an example', () => {
    const examples = [...exampleWorkflows, ...examplePolicies].map(read)
    const blocks = [...read('docs/recipes.md').matchAll(FENCE)].filter((m) =>
      /^(yaml|sh)$/.test(m[1] as string)
    )
    expect(blocks.length).toBeGreaterThan(3)
    const missing = blocks
      .map((m) => m[2] as string)
      .filter((block) => !examples.some((text) => containsExcerpt(text, block)))
      // a caller of the reusable workflow (one task across your organization) has no example of
      // its own: yaml-blocks.test.ts lints it and holds its inputs to fleet.yml's
      .filter((block) => !callsReusableWorkflow(block))
    expect(missing).toEqual([])
  })

  it('lists every rule of the first recipe’s policy in its table', () => {
    const recipes = read('docs/recipes.md')
    const rules = parseYaml('examples/fix-failing-tests/copilot-policy.yml').rules as Data[]
    const ids = rules.map((rule) => String(rule.id))
    expect(ids.filter((id) => !recipes.includes(`\`${id}\``))).toEqual([])
  })
})
