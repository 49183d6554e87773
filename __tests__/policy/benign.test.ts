/**
 * Precision: every command of the benign corpus (bench/fixtures/benign-commands.json, commands
 * coding agents really ran, quoted from public transcripts) is allowed by the built-in preset
 * whose intent covers it and by every preset that extends that one. `npm run bench` prints the
 * same figure as an allow rate per preset.
 */
import { readFileSync } from 'node:fs'
import type { CompiledPolicy, PresetName } from '../../src/policy/index.js'
import { compilePolicy, PRESET_NAMES, presetText, runPolicyTests } from '../../src/policy/index.js'
import {
  denialOf,
  loadBenignCorpus,
  populateWorkspace,
  presetsCovering
} from '../../bench/benign-corpus.js'
import { tempWorkspace } from './helpers.js'

const corpus = loadBenignCorpus()
let ws: ReturnType<typeof tempWorkspace>
const policies = new Map<PresetName, CompiledPolicy>()

beforeAll(async () => {
  ws = tempWorkspace()
  populateWorkspace(ws.dir)
  for (const name of PRESET_NAMES) {
    policies.set(name, await compilePolicy(presetText(name), `built-in:${name}`, ws.dir))
  }
})
afterAll(() => ws.cleanup())

describe('the benign corpus', () => {
  it('has at least 60 commands, each with a source, from several transcripts', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60)
    for (const c of corpus) expect(c.source).toMatch(/^https:\/\/github\.com\/[^/]+\/[^/]+\//)
    expect(new Set(corpus.map((c) => c.source.replace(/\/blob\/.*$/, ''))).size).toBeGreaterThan(5)
    expect(new Set(corpus.map((c) => c.command)).size).toBe(corpus.length)
  })

  it.each([
    ['a pipe into head', /\| head\b/],
    ['a pipe into tail', /\| tail\b/],
    ['a pipe into grep', /\| grep\b/],
    ['a pipe into wc', /\| wc\b/],
    ['a pipe into sort', /\| sort\b/],
    ['2>&1', /2>&1/],
    ['cd <dir> && …', /^cd [^/ ]+ && /],
    ['git --no-pager', /git --no-pager /],
    ['git show', /git (--no-pager )?show\b/],
    ['git blame', /git blame\b/],
    ['git ls-files', /git ls-files\b/],
    ['git log -p', /git log -p\b/],
    ['sed -n', /sed -n /],
    ['jq', /(^|\| )jq /],
    ['CI=true npm test', /^CI=true npm test/]
  ])('holds %s', (_name, pattern) => {
    expect(corpus.filter((c) => pattern.test(c.command)).length).toBeGreaterThan(0)
  })
})

describe.each(PRESET_NAMES)('preset %s', (name) => {
  const covered = corpus.filter((c) => presetsCovering(c.preset).includes(name))

  it('covers commands of its own intent', () => {
    expect(covered.length).toBeGreaterThan(0)
  })

  it.each(covered.map((c) => [c.command, c.preset] as const))(
    'allows %j (intent: %s)',
    (command) => {
      const decision = (policies.get(name) as CompiledPolicy).decide({
        kind: 'shell',
        fullCommandText: command
      })
      expect({ command, ...(decision.decision === 'allow' ? {} : denialOf(decision)) }).toEqual({
        command
      })
    }
  )
})

describe('the denial rate of benign commands (issue 20: at most 2% per preset)', () => {
  it.each(PRESET_NAMES)('%s denies at most 2% of the commands of its intent', (name) => {
    const covered = corpus.filter((c) => presetsCovering(c.preset).includes(name))
    const denied = covered.filter(
      (c) =>
        (policies.get(name) as CompiledPolicy).decide({ kind: 'shell', fullCommandText: c.command })
          .decision !== 'allow'
    )
    expect({
      name,
      rate: denied.length / covered.length <= 0.02,
      denied: denied.map((c) => c.command)
    }).toEqual({ name, rate: true, denied: expect.any(Array) as unknown })
  })
})

describe("the README's example policy (A first workflow)", () => {
  // The policy file the README shows under "A first workflow": its first fenced yaml block that
  // starts with `version:` (the later ones illustrate other sections).
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
  const blocks = [...readme.matchAll(/^```ya?ml\n(version:[\s\S]*?)^```$/gm)].map(
    (m) => m[1] as string
  )
  // What a Node project's fix-the-tests run needs: the read-only and ci-fix commands, minus other
  // ecosystems' (pytest).
  const needed = corpus.filter(
    (c) => c.preset !== 'maintenance' && (c.ecosystem === undefined || c.ecosystem === 'node')
  )
  let policy: CompiledPolicy

  beforeAll(async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(1)
    expect(readme.indexOf(blocks[0] as string)).toBeGreaterThan(
      readme.indexOf('## A first workflow')
    )
    policy = await compilePolicy(blocks[0] as string, 'README.md example', ws.dir)
  })

  it('passes its own tests section', () => {
    expect(policy.tests.length).toBeGreaterThan(0)
    expect(runPolicyTests(policy).map((f) => f.message)).toEqual([])
  })

  it('needs most of the corpus', () => {
    expect(needed.length).toBeGreaterThan(80)
  })

  it.each(needed.map((c) => [c.command, c.preset] as const))(
    'allows %j (intent: %s)',
    (command) => {
      const decision = policy.decide({ kind: 'shell', fullCommandText: command })
      expect({ command, ...(decision.decision === 'allow' ? {} : denialOf(decision)) }).toEqual({
        command
      })
    }
  )

  it('still denies pushing and workflow edits', () => {
    expect(policy.decide({ kind: 'shell', fullCommandText: 'git -C . push' }).rule).toBe('no-push')
    expect(
      policy.decide({ kind: 'write', fileName: `${ws.dir}/.github/workflows/ci.yml` }).decision
    ).toBe('deny')
  })
})
