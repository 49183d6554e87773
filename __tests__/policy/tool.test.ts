import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Report } from '../../src/reporting/types.js'
import {
  checkPolicy,
  explainRequest,
  replayReport,
  requestFor,
  runPolicyTool,
  testPolicy
} from '../../src/policy/tool.js'
import { compilePolicy, PRESET_NAMES, runPolicyTests } from '../../src/policy/index.js'
import { EXAMPLE_POLICY, tempWorkspace } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
let options: { workingDirectory: string }

function file(name: string, text: string): string {
  writeFileSync(path.join(ws.dir, name), text)
  return name
}

beforeAll(() => {
  ws = tempWorkspace()
  options = { workingDirectory: ws.dir }
})
afterAll(() => ws.cleanup())

describe('check', () => {
  it('passes a clean policy', async () => {
    const result = await checkPolicy(file('clean.yml', EXAMPLE_POLICY), options)
    expect(result).toEqual({
      exitCode: 0,
      output: 'clean.yml: no problems (9 rules, 0 tests)'
    })
  })

  it('reports errors with file:line:column and fails', async () => {
    const result = await checkPolicy(
      file('bad.yml', 'version: 1\nrules:\n  - id: a\n    decsion: allow\n    shell: [ls]\n'),
      options
    )
    expect(result.exitCode).toBe(1)
    expect(result.output).toContain('bad.yml:4:5: unknown key "decsion" in rule 1')
    expect(result.output).toContain('bad.yml: 1 error, 0 warnings')
  })

  it.each([
    [
      'a deny without *',
      '{ id: r, decision: deny, shell: ["git push"] }',
      'deny pattern "git push" has no *',
      'write "git push*"'
    ],
    [
      'an operator in a shell pattern',
      '{ id: r, decision: allow, shell: ["npm ci && npm test"] }',
      'can never match',
      'one pattern per command'
    ],
    [
      'a pipe in a shell pattern',
      '{ id: r, decision: allow, shell: ["cat * | grep x"] }',
      'can never match',
      'one pattern per command'
    ],
    [
      'quotes in a shell pattern',
      `{ id: r, decision: allow, shell: ['git commit -m "*"'] }`,
      'contains quotes',
      'remove the quotes'
    ],
    [
      'double spaces in a shell pattern',
      '{ id: r, decision: allow, shell: ["npm  test"] }',
      'can never match',
      'one space'
    ],
    [
      'src/* where src/** was meant',
      '{ id: r, decision: allow, write: ["src/*"] }',
      'matches only files directly in src/',
      'write "src/**"'
    ],
    [
      'a trailing slash',
      '{ id: r, decision: allow, write: ["src/"] }',
      'matches no file',
      'write "src/**"'
    ],
    [
      'a look-alike host pattern',
      '{ id: r, decision: allow, url: ["*github.com"] }',
      'look-alike hosts (e.g. evilgithub.com)',
      '*.example.com'
    ]
  ])('warns about %s', async (_name, rule, message, fix) => {
    const result = await checkPolicy(file('w.yml', `version: 1\nrules:\n  - ${rule}\n`), options)
    expect(result.exitCode).toBe(0)
    expect(result.output).toMatch(/^w\.yml:3:\d+: warning: /)
    expect(result.output).toContain(message)
    expect(result.output).toContain(fix)
    expect(result.output).toContain('0 errors, 1 warning')
  })

  it('fails on warnings with --strict', async () => {
    const name = file('s.yml', 'version: 1\nrules:\n  - { decision: deny, shell: ["rm"] }\n')
    expect((await checkPolicy(name, options)).exitCode).toBe(0)
    expect((await checkPolicy(name, { ...options, strict: true })).exitCode).toBe(1)
  })

  it('finds an allow shadowed by an identical or broader deny', async () => {
    const result = await checkPolicy(
      file(
        'shadow.yml',
        `version: 1
rules:
  - { id: no-git, decision: deny, shell: ["git *"] }
  - { id: git-status, decision: allow, shell: ["git status", "git diff*"] }
  - { id: partly, decision: allow, shell: ["git log", "npm test"] }
  - { id: no-gh, decision: deny, write: [".github/**"] }
  - { id: gh, decision: allow, write: [".github/workflows/**"] }
  - { id: same, decision: allow, write: [".github/**"] }
  - { id: no-mem, decision: deny, memory: true }
  - { id: mem, decision: allow, memory: true }
  - { id: no-ex, decision: deny, url: ["*.example.com"] }
  - { id: ex, decision: allow, url: ["https://api.example.com/v1/**"] }
  - { id: no-gh-mcp, decision: deny, mcp: ["github/*"] }
  - { id: gh-mcp, decision: allow, mcp: ["github/get_*"] }
`
      ),
      options
    )
    const warned = result.output.split('\n').filter((l) => l.includes('never allows anything'))
    expect(warned.map((l) => l.split(':').slice(1, 2)[0])).toEqual([
      '4',
      '5',
      '7',
      '8',
      '10',
      '12',
      '14'
    ])
    expect(result.output).toContain('allow rule "git-status" never allows anything')
    expect(result.output).toContain('pattern "git log" of allow rule "partly" never allows')
    expect(result.output).not.toContain('"npm test" of allow rule')
  })

  it('does not call an allow shadowed by a narrower deny', async () => {
    const result = await checkPolicy(
      file(
        'narrow.yml',
        `version: 1
rules:
  - { id: no-push, decision: deny, shell: ["git push*"] }
  - { id: git, decision: allow, shell: ["git *"] }
  - { id: no-gh, decision: deny, write: [".github/**", ".git/**"] }
  - { id: all, decision: allow, write: ["**"] }
`
      ),
      options
    )
    expect(result.output).toBe('narrow.yml: no problems (4 rules, 0 tests)')
  })

  it('finds shadowing by a preset the policy extends', async () => {
    const result = await checkPolicy(
      file(
        'ext.yml',
        'version: 1\nextends: ci-fix\nrules:\n  - { id: pub, decision: allow, shell: ["npm publish"] }\n'
      ),
      options
    )
    expect(result.output).toContain(
      'allow rule "pub" never allows anything: a deny rule matches everything it matches ' +
        '(deny rule "ci-fix/no-publish" (built-in:ci-fix:'
    )
  })

  it('warns when the policy lets the agent write git hooks or workflows', async () => {
    const result = await checkPolicy(
      file('hooks.yml', 'version: 1\nrules:\n  - { id: all, decision: allow, write: ["**"] }\n'),
      options
    )
    expect(result.output).toContain(
      'hooks.yml:3:5: warning: rule "all" allows writing .git/hooks/pre-commit'
    )
    expect(result.output).toContain('allows writing .github/workflows/copilot.yml')
    expect(result.output).toContain('add a deny rule: { decision: deny, write: [".git/**"] }')
  })

  it('warns about default: allow', async () => {
    const result = await checkPolicy(file('d.yml', 'version: 1\ndefault: allow\n'), options)
    expect(result.output).toContain('d.yml:2:10: warning: default: allow allows every request')
  })

  it('checks the presets clean', async () => {
    for (const name of PRESET_NAMES) {
      const result = await checkPolicy(`built-in:${name}`, { ...options, strict: true })
      expect([name, result.exitCode, result.output]).toEqual([
        name,
        0,
        expect.stringContaining('no problems')
      ])
    }
  })

  it('exits 2 for a missing file or an unknown preset', async () => {
    expect((await checkPolicy('missing.yml', options)).exitCode).toBe(2)
    expect(await checkPolicy('built-in:yolo', options)).toEqual({
      exitCode: 2,
      output: 'unknown preset "yolo": use one of read-only, ci-fix, maintenance'
    })
  })
})

describe('explain', () => {
  let policyFile: string
  beforeAll(() => {
    policyFile = file('example.yml', EXAMPLE_POLICY)
  })

  it('prints the decision, the deciding rule and every matching rule per segment', async () => {
    const result = await explainRequest(
      policyFile,
      { shell: 'npm test && git push origin main' },
      options
    )
    expect(result.exitCode).toBe(1)
    expect(result.output).toBe(
      [
        'policy: example.yml',
        'request: shell npm test && git push origin main',
        'decision: DENY by rule "no-push" (example.yml:4:5)',
        "reason: pushing is the workflow's job",
        `feedback to the agent: Denied by policy rule "no-push": pushing is the workflow's job (in: git push origin main)`,
        'segments:',
        '  allow  npm test',
        '         rule "tests" (example.yml:8:5)',
        '         matched: tests',
        '  deny   git push origin main',
        '         rule "no-push" (example.yml:4:5)',
        "         reason: pushing is the workflow's job",
        '         matched: no-push',
        '  deny   git push origin main',
        '         rule "network"',
        '         reason: git push connects to another repository or host',
        '         matched: (no rule)'
      ].join('\n')
    )
  })

  it.each([
    [{ write: 'src/a.ts' }, 0, 'decision: ALLOW by rule "sources" (example.yml:9:5)'],
    [{ read: 'README.md' }, 0, 'matched: read-all'],
    [{ url: 'https://docs.github.com@evil.com/' }, 1, 'DENY by rule "default"'],
    [{ mcp: 'github/get_issue' }, 0, 'ALLOW by rule "gh-read"'],
    [{ tool: 'my_tool' }, 0, 'ALLOW by rule "my-tool"'],
    [{ memory: true as const }, 1, 'DENY by rule "no-memory"'],
    [{ json: '{"kind":"write","fileName":".github/x.yml"}' }, 1, 'DENY by rule "workflows"'],
    [
      {
        json: '{"requestId":"r1","permissionRequest":{"kind":"shell","fullCommandText":"git status"}}'
      },
      0,
      'ALLOW by rule "tests"'
    ],
    [{ json: '{"kind":"teleport"}' }, 1, 'DENY by rule "unknown-kind"']
  ])('explains %j', async (query, exitCode, text) => {
    const result = await explainRequest(policyFile, query, options)
    expect(result.exitCode).toBe(exitCode)
    expect(result.output).toContain(text)
  })

  it('explains mcp readOnly requests', () => {
    expect(requestFor({ mcp: 'github/get_me', readOnly: true })).toEqual({
      kind: 'mcp',
      serverName: 'github',
      toolName: 'get_me',
      readOnly: true
    })
  })

  it('rejects bad queries with exit code 2', async () => {
    expect((await explainRequest(policyFile, { json: 'nope' }, options)).exitCode).toBe(2)
    expect((await explainRequest(policyFile, { json: '{"x":1}' }, options)).exitCode).toBe(2)
    expect((await explainRequest(policyFile, { mcp: 'noslash' }, options)).exitCode).toBe(2)
  })
})

describe('test', () => {
  it('runs the tests section and reports failures with their line numbers', async () => {
    const name = file(
      'tested.yml',
      `version: 1
rules:
  - { id: no-push, decision: deny, shell: ["git push*"] }
  - { id: npm, decision: allow, shell: ["npm *"] }
tests:
  - { shell: "git push origin main", expect: deny }
  - { shell: "npm test", expect: allow, rule: npm }
  - { shell: "npm test && git push", expect: allow }
  - { write: "src/a.ts", expect: allow }
  - { shell: "git push", expect: deny, rule: npm }
  - { memory: true, expect: deny, rule: default }
`
    )
    const result = await testPolicy(name, options)
    expect(result).toEqual({
      exitCode: 1,
      output: [
        'tested.yml:8:5: test 3 (shell "npm test && git push"): expected allow, got deny by rule "no-push"',
        'tested.yml:9:5: test 4 (write "src/a.ts"): expected allow, got deny by rule "default" (no rule matches; the policy default is deny)',
        'tested.yml:10:5: test 5 (shell "git push"): expected deny by rule "npm", got deny by rule "no-push"',
        'tested.yml: 3 of 6 tests failed'
      ].join('\n')
    })
  })

  it('passes when every test passes, and says when there are none', async () => {
    const ok = file('ok.yml', 'version: 1\ntests:\n  - { url: "https://x.com", expect: deny }\n')
    expect(await testPolicy(ok, options)).toEqual({ exitCode: 0, output: 'ok.yml: 1 test passed' })
    const none = file('none.yml', 'version: 1\n')
    expect((await testPolicy(none, options)).output).toContain('no tests')
  })

  it('returns failures from runPolicyTests with positions', async () => {
    const p = await compilePolicy(
      'version: 1\ntests:\n  - { mcp: "s/t", readOnly: true, expect: allow }\n',
      'm.yml',
      ws.dir
    )
    const [failure] = runPolicyTests(p)
    expect(failure).toMatchObject({
      test: { line: 3, column: 5, label: 'mcp "s/t"', expect: 'allow' },
      actual: { decision: 'deny', rule: 'default' }
    })
  })

  it.each([
    ['version: 1\ntests:\n  - { expect: allow }\n', '3:5: test 1 has no request'],
    [
      'version: 1\ntests:\n  - { shell: ls, read: x, expect: allow }\n',
      '3:18: test 1 has 2 requests'
    ],
    [
      'version: 1\ntests:\n  - { shell: ls, readOnly: true, expect: allow }\n',
      'readOnly in test 1'
    ],
    [
      'version: 1\ntests:\n  - { mcp: nope, expect: allow }\n',
      '"nope" in test 1 is not server/tool'
    ],
    ['version: 1\ntests:\n  - { shell: ls, expect: maybe }\n', '"expect" in test 1 must be'],
    ['version: 1\ntests:\n  - { shell: ls, expcet: allow }\n', 'did you mean "expect"?'],
    [
      'version: 1\ntests:\n  - { shell: [ls], expect: allow }\n',
      `write shell: "<what the agent asks for>"`
    ]
  ])('rejects a bad test: %j', async (text, message) => {
    const result = await testPolicy(file('bad-test.yml', text), options)
    expect(result.exitCode).toBe(2)
    expect(result.output).toContain(message)
  })
})

describe('replay', () => {
  function report(permissions: Array<Partial<Report['permissions'][number]>>): string {
    const full = {
      version: 1,
      status: 'completed',
      policy: { source: 'built-in:read-only', builtIn: true },
      permissions: permissions.map((p, i) => ({
        requestId: `r${i}`,
        toolCallId: null,
        kind: p.request?.kind ?? 'shell',
        subject: 'x',
        decision: 'deny',
        rule: 'default',
        ...p
      }))
    }
    return file('report.json', JSON.stringify(full))
  }

  it('prints what would change, both ways', async () => {
    const name = report([
      { request: { kind: 'shell', fullCommandText: 'git push' }, decision: 'allow', rule: 'old' },
      {
        request: { kind: 'shell', fullCommandText: 'npm test' },
        decision: 'deny',
        rule: 'default'
      },
      { request: { kind: 'shell', fullCommandText: 'git status' }, decision: 'allow', rule: 'x' },
      { request: { kind: 'memory' }, decision: 'deny', rule: 'default' }
    ])
    const result = await replayReport(file('example.yml', EXAMPLE_POLICY), name, options)
    expect(result.exitCode).toBe(1)
    expect(result.output).toContain(
      '  allow → deny  shell  git push\n      was rule "old", now rule "no-push"'
    )
    expect(result.output).toContain(
      '  deny → allow  shell  npm test\n      was rule "default", now rule "tests"'
    )
    expect(result.output).not.toContain('git status')
    expect(result.output).toContain(
      '4 requests replayed against example.yml: 2 would change (1 allow → deny, 1 deny → allow)'
    )
  })

  it('moves absolute paths from the run workspace with --workspace-was', async () => {
    const name = report([
      {
        request: { kind: 'write', fileName: '/home/runner/work/r/r/src/a.ts' },
        decision: 'allow',
        rule: 'sources'
      },
      {
        request: { kind: 'shell', fullCommandText: 'npm test > /home/runner/work/r/r/src/log' },
        decision: 'allow',
        rule: 'tests'
      }
    ])
    const policy = file('example.yml', EXAMPLE_POLICY)
    const without = await replayReport(policy, name, options)
    expect(without.output).toContain('2 would change (2 allow → deny')
    expect(without.output).toContain('pass --workspace-was')
    const moved = await replayReport(policy, name, {
      ...options,
      workspaceWas: '/home/runner/work/r/r'
    })
    expect(moved).toEqual({
      exitCode: 0,
      output: '2 requests replayed against example.yml: no decision changes'
    })
  })

  it('exits 2 for a file that is not a report', async () => {
    const result = await replayReport(
      file('example.yml', EXAMPLE_POLICY),
      file('not-report.json', '{"permissions": [{"decision": "maybe"}]}'),
      options
    )
    expect(result.exitCode).toBe(2)
    expect(result.output).toContain('not-report.json is not a run report: permissions.0')
  })
})

describe('command line', () => {
  it('runs each command from argv', async () => {
    const policy = file('cli.yml', EXAMPLE_POLICY)
    const explain = await runPolicyTool(
      ['explain', policy, '--shell', 'git status', '--working-directory', ws.dir],
      '/'
    )
    expect(explain.exitCode).toBe(0)
    expect(explain.output).toContain('ALLOW by rule "tests"')
    expect((await runPolicyTool(['check', policy], ws.dir)).exitCode).toBe(0)
    expect((await runPolicyTool(['test', policy], ws.dir)).output).toContain('no tests')
    const mcp = await runPolicyTool(
      ['explain', 'built-in:read-only', '--mcp', 's/t', '--read-only'],
      ws.dir
    )
    expect(mcp.output).toContain('ALLOW by rule "mcp-read"')
  })

  it.each([
    [[], 2],
    [['--help'], 0],
    [['frobnicate', 'x.yml'], 2],
    [['check'], 2],
    [['explain', 'x.yml'], 2],
    [['explain', 'x.yml', '--shell', 'a', '--url', 'b'], 2],
    [['explain', 'x.yml', '--nope'], 2],
    [['replay', 'x.yml'], 2]
  ])('%j exits %i with usage', async (argv, exitCode) => {
    const result = await runPolicyTool(argv, ws.dir)
    expect(result.exitCode).toBe(exitCode)
    expect(result.output).toContain('Usage:')
  })
})
