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
 * The network namespace is always its own (`--unshare-net`: loopback only). When the policy's url
 * rules allow some host, the action's proxy (command-proxy.ts) listens on a unix socket bound into
 * the wall, and WALL_SCRIPT starts a forwarder on 127.0.0.1 inside (perl, which Debian and Ubuntu
 * always have: perl-base is Essential) and points the command's proxy variables at it: the
 * command reaches the allowed hosts through the proxy, and nothing else.
 *
 * Pure: the facts of the machine (what is at a path) come in as arguments.
 */
import path from 'node:path'
import type { CommandNetwork, SandboxFilesystem } from '../policy/index.js'

/** What the wall around a setup or verify command is built from. */
export interface CommandWall {
  /** The bubblewrap executable. */
  bwrap: string
  /** The policy's sandbox filesystem (sandboxConfig.userPolicy.filesystem). */
  filesystem: SandboxFilesystem
  /**
   * `none`: a private network namespace (loopback only, inside the wall): no url rule allows a
   * host. `proxy`: the same, and the action's proxy, which lets through what `proxyRules` allow.
   */
  network: 'none' | 'proxy'
  /** What the proxy lets through (network `proxy`). */
  proxyRules?: CommandNetwork
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

/**
 * Where the proxy's socket is inside the wall (the wall's root is its own tmpfs: nothing else is
 * there), whatever its path on the host.
 */
export const PROXY_SOCKET_IN_WALL = '/run/autopilot/network.sock'

/** The namespaces and lifetime every walled command gets. */
const ISOLATION = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  // loopback only: the proxy's socket is the way out, where there is one
  '--unshare-net',
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
 * `cwd` behind the wall (through WALL_SCRIPT, which names on fd 3 what it left running): the root
 * an empty tmpfs; the system read-only; the sandbox's read-write paths bound read-write, its
 * read-only paths read-only, its denied paths empty (a private tmpfs for a directory; /dev/null
 * for a file, where something above it is bound); a private /proc (its own PID namespace) and
 * /dev; its own network namespace, and `proxySocket` (the action's proxy for this command, where
 * `wall.network` is `proxy`) bound at PROXY_SOCKET_IN_WALL.
 *
 * Mounts go parents first, so a more specific path wins over its parent either way (the
 * workspace read-write inside a read-only /tmp; `.github` read-only inside the workspace).
 */
export function commandWallArgs(
  wall: CommandWall,
  command: string,
  cwd: string,
  facts: WallFacts,
  proxySocket?: string
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
  for (const p of SYSTEM_PATHS) {
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
  const args = [...ISOLATION]
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
  const proxied = wall.network === 'proxy' && proxySocket !== undefined
  // last: no mount above hides it
  if (proxied) args.push('--ro-bind', proxySocket, PROXY_SOCKET_IN_WALL)
  args.push('--chdir', cwd, '--', 'bash', '-c', WALL_SCRIPT, 'wall', command)
  if (proxied) args.push(PROXY_SOCKET_IN_WALL, FORWARDER)
  return args
}

/**
 * The forwarder inside the wall (perl, modules of perl-base only): listens on 127.0.0.1 at a port
 * of its choosing and joins each connection to the proxy's socket (its argument). It prints
 * `<pid> <port>` and goes on in the background as the leader of its own session: its connections'
 * processes are of that session, which WALL_SCRIPT leaves out of the processes it names.
 */
export const FORWARDER = [
  'use IO::Socket::INET; use IO::Socket::UNIX; use POSIX ();',
  'my $path = shift @ARGV;',
  'my $listen = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Proto => "tcp", Listen => 128, ReuseAddr => 1) or exit 1;',
  'my $pid = fork; exit 1 unless defined $pid;',
  'if ($pid) { print "$pid ", $listen->sockport, "\n"; exit 0 }',
  'POSIX::setsid();',
  'open STDIN, "<", "/dev/null"; open STDOUT, ">", "/dev/null"; open STDERR, ">", "/dev/null";',
  '$SIG{CHLD} = "IGNORE"; $SIG{PIPE} = "IGNORE";',
  'sub pump { my ($from, $to) = @_; my $buf;',
  '  while (1) { my $n = sysread $from, $buf, 65536; last unless $n; my $off = 0;',
  '    while ($off < $n) { my $w = syswrite $to, $buf, $n - $off, $off; return unless defined $w; $off += $w } }',
  '  shutdown $to, 1 }',
  'while (1) {',
  '  my $client = $listen->accept or do { select undef, undef, undef, 0.05; next };',
  '  my $child = fork; if (!defined $child || $child) { close $client; next }',
  '  close $listen;',
  '  my $up = IO::Socket::UNIX->new(Peer => $path) or exit 0;',
  '  my $back = fork; exit 0 unless defined $back;',
  '  if ($back == 0) { pump($up, $client); exit 0 }',
  '  pump($client, $up); exit 0',
  '}'
].join('\n')

/** What the command's clients are told of the proxy (`$port`: the forwarder's). */
const PROXY_VARIABLES = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  // npm and pnpm read their proxy configuration from these too (over a project .npmrc)
  'npm_config_proxy',
  'npm_config_https_proxy'
]

/**
 * Loopback inside the wall is the command's own (its test servers): never through the proxy,
 * which would take it for the runner's. Nothing else is left out.
 */
export const NO_PROXY = 'localhost,127.0.0.1,::1'

/**
 * What runs inside the wall: with a proxy socket (`$2`), the forwarder (`$3`) started and the proxy
 * variables exported; the command (`$1`); then every process it left running in the wall's PID
 * namespace, but the forwarder's, is named on file descriptor 3 (`pid<TAB>command line`, pids as
 * the wall numbers them) and killed; the command's exit code is the wall's. The listing uses bash
 * builtins only: it starts no process of its own. The kernel ends whatever is left with the
 * namespace in any case.
 */
export const WALL_SCRIPT = [
  'fwd=',
  'if [ -n "${2-}" ]; then',
  '  started=$(PERL5OPT= PERL5LIB= PERLLIB= perl -e "$3" "$2" 2>/dev/null 3>&- < /dev/null)',
  '  if [[ "$started" =~ ^([0-9]+)[[:space:]]([0-9]+)$ ]]; then',
  '    fwd=${BASH_REMATCH[1]}',
  '    proxy=http://127.0.0.1:${BASH_REMATCH[2]}',
  `    export ${PROXY_VARIABLES.map((v) => `${v}=$proxy`).join(' ')}`,
  `    export NO_PROXY=${NO_PROXY} no_proxy=${NO_PROXY} NODE_USE_ENV_PROXY=1`,
  '  else',
  '    echo "The OS sandbox could not start its network forwarder (it needs perl on PATH): this command has no network." >&2',
  '  fi',
  'fi',
  'bash -c "$1"',
  'code=$?',
  'for d in /proc/[0-9]*; do',
  '  p=${d#/proc/}',
  '  if [ "$p" = 1 ] || [ "$p" = $$ ]; then continue; fi',
  '  if [ -n "$fwd" ]; then',
  '    stat=',
  '    read -r stat 2>/dev/null < "$d/stat"',
  '    rest=${stat##*) }',
  '    fields=($rest)',
  // the forwarder and its connections: its session
  '    if [ "${fields[3]-}" = "$fwd" ]; then continue; fi',
  '  fi',
  '  args=()',
  '  mapfile -d "" -t args 2>/dev/null < "$d/cmdline"',
  '  printf "%s\\t%s\\n" "$p" "${args[*]}" 2>/dev/null >&3',
  '  kill -9 "$p" 2>/dev/null',
  'done',
  'if [ -n "$fwd" ]; then kill -9 -- "-$fwd" 2>/dev/null; fi',
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

/** The wall's network under the policy's url rules: the proxy when they allow some host. */
export function wallNetwork(
  network: CommandNetwork | undefined
): Pick<CommandWall, 'network' | 'proxyRules'> {
  return network === undefined ? { network: 'none' } : { network: 'proxy', proxyRules: network }
}
