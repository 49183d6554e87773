/**
 * Which addresses are the runner's own or its neighbours', not the internet's: loopback, the
 * link-local range (where the cloud metadata service answers: 169.254.169.254), the private
 * ranges, and the special-purpose ones no public host has. The proxy of the setup and verify
 * commands (command-proxy.ts) refuses a connection to one unless the policy names that address.
 *
 * Pure: addresses as strings (IPv4 dotted, IPv6 in any spelling, with or without brackets).
 */
import net from 'node:net'

/** Why an address is not a public one. */
export type LocalRange =
  | 'unspecified'
  | 'loopback'
  | 'cloud metadata'
  | 'link-local'
  | 'private'
  | 'reserved'
  | 'multicast'

interface Range4 {
  base: number
  bits: number
  range: LocalRange
}

const v4 = (text: string): number =>
  text.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0)

/** IPv4 ranges, the most specific first. */
const RANGES4: readonly Range4[] = [
  { base: v4('169.254.169.254'), bits: 32, range: 'cloud metadata' },
  { base: v4('100.100.100.200'), bits: 32, range: 'cloud metadata' },
  { base: v4('0.0.0.0'), bits: 8, range: 'unspecified' },
  { base: v4('127.0.0.0'), bits: 8, range: 'loopback' },
  { base: v4('169.254.0.0'), bits: 16, range: 'link-local' },
  { base: v4('10.0.0.0'), bits: 8, range: 'private' },
  { base: v4('172.16.0.0'), bits: 12, range: 'private' },
  { base: v4('192.168.0.0'), bits: 16, range: 'private' },
  // carrier-grade NAT, where some clouds keep their own services
  { base: v4('100.64.0.0'), bits: 10, range: 'private' },
  { base: v4('192.0.0.0'), bits: 24, range: 'reserved' },
  { base: v4('192.0.2.0'), bits: 24, range: 'reserved' },
  { base: v4('198.18.0.0'), bits: 15, range: 'reserved' },
  { base: v4('198.51.100.0'), bits: 24, range: 'reserved' },
  { base: v4('203.0.113.0'), bits: 24, range: 'reserved' },
  { base: v4('224.0.0.0'), bits: 4, range: 'multicast' },
  { base: v4('240.0.0.0'), bits: 4, range: 'reserved' }
]

function range4(address: number): LocalRange | undefined {
  for (const r of RANGES4) {
    const shift = 32 - r.bits
    if (Math.floor(address / 2 ** shift) === Math.floor(r.base / 2 ** shift)) return r.range
  }
  return undefined
}

/** The eight 16-bit words of an IPv6 address, or undefined. */
function words6(text: string): number[] | undefined {
  if (net.isIPv6(text) === false) return undefined
  let head = text
  const tail: number[] = []
  // an embedded IPv4 (::ffff:127.0.0.1) is two words
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(head)
  if (dotted?.[1] !== undefined) {
    const value = v4(dotted[1])
    tail.push(Math.floor(value / 65536), value % 65536)
    head = head.slice(0, head.length - dotted[1].length)
    // `::ffff:` keeps its `::`, `1:2:3:4:5:6:` loses its last colon
    if (!head.endsWith('::')) head = head.slice(0, -1)
  }
  const [left = '', right] = head.split('::')
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16))
  const before = parse(left)
  const after = [...parse(right ?? ''), ...tail]
  const missing = 8 - before.length - after.length
  if (right === undefined && missing !== 0) return undefined
  if (missing < 0) return undefined
  return [...before, ...new Array<number>(missing).fill(0), ...after]
}

function range6(words: readonly number[]): LocalRange | undefined {
  const [w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0] = words
  const embedded = w6 * 65536 + w7
  const zeroTo = (n: number): boolean => words.slice(0, n).every((w) => w === 0)
  if (zeroTo(8)) return 'unspecified'
  if (zeroTo(7) && w7 === 1) return 'loopback'
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): the IPv4 address's range
  if (zeroTo(5) && w5 === 0xffff) return range4(embedded)
  if (zeroTo(6)) return range4(embedded) ?? 'reserved'
  // NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::): the IPv4 address's range
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) {
    return range4(embedded)
  }
  if (w0 === 0x2002) return range4(w1 * 65536 + w2)
  if ((w0 & 0xfe00) === 0xfc00) return 'private'
  if ((w0 & 0xffc0) === 0xfe80) return 'link-local'
  if ((w0 & 0xffc0) === 0xfec0) return 'private'
  if ((w0 & 0xff00) === 0xff00) return 'multicast'
  if (w0 === 0x2001 && w1 === 0x0db8) return 'reserved'
  return undefined
}

/**
 * The local range an address is in, or undefined for a public address; an address that does not
 * parse is `reserved` (never connected to).
 */
export function localRange(address: string): LocalRange | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '')
  if (net.isIPv4(bare)) return range4(v4(bare))
  const words = words6(bare)
  return words === undefined ? 'reserved' : range6(words)
}
