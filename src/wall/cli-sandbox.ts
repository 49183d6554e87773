/**
 * The outer sandbox the Copilot CLI process itself runs in (issue 28). The CLI's own file tools
 * (`create`, `edit`, `view`) act in its process, outside the per-command sandbox its shell commands
 * get: a path the policy judged inside the workspace can be a symlink by the time the tool opens
 * it. Behind this wall the CLI sees the world its commands see, so no race can carry a tool
 * outside it: the workspace, its private COPILOT_HOME and the commands' scratch read-write; a
 * private HOME (a fresh directory of the run at the real HOME path) holding only HOME's cache
 * directories and toolchains, read-only; system directories and toolchains read-only; a private
 * /tmp; and nothing else of HOME, the work root, RUNNER_TEMP, the runner's files or the action's
 * own files.
 *
 * Measured (bubblewrap 0.8, this machine; copilot-cli-notes.md "Running the CLI itself inside a
 * sandbox"): the CLI's per-command bubblewrap nests inside this one only when this one makes no
 * PID namespace and binds the host's /proc read-write (the inner one writes its uid map there,
 * and mounting its own /proc needs an unobscured one: a read-only /proc/sys over it breaks that);
 * from inside, another process's /proc/<pid>/environ and /proc/<pid>/root are "Permission denied".
 * UTS and IPC are private: a process mapped to the host's root could otherwise set the host's name.
 * The network is shared: the model and the MCP servers need it (the per-command sandbox keeps its
 * own network rules).
 *
 * Pure: the run's facts (the environment, which paths exist and what they are) come in as
 * arguments. A leaf module: the entry (cli/early.ts) loads it before the rest of the action.
 */
import path from 'node:path'

/** What a path is on the host, without following a final symlink. */
export type PathKind = 'directory' | 'file' | 'symlink' | 'missing'

/** One mount of the layout, in bubblewrap's order (a later one covers an earlier one). */
export type Mount =
  | { type: 'ro-bind' | 'bind' | 'dev-bind'; source: string; dest: string }
  | { type: 'tmpfs'; dest: string }
  | { type: 'symlink'; target: string; dest: string }

/** The view the CLI gets: the mounts, in order. */
export interface CliWall {
  mounts: Mount[]
}

/** The run's facts the layout is built from. */
export interface CliWallFacts {
  /** The agent's working directory (the workspace): read-write. */
  workingDirectory: string
  /** The CLI's private COPILOT_HOME (session state, logs, config): read-write. */
  copilotHome: string
  /** The agent's commands' private scratch directory (their TMPDIR), when the run has one. */
  scratchDir?: string
  /** A fresh, empty directory of the run, bound at HOME: the CLI's HOME. */
  privateHome: string
  /** The Copilot CLI executable (its real path: symlinks resolved). */
  executable: string
  /** The action's environment: HOME, PATH, RUNNER_TEMP, RUNNER_TOOL_CACHE, GITHUB_ENV & co. */
  env: NodeJS.ProcessEnv
  /** The action's own files (the bundle's directory), when GITHUB_ACTION_PATH is not set. */
  actionDir?: string
  /** The runner's installation (holding `_diag`, `.credentials`), when the action runs under it. */
  runnerDir?: string
  /** Further paths the CLI and its commands must write (the policy's absolute write-allow bases). */
  readwrite?: readonly string[]
  /** Further paths they must read: files an MCP server's command line names. */
  readonly?: readonly string[]
  /** What a path is on the host (lstat). */
  kind: (p: string) => PathKind
  /** A symlink's target (readlink), for system directories that are links (`/bin -> usr/bin`). */
  readlink: (p: string) => string | undefined
  /** A directory's entries (the CLI's unpacked runtime versions). */
  children: (dir: string) => string[]
  /**
   * The host's compile cache of the CLI's JavaScript (node's `node-compile-cache`), when the run
   * trusts it (cli-wall.ts `trustedCompileCache`): bound read-only at its own path, so the CLI
   * behind the wall boots warm. Without it, its private /tmp makes every boot compile the whole
   * runtime again: +0.45 s before the first model request (`npm run bench -- --only e2e`).
   */
  compileCache?: string
}

/**
 * System directories, read-only where they exist (a symlink stays a symlink: merged /usr). No
 * /home, /root, /run (the Docker socket), /var, /srv, /mnt, /media.
 */
export const SYSTEM_DIRS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/sys',
  '/nix',
  '/snap'
]

/**
 * HOME's cache directories, read-only in the CLI's private HOME (point 4 of issue 28): what
 * package managers and build tools download, for builds that run offline. Directories only,
 * never a file a tool reads settings or credentials from (`~/.npmrc`, `~/.yarnrc`,
 * `~/.gradle/gradle.properties`, `~/.m2/settings.xml`, `~/.gemrc`, `~/.docker/config.json`,
 * `~/.netrc`, `~/.git-credentials`, `~/.config/**`), and not `~/.cache` as a whole
 * (`~/.cache/huggingface/token`). A cache that is a symlink is not bound.
 */
export const HOME_CACHE_DIRS = [
  '.npm/_cacache',
  '.pnpm-store',
  '.local/share/pnpm/store',
  '.yarn/berry/cache',
  '.cache/yarn',
  '.bun/install/cache',
  '.cache/go-build',
  '.cache/node/corepack',
  '.cache/ms-playwright',
  '.cache/deno',
  '.cache/node-gyp',
  '.node-gyp',
  '.cache/pip',
  '.cache/pypoetry/cache',
  '.cache/pypoetry/artifacts',
  '.cache/ccache',
  '.cache/sccache',
  '.cargo/registry',
  '.cargo/git',
  'go/pkg/mod',
  '.m2/repository',
  '.gradle/caches',
  '.gradle/wrapper/dists',
  '.nuget/packages',
  '.local/share/NuGet/v3-cache',
  '.gem/ruby',
  '.bundle/cache',
  '.conan2/p'
]

/** Toolchains installed under HOME, read-only (rustup's proxies in ~/.cargo/bin need ~/.rustup). */
export const HOME_TOOLCHAINS = ['.rustup/toolchains', '.nvm/versions', '.pyenv/versions']

/** Where the CLI unpacks its runtime (ripgrep included) under HOME, one directory per version. */
export const CLI_RUNTIME = '.cache/copilot/pkg'

/**
 * Credentials under HOME: never bound, whatever a PATH entry or a cache list says (a PATH
 * directory inside one of them is left out).
 */
const HOME_SECRETS = [
  '.ssh',
  '.gnupg',
  '.git-credentials',
  '.gitconfig',
  '.config',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.docker',
  '.kube',
  '.aws',
  '.azure',
  '.copilot',
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.gradle/gradle.properties',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gem/credentials',
  '.local/share/keyrings'
]

/** Files the runner reads back after the step (GITHUB_ENV & co.): their directory stays hidden. */
const RUNNER_FILES = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STEP_SUMMARY',
  'GITHUB_STATE'
]

/** True when `child` is `parent` or lies inside it. */
function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

/** An absolute, normalized path from an environment value, or undefined. */
function absolute(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' && path.isAbsolute(value)
    ? path.resolve(value)
    : undefined
}

/**
 * The directories nothing is bound from unless the run names it on purpose (the workspace, the
 * CLI's home, the scratch, the tool cache, the CLI's own install): RUNNER_TEMP, the work root,
 * the runner's file-command folder, the action's own files, the runner's installation, HOME's
 * credentials.
 */
export function hiddenPaths(
  facts: Pick<CliWallFacts, 'env' | 'actionDir' | 'runnerDir'>
): string[] {
  const { env } = facts
  const home = absolute(env.HOME)
  const workspaceParent = absolute(env.RUNNER_WORKSPACE)
  const hidden: Array<string | undefined> = [
    absolute(env.RUNNER_TEMP),
    // the work root: RUNNER_WORKSPACE is <work root>/<repository>
    workspaceParent === undefined ? undefined : path.dirname(workspaceParent),
    ...RUNNER_FILES.map((name) => {
      const file = absolute(env[name])
      return file === undefined ? undefined : path.dirname(file)
    }),
    absolute(env.GITHUB_ACTION_PATH),
    absolute(facts.actionDir),
    absolute(facts.runnerDir),
    ...(home === undefined ? [] : HOME_SECRETS.map((name) => path.join(home, name)))
  ]
  return [...new Set(hidden.filter((p): p is string => p !== undefined && p !== '/'))]
}

/**
 * Where the CLI's installation is: the `node_modules/@github` folder holding its npm packages
 * (the loader and the platform binary), else the executable's directory.
 */
export function cliInstallDir(executable: string): string {
  const parts = path.resolve(executable).split(path.sep)
  const at = parts.lastIndexOf('node_modules')
  if (at > 0 && parts[at + 1] === '@github') return parts.slice(0, at + 2).join(path.sep)
  return path.dirname(path.resolve(executable))
}

/**
 * The CLI's view for a run. Read-write: the workspace, COPILOT_HOME, the scratch and `readwrite`.
 * Read-only: system directories, PATH's directories, the tool cache, the CLI's installation and
 * `readonly`; in the private HOME, the caches that are directories, HOME's toolchains and each
 * unpacked version of the CLI's runtime (a missing one is unpacked into the private HOME).
 */
export function cliWall(facts: CliWallFacts): CliWall {
  const home = absolute(facts.env.HOME)
  const workspace = path.resolve(facts.workingDirectory)
  const hidden = hiddenPaths(facts)
  const secrets = home === undefined ? [] : HOME_SECRETS.map((name) => path.join(home, name))
  const mounts: Mount[] = []
  const isDir = (p: string): boolean => facts.kind(p) === 'directory'
  // never a hidden path, nor one holding it; never HOME or a directory holding it (the private
  // HOME replaces it); never one already bound read-write (a read-only bind would cover it)
  const writable = [
    workspace,
    path.resolve(facts.copilotHome),
    ...(facts.scratchDir === undefined ? [] : [path.resolve(facts.scratchDir)]),
    ...(facts.readwrite ?? []).map((p) => path.resolve(p))
  ]
  for (const dir of SYSTEM_DIRS) {
    const kind = facts.kind(dir)
    const target = kind === 'symlink' ? facts.readlink(dir) : undefined
    if (kind === 'directory') mounts.push({ type: 'ro-bind', source: dir, dest: dir })
    else if (target !== undefined) mounts.push({ type: 'symlink', target, dest: dir })
  }
  // /etc/resolv.conf is often a link into /run (systemd-resolved): its directory alone
  const resolv = facts.readlink('/etc/resolv.conf')
  if (resolv !== undefined) {
    const dir = path.dirname(path.resolve('/etc', resolv))
    if (!SYSTEM_DIRS.some((d) => within(d, dir)) && dir !== '/' && isDir(dir)) {
      mounts.push({ type: 'ro-bind', source: dir, dest: dir })
    }
  }
  mounts.push({ type: 'bind', source: '/proc', dest: '/proc' })
  mounts.push({ type: 'dev-bind', source: '/dev', dest: '/dev' })
  // the host's shared memory is a scratch area too
  if (isDir('/dev/shm')) mounts.push({ type: 'tmpfs', dest: '/dev/shm' })
  mounts.push({ type: 'tmpfs', dest: '/tmp' })
  // read-only: what the CLI compiles behind the wall is not kept for a later run
  if (facts.compileCache !== undefined && isDir(facts.compileCache)) {
    mounts.push({ type: 'ro-bind', source: facts.compileCache, dest: facts.compileCache })
  }

  if (home !== undefined) {
    mounts.push({ type: 'bind', source: path.resolve(facts.privateHome), dest: home })
  }
  const pathDirs = (facts.env.PATH ?? '')
    .split(path.delimiter)
    .map(absolute)
    .filter((p): p is string => p !== undefined && isDir(p))
  const toolCache = absolute(facts.env.RUNNER_TOOL_CACHE)
  // named on purpose: inside RUNNER_TEMP or the work root is fine (the tool cache of a
  // self-hosted runner is `<work root>/_tool`); holding a hidden path or HOME is not
  const install = cliInstallDir(facts.executable)
  const named = [
    ...(toolCache === undefined ? [] : [toolCache]),
    // its installation, or (where that lies in a hidden place: a cli-path in RUNNER_TEMP) the
    // executable alone, read-only
    hidden.some((h) => within(install, h) || within(h, install))
      ? path.resolve(facts.executable)
      : install,
    ...(facts.readonly ?? []).map((p) => path.resolve(p))
  ].filter((p) => {
    const kind = facts.kind(p)
    return (
      (kind === 'directory' || kind === 'file') &&
      (p === path.resolve(facts.executable) || !hidden.some((h) => within(p, h))) &&
      !secrets.some((secret) => within(secret, p))
    )
  })
  const inHome =
    home === undefined
      ? []
      : [
          ...HOME_CACHE_DIRS,
          ...HOME_TOOLCHAINS,
          ...facts
            .children(path.join(home, CLI_RUNTIME))
            .flatMap((platform) =>
              facts
                .children(path.join(home, CLI_RUNTIME, platform))
                .map((version) => path.join(CLI_RUNTIME, platform, version))
            )
        ]
          .map((name) => path.join(home, name))
          .filter(isDir)
  // found, not named: nothing hidden, inside or around
  const found = [...pathDirs, ...inHome].filter(
    (p) => !hidden.some((h) => within(h, p) || within(p, h))
  )
  const bound = new Set<string>()
  for (const p of [...named, ...found]) {
    if (bound.has(p) || p === '/') continue
    if (home !== undefined && within(p, home)) continue // it would show HOME itself
    if (writable.some((w) => within(w, p))) continue // visible, and writable
    // visible through a system directory (or its link) already
    if (SYSTEM_DIRS.some((d) => within(d, p) && facts.kind(d) !== 'missing')) continue
    bound.add(p)
    mounts.push({ type: 'ro-bind', source: p, dest: p })
  }
  // what the CLI writes, last: nothing read-only covers it
  for (const p of [...new Set(writable)]) {
    if (p === workspace || isDir(p)) mounts.push({ type: 'bind', source: p, dest: p })
  }
  return { mounts }
}

/** bubblewrap's arguments for `wall`, up to and including `--`: the command follows. */
export function wallArguments(wall: CliWall, cwd: string): string[] {
  const args = ['--unshare-user', '--unshare-ipc', '--unshare-uts', '--die-with-parent']
  for (const mount of wall.mounts) {
    if (mount.type === 'tmpfs') args.push('--tmpfs', mount.dest)
    else if (mount.type === 'symlink') args.push('--symlink', mount.target, mount.dest)
    else args.push(`--${mount.type}`, mount.source, mount.dest)
  }
  args.push('--chdir', path.resolve(cwd), '--')
  return args
}

/**
 * Where the CLI's `p` is on the host: `p` itself inside a mount of the host's own path, the same
 * place under a mount's source for one of other content (the private HOME), or undefined for
 * what the CLI does not see. A directory on the way to a mount is `p` itself.
 */
export function hostPathInWall(wall: CliWall, p: string): string | undefined {
  const target = path.resolve(p)
  let covering: Mount | undefined
  for (const mount of wall.mounts) {
    if (within(mount.dest, target)) covering = mount
  }
  const onTheWay = wall.mounts.some((mount) => within(target, mount.dest))
  if (covering === undefined || covering.type === 'tmpfs') return onTheWay ? target : undefined
  if (covering.type === 'symlink') return target
  if (covering.source === covering.dest) return target
  return path.join(covering.source, path.relative(covering.dest, target))
}

/**
 * Whether the host's `p` is what the CLI sees at `p`: it lies inside a mount of the host's own
 * path (not covered by a later one of other content), or it is a directory on the way to one.
 */
export function visibleInWall(wall: CliWall, p: string): boolean {
  const target = path.resolve(p)
  let covering: Mount | undefined
  for (const mount of wall.mounts) {
    if (within(mount.dest, target)) covering = mount
  }
  if (covering?.type === 'symlink') return true
  if (covering === undefined || covering.type === 'tmpfs' || covering.source !== covering.dest) {
    return wall.mounts.some((mount) => within(target, mount.dest))
  }
  return true
}

/** Whether `p` is writable in the CLI's view (inside a read-write mount of the host's own path). */
export function writableInWall(wall: CliWall, p: string): boolean {
  const target = path.resolve(p)
  let covering: Mount | undefined
  for (const mount of wall.mounts) {
    if (within(mount.dest, target)) covering = mount
  }
  return (
    covering !== undefined &&
    (covering.type === 'bind' || covering.type === 'dev-bind') &&
    covering.source === covering.dest &&
    covering.dest !== '/proc' &&
    covering.dest !== '/dev'
  )
}
