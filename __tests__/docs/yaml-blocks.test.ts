/**
 * Every YAML block in the README and the docs works when pasted. Each block is one of:
 * - a workflow (`jobs:`): actionlint finds nothing in it;
 * - steps (a list of steps): actionlint finds nothing in them, run as a job of their own;
 * - a policy (`version:`): it compiles, and its own `tests:` pass; a block of only `tests:` runs
 *   against the same page's first policy;
 * - an excerpt of a recipe: its lines appear, in order, in one of examples/&#42;/workflow.yml (which
 *   the workflow tests lint).
 * Wherever a block uses this action, it uses it as the repository and major version package.json
 * names, with inputs action.yml declares.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import YAML from 'yaml'
import { compilePolicy, runPolicyTests } from '../../src/policy/index.js'
import { ROOT } from '../../test-support/action.js'
import { actionlint, realFindings } from '../../test-support/actionlint.js'

const PAGES = [
  'README.md',
  'docs/recipes.md',
  'docs/security.md',
  'policy/README.md',
  'bench/README.md',
  'SECURITY.md'
]

interface Block {
  page: string
  line: number
  text: string
  value: unknown
}

function blocksOf(page: string): Block[] {
  const text = fs.readFileSync(path.join(ROOT, page), 'utf8')
  const blocks: Block[] = []
  for (const m of text.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, m.index).split('\n').length
    const body = m[1] as string
    const doc = YAML.parseDocument(body)
    if (doc.errors.length > 0) {
      throw new Error(`${page}:${line}: the YAML block does not parse: ${doc.errors[0]?.message}`)
    }
    blocks.push({ page, line, text: body, value: doc.toJS() as unknown })
  }
  return blocks
}

const blocks = PAGES.filter((p) => fs.existsSync(path.join(ROOT, p))).flatMap(blocksOf)
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const isWorkflow = (b: Block) => isRecord(b.value) && 'jobs' in b.value
const isSteps = (b: Block) =>
  Array.isArray(b.value) && b.value.every((s) => isRecord(s) && ('uses' in s || 'run' in s))
const isPolicy = (b: Block) => isRecord(b.value) && 'version' in b.value
const isTests = (b: Block) => isRecord(b.value) && Object.keys(b.value).join() === 'tests'
const kind = (b: Block) =>
  isWorkflow(b)
    ? 'workflow'
    : isSteps(b)
      ? 'steps'
      : isPolicy(b)
        ? 'policy'
        : isTests(b)
          ? 'tests'
          : 'excerpt'
const where = (b: Block) => `${b.page}:${b.line}`

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string
  repository: { url: string }
}
const REPOSITORY = /github\.com\/([^/]+\/[^/.]+)/.exec(pkg.repository.url)?.[1] as string
const USES = `${REPOSITORY}@v${pkg.version.split('.')[0] ?? ''}`
const action = YAML.parse(fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, unknown>
}

const REUSABLE = `${REPOSITORY}/.github/workflows/fleet.yml@v${pkg.version.split('.')[0] ?? ''}`
const fleetInputs = (
  YAML.parse(fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'fleet.yml'), 'utf8')) as {
    on: { workflow_call: { inputs: Record<string, unknown> } }
  }
).on.workflow_call.inputs

/** Every mapping anywhere in a value. */
function mappings(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(mappings)
  if (!isRecord(value)) return []
  return [value, ...Object.values(value).flatMap(mappings)]
}

let tmp: string
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'yaml-blocks-'))
})
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

it('finds the blocks: the README has a workflow, steps and a policy', () => {
  const readme = blocks.filter((b) => b.page === 'README.md').map(kind)
  expect(readme).toEqual(expect.arrayContaining(['workflow', 'steps', 'policy']))
})

it('uses this action as package.json names it, with inputs action.yml declares', () => {
  expect(USES).toBe('gated-autopilot/autopilot-action@v0')
  let uses = 0
  for (const b of blocks) {
    for (const m of mappings(b.value)) {
      if (typeof m.uses !== 'string' || !m.uses.includes('autopilot-action')) continue
      uses++
      if (m.uses.includes('/.github/workflows/')) {
        // the reusable workflow (one task across your organization), with the inputs it declares
        expect([where(b), m.uses]).toEqual([where(b), REUSABLE])
        const inputs = Object.keys(isRecord(m.with) ? m.with : {})
        expect([where(b), inputs.filter((i) => !(i in fleetInputs))]).toEqual([where(b), []])
        continue
      }
      expect([where(b), m.uses]).toEqual([where(b), USES])
      const inputs = Object.keys(isRecord(m.with) ? m.with : {})
      expect([where(b), inputs.filter((i) => !(i in action.inputs))]).toEqual([where(b), []])
    }
  }
  expect(uses).toBeGreaterThanOrEqual(2)
})

it('actionlint finds nothing in the workflows and steps', () => {
  const files: string[] = []
  for (const b of blocks) {
    const k = kind(b)
    if (k !== 'workflow' && k !== 'steps') continue
    const file = path.join(tmp, `${b.page.replace(/\W/g, '_')}-${b.line}.yml`)
    const text =
      k === 'workflow'
        ? b.text
        : YAML.stringify({
            on: 'workflow_dispatch',
            permissions: {},
            jobs: { steps: { 'runs-on': 'ubuntu-latest', steps: b.value } }
          })
    fs.writeFileSync(file, text)
    files.push(file)
  }
  expect(files.length).toBeGreaterThanOrEqual(3)
  expect(realFindings(actionlint(files))).toEqual([])
})

it('every policy compiles and passes its own tests; a tests block passes against its page’s policy', async () => {
  let checked = 0
  for (const page of PAGES) {
    const ofPage = blocks.filter((b) => b.page === page)
    const first = ofPage.find(isPolicy)
    for (const b of ofPage) {
      const k = kind(b)
      if (k !== 'policy' && k !== 'tests') continue
      if (first === undefined) throw new Error(`${where(b)}: a tests block with no policy`)
      const text =
        k === 'policy'
          ? b.text
          : `${first.text.replace(/^tests:[\s\S]*$/m, '').trimEnd()}\n${b.text}`
      const policy = await compilePolicy(text, where(b), tmp)
      expect([where(b), runPolicyTests(policy).map((f) => f.message)]).toEqual([where(b), []])
      if (k === 'tests') expect(policy.tests.length).toBeGreaterThan(0)
      checked++
    }
  }
  expect(checked).toBeGreaterThanOrEqual(5)
})

it('every excerpt is part of a recipe the workflow tests lint', () => {
  const recipes = fs
    .readdirSync(path.join(ROOT, 'examples'))
    .map((r) => path.join(ROOT, 'examples', r, 'workflow.yml'))
    .filter((f) => fs.existsSync(f))
    .map((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .map((l) => l.trim())
    )
  for (const b of blocks.filter((x) => kind(x) === 'excerpt')) {
    const lines = b.text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
    const found = recipes.some((recipe) => {
      for (let i = 0; i < recipe.length; i++) {
        let j = 0
        let k = i
        while (j < lines.length && k < recipe.length) {
          if (recipe[k] === '') k++
          else if (recipe[k] === lines[j]) {
            j++
            k++
          } else break
        }
        if (j === lines.length) return true
      }
      return false
    })
    expect([where(b), found]).toEqual([where(b), true])
  }
})
