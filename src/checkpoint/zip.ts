/**
 * The one file of an artifact's zip (GitHub serves every artifact as a zip). A small reader of
 * its own, not a dependency: it takes exactly one entry, a plain file name (no folder, no `..`, no
 * absolute path), never a link or anything but a regular file, stored or deflated, and inflates
 * no more than the cap, checking the CRC. Anything else is refused with why.
 */
import zlib from 'node:zlib'

export class ZipRefused extends Error {}

const EOCD = 0x06054b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50
/** S_IFMT and S_IFREG of the Unix mode in the high 16 bits of the external attributes. */
const S_IFMT = 0o170000
const S_IFREG = 0o100000

/** The single entry of `zip`: its name and bytes, at most `maxBytes` of them. */
export function singleZipEntry(zip: Buffer, maxBytes: number): { name: string; bytes: Buffer } {
  const refuse = (why: string): never => {
    throw new ZipRefused(`the artifact's zip ${why}`)
  }
  // the end-of-central-directory record: in the last 22 + 65,535 bytes
  let eocd = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i
      break
    }
  }
  if (eocd < 0) refuse('is not a zip file')
  const entries = zip.readUInt16LE(eocd + 10)
  const cdSize = zip.readUInt32LE(eocd + 12)
  const cdOffset = zip.readUInt32LE(eocd + 16)
  if (entries !== 1) refuse(`holds ${entries} entries, not the one checkpoint file`)
  if (cdOffset + cdSize > eocd || zip.readUInt32LE(cdOffset) !== CENTRAL) {
    refuse('has a broken central directory')
  }
  const madeBy = zip.readUInt16LE(cdOffset + 4) >> 8
  const flags = zip.readUInt16LE(cdOffset + 8)
  const method = zip.readUInt16LE(cdOffset + 10)
  const crc = zip.readUInt32LE(cdOffset + 16)
  const compressed = zip.readUInt32LE(cdOffset + 20)
  const size = zip.readUInt32LE(cdOffset + 24)
  const nameLength = zip.readUInt16LE(cdOffset + 28)
  const external = zip.readUInt32LE(cdOffset + 38)
  const localOffset = zip.readUInt32LE(cdOffset + 42)
  const name = zip.subarray(cdOffset + 46, cdOffset + 46 + nameLength).toString('utf8')
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(name) || name.includes('..')) {
    refuse(`entry '${name.slice(0, 100)}' is not a plain file name`)
  }
  if ((flags & 0x1) !== 0) refuse('entry is encrypted')
  const unixMode = external >>> 16
  // made on Unix (3) with a file type in its mode: it must be a regular file (a link has
  // S_IFLNK); some writers give only the permissions (Python's writestr: 0600), no type
  if (madeBy === 3 && (unixMode & S_IFMT) !== 0 && (unixMode & S_IFMT) !== S_IFREG) {
    refuse(`entry '${name}' is not a regular file (mode ${unixMode.toString(8)})`)
  }
  if (size > maxBytes || size === 0xffffffff) {
    refuse(`entry '${name}' is larger than ${maxBytes.toLocaleString('en-US')} bytes`)
  }
  if (zip.readUInt32LE(localOffset) !== LOCAL) refuse('has a broken local header')
  const dataStart =
    localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28)
  const data = zip.subarray(dataStart, dataStart + compressed)
  if (data.length !== compressed) refuse('is cut short')
  let bytes: Buffer
  if (method === 0) bytes = Buffer.from(data)
  else if (method === 8) {
    try {
      bytes = zlib.inflateRawSync(data, { maxOutputLength: maxBytes })
    } catch (error) {
      return refuse(
        `entry '${name}' does not inflate within ${maxBytes.toLocaleString('en-US')} bytes: ${error instanceof Error ? error.message : String(error)}`
      )
    }
  } else return refuse(`entry '${name}' uses compression method ${method}`)
  if (bytes.length !== size) refuse(`entry '${name}' is not the size its header says`)
  if (zlib.crc32(bytes) >>> 0 !== crc) refuse(`entry '${name}' fails its CRC check`)
  return { name, bytes }
}
