import fc from 'fast-check'
import {
  clip,
  codeBlock,
  codeSpan,
  formatDuration,
  formatMinutes,
  inlineMarkdown,
  inlineText,
  neutralizeMarkdown,
  neutralizeProse,
  normalizeSecrets,
  redact,
  redactDeep,
  tableCell,
  tailLines,
  truncate
} from '../../src/text/safe-text.js'

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
    const normalized = normalizeSecrets([key, 'abc'])
    for (const form of [key, '-----BEGIN KEY-----', '-----END KEY-----', 'AAAABBBBCCCC']) {
      expect(normalized).toContain(form)
    }
    expect(normalized).not.toContain('abc')
    expect(normalized.map((s) => s.length)).toEqual(
      [...normalized].map((s) => s.length).sort((a, b) => b - a)
    )
  })
})

describe('redact: encoded forms of a secret', () => {
  const secret = 'sk-Qx7/Zp+9_wL~m?é 42'
  const b64 = (b: Buffer): string => b.toString('base64')
  const b64url = (b: Buffer): string => b.toString('base64url')

  it('finds the secret inside a longer base64 blob at each of the 3 byte offsets', () => {
    for (const encode of [b64, b64url]) {
      for (let before = 0; before < 6; before++) {
        for (let after = 0; after < 4; after++) {
          const blob = encode(
            Buffer.concat([
              Buffer.from('user:'.repeat(3).slice(0, before)),
              Buffer.from(secret),
              Buffer.from('!?#'.slice(0, after))
            ])
          )
          const out = redact(`Authorization: Basic ${blob}`, [secret])
          expect(out).toContain('***')
          // What is left of the blob holds at most the bits the secret shares with its neighbours:
          // never more than 2 characters on either side of the redaction.
          const [left = '', right = ''] = out.slice('Authorization: Basic '.length).split('***')
          expect(left.length).toBeLessThanOrEqual(Math.ceil((before * 4) / 3))
          expect(right.replace(/=+$/, '').length).toBeLessThanOrEqual(
            Math.ceil((after * 4) / 3) + 1
          )
        }
      }
    }
  })

  it('redacts the whole base64 of the secret, standard and URL-safe', () => {
    for (const text of [b64(Buffer.from(secret)), b64url(Buffer.from(secret))]) {
      const out = redact(`x ${text} y`, [secret])
      expect(out).not.toContain(text)
      expect(out).toMatch(/^x \*\*\*\S{0,3} y$/)
    }
    // docker's config.json: base64 of `user:secret`
    const auth = b64(Buffer.from(`octocat:${secret}`))
    expect(redact(`{"auth":"${auth}"}`, [secret])).not.toContain(auth.slice(12, 30))
  })

  it('redacts the percent-encoded forms: component, URI, lower-case hex, + for a space', () => {
    const component = encodeURIComponent(secret)
    for (const form of [
      component,
      encodeURI(secret),
      component.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      component.replace(/%20/g, '+')
    ]) {
      expect(redact(`https://h/x?key=${form}&a=1`, [secret])).toBe('https://h/x?key=***&a=1')
    }
  })

  it('leaves text alone that only shares a few characters with an encoded form', () => {
    expect(redact('aGVsbG8 Zm9v', ['abcd'])).toBe('aGVsbG8 Zm9v')
    expect(redact('the cat sat on the mat', ['hunter22'])).toBe('the cat sat on the mat')
  })

  it('redacts encoded forms in redactDeep too', () => {
    const encoded = b64(Buffer.from(`x${secret}`))
    const out = redactDeep({ headers: { a: `Basic ${encoded}` } }, [secret])
    expect(JSON.stringify(out)).not.toContain(encoded.slice(2, 20))
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

  it('never lets a comment opener, a tag or a live mention through outside code (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('<', '!', '-', '>', '@', 'a', '#', '1', ' ', '\n', '`', '\\', '|')
        }),
        (s) => {
          const out = neutralizeMarkdown(s)
          expect(out).not.toContain('<!--')
          const text = prose(out)
          expect(text).not.toContain('<')
          expect(text).not.toContain('>')
          expect(text).not.toMatch(/(^|[^A-Za-z0-9])@[A-Za-z0-9]/)
          expect(text).not.toMatch(/#\d/)
        }
      ),
      { numRuns: 2000 }
    )
  })

  it('never lets a link, an image or a link definition through (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('[', ']', '(', ')', ':', 'a', '`', '\\', ' ', '!') }),
        (s) => {
          // An unescaped `](` or `]:` outside code could start a link that takes a backtick in.
          expect(prose(neutralizeMarkdown(s))).not.toMatch(/(?<!\\)(?:\\\\)*\][(:]/)
        }
      )
    )
  })
})

/**
 * The text GitHub would render as prose: what is left after taking out fenced code blocks and
 * code spans the way CommonMark finds them (fences by line; in each paragraph, a run of N
 * unescaped backticks pairs with the next run of exactly N, across lines).
 */
function prose(markdown: string): string {
  const kept: string[] = []
  let fence: string | null = null
  let paragraph: string[] = []
  const flush = (): void => {
    kept.push(stripSpans(paragraph.join('\n')))
    paragraph = []
  }
  for (const line of markdown.split('\n')) {
    if (fence !== null) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1]
      if (close !== undefined && close[0] === fence[0] && close.length >= fence.length) fence = null
      continue
    }
    const open = /^ {0,3}(`{3,}|~{3,})([^`]*)$/.exec(line)
    if (open) {
      flush()
      fence = open[1] as string
      continue
    }
    if (line.trim() === '') flush()
    else paragraph.push(line)
  }
  flush()
  return kept.join('\n')
}

function stripSpans(text: string): string {
  let out = ''
  let i = 0
  while (i < text.length) {
    if (text[i] === '\\' && i + 1 < text.length) {
      out += text.slice(i, i + 2)
      i += 2
      continue
    }
    if (text[i] !== '`') {
      out += text[i]
      i++
      continue
    }
    let n = 0
    while (text[i + n] === '`') n++
    let close = -1
    for (let j = i + n; j < text.length;) {
      if (text[j] !== '`') {
        j++
        continue
      }
      let m = 0
      while (text[j + m] === '`') m++
      if (m === n) {
        close = j
        break
      }
      j += m
    }
    if (close < 0) {
      out += '`'.repeat(n)
      i += n
    } else {
      out += ' ' // a code span separates the text either side (no mention across it)
      i = close + n
    }
  }
  return out
}

describe('neutralizeMarkdown keeps code literal', () => {
  it('leaves code spans as they are: no entities, no zero-width characters', () => {
    const out = neutralizeMarkdown('Now `a < b && c > d` and `@user #12` hold; ping @user')
    expect(out).toContain('`a < b && c > d`')
    expect(out).toContain('`@user #12`')
    expect(out).toContain(`ping @${ZWJ}user`)
    const code = [...out.matchAll(/`[^`]+`/g)].map((m) => m[0]).join('')
    expect(code).not.toMatch(/[\u200B\u200D]|&lt;|&gt;|&amp;/)
  })

  it('leaves fenced code as it is, and closes a fence left open', () => {
    const out = neutralizeMarkdown('Run:\n```sh\nif [ a < b ]; then echo @me; fi\n')
    expect(out).toBe('Run:\n```sh\nif [ a < b ]; then echo @me; fi\n```')
    // What follows the quoted text is outside the fence again.
    expect(prose(`${out}\n\n</details>`)).toContain('</details>')
  })

  it('rewrites fences at column 0, longer than any backtick run inside', () => {
    const out = neutralizeMarkdown('- item\n  ~~~js\n  x = `a`\n  ````\n  ~~~\nafter <b>')
    expect(out).toBe('- item\n`````js\nx = `a`\n````\n`````\nafter &lt;b&gt;')
  })

  it('still strips control characters and breaks comment openers inside code', () => {
    const out = neutralizeMarkdown('`<!-- m -->\u202E` and\n```\n<!-- m -->\u0007\n```')
    expect(out).not.toContain('<!--')
    expect(out).not.toContain('\u202E')
    expect(out).not.toContain('\u0007')
    expect(out).toContain(`\`<${ZWSP}!-- m -->\``)
  })

  it('escapes a backtick that opens no code span, so it cannot pair with a later one', () => {
    expect(neutralizeMarkdown('a ` b <i>')).toBe('a \\` b &lt;i&gt;')
    expect(neutralizeMarkdown('``a` <i>')).toBe('\\`\\`a\\` &lt;i&gt;')
    // Escaped already: stays escaped, no second escape that would free it.
    expect(neutralizeMarkdown('\\`x` <i>')).toBe('\\`x\\` &lt;i&gt;')
  })

  it('does not take as code what GitHub would not: a link, a URL, a table cell', () => {
    // A link title would swallow the first backtick: no link, and no code span across it.
    const link = neutralizeMarkdown('[a](/u "`") <img src=x> `x`')
    expect(prose(link)).not.toContain('<img')
    expect(link).toContain('[a\\](/u')
    // An autolink runs up to the next space or `<`, over the backtick.
    expect(prose(neutralizeMarkdown('www.example.com/`<b>` x`'))).not.toContain('<b>')
    expect(prose(neutralizeMarkdown('https://x.io/`<b>` x`'))).not.toContain('<b>')
    // A table splits cells at `|` before it sees code spans.
    expect(prose(neutralizeMarkdown('| `a | <b>` |'))).not.toContain('<b>')
  })

  it('escapes </details> and other tags in prose', () => {
    expect(neutralizeMarkdown('done </details> <img src=x>')).toBe(
      'done &lt;/details&gt; &lt;img src=x&gt;'
    )
  })

  it('shows an escaped < as < (no stray backslash before an entity)', () => {
    expect(neutralizeMarkdown('a \\< b')).toBe('a &lt; b')
    expect(neutralizeMarkdown('a \\\\< b')).toBe('a \\\\&lt; b')
    expect(neutralizeProse('a \\< b')).toBe('a \\&lt; b')
  })

  it('removes comments across lines and code spans, and never joins a mention', () => {
    expect(neutralizeMarkdown('@<!-- `x` -->user')).toBe(`@${ZWJ}user`)
    expect(neutralizeMarkdown('a <!-- `x`\n-->b `<!--` c')).toBe(`a b \`<${ZWSP}!--\` c`)
    // What is left before a code span cannot escape its backtick.
    const out = neutralizeMarkdown('x \\\\<!-- -->`<b>` y')
    expect(prose(out)).not.toContain('<b>')
  })
})

describe('inlineMarkdown', () => {
  it('keeps code spans on one line and neutralizes the rest', () => {
    expect(inlineMarkdown('unknown key `a<b`\nfor @me', 100)).toBe(
      `unknown key \`a<b\` for @${ZWJ}me`
    )
    expect(inlineMarkdown('unclosed ` and <b>', 100)).toBe('unclosed \\` and &lt;b&gt;')
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
    // A backslash before a backtick stays a backslash: the backtick stays escaped.
    expect(inlineText('a\\`b` <i>', 100)).toBe('a\\\\\\`b\\` &lt;i&gt;')
    expect(prose(inlineText('a\\`b` <i>', 100))).not.toContain('<')
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

describe('tailLines', () => {
  const output = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n')

  it('keeps the last lines and says how many were cut', () => {
    const tail = tailLines(output, 30, 10_000)
    expect(tail.split('\n')).toHaveLength(31)
    expect(tail.startsWith('… 70 earlier lines cut\nline 71\n')).toBe(true)
    expect(tail.endsWith('line 100')).toBe(true)
    expect(tailLines('a\nb\n\n', 30, 100)).toBe('a\nb')
  })

  it('keeps whole lines within the character limit, the end of one huge line', () => {
    const tail = tailLines(output, 30, 60)
    expect(tail.length).toBeLessThanOrEqual(60)
    expect(tail.endsWith('line 99\nline 100')).toBe(true)
    expect(tail).toMatch(/^… \d+ earlier lines cut\nline \d+\n/)
    const long = tailLines(`first\n${'x'.repeat(500)}END`, 30, 100)
    expect(long.length).toBeLessThanOrEqual(100)
    expect(long.endsWith('xEND')).toBe(true)
  })

  it('never exceeds the limit (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', '\n', '😀') }),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 0, max: 200 }),
        (s, lines, max) => {
          expect(tailLines(s, lines, max).length).toBeLessThanOrEqual(max)
        }
      )
    )
  })
})

describe('durations', () => {
  it.each([
    [0, '0 ms'],
    [850, '850 ms'],
    [12_345, '12.3 s'],
    [192_000, '3 m 12 s'],
    [3_725_000, '1 h 02 m'],
    [-1, '—'],
    [Number.NaN, '—']
  ])('formatDuration(%p) is %p', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
  })

  it.each([
    [500, '500 ms'],
    [30_000, '30 s'],
    [1_500, '1.5 s'],
    [45_000, '45 s'],
    [59_000, '59 s'],
    [60_000, '1 min'],
    [90_000, '1.5 min'],
    [100_000, '1 min 40 s'],
    [120_000, '2 min'],
    [1_800_000, '30 min'],
    [21_600_000, '360 min'],
    [-5, '—']
  ])('formatMinutes(%p) is %p', (ms, text) => {
    expect(formatMinutes(ms)).toBe(text)
  })

  it('never rounds a timeout to a figure it is not (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 10 * 3_600_000 }), (ms) => {
        const text = formatMinutes(ms)
        const m = /^(?:([\d.,]+) min)?(?: ?(\d+(?:\.\d)?) s)?$/.exec(text)
        expect(m).not.toBeNull()
        const seconds = Number((m?.[1] ?? '0').replace(/,/g, '')) * 60 + Number(m?.[2] ?? '0')
        expect(Math.abs(seconds * 1000 - ms)).toBeLessThanOrEqual(500)
      })
    )
  })
})
