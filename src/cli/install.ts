/**
 * Finds the Copilot CLI executable: the user's `cli-path`, or `@github/copilot@<version>` from the
 * runner's tool cache, installing it there with npm on a miss so the next run reuses it.
 *
 * Finding it is cheap and synchronous (`findCli`: the action's entry uses it to start the CLI
 * before the rest of the action loads); @actions/tool-cache is loaded only to install.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { UserError, messageOf } from '../errors.js'

const run = promisify(execFile)

export interface CliExecutable {
  /** The file to spawn. */
  path: string
  /** The version when known before the launch (installed or cached); the handshake tells otherwise. */
  version: string | null
}

const TOOL_NAME = 'copilot-cli'

/** npm names the platform package like this (see @github/copilot's optionalDependencies). */
function platformPackage(): string {
  const platform = process.platform === 'win32' ? 'win32' : process.platform
  return `@github/copilot-${platform}-${process.arch}`
}

/** The executable inside an npm prefix that holds @github/copilot. */
function executableIn(prefix: string): string | undefined {
  const binary = path.join(
    prefix,
    'node_modules',
    ...platformPackage().split('/'),
    process.platform === 'win32' ? 'copilot.exe' : 'copilot'
  )
  if (fs.existsSync(binary)) return binary
  const loader = path.join(prefix, 'node_modules', '.bin', 'copilot')
  return fs.existsSync(loader) ? loader : undefined
}

async function versionOf(executable: string): Promise<string> {
  try {
    const { stdout } = await run(executable, ['--version'], { timeout: 60_000 })
    const match = /(\d+\.\d+\.\d+(?:-[\w.]+)?)/.exec(stdout)
    if (!match?.[1]) throw new Error(`unexpected output: ${stdout.slice(0, 200)}`)
    return match[1]
  } catch (error) {
    throw new UserError(
      `The Copilot CLI at '${executable}' did not run ('--version' failed: ${messageOf(error)}). Fix 'cli-path' or remove it to let the action install 'cli-version'.`,
      { cause: error }
    )
  }
}

/**
 * Where `tc.cacheDir(prefix, TOOL_NAME, version)` put the CLI, looked up the way `tc.find` does for
 * an exact version (`<RUNNER_TOOL_CACHE>/<tool>/<version>/<arch>` plus its `.complete` marker),
 * without loading @actions/tool-cache and its HTTP client.
 */
function findCached(version: string, env: NodeJS.ProcessEnv): string | undefined {
  const cache = env.RUNNER_TOOL_CACHE
  if (!cache) return undefined
  const dir = path.join(cache, TOOL_NAME, version, os.arch())
  return fs.existsSync(dir) && fs.existsSync(`${dir}.complete`) ? dir : undefined
}

/** The CLI when it is at hand without installing: `cli-path`, or the tool cache. */
export function findCli(
  options: { cliPath?: string; cliVersion: string },
  env: NodeJS.ProcessEnv = process.env
): (CliExecutable & { source: 'cli-path' | 'tool-cache' }) | undefined {
  if (options.cliPath) return { path: options.cliPath, version: null, source: 'cli-path' }
  const cached = findCached(options.cliVersion, env)
  const executable = cached ? executableIn(cached) : undefined
  // cached under its version after `--version` confirmed it at install time
  return executable
    ? { path: executable, version: options.cliVersion, source: 'tool-cache' }
    : undefined
}

/** The log line naming the CLI a run uses. */
export function describeCli(
  found: { path: string; source: 'cli-path' | 'tool-cache' },
  version: string
): string {
  return found.source === 'cli-path'
    ? `Using the Copilot CLI at ${found.path}`
    : `Using the Copilot CLI ${version} from the tool cache`
}

export interface LocateOptions {
  cliPath?: string
  cliVersion: string
  log: (line: string) => void
  /** The run's environment (RUNNER_TOOL_CACHE, RUNNER_TEMP). */
  env: NodeJS.ProcessEnv
  /** Cancels a running install. */
  signal?: AbortSignal
}

export async function locateCli(options: LocateOptions): Promise<CliExecutable> {
  // No `--version` run before the launch (it costs 80–190 ms of startup): the handshake reports
  // the version, and a cli-path that does not start is reported with its stderr.
  const found = findCli(options, options.env)
  if (found) {
    options.log(describeCli(found, options.cliVersion))
    return { path: found.path, version: found.version }
  }
  options.log(`Installing @github/copilot@${options.cliVersion} into the tool cache`)
  const prefix = fs.mkdtempSync(path.join(options.env.RUNNER_TEMP || os.tmpdir(), 'copilot-cli-'))
  try {
    await run(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `@github/copilot@${options.cliVersion}`
      ],
      { timeout: 10 * 60_000, signal: options.signal, killSignal: 'SIGKILL' }
    )
  } catch (error) {
    fs.rmSync(prefix, { recursive: true, force: true })
    throw new Error(
      `Installing @github/copilot@${options.cliVersion} with npm failed: ${messageOf(error)}`,
      { cause: error }
    )
  }
  const tc = await import('@actions/tool-cache')
  const dir = await tc.cacheDir(prefix, TOOL_NAME, options.cliVersion)
  fs.rmSync(prefix, { recursive: true, force: true })
  const executable = executableIn(dir)
  if (!executable) {
    throw new Error(
      `@github/copilot@${options.cliVersion} installed, but no executable for ${process.platform}-${process.arch} was found in it`
    )
  }
  const version = await versionOf(executable)
  if (version !== options.cliVersion) {
    throw new Error(
      `Installed @github/copilot@${options.cliVersion}, but it reports version ${version}`
    )
  }
  return { path: executable, version }
}
