/**
 * git as the action runs it on a tree the agent may have written: no system or user config, no
 * `GIT_*` variable of the action's environment, no prompt, no automatic gc or maintenance, and a
 * time limit on every call (a FIFO or a huge tree must end in an answer, never in a wait until the
 * job's limit). The caller chooses the repository through the environment (session/audit.ts runs
 * git in a git directory of its own, never the repository's: src/git/store.ts).
 */
import { execFile } from 'node:child_process'

/** A git call that takes longer is killed (SIGKILL) and answers with `timedOut`. */
export const GIT_TIMEOUT_MS = 120_000

export interface GitResult {
  code: number
  stdout: string
  /** The last part of stderr (for a failure's message). */
  stderr: string
  /** Killed at its time limit. */
  timedOut: boolean
}

export interface GitOptions {
  /** Written to git's stdin, then closed. */
  input?: string
  timeoutMs?: number
}

/** The action's environment without any `GIT_*` variable (git's own config from the environment). */
export function withoutGitVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('GIT_')))
}

/** `git -c` settings as environment variables (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n, ...). */
export function gitConfigEnv(pairs: ReadonlyArray<readonly [string, string]>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { GIT_CONFIG_COUNT: String(pairs.length) }
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key
    env[`GIT_CONFIG_VALUE_${i}`] = value
  })
  return env
}

/**
 * What every git call of the action sets whatever repository it works in: no config of the
 * machine or the user, no prompt, and nothing git would start by itself (gc, maintenance, hooks,
 * fsmonitor). `extra` comes last (a caller's GIT_DIR, GIT_INDEX_FILE, its own `-c` list).
 */
export function isolatedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...withoutGitVariables(process.env),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    ...extra
  }
}

function run<T extends string | Buffer>(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  encoding: 'utf8' | 'buffer',
  options: GitOptions
): Promise<{ code: number; stdout: T; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      args,
      {
        cwd,
        env,
        encoding,
        maxBuffer: 512 * 1024 * 1024,
        timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
        killSignal: 'SIGKILL'
      },
      (error, stdout, stderr) => {
        const timedOut = error !== null && error.killed === true && error.signal === 'SIGKILL'
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        const text = typeof stderr === 'string' ? stderr : Buffer.from(stderr).toString('utf8')
        resolve({ code, stdout: stdout as T, stderr: text.slice(-2000), timedOut })
      }
    )
    // a git that died before reading its input must not throw EPIPE into the action
    child.stdin?.on('error', () => undefined)
    if (options.input !== undefined) child.stdin?.end(options.input)
    else child.stdin?.end()
  })
}

/** Runs git with `env` (the caller's isolation: `isolatedEnv`) and a time limit; text output. */
export function runGit(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: GitOptions = {}
): Promise<GitResult> {
  return run<string>(cwd, args, env, 'utf8', options)
}

/** `runGit` with binary output (blob content). */
export function runGitBuffer(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: GitOptions = {}
): Promise<{ code: number; stdout: Buffer; timedOut: boolean }> {
  return run<Buffer>(cwd, args, env, 'buffer', options)
}
