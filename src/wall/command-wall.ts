/**
 * The wall around the setup and verify commands: the same world the policy's sandboxConfig gives
 * the agent's shell commands, built as a bubblewrap command line the action sends through
 * `session.shell.exec`.
 *
 * Measured (CLI 1.0.102, runner layout, 2026-11-28): `session.shell.exec` in a session created
 * with `sandboxConfig` is NOT sandboxed by the CLI: the command saw every process of the machine
 * (108 pids), and writes to HOME and RUNNER_TEMP reached the host. So the action wraps the command
 * itself: `bwrap --unshare-pid --die-with-parent ... -- bash -c COMMAND`. The PID namespace ends
 * with the command: a `setsid` or double-forked child dies when the command returns. It nests
 * inside an outer bubblewrap that makes no PID namespace (measured, bubblewrap 0.8).
 *
 * Pure: the facts of the machine (what is at a path) come in as arguments.
 */
import path from 'node:path'
import type { SandboxFilesystem, SandboxNetwork } from '../policy/index.js'

/** What the wall around a setup or verify command is built from. */
export interface CommandWall {
  /** The bubblewrap executable. */
  bwrap: string
  /** The policy's sandbox filesystem (sandboxConfig.userPolicy.filesystem). */
  filesystem: SandboxFilesystem
  /**
   * `none`: a private network namespace (loopback only, inside the wall). `shared`: the runner's
   * network: the policy's url rules allow some host, and the action cannot hold the commands to
   * those hosts (no proxy of its own), so every host is reachable, loopback included.
   */
  network: 'none' | 'shared'
  /** Directories of the command's PATH: bound read-only where nothing else binds them. */
  pathDirs: readonly string[]
}

export interface WallFacts {
  /** What is at a path, following symlinks (undefined: nothing). */
  entry: (p: string) => 'dir' | 'file' | undefined
  /** Where a path points when it is a symlink itself (`/bin` → `usr/bin` on merged-/usr systems). */
  link: (p: string) => string | undefined
}

/**
 * The system's read-only parts every program needs: programs, libraries, configuration
 * (certificates, passwd, resolv.conf). Not /run (the docker socket lives there), not /var, not
 * /home, not /root.
 */
export const SYSTEM_PATHS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/nix/store'
]

/** Where resolv.conf points on systemd hosts (GitHub's Ubuntu runners): for DNS, network only. */
export const RESOLVER_PATHS = ['/run/systemd/resolve']

/** The namespaces and lifetime every walled command gets. */
const ISOLATION = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--die-with-parent',
  // no TIOCSTI into a terminal outside the wall
  '--new-session'
]

type Mount =
  | { kind: 'ro' | 'rw'; path: string }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'deny'; path: string; dir: boolean }

function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

function depth(p: string): number {
  return p === '/' ? 0 : p.split('/').length - 1
}

/**
 * The bubblewrap arguments (without the executable) that run `command` with `bash -c` in
 * `cwd` behind the wall (through WALL_SCRIPT, which names on fd 3 what it left running): the root an empty tmpfs; the system read-only; the sandbox's read-write
 * paths bound read-write, its read-only paths read-only, its denied paths empty (a private tmpfs
 * for a directory; /dev/null for a file, where something above it is bound); a private /proc
 * (its own PID namespace) and /dev; no network unless `wall.network` is `shared`.
 *
 * Mounts go parents first, so a more specific path wins over its parent either way (the
 * workspace read-write inside a read-only /tmp; `.github` read-only inside the workspace).
 */
export function commandWallArgs(
  wall: CommandWall,
  command: string,
  cwd: string,
  facts: WallFacts
): string[] {
  const { filesystem } = wall
  const mounts: Mount[] = []
  const taken = new Set<string>()
  const add = (mount: Mount): void => {
    if (taken.has(mount.path)) return
    taken.add(mount.path)
    mounts.push(mount)
  }
  // the sandbox's own paths first: they win over the system's
  for (const p of filesystem.deniedPaths) {
    const entry = facts.entry(p)
    if (entry !== undefined) add({ kind: 'deny', path: path.resolve(p), dir: entry === 'dir' })
  }
  for (const p of filesystem.readwritePaths) {
    if (facts.entry(p) !== undefined) add({ kind: 'rw', path: path.resolve(p) })
  }
  for (const p of filesystem.readonlyPaths) {
    if (facts.entry(p) !== undefined) add({ kind: 'ro', path: path.resolve(p) })
  }
  const system = [...SYSTEM_PATHS, ...(wall.network === 'shared' ? RESOLVER_PATHS : [])]
  for (const p of system) {
    const target = facts.link(p)
    if (target !== undefined) add({ kind: 'symlink', path: p, target })
    else if (facts.entry(p) !== undefined) add({ kind: 'ro', path: p })
  }
  const denied = filesystem.deniedPaths.map((p) => path.resolve(p))
  for (const dir of wall.pathDirs) {
    if (!path.isAbsolute(dir)) continue
    const p = path.resolve(dir)
    // a PATH directory in a denied place stays denied; one already visible needs nothing
    if (denied.some((d) => within(d, p))) continue
    if (mounts.some((m) => m.kind !== 'deny' && m.kind !== 'symlink' && within(m.path, p))) continue
    if (facts.entry(p) === 'dir') add({ kind: 'ro', path: p })
  }

  const bound = (p: string): boolean =>
    p === '/dev' ||
    p === '/proc' ||
    mounts.some((m) => (m.kind === 'ro' || m.kind === 'rw') && m.path !== p && within(m.path, p))
  const args = [...ISOLATION, ...(wall.network === 'none' ? ['--unshare-net'] : [])]
  args.push('--tmpfs', '/', '--proc', '/proc', '--dev', '/dev')
  const ordered = [...mounts].sort((a, b) => depth(a.path) - depth(b.path))
  for (const mount of ordered) {
    switch (mount.kind) {
      case 'ro':
        args.push('--ro-bind', mount.path, mount.path)
        break
      case 'rw':
        args.push('--bind', mount.path, mount.path)
        break
      case 'symlink':
        args.push('--symlink', mount.target, mount.path)
        break
      case 'deny':
        // a directory is there, empty and private (the writes into it are lost); a file is
        // empty where something above it is bound, and not there at all elsewhere
        if (mount.dir) {
          args.push('--tmpfs', mount.path)
        } else if (bound(mount.path)) {
          args.push('--ro-bind', '/dev/null', mount.path)
        }
        break
    }
  }
  args.push('--chdir', cwd, '--', 'bash', '-c', WALL_SCRIPT, 'wall', command)
  return args
}

/**
 * What runs inside the wall: the command (`$1`), then every process it left running in the wall's
 * PID namespace is named on file descriptor 3 (`pid<TAB>command line`, pids as the wall numbers
 * them) and killed; the command's exit code is the wall's. Bash builtins only: the listing starts
 * no process of its own. The kernel ends whatever is left with the namespace in any case.
 */
export const WALL_SCRIPT = [
  'bash -c "$1"',
  'code=$?',
  'for d in /proc/[0-9]*; do',
  '  p=${d#/proc/}',
  '  if [ "$p" = 1 ] || [ "$p" = $$ ]; then continue; fi',
  '  args=()',
  '  mapfile -d "" -t args 2>/dev/null < "$d/cmdline"',
  '  printf "%s\\t%s\\n" "$p" "${args[*]}" 2>/dev/null >&3',
  '  kill -9 "$p" 2>/dev/null',
  'done',
  'exit $code'
].join('\n')

/** A process the wall found still running after its command, as WALL_SCRIPT names it. */
export interface LeftoverProcess {
  /** As the wall's PID namespace numbers it. */
  pid: number
  commandLine: string
}

/** The processes WALL_SCRIPT named (one `pid<TAB>command line` a line); malformed lines skipped. */
export function parseLeftovers(text: string): LeftoverProcess[] {
  const found: LeftoverProcess[] = []
  for (const line of text.split('\n')) {
    const match = /^(\d+)\t(.*)$/.exec(line)
    if (match?.[1] === undefined) continue
    found.push({ pid: Number(match[1]), commandLine: match[2] ?? '' })
  }
  return found
}

/** `value` as one word of a POSIX shell command line. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`
}

/** The policy's network as the wall can hold it: no host allowed, no network; any, all. */
export function wallNetwork(network: SandboxNetwork): CommandWall['network'] {
  return network.allowOutbound ? 'shared' : 'none'
}
