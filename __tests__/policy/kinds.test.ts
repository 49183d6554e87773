import type { CompiledPolicy } from '../../src/policy/index.js'
import { feedbackFor } from '../../src/policy/index.js'
import { compileUrlPattern, parseRequestUrl, urlPatternMatches } from '../../src/policy/url.js'
import { compile, EXAMPLE_POLICY, mcp, tempWorkspace, tool, url } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy

beforeAll(async () => {
  ws = tempWorkspace()
  policy = await compile(EXAMPLE_POLICY, ws.dir)
})
afterAll(() => ws.cleanup())

describe('url rules', () => {
  it.each([
    ['https://docs.github.com/en/actions', 'allow'],
    ['http://docs.github.com/', 'allow'],
    ['https://DOCS.GITHUB.COM/en', 'allow'],
    ['https://docs.github.com:443/en', 'allow'],
    ['https://docs.github.com./en', 'allow'],
    ['https://docs.github.com:8443/en', 'deny'],
    ['ftp://docs.github.com/', 'deny'],
    ['https://docs.github.com@evil.com/', 'deny'],
    ['https://user:pass@docs.github.com/x', 'allow'],
    ['https://docs.github.com.evil.com/', 'deny'],
    ['https://evil.com/docs.github.com', 'deny'],
    ['https://evil.com/?u=https://docs.github.com', 'deny'],
    ['https://evildocs.github.com/', 'deny'],
    ['https://github.com/', 'deny'],
    ['https://www.npmjs.com/package/yaml', 'allow'],
    ['https://registry.npmjs.com/yaml', 'allow'],
    ['https://npmjs.com/', 'deny'],
    ['http://www.npmjs.com/package/yaml', 'deny'],
    ['https://www.npmjs.com.evil.com/', 'deny'],
    ['https://evil.com#.npmjs.com', 'deny'],
    ['https://evil.com\\.npmjs.com/', 'deny'],
    ['not a url', 'deny'],
    ['https://', 'deny'],
    ['javascript:alert(1)', 'deny'],
    ['file:///etc/passwd', 'deny']
  ])('%s → %s', (u, expected) => {
    expect(policy.decide(url(u)).decision).toBe(expected)
  })

  it('denies an unparsable URL with the unparsable rule', () => {
    expect(policy.decide(url('http://exa mple.com/'))).toMatchObject({
      decision: 'deny',
      rule: 'unparsable'
    })
    expect(policy.decide({ kind: 'url' })).toMatchObject({ rule: 'invalid-request' })
  })

  it('matches scheme, host and path globs', () => {
    const p = compileUrlPattern('https://api.example.com/v1/*/items/**')
    const m = (u: string) => {
      const parsed = parseRequestUrl(u)
      return parsed !== undefined && urlPatternMatches(p, parsed)
    }
    expect(m('https://api.example.com/v1/a/items/b/c')).toBe(true)
    expect(m('https://api.example.com/v1/a/b/items/c')).toBe(false)
    expect(m('https://api.example.com/v2/a/items/b')).toBe(false)
    expect(m('https://api.example.com/v1/a/../../v2/x/items/y')).toBe(false)
    expect(m('https://api.example.com/v1/a/%2e%2e/%2e%2e/v2/x/items/y')).toBe(false)
    expect(m('http://api.example.com/v1/a/items/b')).toBe(false)
    expect(m('https://api.example.com:444/v1/a/items/b')).toBe(false)
  })

  it('handles ports, IP addresses and IDN hosts', () => {
    const parse = (u: string) => parseRequestUrl(u) ?? fail(u)
    expect(
      urlPatternMatches(compileUrlPattern('localhost:8080'), parse('http://localhost:8080/x'))
    ).toBe(true)
    expect(
      urlPatternMatches(compileUrlPattern('localhost:8080'), parse('http://localhost/x'))
    ).toBe(false)
    expect(urlPatternMatches(compileUrlPattern('127.0.0.1'), parse('http://0x7f.0.0.1/'))).toBe(
      true
    )
    expect(
      urlPatternMatches(
        compileUrlPattern('bücher.example'),
        parse('https://xn--bcher-kva.example/')
      )
    ).toBe(true)
  })

  it('rejects patterns that cannot mean what they say', () => {
    expect(() => compileUrlPattern('docs.github.com/path')).toThrow(/no scheme/)
    expect(() => compileUrlPattern('https://user@docs.github.com/')).toThrow(/userinfo/)
    expect(() => compileUrlPattern('https://x.com/?q=1')).toThrow(/query/)
    expect(() => compileUrlPattern('a b')).toThrow(/not a host pattern/)
  })
})

function fail(message: string): never {
  throw new Error(message)
}

describe('mcp, memory, custom tools and unknown kinds', () => {
  it('matches server/tool', () => {
    expect(policy.decide(mcp('github', 'get_issue'))).toMatchObject({
      decision: 'allow',
      rule: 'gh-read',
      subject: 'github/get_issue',
      kind: 'mcp'
    })
    expect(policy.decide(mcp('github', 'list_prs')).decision).toBe('allow')
    expect(policy.decide(mcp('github', 'create_issue'))).toMatchObject({
      decision: 'deny',
      rule: 'default'
    })
    expect(policy.decide(mcp('github-evil', 'get_issue')).decision).toBe('deny')
    expect(policy.decide(mcp('other', 'github/get_x')).decision).toBe('deny')
    expect(policy.decide({ kind: 'mcp', toolName: 'get_x' })).toMatchObject({
      rule: 'invalid-request'
    })
  })

  it("reads the CLI's SERVER-TOOL as SERVER/TOOL; a deny or ask rule matches either spelling", async () => {
    // CLI 1.0.102: {kind: "mcp", serverName: "github", toolName: "github-get_issue"}
    expect(policy.decide(mcp('github', 'github-get_issue'))).toMatchObject({
      decision: 'allow',
      rule: 'gh-read',
      subject: 'github/get_issue'
    })
    expect(policy.decide(mcp('github', 'github-create_issue')).decision).toBe('deny')
    // the prefix is the server's own: another server's name is not stripped
    expect(policy.decide(mcp('other', 'github-get_issue')).decision).toBe('deny')
    const p = await compile(
      `version: 1\ndefault: allow\nrules:\n` +
        `  - { id: no-delete, decision: deny, mcp: ["fs/delete*", "fs/fs-write*"] }\n`,
      ws.dir
    )
    expect(p.decide(mcp('fs', 'fs-delete_file'))).toMatchObject({
      decision: 'deny',
      rule: 'no-delete'
    })
    expect(p.decide(mcp('fs', 'fs-write_file'))).toMatchObject({
      decision: 'deny',
      rule: 'no-delete'
    })
    expect(p.decide(mcp('fs', 'fs-read_file')).decision).toBe('allow')
    // an allow rule matches only what users write: fs-fs-x is the tool fs-x, not x
    const q = await compile(`version: 1\nrules:\n  - { decision: allow, mcp: ["fs/x"] }\n`, ws.dir)
    expect(q.decide(mcp('fs', 'fs-fs-x')).decision).toBe('deny')
    expect(q.decide(mcp('fs', 'fs-x')).decision).toBe('allow')
  })

  it('keeps * inside the server or the tool part', async () => {
    const p = await compile(
      `version: 1\nrules:\n  - { decision: allow, mcp: ["git*/get_*"] }\n`,
      ws.dir
    )
    expect(p.decide(mcp('github', 'get_me')).decision).toBe('allow')
    expect(p.decide(mcp('github', 'x/get_me')).decision).toBe('deny')
  })

  it('matches any memory request with memory: true', () => {
    expect(policy.decide({ kind: 'memory' })).toMatchObject({
      decision: 'deny',
      rule: 'no-memory',
      subject: 'memory'
    })
  })

  it('matches custom tools by name', () => {
    expect(policy.decide(tool('my_tool'))).toMatchObject({
      decision: 'allow',
      rule: 'my-tool',
      kind: 'custom-tool',
      subject: 'my_tool'
    })
    expect(policy.decide(tool('other_tool')).decision).toBe('deny')
    expect(policy.decide({ kind: 'custom-tool' }).rule).toBe('invalid-request')
  })

  it('denies unknown kinds, even with default: allow', async () => {
    const p = await compile(`version: 1\ndefault: allow\n`, ws.dir)
    const d = p.decide({ kind: 'teleport' })
    expect(d).toMatchObject({ decision: 'deny', rule: 'unknown-kind', kind: 'teleport' })
    expect(feedbackFor(d)).toContain('unknown-kind')
    expect(policy.decide({ kind: 'custom_tool' }).rule).toBe('unknown-kind')
    expect(policy.decide({ kind: 'Shell', fullCommandText: 'ls' }).rule).toBe('unknown-kind')
  })

  it('lists matching rules for non-shell decisions', async () => {
    const p = await compile(
      `version: 1
rules:
  - { id: a, decision: allow, tool: ["x*"] }
  - { id: b, decision: deny, tool: ["xy"] }
`,
      ws.dir
    )
    expect(p.decide(tool('xy'))).toMatchObject({ decision: 'deny', rule: 'b', matched: ['a', 'b'] })
  })
})

describe('feedbackFor', () => {
  it('names the rule and the reason', () => {
    expect(
      feedbackFor({
        decision: 'deny',
        rule: 'no-push',
        reason: "pushing is the workflow's job",
        kind: 'shell',
        subject: 'git push'
      })
    ).toBe(`Denied by policy rule "no-push": pushing is the workflow's job`)
  })

  it('works without a reason', () => {
    expect(feedbackFor({ decision: 'deny', rule: 'x', kind: 'write', subject: 'a' })).toBe(
      'Denied by policy rule "x": the policy does not allow this'
    )
  })
})
