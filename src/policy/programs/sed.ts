/** sed (GNU): the files its options and script write, read, and the commands `e` runs. */
import type { ShellWord } from '../shell-word.js'
import type { OptionRow } from './program.js'
import {
  type CommandEffect,
  baseName,
  dirName,
  dyn,
  fileWrite,
  isAbsolute,
  lit,
  problem,
  read,
  runsCode,
  write
} from './effects.js'
import {
  type OptionTable,
  has,
  parseOptions,
  unknownWords,
  values,
  optionTable
} from './options.js'

// ---------------------------------------------------------------------------------------------
// sed (GNU)

/** sed's options with a value or an effect, and its long flags. */
export const SED_ROWS: OptionRow[] = [
  { short: 'i', long: 'in-place', value: 'optional', does: 'writes' },
  { short: 'e', long: 'expression', value: 'required', does: 'runs' },
  { short: 'f', long: 'file', value: 'required', does: 'runs' },
  { short: 'l', long: 'line-length', value: 'required' },
  { short: 'n', long: 'quiet' },
  { long: 'silent' },
  { long: 'sandbox' },
  { short: 's', long: 'separate' },
  { long: 'posix' },
  { long: 'debug' },
  { long: 'follow-symlinks' }
]

export const SED: OptionTable = optionTable(SED_ROWS)

export function sedEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, SED)
  const out = unknownWords(parsed, name, 'an option that edits files in place or runs a script')
  const sandbox = has(parsed, 'sandbox')
  const scripts = values(parsed, 'expression')
  const files = values(parsed, 'file')
  let operands = parsed.operands
  if (!has(parsed, 'expression', 'file')) {
    const script = operands[0]
    if (script !== undefined) scripts.push(script)
    operands = operands.slice(1)
  }
  // the script file is read (`sed --sandbox -f .git/config` quotes its first line)
  for (const file of files) out.push(read(`${name} -f`, file))
  if (files.length > 0 && !sandbox) {
    out.push(
      runsCode(
        `${name} -f runs a script file the policy cannot see (its w and e commands write files ` +
          'and run commands); add --sandbox to forbid those'
      )
    )
  }
  // with --sandbox, sed refuses scripts with e, w, W, r and R: nothing to look for
  if (!sandbox && scripts.length > 0) {
    const dynamic = scripts.find((s) => !s.literal)
    if (dynamic !== undefined) {
      out.push(
        problem(
          'dynamic-argument',
          `the ${name} script "${dynamic.text}" is only known when the command runs (its w and ` +
            'e commands write files and run commands)'
        )
      )
    } else {
      const script = scripts.map((s) => s.text).join('\n')
      const scan = scanSedBoth(script)
      if (scan === undefined) {
        out.push(
          runsCode(`the ${name} script does not parse, so what it writes and runs cannot be known`)
        )
      } else {
        if (scan.runs) {
          out.push(runsCode(`the ${name} script runs shell commands (the e command or s///e)`))
        }
        for (const file of scan.writes) out.push(write(`${name} w`, lit(file)))
        // `r` and `R` read a file into the output: a read of that file (`1r.git/config`)
        for (const file of scan.reads) out.push(read(`${name} r`, lit(file)))
      }
    }
  }
  const inPlace = parsed.options.filter((o) => o.name === 'in-place')
  if (inPlace.length > 0) {
    const suffix = inPlace[inPlace.length - 1]?.value
    for (const file of operands) {
      out.push(fileWrite(`${name} -i`, file))
      if (suffix !== undefined) out.push(...sedBackups(name, file, suffix))
    }
  }
  return out
}

/** The backup files `sed -i SUFFIX` writes: FILE+SUFFIX, or SUFFIX with `*` as FILE's name. */
export function sedBackups(name: string, file: ShellWord, suffix: ShellWord): CommandEffect[] {
  const label = `${name} -i backup`
  if (!suffix.literal || !file.literal) {
    return [write(label, dyn(`${file.text}${suffix.text}`, file.literal ? file.text : file.prefix))]
  }
  if (!suffix.text.includes('*')) return [write(label, lit(file.text + suffix.text))]
  const backup = suffix.text.split('*').join(baseName(file.text))
  const targets = [write(label, lit(backup))]
  const dir = dirName(file.text)
  if (dir !== '.' && !isAbsolute(backup)) targets.push(write(label, lit(`${dir}/${backup}`)))
  return targets
}

export interface SedScan {
  writes: string[]
  reads: string[]
  runs: boolean
}

/**
 * GNU sed 4.9 skips bracket expressions when it looks for the end of a regex (`s/[/]/x/`), older
 * versions do not: a script is read both ways and the effects of both count. Undefined when
 * neither reading parses.
 */
export function scanSedBoth(script: string): SedScan | undefined {
  const aware = scanSed(script, true)
  if (!script.includes('[')) return aware
  const plain = scanSed(script, false)
  if (aware === undefined) return plain
  if (plain === undefined) return aware
  return {
    writes: [...aware.writes, ...plain.writes],
    reads: [...aware.reads, ...plain.reads],
    runs: aware.runs || plain.runs
  }
}

export const SED_SIMPLE = new Set([
  '=',
  'd',
  'D',
  'g',
  'G',
  'h',
  'H',
  'n',
  'N',
  'p',
  'P',
  'x',
  'z',
  'F'
])
export const SED_NUMBER = new Set(['l', 'L', 'q', 'Q'])
export const SED_S_FLAGS = new Set(['g', 'p', 'i', 'I', 'm', 'M', 'e', ' ', '\t'])

/** Reads a sed script as GNU sed does, collecting the files it writes and whether it runs code. */
export function scanSed(s: string, brackets: boolean): SedScan | undefined {
  const writes: string[] = []
  const reads: string[] = []
  let runs = false
  const n = s.length
  let i = 0
  let depth = 0
  const blanks = (): void => {
    while (i < n && (s[i] === ' ' || s[i] === '\t')) i++
  }
  const restOfLine = (): string => {
    const end = s.indexOf('\n', i)
    const text = s.slice(i, end < 0 ? n : end)
    i = end < 0 ? n : end
    return text
  }
  const digits = (): void => {
    while (i < n && (s[i] as string) >= '0' && (s[i] as string) <= '9') i++
  }
  /** Skips to after the closing delimiter; false when there is none on this line. */
  const delimited = (d: string, regex: boolean): boolean => {
    while (i < n) {
      const c = s[i] as string
      if (c === '\\') {
        if (i + 1 >= n) return false
        i += 2
        continue
      }
      if (c === d) {
        i++
        return true
      }
      if (c === '\n') return false
      if (regex && brackets && c === '[') {
        let j = i + 1
        if (s[j] === '^') j++
        if (s[j] === ']') j++
        while (j < n && s[j] !== ']') {
          const k = s[j + 1]
          if (s[j] === '[' && (k === ':' || k === '.' || k === '=')) {
            const close = s.indexOf(`${k}]`, j + 2)
            if (close < 0) return false
            j = close + 2
            continue
          }
          if (s[j] === '\n') return false
          j++
        }
        if (j >= n) return false
        i = j + 1
        continue
      }
      i++
    }
    return false
  }
  /** One address; false on a syntax error. */
  const address = (): boolean => {
    const c = s[i]
    if (c === undefined) return true
    if (c >= '0' && c <= '9') {
      digits()
      if (s[i] === '~') {
        i++
        digits()
      }
      return true
    }
    if (c === '$') {
      i++
      return true
    }
    if (c === '/' || c === '\\') {
      i++
      let d = '/'
      if (c === '\\') {
        d = s[i] ?? ''
        if (d === '' || d === '\n' || d === '\\') return false
        i++
      }
      if (!delimited(d, true)) return false
      while (s[i] === 'I' || s[i] === 'M') i++
      return true
    }
    return true
  }
  const label = (): void => {
    // GNU sed 4.9 ends a label at whitespace and reads what follows as the next command
    while (i < n && s[i] === ' ') i++
    while (i < n && s[i] !== ';' && s[i] !== '\n' && s[i] !== ' ' && s[i] !== '\t') i++
  }
  for (;;) {
    while (i < n && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === ';')) i++
    if (i >= n) break
    if (s[i] === '#') {
      restOfLine()
      continue
    }
    const before = i
    if (!address()) return undefined
    if (i > before) {
      blanks()
      if (s[i] === ',') {
        i++
        blanks()
        if (s[i] === '+' || s[i] === '~') {
          i++
          digits()
        } else {
          const second = i
          if (!address() || i === second) return undefined
        }
      }
    }
    blanks()
    while (s[i] === '!') {
      i++
      blanks()
    }
    const c = s[i++]
    if (c === undefined) return undefined
    if (c === '{') {
      depth++
      continue
    }
    if (c === '}') {
      depth--
      if (depth < 0) return undefined
    } else if (SED_SIMPLE.has(c)) {
      // no argument
    } else if (SED_NUMBER.has(c)) {
      blanks()
      digits()
    } else if (c === ':') {
      blanks()
      const from = i
      label()
      if (i === from) return undefined
    } else if (c === 'b' || c === 't' || c === 'T') {
      blanks()
      label()
    } else if (c === 'a' || c === 'i' || c === 'c') {
      blanks()
      if (s[i] === '\\') {
        i++
        if (s[i] === '\n') i++
      }
      // the text runs to the end of the line; `\` at the end continues it
      while (i < n && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1
    } else if (c === 'r' || c === 'R') {
      blanks()
      const file = restOfLine()
      // GNU sed reads standard input for `r /dev/stdin`; an empty name reads nothing
      if (file !== '') reads.push(file)
    } else if (c === 'w' || c === 'W') {
      blanks()
      const file = restOfLine()
      if (file === '') return undefined
      writes.push(file)
    } else if (c === 'e') {
      runs = true
      restOfLine()
    } else if (c === 'v') {
      label()
    } else if (c === 's' || c === 'y') {
      const d = s[i++]
      if (d === undefined || d === '\n' || d === '\\') return undefined
      if (!delimited(d, c === 's')) return undefined
      if (!delimited(d, false)) return undefined
      if (c === 's') {
        while (i < n) {
          const f = s[i] as string
          if (f >= '0' && f <= '9') {
            i++
          } else if (SED_S_FLAGS.has(f)) {
            if (f === 'e') runs = true
            i++
          } else if (f === 'w') {
            i++
            blanks()
            const file = restOfLine()
            if (file === '') return undefined
            writes.push(file)
          } else {
            break
          }
        }
      }
    } else {
      return undefined
    }
    blanks()
    if (i < n) {
      const next = s[i]
      if (next === ';' || next === '\n') i++
      else if (next !== '}' && next !== '#') return undefined
    }
  }
  return depth === 0 ? { writes, reads, runs } : undefined
}
