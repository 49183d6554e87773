/**
 * jq and yq: query languages whose filter can open files by name. jq's `import`/`include` load
 * modules and data from a search path (`~/.jq`, `-L DIR`); yq's `load`, `load_str`, `load_xml`,
 * `load_props`, … read any file, and its `eval` runs a filter built at run time. A filter that
 * names a file in a string is a read of that file; one that builds the name (or the filter
 * itself is only known at run time, or comes from a file) reads something unknown. yq's
 * `-i`/`--inplace` writes each file operand; its `--split-exp` writes files its expression names.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  read,
  readsEnvironment,
  readsUnknown,
  writesUnknown
} from './effects.js'

/** jq's options that take values: one word, or two (`--arg NAME VALUE`). */
const JQ_ONE = /^(?:-L|--indent|--tab-width|--seq-sep)$/
const JQ_TWO = /^--(?:arg|argjson|slurpfile|rawfile)$/
const JQ_FILTER_FILE = /^(?:-[A-Za-z]*f|--from-file)$/

/** yq's (mikefarah's and python-yq's) options that take a value. */
const YQ_VALUE =
  /^(?:-[oIpsf]|--(?:output-format|input-format|indent|split-exp|front-matter|expression|from-file|xml-attribute-prefix|xml-content-name|lua-prefix|lua-suffix|properties-separator|csv-separator|tsv-separator|arg|argjson|rawfile|slurpfile|header-preprocess|string-interpolation-start|string-interpolation-end))$/

/** yq functions that read a file by name. */
const YQ_LOADERS =
  /\b(load|load_str|load_xml|load_props|load_base64|load_yaml|load_json|strload)\s*\(/g

/**
 * An expression without its string literals (`select(.kind == "env")` names no builtin); one
 * with an interpolation (`"\\(env.HOME)"`) is kept, code and all.
 */
function withoutStrings(text: string): string {
  return text.replace(/"(?:[^"\\]|\\[^(])*"/g, '""')
}

export function jqEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let filter: ShellWord | undefined
  let fromFile = false
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (mayBeOption(w)) return [dynamicArgument(name, w, 'an option that names a filter file')]
    if (t === '--args' || t === '--jsonargs' || t === '--') break
    if (t.startsWith('-') && t !== '-') {
      if (JQ_FILTER_FILE.test(t)) fromFile = true
      if (t === '-L' && words[i + 1] !== undefined)
        out.push(read(`${name} -L`, words[i + 1] as ShellWord))
      if (/^-L./.test(t)) out.push(read(`${name} -L`, lit(t.slice(2))))
      if (JQ_TWO.test(t)) i += 2
      else if (JQ_ONE.test(t)) i++
      continue
    }
    if (filter === undefined && !fromFile) filter = w
  }
  if (fromFile) {
    out.push(
      readsUnknown(`${name} -f takes its filter from a file, whose imports the policy cannot see`)
    )
    return out
  }
  if (filter === undefined) return out
  if (!filter.literal) {
    out.push(
      readsUnknown(
        `the ${name} filter "${filter.text}" is only known when it runs (it may import files)`
      )
    )
  } else {
    // `env`, `$ENV`: the environment (`.env` is a field, `$env` a variable)
    if (/(?:^|[^\w$.])env\b|\$ENV\b/.test(withoutStrings(filter.text))) {
      out.push(readsEnvironment(`${name} env`))
    }
  }
  if (filter.literal && /(?:^|[^\w$])(?:import|include)\s/.test(filter.text)) {
    out.push(
      readsUnknown(
        `the ${name} filter imports modules or data from a search path (~/.jq, -L) the policy cannot see`
      )
    )
  }
  return out
}

export function yqEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let inPlace = false
  let expression: ShellWord | undefined
  const files: ShellWord[] = []
  let options = true
  let first = true
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (options && mayBeOption(w)) {
      return [dynamicArgument(name, w, 'an option that edits files in place (-i)')]
    }
    if (options && t === '--') {
      options = false
      continue
    }
    if (options && t.startsWith('-') && t !== '-') {
      if (/^-[A-Za-z]*i/.test(t) || /^--(?:inplace|in-place)$/.test(t)) inPlace = true
      if (/^(?:-s|--split-exp)(?:=|$)/.test(t) || /^-[A-Za-z]*s$/.test(t)) {
        out.push(writesUnknown(`${name} --split-exp writes files its expression names`))
      }
      if (/^(?:--from-file|-f)(?:=|$)/.test(t)) {
        out.push(
          readsUnknown(`${name} --from-file takes its expression from a file the policy cannot see`)
        )
      }
      if (YQ_VALUE.test(t)) {
        if (/^(?:--expression)$/.test(t) && words[i + 1] !== undefined) expression = words[i + 1]
        i++
      }
      continue
    }
    // mikefarah's yq: `yq eval EXPR FILE…`, `yq e …`, `yq ea …`
    if (first && w.literal && /^(?:e|eval|ea|eval-all)$/.test(t)) {
      first = false
      continue
    }
    first = false
    if (expression === undefined) expression = w
    else files.push(w)
  }
  if (expression !== undefined) out.push(...yqExpression(expression, name))
  if (inPlace) for (const file of files) out.push(fileWrite(`${name} -i`, file))
  return out
}

/** What a yq expression reads: the files its loaders name, or something unknown. */
function yqExpression(expression: ShellWord, name: string): CommandEffect[] {
  if (!expression.literal) {
    return [
      readsUnknown(
        `the ${name} expression "${expression.text}" is only known when it runs (it may load files)`
      )
    ]
  }
  const text = expression.text
  const out: CommandEffect[] = []
  if (/(?:^|[^\w$.])(?:env|strenv)\s*\(|(?:^|[^\w$.])envsubst\b/.test(withoutStrings(text))) {
    out.push(readsEnvironment(`${name} env()`))
  }
  if (/\beval\s*\(/.test(text) || /(?:^|[^\w$])(?:import|include)\s/.test(text)) {
    out.push(
      readsUnknown(`the ${name} expression evaluates or imports an expression built when it runs`)
    )
  }
  for (const m of text.matchAll(YQ_LOADERS)) {
    const rest = text.slice((m.index ?? 0) + m[0].length)
    const literal = /^\s*"([^"\\]*)"\s*[);]/.exec(rest)
    if (literal !== null) out.push(read(`${name} ${m[1] as string}`, lit(literal[1] as string)))
    else
      out.push(
        readsUnknown(`the ${name} expression's ${m[1] as string}() reads a file named when it runs`)
      )
  }
  return out
}
