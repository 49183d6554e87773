/**
 * Recipes publish through `mode: publish` only (issue 29): no workflow in examples/ and no
 * workflow block of the README or the docs puts an agent-written output (`summary`) into a step
 * (a body, a title, a commit message, a script) by hand, or publishes by hand (git commit or push,
 * gh pr or issue, create-pull-request); every `mode: publish` step takes each file with its digest,
 * passed from the agent step's outputs.
 */
import fs from 'node:fs'
import path from 'node:path'
import YAML from 'yaml'
import { ROOT } from '../../test-support/action.js'

const ACTION = 'gated-autopilot/autopilot-action@'
/** The action's outputs that hold text the agent wrote (`summary-markdown` is neutralized). */
const AGENT_TEXT_OUTPUTS = ['summary']
const PAGES = ['README.md', 'docs/recipes.md', 'docs/security.md']

type Data = Record<string, unknown>
const isRecord = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v)

interface Workflow {
  where: string
  value: Data
}

function workflows(): Workflow[] {
  const out: Workflow[] = []
  for (const dir of fs.readdirSync(path.join(ROOT, 'examples'))) {
    const file = path.join('examples', dir, 'workflow.yml')
    if (!fs.existsSync(path.join(ROOT, file))) continue
    out.push({
      where: file,
      value: YAML.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as Data
    })
  }
  for (const page of PAGES) {
    const text = fs.readFileSync(path.join(ROOT, page), 'utf8')
    for (const m of text.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)) {
      const value: unknown = YAML.parse(m[1] ?? '')
      if (isRecord(value) && isRecord(value.jobs)) {
        out.push({ where: `${page}:${text.slice(0, m.index).split('\n').length}`, value })
      }
    }
  }
  return out
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(strings)
  if (isRecord(value)) return Object.values(value).flatMap(strings)
  return []
}

interface StepAt {
  job: string
  step: Data
}

function stepsOf(workflow: Data): StepAt[] {
  return Object.entries(workflow.jobs as Data).flatMap(([job, data]) =>
    isRecord(data) && Array.isArray(data.steps)
      ? data.steps.filter(isRecord).map((step) => ({ job, step }))
      : []
  )
}

/** Every reference to an agent-written output: the step's own, or a job output mapped from it. */
function agentTextReferences(workflow: Data): RegExp {
  const steps = stepsOf(workflow)
  const agentIds = steps
    .filter(
      ({ step }) =>
        typeof step.uses === 'string' &&
        step.uses.startsWith(ACTION) &&
        !(isRecord(step.with) && step.with.mode === 'publish')
    )
    .map(({ step }) => String(step.id))
  const names = AGENT_TEXT_OUTPUTS.join('|')
  const ids = agentIds.join('|') || '(?!)'
  const direct = `steps\\.(?:${ids})\\.outputs(?:\\.(?:${names})\\b|\\[\\s*'(?:${names})'\\s*\\])`
  const mapped: string[] = []
  for (const [job, data] of Object.entries(workflow.jobs as Data)) {
    if (!isRecord(data) || !isRecord(data.outputs)) continue
    for (const [name, value] of Object.entries(data.outputs)) {
      if (typeof value === 'string' && new RegExp(direct).test(value)) {
        mapped.push(`needs\\.${job}\\.outputs\\.${name}\\b`)
      }
    }
  }
  return new RegExp([direct, ...mapped].join('|'))
}

const all = workflows()

describe.each(all.map((w) => [w.where, w] as const))('%s', (_where, { value }) => {
  it('puts no agent-written output into a step by hand', () => {
    const forbidden = agentTextReferences(value)
    const used = stepsOf(value)
      .filter(({ step }) => strings(step).some((s) => forbidden.test(s)))
      .map(({ job, step }) => `${job}: ${String(step.name ?? step.id ?? step.uses ?? step.run)}`)
    expect(used).toEqual([])
  })

  it('publishes only through mode: publish', () => {
    const byHand = stepsOf(value)
      .filter(({ step }) => {
        const run = typeof step.run === 'string' ? step.run : ''
        const uses = typeof step.uses === 'string' ? step.uses : ''
        return (
          /\bgit\b[^\n]*\b(?:commit|push)\b|\bgh (?:pr|issue) (?:create|edit|comment)\b/.test(
            run
          ) || /create-pull-request/.test(uses)
        )
      })
      .map(({ job, step }) => `${job}: ${String(step.name ?? step.uses)}`)
    expect(byHand).toEqual([])
  })

  it('takes each file with the digest the agent step output', () => {
    for (const { step } of stepsOf(value)) {
      if (!isRecord(step.with) || step.with.mode !== 'publish') continue
      const w = step.with
      for (const [file, digest] of [
        ['patch-path', 'patch-sha256'],
        ['safe-outputs-path', 'safe-outputs-sha256']
      ] as const) {
        if (w[file] === undefined) continue
        expect({ [digest]: String(w[digest]) }).toEqual({
          [digest]: `\${{ ${String(w[digest]).replace(/^\$\{\{ (.*) \}\}$/, '$1')} }}`
        })
        expect(String(w[digest])).toMatch(new RegExp(`outputs\\.${digest} \\}\\}$`))
      }
    }
  })
})

describe('the check', () => {
  it('reads the recipes and the README', () => {
    expect(all.map((w) => w.where.split(':')[0])).toEqual(
      expect.arrayContaining([
        'examples/comment-command/workflow.yml',
        'examples/fix-failing-tests/workflow.yml',
        'examples/scheduled-maintenance/workflow.yml',
        'README.md'
      ])
    )
  })

  it('finds an agent output in a pull request body and a commit message', () => {
    const workflow = YAML.parse(`
jobs:
  a:
    outputs:
      text: \${{ steps.copilot.outputs.summary }}
    steps:
      - id: copilot
        uses: ${ACTION}v0
        with: { prompt: x }
  b:
    steps:
      - uses: peter-evans/create-pull-request@v7
        with:
          body: \${{ needs.a.outputs.text }}
      - env: { S: "\${{ steps.copilot.outputs['summary'] }}" }
        run: git commit -m "$S"
`) as Data
    const forbidden = agentTextReferences(workflow)
    expect(
      stepsOf(workflow).map(({ step }) => strings(step).some((s) => forbidden.test(s)))
    ).toEqual([false, true, true])
  })
})
