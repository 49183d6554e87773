/**
 * file, tar, unzip, zip and the compressors (gzip, xz, zstd, ...): the files they extract or
 * replace, the hosts tar reaches.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  baseName,
  dyn,
  dynamicArgument,
  fileWrite,
  isAbsolute,
  joinPath,
  lit,
  mayBeOption,
  network,
  runsCode,
  write,
  writesUnknown
} from './effects.js'
import { cpioListReads, fileListReads, zipListReads } from './file-lists.js'
import { type OptionTable, eachWord, has, parseOptions, unknownWords, values } from './options.js'

// ---------------------------------------------------------------------------------------------
// file, tar, unzip

export const FILE: OptionTable = {
  shortValue: 'eFfmP',
  longValue: ['exclude', 'exclude-quiet', 'separator', 'files-from', 'magic-file', 'parameter'],
  alias: { C: 'compile', m: 'magic-file', f: 'files-from' },
  effectful: ['compile'],
  effectfulShort: 'C'
}

export function fileEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, FILE)
  const out = unknownWords(parsed, name, '-C, which writes a compiled magic file')
  out.push(...fileListReads(parsed, name))
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

/** The tar options that take a value and read, write, run or connect with it. */
const TAR_EFFECTFUL_VALUES = [
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
  'listed-incremental'
]

export const TAR: OptionTable = {
  shortValue: 'bCfFgHIKLNTVX',
  longValue: [
    ...TAR_EFFECTFUL_VALUES,
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
    ...TAR_EFFECTFUL_VALUES,
    'volno-file',
    'remove-files',
    'absolute-names'
  ],
  effectfulShort: 'xcruAfCFgIP'
}

/** `host:path` (a colon before any slash): rsync, scp and tar read it as a remote file. */
export function isRemote(text: string): boolean {
  const colon = text.indexOf(':')
  if (colon <= 0) return false
  const slash = text.indexOf('/')
  return slash < 0 || colon < slash
}

export function tarEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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
  out.push(...fileListReads(parsed, name))
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
export const UNZIP_VALUE = 'dPOI'
/** unzip modes that write nothing: list, test, to stdout, comment, zipinfo. */
export const UNZIP_READ = 'ltvpcZz'

export function unzipEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let readOnly = false
  let anyPath = false
  const dirs: ShellWord[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (mayBeOption(w)) {
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
// zip, gzip and the other compressors

/** zip options that take a value as the next word (or attached). */
export const ZIP_VALUE = new Set([
  '-b',
  '-n',
  '-t',
  '-tt',
  '-O',
  '-P',
  '-Z',
  '-s',
  '-sp',
  '-sb',
  '-TT'
])

/**
 * zip: `-TT cmd` / `--unzip-command cmd` runs a command to test the archive, `-m` deletes the
 * files it archives, `-O` writes another archive; the archive itself is written.
 */
export function zipEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = zipListReads(words, name)
  let archive: ShellWord | undefined
  const inputs: ShellWord[] = []
  let moves = false
  eachWord(
    words,
    (w, t) => t.startsWith('-') || (!w.literal && t === ''),
    (w, t, i) => {
      if (!w.literal) {
        out.push(dynamicArgument(name, w, 'an option that runs a command (-TT)'))
        return 0
      }
      if (/^--unz/.test(t) || /^-[A-Za-z]*TT/.test(t)) {
        out.push(runsCode(`${name} ${t} runs a command to test the archive`))
      }
      if ((/^-[A-Za-z]*m/.test(t) && !t.startsWith('--')) || /^--mo/.test(t)) moves = true
      if (/^-[A-Za-z]*O$/.test(t) || /^--output-file$/.test(t)) {
        const value = words[i + 1]
        if (value !== undefined) out.push(fileWrite(`${name} -O`, value))
      }
      // -b DIR / --temp-path DIR: the temporary archive (ziXXXXXX) is written there
      if (t === '-b' || t === '--temp-path') {
        const dir = words[i + 1]
        if (dir !== undefined) {
          out.push(fileWrite(`${name} -b`, dir.literal ? joinPath(dir, 'ziXXXXXX') : dir))
        }
      }
      return ZIP_VALUE.has(t) ||
        /^-[A-Za-z]*O$/.test(t) ||
        /^--(?:output-file|unzip-command|temp-path|suffixes|password)$/.test(t)
        ? 1
        : 0
    },
    (w) => {
      if (archive === undefined) archive = w
      else inputs.push(w)
    }
  )
  if (archive !== undefined) out.push(fileWrite(name, archive))
  if (moves) for (const input of inputs) out.push(fileWrite(`${name} -m`, input, true))
  return out
}

/** Compressors: without `-c` / `-t` / `-l` they replace each file with its (de)compressed one. */
export const COMPRESSOR_SUFFIX: Readonly<Record<string, string>> = {
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
  uncompress: '.Z',
  brotli: '.br',
  unbrotli: '.br'
}

/** Short options of the compressors that take the next word as their value. */
export const COMPRESSOR_VALUE = /^-[A-Za-z0-9]*[SoTbpM]$/

export function compressorEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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
    '.Z',
    '.br'
  ])
  let stdout = false
  let recursive = false
  const operands: ShellWord[] = []
  eachWord(
    words,
    (_, t) => t.startsWith('-') && t !== '-',
    (w, t, i) => {
      if (!w.literal) {
        out.push(dynamicArgument(name, w, 'an option naming a file it writes'))
        return 0
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
        return 1
      }
      if (value !== null) {
        if (t.startsWith('--output')) out.push(fileWrite(`${name} -o`, lit(value[1] as string)))
        else suffixes.add(value[1] as string)
      }
      return 0
    },
    (w) => operands.push(w)
  )
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
// cpio

/** cpio's short options that take a value (attached or the next word). */
const CPIO_VALUE = 'FOIHCEMRD'

/**
 * cpio: copy-out and pass-through read the names of the files on stdin (cpioListReads);
 * copy-in (`-i` without `-t`) writes the files the archive names, absolute or with `..`;
 * copy-out writes its archive (`-O F`, `-F F`; `host:F` through a remote shell);
 * `--rsh-command` runs a program.
 */
export function cpioEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out = cpioListReads(words, name)
  const modes = new Set<string>()
  const archives: ShellWord[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (mayBeOption(w))
        out.push(dynamicArgument(name, w, '-i, which writes the files an archive names'))
      continue
    }
    const t = w.text
    if (t.startsWith('--')) {
      const [long = '', value] = t.slice(2).split(/=(.*)/s)
      if ('extract'.startsWith(long) && long.length >= 2) modes.add('i')
      if ('create'.startsWith(long) && long.length >= 2) modes.add('o')
      if ('list'.startsWith(long) && long.length >= 2) modes.add('t')
      if (/^rsh/.test(long)) out.push(runsCode(`${name} --rsh-command runs that program`))
      if ('file'.startsWith(long) && long.length >= 2) {
        const archive = value !== undefined ? lit(value) : words[++i]
        if (archive !== undefined) archives.push(archive)
      }
      continue
    }
    if (!t.startsWith('-') || t === '-') continue
    for (let j = 1; j < t.length; j++) {
      const letter = t[j] as string
      if (!CPIO_VALUE.includes(letter)) {
        modes.add(letter)
        continue
      }
      const rest = t.slice(j + 1)
      const value = rest !== '' ? lit(rest) : words[++i]
      if (value !== undefined && (letter === 'O' || letter === 'F')) archives.push(value)
      break
    }
  }
  if (modes.has('i') && !modes.has('t')) {
    out.push(
      writesUnknown(`${name} -i writes the files the archive names, absolute paths and .. included`)
    )
  }
  if (modes.has('o')) {
    for (const a of archives) {
      if (a.literal && /^[^/]*:/.test(a.text)) {
        out.push(network(`${name} writes the archive ${a.text} through a remote shell`))
      } else out.push(fileWrite(`${name} -O`, a))
    }
  }
  return out
}
