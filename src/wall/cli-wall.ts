/**
 * The outer sandbox of the Copilot CLI on this machine: the facts cli-sandbox.ts builds the
 * layout from, read from the file system, and whether bubblewrap is there to build it. A leaf
 * module: the entry (cli/early.ts) loads it before the rest of the action.
 */
import fs from 'node:fs'
import path from 'node:path'
import {
  cliWall,
  hostPathInWall,
  visibleInWall,
  writableInWall,
  type CliWall,
  type CliWallFacts,
  type PathKind
} from './cli-sandbox.js'

/** The CLI behind the wall: bubblewrap, the layout, and the private HOME it binds at HOME. */
export interface CliConfinement {
  bwrap: string
  /** The CLI's real path (symlinks resolved): what is bound behind the wall. */
  executable: string
  wall: CliWall
  privateHome: string
}

/** What the run adds to the CLI's view. */
export interface WallExtras {
  /** Paths the CLI and its commands must write (the policy's absolute write-allow bases). */
  readwrite?: readonly string[]
  /** Paths they must read: files an MCP server's command line names. */
  readonly?: readonly string[]
}

/** An executable named `name` on `PATH`, as the CLI would find it. */
export function findOnPath(name: string, pathValue: string | undefined): string | undefined {
  for (const dir of (pathValue ?? '').split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      if (fs.statSync(candidate).isFile()) return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

export function pathKind(p: string): PathKind {
  try {
    const stat = fs.lstatSync(p)
    if (stat.isSymbolicLink()) return 'symlink'
    if (stat.isDirectory()) return 'directory'
    return stat.isFile() ? 'file' : 'missing'
  } catch {
    return 'missing'
  }
}

function entries(dir: string): string[] {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

function readlink(p: string): string | undefined {
  try {
    return fs.readlinkSync(p)
  } catch {
    return undefined
  }
}

function realPath(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

/** Where the action's own files are (the bundle's directory): `<runner>/externals/...` aside. */
function runnerInstallation(execPath: string): string | undefined {
  const parts = execPath.split(path.sep)
  const at = parts.lastIndexOf('externals')
  return at <= 0 ? undefined : parts.slice(0, at).join(path.sep)
}

/**
 * The CLI's private HOME, bound at HOME behind the wall: made in the run's own directory (where
 * what the CLI, its tools and commands write into HOME stays), removed after the run
 * (`removePrivateHome`).
 */
export function privateHomeOf(tempDir: string): string {
  return path.join(tempDir, 'home')
}

/**
 * Removes the private HOME of the run in `tempDir` once the CLI is gone: what the CLI unpacked
 * there, its device id, the caches the agent's commands filled, a `~/.bashrc` they wrote. Links in
 * it are removed, never followed; a directory the agent made unwritable is made writable first.
 * Returns whether there was one to remove.
 */
export function removePrivateHome(tempDir: string): boolean {
  const home = privateHomeOf(tempDir)
  if (pathKind(home) === 'missing') return false
  try {
    fs.rmSync(home, { recursive: true, force: true })
  } catch {
    makeWritable(home)
    fs.rmSync(home, { recursive: true, force: true })
  }
  return true
}

/** Every directory under `dir` (links not followed) writable and searchable by its owner. */
function makeWritable(dir: string): void {
  try {
    if (!fs.lstatSync(dir).isDirectory()) return
    fs.chmodSync(dir, 0o700)
  } catch {
    return
  }
  for (const name of entries(dir)) makeWritable(path.join(dir, name))
}

/**
 * Where the CLI outside a wall keeps its V8 compile cache: node's default, `node-compile-cache`
 * in /tmp (the CLI's environment never carries the job's TMPDIR: wall/environment.ts).
 */
export const HOST_COMPILE_CACHE = '/tmp/node-compile-cache'

/** Whether `stat` is a directory of this user that no one else can write into. */
function ownedPrivately(stat: fs.Stats): boolean {
  return (
    stat.isDirectory() &&
    (process.getuid === undefined || stat.uid === process.getuid()) &&
    (stat.mode & 0o022) === 0
  )
}

/**
 * The host's compile cache, where the CLI behind the wall may read it: a real directory (no link)
 * of this user that no other user can write into, nor any directory in it (node keeps one per
 * node version), since what is there runs as the CLI's code. /tmp is shared: a cache another
 * user made first is not read. Undefined where there is none to trust.
 */
export function trustedCompileCache(dir: string = HOST_COMPILE_CACHE): string | undefined {
  try {
    if (!ownedPrivately(fs.lstatSync(dir))) return undefined
    for (const name of fs.readdirSync(dir)) {
      if (!ownedPrivately(fs.lstatSync(path.join(dir, name)))) return undefined
    }
    return dir
  } catch {
    return undefined
  }
}

/** Where the setup and verify commands' wrappers, output and exit codes are (`shell-exec.ts`). */
export function commandFiles(tempDir: string): string {
  return path.join(tempDir, 'commands')
}

export interface ConfinementOptions extends WallExtras {
  executable: string
  workingDirectory: string
  copilotHome: string
  scratchDir?: string
  /** The run's own directory: the private HOME is made in it. */
  tempDir: string
  env: NodeJS.ProcessEnv
  actionDir?: string
}

/**
 * The CLI's outer sandbox on this machine, or undefined where there is none to build: not Linux,
 * or no bwrap on PATH. Whether bwrap can make its namespaces here is the probe's to find out
 * (session/sandbox-probe.ts); a wall it cannot build ends the CLI at once.
 */
export function cliConfinement(options: ConfinementOptions): CliConfinement | undefined {
  if (process.platform !== 'linux') return undefined
  const bwrap = findOnPath('bwrap', options.env.PATH)
  if (bwrap === undefined) return undefined
  // an executable that cannot run fails as itself (start.ts names it), not as bubblewrap's execvp
  try {
    fs.accessSync(options.executable, fs.constants.X_OK)
  } catch {
    return undefined
  }
  // The run's own directories the CLI writes, made now: bubblewrap binds only what exists, and
  // one left unbound would be the private HOME's copy of its path (RUNNER_TEMP is under HOME on
  // the runners), which the action never reads. The setup and verify commands' files too: the
  // CLI runs their wrappers, which write their output and exit code there.
  const commands = commandFiles(options.tempDir)
  for (const dir of [
    options.copilotHome,
    ...(options.scratchDir ? [options.scratchDir] : []),
    commands
  ])
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const privateHome = privateHomeOf(options.tempDir)
  const runnerDir = runnerInstallation(process.execPath)
  const executable = realPath(options.executable)
  const facts: CliWallFacts = {
    workingDirectory: options.workingDirectory,
    copilotHome: options.copilotHome,
    ...(options.scratchDir === undefined ? {} : { scratchDir: options.scratchDir }),
    privateHome,
    executable,
    env: options.env,
    ...(options.actionDir === undefined ? {} : { actionDir: options.actionDir }),
    ...(runnerDir === undefined ? {} : { runnerDir }),
    readwrite: [...(options.readwrite ?? []), commands],
    ...(options.readonly === undefined ? {} : { readonly: options.readonly }),
    kind: pathKind,
    readlink,
    children: entries
  }
  // the CLI looks for it in its TMPDIR: the host's default /tmp unless the run has a scratch
  const compileCache = options.scratchDir === undefined ? trustedCompileCache() : undefined
  if (compileCache !== undefined) facts.compileCache = compileCache
  return { bwrap, executable, wall: cliWall(facts), privateHome }
}

/** Whether `wall` already shows `extras` as they must be: the CLI need not be started again. */
export function wallCovers(wall: CliWall, extras: WallExtras): boolean {
  return (
    (extras.readwrite ?? []).every((p) => writableInWall(wall, p)) &&
    (extras.readonly ?? []).every((p) => visibleInWall(wall, p))
  )
}

/**
 * The file system as the CLI behind `wall` sees it, for the per-command sandbox's configuration,
 * which the CLI interprets inside the wall (policy/sandbox.ts binds only paths that exist there).
 */
export function wallView(wall: CliWall): {
  exists: (p: string) => boolean
  children: (dir: string) => string[]
} {
  const onHost = (p: string): string | undefined => hostPathInWall(wall, p)
  return {
    exists: (p) => {
      const host = onHost(p)
      return host !== undefined && fs.existsSync(host)
    },
    children: (dir) => {
      const host = onHost(dir)
      if (host === undefined) return []
      return entries(host).filter((name) => onHost(path.join(dir, name)) !== undefined)
    }
  }
}
