/** awk: the files its program writes (`print > f`) and the commands it runs (`system`, pipes). */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dyn,
  fileWrite,
  lit,
  network,
  problem,
  read,
  readsEnvironment,
  readsUnknown,
  runsCode,
  write
} from './effects.js'
import { type OptionTable, has, parseOptions, unknownWords, values } from './options.js'

// ---------------------------------------------------------------------------------------------
// awk

export const AWK: OptionTable = {
  shortValue: 'FvfEilWe',
  shortOptional: 'dDopL',
  longValue: ['field-separator', 'assign', 'file', 'exec', 'include', 'load', 'source'],
  longOptional: ['dump-variables', 'debug', 'pretty-print', 'profile', 'lint'],
  alias: {
    F: 'field-separator',
    v: 'assign',
    f: 'file',
    E: 'exec',
    i: 'include',
    l: 'load',
    e: 'source',
    d: 'dump-variables',
    D: 'debug',
    o: 'pretty-print',
    p: 'profile',
    L: 'lint',
    S: 'sandbox'
  },
  effectful: [
    'file',
    'exec',
    'include',
    'load',
    'source',
    'dump-variables',
    'debug',
    'pretty-print',
    'profile'
  ],
  effectfulShort: 'fEilepodDW',
  posix: true
}

export const AWK_SAFE_W = new Set(['version', 'sandbox', 'posix', 'traditional', 'usage', 'help'])

export function awkEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, AWK)
  const out = unknownWords(parsed, name, 'an option that loads a program file or writes a file')
  let sandbox = has(parsed, 'sandbox')
  for (const w of values(parsed, 'W')) {
    const v = w.literal ? (w.text.split('=')[0] ?? '') : ''
    if (v === 'sandbox') sandbox = true
    else if (!w.literal || !AWK_SAFE_W.has(v)) {
      out.push(runsCode(`${name} -W ${w.text}: an implementation option that may load or run code`))
    }
  }
  for (const [option, what] of [
    ['load', 'loads a compiled extension'],
    ['debug', 'runs debugger commands']
  ] as const) {
    if (has(parsed, option)) out.push(runsCode(`${name} --${option} ${what}`))
  }
  if (!sandbox) {
    for (const option of ['file', 'exec', 'include'] as const) {
      if (has(parsed, option)) {
        out.push(
          runsCode(
            `${name} --${option} runs a program file the policy cannot see (system(), pipes and ` +
              'redirections run commands and write files); add --sandbox (gawk) to forbid those'
          )
        )
      }
    }
  }
  const outputs: Array<[string, string]> = [
    ['dump-variables', 'awkvars.out'],
    ['pretty-print', 'awkprof.out'],
    ['profile', 'awkprof.out']
  ]
  for (const [option, fallback] of outputs) {
    for (const o of parsed.options) {
      if (o.name === option) out.push(fileWrite(`${name} --${option}`, o.value ?? lit(fallback)))
    }
  }
  const programs = values(parsed, 'source')
  if (!has(parsed, 'file', 'exec', 'source')) {
    const program = parsed.operands[0]
    if (program !== undefined) programs.push(program)
  }
  if (sandbox) return out
  for (const program of programs) {
    if (!program.literal) {
      out.push(
        problem(
          'dynamic-argument',
          `the ${name} program "${program.text}" is only known when the command runs`
        )
      )
      continue
    }
    const scan = scanAwk(program.text)
    if (scan === undefined) {
      out.push(runsCode(`the ${name} program could not be read, so what it runs cannot be known`))
      continue
    }
    if (scan.runs !== undefined) out.push(runsCode(`the ${name} program ${scan.runs}`))
    // ENVIRON, or gawk's SYMTAB, through which every global is reached by name (SYMTAB[v][k]
    // with v = "ENVIRON")
    const env = tokenizeAwk(program.text)?.some(
      (t) => t.type === 'ident' && (t.text === 'ENVIRON' || t.text === 'SYMTAB')
    )
    if (env === true) {
      out.push(readsEnvironment(`${name} ENVIRON`))
    }
    if (scan.network) out.push(network(`the ${name} program opens a network connection (/inet/)`))
    for (const target of scan.writes) out.push(write(`${name} print >`, target))
    for (const target of scan.reads) out.push(read(`${name} getline <`, target))
    if (scan.readsUnknown !== undefined) {
      out.push(readsUnknown(`the ${name} program ${scan.readsUnknown}`))
    }
  }
  return out
}

export interface AwkToken {
  type: 'str' | 'regex' | 'ident' | 'num' | 'op' | 'nl'
  text: string
}

export const AWK_OPS3 = new Set(['**=', '>>='])
export const AWK_OPS2 = new Set([
  '||',
  '&&',
  '|&',
  '>>',
  '<=',
  '>=',
  '==',
  '!=',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '^=',
  '**',
  '!~'
])
/** After these a `/` is division; after any other operator (or at the start) a regex. */
export const AWK_OPERAND_END = new Set([')', ']', '$', '++', '--'])
export const AWK_REGEX_AFTER_WORD = new Set([
  'print',
  'printf',
  'return',
  'case',
  'in',
  'getline',
  // statements that may start with an expression: `else /"/ ; system(...)`
  'else',
  'do',
  'exit',
  'while',
  'if',
  'for',
  'delete',
  'next'
])

export function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_'
}

export function isIdentPart(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9')
}

/** Tokens of an awk program; undefined when a string or regex does not end. */
export function tokenizeAwk(s: string): AwkToken[] | undefined {
  const tokens: AwkToken[] = []
  const n = s.length
  let i = 0
  const regexAllowed = (): boolean => {
    const prev = tokens[tokens.length - 1]
    if (prev === undefined || prev.type === 'nl') return true
    if (prev.type === 'op') return !AWK_OPERAND_END.has(prev.text)
    if (prev.type === 'ident') return AWK_REGEX_AFTER_WORD.has(prev.text)
    return false
  }
  while (i < n) {
    const c = s[i] as string
    if (c === ' ' || c === '\t' || c === '\r') {
      i++
    } else if (c === '\\' && s[i + 1] === '\n') {
      i += 2
    } else if (c === '\n') {
      tokens.push({ type: 'nl', text: '\n' })
      i++
    } else if (c === '#') {
      while (i < n && s[i] !== '\n') i++
    } else if (c === '"') {
      let j = i + 1
      while (j < n && s[j] !== '"') {
        if (s[j] === '\n') return undefined
        j += s[j] === '\\' ? 2 : 1
      }
      if (j >= n) return undefined
      tokens.push({ type: 'str', text: s.slice(i + 1, j) })
      i = j + 1
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1
      while (j < n && s[j] !== '/') {
        if (s[j] === '\n') return undefined
        if (s[j] === '[') {
          let k = j + 1
          if (s[k] === '^') k++
          if (s[k] === ']') k++
          while (k < n && s[k] !== ']' && s[k] !== '\n') k += s[k] === '\\' ? 2 : 1
          if (k >= n || s[k] === '\n') return undefined
          j = k + 1
          continue
        }
        j += s[j] === '\\' ? 2 : 1
      }
      if (j >= n) return undefined
      tokens.push({ type: 'regex', text: s.slice(i + 1, j) })
      i = j + 1
    } else if (isIdentStart(c)) {
      let j = i + 1
      while (j < n && isIdentPart(s[j] as string)) j++
      tokens.push({ type: 'ident', text: s.slice(i, j) })
      i = j
    } else if ((c >= '0' && c <= '9') || (c === '.' && /[0-9]/.test(s[i + 1] ?? ''))) {
      let j = i + 1
      while (j < n && (isIdentPart(s[j] as string) || s[j] === '.')) j++
      tokens.push({ type: 'num', text: s.slice(i, j) })
      i = j
    } else {
      const three = s.slice(i, i + 3)
      const two = s.slice(i, i + 2)
      const op = AWK_OPS3.has(three) ? three : AWK_OPS2.has(two) ? two : c
      tokens.push({ type: 'op', text: op })
      i += op.length
    }
  }
  return tokens
}

export interface AwkScan {
  /** What makes the program run other code, if anything. */
  runs?: string
  network: boolean
  writes: ShellWord[]
  /** Files `getline < "f"` reads, by literal name. */
  reads: ShellWord[]
  /** Why the program reads a file only known when it runs (`getline < f`, ARGV set), if it does. */
  readsUnknown?: string
}

/** Tokens after which a `getline < "f"` file name has ended (not concatenated with more). */
const AWK_EXPRESSION_END = new Set([
  ';',
  '}',
  ')',
  ',',
  '>',
  '>=',
  '<',
  '<=',
  '==',
  '!=',
  '&&',
  '||',
  '?',
  ':'
])

/** Operators that assign to what is before them. */
const AWK_ASSIGN = /^(?:=|\+=|-=|\*=|\/=|%=|\^=|\*\*=|\+\+|--)$/

/**
 * What an awk program does beyond reading its input and printing: `system()`, pipes (`|`,
 * `|&`), gawk's `@include`/`@load`/indirect calls, `print > file` redirections and gawk's
 * `/inet/` special files. Undefined when the program cannot be read.
 */
export function scanAwk(program: string): AwkScan | undefined {
  const tokens = tokenizeAwk(program)
  if (tokens === undefined) return undefined
  const scan: AwkScan = { network: false, writes: [], reads: [] }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as AwkToken
    if (t.type === 'ident' && t.text === 'getline') {
      // `getline < f`, `getline var < f`: the file after `<`
      let j = i + 1
      if (tokens[j]?.type === 'ident' || (tokens[j]?.type === 'op' && tokens[j]?.text === '$')) {
        j++
        if (tokens[j - 1]?.text === '$') j++
      }
      if (tokens[j]?.type === 'op' && tokens[j]?.text === '<') {
        const file = tokens[j + 1]
        const after = tokens[j + 2]
        const ended =
          after === undefined ||
          after.type === 'nl' ||
          (after.type === 'op' && AWK_EXPRESSION_END.has(after.text))
        if (file?.type === 'str' && !file.text.includes('\\') && ended) {
          scan.reads.push(lit(file.text))
        } else {
          scan.readsUnknown ??= 'reads with getline from a file whose name is built when it runs'
        }
      }
    }
    if (t.type === 'ident' && t.text === 'ARGV') {
      // the input files are ARGV's: a program that sets it (or hands it to split()) reads
      // files only known when it runs
      const prev = tokens[i - 1]
      let j = i + 1
      if (tokens[j]?.text === '[') {
        let depth = 0
        for (; j < tokens.length; j++) {
          const u = tokens[j] as AwkToken
          if (u.type === 'op' && u.text === '[') depth++
          else if (u.type === 'op' && u.text === ']' && --depth === 0) break
        }
        const next = tokens[j + 1]
        const sets =
          (next?.type === 'op' && AWK_ASSIGN.test(next.text)) ||
          (prev?.type === 'op' && (prev.text === '++' || prev.text === '--'))
        if (sets) scan.readsUnknown ??= 'sets ARGV, the list of files it reads'
      } else if (!(prev?.type === 'ident' && prev.text === 'in')) {
        scan.readsUnknown ??= 'hands ARGV, the list of files it reads, to a function'
      }
    }
    if (t.type === 'str' && t.text.startsWith('/inet')) scan.network = true
    if (t.type === 'ident' && t.text === 'system')
      scan.runs ??= 'calls system(), which runs a shell command'
    if (t.type === 'op' && (t.text === '|' || t.text === '|&')) {
      scan.runs ??= 'pipes to or from a shell command (|)'
    }
    if (t.type === 'op' && t.text === '@') scan.runs ??= 'uses @include, @load or an indirect call'
    if (t.type === 'ident' && (t.text === 'print' || t.text === 'printf')) {
      // a `>` or `>>` outside parentheses in a print statement is a redirection
      let depth = 0
      for (let j = i + 1; j < tokens.length; j++) {
        const u = tokens[j] as AwkToken
        if (u.type === 'op' && (u.text === '(' || u.text === '[')) depth++
        else if (u.type === 'op' && (u.text === ')' || u.text === ']')) depth--
        if (depth < 0) break
        if (
          depth === 0 &&
          (u.type === 'nl' || (u.type === 'op' && (u.text === ';' || u.text === '}')))
        )
          break
        if (depth === 0 && u.type === 'op' && (u.text === '>' || u.text === '>>')) {
          const target: AwkToken[] = []
          for (let k = j + 1; k < tokens.length; k++) {
            const v = tokens[k] as AwkToken
            if (v.type === 'nl' || (v.type === 'op' && (v.text === ';' || v.text === '}'))) break
            target.push(v)
          }
          const only = target[0]
          if (target.length === 1 && only?.type === 'str' && !only.text.includes('\\')) {
            scan.writes.push(lit(only.text))
          } else {
            scan.writes.push(dyn(target.map((v) => v.text).join(' ') || '?'))
          }
          break
        }
      }
    }
  }
  return scan
}
