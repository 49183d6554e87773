/**
 * What may be read outside the working directory without a rule naming it: an allowlist, not a
 * list of known secrets (any such list misses some: a build tool's or a cloud CLI's credential
 * file, git's XDG credential store, another process's environment).
 *
 * - System locations a tool needs: `/usr`, `/bin`, `/lib*`, `/opt`, `/etc` less its secrets, the
 *   runner's tool cache and the directories on PATH (the toolchains). A file there that its owner
 *   keeps from other users (no read bit for others, or a directory on the way without the search
 *   bit) is a secret too: `/etc/shadow`, `/etc/ssl/private/…`, an SSH host key.
 * - `/proc` for the process itself only (`/proc/self/status`), never its links out (`root`,
 *   `cwd`, `fd`, …) or its environment; the files that describe the machine (`/proc/cpuinfo`).
 * - HOME is unreadable unless a rule names a path in it (a `read` allow glob whose literal base
 *   lies in HOME: `/home/runner/.m2/repository/**`); `read: ['/**']` does not open HOME.
 *
 * Everything else outside the working directory (`/tmp`, `/var`, `/srv`, `/`, a sibling
 * checkout) needs a `read` rule.
 */
import { lstatSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { PathGlob, SubjectPath } from './paths.js'
import { SCRATCH_AREAS, within } from './scratch-areas.js'

/**
 * HOME as the agent's commands see it: the HOME variable (what `~` and `cd` expand to), else the
 * account's home directory.
 */
export function homeDirectory(): string {
  const home = process.env.HOME
  return home !== undefined && path.isAbsolute(home) ? path.resolve(home) : os.homedir()
}

/** The rule id of a read the allowlist grants (built in: no policy rule names it). */
export const SYSTEM_READ = 'system-read'

/** Directories whose files every tool may read (less their secrets). */
export const SYSTEM_READ_ROOTS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/snap',
  '/nix/store',
  '/System',
  '/Library/Developer',
  '/Library/Frameworks',
  '/Applications/Xcode.app'
]

/** Secrets in the system locations, whatever their mode says (compared case-insensitively). */
const SYSTEM_SECRETS = [
  /^\/etc\/(?:g?shadow|sudoers|master\.passwd|spwd\.db)/i,
  /^\/etc\/(?:ssh|ssl\/private|pki\/tls\/private|security|sudoers\.d|credstore|krb5\.keytab|libvirt\/secrets)(?:\/|$)/i,
  /^\/etc\/(?:.*\/)?[^/]*(?:_key|\.key|secret[^/]*|credentials?[^/]*|\.keytab|id_[a-z0-9]+)$/i
]

/** Devices a program may read: they hold no file. */
const READABLE_DEVICES = new Set([
  '/dev/null',
  '/dev/zero',
  '/dev/random',
  '/dev/urandom',
  '/dev/stdin',
  '/dev/tty',
  '/dev/fd/0'
])

/** /proc files that describe the machine, not a process. */
const PROC_INFO =
  /^\/proc\/(?:cpuinfo|meminfo|version|loadavg|uptime|stat|filesystems|mounts|swaps|partitions|devices)$/

/** Entries of /proc/self that lead out of it or hold what other programs put there. */
const PROC_SELF_ESCAPES =
  /^(?:\.\.?|root|cwd|exe|fd|fdinfo|map_files|task|environ|mem|cmdline|auxv|pagemap|syscall|stack|attr)$/

/** What the allowlist needs of the run. */
export interface ReadPlaces {
  home: string
  /** The runner's tool cache and the PATH directories (absolute, normalized). */
  toolchains: readonly string[]
  /**
   * When the run began (ms since the epoch): a file in a scratch area (`/tmp`) made since is the
   * run's own (`--outputFile=/tmp/results.json`, then `jq … /tmp/results.json`); one made before
   * is an earlier step's, and may hold its secrets.
   */
  since: number
}

export function readPlaces(home: string, env: NodeJS.ProcessEnv = process.env): ReadPlaces {
  const toolchains = new Set<string>()
  const add = (p: string | undefined) => {
    if (p === undefined || p === '' || !path.isAbsolute(p)) return
    const dir = path.resolve(p)
    // never the root, HOME or a directory above it, nor a scratch area itself
    if (dir === '/' || within(dir, home) || ['/tmp', '/var/tmp', '/dev/shm'].includes(dir)) return
    toolchains.add(dir)
  }
  add(env.RUNNER_TOOL_CACHE)
  for (const dir of (env.PATH ?? '').split(path.delimiter)) add(dir)
  return { home: path.resolve(home), toolchains: [...toolchains], since: Date.now() }
}

/**
 * How the allowlist reads an absolute, normalized path outside the working directory:
 * `system` (readable without a rule), `home` (only a rule naming a path in HOME opens it),
 * `proc` (another process, or a link out of this one: never), `secret` (a system location's
 * secret: never), or `other` (a rule must allow it).
 */
export type ReadPlace =
  | { kind: 'system'; reason: string }
  | { kind: 'home' }
  | { kind: 'never'; reason: string }
  | { kind: 'other' }

/**
 * Why a /proc path (as written, before /proc/self is followed) is readable, or undefined: the
 * process's own description (`/proc/self/status`) and the machine's (`/proc/cpuinfo`).
 */
export function procReadable(p: string): string | undefined {
  if (PROC_INFO.test(p)) return `${p} describes the machine`
  const self = /^\/proc\/(?:self|thread-self)\/([^/]+)$/.exec(p)
  if (self !== null && !PROC_SELF_ESCAPES.test(self[1] as string)) {
    return `${p} describes the process itself`
  }
  return undefined
}

export function readPlace(p: string, places: ReadPlaces): ReadPlace {
  if (READABLE_DEVICES.has(p)) return { kind: 'system', reason: `${p} is a device without a file` }
  if (p === '/proc' || p.startsWith('/proc/')) {
    const reason = procReadable(p)
    if (reason !== undefined) return { kind: 'system', reason }
    return {
      kind: 'never',
      reason: `${p}: /proc is readable for the process itself only (other processes' environments hold the action's secrets)`
    }
  }
  const scratch = SCRATCH_AREAS.find((area) => within(area, p) && area !== p)
  if (scratch !== undefined && !within(places.home, p)) {
    const made = madeAt(p)
    if (made !== undefined && made > places.since) {
      return { kind: 'system', reason: `${p} was made in ${scratch} by this run's own commands` }
    }
    return { kind: 'other' }
  }
  const inHome = within(places.home, p)
  const toolchain = places.toolchains.find((t) => within(t, p))
  const root = SYSTEM_READ_ROOTS.find((r) => within(r, p))
  if (toolchain === undefined && (root === undefined || inHome)) {
    return inHome ? { kind: 'home' } : { kind: 'other' }
  }
  const secret = SYSTEM_SECRETS.find((re) => re.test(p))
  if (secret !== undefined) return { kind: 'never', reason: `${p} is a secret of the system` }
  const hidden = hiddenFromOthers(p, (toolchain ?? root) as string)
  if (hidden !== undefined) {
    return {
      kind: 'never',
      reason: `${hidden} is kept from other users (its mode), so it holds a secret`
    }
  }
  return {
    kind: 'system',
    reason: `${p} is in ${toolchain ?? root}, a system location tools need (outside the working directory only rules and these are readable)`
  }
}

/**
 * The first path from `root` down to `p` that other users may not read (a file without the
 * read bit for others, a directory without the search bit), or undefined.
 */
function hiddenFromOthers(p: string, root: string): string | undefined {
  const parts = path.relative(root, p).split('/').filter(Boolean)
  let current = root
  for (let i = 0; i <= parts.length; i++) {
    if (i > 0) current = `${current}/${parts[i - 1] as string}`
    let mode: number
    let directory: boolean
    try {
      const stat = statSync(current)
      mode = stat.mode
      directory = stat.isDirectory()
    } catch {
      return undefined // not there (or not reachable): nothing to read
    }
    const last = i === parts.length
    if (directory ? (mode & 0o001) === 0 || (last && (mode & 0o004) === 0) : (mode & 0o004) === 0)
      return current
  }
  return undefined
}

/** When a file was made (its birth time where the file system keeps one, else its ctime). */
function madeAt(p: string): number | undefined {
  try {
    const stat = lstatSync(p)
    if (stat.isSymbolicLink()) return undefined
    return stat.birthtimeMs > 0 ? stat.birthtimeMs : stat.ctimeMs
  } catch {
    return undefined
  }
}

/** Whether a path outside the working directory lies in HOME. */
export function inHome(p: SubjectPath, home: string): boolean {
  if (p.relative !== undefined) return false
  return p.absolute === home || p.absolute.startsWith(`${home}/`)
}

/** Whether a read glob names a path in HOME (its literal base lies in HOME). */
export function namesHome(glob: PathGlob, home: string): boolean {
  if (!glob.absolute) return false
  const base = path.resolve(glob.base)
  return base.startsWith(`${home}/`) || base === home
}
