/**
 * JSON with positions, for configuration a person writes by hand (the `mcp-servers` input): a
 * syntax error names its line and column, and so does every value a schema rejects.
 *
 * JSON.parse is no help here: depending on the Node version its message has no position, and it
 * quotes the text, which may hold a secret (an MCP server's token).
 */

export interface Position {
  line: number
  column: number
}

export type JsonPath = ReadonlyArray<string | number>

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError'
  constructor(
    readonly position: Position,
    readonly expected: string
  ) {
    super(`line ${position.line}, column ${position.column}: expected ${expected}`)
  }
}

export interface LocatedJson {
  value: unknown
  /** Where the value at `path` starts (its key, for an object member); the nearest parent's. */
  locate(path: JsonPath): Position
}

/** Parses strict JSON (RFC 8259), recording where each value starts. */
export function parseJson(text: string): LocatedJson {
  const offsets = new Map<string, number>()
  let i = 0

  const position = (offset: number): Position => {
    let line = 1
    let start = 0
    for (let k = 0; k < offset && k < text.length; k++) {
      if (text.charCodeAt(k) === 10) {
        line++
        start = k + 1
      }
    }
    return { line, column: offset - start + 1 }
  }
  const fail = (expected: string): never => {
    throw new JsonSyntaxError(position(i), expected)
  }
  /** Reads `ch` when it is the next character. */
  const eat = (ch: string): boolean => {
    if (text.charAt(i) !== ch) return false
    i++
    return true
  }

  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text.charAt(i))) i++
  }
  const literal = (word: string, value: unknown) => {
    if (text.startsWith(word, i)) {
      i += word.length
      return value
    }
    return fail('a value')
  }

  const string = (): string => {
    if (text.charAt(i) !== '"') fail('a string in double quotes')
    i++
    let out = ''
    for (;;) {
      if (i >= text.length) fail('the closing "')
      const c = text.charAt(i)
      if (c === '"') {
        i++
        return out
      }
      if (c.charCodeAt(0) < 0x20) fail('no control character inside a string (escape it)')
      if (c !== '\\') {
        out += c
        i++
        continue
      }
      const e = text.charAt(i + 1)
      const simple: Record<string, string> = {
        '"': '"',
        '\\': '\\',
        '/': '/',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t'
      }
      if (e in simple) {
        out += simple[e] as string
        i += 2
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16))
        i += 6
      } else {
        i++
        fail('a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)')
      }
    }
  }

  const number = (): number => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i))
    if (m === null) return fail('a value')
    i += m[0].length
    return Number(m[0])
  }

  const value = (path: string): unknown => {
    space()
    if (!offsets.has(path)) offsets.set(path, i)
    const c = text.charAt(i)
    if (c === '{') {
      i++
      const object: Record<string, unknown> = {}
      space()
      if (eat('}')) return object
      for (;;) {
        space()
        const keyAt = i
        const key = string()
        const child = `${path}\u0000${key}`
        offsets.set(child, keyAt)
        space()
        if (!eat(':')) fail('":" after the key')
        if (Object.prototype.hasOwnProperty.call(object, key)) {
          i = keyAt
          fail(`a key used once ("${key}" is repeated)`)
        }
        // defineProperty: a key "__proto__" is data, not the object's prototype
        Object.defineProperty(object, key, {
          value: value(child),
          enumerable: true,
          writable: true,
          configurable: true
        })
        space()
        if (eat(',')) continue
        if (eat('}')) return object
        fail('"," or "}"')
      }
    }
    if (c === '[') {
      i++
      const array: unknown[] = []
      space()
      if (eat(']')) return array
      for (;;) {
        array.push(value(`${path}\u0000${array.length}`))
        space()
        if (eat(',')) continue
        if (eat(']')) return array
        fail('"," or "]"')
      }
    }
    if (c === '"') return string()
    if (c === 't') return literal('true', true)
    if (c === 'f') return literal('false', false)
    if (c === 'n') return literal('null', null)
    if (c === '-' || (c >= '0' && c <= '9')) return number()
    return fail(i >= text.length ? 'a value (the text ends early)' : 'a value')
  }

  const parsed = value('')
  space()
  if (i < text.length) fail('the end of the text')
  return {
    value: parsed,
    locate(path) {
      for (let n = path.length; n >= 0; n--) {
        const key = ['', ...path.slice(0, n).map(String)].join('\u0000')
        const at = offsets.get(key)
        if (at !== undefined) return position(at)
      }
      return { line: 1, column: 1 }
    }
  }
}
