/** sort, uniq, split, csplit: the files their options and operands write. */
import type { ShellWord } from '../shell-word.js'
import type { OptionRow } from './program.js'
import {
  type CommandEffect,
  dyn,
  fileWrite,
  globDirectory,
  joinPath,
  lit,
  problem,
  readsUnknown,
  runsCode,
  write,
  writesUnknown
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
// sort, uniq, split, csplit

/** sort's options with a value or an effect. */
export const SORT_ROWS: OptionRow[] = [
  { short: 'k', long: 'key', value: 'required' },
  { short: 'o', long: 'output', value: 'required', does: 'writes' },
  { short: 't', long: 'field-separator', value: 'required' },
  { short: 'S', long: 'buffer-size', value: 'required' },
  { short: 'T', long: 'temporary-directory', value: 'required', does: 'writes' },
  { long: 'compress-program', value: 'required', does: 'runs' },
  { long: 'parallel', value: 'required' },
  { long: 'batch-size', value: 'required' },
  { long: 'files0-from', value: 'required', does: 'reads' },
  { long: 'random-source', value: 'required', does: 'reads' },
  { long: 'sort', value: 'required' },
  { long: 'check', value: 'optional' }
]

export const SORT: OptionTable = optionTable(SORT_ROWS)

export function sortEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, SORT)
  const out = unknownWords(parsed, name, 'an option that writes a file or runs a program (-o)')
  for (const file of values(parsed, 'output')) out.push(fileWrite(`${name} -o`, file))
  // its temporary files (sortXXXXXX), in that directory
  for (const dir of values(parsed, 'temporary-directory')) {
    out.push(fileWrite(`${name} -T`, dir.literal ? joinPath(dir, 'sortXXXXXX') : dir))
  }
  if (has(parsed, 'files0-from')) {
    out.push(
      readsUnknown(`${name} --files0-from reads the files a list names, unseen by the policy`)
    )
  }
  if (has(parsed, 'output') && values(parsed, 'output').length === 0) {
    out.push(writesUnknown(`${name} -o without a file name`))
  }
  if (has(parsed, 'compress-program')) {
    out.push(runsCode(`${name} --compress-program runs that program`))
  }
  return out
}

/** uniq's options with a value. */
export const UNIQ_ROWS: OptionRow[] = [
  { short: 'f', value: 'required' },
  { short: 's', value: 'required' },
  { short: 'w', value: 'required' },
  { long: 'skip-fields', value: 'required' },
  { long: 'skip-chars', value: 'required' },
  { long: 'check-chars', value: 'required' },
  { long: 'all-repeated', value: 'optional' },
  { long: 'group', value: 'optional' }
]

export const UNIQ: OptionTable = optionTable(UNIQ_ROWS)

export function uniqEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, UNIQ)
  const [input, output] = parsed.operands
  if (input !== undefined && !input.literal && globDirectory(input) === undefined) {
    return [
      problem(
        'dynamic-argument',
        `"${input.text}" is only known when the command runs, and it could be several words: ` +
          `${name} writes its second operand`
      )
    ]
  }
  if (input !== undefined && !input.literal) {
    return [write(`${name} output`, dyn(input.text, input.prefix))]
  }
  return output === undefined ? [] : [fileWrite(`${name} output`, output)]
}

export const SPLIT: OptionTable = {
  shortValue: 'abClnt',
  longValue: [
    'suffix-length',
    'additional-suffix',
    'bytes',
    'line-bytes',
    'lines',
    'number',
    'separator',
    'filter'
  ],
  longOptional: ['numeric-suffixes', 'hex-suffixes'],
  alias: { a: 'suffix-length', d: 'numeric-suffixes', x: 'hex-suffixes' },
  effectful: ['filter', 'additional-suffix'],
  effectfulShort: ''
}

export function splitEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, SPLIT)
  const out = unknownWords(parsed, name, 'an option that runs a program (--filter)')
  if (has(parsed, 'filter')) out.push(runsCode(`${name} --filter runs a shell command`))
  const prefix = parsed.operands[1] ?? lit('x')
  const numeric = has(parsed, 'numeric-suffixes', 'hex-suffixes')
  const additional = values(parsed, 'additional-suffix').at(-1) ?? lit('')
  const text = `${prefix.text}${numeric ? '00' : 'aa'}${additional.text}`
  const operandsKnown = parsed.operands.slice(0, 2).every((w) => w.literal)
  out.push(
    write(
      `${name} output`,
      prefix.literal && additional.literal && operandsKnown ? lit(text, prefix.tilde) : dyn(text)
    )
  )
  return out
}

/** csplit's options with a value or an effect (the names of the files it writes). */
export const CSPLIT_ROWS: OptionRow[] = [
  { short: 'b', long: 'suffix-format', value: 'required', does: 'writes' },
  { short: 'f', long: 'prefix', value: 'required', does: 'writes' },
  { short: 'n', long: 'digits', value: 'required' }
]

export const CSPLIT: OptionTable = optionTable(CSPLIT_ROWS)

export const PRINTF_DIRECTIVE = /%[^a-zA-Z%]*[a-zA-Z%]/g

export function csplitEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, CSPLIT)
  const out = unknownWords(parsed, name, 'an option that names its output files (-f, -b)')
  const prefix = values(parsed, 'prefix').at(-1) ?? lit('xx')
  const format = values(parsed, 'suffix-format').at(-1)
  const suffix = format === undefined ? '00' : format.text.replace(PRINTF_DIRECTIVE, '00')
  const text = `${prefix.text}${suffix}`
  const known = prefix.literal && (format === undefined || format.literal)
  out.push(write(`${name} output`, known ? lit(text, prefix.tilde) : dyn(text)))
  return out
}

/** `--files0-from` and every abbreviation getopt accepts for it in wc and du (`--f`, `--files0`). */
const FILES0_FROM = /^--f(?:i(?:l(?:e(?:s(?:0(?:-(?:f(?:r(?:om?)?)?)?)?)?)?)?)?)?(?:=|$)/

/** wc and du: `--files0-from=F` reads the files F names, which the policy cannot see. */
export function filesListEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  for (const w of words.slice(1)) {
    const t = w.literal ? w.text : w.prefix
    if (t === '--') break
    // a word only known at run time is a file name the path checks judge (builtPaths)
    if (FILES0_FROM.test(t)) {
      return [
        readsUnknown(`${name} --files0-from reads the files a list names, unseen by the policy`)
      ]
    }
  }
  return []
}
