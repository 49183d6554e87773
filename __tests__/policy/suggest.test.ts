import path from 'node:path'
import { parse } from 'yaml'
import { BUILT_IN_IDS } from '../../src/policy/schema.js'
import type { PermissionRequest } from '../../src/cli/protocol.js'
import {
  compilePolicy,
  suggestRule,
  type CompiledPolicy,
  type Decision,
  type RuleSuggestion
} from '../../src/policy/index.js'
import { mcp, read, shell, tempWorkspace, tool, url, write, writeFiles } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>

const BASE_RULES = [
  '  - { id: no-push, decision: deny, reason: pushing is the workflow job, shell: ["git push*"] }',
  '  - { id: ci, decision: allow, shell: ["npm ci"] }',
  '  - { id: no-secrets, decision: deny, read: ["secrets/**"] }',
  '  - { id: docs, decision: allow, write: ["docs/**"] }'
]
const BASE = ['version: 1', 'default: deny', 'rules:', ...BASE_RULES].join('\n')

let base: CompiledPolicy

beforeAll(async () => {
  ws = tempWorkspace()
  writeFiles(ws.dir, { 'src/a.ts': '', 'secrets/key.pem': '', 'sub/x.txt': '' })
  base = await compilePolicy(BASE, 'policy.yml', ws.dir)
})
afterAll(() => ws.cleanup())

/** The base policy with the suggested rules appended to its rules. */
async function withSuggestion(suggestion: RuleSuggestion): Promise<CompiledPolicy> {
  if (suggestion.kind !== 'add-rule') throw new Error(`no rule suggested: ${suggestion.note}`)
  const added: unknown = parse(suggestion.yaml)
  expect(Array.isArray(added)).toBe(true)
  const indented = suggestion.yaml
    .trimEnd()
    .split('\n')
    .map((l) => `  ${l}`)
  return compilePolicy([BASE, ...indented].join('\n'), 'policy.yml', ws.dir)
}

function denied(request: PermissionRequest): Decision {
  const decision = base.decide(request)
  expect(decision.decision).toBe('deny')
  return decision
}

function suggest(decision: Decision, request?: PermissionRequest): RuleSuggestion {
  return suggestRule({ ...decision, request }, { workingDirectory: ws.dir })
}

describe('a request no rule matched', () => {
  it.each<[string, PermissionRequest, string | undefined, PermissionRequest | undefined]>([
    [
      'a command',
      shell('npm test'),
      '- decision: allow\n  shell: ["npm test"]\n',
      shell('npm test -- --watch')
    ],
    [
      'only the part of a command no rule matched',
      shell('npm ci && npm test'),
      '- decision: allow\n  shell: ["npm test"]\n',
      shell('npm ci && npm run build')
    ],
    [
      'a command with quotes, a colon, a hash and a star, exactly',
      shell(`echo "a: b" '#x' "*" 'true'`),
      '- decision: allow\n  shell: ["echo a: b #x \\\\* true"]\n',
      shell(`echo "a: b" '#x' anything 'true'`)
    ],
    [
      'variables set for a command',
      shell('CI=1 make build'),
      '- decision: allow\n  shell: ["CI=1 make build"]\n',
      shell('make build')
    ],
    [
      'a command and the file it writes',
      shell('npm test > out/log.txt'),
      '- decision: allow\n  shell: ["npm test"]\n- decision: allow\n  write: ["out/log.txt"]\n',
      shell('npm test > out/other.txt')
    ],
    [
      'a command writing outside the working directory',
      shell('npm test > /tmp/suggest-test.log'),
      '- decision: allow\n  shell: ["npm test"]\n- decision: allow\n  write: ["/tmp/suggest-test.log"]\n',
      shell('npm test > /tmp/suggest-other.log')
    ],
    [
      'a recursive delete',
      shell('rm -r sub'),
      '- decision: allow\n  shell: ["rm -r sub"]\n- decision: allow\n  write: ["sub", "sub/**"]\n',
      shell('rm -r src')
    ],
    [
      'a URL a command fetches',
      shell('curl -fsSL https://example.com/install.sh'),
      '- decision: allow\n  shell: ["curl -fsSL https://example.com/install.sh"]\n- decision: allow\n  url: ["https://example.com/install.sh"]\n',
      shell('curl -fsSL https://example.com/other.sh')
    ],
    [
      'a write after a cd',
      shell('cd sub && echo hi > new.txt'),
      '- decision: allow\n  shell: ["cd sub", "echo hi"]\n- decision: allow\n  write: ["new.txt", "sub/new.txt"]\n',
      shell('cd sub && echo hi > other.txt')
    ],
    [
      'a file by its absolute path, relative to the working directory',
      write('/WS/src/a[1].ts'),
      '- decision: allow\n  write: ["src/a\\\\[1\\\\].ts"]\n',
      write('src/a1.ts')
    ],
    [
      'a file with a space',
      write('src/new file.ts'),
      '- decision: allow\n  write: ["src/new file.ts"]\n',
      write('src/new-file.ts')
    ],
    [
      'a directory in the working directory',
      read('/WS/src'),
      '- decision: allow\n  read: ["src"]\n',
      read('src/a.ts')
    ],
    [
      'a read outside the working directory',
      read('/srv/data/hostname'),
      '- decision: allow\n  read: ["/srv/data/hostname"]\n',
      read('/srv/data/hosts')
    ],
    [
      'a URL, path and port included',
      url('https://Docs.Example.com:8443/a/(b)/c?q=1#f'),
      '- decision: allow\n  url: ["https://docs.example.com:8443/a/\\\\(b\\\\)/c"]\n',
      url('https://docs.example.com:8443/a/b/c')
    ],
    [
      'a read-only MCP tool',
      { ...mcp('github', 'get_me'), readOnly: true },
      '- decision: allow\n  mcp: ["github/get_me"]\n  readOnly: true\n',
      mcp('github', 'get_me')
    ],
    [
      'an MCP tool',
      mcp('github', 'create_issue'),
      '- decision: allow\n  mcp: ["github/create_issue"]\n',
      mcp('github', 'create_pr')
    ],
    [
      'a custom tool with a star',
      tool('my*tool'),
      '- decision: allow\n  tool: ["my\\\\*tool"]\n',
      tool('my-other-tool')
    ],
    ['memory', { kind: 'memory' }, '- decision: allow\n  memory: true\n', undefined]
  ])('%s: the suggested rule allows it, and no more', async (_, request0, yaml, sibling0) => {
    const fix = (r: PermissionRequest): PermissionRequest =>
      JSON.parse(JSON.stringify(r).replaceAll('/WS', ws.dir)) as PermissionRequest
    const request = fix(request0)
    const decision = denied(request)
    const suggestion = suggest(decision, request)
    expect(suggestion.kind).toBe('add-rule')
    if (yaml !== undefined && suggestion.kind === 'add-rule') expect(suggestion.yaml).toBe(yaml)
    const fixed = await withSuggestion(suggestion)
    expect(fixed.decide(request).decision).toBe('allow')
    if (sibling0 !== undefined) expect(fixed.decide(fix(sibling0)).decision).toBe('deny')
  })

  it('the working directory, with a denied tree below it: the deny rule is named, no allow', () => {
    const request = read(ws.dir)
    const decision = denied(request)
    expect(decision.rule).toBe('no-secrets')
    expect(suggest(decision, request).kind).toBe('explicit-deny')
  })

  it('proposes every part without the segments (a report record)', async () => {
    const request = shell('npm ci && npm test')
    const decision = denied(request)
    const suggestion = suggestRule(
      { kind: decision.kind, rule: decision.rule, subject: decision.subject, request },
      { workingDirectory: ws.dir }
    )
    expect(suggestion).toMatchObject({
      kind: 'add-rule',
      yaml: '- decision: allow\n  shell: ["npm ci", "npm test"]\n'
    })
    expect((await withSuggestion(suggestion)).decide(request).decision).toBe('allow')
  })

  it('proposes every part when the segments do not name any', () => {
    const request = shell('npm ci && npm test')
    const suggestion = suggestRule(
      {
        kind: 'shell',
        rule: 'default',
        subject: 'npm ci && npm test',
        request,
        segments: [{ text: 'something else', decision: 'deny', rule: 'default' }]
      },
      { workingDirectory: ws.dir }
    )
    expect(suggestion).toMatchObject({
      yaml: '- decision: allow\n  shell: ["npm ci", "npm test"]\n'
    })
  })

  it('uses the subject when the request is missing or malformed', () => {
    const decision = denied(write('src/b.ts'))
    const suggestion = suggestRule(
      { ...decision, request: { kind: 'write', fileName: 42 } },
      { workingDirectory: ws.dir }
    )
    expect(suggestion).toMatchObject({
      kind: 'add-rule',
      yaml: '- decision: allow\n  write: ["src/b.ts"]\n'
    })
  })

  it('quotes every pattern so YAML reads it back exactly', () => {
    for (const text of ['true', '- a', 'x: y', "it's", 'a "b"', '@x', '{a}', 'null', '#c', '1e3']) {
      const suggestion = suggestRule({ kind: 'custom-tool', rule: 'default', subject: text })
      if (suggestion.kind !== 'add-rule') throw new Error('no rule')
      expect(parse(suggestion.yaml)).toEqual([{ decision: 'allow', tool: [text] }])
    }
  })

  it('says when the path is outside the working directory', () => {
    const suggestion = suggest(denied(read('/srv/data/hostname')), read('/srv/data/hostname'))
    expect(suggestion.note).toMatch(/outside the working directory/)
  })

  it('keeps a relative path relative without a working directory', () => {
    expect(suggestRule({ kind: 'write', rule: 'default', subject: './src//a.ts' })).toMatchObject({
      yaml: '- decision: allow\n  write: ["src/a.ts"]\n'
    })
  })

  it('gives no rule for a request it cannot name', () => {
    expect(suggestRule({ kind: 'mcp', rule: 'default', subject: 'noslash' }).kind).toBe('built-in')
    expect(suggestRule({ kind: 'url', rule: 'default', subject: 'not a url' }).kind).toBe(
      'built-in'
    )
  })
})

describe('an explicit deny rule', () => {
  it('says the rule denies on purpose, and proposes no allow', () => {
    const suggestion = suggest(denied(shell('git push origin main')))
    expect(suggestion).toEqual({
      kind: 'explicit-deny',
      note: expect.stringContaining('Rule "no-push" denies this on purpose') as unknown
    })
    expect(suggestion.note).not.toMatch(/narrow or remove|remove that rule/)
    expect(suggestion).not.toHaveProperty('yaml')
  })

  it('also for a deny of the directory a glob covers', () => {
    expect(suggest(denied(read('secrets'))).kind).toBe('explicit-deny')
  })

  it("names a preset's rule as the preset's", async () => {
    const p = await compilePolicy('version: 1\nextends: read-only\n', 'p.yml', ws.dir)
    const d = p.decide(shell('find src -delete'))
    expect(d.rule).toBe('read-only/find-actions')
    expect(suggestRule(d).note).toBe(
      'Rule "read-only/find-actions" of the built-in preset read-only denies this on purpose and a deny beats any allow, so no rule can allow it while the policy extends read-only.'
    )
  })

  it('tells a policy rule from a built-in check of the same name by the rule ids', () => {
    const denial = { kind: 'shell', rule: 'network', subject: 'x', reason: 'r' }
    expect(suggestRule(denial).kind).toBe('built-in')
    expect(suggestRule(denial, { ruleIds: ['network'] }).kind).toBe('explicit-deny')
  })
})

describe('a built-in check', () => {
  it.each<[string, PermissionRequest, string, RegExp]>([
    [
      'a program only known at run time',
      shell('$CMD --version'),
      'dynamic-command',
      /exact command text.*without run-time expansion/
    ],
    [
      'a secret under /proc',
      shell('cat /proc/1/environ'),
      'sensitive-path',
      /^No rule can allow this: .*\/proc/
    ],
    [
      'a protected variable',
      shell('export PATH=/tmp/bin'),
      'protected-variable',
      /without setting that variable/
    ],
    [
      'an unknown kind',
      { kind: 'teleport' },
      'unknown-kind',
      /^No rule can allow this: the policy does not know/
    ],
    [
      'an incomplete request',
      { kind: 'write' },
      'invalid-request',
      /^No rule can allow this: the write request has no fileName\.$/
    ]
  ])('%s: says why no rule can allow it', (_, request, rule, note) => {
    const decision = base.decide(request)
    expect(decision).toMatchObject({ decision: 'deny', rule })
    const suggestion = suggest(decision, request)
    expect(suggestion.kind).toBe('built-in')
    expect(suggestion.note).toMatch(note)
    expect(suggestion.note.split('. ')).toHaveLength(1)
  })

  it('has a note for every reserved id', () => {
    // the default and a path outside the working directory get a rule to add instead
    const reserved = BUILT_IN_IDS.filter((id) => id !== 'default' && id !== 'outside-workspace')
    for (const rule of reserved) {
      const s = suggestRule({ kind: 'shell', rule, subject: 'x' })
      expect([rule, s.kind]).toEqual([rule, 'built-in'])
      expect(s.note).toMatch(/\.$/)
    }
  })

  it('reaches the same rule when a path is given relative or absolute', () => {
    const a = suggestRule(
      { kind: 'read', rule: 'default', subject: path.join(ws.dir, 'sub') },
      { workingDirectory: ws.dir }
    )
    const b = suggestRule(
      { kind: 'read', rule: 'default', subject: 'sub/' },
      { workingDirectory: ws.dir }
    )
    expect(a).toEqual(b)
  })
})
