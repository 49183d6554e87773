/**
 * find: one reading of its words (readFind) for what it runs (-exec), writes (-fprint) and
 * deletes (-delete).
 */
import { dynamicWord, type ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  readsUnknown,
  writesUnknown,
  type Recorder,
  type Run
} from './effects.js'

// ---------------------------------------------------------------------------------------------
// find

/** find primaries that take one argument. */
export const FIND_ONE_ARG = new Set([
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
export const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir'])
export const FIND_START_END = new Set(['(', ')', '!', ','])

/** find's actions that write a file: the file is the next word. */
export const FIND_WRITES = new Set(['-fprint', '-fprint0', '-fprintf', '-fls'])

/**
 * How find reads its words: the starting points, the commands its -exec family runs, the files
 * its -fprint family writes, -delete. One reading serves both the analyzer (`findRuns`: what it
 * runs and writes) and the effects (`findEffects`), so they cannot disagree.
 *
 * A word that names an action where a primary's argument stands (`find . -name -fprint x`) is
 * read as that action too: GNU find would take it as the argument, but a reading that misses a
 * write or a command is the wrong way to err.
 */
export interface FindReading {
  starts: ShellWord[]
  /** The commands of -exec, -execdir, -ok, -okdir (`{}` as a word only known at run time). */
  runs: ShellWord[][]
  /** The files of -fprint, -fprint0, -fprintf, -fls, with the action's name. */
  writes: Array<{ action: string; file: ShellWord }>
  deletes: boolean
  /** -files0-from: the starting points are read from a file. */
  files0: boolean
  /** The first word only known at run time where an action could stand. */
  unknown?: ShellWord
}

function isAction(word: ShellWord | undefined): boolean {
  return word?.literal === true && (FIND_EXEC.has(word.text) || FIND_WRITES.has(word.text))
}

export function readFind(words: readonly ShellWord[]): FindReading {
  const reading: FindReading = { starts: [], runs: [], writes: [], deletes: false, files0: false }
  const n = words.length
  /** Skips the argument after index `at` unless it names an action: the index to go on from. */
  const argument = (at: number): number => (isAction(words[at + 1]) ? at : at + 1)
  let i = 1
  // -H -L -P -D opts -Olevel
  while (i < n) {
    const w = words[i] as ShellWord
    if (!w.literal) break
    if (w.text === '-H' || w.text === '-L' || w.text === '-P') i++
    else if (w.text === '-D') i = argument(i) + 1
    else if (w.text.startsWith('-O') && w.text.length > 2) i++
    else break
  }
  for (; i < n; i++) {
    const w = words[i] as ShellWord
    if (w.literal && (w.text.startsWith('-') || FIND_START_END.has(w.text))) break
    if (mayBeOption(w)) reading.unknown ??= w
    reading.starts.push(w)
  }
  for (; i < n; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (mayBeOption(w)) reading.unknown ??= w
      continue
    }
    const t = w.text
    if (FIND_EXEC.has(t)) {
      const inner: ShellWord[] = []
      while (i + 1 < n) {
        i++
        const x = words[i] as ShellWord
        // `+` ends -exec only right after `{}`; elsewhere it is an argument (GNU find)
        if (x.literal && (x.text === ';' || (x.text === '+' && words[i - 1]?.text === '{}'))) break
        inner.push(x.literal && x.text.includes('{}') ? dynamicWord(x.text, '') : x)
      }
      if (inner.length > 0) reading.runs.push(inner)
    } else if (FIND_WRITES.has(t)) {
      const file = words[i + 1]
      if (file !== undefined) reading.writes.push({ action: t, file })
      i++
      if (t === '-fprintf') i = argument(i) // the format
    } else if (t === '-delete') {
      reading.deletes = true
    } else if (t === '-files0-from') {
      reading.files0 = true
      i = argument(i)
    } else if (t.startsWith('-newer') || FIND_ONE_ARG.has(t)) {
      i = argument(i)
    }
  }
  return reading
}

/** What find does beyond what it runs and -fprint writes (`findRuns`): -delete, unknown words. */
export function findEffects(words: readonly ShellWord[]): CommandEffect[] {
  const reading = readFind(words)
  const out: CommandEffect[] = []
  if (reading.unknown !== undefined) {
    out.push(
      dynamicArgument('find', reading.unknown, 'an action such as -delete, -fprint or -exec')
    )
  }
  if (reading.files0) {
    out.push(
      readsUnknown('find -files0-from starts at the paths a list names, unseen by the policy')
    )
  }
  if (reading.deletes) {
    if (reading.files0) {
      out.push(writesUnknown('find -delete with -files0-from deletes paths listed in a file'))
    }
    const starts = reading.starts.length > 0 || reading.files0 ? reading.starts : [lit('.')]
    for (const start of starts) out.push(fileWrite('find -delete', start, true))
  }
  return out
}

/** What find runs (`-exec`, `-ok`, ...), recording the files its -fprint family writes. */
export function findRuns(words: ShellWord[], recorder: Recorder): Run[] {
  const reading = readFind(words)
  for (const { action, file } of reading.writes) recorder.recordWrite(`find ${action}`, file)
  return reading.runs.map((inner): Run => ({ kind: 'words', words: inner }))
}
