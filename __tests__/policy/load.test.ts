import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import {
  compilePolicy,
  loadPolicy,
  PolicyError,
  resolvePolicyText
} from '../../src/policy/index.js'
import { protectedNames } from '../../src/policy/sandbox.js'
import { BUILT_IN_IDS } from '../../src/policy/schema.js'
import { locateWasm } from '../../src/policy/wasm.js'
import { TreeFileError } from '../../src/tree-file.js'
import { EXAMPLE_POLICY, shell, tempWorkspace } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
beforeAll(() => {
  ws = tempWorkspace()
})
afterAll(() => ws.cleanup())

async function errorOf(text: string): Promise<PolicyError> {
  try {
    await compilePolicy(text, 'policy.yml', ws.dir)
  } catch (error) {
    if (error instanceof PolicyError) return error
    throw error
  }
  throw new Error('expected a PolicyError')
}

describe('loadPolicy', () => {
  it('falls back to the built-in read-only policy when the file does not exist', async () => {
    const p = await loadPolicy({ path: '.github/copilot-policy.yml', workingDirectory: ws.dir })
    expect(p.builtIn).toBe(true)
    expect(p.source).toBe('built-in:read-only')
    expect(p.decide(shell('git status')).decision).toBe('allow')
    expect(p.decide({ kind: 'write', fileName: 'src/a.ts' }).decision).toBe('deny')
  })

  it('loads a policy file relative to the working directory', async () => {
    writeFileSync(path.join(ws.dir, 'policy.yml'), EXAMPLE_POLICY)
    const p = await loadPolicy({ path: 'policy.yml', workingDirectory: ws.dir })
    expect(p.builtIn).toBe(false)
    expect(p.source).toBe('policy.yml')
    expect(p.decide(shell('git push')).rule).toBe('no-push')
    const abs = await loadPolicy({ path: path.join(ws.dir, 'policy.yml'), workingDirectory: '/' })
    expect(abs.decide(shell('npm test')).decision).toBe('allow')
  })

  it('reports errors with the file path as given', async () => {
    writeFileSync(path.join(ws.dir, 'bad.yml'), 'version: 1\nrules:\n  - { decision: allow }\n')
    await expect(loadPolicy({ path: 'bad.yml', workingDirectory: ws.dir })).rejects.toThrow(
      /^bad\.yml:3:5: rule 1 has no matcher/
    )
  })

  it('refuses a policy that is a symlink out of the workspace, without reading it', async () => {
    symlinkSync('/proc/self/environ', path.join(ws.dir, 'environ.yml'))
    const refused = loadPolicy({
      path: 'environ.yml',
      workingDirectory: ws.dir,
      what: "input 'policy'"
    })
    await expect(refused).rejects.toBeInstanceOf(TreeFileError)
    await expect(refused).rejects.toThrow(
      /^Input 'policy' names '.*environ\.yml', which leads to '\/proc\/\d+\/environ', outside the workspace/
    )
    // a link to nothing is not a missing policy: no built-in policy in its place
    symlinkSync('gone.yml', path.join(ws.dir, 'dangling.yml'))
    await expect(loadPolicy({ path: 'dangling.yml', workingDirectory: ws.dir })).rejects.toThrow(
      /does not exist/
    )
  })

  it('knows the policy file by its real path: no write reaches it under any of its names', async () => {
    // the policy the input names is a symlink to another file of the tree, which the rules allow
    mkdirSync(path.join(ws.dir, 'policies'), { recursive: true })
    mkdirSync(path.join(ws.dir, 'conf'), { recursive: true })
    writeFileSync(
      path.join(ws.dir, 'policies', 'agent.yml'),
      'version: 1\nrules:\n  - { id: edits, decision: allow, write: ["**"] }\n'
    )
    symlinkSync('../policies/agent.yml', path.join(ws.dir, 'conf', 'copilot-policy.yml'))
    // and a second name the agent could write through
    symlinkSync('../policies/agent.yml', path.join(ws.dir, 'conf', 'alias.yml'))
    const p = await loadPolicy({ path: 'conf/copilot-policy.yml', workingDirectory: ws.dir })
    for (const name of ['policies/agent.yml', 'conf/copilot-policy.yml', 'conf/alias.yml']) {
      const decision = p.decide({ kind: 'write', fileName: path.join(ws.dir, name) })
      expect([name, decision.decision, decision.rule]).toEqual([name, 'deny', 'policy-file'])
    }
    expect(
      p.decide({ kind: 'write', fileName: path.join(ws.dir, 'policies', 'other.yml') })
    ).toMatchObject({ decision: 'allow' })
    // the audit and the sandbox see it among the protected names
    expect(protectedNames(p)).toEqual(new Set(['agent.yml', 'copilot-policy.yml']))
  })

  it('rejects a directory', async () => {
    await expect(loadPolicy({ path: '.', workingDirectory: ws.dir })).rejects.toBeInstanceOf(
      PolicyError
    )
  })
})

describe('policy errors quote at most a short excerpt of the file', () => {
  const SECRET = 'ghp_' + 'S'.repeat(36) + 'TAIL-OF-THE-SECRET'

  it('a string where a mapping belongs: the first 40 characters, on one line', async () => {
    const e = await errorOf(`HOME=/root\u0000GITHUB_TOKEN=${SECRET}\u0000PATH=/usr/bin\n`)
    expect(e.message).toMatch(/^policy\.yml:1:1: a policy must be a mapping, not the string "/)
    expect(e.message).not.toContain('TAIL-OF-THE-SECRET')
    expect(e.message).not.toContain('PATH=/usr/bin')
    expect(e.message).toContain('…"')
    expect(e.message.split('\n')).toHaveLength(1)
  })

  it('a value, a key, an id or a pattern: cut at 40 characters', async () => {
    for (const text of [
      `version: 1\ndefault: ${SECRET}\n`,
      `version: 1\n${SECRET}: 1\n`,
      `version: 1\nrules:\n  - { id: ${SECRET}, decision: allow, shell: [x] }\n  - { id: ${SECRET}, decision: allow, shell: [y] }\n`,
      `version: 1\nrules:\n  - { decision: allow, url: ["${SECRET}@x"] }\n`,
      `version: 1\nrules:\n  - { decision: allow, mcp: ["${SECRET}"] }\n`
    ]) {
      const e = await errorOf(text)
      expect(e.message).toMatch(/^policy\.yml:\d+:\d+: /)
      expect(e.message).not.toContain('TAIL-OF-THE-SECRET')
    }
  })

  it("the YAML parser's own messages: what follows their colon is cut too", () => {
    const { issues } = resolvePolicyText(`version: 1\nrules: !${SECRET} []\n`, 'policy.yml')
    expect(issues.map((i) => i.message)).toEqual([`Unresolved tag: ${'!ghp_'.padEnd(40, 'S')}…`])
  })
})

describe('policy errors carry file:line:column and a fix', () => {
  it('an unknown key on line 4', async () => {
    const e = await errorOf(`version: 1
rules:
  - id: a
    decsion: allow
    shell: ["ls"]
`)
    expect(e).toMatchObject({ file: 'policy.yml', line: 4, column: 5 })
    expect(e.message).toContain('policy.yml:4:5: unknown key "decsion" in rule 1')
    expect(e.message).toContain('did you mean "decision"?')
    // one error: the missing decision is the misspelled key
    expect(e.issues).toHaveLength(1)
  })

  it('an unknown top-level key', async () => {
    const e = await errorOf('version: 1\ndefualt: deny\n')
    expect(e.message).toBe(
      'policy.yml:2:1: unknown key "defualt". Fix: did you mean "default"? ' +
        '(allowed keys: version, extends, default, sandbox, rules, tests)'
    )
  })

  it('duplicate ids', async () => {
    const e = await errorOf(`version: 1
rules:
  - { id: same, decision: allow, shell: ["ls"] }
  - { id: other, decision: allow, shell: ["pwd"] }
  - { id: same, decision: deny, shell: ["rm *"] }
`)
    expect(e.issues).toHaveLength(1)
    expect(e).toMatchObject({ line: 5, column: 11 })
    expect(e.message).toContain('duplicate rule id "same" (first used at line 3)')
  })

  it('an id that collides with a generated id or a built-in id', async () => {
    const e = await errorOf(`version: 1
rules:
  - { decision: allow, shell: ["ls"] }
  - { id: rule-1, decision: allow, shell: ["pwd"] }
  - { id: default, decision: allow, shell: ["pwd"] }
`)
    expect(e.issues.map((i) => [i.line, i.message])).toEqual([
      [4, 'id "rule-1" is also the generated id of the rule at that position'],
      [5, `id "default" is reserved for the policy's built-in decisions`]
    ])
  })

  it('a rule with two matchers', async () => {
    const e = await errorOf(`version: 1
rules:
  - id: both
    decision: allow
    shell: ["ls"]
    write: ["src/**"]
`)
    expect(e).toMatchObject({ line: 6, column: 5 })
    expect(e.message).toContain('rule 1 ("both") has 2 matchers (shell, write)')
    expect(e.fix).toContain('split it')
  })

  it('a rule with no matcher', async () => {
    const e = await errorOf(`version: 1
rules:
  - { id: ok, decision: allow, shell: ["ls"] }
  - id: none
    decision: allow
`)
    expect(e).toMatchObject({ line: 4, column: 5 })
    expect(e.message).toContain('rule 2 ("none") has no matcher')
    expect(e.fix).toContain('shell, write, read, url, mcp, memory, tool')
  })

  it('bad YAML', async () => {
    const e = await errorOf('version: 1\nrules:\n  - { id: a, decision: allow, shell: ["ls"]\n')
    expect(e.line).toBeGreaterThanOrEqual(3)
    expect(e.message).toMatch(/^policy\.yml:\d+:\d+: invalid YAML: /)
    expect(e.fix).toContain('YAML syntax')
    const dup = await errorOf('version: 1\nversion: 1\n')
    expect(dup).toMatchObject({ line: 2, column: 1 })
    expect(dup.fix).toContain('duplicate')
  })

  it.each([
    ['', 1, 1, 'the policy file is empty'],
    ['- a\n- b\n', 1, 1, 'a policy must be a mapping, not a list'],
    ['rules: []\n', 1, 1, 'missing "version"'],
    ['version: 2\n', 1, 10, '"version" must be 1, not number 2'],
    ['version: 1\ndefault: maybe\n', 2, 10, '"default" must be "allow" or "deny"'],
    ['version: 1\nrules: {}\n', 2, 8, '"rules" must be a list, not a mapping'],
    ['version: 1\nrules:\n  - 5\n', 3, 5, 'must be object'],
    [
      'version: 1\nrules:\n  - { decision: yes, shell: [ls] }\n',
      3,
      17,
      '"decision" in rule 1 must be "allow" or "deny" or "ask", not the string "yes"'
    ],
    [
      'version: 1\nrules:\n  - { decision: allow, shell: "git status" }\n',
      3,
      31,
      '"shell" in rule 1 must be a list, not the string "git status"'
    ],
    [
      'version: 1\nrules:\n  - { decision: allow, shell: [] }\n',
      3,
      31,
      '"shell" in rule 1 is an empty list, so it never matches'
    ],
    ['version: 1\nrules:\n  - { decision: allow, shell: [""] }\n', 3, 32, 'an empty pattern'],
    [
      'version: 1\nrules:\n  - { decision: deny, memory: false }\n',
      3,
      31,
      '"memory" in rule 1 must be true'
    ],
    ['version: 1\nrules:\n  - { id: "a b", decision: deny, memory: true }\n', 3, 11, 'invalid id'],
    [
      'version: 1\nrules:\n  - { decision: allow, write: ["../x/**"] }\n',
      3,
      32,
      'leaves the working directory'
    ],
    ['version: 1\nrules:\n  - { decision: allow, write: ["!src/**"] }\n', 3, 32, 'negated'],
    ['version: 1\nrules:\n  - { decision: allow, mcp: ["github"] }\n', 3, 30, 'not server/tool'],
    [
      'version: 1\nrules:\n  - { decision: allow, url: ["a.com/x", "b.com"] }\n',
      3,
      30,
      'has a path but no scheme'
    ]
  ])('%j → %i:%i %s', async (text, line, column, message) => {
    const e = await errorOf(text)
    const first = e.issues[0]
    expect(first?.message).toContain(message)
    expect([first?.line, first?.column]).toEqual([line, column])
    expect(e.message).toContain(`policy.yml:${line}:${column}: `)
    expect(first?.fix.length).toBeGreaterThan(5)
  })

  it('reports every error at once, in file order', async () => {
    const e = await errorOf(`version: 1
rules:
  - { decision: allow }
  - { decision: deny, shell: ["x"], url: ["y.com"] }
  - { decision: nope, shell: ["z"] }
`)
    expect(e.issues.map((i) => i.line)).toEqual([5])
    const e2 = await errorOf(`version: 1
rules:
  - { decision: allow }
  - { decision: deny, shell: ["x"], url: ["y.com"] }
`)
    expect(e2.issues.map((i) => i.line)).toEqual([3, 4])
  })
})

describe('wasm files', () => {
  it('are found in node_modules during development', () => {
    expect(locateWasm('web-tree-sitter.wasm')).toMatch(/web-tree-sitter\.wasm$/)
    expect(locateWasm('tree-sitter-bash.wasm')).toMatch(/tree-sitter-bash\.wasm$/)
  })

  it('are found next to the bundle first', () => {
    const dist = tempWorkspace('policy-dist-')
    try {
      writeFileSync(path.join(dist.dir, 'tree-sitter-bash.wasm'), '')
      const bundle = new URL(`file://${dist.dir}/index.js`).href
      expect(locateWasm('tree-sitter-bash.wasm', bundle)).toBe(
        path.join(dist.dir, 'tree-sitter-bash.wasm')
      )
    } finally {
      dist.cleanup()
    }
  })

  it('explains where it looked when a file is missing', () => {
    expect(() => locateWasm('nothing.wasm', 'file:///nowhere/index.js')).toThrow(
      /cannot find nothing\.wasm/
    )
  })
})

describe('built-in rule ids', () => {
  it('are the ids policy/README.md lists, and all reserved', () => {
    const readme = readFileSync(new URL('../../policy/README.md', import.meta.url), 'utf8')
    const section = readme.slice(readme.indexOf('### Built-in rule ids'))
    const listed = [
      ...section.slice(0, section.indexOf('\n### ', 5)).matchAll(/^\| `([a-z-]+)` /gm)
    ]
      .map((m) => m[1])
      .sort()
    expect(listed).toEqual([...BUILT_IN_IDS].sort())
  })
})
