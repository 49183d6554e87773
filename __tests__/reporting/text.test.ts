import fc from 'fast-check'
import {
  clip,
  codeBlock,
  codeSpan,
  inlineText,
  neutralizeMarkdown,
  normalizeSecrets,
  redact,
  redactDeep,
  tableCell,
  truncate
} from '../../src/reporting/text.js'

const ZWSP = '\u200B'
const ZWJ = '\u200D'

describe('redact', () => {
  it('replaces every occurrence, longest secret first', () => {
    expect(redact('token abcd1234 and abcd', ['abcd', 'abcd1234'])).toBe('token *** and ***')
    expect(redact('a secret-value b secret-value', ['secret-value'])).toBe('a *** b ***')
  })

  it('ignores secrets shorter than 4 characters and empty lists', () => {
    expect(redact('the cat sat', ['the', 'at', ''])).toBe('the cat sat')
    expect(redact('text', [])).toBe('text')
  })

  it('redacts multi-line secrets whole and line by line', () => {
    const key = '-----BEGIN KEY-----\nAAAABBBBCCCC\n-----END KEY-----'
    expect(redact(`k=${key}`, [key])).toBe('k=***')
    expect(redact('leaked AAAABBBBCCCC here', [key])).toBe('leaked *** here')
    expect(normalizeSecrets([key, 'abc'])).toEqual([
      key,
      '-----BEGIN KEY-----',
      '-----END KEY-----',
      'AAAABBBBCCCC'
    ])
  })
})

describe('redactDeep', () => {
  it('redacts strings and keys at any depth, keeps other values', () => {
    const value = {
      a: 'x hunter22 y',
      n: 1,
      b: true,
      z: null,
      list: ['hunter22', { hunter22: 'ok' }],
      f: () => 1
    }
    expect(redactDeep(value, ['hunter22'])).toEqual({
      a: 'x *** y',
      n: 1,
      b: true,
      z: null,
      list: ['***', { '***': 'ok' }]
    })
    expect(value.a).toBe('x hunter22 y') // not mutated
  })

  it('clips long strings and arrays, cuts deep nesting and cycles', () => {
    const cyclic: Record<string, unknown> = { name: 'c' }
    cyclic.self = cyclic
    const out = redactDeep(
      { s: 'x'.repeat(500), list: [1, 2, 3, 4, 5], deep: { a: { b: { c: 1 } } }, cyclic },
      [],
      { maxString: 100, maxArray: 2, maxDepth: 3 }
    )
    expect(out.s.length).toBeLessThanOrEqual(100)
    expect(out.list).toEqual([1, 2, '[3 more items]'])
    expect(out.deep).toEqual({ a: { b: '[nested too deep]' } })
    expect(out.cyclic).toEqual({ name: 'c', self: '[circular]' })
  })
})

describe('neutralizeMarkdown', () => {
  it('stops @mentions and @org/team mentions from pinging, leaves e-mail addresses', () => {
    expect(neutralizeMarkdown('thanks @octocat and @github/security-team')).toBe(
      `thanks @${ZWJ}octocat and @${ZWJ}github/security-team`
    )
    expect(neutralizeMarkdown('@start, (@paren), mail me@example.com')).toBe(
      `@${ZWJ}start, (@${ZWJ}paren), mail me@example.com`
    )
  })

  it('keeps issue references readable but not linking', () => {
    expect(neutralizeMarkdown('fixes #12, octo/repo#34 and GH-56')).toBe(
      `fixes #${ZWSP}12, octo/repo#${ZWSP}34 and GH-${ZWSP}56`
    )
    const url = neutralizeMarkdown(
      'see https://github.com/octo/repo/issues/7 and www.github.com/o/r/pull/8'
    )
    expect(url).not.toMatch(/https:\/\/github\.com/)
    expect(url).not.toMatch(/www\.github\.com/)
    expect(url.replaceAll(ZWSP, '')).toBe(
      'see https://github.com/octo/repo/issues/7 and www.github.com/o/r/pull/8'
    )
    // Links that reference no issue are left alone.
    expect(neutralizeMarkdown('https://github.com/octo/repo/blob/main/a.ts')).toBe(
      'https://github.com/octo/repo/blob/main/a.ts'
    )
  })

  it('removes HTML comments entirely, terminated or not', () => {
    expect(neutralizeMarkdown('a <!-- copilot-autopilot --> b')).toBe('a  b')
    expect(neutralizeMarkdown('a <!-- multi\nline --!> b <!-- open to the end')).toBe('a  b ')
    expect(neutralizeMarkdown('<!<!---->-- x -->')).not.toContain('<!--')
  })

  it('escapes raw HTML so nothing breaks out', () => {
    expect(neutralizeMarkdown('</details><img src=x onerror=alert(1)>')).toBe(
      '&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;'
    )
  })

  it('drops control characters and bidi overrides', () => {
    expect(neutralizeMarkdown('a\u0000b\u202Ec\u2066d\r\ne')).toBe('abcd\ne')
  })

  it('never lets a comment opener, a tag or a live mention through (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('<', '!', '-', '>', '@', 'a', '#', '1', ' ', '\n', '`')
        }),
        (s) => {
          const out = neutralizeMarkdown(s)
          expect(out).not.toContain('<')
          expect(out).not.toContain('>')
          expect(out).not.toMatch(/(^|[^A-Za-z0-9])@[A-Za-z0-9]/)
          expect(out).not.toMatch(/#\d/)
        }
      )
    )
  })
})

describe('codeBlock and codeSpan', () => {
  it('picks a fence longer than any backtick run', () => {
    expect(codeBlock('plain')).toBe('```\nplain\n```')
    expect(codeBlock('a ``` b\n````\nc', 'text')).toBe('`````text\na ``` b\n````\nc\n`````')
    expect(codeSpan('a`b')).toBe('``a`b``')
    expect(codeSpan('`edge`')).toBe('`` `edge` ``')
    expect(codeSpan('')).toBe('` `')
  })

  it('no line inside can close the block (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('`', '~', 'x', '\n', ' ') }), (s) => {
        const block = codeBlock(s)
        const lines = block.split('\n')
        const fence = lines[0] as string
        const inner = lines.slice(1, -1)
        expect(lines.at(-1)).toBe(fence)
        for (const line of inner) expect(line.trim().startsWith(fence)).toBe(false)
      })
    )
  })

  it('breaks <!-- openers without changing what shows, and sanitizes the info string', () => {
    expect(codeBlock('<!-- marker -->')).toBe(`\`\`\`\n<${ZWSP}!-- marker -->\n\`\`\``)
    expect(codeSpan('<!-- marker -->')).toBe(`\`<${ZWSP}!-- marker -->\``)
    expect(codeBlock('x', 'js\n<b>')).toBe('```jsb\nx\n```')
  })

  it('keeps code spans on one line; table cells escape pipes', () => {
    expect(codeSpan('a\n  b | c')).toBe('`a b | c`')
    expect(tableCell(codeSpan('a | b'))).toBe('`a \\| b`')
    expect(inlineText('one\ntwo @me', 100)).toBe(`one two @${ZWJ}me`)
    expect(inlineText('```js `x`', 100)).toBe('\\`\\`\\`js \\`x\\`')
  })
})

describe('truncate and clip', () => {
  it('leaves short text alone', () => {
    expect(truncate('short', 10)).toBe('short')
  })

  it('cuts at a line boundary and says how much was cut', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n')
    const out = truncate(text, 200)
    expect(out.length).toBeLessThanOrEqual(200)
    expect(out).toMatch(/^line 0\nline 1\n/)
    expect(out).toMatch(/\nline \d+\n… [\d,]+ characters \(\d+ lines\) cut$/)
  })

  it('keeps the tail for output', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n')
    const out = truncate(text, 200, { keep: 'tail' })
    expect(out.length).toBeLessThanOrEqual(200)
    expect(out).toMatch(/^… [\d,]+ characters \(\d+ lines\) cut\nline \d+\n/)
    expect(out.endsWith('line 99')).toBe(true)
  })

  it('never exceeds max nor splits a surrogate pair (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', '\n', '😀', 'é') }),
        fc.integer({ min: 0, max: 300 }),
        fc.boolean(),
        (s, max, tail) => {
          const out = truncate(s, max, { keep: tail ? 'tail' : 'head' })
          expect(out.length).toBeLessThanOrEqual(Math.max(max, 0))
          expect(out).not.toMatch(
            /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/
          )
          expect(clip(s, max).length).toBeLessThanOrEqual(max)
        }
      )
    )
  })
})
