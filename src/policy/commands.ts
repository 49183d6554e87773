/**
 * What the programs people allow do beyond their name: the files their options and operands
 * write, the code some options run, the network some options reach. The shell analyzer calls
 * `commandEffects` for every simple command it finds (after wrappers are unwrapped), and the
 * engine checks each effect: writes against `write` rules, URLs against `url` rules, problems are
 * denied (they name a built-in check, not a rule).
 *
 * An allow rule such as `sed *` lets the agent choose sed's options, so what a program may do is
 * decided here from its words: one small table per program (which options take a value, which
 * have an effect) and a handler that turns the parsed words into effects. Where a word is only
 * known at run time and could be an option with an effect, the command is denied
 * (`dynamic-argument`); where the effect cannot be known (a script file, a patch), it is denied
 * by what it could do (`runs-code`, `writes-unknown`).
 *
 * Not covered here: `tee` (shell.ts), `find -fprint/-fprint0/-fprintf/-fls` (recorded by
 * shell.ts's findRuns) and `find -exec/-ok`, `xargs`, `env`, ... (wrappers, shell.ts).
 */
import { npmArgv, npmCommand, type NpmOption } from './npm.js'
import type { ShellWord } from './shell.js'

export type EffectProblemId =
  /** An option or operand that makes the program run other code (`sed e`, `sort --compress-program`). */
  | 'runs-code'
  /** An option or operand that makes the program reach the network (`git ls-remote`, `tar host:f`). */
  | 'network'
  /** A word only known at run time where an option with one of these effects could stand. */
  | 'dynamic-argument'
  /** The program writes files the policy cannot name before it runs (`git apply`, `patch`). */
  | 'writes-unknown'
  /** The program would print a secret (`git config --list` and the checkout's token). */
  | 'reads-secret'

export type CommandEffect =
  /**
   * A file the command writes (or deletes); `subtree`: and everything below it (`rm -r d`).
   * What lands below it, where known: `removes`, only what is there now (`rm -r`, a moved
   * source); `from`, the trees of these sources (`cp -r SRC DEST`). Otherwise anything may.
   */
  | {
      kind: 'write'
      label: string
      target: ShellWord
      subtree?: boolean
      removes?: boolean
      from?: ShellWord[]
    }
  /** A URL the command fetches or sends to (`curl https://…`): checked against `url` rules. */
  | { kind: 'url'; label: string; target: ShellWord }
  /** A file the command reads because a script or option says so (`sed 'r f'`): `read` rules. */
  | { kind: 'read'; label: string; target: ShellWord }
  | { kind: 'problem'; id: EffectProblemId; reason: string }

type Handler = (words: readonly ShellWord[], name: string) => CommandEffect[]

/**
 * The effects of one simple command. `words[0]` is the program (a literal word, maybe a path);
 * wrappers (`env`, `sudo`, `xargs`, `sh -c`, …) have already been unwrapped by the caller.
 */
export function commandEffects(words: readonly ShellWord[]): CommandEffect[] {
  const first = words[0]
  if (first === undefined || !first.literal) return []
  const slash = first.text.lastIndexOf('/')
  const name = slash < 0 ? first.text : first.text.slice(slash + 1)
  const handler = HANDLERS.get(name)
  if (handler === undefined) return []
  const effects = handler(words, name)
  // one problem of each kind is enough to deny, and reads better; a URL once
  let seen = ''
  return effects.filter((e) => {
    if (e.kind === 'url') {
      const key = `|url ${e.target.text}|`
      if (seen.includes(key)) return false
      seen += key
      return true
    }
    if (e.kind !== 'problem') return true
    if (seen.includes(`|${e.id}|`)) return false
    seen += `|${e.id}|`
    return true
  })
}

/**
 * Other spellings of the same command, for deny and ask rules: a rule naming a subcommand
 * (`npm publish*`, `gh pr merge*`, `cargo publish*`) also catches it behind options
 * (`npm --registry=x publish`, `gh -R o/r pr merge`, `gh pr -R "$R" merge`), a toolchain
 * (`cargo +nightly publish`), or npm's abbreviations and aliases (`npm pub`, `npm i` for
 * `npm install`). Which options take a value is not known for every program, so both readings
 * are given: each option a flag, and each option without `=` followed by its value. Every
 * spelling only drops words or names npm's command as npm reads it, so deny and ask rules only
 * ever match more.
 */
export function commandSpellings(words: readonly ShellWord[]): ShellWord[][] {
  const first = words[0]
  if (first === undefined) return []
  const flags: ShellWord[] = [first]
  const valued: ShellWord[] = [first]
  let options = true
  let dropped = false
  const program = first.text.slice(first.text.lastIndexOf('/') + 1)
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    const option = options && t.startsWith('-') && t !== '-'
    const toolchain = options && i === 1 && t.startsWith('+') && /^(cargo|rustup)$/.test(program)
    if (!option && !toolchain) {
      flags.push(w)
      valued.push(w)
      continue
    }
    dropped = true
    if (t === '--') {
      options = false
      continue
    }
    const next = words[i + 1]
    if (option && !t.includes('=') && next !== undefined) {
      const n = next.literal ? next.text : next.prefix
      if (!(n.startsWith('-') && n !== '-')) {
        flags.push(next) // the next word, as this option's value, stays in the flags reading
        i++
      }
    }
  }
  const out: ShellWord[][] = dropped ? [flags, valued] : []
  if (program === 'npm') {
    // as npm may read it: its options left out, each word that may be its command by npm's
    // own name for it, with the operands after it
    const argv = npmArgv(words)
    for (const { word, index } of argv.commands) {
      if (!word.literal) continue
      const name = npmCommand(word.text) ?? word.text
      const rest = argv.operands.filter((o) => o.index > index).map((o) => o.word)
      out.push([first, lit(name), ...rest])
      // `npm install-test x` is `npm install x`, then `npm test`
      if (name === 'install-test') out.push([first, lit('install'), ...rest])
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Effects and words

function lit(text: string, tilde = false): ShellWord {
  return { text, literal: true, prefix: text, tilde }
}

function dyn(text: string, prefix = ''): ShellWord {
  return { text, literal: false, prefix, tilde: false }
}

function write(label: string, target: ShellWord, subtree = false): CommandEffect {
  return subtree ? { kind: 'write', label, target, subtree } : { kind: 'write', label, target }
}

function read(label: string, target: ShellWord): CommandEffect {
  return { kind: 'read', label, target }
}

function problem(id: EffectProblemId, reason: string): CommandEffect {
  return { kind: 'problem', id, reason }
}

function runsCode(reason: string): CommandEffect {
  return problem('runs-code', reason)
}

function network(reason: string): CommandEffect {
  return problem('network', reason)
}

function writesUnknown(reason: string): CommandEffect {
  return problem('writes-unknown', reason)
}

function dynamicArgument(program: string, word: ShellWord, could: string): CommandEffect {
  return problem(
    'dynamic-argument',
    `"${word.text}" is only known when the command runs, and ${program} could read it as ${could}`
  )
}

/** A recursive write that only removes what is there now (`rm -r`, `mv`'s sources). */
function removal(effect: CommandEffect): CommandEffect {
  return effect.kind === 'write' && effect.subtree === true ? { ...effect, removes: true } : effect
}

/**
 * A file the command writes. A glob (`src/*.tmp`) writes files inside the directory before its
 * first wildcard: that directory, recursively. Other words only known at run time stay as they
 * are (the engine denies them as `dynamic-path`).
 */
function fileWrite(label: string, word: ShellWord, subtree = false): CommandEffect {
  if (!word.literal) {
    const dir = globDirectory(word)
    if (dir !== undefined) return write(label, dir, true)
  }
  return write(label, word, subtree)
}

/** The directory a glob's matches are in, when the word is a plain glob that stays below it. */
function globDirectory(word: ShellWord): ShellWord | undefined {
  const { text, prefix } = word
  if (!text.startsWith(prefix)) return undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    // expansions, braces (`src/{a,../..}`), extglobs: not a plain glob
    if (c === '$' || c === '`' || c === '{' || c === '(' || c === '\\') return undefined
  }
  const cut = prefix.lastIndexOf('/')
  const dir = cut < 0 ? '.' : cut === 0 ? '/' : prefix.slice(0, cut)
  const tail = text.slice(cut + 1)
  // `.*` matches `..` in some shells
  if (tail.startsWith('.') || tail.includes('/.')) return undefined
  return lit(dir, word.tilde && dir.startsWith('~'))
}

function baseName(text: string): string {
  let end = text.length
  while (end > 1 && text[end - 1] === '/') end--
  const trimmed = text.slice(0, end)
  return trimmed.slice(trimmed.lastIndexOf('/') + 1)
}

function dirName(text: string): string {
  const cut = text.lastIndexOf('/')
  return cut < 0 ? '.' : cut === 0 ? '/' : text.slice(0, cut)
}

/** `dir/name` as a word: literal when both are. */
function joinPath(dir: ShellWord, name: string): ShellWord {
  const text = dir.text.endsWith('/') ? `${dir.text}${name}` : `${dir.text}/${name}`
  return dir.literal ? lit(text, dir.tilde) : dyn(text, dir.prefix)
}

function isAbsolute(text: string): boolean {
  return text.startsWith('/')
}

/** A relative path that stays inside the directory it is relative to (`a/../b`, not `a/../..`). */
function staysInside(text: string): boolean {
  if (isAbsolute(text)) return false
  let depth = 0
  for (const segment of text.split('/')) {
    if (segment === '..') depth--
    else if (segment !== '' && segment !== '.') depth++
    if (depth < 0) return false
  }
  return true
}

// ---------------------------------------------------------------------------------------------
// Options

interface OptionTable {
  /** Short options that take a value (`-o f`, `-of`). */
  shortValue?: string
  /** Short options whose value is optional and only attached (`sed -i.bak`). */
  shortOptional?: string
  /** Long options that take a value (`--output=f`, `--output f`). */
  longValue?: readonly string[]
  /** Long options whose value is optional and only attached (`--in-place=.bak`). */
  longOptional?: readonly string[]
  /** Long options without a value that an abbreviation must not be read as (exact names). */
  flags?: readonly string[]
  /** The long name of short options (`o` → `output`); options are reported by these names. */
  alias?: Readonly<Record<string, string>>
  /** Long options with an effect: their abbreviations (`--outp`) count as them. */
  effectful?: readonly string[]
  /** Short options with an effect (a run-time word `-n$X` could add one). */
  effectfulShort?: string
  /** Options end at the first operand (POSIX getopt), not only at `--` (GNU). */
  posix?: boolean
}

interface Option {
  name: string
  value?: ShellWord
}

interface Parsed {
  options: Option[]
  operands: ShellWord[]
  /** Words only known at run time that could be options with an effect. */
  unknown: ShellWord[]
}

/** The option a long name (maybe abbreviated, GNU getopt_long accepts that) stands for. */
function resolveLong(table: OptionTable, name: string): string {
  const effectful = table.effectful ?? []
  if (
    effectful.includes(name) ||
    table.longValue?.includes(name) === true ||
    table.longOptional?.includes(name) === true ||
    table.flags?.includes(name) === true
  ) {
    return name
  }
  if (name === '') return name
  // an abbreviation of an option with an effect is read as that option, ambiguous or not
  for (const e of effectful) if (e.startsWith(name)) return e
  let found: string | undefined
  for (const v of table.longValue ?? []) {
    if (v.startsWith(name)) {
      if (found !== undefined) return name
      found = v
    }
  }
  return found ?? name
}

function hasEffects(table: OptionTable): boolean {
  return (table.effectful?.length ?? 0) > 0 || (table.effectfulShort ?? '') !== ''
}

/** Parses GNU-style options (permuted unless `posix`), their values and the operands. */
function parseOptions(words: readonly ShellWord[], table: OptionTable, start = 1): Parsed {
  const options: Option[] = []
  const operands: ShellWord[] = []
  const unknown: ShellWord[] = []
  const shortValue = table.shortValue ?? ''
  const shortOptional = table.shortOptional ?? ''
  const alias = table.alias ?? {}
  const effects = hasEffects(table)
  let i = start
  for (; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      const p = w.prefix
      if (p.startsWith('--')) {
        const body = p.slice(2)
        const eq = body.indexOf('=')
        if (eq >= 0) {
          const at = w.text.indexOf('=')
          options.push({
            name: resolveLong(table, body.slice(0, eq)),
            value: dyn(w.text.slice(at + 1), body.slice(eq + 1))
          })
        } else if ((table.effectful ?? []).some((e) => e.startsWith(body) || body.startsWith(e))) {
          unknown.push(w)
        }
        continue
      }
      if (p.startsWith('-') && p.length > 1) {
        let settled = false
        for (let j = 1; j < p.length; j++) {
          const letter = p[j] as string
          if (shortValue.includes(letter) || shortOptional.includes(letter)) {
            options.push({
              name: alias[letter] ?? letter,
              value: dyn(w.text.slice(j + 1), p.slice(j + 1))
            })
            settled = true
            break
          }
          options.push({ name: alias[letter] ?? letter })
        }
        if (!settled && (table.effectfulShort ?? '') !== '') unknown.push(w)
        continue
      }
      if (p === '' || p === '-') {
        // an option or an operand (or several words, or none): cannot tell
        if (effects) unknown.push(w)
        operands.push(w)
        if (table.posix === true) break
        continue
      }
      operands.push(w)
      if (table.posix === true) break
      continue
    }
    const t = w.text
    if (t === '--') {
      i++
      break
    }
    if (t.length < 2 || !t.startsWith('-')) {
      operands.push(w)
      if (table.posix === true) {
        i++
        break
      }
      continue
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=')
      const name = resolveLong(table, eq < 0 ? t.slice(2) : t.slice(2, eq))
      if (eq >= 0) {
        options.push({ name, value: lit(t.slice(eq + 1)) })
      } else if (table.longValue?.includes(name) === true) {
        const value = words[i + 1]
        options.push(value === undefined ? { name } : { name, value })
        i++
      } else {
        options.push({ name })
      }
      continue
    }
    for (let j = 1; j < t.length; j++) {
      const letter = t[j] as string
      const name = alias[letter] ?? letter
      if (shortValue.includes(letter)) {
        const rest = t.slice(j + 1)
        if (rest !== '') {
          options.push({ name, value: lit(rest) })
        } else {
          const value = words[i + 1]
          options.push(value === undefined ? { name } : { name, value })
          i++
        }
        break
      }
      if (shortOptional.includes(letter)) {
        const rest = t.slice(j + 1)
        options.push(rest === '' ? { name } : { name, value: lit(rest) })
        break
      }
      options.push({ name })
    }
  }
  for (; i < words.length; i++) operands.push(words[i] as ShellWord)
  return { options, operands, unknown }
}

function has(parsed: Parsed, ...names: string[]): boolean {
  return parsed.options.some((o) => names.includes(o.name))
}

function values(parsed: Parsed, ...names: string[]): ShellWord[] {
  const out: ShellWord[] = []
  for (const o of parsed.options)
    if (o.value !== undefined && names.includes(o.name)) out.push(o.value)
  return out
}

/** A dynamic-argument problem for the first unknown word, if any. */
function unknownWords(parsed: Parsed, program: string, could: string): CommandEffect[] {
  const first = parsed.unknown[0]
  return first === undefined ? [] : [dynamicArgument(program, first, could)]
}

// ---------------------------------------------------------------------------------------------
// sed (GNU)

const SED: OptionTable = {
  shortValue: 'efl',
  shortOptional: 'i',
  longValue: ['expression', 'file', 'line-length'],
  longOptional: ['in-place'],
  flags: ['quiet', 'silent', 'sandbox', 'separate', 'posix', 'debug', 'follow-symlinks'],
  alias: { e: 'expression', f: 'file', i: 'in-place', l: 'line-length', n: 'quiet', s: 'separate' },
  effectful: ['in-place', 'expression', 'file'],
  effectfulShort: 'ief'
}

function sedEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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
function sedBackups(name: string, file: ShellWord, suffix: ShellWord): CommandEffect[] {
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

interface SedScan {
  writes: string[]
  reads: string[]
  runs: boolean
}

/**
 * GNU sed 4.9 skips bracket expressions when it looks for the end of a regex (`s/[/]/x/`), older
 * versions do not: a script is read both ways and the effects of both count. Undefined when
 * neither reading parses.
 */
function scanSedBoth(script: string): SedScan | undefined {
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

const SED_SIMPLE = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F'])
const SED_NUMBER = new Set(['l', 'L', 'q', 'Q'])
const SED_S_FLAGS = new Set(['g', 'p', 'i', 'I', 'm', 'M', 'e', ' ', '\t'])

/** Reads a sed script as GNU sed does, collecting the files it writes and whether it runs code. */
function scanSed(s: string, brackets: boolean): SedScan | undefined {
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

// ---------------------------------------------------------------------------------------------
// find

/** find primaries that take one argument (the -fprint family is recorded by shell.ts). */
const FIND_ONE_ARG = new Set([
  '-amin',
  '-anewer',
  '-atime',
  '-cmin',
  '-cnewer',
  '-context',
  '-ctime',
  '-fls',
  '-fprint',
  '-fprint0',
  '-fstype',
  '-gid',
  '-group',
  '-ilname',
  '-iname',
  '-inum',
  '-ipath',
  '-iregex',
  '-iwholename',
  '-links',
  '-lname',
  '-maxdepth',
  '-mindepth',
  '-mmin',
  '-mtime',
  '-name',
  '-newer',
  '-path',
  '-perm',
  '-printf',
  '-regex',
  '-regextype',
  '-samefile',
  '-size',
  '-type',
  '-uid',
  '-used',
  '-user',
  '-wholename',
  '-xtype'
])
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir'])
const FIND_START_END = new Set(['(', ')', '!', ','])

function findEffects(words: readonly ShellWord[]): CommandEffect[] {
  const out: CommandEffect[] = []
  const n = words.length
  let i = 1
  // -H -L -P -D opts -Olevel
  while (i < n) {
    const w = words[i] as ShellWord
    if (!w.literal) break
    if (w.text === '-H' || w.text === '-L' || w.text === '-P') i++
    else if (w.text === '-D') i += 2
    else if (w.text.startsWith('-O') && w.text.length > 2) i++
    else break
  }
  const starts: ShellWord[] = []
  let unknown: ShellWord | undefined
  for (; i < n; i++) {
    const w = words[i] as ShellWord
    if (w.literal && (w.text.startsWith('-') || FIND_START_END.has(w.text))) break
    if (!w.literal && (w.prefix === '' || w.prefix.startsWith('-'))) unknown ??= w
    starts.push(w)
  }
  let del = false
  let files0 = false
  for (; i < n; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (w.prefix === '' || w.prefix.startsWith('-')) unknown ??= w
      continue
    }
    const t = w.text
    if (FIND_EXEC.has(t)) {
      // the command is checked on its own (shell.ts); skip to its end
      while (i + 1 < n) {
        i++
        const x = words[i] as ShellWord
        // `+` ends -exec only right after `{}`; elsewhere it is an argument (GNU find)
        if (x.literal && (x.text === ';' || (x.text === '+' && words[i - 1]?.text === '{}'))) break
      }
    } else if (t === '-delete') {
      del = true
    } else if (t === '-files0-from') {
      files0 = true
      i++
    } else if (t === '-fprintf' || t.startsWith('-newer')) {
      i += t === '-fprintf' ? 2 : 1
    } else if (FIND_ONE_ARG.has(t)) {
      i++
    }
  }
  if (unknown !== undefined) {
    out.push(dynamicArgument('find', unknown, 'an action such as -delete, -fprint or -exec'))
  }
  if (del) {
    if (files0) {
      out.push(writesUnknown('find -delete with -files0-from deletes paths listed in a file'))
    }
    for (const start of starts.length > 0 || files0 ? starts : [lit('.')]) {
      out.push(fileWrite('find -delete', start, true))
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// sort, uniq, split, csplit

const SORT: OptionTable = {
  shortValue: 'kotST',
  longValue: [
    'key',
    'output',
    'field-separator',
    'buffer-size',
    'temporary-directory',
    'compress-program',
    'parallel',
    'batch-size',
    'files0-from',
    'random-source',
    'sort'
  ],
  longOptional: ['check'],
  alias: { k: 'key', o: 'output', t: 'field-separator', S: 'buffer-size' },
  effectful: ['output', 'compress-program'],
  effectfulShort: 'o'
}

function sortEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, SORT)
  const out = unknownWords(parsed, name, 'an option that writes a file or runs a program (-o)')
  for (const file of values(parsed, 'output')) out.push(fileWrite(`${name} -o`, file))
  if (has(parsed, 'output') && values(parsed, 'output').length === 0) {
    out.push(writesUnknown(`${name} -o without a file name`))
  }
  if (has(parsed, 'compress-program')) {
    out.push(runsCode(`${name} --compress-program runs that program`))
  }
  return out
}

const UNIQ: OptionTable = {
  shortValue: 'fsw',
  longValue: ['skip-fields', 'skip-chars', 'check-chars'],
  longOptional: ['all-repeated', 'group']
}

function uniqEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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

const SPLIT: OptionTable = {
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

function splitEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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

const CSPLIT: OptionTable = {
  shortValue: 'bfn',
  longValue: ['suffix-format', 'prefix', 'digits'],
  alias: { b: 'suffix-format', f: 'prefix', n: 'digits' },
  effectful: ['suffix-format', 'prefix'],
  effectfulShort: 'bf'
}

const PRINTF_DIRECTIVE = /%[^a-zA-Z%]*[a-zA-Z%]/g

function csplitEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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

// ---------------------------------------------------------------------------------------------
// git

/** `git -c` settings that cannot make git run anything (keys lower-cased). */
const GIT_SAFE_CONFIG = new Set([
  'color.ui',
  'color.diff',
  'color.status',
  'color.branch',
  'color.grep',
  'core.quotepath',
  'core.abbrev',
  'diff.noprefix',
  'diff.renames',
  'log.showsignature',
  'user.name',
  'user.email',
  'init.defaultbranch',
  'advice.detachedhead',
  'column.ui',
  'pager.branch',
  'pager.log',
  'pager.diff',
  'pager.show'
])

const TRAILING_SLASHES = /\/+$/
const UNDERSCORES = /_/g
const LEADING_SLASHES = /^\/+/
const LEADING_DASHES = /^-+/
const WHITESPACE = /\s+/
/** `-x`, `-ix`: git rebase's --exec in a cluster of short options. */
const REBASE_EXEC_CLUSTER = /^-[a-zA-Z]*x/
/** `-u`, `-mu`: git read-tree's update of the working tree. */
const READ_TREE_UPDATE = /^-[a-z]*u/

/**
 * How git's own options before the subcommand can make it run other code, write or connect.
 *
 * `-c`: only settings that run nothing (GIT_SAFE_CONFIG, `core.pager=cat`). `--config-env`,
 * `--exec-path=DIR`, `--paginate`: runs code. `--git-dir`: only `.git` (another repository's
 * config runs programs: core.fsmonitor, core.pager, hooks). `-C DIR`: a literal relative path
 * that stays inside the working directory is treated like `cd DIR && git` (which the shell rules
 * already allow); absolute, `~`, `..`-escaping or run-time paths are denied. A repository the
 * agent plants inside the workspace (a bare repo's `config` in a writable directory) is the
 * same risk as `cd dir && git status`, and is for the write rules and the OS sandbox to stop.
 * `--work-tree`: only `.`. `--namespace` is harmless.
 */
function gitGlobal(words: readonly ShellWord[]): {
  effects: CommandEffect[]
  index: number
  /** Where `-C` moved git ('' when it did not). */
  dir: string
} {
  const out: CommandEffect[] = []
  let dir = ''
  let i = 1
  const valueOf = (t: string, option: string): ShellWord | undefined => {
    if (t.length > option.length && t[option.length] === '=') return lit(t.slice(option.length + 1))
    i++
    return words[i]
  }
  for (; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (w.prefix === '' || w.prefix.startsWith('-')) {
        out.push(dynamicArgument('git', w, 'an option (-c, --exec-path) or a subcommand'))
        return { effects: out, index: words.length, dir }
      }
      break
    }
    const t = w.text
    if (!t.startsWith('-')) break
    if (t === '-c') {
      i++
      const setting = words[i]
      if (setting === undefined) continue
      if (!setting.literal) {
        out.push(dynamicArgument('git', setting, 'a setting that runs a program (core.pager=sh)'))
        continue
      }
      const eq = setting.text.indexOf('=')
      const key = (eq < 0 ? setting.text : setting.text.slice(0, eq)).toLowerCase()
      const value = eq < 0 ? '' : setting.text.slice(eq + 1)
      const pagerCat = key === 'core.pager' && value === 'cat'
      // pager.<cmd> takes a boolean, or the pager command itself: only booleans are safe
      const booleanPager =
        !key.startsWith('pager.') || /^(?:true|false|yes|no|on|off|0|1|)$/i.test(value)
      if ((!GIT_SAFE_CONFIG.has(key) || !booleanPager) && !pagerCat) {
        out.push(
          runsCode(
            `git -c ${setting.text} sets git configuration for the command, and settings such ` +
              'as core.pager, core.fsmonitor, diff.external or alias.* run programs'
          )
        )
      }
    } else if (t === '--config-env' || t.startsWith('--config-env=')) {
      valueOf(t, '--config-env')
      out.push(
        runsCode(
          'git --config-env sets git configuration from a variable, and settings such as ' +
            'core.pager or core.fsmonitor run programs'
        )
      )
    } else if (t.startsWith('--exec-path=')) {
      out.push(runsCode('git --exec-path=DIR runs git subcommands from DIR'))
    } else if (t === '-C') {
      i++
      const to = words[i]
      if (to === undefined) continue
      if (!to.literal) {
        out.push(dynamicArgument('git', to, 'a repository whose configuration runs programs'))
        continue
      }
      dir = isAbsolute(to.text) ? to.text : dir === '' ? to.text : `${dir}/${to.text}`
      if (to.tilde || !staysInside(dir)) {
        out.push(
          runsCode(
            `git -C ${to.text} works in a repository outside the working directory, whose ` +
              'configuration (core.fsmonitor, core.pager, hooks) can run programs'
          )
        )
      }
    } else if (t === '--git-dir' || t.startsWith('--git-dir=')) {
      const v = valueOf(t, '--git-dir')
      if (v === undefined) continue
      const p = v.text.replace(TRAILING_SLASHES, '')
      if (!v.literal || v.tilde || (p !== '.git' && p !== './.git')) {
        out.push(
          runsCode(
            `git --git-dir=${v.text} uses another repository, whose configuration ` +
              '(core.fsmonitor, core.pager, hooks) can run programs'
          )
        )
      }
    } else if (t === '--work-tree' || t.startsWith('--work-tree=')) {
      const v = valueOf(t, '--work-tree')
      if (v === undefined) continue
      if (!v.literal || (v.text !== '.' && v.text !== './')) {
        out.push(
          writesUnknown(`git --work-tree=${v.text} reads and writes files in another directory`)
        )
      }
    } else if (
      t === '--namespace' ||
      t === '--super-prefix' ||
      t === '--attr-source' ||
      t === '--list-cmds'
    ) {
      i++
    } else if (t === '-p' || t === '--paginate') {
      out.push(runsCode('git --paginate runs the configured pager; use --no-pager'))
    }
  }
  return { effects: out, index: i, dir }
}

function gitEffects(words: readonly ShellWord[]): CommandEffect[] {
  const { effects, index, dir } = gitGlobal(words)
  const sub = words[index]
  if (sub === undefined) return effects
  if (!sub.literal) {
    effects.push(
      problem(
        'dynamic-argument',
        `the git subcommand "${sub.text}" is only known when the command runs`
      )
    )
    return effects
  }
  const handler = GIT_SUBCOMMANDS.get(sub.text)
  if (handler !== undefined) {
    const own = handler(words.slice(index), sub.text)
    // git -C DIR resolves its output paths from DIR, which may be a link out of the rules' reach
    const moved = dir !== '' && dir.replace(TRAILING_SLASHES, '') !== '.'
    effects.push(
      ...own.map((e) =>
        moved && e.kind === 'write'
          ? writesUnknown(`git -C ${dir} writes ${e.target.text} relative to ${dir}`)
          : e
      )
    )
  } else if (!GIT_INERT.has(sub.text)) {
    // plumbing and rarer porcelain run programs (fetch-pack --upload-pack, remote-ext,
    // for-each-repo, merge-index) or write where they are told (mailinfo, interpret-trailers);
    // aliases come from configuration: only subcommands known to do neither are let through
    effects.push(
      runsCode(
        `git ${sub.text} is not a subcommand the policy knows to run nothing and write nothing it can check`
      )
    )
  }
  return effects
}

/** git subcommands with no handler above that read and print only (given inert global options). */
const GIT_INERT = new Set([
  'status',
  'log',
  'shortlog',
  'blame',
  'annotate',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'rev-list',
  'describe',
  'name-rev',
  'merge-base',
  'cat-file',
  'show-ref',
  'show-branch',
  'for-each-ref',
  'count-objects',
  'check-ignore',
  'check-attr',
  'check-ref-format',
  'cherry',
  'version',
  'help',
  'verify-commit',
  'verify-tag',
  'fsck',
  'reflog',
  'branch',
  'tag',
  'add',
  'commit',
  'init',
  'notes',
  'stage',
  'whatchanged',
  'grep',
  'diff',
  'show',
  'range-diff',
  'format-patch',
  'archive'
])

type GitHandler = (args: readonly ShellWord[], sub: string) => CommandEffect[]

/** git fast-export --export-marks=FILE writes FILE (any other spelling: not known). */
function gitFastExport(args: readonly ShellWord[]): CommandEffect[] {
  const out: CommandEffect[] = []
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as ShellWord
    if (!w.literal) {
      out.push(dynamicArgument('git fast-export', w, '--export-marks=FILE, which writes FILE'))
    } else if (w.text.startsWith('--export-marks=')) {
      out.push(write('git fast-export --export-marks', lit(w.text.slice('--export-marks='.length))))
    } else if (w.text.startsWith('--export-m')) {
      out.push(writesUnknown(`git fast-export ${w.text} writes a marks file`))
    }
  }
  return out
}

/** A pathspec git writes to: a directory, a glob (git's `*` crosses `/`) or `:(magic)`. */
function pathspecWrite(label: string, spec: ShellWord): CommandEffect {
  if (spec.literal) {
    const t = spec.text
    if (t.startsWith(':')) {
      return writesUnknown(`${label}: the pathspec "${t}" uses pathspec magic`)
    }
    let cut = -1
    for (let i = 0; i < t.length; i++) {
      const c = t[i]
      if (c === '*' || c === '?' || c === '[' || c === '\\') {
        cut = i
        break
      }
    }
    if (cut >= 0) return write(label, lit(dirName(t.slice(0, cut) + 'x')), true)
  }
  return fileWrite(label, spec, true)
}

/** Scans a git subcommand's options: names (without dashes) and operands, `--` split. */
interface GitArgs {
  options: Option[]
  before: ShellWord[]
  after: ShellWord[]
  dashDash: boolean
  unknown?: ShellWord
}

function gitArgs(args: readonly ShellWord[], table: OptionTable): GitArgs {
  const parsed = parseOptions(args, table)
  let dashDash = false
  let split = parsed.operands.length
  // parseOptions puts the words after `--` at the end of operands: find where they start
  for (let i = 1; i < args.length; i++) {
    const w = args[i] as ShellWord
    if (w.literal && w.text === '--') {
      dashDash = true
      split = parsed.operands.length - (args.length - i - 1)
      break
    }
  }
  const result: GitArgs = {
    options: parsed.options,
    before: parsed.operands.slice(0, split),
    after: parsed.operands.slice(split),
    dashDash
  }
  const first = parsed.unknown[0]
  if (first !== undefined) result.unknown = first
  return result
}

function gitUnknown(a: GitArgs, sub: string, could: string): CommandEffect[] {
  return a.unknown === undefined ? [] : [dynamicArgument(`git ${sub}`, a.unknown, could)]
}

const GIT_DIFF: OptionTable = {
  shortValue: 'oSGLn',
  shortOptional: 'UlMCB',
  longValue: ['output', 'output-directory'],
  flags: ['output-indicator-new', 'output-indicator-old', 'output-indicator-context'],
  alias: { o: 'output-directory' },
  effectful: ['output', 'ext-diff', 'output-directory'],
  effectfulShort: 'o'
}

const gitDiffLike: GitHandler = (args, sub) => {
  const a = gitArgs(args, GIT_DIFF)
  const out = gitUnknown(a, sub, 'an option that writes a file (--output) or runs a program')
  const has = (n: string): boolean => a.options.some((o) => o.name === n)
  for (const o of a.options) {
    if (o.name === 'output') {
      out.push(
        o.value === undefined
          ? writesUnknown(`git ${sub} --output`)
          : fileWrite(`git ${sub} --output`, o.value)
      )
    }
    if (o.name === 'ext-diff') {
      out.push(runsCode(`git ${sub} --ext-diff runs the external diff program`))
    }
  }
  if (sub === 'format-patch' && !has('stdout')) {
    const dirs = a.options.filter((o) => o.name === 'output-directory' && o.value !== undefined)
    if (dirs.length > 0) {
      for (const o of dirs) out.push(fileWrite('git format-patch -o', o.value as ShellWord, true))
    } else {
      out.push(write('git format-patch (NNNN-*.patch)', lit('0001-commit.patch')))
    }
  }
  return out
}

const GIT_GREP: OptionTable = {
  shortValue: 'efABCm',
  shortOptional: 'O',
  longValue: ['max-depth', 'threads', 'context', 'after-context', 'before-context', 'max-count'],
  longOptional: ['open-files-in-pager'],
  flags: ['or', 'and', 'not'],
  alias: { O: 'open-files-in-pager' },
  effectful: ['open-files-in-pager', 'ext-grep'],
  effectfulShort: 'O'
}

const gitGrep: GitHandler = (args) => {
  const a = gitArgs(args, GIT_GREP)
  const out = gitUnknown(a, 'grep', 'an option that runs a program (-O)')
  if (a.options.some((o) => o.name === 'open-files-in-pager' || o.name === 'ext-grep')) {
    out.push(runsCode('git grep -O/--open-files-in-pager runs a pager program'))
  }
  return out
}

const GIT_ARCHIVE: OptionTable = {
  shortValue: 'o',
  longValue: ['output', 'remote', 'exec', 'format', 'prefix', 'add-file', 'add-virtual-file'],
  alias: { o: 'output' },
  effectful: ['output', 'remote', 'exec'],
  effectfulShort: 'o'
}

const gitArchive: GitHandler = (args) => {
  const a = gitArgs(args, GIT_ARCHIVE)
  const out = gitUnknown(
    a,
    'archive',
    'an option that writes a file or connects (--output, --remote)'
  )
  for (const o of a.options) {
    if (o.name === 'output' && o.value !== undefined)
      out.push(fileWrite('git archive --output', o.value))
    if (o.name === 'remote')
      out.push(network('git archive --remote connects to another repository'))
    if (o.name === 'exec') out.push(runsCode('git archive --exec runs a program'))
  }
  return out
}

const gitNetwork: GitHandler = (_args, sub) => [
  network(`git ${sub} connects to another repository or host`)
]

const gitRunsCode: GitHandler = (_args, sub) => [runsCode(`git ${sub} runs other programs`)]

const gitWritesUnknown: GitHandler = (_args, sub) => [
  writesUnknown(
    `git ${sub} rewrites files in the working tree from commits, which can hold any file`
  )
]

const GIT_CONFIG_READS = new Set([
  'get',
  'get-all',
  'get-regexp',
  'get-urlmatch',
  'get-color',
  'get-colorbool',
  'list',
  'l',
  'show-origin',
  'show-scope',
  'name-only',
  'null',
  'z',
  'includes',
  'no-includes',
  'type',
  'default',
  'bool',
  'int',
  'path',
  'local',
  'global',
  'system',
  'worktree',
  'file',
  'f',
  'blob'
])

const GIT_CONFIG: OptionTable = {
  shortValue: 'f',
  longValue: ['file', 'blob', 'type', 'default'],
  alias: { f: 'file', l: 'list', z: 'null' }
}

const gitConfig: GitHandler = (args) => {
  const a = gitArgs(args, GIT_CONFIG)
  const operands = [...a.before, ...a.after]
  const readsOnly = a.options.every((o) => GIT_CONFIG_READS.has(o.name))
  const reading = a.options.some(
    (o) => o.name.startsWith('get') || o.name === 'list' || o.name === 'l'
  )
  const sub = operands[0]
  const subRead = sub?.literal === true && (sub.text === 'get' || sub.text === 'list')
  const allKnown = operands.every((w) => w.literal)
  if (allKnown && readsOnly && (reading || subRead || operands.length <= 1)) {
    // the configuration can hold the checkout's token (http.<url>.extraheader): read keys, not it
    const lists = a.options.some((o) =>
      ['list', 'l', 'get-regexp', 'get-urlmatch'].includes(o.name)
    )
    const secret = operands.some((w) => /^(?:http|credential|url)\./i.test(w.text))
    if (lists || sub?.text === 'list' || secret) {
      return [
        problem(
          'reads-secret',
          'git config would print settings that can hold the checkout token (http.*.extraheader)'
        )
      ]
    }
    return []
  }
  return [
    runsCode(
      'git config changes git configuration, and settings such as core.pager, core.fsmonitor, ' +
        'core.hooksPath or alias.* run programs'
    )
  ]
}

const gitRemote: GitHandler = (args) => {
  const sub = args.slice(1).find((w) => !w.literal || !w.text.startsWith('-'))
  if (sub === undefined) return []
  if (!sub.literal) return [dynamicArgument('git remote', sub, 'a subcommand that connects')]
  switch (sub.text) {
    case 'get-url':
      return []
    case 'show':
      return args.some((w) => w.literal && w.text === '-n')
        ? []
        : [network('git remote show connects to the remote')]
    case 'update':
    case 'prune':
      return [network(`git remote ${sub.text} connects to the remote`)]
    default:
      // add, rename, remove, set-url, ... (add -f also fetches)
      return [
        write(`git remote ${sub.text}`, lit('.git/config')),
        ...(args.some((w) => w.literal && (w.text === '-f' || w.text === '--fetch'))
          ? [network('git remote add -f fetches from the remote')]
          : [])
      ]
  }
}

const gitSubmodule: GitHandler = (args) => {
  const sub = args.slice(1).find((w) => !w.literal || !w.text.startsWith('-'))
  if (sub === undefined) return []
  if (!sub.literal) return [dynamicArgument('git submodule', sub, 'a subcommand that runs code')]
  switch (sub.text) {
    case 'status':
    case 'summary':
      return []
    case 'foreach':
      return [runsCode('git submodule foreach runs a shell command in each submodule')]
    case 'update':
    case 'add':
      return [network(`git submodule ${sub.text} fetches from other repositories`)]
    default:
      return [writesUnknown(`git submodule ${sub.text} changes submodules and git configuration`)]
  }
}

const gitStash: GitHandler = (args) => {
  const sub = args[1]
  if (sub === undefined) {
    return [writesUnknown('git stash resets changed files to HEAD, which can hold any file')]
  }
  if (!sub.literal) return [dynamicArgument('git stash', sub, 'pop or apply, which write files')]
  if (sub.text === 'pop' || sub.text === 'apply' || sub.text === 'branch') {
    return [writesUnknown(`git stash ${sub.text} writes the stashed files, which can be any file`)]
  }
  if (STASH_READS.has(sub.text)) return []
  // `git stash`, `push`, `save`, `-p`, ...: the working tree goes back to HEAD, and HEAD can
  // hold anything the agent committed (`git apply --cached` a patch, commit, stash)
  return [writesUnknown('git stash resets changed files to HEAD, which can hold any file')]
}

/** `git stash` subcommands that leave the working tree alone. */
const STASH_READS = new Set(['list', 'show', 'drop', 'clear', 'create', 'store'])

const GIT_CHECKOUT: OptionTable = {
  shortValue: 'bB',
  longValue: ['orphan'],
  longOptional: ['track', 'conflict', 'pathspec-from-file', 'recurse-submodules'],
  effectful: ['pathspec-from-file'],
  effectfulShort: 'bB'
}

const CHECKOUT_HINT =
  'when it names a branch or commit, git checkout rewrites any file that differs there; ' +
  'write "git checkout -- <path>" or "git restore <path>" to restore files'

const gitCheckout: GitHandler = (args) => {
  const a = gitArgs(args, GIT_CHECKOUT)
  const out = gitUnknown(a, 'checkout', 'a branch or an option')
  const has = (...n: string[]): boolean => a.options.some((o) => n.includes(o.name))
  if (has('pathspec-from-file')) {
    out.push(writesUnknown('git checkout --pathspec-from-file restores files listed in a file'))
  }
  const creates = has('b', 'B', 'orphan')
  // -f / --force throws local changes away: the working tree becomes the commit checked out
  if (has('f', 'force') && a.after.length === 0) {
    out.push(writesUnknown(`git checkout --force: ${CHECKOUT_HINT}`))
  }
  if (a.dashDash) {
    if (a.after.length === 0) {
      if (a.before.length > 0 && !creates) out.push(writesUnknown(`git checkout: ${CHECKOUT_HINT}`))
      if (a.before.length > 0 && creates)
        out.push(writesUnknown('git checkout -b NAME START checks out START'))
    }
    for (const spec of a.after) out.push(pathspecWrite('git checkout', spec))
    return out
  }
  if (creates) {
    if (a.before.length > 0) out.push(writesUnknown('git checkout -b NAME START checks out START'))
    return out
  }
  if (a.before.length === 0) {
    if (has('p', 'patch'))
      out.push(writesUnknown('git checkout -p rewrites chosen changes in any file'))
    if (has('detach')) out.push(writesUnknown(`git checkout --detach: ${CHECKOUT_HINT}`))
    return out
  }
  if (a.before.length === 1) {
    const only = a.before[0] as ShellWord
    if (only.literal && (only.text === '.' || only.text === './')) {
      out.push(write('git checkout', only, true))
    } else {
      out.push(writesUnknown(`git checkout ${only.text}: ${CHECKOUT_HINT}`))
    }
    return out
  }
  // `git checkout <tree-ish> <path>...` or `git checkout <path>...`
  for (const spec of a.before) out.push(pathspecWrite('git checkout', spec))
  return out
}

const GIT_RESTORE: OptionTable = {
  shortValue: 's',
  longValue: ['source'],
  longOptional: ['conflict', 'pathspec-from-file', 'recurse-submodules'],
  alias: { s: 'source', W: 'worktree', S: 'staged', p: 'patch' },
  effectful: ['pathspec-from-file', 'worktree', 'staged'],
  effectfulShort: 'WS'
}

const gitRestore: GitHandler = (args) => {
  const a = gitArgs(args, GIT_RESTORE)
  const out = gitUnknown(a, 'restore', 'a path or an option')
  const has = (n: string): boolean => a.options.some((o) => o.name === n)
  if (has('staged') && !has('worktree')) return out
  if (has('pathspec-from-file')) {
    out.push(writesUnknown('git restore --pathspec-from-file restores files listed in a file'))
  }
  const specs = [...a.before, ...a.after]
  if (specs.length === 0 && has('patch')) {
    out.push(writesUnknown('git restore -p rewrites chosen changes in any file'))
  }
  for (const spec of specs) out.push(pathspecWrite('git restore', spec))
  return out
}

const gitReset: GitHandler = (args) => {
  for (const w of args.slice(1)) {
    if (!w.literal) {
      if (w.prefix === '' || w.prefix.startsWith('-')) {
        return [dynamicArgument('git reset', w, '--hard, which rewrites files')]
      }
      continue
    }
    if (w.text === '--') break
    if (w.text === '--hard' || w.text === '--merge' || w.text === '--keep') {
      return [writesUnknown(`git reset ${w.text} rewrites files in the working tree from a commit`)]
    }
  }
  return []
}

const GIT_CLEAN: OptionTable = {
  shortValue: 'e',
  longValue: ['exclude'],
  alias: { n: 'dry-run', e: 'exclude' },
  effectful: ['dry-run'],
  effectfulShort: 'n'
}

const gitClean: GitHandler = (args) => {
  const a = gitArgs(args, GIT_CLEAN)
  if (a.options.some((o) => o.name === 'dry-run')) return []
  const out = gitUnknown(a, 'clean', 'a path or an option')
  const specs = [...a.before, ...a.after]
  for (const spec of specs.length > 0 ? specs : [lit('.')]) {
    out.push(pathspecWrite('git clean', spec))
  }
  return out
}

const GIT_RM: OptionTable = {
  longOptional: ['pathspec-from-file'],
  alias: { r: 'recursive', n: 'dry-run' },
  effectful: ['pathspec-from-file', 'cached', 'dry-run'],
  effectfulShort: 'rn'
}

const gitRm: GitHandler = (args, sub) => {
  const a = gitArgs(args, GIT_RM)
  const has = (n: string): boolean => a.options.some((o) => o.name === n)
  if (has('dry-run') || (sub === 'rm' && has('cached'))) return []
  const out = gitUnknown(a, sub, 'a path or an option')
  if (has('pathspec-from-file')) {
    out.push(writesUnknown(`git ${sub} --pathspec-from-file changes files listed in a file`))
  }
  for (const spec of [...a.before, ...a.after]) out.push(pathspecWrite(`git ${sub}`, spec))
  return out
}

const gitRebase: GitHandler = (args) => {
  const out: CommandEffect[] = []
  for (const w of args.slice(1)) {
    if (!w.literal) continue
    if (w.text.startsWith('--exec') || REBASE_EXEC_CLUSTER.test(w.text)) {
      out.push(runsCode('git rebase --exec runs a shell command after each commit'))
      break
    }
  }
  out.push(...gitWritesUnknown(args, 'rebase'))
  return out
}

const gitBisect: GitHandler = (args) => {
  const sub = args[1]
  if (sub === undefined) return []
  if (!sub.literal) return [dynamicArgument('git bisect', sub, 'run, which runs a program')]
  if (sub.text === 'run') return [runsCode('git bisect run runs a program on each commit')]
  if (['log', 'terms', 'visualize', 'view', 'help'].includes(sub.text)) return []
  return [writesUnknown(`git bisect ${sub.text} checks out commits, which can hold any file`)]
}

const gitWorktree: GitHandler = (args) => {
  const sub = args[1]
  if (sub === undefined || !sub.literal)
    return sub === undefined
      ? []
      : [dynamicArgument('git worktree', sub, 'add, which writes files')]
  if (!['add', 'move', 'remove'].includes(sub.text)) return []
  const a = gitArgs(args.slice(1), {
    shortValue: 'bB',
    longValue: ['reason'],
    longOptional: ['orphan']
  })
  const out = gitUnknown(a, `worktree ${sub.text}`, 'an option')
  const operands = [...a.before, ...a.after]
  const paths = sub.text === 'add' ? operands.slice(0, 1) : operands
  for (const p of paths) out.push(fileWrite(`git worktree ${sub.text}`, p, true))
  return out
}

const gitInit: GitHandler = (args) => {
  const a = gitArgs(args, {
    longValue: ['template', 'separate-git-dir', 'object-format', 'ref-format'],
    longOptional: ['shared'],
    effectful: ['separate-git-dir', 'template'],
    effectfulShort: ''
  })
  const out = gitUnknown(a, 'init', 'an option')
  const dir = [...a.before, ...a.after][0] ?? lit('.')
  const bare = a.options.some((o) => o.name === 'bare')
  out.push(fileWrite('git init', bare ? dir : joinPath(dir, '.git'), true))
  for (const o of a.options) {
    if (o.name === 'separate-git-dir' && o.value !== undefined) {
      out.push(fileWrite('git init --separate-git-dir', o.value, true))
    }
  }
  return out
}

const gitBundle: GitHandler = (args) => {
  const sub = args[1]
  if (sub?.literal !== true || sub.text !== 'create') return []
  const a = gitArgs(args.slice(1), { longValue: ['version'] })
  const file = a.before[0]
  return file === undefined ? [] : [fileWrite('git bundle create', file)]
}

const gitMergeFile: GitHandler = (args) => {
  const a = gitArgs(args, { shortValue: 'L', longValue: ['marker-size', 'diff-algorithm'] })
  if (a.options.some((o) => o.name === 'p' || o.name === 'stdout')) return []
  const current = a.before[0]
  return current === undefined ? [] : [fileWrite('git merge-file', current)]
}

const gitHelp: GitHandler = (args) =>
  args.some((w) => !w.literal || w.text === '-w' || /^--we/.test(w.text))
    ? [runsCode('git help --web runs a web browser')]
    : []

const gitApply: GitHandler = (args) => {
  const a = gitArgs(args, {
    shortValue: 'pC',
    longValue: ['exclude', 'include', 'directory', 'whitespace', 'build-fake-ancestor'],
    effectful: ['apply', 'index'],
    effectfulShort: ''
  })
  const names = new Set(a.options.map((o) => o.name))
  const reportOnly =
    !names.has('apply') && ['check', 'stat', 'numstat', 'summary'].some((n) => names.has(n))
  if (reportOnly || (names.has('cached') && !names.has('index'))) return []
  return [writesUnknown('git apply writes the files named in the patch')]
}

const GIT_SUBCOMMANDS = new Map<string, GitHandler>([
  ['log', gitDiffLike],
  ['show', gitDiffLike],
  ['diff', gitDiffLike],
  ['diff-tree', gitDiffLike],
  ['diff-index', gitDiffLike],
  ['diff-files', gitDiffLike],
  ['whatchanged', gitDiffLike],
  ['range-diff', gitDiffLike],
  ['format-patch', gitDiffLike],
  ['grep', gitGrep],
  ['archive', gitArchive],
  ['fetch', gitNetwork],
  ['pull', gitNetwork],
  ['push', gitNetwork],
  ['clone', gitNetwork],
  ['ls-remote', gitNetwork],
  ['send-email', gitNetwork],
  ['request-pull', gitNetwork],
  ['svn', gitNetwork],
  ['p4', gitNetwork],
  ['cvsimport', gitNetwork],
  ['archimport', gitNetwork],
  ['http-fetch', gitNetwork],
  ['http-push', gitNetwork],
  ['upload-pack', gitNetwork],
  ['receive-pack', gitNetwork],
  ['upload-archive', gitNetwork],
  ['daemon', gitNetwork],
  ['maintenance', gitNetwork],
  ['remote', gitRemote],
  ['submodule', gitSubmodule],
  ['config', gitConfig],
  ['difftool', gitRunsCode],
  ['mergetool', gitRunsCode],
  ['filter-branch', gitRunsCode],
  ['filter-repo', gitRunsCode],
  ['instaweb', gitRunsCode],
  ['web--browse', gitRunsCode],
  ['hook', gitRunsCode],
  ['bisect', gitBisect],
  ['rebase', gitRebase],
  ['merge', gitWritesUnknown],
  ['cherry-pick', gitWritesUnknown],
  ['revert', gitWritesUnknown],
  ['am', gitWritesUnknown],
  ['switch', gitSwitch],
  ['checkout-index', gitWritesUnknown],
  ['read-tree', gitReadTree],
  ['sparse-checkout', gitWritesUnknown],
  ['apply', gitApply],
  [
    'fast-import',
    () => [
      writesUnknown('git fast-import writes objects, refs and marks files the policy cannot name')
    ]
  ],
  ['fast-export', gitFastExport],
  ['stash', gitStash],
  ['checkout', gitCheckout],
  ['restore', gitRestore],
  ['reset', gitReset],
  ['clean', gitClean],
  ['rm', gitRm],
  ['mv', gitRm],
  ['worktree', gitWorktree],
  ['init', gitInit],
  ['bundle', gitBundle],
  ['merge-file', gitMergeFile],
  ['help', gitHelp]
])

function gitSwitch(args: readonly ShellWord[]): CommandEffect[] {
  const a = gitArgs(args, {
    shortValue: 'cC',
    longValue: ['create', 'force-create', 'orphan'],
    longOptional: ['track', 'conflict', 'recurse-submodules'],
    effectful: ['create', 'force-create', 'orphan'],
    effectfulShort: 'cC'
  })
  const creates = a.options.some((o) =>
    ['c', 'C', 'create', 'force-create', 'orphan'].includes(o.name)
  )
  const operands = [...a.before, ...a.after]
  // --force / --discard-changes reset the working tree, --orphan empties it
  const resets = a.options.some((o) => ['f', 'force', 'discard-changes', 'orphan'].includes(o.name))
  if (creates && operands.length === 0 && !resets) return gitUnknown(a, 'switch', 'a branch')
  return [
    ...gitUnknown(a, 'switch', 'a branch'),
    writesUnknown('git switch rewrites any file that differs in the branch it switches to')
  ]
}

function gitReadTree(args: readonly ShellWord[]): CommandEffect[] {
  return args.some((w) => !w.literal || w.text === '--reset' || READ_TREE_UPDATE.test(w.text))
    ? gitWritesUnknown(args, 'read-tree')
    : []
}

// ---------------------------------------------------------------------------------------------
// file, tar, unzip

const FILE: OptionTable = {
  shortValue: 'eFfmP',
  longValue: ['exclude', 'exclude-quiet', 'separator', 'files-from', 'magic-file', 'parameter'],
  alias: { C: 'compile', m: 'magic-file' },
  effectful: ['compile'],
  effectfulShort: 'C'
}

function fileEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, FILE)
  const out = unknownWords(parsed, name, '-C, which writes a compiled magic file')
  if (!has(parsed, 'compile')) return out
  const magic = values(parsed, 'magic-file')
  if (magic.length === 0) out.push(write(`${name} -C`, lit('magic.mgc')))
  for (const m of magic) {
    if (!m.literal) {
      out.push(write(`${name} -C`, dyn(`${m.text}.mgc`)))
      continue
    }
    for (const part of m.text.split(':')) {
      if (part !== '') out.push(write(`${name} -C`, lit(`${baseName(part)}.mgc`)))
    }
  }
  return out
}

const TAR: OptionTable = {
  shortValue: 'bCfFgHIKLNTVX',
  longValue: [
    'file',
    'directory',
    'to-command',
    'use-compress-program',
    'checkpoint-action',
    'rsh-command',
    'rmt-command',
    'info-script',
    'new-volume-script',
    'index-file',
    'listed-incremental',
    'files-from',
    'exclude-from',
    'exclude',
    'blocking-factor',
    'format',
    'label',
    'owner',
    'group',
    'mode',
    'mtime',
    'newer',
    'after-date',
    'newer-mtime',
    'transform',
    'xform',
    'tape-length',
    'starting-file',
    'strip-components',
    'suffix',
    'backup',
    'record-size',
    'volno-file',
    'occurrence',
    'owner-map',
    'group-map',
    'pax-option',
    'quoting-style',
    'sort',
    'warning',
    'hole-detection',
    'exclude-tag',
    'exclude-tag-under',
    'exclude-tag-all'
  ],
  flags: ['to-stdout', 'list', 'diff', 'compare', 'delete', 'checkpoint', 'get'],
  alias: {
    x: 'extract',
    c: 'create',
    r: 'append',
    u: 'update',
    A: 'catenate',
    t: 'list',
    d: 'diff',
    C: 'directory',
    f: 'file',
    F: 'info-script',
    g: 'listed-incremental',
    I: 'use-compress-program',
    O: 'to-stdout',
    P: 'absolute-names',
    T: 'files-from',
    X: 'exclude-from'
  },
  effectful: [
    'extract',
    'get',
    'create',
    'append',
    'update',
    'catenate',
    'concatenate',
    'delete',
    'file',
    'directory',
    'to-command',
    'use-compress-program',
    'checkpoint-action',
    'rsh-command',
    'rmt-command',
    'info-script',
    'new-volume-script',
    'index-file',
    'listed-incremental',
    'volno-file',
    'remove-files',
    'absolute-names'
  ],
  effectfulShort: 'xcruAfCFgIP'
}

/** `host:path` (a colon before any slash): rsync, scp and tar read it as a remote file. */
function isRemote(text: string): boolean {
  const colon = text.indexOf(':')
  if (colon <= 0) return false
  const slash = text.indexOf('/')
  return slash < 0 || colon < slash
}

function tarEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  // old-style options: `tar xzf a.tar` is `tar -x -z -f a.tar`
  let list = words
  const second = words[1]
  if (
    second !== undefined &&
    second.literal &&
    second.text !== '' &&
    !second.text.startsWith('-')
  ) {
    const expanded: ShellWord[] = [words[0] as ShellWord]
    let next = 2
    for (const letter of second.text) {
      expanded.push(lit(`-${letter}`))
      if ((TAR.shortValue ?? '').includes(letter) && next < words.length) {
        expanded.push(words[next] as ShellWord)
        next++
      }
    }
    list = [...expanded, ...words.slice(next)]
  }
  const parsed = parseOptions(list, TAR)
  const out = unknownWords(parsed, name, 'an option that extracts, writes or runs a program')
  const has2 = (...n: string[]): boolean => has(parsed, ...n)
  const archives = values(parsed, 'file')
  const forceLocal = has2('force-local')
  for (const a of archives) {
    if (!forceLocal && (!a.literal ? isRemote(a.prefix) : isRemote(a.text))) {
      out.push(network(`${name} -f ${a.text} reads or writes an archive on another host`))
    }
  }
  const runners: Array<[string, string]> = [
    ['to-command', 'pipes each extracted file into a shell command'],
    ['use-compress-program', 'runs that program'],
    ['rsh-command', 'runs that program to reach a remote archive'],
    ['rmt-command', 'runs that program on the remote host'],
    ['info-script', 'runs that script at the end of each volume'],
    ['new-volume-script', 'runs that script at the end of each volume']
  ]
  for (const [option, what] of runners) {
    if (has2(option)) out.push(runsCode(`${name} --${option} ${what}`))
  }
  for (const action of values(parsed, 'checkpoint-action')) {
    if (!action.literal || action.text.startsWith('exec')) {
      out.push(runsCode(`${name} --checkpoint-action=exec runs a shell command`))
    }
  }
  for (const file of values(parsed, 'index-file', 'listed-incremental', 'volno-file')) {
    out.push(fileWrite(`${name} (index)`, file))
  }
  if (has2('extract', 'get') && !has2('to-stdout')) {
    if (has2('absolute-names')) {
      out.push(writesUnknown(`${name} -x -P extracts absolute paths and "..", anywhere`))
    }
    const dirs = values(parsed, 'directory')
    let at = ''
    for (const d of dirs) {
      if (!d.literal) {
        out.push(write(`${name} -x`, d, true))
        at = ''
        continue
      }
      at = isAbsolute(d.text) || d.tilde || at === '' ? d.text : `${at}/${d.text}`
      out.push(write(`${name} -x`, lit(at, d.tilde), true))
    }
    if (dirs.length === 0) out.push(write(`${name} -x`, lit('.'), true))
  }
  if (has2('create', 'append', 'update', 'catenate', 'concatenate', 'delete')) {
    for (const a of archives) {
      if (!a.literal || a.text !== '-') out.push(fileWrite(`${name} -f`, a))
    }
    if (has2('remove-files')) {
      for (const member of parsed.operands)
        out.push(fileWrite(`${name} --remove-files`, member, true))
    }
  }
  return out
}

/** unzip's option letters that take a value (`-d dir`, `-P password`, `-O charset`). */
const UNZIP_VALUE = 'dPOI'
/** unzip modes that write nothing: list, test, to stdout, comment, zipinfo. */
const UNZIP_READ = 'ltvpcZz'

function unzipEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let readOnly = false
  let anyPath = false
  const dirs: ShellWord[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (w.prefix === '' || w.prefix.startsWith('-')) {
        out.push(dynamicArgument(name, w, '-d DIR, which names where it extracts'))
      }
      continue
    }
    const t = w.text
    if (!t.startsWith('-') || t.length < 2) continue
    if (t === '-x') continue
    for (let j = 1; j < t.length; j++) {
      const c = t[j] as string
      if (UNZIP_VALUE.includes(c)) {
        const rest = t.slice(j + 1)
        const value = rest !== '' ? lit(rest) : words[++i]
        if (c === 'd' && value !== undefined) dirs.push(value)
        break
      }
      if (UNZIP_READ.includes(c)) readOnly = true
      if (c === ':') anyPath = true
    }
  }
  if (readOnly) return out
  if (anyPath) out.push(writesUnknown(`${name} -: extracts paths with "..", anywhere`))
  for (const d of dirs.length > 0 ? dirs : [lit('.')]) out.push(fileWrite(`${name} -d`, d, true))
  return out
}

// ---------------------------------------------------------------------------------------------
// awk

const AWK: OptionTable = {
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

const AWK_SAFE_W = new Set(['version', 'sandbox', 'posix', 'traditional', 'usage', 'help'])

function awkEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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
    if (scan.network) out.push(network(`the ${name} program opens a network connection (/inet/)`))
    for (const target of scan.writes) out.push(write(`${name} print >`, target))
  }
  return out
}

interface AwkToken {
  type: 'str' | 'regex' | 'ident' | 'num' | 'op' | 'nl'
  text: string
}

const AWK_OPS3 = new Set(['**=', '>>='])
const AWK_OPS2 = new Set([
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
const AWK_OPERAND_END = new Set([')', ']', '$', '++', '--'])
const AWK_REGEX_AFTER_WORD = new Set([
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

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_'
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9')
}

/** Tokens of an awk program; undefined when a string or regex does not end. */
function tokenizeAwk(s: string): AwkToken[] | undefined {
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

interface AwkScan {
  /** What makes the program run other code, if anything. */
  runs?: string
  network: boolean
  writes: ShellWord[]
}

/**
 * What an awk program does beyond reading its input and printing: `system()`, pipes (`|`,
 * `|&`), gawk's `@include`/`@load`/indirect calls, `print > file` redirections and gawk's
 * `/inet/` special files. Undefined when the program cannot be read.
 */
function scanAwk(program: string): AwkScan | undefined {
  const tokens = tokenizeAwk(program)
  if (tokens === undefined) return undefined
  const scan: AwkScan = { network: false, writes: [] }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as AwkToken
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

// ---------------------------------------------------------------------------------------------
// rg, less, more, man

const RG: OptionTable = {
  shortValue: 'ABCeEfgjmMrtTd',
  longValue: [
    'after-context',
    'before-context',
    'context',
    'regexp',
    'encoding',
    'file',
    'glob',
    'iglob',
    'threads',
    'max-count',
    'max-columns',
    'replace',
    'type',
    'type-not',
    'type-add',
    'type-clear',
    'max-depth',
    'colors',
    'color',
    'context-separator',
    'dfa-size-limit',
    'engine',
    'field-context-separator',
    'field-match-separator',
    'hostname-bin',
    'hyperlink-format',
    'ignore-file',
    'max-filesize',
    'path-separator',
    'pre',
    'pre-glob',
    'regex-size-limit',
    'sort',
    'sortr',
    'generate'
  ],
  alias: { e: 'regexp', f: 'file', g: 'glob', r: 'replace', t: 'type', T: 'type-not' },
  effectful: ['pre', 'pre-glob', 'hostname-bin']
}

function rgEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, RG)
  const out = unknownWords(parsed, name, 'an option that runs a program (--pre)')
  if (has(parsed, 'pre', 'pre-glob')) {
    out.push(runsCode(`${name} --pre runs a preprocessor program on every file it searches`))
  }
  if (has(parsed, 'hostname-bin')) out.push(runsCode(`${name} --hostname-bin runs that program`))
  return out
}

const LESS: OptionTable = {
  shortValue: 'bhjkoOpPtTxyzD#',
  longValue: [
    'log-file',
    'LOG-FILE',
    'lesskey-file',
    'lesskey-src',
    'lesskey-content',
    'pattern',
    'prompt',
    'tag',
    'tag-file',
    'tabs',
    'max-back-scroll',
    'max-forw-scroll',
    'window',
    'shift',
    'color',
    'buffers',
    'jump-target'
  ],
  alias: { o: 'log-file', O: 'LOG-FILE', k: 'lesskey-file' },
  effectful: ['log-file', 'LOG-FILE', 'lesskey-file', 'lesskey-src', 'lesskey-content'],
  effectfulShort: 'oOk'
}

/** less/more initial commands (`+G`, `+/pattern`, `+42`) that do not run or save anything. */
const PAGER_SAFE_COMMAND = /^\+{1,2}(?:[0-9]*[GgFpP%]?|[/?][^\n\r]*)$/

function safePagerCommand(text: string): boolean {
  if (!PAGER_SAFE_COMMAND.test(text)) return false
  // a search pattern typed as keys: a control character (Enter, Escape) would end it
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return false
  }
  return true
}

function pagerEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, LESS)
  const out = unknownWords(
    parsed,
    name,
    'an option or a +command that writes a file or runs a command'
  )
  for (const file of values(parsed, 'log-file', 'LOG-FILE')) out.push(fileWrite(`${name} -o`, file))
  if (has(parsed, 'lesskey-file', 'lesskey-src', 'lesskey-content')) {
    out.push(runsCode(`${name} -k loads key bindings that can set LESSOPEN, which runs a program`))
  }
  for (const w of parsed.operands) {
    if (w.literal && w.text.startsWith('+') && !safePagerCommand(w.text)) {
      out.push(
        runsCode(`${name} ${w.text} runs a ${name} command at start (! runs a shell command)`)
      )
    }
  }
  return out
}

const MAN: OptionTable = {
  shortValue: 'CMPSsmLprReE',
  shortOptional: 'HT',
  longValue: [
    'config-file',
    'manpath',
    'pager',
    'sections',
    'systems',
    'locale',
    'preprocessor',
    'prompt',
    'recode',
    'encoding',
    'extension'
  ],
  longOptional: ['html', 'troff-device'],
  alias: { C: 'config-file', M: 'manpath', P: 'pager', H: 'html' },
  effectful: ['config-file', 'pager', 'html'],
  effectfulShort: 'CPH'
}

function manEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, MAN)
  const out = unknownWords(parsed, name, 'an option that runs a program (-P, -H)')
  if (has(parsed, 'pager')) out.push(runsCode(`${name} -P/--pager runs that pager program`))
  if (has(parsed, 'html')) out.push(runsCode(`${name} -H/--html runs a web browser`))
  if (has(parsed, 'config-file')) {
    out.push(runsCode(`${name} -C reads a configuration file that names programs to run`))
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// cp, mv, install, ln, rsync, scp

const COPY: OptionTable = {
  shortValue: 'Stgmo',
  longValue: [
    'suffix',
    'target-directory',
    'no-preserve',
    'sparse',
    'strip-program',
    'group',
    'mode',
    'owner'
  ],
  longOptional: ['backup', 'preserve', 'reflink', 'update', 'context'],
  alias: {
    S: 'suffix',
    t: 'target-directory',
    T: 'no-target-directory',
    r: 'recursive',
    R: 'recursive',
    a: 'archive',
    b: 'backup',
    D: 'parents-install',
    d: 'directory'
  },
  effectful: ['target-directory', 'no-target-directory', 'suffix', 'backup', 'strip-program'],
  effectfulShort: 'tTSbrRa'
}

/**
 * Where `cp`/`mv`/`install`/`ln` SOURCE... DEST write: DEST, and DEST/NAME when DEST may be a
 * directory; `-t DIR` puts each source in DIR; `-T` makes DEST the file itself.
 */
function destinationWrites(
  label: string,
  parsed: Parsed,
  subtree: boolean,
  sources: ShellWord[],
  dest: ShellWord | undefined
): CommandEffect[] {
  const out: CommandEffect[] = []
  const targetDirs = values(parsed, 'target-directory')
  const dirs = targetDirs.length > 0 ? targetDirs : []
  const backup = has(parsed, 'backup', 'suffix')
  const suffix = values(parsed, 'suffix').at(-1)?.text ?? '~'
  const targets: Array<[ShellWord, boolean, ShellWord[]?]> = []
  if (dirs.length === 0 && dest !== undefined) {
    const surelyDirectory =
      dest.literal && (dest.text === '.' || dest.text === '..' || dest.text.endsWith('/'))
    // a directory the sources land in is not itself written (`cp a src/`)
    if (!surelyDirectory || has(parsed, 'no-target-directory'))
      targets.push([dest, subtree, sources])
    if (!has(parsed, 'no-target-directory')) dirs.push(dest)
  }
  for (const dir of dirs) {
    for (const source of sources) {
      if (!source.literal || !dir.literal) {
        targets.push([dir, true])
        continue
      }
      const name = has(parsed, 'parents')
        ? source.text.replace(LEADING_SLASHES, '')
        : baseName(source.text)
      if (name === '' || name === '.' || name === '..' || name === '/') targets.push([dir, true])
      else targets.push([joinPath(dir, name), subtree, [source]])
    }
  }
  for (const [target, recursive, from] of targets) {
    const effect = fileWrite(label, target, recursive)
    out.push(
      from !== undefined && effect.kind === 'write' && effect.target === target
        ? { ...effect, from }
        : effect
    )
    if (backup && target.literal && !recursive) {
      out.push(write(`${label} backup`, lit(target.text + suffix, target.tilde)))
    }
  }
  return out
}

function copyEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, COPY)
  const out = unknownWords(parsed, name, 'an option that changes where it writes (-t DIR)')
  const operands = parsed.operands
  if (has(parsed, 'strip-program')) out.push(runsCode(`${name} --strip-program runs that program`))
  if (name === 'install' && has(parsed, 'directory')) {
    for (const dir of operands) out.push(fileWrite(`${name} -d`, dir))
    return out
  }
  const moves = name === 'mv'
  const recursive = moves || has(parsed, 'recursive', 'archive')
  const hasTargetDir = has(parsed, 'target-directory')
  let sources = hasTargetDir ? operands : operands.slice(0, -1)
  let dest = hasTargetDir ? undefined : operands[operands.length - 1]
  if (name === 'ln' && !hasTargetDir && operands.length === 1) {
    // `ln -s TARGET` makes ./NAME
    sources = operands
    dest = lit('.')
  }
  if (moves) {
    for (const source of sources) out.push(removal(fileWrite(`${name} (source)`, source, true)))
  }
  out.push(...destinationWrites(name, parsed, recursive, sources, dest))
  return out
}

const RSYNC: OptionTable = {
  shortValue: 'efBTM',
  longValue: [
    'rsh',
    'rsync-path',
    'remote-option',
    'filter',
    'exclude',
    'include',
    'exclude-from',
    'include-from',
    'files-from',
    'log-file',
    'log-file-format',
    'out-format',
    'password-file',
    'port',
    'sockopts',
    'partial-dir',
    'backup-dir',
    'suffix',
    'compare-dest',
    'copy-dest',
    'link-dest',
    'max-size',
    'min-size',
    'max-delete',
    'bwlimit',
    'timeout',
    'contimeout',
    'modify-window',
    'chmod',
    'chown',
    'usermap',
    'groupmap',
    'temp-dir',
    'write-batch',
    'only-write-batch',
    'read-batch',
    'protocol',
    'iconv',
    'checksum-choice',
    'compress-choice',
    'compress-level',
    'skip-compress',
    'block-size',
    'info',
    'debug',
    'outbuf',
    'address',
    'stop-after',
    'stop-at',
    'config',
    'dparam'
  ],
  alias: { e: 'rsh', f: 'filter', T: 'temp-dir', M: 'remote-option', B: 'block-size' },
  effectful: [
    'rsh',
    'rsync-path',
    'remote-option',
    'log-file',
    'write-batch',
    'only-write-batch',
    'backup-dir',
    'temp-dir',
    'partial-dir',
    'remove-source-files',
    'daemon',
    'config'
  ],
  effectfulShort: 'eTM'
}

function rsyncEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, RSYNC)
  const out = unknownWords(
    parsed,
    name,
    'an option that runs a program (-e) or changes where it writes'
  )
  if (has(parsed, 'rsh')) out.push(runsCode(`${name} -e/--rsh runs that remote shell program`))
  if (has(parsed, 'rsync-path', 'remote-option')) {
    out.push(runsCode(`${name} --rsync-path runs that program on the other side`))
  }
  if (has(parsed, 'daemon', 'config'))
    out.push(network(`${name} --daemon serves files over the network`))
  for (const file of values(parsed, 'log-file', 'write-batch', 'only-write-batch')) {
    out.push(fileWrite(`${name} (log/batch)`, file))
  }
  for (const dir of values(parsed, 'backup-dir', 'temp-dir', 'partial-dir')) {
    out.push(fileWrite(`${name} (backup/temp dir)`, dir, true))
  }
  const operands = parsed.operands
  for (const w of operands) {
    const t = w.literal ? w.text : w.prefix
    if (t.startsWith('rsync://') || isRemote(t)) {
      out.push(network(`${name} ${w.text} is on another host`))
    }
  }
  if (operands.length < 2) return out
  const dest = operands[operands.length - 1] as ShellWord
  if (!(dest.literal && (dest.text.startsWith('rsync://') || isRemote(dest.text)))) {
    out.push(fileWrite(name, dest, true))
  }
  if (has(parsed, 'remove-source-files')) {
    for (const source of operands.slice(0, -1))
      out.push(fileWrite(`${name} --remove-source-files`, source, true))
  }
  return out
}

const SCP: OptionTable = {
  shortValue: 'cDFiJlSoPX',
  alias: { r: 'recursive' },
  effectful: [],
  effectfulShort: 'SFoJ'
}

function scpEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, SCP)
  const out = unknownWords(parsed, name, 'an option that runs a program (-S, -o ProxyCommand)')
  if (has(parsed, 'S', 'F', 'o', 'J')) {
    out.push(runsCode(`${name} -S/-F/-o/-J run programs (ssh, ProxyCommand, an ssh config)`))
  }
  const operands = parsed.operands
  for (const w of operands) {
    const t = w.literal ? w.text : w.prefix
    if (t.startsWith('scp://') || isRemote(t))
      out.push(network(`${name} ${w.text} is on another host`))
  }
  const dest = operands[operands.length - 1]
  if (operands.length >= 2 && dest !== undefined && !(dest.literal && isRemote(dest.text))) {
    out.push(fileWrite(name, dest, true))
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// rm, rmdir, unlink, shred, truncate, touch, mkdir, chmod, chown, chgrp, dd, patch

interface TargetsSpec {
  table: OptionTable
  /** Options that make the writes recursive. */
  recursive?: readonly string[]
  /** Operands before the targets (chown OWNER, ...), unless one of `unlessOption` is given. */
  skip?: number
  unlessOption?: readonly string[]
}

const TARGETS: Record<string, TargetsSpec> = {
  rm: {
    table: {
      longOptional: ['interactive', 'preserve-root'],
      alias: { r: 'recursive', R: 'recursive' },
      effectful: ['recursive'],
      effectfulShort: 'rR'
    },
    recursive: ['recursive']
  },
  rmdir: { table: {} },
  unlink: { table: {} },
  shred: {
    table: {
      shortValue: 'ns',
      longValue: ['iterations', 'size', 'random-source'],
      longOptional: ['remove']
    }
  },
  truncate: {
    table: { shortValue: 'rs', longValue: ['reference', 'size'] }
  },
  touch: {
    table: { shortValue: 'drt', longValue: ['date', 'reference', 'time'] }
  },
  mkdir: {
    table: { shortValue: 'm', longValue: ['mode'], longOptional: ['context'] }
  },
  chown: {
    table: {
      longValue: ['from', 'reference'],
      alias: { R: 'recursive' },
      effectful: ['recursive', 'reference'],
      effectfulShort: 'R'
    },
    recursive: ['recursive'],
    skip: 1,
    unlessOption: ['reference']
  }
}
TARGETS.chgrp = TARGETS.chown as TargetsSpec

function targetsEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const spec = TARGETS[name] as TargetsSpec
  const parsed = parseOptions(words, spec.table)
  // a glob's files are already written recursively below its directory: a match that reads as
  // an option (a file named -r) adds nothing
  parsed.unknown = parsed.unknown.filter((w) => globDirectory(w) === undefined)
  const out = unknownWords(parsed, name, 'an option (-r) or a file')
  const recursive = spec.recursive !== undefined && has(parsed, ...spec.recursive)
  const skip =
    spec.unlessOption !== undefined && has(parsed, ...spec.unlessOption) ? 0 : (spec.skip ?? 0)
  for (const target of parsed.operands.slice(skip)) {
    const effect = fileWrite(name, target, recursive)
    out.push(name === 'rm' ? removal(effect) : effect)
    if (name === 'rmdir' && has(parsed, 'p', 'parents') && target.literal) {
      // rmdir -p a/b/c also removes a/b and a
      let parent = target.text.replace(TRAILING_SLASHES, '')
      while (parent.includes('/')) {
        parent = parent.slice(0, parent.lastIndexOf('/'))
        if (parent === '') break
        out.push(write(name, lit(parent, target.tilde)))
      }
    }
  }
  return out
}

/** chmod options; any other word starting with `-` is a mode (`chmod -x f`). */
const CHMOD_OPTION = /^-[Rcfv]+$/

function chmodEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let recursive = false
  let reference = false
  let modeSeen = false
  const operands: ShellWord[] = []
  let options = true
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (options && (w.prefix === '' || w.prefix.startsWith('-'))) {
        out.push(dynamicArgument(name, w, '-R or a file'))
      }
      operands.push(w)
      continue
    }
    const t = w.text
    if (options && t === '--') {
      options = false
    } else if (options && t.startsWith('--')) {
      if (t === '--recursive') recursive = true
      if (t.startsWith('--reference')) {
        reference = true
        if (!t.includes('=')) i++
      }
    } else if (options && CHMOD_OPTION.test(t)) {
      if (t.includes('R')) recursive = true
    } else if (options && t.startsWith('-') && t.length > 1 && !modeSeen) {
      modeSeen = true // `-w`, `-x`: the mode
      if (t.includes('R')) recursive = true
    } else {
      operands.push(w)
    }
  }
  const files = reference || modeSeen ? operands : operands.slice(1)
  for (const file of files) out.push(fileWrite(name, file, recursive))
  return out
}

function ddEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  for (const w of words.slice(1)) {
    if (!w.literal) {
      if ('of='.startsWith(w.prefix) || w.prefix.startsWith('of=')) {
        if (w.prefix.startsWith('of='))
          out.push(write(`${name} of=`, dyn(w.text.slice(3), w.prefix.slice(3))))
        else out.push(dynamicArgument(name, w, 'of=FILE, the file it writes'))
      }
      continue
    }
    if (w.text.startsWith('of=')) out.push(fileWrite(`${name} of=`, lit(w.text.slice(3))))
  }
  return out
}

const PATCH: OptionTable = {
  shortValue: 'BDdFgioprVYz',
  longValue: [
    'prefix',
    'ifdef',
    'directory',
    'fuzz',
    'get',
    'input',
    'output',
    'strip',
    'reject-file',
    'version-control',
    'basename-prefix',
    'suffix',
    'quoting-style',
    'reject-format',
    'read-only'
  ],
  alias: { d: 'directory', g: 'get', i: 'input', o: 'output', p: 'strip', r: 'reject-file' },
  effectful: ['output', 'directory', 'get', 'reject-file', 'dry-run'],
  effectfulShort: 'odgr'
}

function patchEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, PATCH)
  const out = unknownWords(parsed, name, 'an option that changes what it writes')
  for (const get of values(parsed, 'get')) {
    if (!get.literal || (get.text !== '0' && get.text !== '-1')) {
      out.push(runsCode(`${name} -g/--get runs a version control program to get files`))
    }
  }
  if (has(parsed, 'dry-run')) return out
  for (const file of values(parsed, 'reject-file')) out.push(fileWrite(`${name} -r`, file))
  if (has(parsed, 'directory')) {
    out.push(
      writesUnknown(`${name} -d changes directory, then writes the files named in the patch`)
    )
    return out
  }
  const output = values(parsed, 'output')
  const original = parsed.operands[0]
  if (output.length > 0) {
    for (const file of output) {
      if (!(file.literal && file.text === '-')) out.push(fileWrite(`${name} -o`, file))
    }
  } else if (original !== undefined) {
    out.push(fileWrite(name, original))
  } else {
    out.push(
      writesUnknown(
        `${name} writes the files named in the patch; add -o FILE (or --dry-run) to say which`
      )
    )
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// curl, wget

const CURL: OptionTable = {
  shortValue: 'AbcCdDeEFHKmoPQrtTuUwxXyYz',
  longValue: [
    'output',
    'output-dir',
    'url',
    'header',
    'data',
    'data-raw',
    'data-binary',
    'data-urlencode',
    'data-ascii',
    'json',
    'form',
    'form-string',
    'user',
    'user-agent',
    'referer',
    'request',
    'cookie',
    'cookie-jar',
    'config',
    'max-time',
    'connect-timeout',
    'proxy',
    'preproxy',
    'proxy-user',
    'proxy-header',
    'dump-header',
    'write-out',
    'trace',
    'trace-ascii',
    'stderr',
    'libcurl',
    'etag-save',
    'etag-compare',
    'hsts',
    'alt-svc',
    'ssl-sessions',
    'upload-file',
    'range',
    'retry',
    'retry-delay',
    'retry-max-time',
    'max-filesize',
    'limit-rate',
    'cert',
    'key',
    'cacert',
    'capath',
    'ciphers',
    'resolve',
    'connect-to',
    'doh-url',
    'unix-socket',
    'abstract-unix-socket',
    'interface',
    'dns-servers',
    'continue-at',
    'time-cond',
    'telnet-option',
    'quote',
    'ftp-port',
    'oauth2-bearer',
    'aws-sigv4',
    'variable',
    'socks4',
    'socks4a',
    'socks5',
    'socks5-hostname',
    'noproxy',
    'url-query',
    'local-port',
    'max-redirs',
    'keepalive-time',
    'speed-limit',
    'speed-time',
    'mail-from',
    'mail-rcpt',
    'mail-auth',
    'login-options',
    'pass',
    'pubkey',
    'proto',
    'proto-redir',
    'proto-default',
    'netrc-file',
    'cert-type',
    'key-type',
    'expect100-timeout',
    'happy-eyeballs-timeout-ms',
    'parallel-max',
    'rate',
    'retry-connrefused-delay',
    'create-file-mode',
    'tls-max',
    'ip-tos',
    'vlan-priority'
  ],
  flags: ['remote-name', 'remote-name-all', 'proxy-insecure', 'proxy-anyauth'],
  alias: {
    o: 'output',
    O: 'remote-name',
    J: 'remote-header-name',
    D: 'dump-header',
    c: 'cookie-jar',
    K: 'config',
    w: 'write-out',
    x: 'proxy',
    g: 'globoff',
    T: 'upload-file'
  },
  effectful: [
    'output',
    'output-dir',
    'remote-name',
    'remote-name-all',
    'remote-header-name',
    'dump-header',
    'cookie-jar',
    'config',
    'write-out',
    'trace',
    'trace-ascii',
    'stderr',
    'libcurl',
    'etag-save',
    'hsts',
    'alt-svc',
    'ssl-sessions',
    'url',
    'proxy',
    'preproxy',
    'socks4',
    'socks4a',
    'socks5',
    'socks5-hostname',
    'resolve',
    'connect-to',
    'doh-url',
    'unix-socket',
    'abstract-unix-socket'
  ],
  effectfulShort: 'oODcKwx'
}

const CURL_FILES = [
  'dump-header',
  'cookie-jar',
  'trace',
  'trace-ascii',
  'stderr',
  'libcurl',
  'etag-save',
  'hsts',
  'alt-svc',
  'ssl-sessions'
]
const CURL_REDIRECTS = [
  'proxy',
  'preproxy',
  'socks4',
  'socks4a',
  'socks5',
  'socks5-hostname',
  'resolve',
  'connect-to',
  'doh-url',
  'unix-socket',
  'abstract-unix-socket'
]
/** Host name prefixes from which curl guesses another protocol than http. */
const CURL_GUESSED = ['ftp.', 'dict.', 'ldap.', 'imap.', 'smtp.', 'pop3.']

/** A URL operand: a `url` effect for http(s), a network problem for other schemes. */
function hasControl(t: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i)
    if (c < 0x20 || c === 0x7f) return true
  }
  return false
}

function urlEffect(program: string, word: ShellWord, guessed: readonly string[]): CommandEffect {
  const label = program
  if (!word.literal) {
    const p = word.prefix.toLowerCase()
    if (p.includes('://') && !p.startsWith('http://') && !p.startsWith('https://')) {
      return network(`${program} ${word.text} uses a protocol other than http(s)`)
    }
    return { kind: 'url', label, target: word }
  }
  const t = word.text
  // curl and wget read `http://a.com\@b/` as user info of b, a browser (the url rules) as a.com:
  // where the two parsers can disagree about the host, the policy cannot judge the URL
  const authority = t.slice(t.indexOf('://') < 0 ? 0 : t.indexOf('://') + 3).split(/[/?#]/)[0] ?? ''
  if (/[\\\s]/.test(t) || hasControl(t) || authority.includes('@') || authority.includes('%')) {
    return network(`${program} ${t}: curl and the url rules may read a different host out of it`)
  }
  const at = t.indexOf('://')
  if (at > 0) {
    const scheme = t.slice(0, at).toLowerCase()
    if (scheme === 'http' || scheme === 'https') return { kind: 'url', label, target: word }
    return network(`${program} ${t} uses ${scheme}://, which url rules do not cover`)
  }
  const lower = t.toLowerCase()
  if (guessed.some((g) => lower.startsWith(g))) {
    return network(`${program} reads ${t} as a ${lower.slice(0, lower.indexOf('.'))} URL`)
  }
  return { kind: 'url', label, target: lit(`http://${t}`) }
}

/** The file name `curl -O` / `wget` gives a download: the URL path's last segment. */
function urlFileName(url: ShellWord): string | undefined {
  if (!url.literal) return undefined
  let t = url.text
  const cut = Math.min(...['?', '#'].map((c) => (t.includes(c) ? t.indexOf(c) : t.length)))
  t = t.slice(0, cut)
  const scheme = t.indexOf('://')
  const rest = scheme < 0 ? t : t.slice(scheme + 3)
  const slash = rest.indexOf('/')
  if (slash < 0) return undefined
  const name = rest.slice(rest.lastIndexOf('/') + 1)
  return name === '' || name === '.' || name === '..' ? undefined : name
}

function curlEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  // curl 8.3+: --expand-X is X with {{variables}} expanded, --variable sets them: run-time values
  const expands = words.find((w) => w.literal && /^--(?:expand-|variable)/.test(w.text))
  if (expands !== undefined) {
    return [runsCode(`${name} ${expands.text} expands variables into its options at run time`)]
  }
  const parsed = parseOptions(words, CURL)
  const out = unknownWords(parsed, name, 'an option that writes a file (-o) or reads a config (-K)')
  if (has(parsed, 'config')) {
    out.push(
      runsCode(`${name} -K/--config reads options the policy cannot see (output files, URLs)`)
    )
  }
  for (const option of CURL_REDIRECTS) {
    if (has(parsed, option)) {
      out.push(network(`${name} --${option} sends the request through another host or socket`))
    }
  }
  const urls = [...values(parsed, 'url'), ...parsed.operands]
  const globoff = has(parsed, 'globoff')
  for (const u of urls) {
    if (!globoff && u.literal && (u.text.includes('{') || u.text.includes('['))) {
      out.push(
        network(`${name} expands {a,b} and [1-9] in "${u.text}" into other URLs (add -g/--globoff)`)
      )
      continue
    }
    out.push(urlEffect(name, u, CURL_GUESSED))
  }
  const dir = values(parsed, 'output-dir').at(-1)
  const inDir = (file: ShellWord): ShellWord =>
    dir === undefined || (file.literal && isAbsolute(file.text)) ? file : joinPath(dir, file.text)
  for (const file of values(parsed, 'output')) {
    if (!(file.literal && file.text === '-')) out.push(fileWrite(`${name} -o`, inDir(file)))
  }
  if (has(parsed, 'remote-header-name')) {
    out.push(write(`${name} -J (file named by the server)`, dir ?? lit('.'), true))
  } else if (has(parsed, 'remote-name', 'remote-name-all')) {
    for (const u of urls) {
      const file = urlFileName(u)
      out.push(
        file === undefined
          ? write(`${name} -O`, dir ?? lit('.'), true)
          : fileWrite(`${name} -O`, inDir(lit(file)))
      )
    }
  }
  for (const file of values(parsed, ...CURL_FILES)) {
    if (!(file.literal && (file.text === '-' || file.text === '%'))) {
      out.push(fileWrite(`${name} (file option)`, file))
    }
  }
  for (const format of values(parsed, 'write-out')) {
    if (!format.literal || format.text.startsWith('@') || format.text.includes('%output{')) {
      out.push(writesUnknown(`${name} -w %output{FILE} writes a file the policy cannot name`))
    }
  }
  return out
}

const WGET: OptionTable = {
  shortValue: 'aABDeiIlnoOPQRtTUwXYC',
  longValue: [
    'output-file',
    'append-output',
    'execute',
    'config',
    'output-document',
    'directory-prefix',
    'input-file',
    'base',
    'tries',
    'timeout',
    'wait',
    'waitretry',
    'user-agent',
    'header',
    'post-data',
    'post-file',
    'body-data',
    'body-file',
    'method',
    'user',
    'password',
    'http-user',
    'http-password',
    'ftp-user',
    'ftp-password',
    'proxy-user',
    'proxy-password',
    'load-cookies',
    'save-cookies',
    'warc-file',
    'rejected-log',
    'hsts-file',
    'level',
    'accept',
    'reject',
    'accept-regex',
    'reject-regex',
    'domains',
    'exclude-domains',
    'include-directories',
    'exclude-directories',
    'cut-dirs',
    'quota',
    'limit-rate',
    'bind-address',
    'dns-timeout',
    'connect-timeout',
    'read-timeout',
    'referer',
    'use-askpass',
    'ca-certificate',
    'ca-directory',
    'certificate',
    'private-key',
    'certificate-type',
    'private-key-type',
    'secure-protocol',
    'restrict-file-names',
    'default-page',
    'local-encoding',
    'remote-encoding',
    'progress',
    'max-redirect',
    'start-pos',
    'backups',
    'compression',
    'crl-file',
    'pinnedpubkey',
    'random-file',
    'egd-file',
    'ciphers',
    'retry-on-http-error',
    'warc-header',
    'warc-max-size',
    'warc-tempdir',
    'regex-type',
    'report-speed',
    'prefer-family'
  ],
  alias: {
    o: 'output-file',
    a: 'append-output',
    e: 'execute',
    O: 'output-document',
    P: 'directory-prefix',
    i: 'input-file',
    r: 'recursive',
    m: 'mirror',
    p: 'page-requisites',
    x: 'force-directories'
  },
  effectful: [
    'output-file',
    'append-output',
    'execute',
    'config',
    'output-document',
    'directory-prefix',
    'input-file',
    'save-cookies',
    'warc-file',
    'rejected-log',
    'hsts-file',
    'use-askpass',
    'recursive',
    'mirror',
    'content-disposition',
    'trust-server-names'
  ],
  effectfulShort: 'oaeOPirmpx'
}

const WGET_SAFE_EXECUTE = /^robots\s*=\s*(?:on|off)$/i

function wgetEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, WGET)
  const out = unknownWords(parsed, name, 'an option that writes a file or runs a command (-O, -e)')
  for (const command of values(parsed, 'execute')) {
    if (!command.literal || !WGET_SAFE_EXECUTE.test(command.text)) {
      out.push(runsCode(`${name} -e runs a wgetrc command, which can set where it writes`))
    }
  }
  if (has(parsed, 'config'))
    out.push(runsCode(`${name} --config reads settings the policy cannot see`))
  if (has(parsed, 'use-askpass')) out.push(runsCode(`${name} --use-askpass runs that program`))
  if (has(parsed, 'input-file')) {
    out.push(network(`${name} -i reads the URLs it fetches from a file the policy cannot see`))
  }
  for (const u of parsed.operands) out.push(urlEffect(name, u, ['ftp.']))
  const prefix = values(parsed, 'directory-prefix').at(-1)
  for (const file of values(
    parsed,
    'output-file',
    'append-output',
    'save-cookies',
    'rejected-log',
    'hsts-file'
  )) {
    out.push(fileWrite(`${name} (file option)`, file))
  }
  for (const file of values(parsed, 'warc-file')) {
    out.push(
      write(`${name} --warc-file`, file.literal ? lit(`${file.text}.warc.gz`, file.tilde) : file)
    )
  }
  const documents = values(parsed, 'output-document')
  if (documents.length > 0) {
    for (const file of documents) {
      if (!(file.literal && file.text === '-')) out.push(fileWrite(`${name} -O`, file))
    }
    return out
  }
  const dir = prefix ?? lit('.')
  if (
    has(
      parsed,
      'recursive',
      'mirror',
      'page-requisites',
      'force-directories',
      'content-disposition',
      'trust-server-names'
    )
  ) {
    out.push(write(`${name} (downloads)`, dir, true))
    return out
  }
  for (const u of parsed.operands) {
    const file = urlFileName(u) ?? 'index.html'
    out.push(
      fileWrite(
        `${name} (download)`,
        dir.literal && dir.text === '.' ? lit(file) : joinPath(dir, file)
      )
    )
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// npm, npx, pnpm, yarn

/**
 * npm configuration that makes npm run other code or load other configuration, with the
 * shortest abbreviation npm accepts for it (nopt expands unambiguous prefixes).
 */
const NPM_CODE_CONFIG = new Map<string, number>([
  ['node-options', 'node-o'.length],
  ['script-shell', 'scr'.length],
  ['shell', 'she'.length],
  ['userconfig', 'userc'.length],
  ['globalconfig', 'globalc'.length],
  ['onload-script', 'on'.length],
  ['init-module', 'init-m'.length],
  ['call', 'cal'.length],
  ['git', 'git'.length],
  ['editor', 'ed'.length],
  ['browser', 'br'.length],
  ['viewer', 'vi'.length],
  ['node-gyp', 'node-g'.length]
])

/** Node options harmless in --node-options (they set limits and warnings, load nothing). */
const NODE_SAFE_OPTIONS = new Set([
  '--max-old-space-size',
  '--max-semi-space-size',
  '--stack-size',
  '--enable-source-maps',
  '--no-warnings',
  '--trace-warnings',
  '--no-deprecation',
  '--trace-deprecation',
  '--experimental-vm-modules',
  '--unhandled-rejections',
  '--dns-result-order',
  '--trace-uncaught'
])

function npmCodeConfig(name: string): string | undefined {
  for (const [option, min] of NPM_CODE_CONFIG) {
    if (name === option || (name.length >= min && option.startsWith(name))) return option
  }
  return undefined
}

function harmlessNodeOptions(value: ShellWord | undefined): boolean {
  if (value === undefined || !value.literal) return false
  for (const part of value.text.split(WHITESPACE)) {
    if (part === '') continue
    const eq = part.indexOf('=')
    if (!NODE_SAFE_OPTIONS.has(eq < 0 ? part : part.slice(0, eq))) return false
  }
  return true
}

/** A long option only partly known (`--node-opt$X`) that could be one that runs code. */
function npmCouldRunCode(body: string): boolean {
  const key = body.toLowerCase().replace(UNDERSCORES, '-')
  for (const option of NPM_CODE_CONFIG.keys()) if (option.startsWith(key)) return true
  return false
}

/** Subcommands that change npm's configuration or run an editor or a shell. */
const NPM_RUNS_CODE: Readonly<Record<string, string>> = {
  set: 'changes npm configuration, where script-shell, node-options and others run code',
  edit: 'runs an editor',
  explore: 'runs a shell in a package directory'
}

const NPX_VALUE = new Set(['package', 'call', 'prefix', 'cache', 'userconfig', 'workspace'])

/** npm commands that install into (or remove from) the prefix: `node_modules`, the lock file. */
const NPM_INSTALLS = new Set([
  'ci',
  'dedupe',
  'install',
  'install-ci-test',
  'install-test',
  'prune',
  'rebuild',
  'uninstall',
  'update'
])

/** npm options that always take the next word as their value (strings and paths). */
const NPM_STRING_OPTIONS = new Set([
  'prefix',
  'tag',
  'registry',
  'cache',
  'userconfig',
  'globalconfig',
  'workspace',
  'loglevel',
  'logs-dir',
  'otp',
  'message',
  'omit',
  'include',
  'install-strategy',
  'before',
  'location',
  'proxy',
  'https-proxy',
  'cafile',
  'ca',
  'script-shell',
  'node-options',
  'shell',
  'editor',
  'preid',
  'save-prefix',
  'pack-destination',
  'scope',
  'noproxy',
  'local-address',
  'cert',
  'key'
])

/** npm commands whose operands are package specs it fetches. */
const NPM_FETCHES = new Set(['install', 'install-test', 'install-ci-test', 'update', 'exec', 'add'])

/** npm options naming a directory every command may write to (logs, the cache). */
const NPM_WRITE_DIRECTORIES = new Set(['logs-dir', 'cache'])

/** npm commands that write the prefix's package.json (`npm pkg set`, `npm version`). */
const NPM_WRITES_PACKAGE = new Set(['init', 'pkg', 'version'])

/** A dynamic word in an npm, pnpm or yarn command line: what it could be read as. */
function npmDynamicWord(w: ShellWord, name: string): CommandEffect | undefined {
  const p = w.prefix
  const body = p.replace(LEADING_DASHES, '')
  const eq = body.indexOf('=')
  if (p.startsWith('-') && eq >= 0) {
    return npmCodeConfig(body.slice(0, eq).toLowerCase().replace(UNDERSCORES, '-')) !== undefined
      ? dynamicArgument(name, w, 'configuration that runs code')
      : undefined
  }
  if (p === '' || p === '-' || p === '--' || (p.startsWith('-') && npmCouldRunCode(body))) {
    return dynamicArgument(name, w, 'an option that runs code (--node-options, --script-shell)')
  }
  return undefined
}

/** A code-running configuration an option sets, by npm's reading or a looser one. */
function npmCodeOption(option: NpmOption, raw: string): string | undefined {
  const loose = raw
    .replace(LEADING_DASHES, '')
    .split('=')[0]
    ?.toLowerCase()
    .replace(UNDERSCORES, '-')
    .replace(/^config\./, '') // pnpm --config.KEY=VALUE
  const code = npmCodeConfig(option.key) ?? (loose === undefined ? undefined : npmCodeConfig(loose))
  if (code === undefined) return undefined
  if (code === 'node-options' && harmlessNodeOptions(option.value)) return undefined
  return code
}

/** Whether a directory word names the working directory itself (`--prefix .`). */
function isWorkingDirectory(word: ShellWord): boolean {
  return word.literal && /^\.?\/?$/.test(word.text.replace(/\/+$/, '/'))
}

/** What an install does where it is told to: the directories' trees, or the global prefix. */
function installEffects(label: string, directories: ShellWord[], global: boolean): CommandEffect[] {
  const out = directories.map((d) => write(label, d, true))
  if (global) {
    const program = label.split(' ')[0] ?? ''
    out.push(
      writesUnknown(
        `${program} installing globally writes into the global prefix, outside the working directory`
      )
    )
  }
  return out
}

/** npm itself, its words read under every reading npm's parser may make of them (npm.ts). */
function npmCliEffects(words: readonly ShellWord[]): CommandEffect[] {
  const name = 'npm'
  const out: CommandEffect[] = []
  const argv = npmArgv(words)
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    // after `--` once the command is read, words go to the script, not to npm
    if (w.literal || (argv.scriptArgs !== undefined && i > argv.scriptArgs)) continue
    const effect = npmDynamicWord(w, name)
    if (effect !== undefined) out.push(effect)
  }
  const commands = argv.commands.map(({ word, index }) => ({
    index,
    command: word.literal ? (npmCommand(word.text) ?? word.text) : ''
  }))
  const is = (...names: string[]) => commands.some((c) => names.includes(c.command))
  const exec = is('exec')

  const directories: ShellWord[] = []
  let global = false
  for (const option of argv.options) {
    const raw = option.text
    const code = npmCodeOption(option, raw)
    if (code !== undefined) {
      out.push(
        runsCode(
          `npm ${raw} sets npm's ${code} configuration, which makes it run other code or load ` +
            'other configuration'
        )
      )
    }
    const value = option.value
    if (option.key === 'package' && exec) {
      out.push(network('npm exec --package downloads and runs a package'))
    }
    if (option.key === 'global' && !option.negated && value?.text !== 'false') global = true
    if (option.key === 'location' && value?.text === 'global') global = true
    const connects = connectionOption(name, option.key, value, option.negated)
    if (connects !== undefined) out.push(connects)
    if (value === undefined) continue
    if (option.key === 'prefix' && !isWorkingDirectory(value)) directories.push(value)
    if (option.key === 'registry' || /^@[^:]+:registry$/.test(option.key)) {
      out.push(urlEffect(`npm --${option.key}`, value, []))
    }
    if (option.key === 'pack-destination' && is('pack')) {
      out.push(write('npm pack --pack-destination', value, true))
    }
    // every npm command writes its debug log and may write its cache there
    if (NPM_WRITE_DIRECTORIES.has(option.key)) out.push(write(`npm --${option.key}`, value, true))
  }

  for (const { index, command } of commands) {
    const what = NPM_RUNS_CODE[command]
    if (what !== undefined) out.push(runsCode(`npm ${command} ${what}`))
    if (command === 'config') {
      const change = argv.operands
        .filter((o) => o.index > index && o.word.literal)
        .map((o) => o.word.text)
        .find((t) => t === 'set' || t === 'edit' || t === 'delete')
      if (change !== undefined) {
        out.push(runsCode(`npm config ${change} ${NPM_RUNS_CODE.set ?? ''}`))
      }
    }
    if (command === 'link') {
      out.push(writesUnknown("npm link links packages through npm's global prefix"))
    }
  }
  // what an install fetches: a tarball URL, a git repository, a GitHub shorthand
  const optionValues = new Set(
    argv.options.flatMap((o) =>
      o.value !== undefined && (NPM_STRING_OPTIONS.has(o.key) || o.key.endsWith(':registry'))
        ? [o.value]
        : []
    )
  )
  for (const { index, command } of commands) {
    if (!NPM_FETCHES.has(command)) continue
    for (const o of argv.operands) {
      // a word npm may read as an option's value (`--prefix src/app`) is judged as that
      const spec = o.index > index && !optionValues.has(o.word)
      const effect = spec ? specEffect(`npm ${command}`, o.word) : undefined
      if (effect !== undefined) out.push(effect)
    }
  }
  if (is(...NPM_INSTALLS)) out.push(...installEffects('npm --prefix', directories, global))
  const writer = commands.find((c) => NPM_WRITES_PACKAGE.has(c.command))
  if (writer !== undefined) {
    for (const d of directories.length > 0 ? directories : [lit('.')]) {
      const file = d.literal
        ? lit(`${d.text.replace(/\/+$/, '')}/package.json`, d.tilde)
        : dyn(d.text)
      out.push(write(`npm ${writer.command}`, file))
    }
  }
  return out
}

/** Options of pnpm and yarn naming where they install. */
const PM_DIRECTORY = new Set([
  'prefix',
  'dir',
  'cwd',
  'modules-folder',
  'global-dir',
  'global-folder',
  'modules-dir',
  'virtual-store-dir',
  'lockfile-dir',
  'store-dir',
  'cache-folder'
])

/** pnpm and yarn commands that install into (or remove from) the project. */
const PM_INSTALLS = new Set([
  'install',
  'i',
  'add',
  'update',
  'up',
  'upgrade',
  'remove',
  'rm',
  'uninstall',
  'un',
  'prune',
  'rebuild',
  'rb',
  'link',
  'ln',
  'import',
  'dedupe'
])

/**
 * The words of a pnpm or yarn command line that may be the command. A word right after an
 * option that may take a value may be that value, so the next one may be the command too; the
 * command is `definite` once a word cannot be a value.
 */
function pmCommands(words: readonly ShellWord[]): { candidates: number[]; definite: boolean } {
  const candidates: number[] = []
  let valued = false
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (t === '--') break
    if (t.startsWith('-') && t.length > 1) {
      // any option may take the next word as its value, unless its value is attached
      valued = !t.includes('=')
      continue
    }
    if (!w.literal) {
      valued = true // it may be anything: the next word may be the command as well
      continue
    }
    candidates.push(i)
    if (!valued) return { candidates, definite: true }
    valued = false
  }
  return { candidates, definite: false }
}

/** npx, pnpm and yarn (npm itself: npmCliEffects). */
function npmEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  if (name === 'npm') return npmCliEffects(words)
  const out: CommandEffect[] = []
  const npx = name === 'npx'
  const { candidates, definite } = npx ? { candidates: [], definite: true } : pmCommands(words)
  const named = (...names: string[]) =>
    candidates.filter((i) => names.includes((words[i] as ShellWord).text))
  const exec = npx || named('exec', 'x', 'dlx').length > 0
  const directories: ShellWord[] = []
  let global = false
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      const effect = npmDynamicWord(w, name)
      if (effect !== undefined) out.push(effect)
      if (npx && !w.prefix.startsWith('-')) break
      continue
    }
    const t = w.text
    if (t === '--') break
    if (t.startsWith('-') && t.length > 1) {
      const eq = t.indexOf('=')
      let key = (eq < 0 ? t : t.slice(0, eq))
        .replace(LEADING_DASHES, '')
        .toLowerCase()
        .replace(UNDERSCORES, '-')
      if (key.startsWith('config.')) key = key.slice('config.'.length) // pnpm --config.KEY=VALUE
      const attached = t.slice(eq + 1)
      const value = eq < 0 ? words[i + 1] : lit(attached, attached.startsWith('~'))
      const code = npmCodeOption(
        { text: t, key, negated: false, index: i, ...(value ? { value } : {}) },
        t
      )
      if (code !== undefined) {
        out.push(
          runsCode(
            `${name} ${t} sets ${code} configuration, which makes it run other code or load ` +
              'other configuration'
          )
        )
      }
      if (exec && (key === 'package' || (t === '-p' && name !== 'yarn'))) {
        out.push(network(`${name} ${t} downloads and runs a package`))
      }
      if (exec && t === '-c' && name !== 'yarn')
        out.push(runsCode(`${name} -c runs a shell command`))
      const negated = key.startsWith('no-')
      const connects = connectionOption(name, negated ? key.slice(3) : key, value, negated)
      if (connects !== undefined) out.push(connects)
      if (t.startsWith('--')) {
        if (key === 'global' && attached !== 'false') global = true
      } else if (/^-[A-Za-z]*g/.test(t)) {
        global = true
      }
      if (value !== undefined) {
        if ((PM_DIRECTORY.has(key) && t.startsWith('--')) || t === '-C') {
          if (!isWorkingDirectory(value)) directories.push(value)
        } else if (!t.startsWith('--') && t.startsWith('-C') && t.length > 2) {
          directories.push(lit(t.slice(2), t.startsWith('-C~')))
        }
        if (key === 'registry' || /^@[^:]+:registry$/.test(key)) {
          out.push(urlEffect(`${name} --${key}`, value, []))
        }
      }
      if (npx && eq < 0 && (NPX_VALUE.has(key) || t === '-c' || t === '-p')) i++
      continue
    }
    // npx: the first operand is the command, and the words after it are its own
    if (npx) break
  }
  for (const i of candidates) {
    const t = (words[i] as ShellWord).text
    if (t === 'dlx') out.push(network(`${name} dlx downloads and runs a package`))
    const what = NPM_RUNS_CODE[t]
    if (what !== undefined) out.push(runsCode(`${name} ${t} ${what}`))
  }
  for (const i of named('config', 'c')) {
    const change = words
      .slice(i + 1)
      .find((w) => w.literal && (w.text === 'set' || w.text === 'edit' || w.text === 'delete'))
    if (change !== undefined) {
      out.push(runsCode(`${name} config ${change.text} ${NPM_RUNS_CODE.set ?? ''}`))
    }
  }
  // bare `pnpm` / `yarn` installs, as does a command line whose every operand may be a value
  const yarnGlobal = name === 'yarn' && named('global').length > 0
  const installs =
    !npx &&
    (!definite ||
      candidates.some((i) => PM_INSTALLS.has((words[i] as ShellWord).text)) ||
      yarnGlobal)
  if (yarnGlobal) global = true
  if (installs) out.push(...installEffects(`${name} --dir`, directories, global))
  // what an install or a dlx fetches: a tarball URL, a git repository, a GitHub shorthand
  const first = candidates[0]
  if (!npx && first !== undefined) {
    for (const w of words.slice(first + 1)) {
      const effect = w.literal && !w.text.startsWith('-') ? specEffect(name, w) : undefined
      if (effect !== undefined) out.push(effect)
    }
  } else if (npx) {
    for (const w of words.slice(1)) {
      if (!w.literal) break
      if (w.text.startsWith('-')) continue
      const effect = specEffect(name, w)
      if (effect !== undefined) out.push(effect)
      break
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// zip, gzip and the other compressors

/** zip options that take a value as the next word (or attached). */
const ZIP_VALUE = new Set(['-b', '-n', '-t', '-tt', '-O', '-P', '-Z', '-s', '-sp', '-sb', '-TT'])

/**
 * zip: `-TT cmd` / `--unzip-command cmd` runs a command to test the archive, `-m` deletes the
 * files it archives, `-O` writes another archive; the archive itself is written.
 */
function zipEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let archive: ShellWord | undefined
  const inputs: ShellWord[] = []
  let moves = false
  let options = true
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (options && t === '--') {
      options = false
      continue
    }
    if (options && (t.startsWith('-') || (!w.literal && t === ''))) {
      if (!w.literal) {
        out.push(dynamicArgument(name, w, 'an option that runs a command (-TT)'))
        continue
      }
      if (/^--unz/.test(t) || /^-[A-Za-z]*TT/.test(t)) {
        out.push(runsCode(`${name} ${t} runs a command to test the archive`))
      }
      if ((/^-[A-Za-z]*m/.test(t) && !t.startsWith('--')) || /^--mo/.test(t)) moves = true
      if (/^-[A-Za-z]*O$/.test(t) || /^--output-file$/.test(t)) {
        const value = words[i + 1]
        if (value !== undefined) out.push(fileWrite(`${name} -O`, value))
      }
      if (
        ZIP_VALUE.has(t) ||
        /^-[A-Za-z]*O$/.test(t) ||
        /^--(?:output-file|unzip-command|temp-path|suffixes|password)$/.test(t)
      )
        i++
      continue
    }
    if (archive === undefined) archive = w
    else inputs.push(w)
  }
  if (archive !== undefined) out.push(fileWrite(name, archive))
  if (moves) for (const input of inputs) out.push(fileWrite(`${name} -m`, input, true))
  return out
}

/** Compressors: without `-c` / `-t` / `-l` they replace each file with its (de)compressed one. */
const COMPRESSOR_SUFFIX: Readonly<Record<string, string>> = {
  gzip: '.gz',
  gunzip: '.gz',
  pigz: '.gz',
  unpigz: '.gz',
  bzip2: '.bz2',
  bunzip2: '.bz2',
  xz: '.xz',
  unxz: '.xz',
  lzma: '.lzma',
  unlzma: '.lzma',
  zstd: '.zst',
  unzstd: '.zst',
  lz4: '.lz4',
  compress: '.Z',
  uncompress: '.Z'
}

/** Short options of the compressors that take the next word as their value. */
const COMPRESSOR_VALUE = /^-[A-Za-z0-9]*[SoTbpM]$/

function compressorEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  const suffixes = new Set([
    COMPRESSOR_SUFFIX[name] ?? '.gz',
    '.gz',
    '.tgz',
    '.z',
    '.bz2',
    '.xz',
    '.zst',
    '.lz4',
    '.Z'
  ])
  let stdout = false
  let recursive = false
  const operands: ShellWord[] = []
  let options = true
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (options && t === '--') {
      options = false
      continue
    }
    if (options && t.startsWith('-') && t !== '-') {
      if (!w.literal) {
        out.push(dynamicArgument(name, w, 'an option naming a file it writes'))
        continue
      }
      if (/^--(?:stdout|to-stdout|test|list)$/.test(t) || /^-[A-Za-z0-9]*[ctl]/.test(t)) {
        stdout = true
      }
      if (/^--rec/.test(t) || /^-[A-Za-z0-9]*r/.test(t)) recursive = true
      const value = /^--(?:suffix|output)=(.*)$/.exec(t)
      const next = words[i + 1]
      if (/^--(?:suffix|output)$/.test(t) || COMPRESSOR_VALUE.test(t)) {
        if (next !== undefined && /^(?:--output|-[A-Za-z0-9]*o)$/.test(t)) {
          out.push(fileWrite(`${name} -o`, next))
        }
        if (next !== undefined && /^(?:--suffix|-[A-Za-z0-9]*S)$/.test(t) && next.literal) {
          suffixes.add(next.text)
        }
        i++
      } else if (value !== null) {
        if (t.startsWith('--output')) out.push(fileWrite(`${name} -o`, lit(value[1] as string)))
        else suffixes.add(value[1] as string)
      }
      continue
    }
    operands.push(w)
  }
  if (stdout) return out
  for (const file of operands) {
    if (file.literal && file.text === '-') continue
    // the input is replaced (removed), and the output is written beside it
    out.push(fileWrite(name, file, recursive))
    if (!file.literal) continue
    for (const suffix of suffixes) {
      out.push(fileWrite(name, lit(file.text + suffix, file.tilde)))
      if (file.text.endsWith(suffix) && file.text.length > suffix.length) {
        out.push(fileWrite(name, lit(file.text.slice(0, -suffix.length), file.tilde)))
      }
    }
    if (file.text.endsWith('.tgz'))
      out.push(fileWrite(name, lit(`${file.text.slice(0, -4)}.tar`, file.tilde)))
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Package specs and connection options (npm, pnpm, yarn, pip)

/** Where an npm package spec fetches from, when it is not the registry (a URL to check). */
function npmSpecUrl(spec: string): string | undefined {
  let t = spec
  // `name@<spec>` and `@scope/name@<spec>`: the part after the name
  const at = t.indexOf('@', t.startsWith('@') ? 1 : 0)
  const named = at > 0 && /^(?:@[^/@:]+\/)?[^/@:]+$/.test(t.slice(0, at))
  if (named && /[:/]/.test(t.slice(at + 1))) t = t.slice(at + 1)
  const lower = t.toLowerCase()
  if (lower.startsWith('npm:')) return undefined
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(lower)) return t.replace(/^git\+(?=https?:)/i, '')
  const hosted = /^(github|gitlab|bitbucket|gist):(.*)$/i.exec(t)
  if (hosted !== null) {
    const host = {
      github: 'github.com',
      gitlab: 'gitlab.com',
      bitbucket: 'bitbucket.org',
      gist: 'gist.github.com'
    }[(hosted[1] as string).toLowerCase() as 'github' | 'gitlab' | 'bitbucket' | 'gist']
    return `https://${host}/${(hosted[2] as string).split('#')[0] ?? ''}`
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(t) && !/^file:/i.test(t)) return t // git@host:x, other schemes
  // `user/repo` (not a path: no leading `.`, `/`, `~`) is a GitHub repository
  if (/^[^.@/~\\][^@/:\\]*\/[^/\\]+$/.test(t) && spec === t) {
    return `https://github.com/${t.split('#')[0] ?? ''}`
  }
  return undefined
}

/** A package spec that fetches from somewhere: a URL effect (the url rules decide). */
function specEffect(program: string, spec: ShellWord): CommandEffect | undefined {
  if (!spec.literal) return undefined // npmDynamicWord and the like judge words known later
  const u = npmSpecUrl(spec.text)
  if (u === undefined) return undefined
  return urlEffect(`${program} ${spec.text}`, lit(u), [])
}

/**
 * npm / pnpm / yarn configuration that connects or weakens TLS: a proxy must pass the url rules,
 * a replaced CA or `strict-ssl false` lets anyone on the path answer for any host.
 */
function connectionOption(
  program: string,
  key: string,
  value: ShellWord | undefined,
  negated: boolean
): CommandEffect | undefined {
  if (key === 'proxy' || key === 'https-proxy' || key === 'http-proxy') {
    if (negated || value === undefined) return undefined
    if (value.literal && (value.text === '' || value.text === 'null' || value.text === 'false'))
      return undefined
    return urlEffect(`${program} --${key}`, value, [])
  }
  if (key === 'strict-ssl') {
    const off =
      negated ||
      (value !== undefined && (!value.literal || /^(?:false|0|no|off)?$/i.test(value.text)))
    return off
      ? network(`${program} --strict-ssl=false accepts any certificate for every host`)
      : undefined
  }
  if (key === 'cafile' || key === 'ca') {
    return network(
      `${program} --${key} replaces the certificates it trusts, so any host can be impersonated`
    )
  }
  return undefined
}

/** pip's options whose value is a URL it fetches from. */
const PIP_URL_OPTIONS = ['index-url', 'extra-index-url', 'find-links', 'proxy']
/** pip's options that weaken TLS. */
const PIP_TLS_OPTIONS = ['trusted-host', 'cert']
/** pip's options that take the next word as a value (those with an effect are above). */
const PIP_VALUE_OPTIONS = [
  'requirement',
  'constraint',
  'editable',
  'target',
  'platform',
  'python-version',
  'implementation',
  'abi',
  'root',
  'prefix',
  'src',
  'upgrade-strategy',
  'install-option',
  'global-option',
  'no-binary',
  'only-binary',
  'progress-bar',
  'log',
  'log-file',
  'timeout',
  'exists-action',
  'client-cert',
  'cache-dir',
  'retries',
  'config-settings',
  'python',
  'report',
  'dest',
  'path',
  'format',
  'exclude',
  'root-user-action',
  'keyring-provider',
  'use-feature',
  'use-deprecated',
  'group'
]
const PIP_SHORT_VALUE: Readonly<Record<string, string>> = {
  i: 'index-url',
  f: 'find-links',
  r: 'requirement',
  c: 'constraint',
  e: 'editable',
  t: 'target',
  d: 'dest',
  C: 'config-settings'
}

/** pip's long options without a value (an exact name is never read as a prefix of another). */
const PIP_FLAGS = [
  'pre',
  'user',
  'upgrade',
  'no-deps',
  'no-index',
  'force-reinstall',
  'ignore-installed',
  'quiet',
  'verbose',
  'no-cache-dir',
  'isolated',
  'require-hashes',
  'dry-run',
  'break-system-packages',
  'no-build-isolation',
  'no-clean',
  'compile',
  'no-compile',
  'prefer-binary',
  'no-input',
  'no-color',
  'disable-pip-version-check',
  'help',
  'version'
]

/** The long options of pip (optparse takes unambiguous prefixes) a written name can stand for. */
function pipLong(written: string): string[] {
  if (PIP_FLAGS.includes(written)) return []
  const all = [...PIP_URL_OPTIONS, ...PIP_TLS_OPTIONS, ...PIP_VALUE_OPTIONS]
  if (all.includes(written)) return [written]
  return all.filter((o) => o.startsWith(written))
}

/**
 * pip (and `python -m pip`): URL and VCS requirements, index, find-links and proxy URLs (the
 * url rules decide), options that trust a host or certificate (denied). Every word that is not
 * an option is read as a requirement, option values included, so that a value misread cannot
 * hide a URL.
 */
function pipEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (w.prefix === '' || w.prefix.startsWith('-')) {
        out.push(dynamicArgument(name, w, 'an index URL, a proxy or a package URL'))
      } else if (/[:@]/.test(w.prefix)) {
        out.push(urlEffect(name, w, []))
      }
      continue
    }
    const t = w.text
    let names: string[] = []
    let value: ShellWord | undefined
    if (t.startsWith('--')) {
      const eq = t.indexOf('=')
      names = pipLong(eq < 0 ? t.slice(2) : t.slice(2, eq))
      value = eq >= 0 ? lit(t.slice(eq + 1)) : words[i + 1]
    } else if (t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const long = PIP_SHORT_VALUE[t[j] as string]
        if (long === undefined) continue
        names = [long]
        value = j + 1 < t.length ? lit(t.slice(j + 1)) : words[i + 1]
        break
      }
    } else {
      // a requirement: a URL, a VCS URL, or `name @ url`
      const url = /^[A-Za-z0-9._-]+(?:\[[^\]]*\])?\s*@\s*(.+)$/.exec(t)?.[1] ?? t
      if (/^(?:git|hg|svn|bzr)\+/i.test(url) || /^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
        const plain = url.replace(/^(?:git|hg|svn|bzr)\+(?=https?:)/i, '').replace(/@[^/@]*$/, '')
        out.push(urlEffect(`${name} ${t}`, lit(plain), []))
      }
      continue
    }
    for (const n of names) {
      if (PIP_TLS_OPTIONS.includes(n)) {
        out.push(network(`${name} --${n} trusts a host or certificate it would otherwise refuse`))
      } else if (PIP_URL_OPTIONS.includes(n) && value !== undefined) {
        // --find-links may be a local directory
        if (n === 'find-links' && value.literal && !value.text.includes(':')) continue
        out.push(urlEffect(`${name} --${n}`, value, []))
      }
    }
  }
  return out
}

/** `python -m pip …` is pip. */
function pythonEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const m = words.findIndex((w, i) => i > 0 && w.literal && w.text === '-m')
  const module = words[m + 1]
  if (m > 0 && module !== undefined && module.literal && /^pip3?$/.test(module.text)) {
    return pipEffects(words.slice(m + 1), `${name} -m pip`)
  }
  return []
}

// ---------------------------------------------------------------------------------------------
// The table

const HANDLERS = new Map<string, Handler>([
  ['sed', sedEffects],
  ['gsed', sedEffects],
  ['find', findEffects],
  ['sort', sortEffects],
  ['uniq', uniqEffects],
  ['split', splitEffects],
  ['csplit', csplitEffects],
  ['git', gitEffects],
  ['file', fileEffects],
  ['tar', tarEffects],
  ['gtar', tarEffects],
  ['bsdtar', tarEffects],
  ['unzip', unzipEffects],
  ['awk', awkEffects],
  ['gawk', awkEffects],
  ['mawk', awkEffects],
  ['nawk', awkEffects],
  ['rg', rgEffects],
  ['less', pagerEffects],
  ['more', pagerEffects],
  ['man', manEffects],
  ['cp', copyEffects],
  ['mv', copyEffects],
  ['install', copyEffects],
  ['ln', copyEffects],
  ['rsync', rsyncEffects],
  ['scp', scpEffects],
  ['rm', targetsEffects],
  ['rmdir', targetsEffects],
  ['unlink', targetsEffects],
  ['shred', targetsEffects],
  ['truncate', targetsEffects],
  ['touch', targetsEffects],
  ['mkdir', targetsEffects],
  ['chown', targetsEffects],
  ['chgrp', targetsEffects],
  ['chmod', chmodEffects],
  ['dd', ddEffects],
  ['patch', patchEffects],
  ['curl', curlEffects],
  ['wget', wgetEffects],
  ['npm', npmEffects],
  ['npx', npmEffects],
  ['pnpm', npmEffects],
  ['yarn', npmEffects],
  ['zip', zipEffects],
  ...Object.keys(COMPRESSOR_SUFFIX).map((c): [string, Handler] => [c, compressorEffects]),
  ['pip', pipEffects],
  ['pip3', pipEffects],
  ['python', pythonEffects],
  ['python3', pythonEffects]
])
