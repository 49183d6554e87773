/**
 * What the path checks know of the programs that read: which read the files their operands name
 * (and which option values are not files), which read whole trees (`grep -r`, `rg`), which read
 * the files of a tree (and so a `.git/config` token), which work in a directory an option names,
 * and which may put a symlink in place while they run. The engine asks these; they read words
 * only.
 */
import path from 'node:path'
import type { ShellWord } from '../shell-word.js'
import { eachWord } from './options.js'

/** The grep family's recursive options. */
const GREP_RECURSIVE = /^-[A-Za-z]*[rRd]|^--(?:rec|der|dir)/

/** Programs that read whole directory trees given as operands (`grep -r`, `rg`). */
export const RECURSIVE_READERS: Record<string, RegExp | true> = {
  grep: GREP_RECURSIVE,
  egrep: GREP_RECURSIVE,
  fgrep: GREP_RECURSIVE,
  rg: true,
  ag: true,
  ack: true,
  diff: /^-[A-Za-z]*r|^--recursive/,
  du: true,
  tree: true,
  ls: /^-[A-Za-z]*R|^--recursive/,
  git: /^--no-index$/,
  tar: /^-?[A-Za-z]*c|^--create/,
  zip: /^-[A-Za-z]*r|^--recurse/,
  cp: /^-[A-Za-z]*[rRa]|^--(?:recursive|archive)/,
  rsync: true,
  find: true
}

/**
 * Programs that read the files of a tree given as an operand (listing names, as `ls -R`, `du`
 * and `tree` do, reads no secret), and those that give it another name (`mv .git x`, `ln -s`).
 */
export const TREE_CONTENT_READERS: Record<string, RegExp | true> = {
  grep: GREP_RECURSIVE,
  egrep: GREP_RECURSIVE,
  fgrep: GREP_RECURSIVE,
  zgrep: GREP_RECURSIVE,
  rg: true,
  ag: true,
  ack: true,
  diff: /^-[A-Za-z]*r|^--recursive/,
  git: /^--no-index$/,
  tar: /^-?[A-Za-z]*[cru]|^--(?:create|append|update)/,
  bsdtar: /^-?[A-Za-z]*[cru]|^--(?:create|append|update)/,
  zip: true,
  '7z': true,
  cp: true,
  rsync: true,
  scp: true,
  mv: true,
  ln: true,
  cpio: true,
  find: /^-(?:exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/
}

/**
 * Programs that read the files their operands name, with the options whose value is not a
 * file (`head -n N`), and whether their first operand is a pattern or script (`grep PATTERN`)
 * unless an option gives it (`-e`, `-f`).
 */
interface Reader {
  values?: RegExp
  pattern?: RegExp
}
const GREP_VALUES =
  /^(?:-[A-Za-z]*[emABCD]|--(?:regexp|max-count|after-context|before-context|context|label|color|colour|include|exclude|exclude-dir|binary-files|devices|directories|group-separator))$/
const GREP_PATTERN = /^(?:-[A-Za-z]*[ef]|--(?:regexp|file)(?:=|$))/
export const PATH_READERS: Record<string, Reader> = {
  cat: {},
  tac: {},
  nl: { values: /^-[A-Za-z]*[bdfhilnsvw]$/ },
  head: { values: /^(?:-[A-Za-z]*[nc]|--(?:lines|bytes))$/ },
  tail: {
    values: /^(?:-[A-Za-z]*[ncs]|--(?:lines|bytes|pid|sleep-interval|max-unchanged-stats))$/
  },
  less: {},
  more: {},
  wc: {},
  od: { values: /^-[A-Za-z]*[AjNSstw]$/ },
  xxd: { values: /^-[A-Za-z]*[cgloOs]$/ },
  hexdump: { values: /^-[A-Za-z]*[enos]$/ },
  strings: { values: /^-[A-Za-z]*[ntTe]$/ },
  base64: { values: /^-[A-Za-z]*w$/ },
  base32: { values: /^-[A-Za-z]*w$/ },
  md5sum: {},
  sha1sum: {},
  sha256sum: {},
  sha512sum: {},
  cksum: {},
  b2sum: {},
  // -T/--temporary-directory is a directory sort works in: named, like any operand
  sort: {
    values: /^(?:-[A-Za-z]*[ktS]|--(?:key|field-separator|buffer-size))$/
  },
  uniq: { values: /^-[A-Za-z]*[fsw]$/ },
  cut: {
    values: /^(?:-[A-Za-z]*[dfcb]|--(?:delimiter|fields|characters|bytes|output-delimiter))$/
  },
  paste: { values: /^-[A-Za-z]*d$/ },
  join: { values: /^-[A-Za-z]*[12jteo]$/ },
  comm: {},
  diff: {
    values: /^(?:-[A-Za-z]*[UCxXIL]|--(?:unified|context|exclude|label|ignore-matching-lines))$/
  },
  cmp: { values: /^-[A-Za-z]*[in]$/ },
  fold: { values: /^-[A-Za-z]*w$/ },
  fmt: { values: /^-[A-Za-z]*[wgp]$/ },
  column: { values: /^-[A-Za-z]*[stcoNR]$/ },
  rev: {},
  expand: { values: /^-[A-Za-z]*t$/ },
  iconv: { values: /^-[A-Za-z]*[ft]$/ },
  file: {},
  stat: { values: /^-[A-Za-z]*c$/ },
  cp: { values: /^-[A-Za-z]*[tS]$/ },
  mv: { values: /^-[A-Za-z]*[tS]$/ },
  ln: { values: /^-[A-Za-z]*[tS]$/ },
  // -C is a directory tar reads its operands from (judged like `cd`): named, like any operand
  tar: { values: /^-[A-Za-z]*[fTX]$/ },
  zip: {},
  source: {},
  '.': {},
  dd: {},
  grep: { values: GREP_VALUES, pattern: GREP_PATTERN },
  egrep: { values: GREP_VALUES, pattern: GREP_PATTERN },
  fgrep: { values: GREP_VALUES, pattern: GREP_PATTERN },
  zgrep: { values: GREP_VALUES, pattern: GREP_PATTERN },
  rg: {
    values:
      /^(?:-[A-Za-z]*[egtTmABCMj]|--(?:regexp|glob|iglob|type|type-not|max-count|context|after-context|before-context|max-columns|threads|max-depth|color|colors))$/,
    pattern: GREP_PATTERN
  },
  sed: {
    values: /^(?:-[A-Za-z]*[el]|--expression)$/,
    pattern: /^(?:-[A-Za-z]*[ef]|--(?:expression|file)(?:=|$))/
  },
  awk: { values: /^-[A-Za-z]*[vF]$/, pattern: /^(?:-[A-Za-z]*f|--file(?:=|$))/ },
  gawk: { values: /^-[A-Za-z]*[vF]$/, pattern: /^(?:-[A-Za-z]*f|--file(?:=|$))/ },
  jq: {
    values: /^--(?:indent|arg|argjson|slurpfile|rawfile|args|jsonargs)$/,
    pattern: /^(?:-[A-Za-z]*f|--from-file(?:=|$))/
  }
}

/**
 * The words of a command that name files it reads: its operands and attached option values
 * (`--file=$F`), less option values that are not files and its pattern or script operand.
 * jq's --arg takes two words; a value after such an option is skipped.
 */
export function pathOperands(words: readonly ShellWord[]): ShellWord[] {
  const program = path.basename(words[0]?.text ?? '')
  const reader = PATH_READERS[program]
  if (reader === undefined) return []
  const out: ShellWord[] = []
  let patternGiven = words.some((w) => w.literal && reader.pattern?.test(w.text) === true)
  eachWord(
    words,
    (_, t) => t.startsWith('-') && t !== '-',
    (w, t, i) => {
      if (w.literal && reader.values?.test(t) === true) {
        const taken = program === 'jq' && /^--(?:arg|argjson|slurpfile|rawfile)$/.test(t) ? 2 : 1
        if (program === 'jq' && /^--(?:slurpfile|rawfile)$/.test(t)) {
          const file = words[i + taken]
          if (file !== undefined) out.push(file)
        }
        return taken
      }
      // an attached value may be a file (`--file=$F`, `-f$F`)
      if (!w.literal) out.push(w)
      // a long option the reader does not know may take the next word as its value (getopt's
      // `--opt VAL`): that word is named as a file too, and still read as an operand
      else if (t.startsWith('--') && !t.includes('=')) {
        const next = words[i + 1]
        if (next !== undefined && next.text !== '--') out.push(next)
      }
      return 0
    },
    (w) => {
      if (reader.pattern !== undefined && !patternGiven) {
        patternGiven = true // the first operand is the pattern or the script
        return
      }
      out.push(w)
    }
  )
  return out
}

/** Whether the command reads the files of the trees its operands name. */
export function readsTreeContents(words: readonly ShellWord[]): boolean {
  const reader = TREE_CONTENT_READERS[path.basename(words[0]?.text ?? '')]
  if (reader === undefined) return false
  return reader === true || words.slice(1).some((w) => w.literal && reader.test(w.text))
}

/** Options whose value is a directory the program works in: a run in HOME or / reaches secrets. */
export const DIRECTORY_OPTION = /^(?:-C|--directory|--chdir|--cwd|--git-dir|--work-tree|--prefix)$/
export const ATTACHED_DIRECTORY =
  /^(?:-C|--directory=|--chdir=|--cwd=|--git-dir=|--work-tree=|--prefix=)/

/** Programs that can put a symlink in place (or move one) while the command runs. */
export const LINK_PROGRAMS = new Set([
  'ln',
  'link',
  'mv',
  'tar',
  'bsdtar',
  'unzip',
  '7z',
  'cpio',
  'rsync',
  'git',
  'ditto'
])

/** git subcommands that write the working tree (and so may check out symlinks). */
export const GIT_TREE_WRITERS = new Set([
  'checkout',
  'switch',
  'restore',
  'reset',
  'stash',
  'apply',
  'am',
  'merge',
  'pull',
  'rebase',
  'cherry-pick',
  'revert',
  'clone',
  'worktree',
  'submodule',
  'read-tree',
  'checkout-index',
  'mv'
])

/** Whether the command reads whole directory trees given as operands (`grep -r`, `rg`, `find`). */
export function readsRecursively(words: readonly ShellWord[]): boolean {
  const reader = RECURSIVE_READERS[path.basename(words[0]?.text ?? '')]
  return (
    reader === true || (reader !== undefined && words.some((w) => w.literal && reader.test(w.text)))
  )
}

/** Whether the command may create or move a symlink as it runs (`ln -s`, `git checkout`, `cp -a`). */
export function mayMakeLinks(words: readonly ShellWord[]): boolean {
  const program = path.basename(words[0]?.text ?? '')
  if (LINK_PROGRAMS.has(program)) {
    if (program !== 'git') return true
    const sub = words.slice(1).find((w) => !w.literal || !w.text.startsWith('-'))
    if (sub === undefined || !sub.literal || GIT_TREE_WRITERS.has(sub.text)) return true
  }
  // cp copies symlinks as symlinks when recursive, archiving or asked to link
  if (
    program === 'cp' &&
    words.some(
      (w) =>
        !w.literal ||
        /^-[A-Za-z]*[slaRrdP]/.test(w.text) ||
        /^--(?:link|symbolic-link|archive|recursive|no-dereference|preserve)/.test(w.text)
    )
  ) {
    return true
  }
  return false
}

/**
 * Programs that open none of their arguments: what they print or test is the word itself
 * (`echo /etc`, `basename /a/b`, `which node`), not a file's contents.
 */
const NON_OPENERS = new Set([
  'echo',
  'printf',
  'basename',
  'dirname',
  'true',
  'false',
  'sleep',
  'pwd',
  'which',
  'type',
  'hash',
  'export',
  'unset',
  'set',
  'shopt',
  'read',
  'local',
  'declare',
  'typeset',
  'readonly',
  'let',
  'exit',
  'return',
  'wait',
  'kill'
])

/** find's primaries whose value is a pattern or a number, not a file. */
const FIND_PATTERN_PRIMARY =
  /^-(?:name|iname|path|ipath|wholename|iwholename|regex|iregex|lname|ilname|type|xtype|perm|user|group|uid|gid|size|mtime|atime|ctime|mmin|amin|cmin|maxdepth|mindepth|links|inum|printf|fprintf|regextype|newerXY|context)$/

/**
 * The words of a command that may name files or directories it opens (reads, lists, works in):
 * a reader's operands less its pattern or script (pathOperands), find's start points and file
 * values, and for any other program every operand and every option value attached with `=`,
 * `@` or after a short option (`--config=/etc/x`, `-I/usr/include`, `-d @file`). The engine
 * judges those that lead outside the working directory as reads.
 */
export function namedPaths(words: readonly ShellWord[]): ShellWord[] {
  const program = path.basename(words[0]?.text ?? '')
  if (NON_OPENERS.has(program)) return []
  if (PATH_READERS[program] !== undefined) return [...pathOperands(words), ...attachedValues(words)]
  if (program === 'find') {
    const out: ShellWord[] = []
    let expression = false
    for (let i = 1; i < words.length; i++) {
      const w = words[i] as ShellWord
      const t = w.literal ? w.text : w.prefix
      if (!expression && !t.startsWith('-') && t !== '(' && t !== '!') {
        out.push(w)
        continue
      }
      expression = true
      if (FIND_PATTERN_PRIMARY.test(t)) i++
      else if (/^-(?:newer|anewer|cnewer|samefile)$/.test(t) && words[i + 1] !== undefined)
        out.push(words[++i] as ShellWord)
    }
    return out
  }
  const out: ShellWord[] = []
  let options = true
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (options && t === '--') {
      options = false
      continue
    }
    if (options && t.startsWith('-') && t !== '-') continue
    out.push(w)
  }
  return [...out, ...attachedValues(words)]
}

/** Option values attached to their option that look like paths (`--x=/p`, `-I/p`, `@/p`). */
function attachedValues(words: readonly ShellWord[]): ShellWord[] {
  const out: ShellWord[] = []
  for (const w of words.slice(1)) {
    if (!w.literal) continue
    // a value glued to a short option, alone or after flags (`-f../x`, `-rf/x`, `-S~/x`)
    const m =
      /^--?[A-Za-z0-9][\w.-]*=(.+)$/.exec(w.text) ??
      /^-[A-Za-z0-9]+?((?:[/~]|\.\.(?:\/|$)).*)$/.exec(w.text) ??
      /^@([/~].*)$/.exec(w.text)
    const value = m?.[1]
    if (value === undefined) continue
    const v = value.startsWith('@') ? value.slice(1) : value
    if (v.startsWith('/') || v.startsWith('~/') || v === '~' || /(?:^|\/)\.\.(?:\/|$)/.test(v)) {
      out.push({ text: v, literal: true, prefix: v, tilde: v.startsWith('~') })
    }
  }
  return out
}
