/**
 * tsc, the TypeScript compiler: where its options write (`--outDir`, `--outFile`,
 * `--declarationDir`, `--tsBuildInfoFile`, `--generateTrace`, `--generateCpuProfile`, `--init`),
 * the project it reads (`-p`/`--project`, the projects of `--build`), and its response files
 * (`@FILE`, options the policy never sees).
 *
 * tsc reads its command line its own way (typescript.js `parseCommandLineWorker`), not getopt's:
 * - a word starting with `-` is an option named by what follows one dash or two (`-outDir` is
 *   `--outDir`), case-insensitively (`--OUTDIR`), or by a short name (`-p`); there is no
 *   `--name=value` (that is an option named `name=value`, which tsc does not know) and no
 *   abbreviation;
 * - an option's value is the next word, taken as the option's type says (TSC_VALUES);
 * - a word starting with `@` is a response file: tsc reads more words from it;
 * - any other word is a source file (with `--build`, a project).
 * An option tsc does not know is an error, and tsc stops before it compiles or writes anything;
 * it takes no value, so the words after it are read as usual. Only `--generateCpuProfile` acts
 * before the errors are reported (the profiler starts first): it is read as a write wherever it
 * stands. `--build` (`-b`) is a mode only as the first word, with its own options (TSC_BUILD).
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  read,
  readsUnknown,
  responseFile,
  staysInside,
  writesUnknown
} from './effects.js'

/**
 * How tsc takes the word after an option with a value (`parseOptionValue`): `next`, always (a
 * string, number or enum option: `--locale --outDir` sets the locale to "--outDir"); `list`,
 * unless it starts with `-` once trimmed; `config`, an option only a tsconfig.json may set, unless
 * it starts with `-` (tsc then refuses the command). A boolean option takes the next word only
 * when it is `true`, `false` or `null` (BOOLEAN_VALUE).
 */
export type TscValue = 'next' | 'list' | 'config'

/**
 * tsc's options with a value (lower-cased), outside `--build`: TypeScript 5.9's
 * `ts.optionDeclarations` and `ts.optionsForWatch` whose type is not boolean (generated from
 * node_modules/typescript; __tests__/policy/tsc.test.ts checks the table against it).
 */
export const TSC_VALUES: Readonly<Record<string, TscValue>> = {
  generatecpuprofile: 'next',
  generatetrace: 'next',
  locale: 'next',
  project: 'next',
  target: 'next',
  module: 'next',
  lib: 'list',
  jsx: 'next',
  outfile: 'next',
  outdir: 'next',
  rootdir: 'next',
  tsbuildinfofile: 'next',
  importsnotusedasvalues: 'next',
  moduleresolution: 'next',
  baseurl: 'next',
  paths: 'config',
  rootdirs: 'config',
  typeroots: 'list',
  types: 'list',
  modulesuffixes: 'list',
  customconditions: 'list',
  sourceroot: 'next',
  maproot: 'next',
  jsxfactory: 'next',
  jsxfragmentfactory: 'next',
  jsximportsource: 'next',
  out: 'next',
  reactnamespace: 'next',
  charset: 'next',
  newline: 'next',
  declarationdir: 'next',
  maxnodemodulejsdepth: 'next',
  plugins: 'config',
  moduledetection: 'next',
  ignoredeprecations: 'next',
  watchfile: 'next',
  watchdirectory: 'next',
  fallbackpolling: 'next',
  excludedirectories: 'list',
  excludefiles: 'list'
}

/** The same under `--build` (`ts.buildOpts` and the watch options). */
export const TSC_BUILD_VALUES: Readonly<Record<string, TscValue>> = {
  generatecpuprofile: 'next',
  generatetrace: 'next',
  locale: 'next',
  watchfile: 'next',
  watchdirectory: 'next',
  fallbackpolling: 'next',
  excludedirectories: 'list',
  excludefiles: 'list'
}

/** Short names of options with a value, outside `--build` (under it, none takes a value). */
export const TSC_SHORT: Readonly<Record<string, string>> = {
  p: 'project',
  t: 'target',
  m: 'module'
}

/** The words a boolean option (or `null` after any option) takes as its value. */
const BOOLEAN_VALUE = /^(?:true|false|null)$/

/** Options whose value is a file tsc writes. */
const WRITES_FILE = new Set(['outfile', 'out', 'tsbuildinfofile', 'generatecpuprofile'])
/** Options whose value is a directory tsc writes below. */
const WRITES_TREE = new Set(['outdir', 'declarationdir', 'generatetrace'])
/** Options whose value is a directory tsc reads below (module resolution, type packages). */
const READS_TREE = new Set(['baseurl', 'typeroots'])

/** Whether a word is tsc's `--build` mode option (`-b`, `--build`, any case). */
function isBuild(word: ShellWord | undefined): boolean {
  return word?.literal === true && /^--?(?:b|build)$/i.test(word.text)
}

/** A project tsc reads (`-p P`, `tsc -b P`): its file, and what it lists when it is elsewhere. */
function projectReads(name: string, word: ShellWord): CommandEffect[] {
  const out = [read(`${name} project`, word)]
  if (word.literal && (word.tilde || !staysInside(word.text))) {
    out.push(
      readsUnknown(
        `${name} reads the project ${word.text}, outside the working directory: its ` +
          'tsconfig.json (and the configurations it extends) list files the policy cannot see'
      )
    )
  }
  return out
}

/** What one option with its value does. */
function optionEffects(name: string, option: string, value: ShellWord): CommandEffect[] {
  const label = `${name} --${option}`
  if (value.literal && value.text === 'null') return [] // unsets the option
  if (WRITES_FILE.has(option)) return [fileWrite(label, value)]
  if (WRITES_TREE.has(option)) return [fileWrite(label, value, true)]
  if (option === 'project') return projectReads(name, value)
  if (READS_TREE.has(option)) {
    // `--typeRoots a,b`: each directory (the shell expands a tilde at the word's start only)
    if (!value.literal || !value.text.includes(',')) return [read(label, value)]
    return value.text.split(',').flatMap((part, k) => {
      const p = part.trim()
      return p === '' ? [] : [read(label, lit(p, k === 0 && value.tilde && p.startsWith('~')))]
    })
  }
  return []
}

export function tscEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  const build = isBuild(words[1])
  const table = build ? TSC_BUILD_VALUES : TSC_VALUES
  const could = 'an option that names where it writes, or a response file of more options'
  const projects: ShellWord[] = []
  const sources: ShellWord[] = []
  const given = new Set<string>()
  for (let i = build ? 2 : 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (!w.literal && (mayBeOption(w) || t.startsWith('@'))) {
      out.push(dynamicArgument(name, w, could))
      continue
    }
    if (t.startsWith('@')) {
      out.push(...responseFile(name, t, ' (options there can name where it writes)'))
      continue
    }
    if (!t.startsWith('-')) {
      ;(build ? projects : sources).push(w)
      continue
    }
    const written = t.slice(t.startsWith('--') ? 2 : 1).toLowerCase()
    const option = (build ? undefined : TSC_SHORT[written]) ?? written
    given.add(option)
    const kind = table[option]
    const next = words[i + 1]
    if (kind === undefined) {
      // a boolean (or an option tsc does not know, which it refuses): `--init`, `--clean`
      if (option === 'init' && !build) out.push(fileWrite(`${name} --init`, lit('tsconfig.json')))
      if (option === 'clean' && build) {
        out.push(
          writesUnknown(
            `${name} --build --clean deletes the outputs its projects' configurations name`
          )
        )
      }
      if (next?.literal === true && BOOLEAN_VALUE.test(next.text)) {
        if (next.text !== 'true') given.delete(option) // `--noEmit false`: the option off
        i++
      }
      continue
    }
    if (next === undefined) continue
    if (kind !== 'next' && !(next.literal && next.text === 'null')) {
      // a list or a tsconfig-only option leaves a word starting with `-` to be an option
      const start = next.literal ? (kind === 'list' ? next.text.trim() : next.text) : next.prefix
      if (!next.literal && mayBeOption(next)) {
        out.push(dynamicArgument(name, next, could))
        i++
        continue
      }
      if (start.startsWith('-') || (kind === 'config' && start === '')) continue
    }
    i++
    out.push(...optionEffects(name, option, next))
  }
  // `tsc --build` with no project builds the one here
  for (const p of projects) out.push(...projectReads(name, p))
  // `tsc a.ts`: without a place to write, each file of the program is emitted next to it, and the
  // program is the files named and every file they import (`import '../.github/x'` writes
  // .github/x.js), which the command line does not show
  const placed = ['noemit', 'outdir', 'outfile', 'out'].some((o) => given.has(o))
  if (sources.length > 0 && !placed) {
    out.push(
      writesUnknown(
        `${name} ${sources[0]?.text ?? ''}: each file of the program (those named and those they ` +
          'import) is written next to itself; --outDir or --noEmit says where'
      )
    )
  }
  return out
}
