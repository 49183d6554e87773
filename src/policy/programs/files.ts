/**
 * rm, rmdir, unlink, shred, truncate, touch, mkdir, chmod, chown, chgrp, dd, patch: the files
 * they write or delete.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  baseName,
  dirName,
  dyn,
  dynamicArgument,
  fileWrite,
  globDirectory,
  lit,
  mayBeOption,
  removal,
  runsCode,
  write,
  writesUnknown
} from './effects.js'
import { TRAILING_SLASHES } from './git.js'
import { type OptionTable, has, parseOptions, unknownWords, values } from './options.js'

// ---------------------------------------------------------------------------------------------
// rm, rmdir, unlink, shred, truncate, touch, mkdir, chmod, chown, chgrp, dd, patch

export interface TargetsSpec {
  table: OptionTable
  /** Options that make the writes recursive. */
  recursive?: readonly string[]
  /** Operands before the targets (chown OWNER, ...), unless one of `unlessOption` is given. */
  skip?: number
  unlessOption?: readonly string[]
}

export const TARGETS: Record<string, TargetsSpec> = {
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

export function targetsEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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
export const CHMOD_OPTION = /^-[Rcfv]+$/

export function chmodEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  let recursive = false
  let reference = false
  let modeSeen = false
  const operands: ShellWord[] = []
  let options = true
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (options && mayBeOption(w)) {
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

export function ddEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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

export const PATCH: OptionTable = {
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
  alias: {
    d: 'directory',
    g: 'get',
    i: 'input',
    o: 'output',
    p: 'strip',
    r: 'reject-file',
    B: 'prefix',
    Y: 'basename-prefix',
    z: 'suffix'
  },
  effectful: [
    'output',
    'directory',
    'get',
    'reject-file',
    'dry-run',
    'prefix',
    'basename-prefix',
    'suffix'
  ],
  effectfulShort: 'odgrBYz'
}

export function patchEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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
  // backups: -B PREFIX (PREFIX + FILE), -Y PREFIX (in FILE's directory), -z SUFFIX (FILE + SUFFIX)
  const prefixes = values(parsed, 'prefix')
  const basePrefixes = values(parsed, 'basename-prefix')
  const suffixes = values(parsed, 'suffix')
  if (prefixes.length + basePrefixes.length + suffixes.length > 0) {
    if (original === undefined || !original.literal) {
      out.push(writesUnknown(`${name} writes backups named after the files it patches`))
    } else {
      const file = original.text
      for (const p of prefixes)
        out.push(fileWrite(`${name} -B`, p.literal ? lit(p.text + file) : p))
      for (const p of basePrefixes) {
        const backup = `${dirName(file) === '.' ? '' : `${dirName(file)}/`}${p.text}${baseName(file)}`
        out.push(fileWrite(`${name} -Y`, p.literal ? lit(backup) : p))
      }
      for (const z of suffixes)
        out.push(fileWrite(`${name} -z`, z.literal ? lit(file + z.text) : z))
    }
  }
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
