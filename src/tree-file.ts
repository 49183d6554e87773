/**
 * Files the action reads from the checked-out tree on the workflow's behalf: `prompt-file`, the
 * policy, the `agent` file, an `mcp-servers` file. On a pull request that tree is the author's,
 * and a symlink there can point anywhere the action's user can read (`/proc/self/environ`,
 * `~/.docker/config.json`): read naively, the file's content would become the prompt, or be
 * quoted in an error. So every such read goes through `readTreeFile`:
 *
 * - a path named inside the workspace must stay inside it physically (every symlink of every
 *   component resolved): one that leads out is refused, naming where it leads, and never opened;
 * - only a regular file is read: a directory, FIFO, socket or device is refused without being
 *   opened, and so is anything in the kernel's `/proc`, `/sys` or `/dev` (their files look
 *   regular);
 * - a file named inside the workspace with other names (a hard link, `st_nlink > 1`) is refused:
 *   it is a regular file inside the tree whose data may be an outside file's (`ln ~/.ssh/id_rsa
 *   task.md` needs no symlink), and nothing says where its other names are;
 * - at most `maxBytes` (1 MiB by default) are read;
 * - the checks are made again on what was opened (fstat, and the descriptor's own path in
 *   /proc/self/fd), so a link swapped in between the check and the open is caught.
 *
 * A path the workflow names outside the workspace (`${{ runner.temp }}/task.md`) is the workflow
 * author's choice and is not confined, but still read only as a regular, size-limited file.
 *
 * Node builtins only: settings.ts (the bundle's entry chunk) imports this.
 */
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from './errors.js'

/** The most the action reads of a file from the tree. */
export const TREE_FILE_MAX_BYTES = 1024 * 1024

export type TreeFileProblem = 'missing' | 'outside' | 'not-regular' | 'too-large' | 'hard-link'

/** A file the action will not read; `problem` says why. The message names no content. */
export class TreeFileError extends UserError {
  constructor(
    readonly problem: TreeFileProblem,
    /** The file as named (absolute). */
    readonly file: string,
    message: string,
    /** What the file turned out to be, for `not-regular` (`directory`, `FIFO`, ...). */
    readonly kind?: string
  ) {
    super(message)
  }
}

export interface TreeFileRequest {
  /** Who names the file, for errors: `input 'prompt-file'`. */
  what: string
  /** The path as given; relative to `base`. */
  name: string
  /** Where a relative `name` starts. */
  base: string
  /** The checked-out tree (GITHUB_WORKSPACE): what a path named inside it must stay in. */
  workspace: string
  maxBytes?: number
}

export interface TreeFile {
  /** The file as named (absolute). */
  file: string
  /** Where it physically is (every symlink resolved). */
  realPath: string
  text: string
}

/** Whether `p` is `root` or below it (both absolute, normalized). */
export function isInside(root: string, p: string): boolean {
  const relative = path.relative(root, p)
  return (
    relative === '' ||
    (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  )
}

/** The workspace as named and as it physically is (they differ when a parent is a symlink). */
export function workspaceRoots(workspace: string): { named: string; physical: string } {
  const named = path.resolve(workspace)
  let physical = named
  try {
    physical = fs.realpathSync(named)
  } catch {
    // a workspace that does not exist contains nothing: every physical path is outside
  }
  return { named, physical }
}

/** Whether `file` (absolute, unresolved) is named inside the workspace. */
export function namedInside(roots: { named: string; physical: string }, file: string): boolean {
  return isInside(roots.named, file) || isInside(roots.physical, file)
}

/** The kernel's pseudo filesystems: their "regular" files are views of processes and devices. */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev']

function inPseudoFilesystem(realPath: string): boolean {
  return process.platform === 'linux' && PSEUDO_ROOTS.some((root) => isInside(root, realPath))
}

/** `a directory`, `a FIFO`, ... for a stat that is not a regular file. */
export function describeKind(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory'
  if (stat.isFIFO()) return 'a FIFO (named pipe)'
  if (stat.isSocket()) return 'a socket'
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device'
  if (stat.isSymbolicLink()) return 'a symlink'
  return 'not a regular file'
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

/**
 * Where `file` leads, as far as it can be followed: its physical path, or for a link whose target
 * does not exist, the target it names. Undefined when the entry itself does not exist.
 */
function whereItLeads(file: string): { realPath: string; exists: boolean } | undefined {
  try {
    return { realPath: fs.realpathSync(file), exists: true }
  } catch (error) {
    if (errno(error) === 'ELOOP') return { realPath: file, exists: true }
    if (errno(error) !== 'ENOENT' && errno(error) !== 'ENOTDIR') throw error
  }
  // a dangling link (somewhere along the path): follow the last link by hand
  let entry: fs.Stats
  try {
    entry = fs.lstatSync(file)
  } catch {
    return undefined
  }
  if (!entry.isSymbolicLink()) return undefined
  let target = path.resolve(path.dirname(file), fs.readlinkSync(file))
  try {
    target = path.join(fs.realpathSync(path.dirname(target)), path.basename(target))
  } catch {
    // its directory is missing too: the target as named
  }
  return { realPath: target, exists: false }
}

/** The physical path of an open descriptor (Linux: /proc/self/fd/N), when the system says. */
function descriptorPath(fd: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
}

/**
 * Reads a file the workflow names, from the checked-out tree or elsewhere, under the rules above.
 * Throws TreeFileError (a UserError) with the fix; `missing` when nothing is there, so that a
 * caller with a default (the policy) can use it.
 */
export function readTreeFile(request: TreeFileRequest): TreeFile {
  const { what } = request
  const maxBytes = request.maxBytes ?? TREE_FILE_MAX_BYTES
  const file = path.resolve(request.base, request.name)
  const roots = workspaceRoots(request.workspace)
  const confined = namedInside(roots, file)
  const leads = whereItLeads(file)
  const outside = (to: string): TreeFileError =>
    new TreeFileError(
      'outside',
      file,
      `${capitalize(what)} names '${file}', which leads to '${to}', outside the workspace '${roots.physical}' (a symlink). The action reads only files inside the checked-out tree: on a pull request the tree is its author's. Replace the symlink with the file itself.`
    )
  if (leads === undefined) {
    throw new TreeFileError(
      'missing',
      file,
      `${capitalize(what)} names '${file}', which does not exist.`
    )
  }
  if (confined && !isInside(roots.physical, leads.realPath)) throw outside(leads.realPath)
  if (!leads.exists) {
    throw new TreeFileError(
      'missing',
      file,
      `${capitalize(what)} names '${file}', a symlink to '${leads.realPath}', which does not exist.`
    )
  }
  const notRegular = (kind: string, realPath: string): TreeFileError =>
    new TreeFileError(
      'not-regular',
      file,
      `${capitalize(what)} names '${file}'${realPath === file ? '' : `, which leads to '${realPath}'`}: that is ${kind}, not a regular file. Point it at a file in the workspace.`,
      kind
    )
  if (inPseudoFilesystem(leads.realPath)) {
    throw notRegular(
      `a file of the kernel's ${leads.realPath.split('/')[1] ?? 'proc'} filesystem`,
      leads.realPath
    )
  }
  let stat: fs.Stats
  try {
    stat = fs.statSync(leads.realPath)
  } catch (error) {
    if (errno(error) === 'ELOOP') throw notRegular('a symlink loop', leads.realPath)
    throw error
  }
  if (!stat.isFile()) throw notRegular(describeKind(stat), leads.realPath)
  const hardLink = (links: number): TreeFileError =>
    new TreeFileError(
      'hard-link',
      file,
      `${capitalize(what)} names '${file}'${leads.realPath === file ? '' : `, which leads to '${leads.realPath}'`}: a file with ${links} names (a hard link), whose data may be a file outside the workspace. The action reads only files of the checked-out tree itself. Replace the link with a copy of the file (cp --remove-destination).`
    )
  if (confined && stat.nlink > 1) throw hardLink(stat.nlink)
  const tooLarge = (size: string): TreeFileError =>
    new TreeFileError(
      'too-large',
      file,
      `${capitalize(what)} names '${file}', which is ${size}; the action reads at most ${formatBytes(maxBytes)} of a file from the tree.`
    )
  if (stat.size > maxBytes) throw tooLarge(formatBytes(stat.size))

  // Open what was checked (O_NOFOLLOW: its last component is no link now), without blocking on
  // a FIFO swapped in meanwhile, and check again what was opened.
  const flags =
    fs.constants.O_RDONLY |
    (fs.constants.O_NOFOLLOW ?? 0) |
    (fs.constants.O_NONBLOCK ?? 0) |
    (fs.constants.O_NOCTTY ?? 0)
  let fd: number
  try {
    fd = fs.openSync(leads.realPath, flags)
  } catch (error) {
    if (errno(error) === 'ELOOP') throw outside(leads.realPath) // became a link since
    if (errno(error) === 'ENOENT') {
      throw new TreeFileError(
        'missing',
        file,
        `${capitalize(what)} names '${file}', which does not exist.`
      )
    }
    throw error
  }
  try {
    const opened = fs.fstatSync(fd)
    if (!opened.isFile()) throw notRegular(describeKind(opened), leads.realPath)
    if (confined && opened.nlink > 1) throw hardLink(opened.nlink)
    if (opened.dev !== stat.dev || opened.ino !== stat.ino) {
      throw new TreeFileError(
        'outside',
        file,
        `${capitalize(what)} names '${file}', which changed while it was being opened. Run again; if it keeps happening, something is replacing the file.`
      )
    }
    const openedPath = descriptorPath(fd) ?? leads.realPath
    if (confined && !isInside(roots.physical, openedPath)) throw outside(openedPath)
    if (inPseudoFilesystem(openedPath))
      throw notRegular('a file of a kernel filesystem', openedPath)
    // one byte more than the limit: a file that grew since the stat is still caught
    const buffer = Buffer.alloc(maxBytes + 1)
    let length = 0
    for (;;) {
      if (length === buffer.length) break
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null)
      if (n === 0) break
      length += n
    }
    if (length > maxBytes) throw tooLarge(`more than ${formatBytes(maxBytes)}`)
    return { file, realPath: openedPath, text: buffer.subarray(0, length).toString('utf8') }
  } finally {
    fs.closeSync(fd)
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}
