/**
 * cp, mv, install, ln, rsync, scp: the destinations they write, and the hosts and shells rsync
 * and scp reach.
 */
import { fileListReads } from './file-lists.js'
import type { ShellWord } from '../shell-word.js'
import { isRemote } from './archives.js'
import {
  type CommandEffect,
  baseName,
  fileWrite,
  joinPath,
  lit,
  network,
  removal,
  runsCode,
  write
} from './effects.js'
import { LEADING_SLASHES } from './git.js'
import {
  type OptionTable,
  type Parsed,
  has,
  parseOptions,
  unknownWords,
  values
} from './options.js'

// ---------------------------------------------------------------------------------------------
// cp, mv, install, ln, rsync, scp

export const COPY: OptionTable = {
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
export function destinationWrites(
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

export function copyEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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

export const RSYNC: OptionTable = {
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

export function rsyncEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, RSYNC)
  const out = unknownWords(
    parsed,
    name,
    'an option that runs a program (-e) or changes where it writes'
  )
  out.push(...fileListReads(parsed, name))
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

export const SCP: OptionTable = {
  shortValue: 'cDFiJlSoPX',
  alias: { r: 'recursive' },
  effectful: [],
  effectfulShort: 'SFoJ'
}

export function scpEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
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
