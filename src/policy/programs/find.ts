import { dynamicWord, type ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dynamicArgument,
  fileWrite,
  lit,
  writesUnknown,
  type Recorder,
  type Run
} from './effects.js'

// ---------------------------------------------------------------------------------------------
// find

/** find primaries that take one argument (the -fprint family is recorded by shell.ts). */
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

export function findEffects(words: readonly ShellWord[]): CommandEffect[] {
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

/** What find runs (`-exec`, `-ok`, ...) and the files its -fprint family writes. */
export function findRuns(words: ShellWord[], recorder: Recorder): Run[] {
  const out: Run[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) continue
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(w.text)) {
      const inner: ShellWord[] = []
      let j = i + 1
      for (; j < words.length; j++) {
        const x = words[j] as ShellWord
        // `+` ends -exec only right after `{}`; elsewhere it is an argument (GNU find)
        if (x.literal && (x.text === ';' || (x.text === '+' && words[j - 1]?.text === '{}'))) break
        inner.push(x.literal && x.text.includes('{}') ? dynamicWord(x.text, '') : x)
      }
      if (inner.length > 0) out.push({ kind: 'words', words: inner })
      i = j
    } else if (['-fprint', '-fprint0', '-fls', '-fprintf'].includes(w.text)) {
      const file = words[i + 1]
      if (file !== undefined) recorder.recordWrite(`find ${w.text}`, file)
      i++
    }
  }
  return out
}
