/**
 * Claims in the docs that can drift from the code, checked against the code:
 * - the README's inputs and outputs tables name exactly what action.yml declares;
 * - every `sandbox:` setting and every preset the docs show is one the policy loader accepts;
 * - what the docs say a rule matches is what the engine decides;
 * - the Copilot token is never described as an environment variable of the CLI (it is not one);
 * - wherever the ci-fix preset is offered, it is called code execution (it allows `node *`);
 * - docs/troubleshooting.md has every section the comment links to.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import YAML from 'yaml'
import { agentEnvironment } from '../../src/wall/environment.js'
import { PRESET_NAMES, compilePolicy, runPolicyTests } from '../../src/policy/index.js'
import { ROOT } from '../../test-support/action.js'

const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8')

const DOCS = [
  'README.md',
  'CHANGELOG.md',
  'SECURITY.md',
  'action.yml',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...fs
    .readdirSync(path.join(ROOT, 'policy'))
    .filter((f) => /^README/.test(f))
    .map((f) => `policy/${f}`)
]

const action = YAML.parse(read('action.yml')) as {
  inputs: Record<string, { description?: string }>
  outputs: Record<string, { description?: string }>
}

/** The first column's code spans of the table under `## <heading>` in the README. */
function tableNames(heading: string): string[] {
  const readme = read('README.md')
  const start = readme.indexOf(`\n## ${heading}\n`)
  expect(start).toBeGreaterThan(0)
  const end = readme.indexOf('\n## ', start + 1)
  const names: string[] = []
  for (const line of readme.slice(start, end < 0 ? undefined : end).split('\n')) {
    const first = /^\|([^|]+)\|/.exec(line)?.[1] ?? ''
    if (/^\s*-+\s*$/.test(first)) continue
    for (const m of first.matchAll(/`([a-z][a-z0-9-]*)`/g)) names.push(m[1] as string)
  }
  return names.sort()
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>()
  for (const m of markdown.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const heading = (m[1] as string).trim().toLowerCase()
    out.add(heading.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'))
  }
  return out
}

let tmp: string
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-claims-'))
})
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

describe('the README’s tables and action.yml', () => {
  it('name the same inputs', () => {
    expect(tableNames('Inputs')).toEqual(Object.keys(action.inputs).sort())
  })

  it('name the same outputs', () => {
    expect(tableNames('Outputs')).toEqual(Object.keys(action.outputs).sort())
  })
})

describe('policy settings the docs show', () => {
  it('every sandbox mode the docs name loads, and the old flat spelling does not', async () => {
    const modes = new Set<string>()
    for (const file of DOCS) {
      const text = read(file)
      for (const m of text.matchAll(/sandbox: \{ ?mode: ([a-z |]+?) ?\}/g)) {
        for (const mode of (m[1] as string).split('|')) modes.add(mode.trim())
      }
      // the flat form the policy schema rejects must not be shown as a setting
      expect([file, /sandbox: (auto|required|off)\b/.test(text)]).toEqual([file, false])
    }
    expect([...modes].sort()).toEqual(['auto', 'off', 'required'])
    for (const mode of modes) {
      await expect(
        compilePolicy(`version: 1\nsandbox: { mode: ${mode} }\n`, `mode-${mode}.yml`, tmp)
      ).resolves.toBeDefined()
    }
    await expect(compilePolicy('version: 1\nsandbox: auto\n', 'flat.yml', tmp)).rejects.toThrow()
  })

  it('every preset the docs extend exists', async () => {
    const named = new Set<string>()
    for (const file of DOCS) {
      for (const m of read(file).matchAll(/(?:extends: |built-in:)([a-z][a-z-]*)/g)) {
        named.add(m[1] as string)
      }
    }
    expect(named.size).toBeGreaterThanOrEqual(2)
    for (const name of named) {
      expect([name, (PRESET_NAMES as readonly string[]).includes(name)]).toEqual([name, true])
      await expect(
        compilePolicy(`version: 1\nextends: ${name}\n`, `${name}.yml`, tmp)
      ).resolves.toBeDefined()
    }
  })
})

describe('what the docs say the engine decides', () => {
  it('a deny rule naming a subcommand also denies it behind the program’s options (policy/README)', async () => {
    const doc = read('policy/README.md')
    expect(doc).toContain('`git push*` denies `git -C . push`')
    expect(doc).toContain('`npm publish*` denies\n`npm --prefix . publish`')
    const policy = await compilePolicy(
      [
        'version: 1',
        'extends: read-only',
        'default: allow',
        'rules:',
        "  - { id: no-push, decision: deny, shell: ['git push*', 'npm publish*'] }",
        'tests:',
        '  - { shell: git -C . push, expect: deny, rule: no-push }',
        '  - { shell: git --no-pager push, expect: deny, rule: no-push }',
        '  - { shell: git --git-dir=.git push, expect: deny, rule: no-push }',
        '  - { shell: npm --prefix . publish, expect: deny, rule: no-push }',
        '  - { shell: npm pub, expect: deny, rule: no-push }',
        ''
      ].join('\n'),
      'claims.yml',
      tmp
    )
    expect(runPolicyTests(policy).map((f) => f.message)).toEqual([])
  })

  it('ci-fix runs code, and every doc that offers it says so', async () => {
    const policy = await compilePolicy(
      [
        'version: 1',
        'extends: ci-fix',
        'tests:',
        '  - { shell: node scripts/anything.js, expect: allow }',
        '  - { shell: npm run whatever, expect: allow }',
        ''
      ].join('\n'),
      'ci-fix.yml',
      tmp
    )
    expect(runPolicyTests(policy).map((f) => f.message)).toEqual([])
    for (const file of ['README.md', 'policy/README.md']) {
      expect([file, /code execution/i.test(read(file))]).toEqual([file, true])
    }
    expect(action.inputs.policy?.description).toMatch(/ci-fix[\s\S]*code\s+execution/)
    // the README's first policy, which extends ci-fix, says what it allows in its comment
    expect(read('README.md')).toContain('extends: ci-fix # built-in rules: read, edit, run code')
  })
})

describe('credentials', () => {
  it('no doc says the Copilot token reaches the CLI as an environment variable; the code strips it', () => {
    for (const file of DOCS) {
      expect([file, /as `?COPILOT_GITHUB_TOKEN/.test(read(file))]).toEqual([file, false])
    }
    const { env } = agentEnvironment({
      env: { COPILOT_GITHUB_TOKEN: 'ghp_x', GITHUB_TOKEN: 'y', PATH: '/bin' },
      secrets: [],
      passthrough: ['COPILOT_GITHUB_TOKEN', 'GITHUB_TOKEN']
    })
    expect(env).toEqual({ PATH: '/bin' })
    expect(action.inputs['copilot-token']?.description).toMatch(/JSON-RPC/)
  })
})

describe('docs/troubleshooting.md', () => {
  const page = read('docs/troubleshooting.md')

  it('has every section the comment links to', () => {
    const have = anchors(page)
    for (const anchor of [
      'sandbox-unavailable',
      'incomplete',
      'ask-timed-out',
      'policy-error',
      'budget-exceeded',
      'verify-failed',
      'policy-violation'
    ]) {
      expect([anchor, have.has(anchor)]).toEqual([anchor, true])
    }
  })

  it('links only to files and anchors that exist', () => {
    const links = [...page.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1] as string)
      .filter((target) => !/^[a-z]+:/i.test(target))
    expect(links.length).toBeGreaterThan(1)
    for (const target of links) {
      const [file, anchor] = target.split('#') as [string, string | undefined]
      const resolved = file === '' ? 'docs/troubleshooting.md' : path.posix.join('docs', file)
      expect([target, fs.existsSync(path.join(ROOT, resolved))]).toEqual([target, true])
      if (anchor !== undefined) {
        expect([target, anchors(read(resolved)).has(anchor)]).toEqual([target, true])
      }
    }
  })

  it('says what you see, why and what to do in each section, and never to remove a deny', () => {
    const sections = page.split(/^## /m).slice(1)
    expect(sections.length).toBe(7)
    for (const section of sections) {
      const title = section.split('\n')[0]
      expect([title, /\*\*What you see\.\*\*/.test(section)]).toEqual([title, true])
      expect([title, /\*\*Why\.\*\*/.test(section)]).toEqual([title, true])
      expect([title, /\*\*What to do\.\*\*/.test(section)]).toEqual([title, true])
    }
    expect(page).not.toMatch(/narrow or remove that rule|remove (that|the) (deny )?rule/i)
    // the sandbox section gives the AppArmor step the action itself takes
    expect(page).toContain('apparmor_parser -r /etc/apparmor.d/bwrap-userns')
  })
})
