/**
 * Reading files the agent may have touched: only regular files, never through a link, never
 * waiting. A FIFO opened for reading waits for a writer (forever, and a synchronous open stops
 * the whole action with it); a device or a socket is no file either. Each is opened with
 * `O_NONBLOCK | O_NOFOLLOW`, checked with `fstat` on the open descriptor (what was opened, not
 * what the name pointed at a moment before), and read up to a size limit.
 */
import fs from 'node:fs'

/** A path that is not a regular file where one was expected (a FIFO, device, socket, link, directory). */
export class NotRegularFile extends Error {
  constructor(
    readonly file: string,
    readonly kind: string
  ) {
    super(`${file} is not a regular file (${kind})`)
    this.name = 'NotRegularFile'
  }
}

/** What an `fs.Stats` is, in words (for reports). */
export function kindOf(stat: fs.Stats): string {
  if (stat.isFile()) return 'a regular file'
  if (stat.isDirectory()) return 'a directory'
  if (stat.isSymbolicLink()) return 'a symbolic link'
  if (stat.isFIFO()) return 'a FIFO'
  if (stat.isSocket()) return 'a socket'
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device'
  return 'not a file'
}

const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK

/**
 * The content of `file` if it is a regular file of at most `maxBytes`; throws `NotRegularFile`
 * for anything else (a link in its place included: ELOOP), and an `ENOENT` error when absent.
 */
export function readRegularFile(file: string, maxBytes: number): Buffer {
  let fd: number
  try {
    fd = fs.openSync(file, FLAGS)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw new NotRegularFile(file, 'a symbolic link')
    if (code === 'ENXIO') throw new NotRegularFile(file, 'a socket or a FIFO without a reader')
    throw error
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) throw new NotRegularFile(file, kindOf(stat))
    if (stat.size > maxBytes) {
      throw new Error(`${file} is larger than ${maxBytes} bytes (${stat.size})`)
    }
    // what the descriptor holds, one byte past its size to see it grow past the limit
    const buffer = Buffer.alloc(stat.size + 1)
    let length = 0
    while (length < buffer.length) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, length)
      if (n === 0) break
      length += n
    }
    if (length > maxBytes) throw new Error(`${file} is larger than ${maxBytes} bytes`)
    return buffer.subarray(0, length)
  } finally {
    fs.closeSync(fd)
  }
}

/** `readRegularFile`, or undefined when the file does not exist. */
export function readRegularFileIfAny(file: string, maxBytes: number): Buffer | undefined {
  try {
    return readRegularFile(file, maxBytes)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** Copies a regular file (`readRegularFile`) to a new file `dest` (never through a link there). */
export function copyRegularFile(
  source: string,
  dest: string,
  maxBytes: number,
  mode = 0o600
): void {
  fs.writeFileSync(dest, readRegularFile(source, maxBytes), { flag: 'wx', mode })
}
