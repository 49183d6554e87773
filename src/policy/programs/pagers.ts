/** rg, less, more, man: the options that run a program or write a file. */
import type { ShellWord } from '../shell-word.js'
import { type CommandEffect, fileWrite, runsCode } from './effects.js'
import { type OptionTable, has, parseOptions, unknownWords, values } from './options.js'

// ---------------------------------------------------------------------------------------------
// rg, less, more, man

export const RG: OptionTable = {
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

export function rgEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, RG)
  const out = unknownWords(parsed, name, 'an option that runs a program (--pre)')
  if (has(parsed, 'pre', 'pre-glob')) {
    out.push(runsCode(`${name} --pre runs a preprocessor program on every file it searches`))
  }
  if (has(parsed, 'hostname-bin')) out.push(runsCode(`${name} --hostname-bin runs that program`))
  return out
}

export const LESS: OptionTable = {
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
export const PAGER_SAFE_COMMAND = /^\+{1,2}(?:[0-9]*[GgFpP%]?|[/?][^\n\r]*)$/

export function safePagerCommand(text: string): boolean {
  if (!PAGER_SAFE_COMMAND.test(text)) return false
  // a search pattern typed as keys: a control character (Enter, Escape) would end it
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20 || code === 0x7f) return false
  }
  return true
}

export function pagerEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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

export const MAN: OptionTable = {
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

export function manEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, MAN)
  const out = unknownWords(parsed, name, 'an option that runs a program (-P, -H)')
  if (has(parsed, 'pager')) out.push(runsCode(`${name} -P/--pager runs that pager program`))
  if (has(parsed, 'html')) out.push(runsCode(`${name} -H/--html runs a web browser`))
  if (has(parsed, 'config-file')) {
    out.push(runsCode(`${name} -C reads a configuration file that names programs to run`))
  }
  return out
}
