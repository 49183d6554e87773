/**
 * The reusable workflow `.github/workflows/fleet.yml` (issue 32: one task across your
 * organization): actionlint finds nothing; its plan step (run here with bash and jq, as on the
 * runner) normalizes the list and refuses duplicates, malformed names and a plan over the total
 * AI credit ceiling; every job's token is an App token for its one repository (read-only where
 * the agent runs); the artifacts are named by repository; the digests of the patch and the
 * proposals reach the publish leg through the agent leg's artifact.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import YAML from 'yaml'
import { ROOT } from '../../test-support/action.js'
import { actionlint, realFindings } from '../../test-support/actionlint.js'

type Data = Record<string, unknown>
interface Step extends Data {
  id?: string
  uses?: string
  run?: string
  if?: string
  with?: Record<string, string>
  env?: Record<string, string>
}
interface Job extends Data {
  permissions?: Record<string, string>
  strategy?: { 'fail-fast'?: boolean; 'max-parallel'?: string; matrix?: string }
  steps: Step[]
}

const FILE = path.join(ROOT, '.github', 'workflows', 'fleet.yml')
const workflow = YAML.parse(fs.readFileSync(FILE, 'utf8')) as {
  on: { workflow_call: { inputs: Data; secrets: Data; outputs: Data } }
  permissions: Data
  jobs: Record<string, Job>
}
const job = (id: string): Job => {
  const found = workflow.jobs[id]
  if (found === undefined) throw new Error(`no job ${id}`)
  return found
}

describe('the reusable workflow', () => {
  it('passes actionlint', () => {
    expect(realFindings(actionlint(['.github/workflows/fleet.yml']))).toEqual([])
  })

  it('takes the inputs and secrets the recipe documents', () => {
    const call = workflow.on.workflow_call
    expect(Object.keys(call.inputs).sort()).toEqual(
      [
        'repositories',
        'prompt',
        'prompt-file',
        'policy',
        'setup-commands',
        'verify-commands',
        'safe-outputs',
        'max-parallel',
        'max-ai-credits',
        'max-total-ai-credits',
        'timeout-minutes',
        'tracking-issue'
      ].sort()
    )
    expect(Object.keys(call.secrets).sort()).toEqual(['app-id', 'app-private-key', 'copilot-token'])
    expect(Object.keys(call.outputs).sort()).toEqual(['rollup-counts', 'tracking-issue'])
  })

  it('fans out over a matrix that never stops the others, at most max-parallel at a time', () => {
    for (const id of ['agent', 'publish']) {
      expect(job(id).strategy).toEqual({
        'fail-fast': false,
        'max-parallel': '${{ inputs.max-parallel }}',
        matrix: '${{ fromJSON(needs.plan.outputs.matrix) }}'
      })
    }
  })

  it('gives each job an App token for its one repository: read-only where the agent runs', () => {
    expect(workflow.permissions).toEqual({})
    const tokenOf = (id: string): Record<string, string> =>
      job(id).steps.find((s) => s.uses?.startsWith('actions/create-github-app-token@'))?.with ?? {}
    expect(tokenOf('agent')).toMatchObject({
      owner: '${{ matrix.owner }}',
      repositories: '${{ matrix.name }}',
      'permission-contents': 'read'
    })
    expect(Object.keys(tokenOf('agent')).filter((k) => k.startsWith('permission-'))).toEqual([
      'permission-contents'
    ])
    expect(job('agent').permissions).toEqual({})
    expect(tokenOf('publish')).toMatchObject({
      repositories: '${{ matrix.name }}',
      'permission-contents': 'write',
      'permission-pull-requests': 'write'
    })
    const checkout = job('agent').steps.find((s) => s.uses?.startsWith('actions/checkout@'))
    expect(checkout?.with).toMatchObject({
      repository: '${{ matrix.repository }}',
      token: '${{ steps.token.outputs.token }}',
      'persist-credentials': false
    })
    const agent = job('agent').steps.find((s) => s.id === 'copilot')
    expect(agent?.with?.['copilot-token']).toBe('${{ secrets.copilot-token }}')
    expect(agent?.with?.['github-token']).toBe('${{ steps.token.outputs.token }}')
    expect(agent?.with?.mode).toBeUndefined()
    // the publish job starts no agent
    const publish = job('publish').steps.find((s) => s.id === 'publish')
    expect(publish?.with?.mode).toBe('publish')
    expect(Object.keys(publish?.with ?? {})).not.toEqual(
      expect.arrayContaining(['prompt', 'setup-commands', 'verify-commands'])
    )
  })

  it('names the artifacts by repository and carries the digests to the publish leg', () => {
    const upload = (id: string): Step | undefined =>
      job(id).steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))
    expect(upload('agent')?.with?.name).toBe('fleet-agent-${{ matrix.owner }}.${{ matrix.name }}')
    expect(upload('publish')?.with?.name).toBe(
      'fleet-publish-${{ matrix.owner }}.${{ matrix.name }}'
    )
    const gather = job('agent').steps.find((s) => s.run?.includes('leg.json'))
    expect(gather?.env).toMatchObject({
      PATCH_SHA256: '${{ steps.copilot.outputs.patch-sha256 }}',
      PROPOSALS_SHA256: '${{ steps.copilot.outputs.safe-outputs-sha256 }}'
    })
    const publish = job('publish').steps.find((s) => s.id === 'publish')
    expect(publish?.with).toMatchObject({
      'patch-sha256': '${{ steps.leg.outputs.patch-sha256 }}',
      'safe-outputs-sha256': '${{ steps.leg.outputs.safe-outputs-sha256 }}'
    })
    const rollup = job('rollup').steps.find((s) => s.id === 'rollup')
    expect(rollup?.with).toMatchObject({
      mode: 'rollup',
      reports: 'fleet/fleet-agent-*/report.json',
      'publish-results': 'fleet/fleet-publish-*/publish.json',
      repositories: '${{ needs.plan.outputs.repositories }}'
    })
  })

  it('never puts an input or an output into a script: only through env', () => {
    for (const [id, j] of Object.entries(workflow.jobs)) {
      for (const step of j.steps) {
        if (typeof step.run === 'string') expect([id, step.run]).not.toContainEqual(/\$\{\{/)
        if (typeof step.run === 'string') expect(step.run.includes('${{')).toBe(false)
      }
    }
  })
})

describe('the plan step', () => {
  const script = job('plan').steps[0]?.run ?? ''
  const hasJq = spawnSync('jq', ['--version']).status === 0

  function plan(env: Record<string, string>): {
    code: number
    out: Record<string, string>
    log: string
  } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-plan-'))
    try {
      const output = path.join(dir, 'output')
      fs.writeFileSync(output, '')
      const result = spawnSync('bash', ['-c', script], {
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          GITHUB_OUTPUT: output,
          PROMPT: 'Bump Node to 22.',
          PROMPT_FILE: '',
          POLICY: 'ci-fix',
          PER_REPOSITORY: '',
          TOTAL: '',
          TRACKING_ISSUE: '',
          ...env
        }
      })
      const out = Object.fromEntries(
        fs
          .readFileSync(output, 'utf8')
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])
      )
      return { code: result.status ?? -1, out, log: `${result.stdout}${result.stderr}` }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }

  it('runs with bash and jq here', () => {
    expect(hasJq).toBe(true)
  })

  it('normalizes a newline list or a JSON list into the matrix', () => {
    for (const list of [
      'acme/api\n  acme/web.site # the site\n# not this one\n',
      '["acme/api", "acme/web.site"]'
    ]) {
      const result = plan({ REPOSITORIES: list, TRACKING_ISSUE: 'acme/fleet#7' })
      expect(result.code).toBe(0)
      expect(JSON.parse(result.out.repositories ?? '')).toEqual(['acme/api', 'acme/web.site'])
      expect(JSON.parse(result.out.matrix ?? '')).toEqual({
        include: [
          { repository: 'acme/api', owner: 'acme', name: 'api' },
          { repository: 'acme/web.site', owner: 'acme', name: 'web.site' }
        ]
      })
      expect(result.out).toMatchObject({
        'policy-path': 'fleet-policy.yml',
        'policy-preset': 'ci-fix',
        'tracking-owner': 'acme',
        'tracking-name': 'fleet'
      })
    }
    expect(
      plan({ REPOSITORIES: 'acme/api', POLICY: '.github/copilot-policy.yml' }).out
    ).toMatchObject({ 'policy-path': 'target/.github/copilot-policy.yml', 'policy-preset': '' })
  })

  it.each([
    ['acme/api\nACME/API', 'repositories lists these more than once: acme/api.'],
    ['acme/api\nacme', "repositories, item 2: 'acme' is not a repository such as acme/widgets"],
    ['acme/api\nacme/../x', "item 2: 'acme/../x' is not a repository"],
    ['["acme/api", 3]', 'is not a JSON list of "owner/name" strings'],
    ['', 'repositories is empty.']
  ])('refuses %j', (list, message) => {
    const result = plan({ REPOSITORIES: list })
    expect(result.code).toBe(1)
    expect(result.log).toContain(message)
    expect(result.out.matrix).toBeUndefined()
  })

  it('refuses to fan out past the total AI credit ceiling, before any agent starts', () => {
    const three = 'acme/a\nacme/b\nacme/c'
    const over = plan({ REPOSITORIES: three, PER_REPOSITORY: '50', TOTAL: '120' })
    expect(over.code).toBe(1)
    expect(over.log).toContain(
      '3 repositories × max-ai-credits 50 = 150 AI credits, more than max-total-ai-credits 120.'
    )
    const under = plan({ REPOSITORIES: three, PER_REPOSITORY: '40', TOTAL: '120' })
    expect(under.code).toBe(0)
    expect(under.log).toContain('Ceiling: at most 120 of 120 AI credits (3 × 40).')
    expect(plan({ REPOSITORIES: three, TOTAL: '120' }).log).toContain(
      'max-total-ai-credits needs max-ai-credits (per repository)'
    )
  })

  it('refuses a policy path out of the target, and both or neither of prompt and prompt-file', () => {
    expect(plan({ REPOSITORIES: 'acme/a', POLICY: '../x.yml' }).code).toBe(1)
    expect(plan({ REPOSITORIES: 'acme/a', PROMPT_FILE: 'task.md' }).log).toContain(
      'Give prompt or prompt-file, not both.'
    )
    expect(plan({ REPOSITORIES: 'acme/a', PROMPT: '' }).log).toContain(
      'Give prompt or prompt-file.'
    )
    expect(plan({ REPOSITORIES: 'acme/a', TRACKING_ISSUE: 'acme/fleet' }).log).toContain(
      'tracking-issue must be owner/name#number.'
    )
  })
})
