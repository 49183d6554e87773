/**
 * Options that read a list of file names from a file or stdin (`tar -T LIST`, `file -f LIST`,
 * `rsync --files-from=LIST`, `zip -@`, `cpio -o`): the program then opens files the policy never
 * sees named, so the request reads something unknown (issue 30), like `--files0-from`.
 */
import type { ShellWord } from '../shell-word.js'
import { type CommandEffect, readsUnknown } from './effects.js'
import { has, type Parsed } from './options.js'

/** The long names (as the option tables report them) of options that read a file list. */
export const FILE_LIST_OPTIONS = ['files-from', 'files0-from', 'names-stdin', 'input-file']

/** A reads-unknown effect when the parsed command reads a list of file names. */
export function fileListReads(parsed: Parsed, name: string): CommandEffect[] {
  const option = FILE_LIST_OPTIONS.find((o) => has(parsed, o))
  return option === undefined
    ? []
    : [readsUnknown(`${name} --${option} reads the files a list names, unseen by the policy`)]
}

/** zip's `-@`/`--names-stdin` (any spelling: `-r@`, `--names-s`): names read from stdin. */
export function zipListReads(words: readonly ShellWord[], name: string): CommandEffect[] {
  for (const w of words.slice(1)) {
    const t = w.literal ? w.text : w.prefix
    if (t === '--') break
    if ((/^-[A-Za-z0-9]*@/.test(t) && !t.startsWith('--')) || /^--names-s/.test(t)) {
      return [
        readsUnknown(`${name} -@ archives the files named on its input, unseen by the policy`)
      ]
    }
  }
  return []
}

/**
 * cpio's copy-out and pass-through modes (`-o`, `-p`, `--create`, `--pass-through`, in any
 * combination of short flags) read the names of the files to copy from stdin.
 */
export function cpioListReads(words: readonly ShellWord[], name: string): CommandEffect[] {
  for (const w of words.slice(1)) {
    const t = w.literal ? w.text : w.prefix
    if ((/^-[A-Za-z]*[op]/.test(t) && !t.startsWith('--')) || /^--(?:cr|pas)/.test(t)) {
      return [readsUnknown(`${name} copies the files named on its input, unseen by the policy`)]
    }
  }
  return []
}
