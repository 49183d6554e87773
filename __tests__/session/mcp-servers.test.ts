/**
 * The `mcp-servers` input: the CLI's format inline or from a file, checked before the CLI starts,
 * errors with line and column, env and header values collected as secrets and never echoed.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { userError } from '../../test-support/errors.js'
import { parseJson } from '../../src/session/json.js'
import {
  describeMcpServers,
  parseMcpServers,
  readMcpServers
} from '../../src/session/mcp-servers.js'

const SOURCE = "input 'mcp-servers'"
const parse = (text: string) => parseMcpServers(text, SOURCE)
const error = userError

describe('parseMcpServers', () => {
  it('takes the CLI format, fills the defaults, and collects env and header values as secrets', () => {
    const result = parse(
      JSON.stringify({
        github: {
          type: 'http',
          url: 'https://api.example.com/mcp/',
          headers: { Authorization: 'Bearer ghp_abcdefghijkl' }
        },
        fixture: { command: 'node', args: ['server.js'], env: { TOKEN: 'tok-123456789', N: '1' } }
      })
    )
    expect(result.servers).toEqual({
      github: {
        type: 'http',
        url: 'https://api.example.com/mcp/',
        headers: { Authorization: 'Bearer ghp_abcdefghijkl' },
        tools: ['*']
      },
      fixture: {
        type: 'local',
        command: 'node',
        args: ['server.js'],
        env: { TOKEN: 'tok-123456789', N: '1' },
        tools: ['*']
      }
    })
    expect(result.secrets.sort()).toEqual(['Bearer ghp_abcdefghijkl', 'tok-123456789'])
  })

  it('accepts the wrapped form {"mcpServers": {...}}', () => {
    const result = parse('{"mcpServers": {"a": {"type": "stdio", "command": "x", "tools": ["t"]}}}')
    expect(result.servers).toEqual({ a: { type: 'stdio', command: 'x', args: [], tools: ['t'] } })
  })

  it.each<[string, string, RegExp]>([
    [
      'a syntax error',
      '{\n  "a": {\n    "command": "x",\n  }\n}',
      /line 4, column 3: expected a string/
    ],
    [
      'a missing comma',
      '{"a": {"command": "x" "args": []}}',
      /line 1, column 23: expected "," or "}"/
    ],
    ['text that ends early', '{"a": {"command": "x"', /line 1, column 22: expected "," or "}"/],
    [
      'a repeated key',
      '{"a": {"command": "x", "command": "y"}}',
      /column 24: expected a key used once/
    ],
    [
      'an unknown field',
      '{\n  "a": {\n    "comand": "x"\n  }\n}',
      /line 3, column 5\): unknown field "comand"; a server of this type has the fields type, command, args/
    ],
    ['a missing command', '{"a": {"args": []}}', /column 2\): the field "command" is missing/],
    [
      'a wrong type',
      '{"a": {"type": "ftp", "command": "x"}}',
      /"type" must be "local" or "stdio" .* or "http" or "sse"/
    ],
    ['a bad URL', '{"a": {"type": "http", "url": "file:///etc"}}', /"url"/],
    ['an array', '[]', /expected an object of servers/],
    ['no servers', '{}', /no server is configured/],
    ['a bad name', '{"a/b": {"command": "x"}}', /server name "a\/b" may hold only letters/],
    [
      'a number as env value',
      '{"a": {"command": "x", "env": {"K": 1}}}',
      /line 1, column 32\): "env.K"/
    ]
  ])('rejects %s, naming the input, line and column', (_, text, message) => {
    const m = error(() => parse(text))
    expect(m).toContain(SOURCE)
    expect(m).toMatch(message)
  })

  it('never echoes the text around an error: a secret before it stays out of the message', () => {
    const m = error(() => parse('{"a": {"command": "x", "env": {"T": "sk-live-0123456789"}} oops'))
    expect(m).toMatch(/line 1, column 60: expected "," or "}"/)
    expect(m).not.toContain('sk-live')
  })

  it('describes servers for the log without arguments, env, headers or URL paths', () => {
    const { servers } = parse(
      JSON.stringify({
        a: { command: 'node', args: ['--token=sk-123456789'], env: { T: 'sk-123456789' } },
        b: { type: 'sse', url: 'https://h.example/mcp?key=sk-123456789' }
      })
    )
    const lines = describeMcpServers(servers).join('\n')
    expect(lines).toContain('a (local): node (1 arguments)')
    expect(lines).toContain('b (sse): https://h.example/mcp?key=***')
    expect(lines).not.toContain('sk-123456789')
  })

  it('takes the credentials in a server URL as secrets', () => {
    const { secrets } = parse(
      JSON.stringify({
        remote: { type: 'http', url: 'https://mcp.example.com/t0k-Qx7ZpLm2/mcp?t=TOKEN_8f3a9c2e' }
      })
    )
    expect(secrets).toEqual(expect.arrayContaining(['t0k-Qx7ZpLm2', 'TOKEN_8f3a9c2e']))
    expect(secrets).not.toContain('mcp')
  })
})

describe('readMcpServers', () => {
  let base: string
  let tree: string
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-input-')))
    tree = path.join(base, 'ws')
    fs.mkdirSync(tree)
  })
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

  it('is undefined when the input is empty, and reads inline JSON', () => {
    expect(readMcpServers('', base, tree, false)).toBeUndefined()
    expect(readMcpServers('{"a": {"command": "x"}}', base, tree, false)?.source).toBe(SOURCE)
  })

  it('reads a file outside the checked-out tree, naming it in errors', () => {
    fs.writeFileSync(path.join(base, 'mcp.json'), '{"a": {"command": "x", "bad": 1}}')
    const m = error(() => readMcpServers('mcp.json', base, tree, false))
    expect(m).toContain(`${path.join(base, 'mcp.json')} (line 1, column 24)`)
    fs.writeFileSync(path.join(base, 'mcp.json'), '{"a": {"command": "x"}}')
    expect(readMcpServers('mcp.json', base, tree, false)?.servers.a).toBeDefined()
  })

  it('refuses a file in the checked-out tree unless trusted-config says the tree is trusted', () => {
    fs.writeFileSync(path.join(tree, 'mcp.json'), '{"a": {"command": "x"}}')
    expect(error(() => readMcpServers('ws/mcp.json', base, tree, false))).toMatch(
      /in the checked-out tree: on a pull request that file is the author's.*trusted-config: true/
    )
    expect(readMcpServers('ws/mcp.json', base, tree, true)?.servers.a).toBeDefined()
    // a symlink out of the tree into it is the tree's file
    fs.symlinkSync(path.join(tree, 'mcp.json'), path.join(base, 'link.json'))
    expect(error(() => readMcpServers('link.json', base, tree, false))).toMatch(/checked-out tree/)
  })

  it('names a path that is not a file', () => {
    expect(error(() => readMcpServers('missing.json', base, tree, false))).toMatch(
      /names '.*missing\.json', which is not a file/
    )
  })
})

describe('parseJson', () => {
  it('parses what JSON.parse parses', () => {
    for (const text of ['{"a":[1,-2.5e3,true,false,null,"x\\u0041\\n"]}', '[]', '"s"', ' 0 ']) {
      expect(parseJson(text).value).toEqual(JSON.parse(text))
    }
  })

  it('keeps __proto__ as data', () => {
    const { value } = parseJson('{"__proto__": {"polluted": 1}}')
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.keys(value as object)).toEqual(['__proto__'])
  })

  it('locates keys and array items, falling back to the nearest parent', () => {
    const json = parseJson('{\n "a": [\n  1,\n  {"b": 2}\n ]\n}')
    expect(json.locate(['a'])).toEqual({ line: 2, column: 2 })
    expect(json.locate(['a', 1, 'b'])).toEqual({ line: 4, column: 4 })
    expect(json.locate(['a', 1, 'zzz'])).toEqual({ line: 4, column: 3 })
  })
})
