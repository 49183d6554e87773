/** A word node evaluated as bash would before running the command, as far as it is static. */
import type { Node } from 'web-tree-sitter'
import { dynamicWord, literalWord, type ShellWord } from '../shell-word.js'

// ---------------------------------------------------------------------------------------------
// Words

export function joinWords(parts: ShellWord[]): ShellWord {
  let text = ''
  let prefix = ''
  let literal = true
  for (const part of parts) {
    text += part.text
    if (literal) prefix += part.literal ? part.text : part.prefix
    literal &&= part.literal
  }
  return { text, literal, prefix: literal ? text : prefix, tilde: parts[0]?.tilde ?? false }
}

/** Evaluates a word node as bash would before running the command, as far as it is static. */
export function evalWord(node: Node): ShellWord {
  switch (node.type) {
    case 'word':
      return unquotedWord(node.text)
    case 'number':
    case 'variable_name':
    case 'file_descriptor':
      return literalWord(node.text)
    case 'raw_string':
      return literalWord(node.text.slice(1, -1))
    case 'ansi_c_string': {
      // bash ends a $'...' string at a decoded NUL and keeps the rest of the word: $'-exe\0'c is -exec
      const decoded = decodeAnsiC(node.text.slice(2, -1))
      const nul = decoded.indexOf('\0')
      return literalWord(nul < 0 ? decoded : decoded.slice(0, nul))
    }
    case 'string':
      return doubleQuoted(node)
    case 'concatenation':
    case 'variable_assignment': {
      const parts: ShellWord[] = []
      const children = node.children
      for (let i = 0; i < children.length; i++) {
        const child = children[i] as Node
        if (!child.isNamed && child.type === '$') {
          const next = children[i + 1]
          // `$"..."` is translated through the locale's message catalog: not static
          if (next?.type === 'string') {
            parts.push(dynamicWord(`$${next.text}`))
            i++
            continue
          }
          parts.push(literalWord('$'))
          continue
        }
        if (!child.isNamed) {
          parts.push(literalWord(child.text))
          continue
        }
        parts.push(evalWord(child))
      }
      return joinWords(parts)
    }
    default:
      return dynamicWord(node.text)
  }
}

export const GLOB_CHARS = new Set(['*', '?', '['])

export function unquotedWord(raw: string): ShellWord {
  let text = ''
  let prefix: string | undefined
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string
    if (c === '\\') {
      const next = raw[i + 1]
      if (next === undefined) {
        text += c
      } else if (next === '\n') {
        i++
      } else {
        text += next
        i++
      }
      continue
    }
    const extglob = (c === '@' || c === '!' || c === '+') && raw[i + 1] === '('
    if (prefix === undefined && (GLOB_CHARS.has(c) || c === '{' || extglob)) prefix = text
    text += c
  }
  const tilde = raw.startsWith('~')
  return { text, literal: prefix === undefined, prefix: prefix ?? text, tilde }
}

export function doubleQuoted(node: Node): ShellWord {
  // tree-sitter drops line breaks between the children of a string: read the text itself
  const raw = node.text
  const base = node.startIndex
  const parts: ShellWord[] = []
  let at = 1
  for (const child of node.namedChildren) {
    if (child.type === 'string_content') continue
    const from = child.startIndex - base
    if (from > at) parts.push(literalWord(unescapeDoubleQuoted(raw.slice(at, from))))
    parts.push(dynamicWord(child.text))
    at = child.endIndex - base
  }
  const end = raw.endsWith('"') && raw.length > 1 ? raw.length - 1 : raw.length
  if (end > at) parts.push(literalWord(unescapeDoubleQuoted(raw.slice(at, end))))
  const word = joinWords(parts)
  return { ...word, tilde: false }
}

export function unescapeDoubleQuoted(raw: string): string {
  return raw.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c))
}

export const ANSI_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?'
}

/** Decodes the body of a `$'...'` string as bash does. */
export function decodeAnsiC(body: string): string {
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string
    if (c !== '\\' || i + 1 >= body.length) {
      out += c
      continue
    }
    const n = body[i + 1] as string
    const simple = ANSI_ESCAPES[n]
    if (simple !== undefined) {
      out += simple
      i++
    } else if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i + 1)) as RegExpExecArray
      out += String.fromCharCode(parseInt(m[0], 8) & 0xff)
      i += m[0].length
    } else if (n === 'x' || n === 'u' || n === 'U') {
      const max = n === 'x' ? 2 : n === 'u' ? 4 : 8
      const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(body.slice(i + 2))
      if (m === null) {
        out += `\\${n}`
      } else {
        const code = parseInt(m[0], 16)
        out += code <= 0x10ffff ? String.fromCodePoint(code) : ''
        i += m[0].length
      }
      i++
    } else if (n === 'c' && i + 2 < body.length) {
      out += String.fromCharCode((body.charCodeAt(i + 2) & 0x1f) >>> 0)
      i += 2
    } else {
      out += `\\${n}`
      i++
    }
  }
  return out
}
