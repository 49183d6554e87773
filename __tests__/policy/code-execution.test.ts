/**
 * Which policies let the agent run code of its own choosing (issue 30, point 6): those need the
 * OS sandbox under `sandbox: auto`; read-only does not.
 */
import { compilePolicy, codeExecutionRule, presetText } from '../../src/policy/index.js'
import { compile, tempWorkspace } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
beforeAll(() => {
  ws = tempWorkspace()
})
afterAll(() => ws.cleanup())

describe('codeExecutionRule', () => {
  it('names a rule in ci-fix and maintenance, none in read-only', async () => {
    for (const name of ['ci-fix', 'maintenance'] as const) {
      const p = await compilePolicy(presetText(name), `built-in:${name}`, ws.dir)
      expect(codeExecutionRule(p.rules)).toMatch(/project-checks|dependency-updates/)
    }
    const ro = await compilePolicy(presetText('read-only'), 'built-in:read-only', ws.dir)
    expect(codeExecutionRule(ro.rules)).toBeUndefined()
  })

  it.each([
    ['node *'],
    ['npm test'],
    ['CI=true npm test*'],
    ['./gradlew build'],
    ['/usr/bin/python3 -m pytest'],
    ['*'],
    ['py*'],
    ['bash scripts/check.sh'],
    ['make'],
    // configuration in the tree makes them write, read or fix beyond their command line
    ['ruff check *'],
    ['tsc --noEmit']
  ])('%s runs code', async (pattern) => {
    const p = await compile(
      `version: 1\nrules:\n  - { id: r, decision: allow, shell: [${JSON.stringify(pattern)}] }\n`,
      ws.dir
    )
    expect(codeExecutionRule(p.rules)).toBe(`r (${JSON.stringify(pattern)})`)
  })

  it.each([['git status'], ['cat *'], ['grep *'], ['jq *']])('%s runs none', async (pattern) => {
    const p = await compile(
      `version: 1\nrules:\n  - { id: r, decision: allow, shell: [${JSON.stringify(pattern)}] }\n  - { id: d, decision: deny, shell: ["node *"] }\n`,
      ws.dir
    )
    expect(codeExecutionRule(p.rules)).toBeUndefined()
  })
})
