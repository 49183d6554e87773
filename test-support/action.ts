/**
 * Runs the action the way the runner does: a child process with INPUT_* variables, GITHUB_OUTPUT,
 * GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE and RUNNER_TEMP, then reads back what it wrote.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Report } from '../src/reporting/types.js'
import { bundledEntry } from './action-bundle.mjs'
import { cliBinary as cliBinaryOf, linkCliRuntime } from './cli-runtime.mjs'
import { sandboxTools } from './sandbox-tools.mjs'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The real Copilot CLI binary: the pinned devDependency, or COPILOT_CLI_PATH (the version matrix, see .ci/run). */
export const cliBinary: () => string = cliBinaryOf

/**
 * Gives a test's own HOME the CLI's unpacked runtime, as a HOME where the CLI ran before holds it:
 * the CLI's wall binds it read-only instead of the CLI unpacking it again on every run (~3 s of
 * CPU). See cli-runtime.mjs.
 */
export const withCliRuntime = (home: string): void => void linkCliRuntime(home)

export interface Workspace {
  dir: string
  runnerTemp: string
  write(file: string, content: string): void
  read(file: string): string | undefined
  cleanup(): void
}

/**
 * A workspace and a RUNNER_TEMP beside it, in a new directory under `parent`: HOME by default, as
 * on the runners. Under /tmp the sandbox keeps /tmp read-only and denies each of its other entries
 * as they were when the session started, so one that another process removes during the session
 * makes the sandbox fail closed (bwrap cannot make its mount point): pass /tmp only to test that
 * layout (sandbox-layouts), not for tests that share /tmp with a busy machine.
 */
export function makeWorkspace(
  files: Record<string, string> = {},
  parent: string = os.homedir()
): Workspace {
  const base = fs.mkdtempSync(path.join(parent, 'autopilot-e2e-'))
  return workspaceIn(path.join(base, 'workspace'), path.join(base, 'runner-temp'), base, files)
}

/** A Workspace at `dir` with its RUNNER_TEMP, made now; `cleanup` removes `base`. */
function workspaceIn(
  dir: string,
  runnerTemp: string,
  base: string,
  files: Record<string, string>
): Workspace {
  fs.mkdirSync(dir, { recursive: true })
  fs.mkdirSync(runnerTemp, { recursive: true })
  const ws: Workspace = {
    dir,
    runnerTemp,
    write(file, content) {
      const full = path.join(dir, file)
      fs.mkdirSync(path.dirname(full), { recursive: true })
      fs.writeFileSync(full, forThisMachine(file, content))
    },
    read(file) {
      const full = path.resolve(dir, file)
      return fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : undefined
    },
    cleanup() {
      fs.rmSync(base, { recursive: true, force: true })
    }
  }
  for (const [file, content] of Object.entries(files)) ws.write(file, content)
  return ws
}

/**
 * Where no OS sandbox can run (a developer's machine without bubblewrap; never under CI=true,
 * where the global setup fails without it), a policy file that names no sandbox mode gets
 * `sandbox: { mode: off }`, as `npm run demo` does: a policy that runs code refuses to run
 * unguarded under `auto`. A policy that names a mode (the sandbox's own tests) is left as it is.
 */
function forThisMachine(file: string, content: string): string {
  if (process.env.CI === 'true' || SANDBOX_HERE) return content
  if (!/(^|\/)[^/]*polic[^/]*\.ya?ml$/.test(file) || !/^version:/m.test(content)) return content
  if (/^sandbox:/m.test(content)) return content
  return `${content.replace(/\n?$/, '\n')}sandbox:\n  mode: off\n`
}

const SANDBOX_HERE = sandboxTools().bwrap

/** A workspace in the GitHub-hosted runner's layout, with the directories around it. */
export interface RunnerWorkspace extends Workspace {
  /** HOME (`/home/runner` on the runners): holds the work root. */
  home: string
  /** HOME/work: holds the repository's folder, `_temp`, `_actions`, `_tool`. */
  workRoot: string
  /** The environment a run in this layout gets (HOME, RUNNER_WORKSPACE, ...). */
  env: Record<string, string>
}

/** How `makeRunnerWorkspace` lays out HOME. */
export interface RunnerWorkspaceOptions {
  /**
   * Whether HOME holds the Copilot CLI's unpacked runtime (HOME/.cache/copilot/pkg/<platform>/
   * <version>, linked from the real HOME: test-support/cli-runtime.mjs), as on a runner where the
   * CLI ran before: the CLI's wall binds it read-only, and the CLI does not unpack it again (~3 s of
   * CPU per run). Default true; false gives the fresh HOME of a GitHub-hosted runner's first run,
   * where the CLI unpacks its runtime into the run's private HOME.
   */
  cliRuntime?: boolean
}

/**
 * The directory layout of GitHub's own runners, under a new directory of `parent`: HOME holds
 * `work/REPO/REPO` (the workspace), `work/_temp` (RUNNER_TEMP), `work/_actions`, `work/_tool`,
 * and a sibling checkout `work/other/other`. `parent` under HOME puts it where the runners have
 * it; under /tmp it is a self-hosted layout.
 */
export function makeRunnerWorkspace(
  files: Record<string, string> = {},
  parent: string = os.homedir(),
  options: RunnerWorkspaceOptions = {}
): RunnerWorkspace {
  const home = fs.mkdtempSync(path.join(parent, 'autopilot-e2e-home-'))
  const workRoot = path.join(home, 'work')
  if (options.cliRuntime !== false) linkCliRuntime(home)
  for (const d of [path.join(workRoot, '_actions'), path.join(workRoot, '_tool')])
    fs.mkdirSync(d, { recursive: true })
  fs.mkdirSync(path.join(workRoot, 'other', 'other'), { recursive: true })
  fs.writeFileSync(path.join(workRoot, 'other', 'other', 'build.sh'), 'echo build\n')
  const ws = workspaceIn(
    path.join(workRoot, 'repo', 'repo'),
    path.join(workRoot, '_temp'),
    home,
    files
  )
  return {
    ...ws,
    home,
    workRoot,
    env: {
      HOME: home,
      RUNNER_WORKSPACE: path.join(workRoot, 'repo'),
      RUNNER_TOOL_CACHE: path.join(workRoot, '_tool'),
      RUNNER_ENVIRONMENT: 'self-hosted'
    }
  }
}

/** The inputs of a run against the scripted model at `modelUrl` (BYOK), and `extra`. */
export function scriptedInputs(
  modelUrl: string,
  extra: Record<string, string> = {}
): Record<string, string> {
  return {
    prompt: 'Do the task.',
    model: 'claude-sonnet-4.5',
    'provider-type': 'openai',
    'provider-base-url': modelUrl,
    'timeout-minutes': '2',
    ...extra
  }
}

export interface ActionResult {
  exitCode: number | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  report: Report | undefined
  /** PIDs of every Copilot CLI the run started (from cli.pid files). */
  cliPids: number[]
}

/** Parses the runner's GITHUB_OUTPUT file (`name<<delimiter ... delimiter`). */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '')
    if (!match?.[1] || !match[2]) continue
    const value: string[] = []
    for (i++; i < lines.length && lines[i] !== match[2]; i++) value.push(lines[i] ?? '')
    outputs[match[1]] = value.join('\n')
  }
  return outputs
}

export interface RunActionOptions {
  workspace: Workspace
  inputs: Record<string, string>
  env?: Record<string, string>
  /** `dist` runs the committed bundle; `src` (the default) runs the sources (`sourceEntry`). */
  entry?: 'dist' | 'src'
  /** Called with the child once it runs (to send signals). */
  onSpawn?: (child: ChildProcess) => void
  /** Called with each chunk the action writes to stdout, as it arrives. */
  onOutput?: (chunk: string) => void
}

/**
 * The node arguments that run an entry of the action's sources (`index`: the action, `post`: its
 * post step): the bundle of the sources the global setup made for this test run
 * (action-bundle.mjs), else (outside jest: the scripts) src/ through tsx.
 */
export function sourceEntry(entry: 'index' | 'post'): string[] {
  const bundled = bundledEntry(entry)
  if (bundled !== undefined) return [bundled]
  return [
    '--import',
    pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
    path.join(ROOT, 'src', `${entry}.ts`)
  ]
}

export async function runAction(options: RunActionOptions): Promise<ActionResult> {
  const { workspace } = options
  const outputFile = path.join(workspace.runnerTemp, `output-${Date.now()}`)
  const summaryFile = path.join(workspace.runnerTemp, `summary-${Date.now()}`)
  fs.writeFileSync(outputFile, '')
  fs.writeFileSync(summaryFile, '')
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_WORKSPACE: workspace.dir,
    RUNNER_TEMP: workspace.runnerTemp,
    RUNNER_TOOL_CACHE: path.join(workspace.runnerTemp, 'tool-cache'),
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_RUN_ID: '4242',
    GITHUB_REPOSITORY: 'octo/repo',
    GITHUB_SERVER_URL: 'https://github.com',
    'INPUT_CLI-PATH': cliBinary(),
    ...options.env
  }
  for (const [name, value] of Object.entries(options.inputs)) {
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value
  }
  const entry = options.entry ?? 'src'
  const args = entry === 'dist' ? [path.join(ROOT, 'dist', 'index.js')] : sourceEntry('index')
  const child = spawn(process.execPath, args, {
    cwd: workspace.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d
    options.onOutput?.(d)
  })
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  options.onSpawn?.(child)
  const exitCode = await new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code))
  )

  const outputs = parseOutputFile(fs.readFileSync(outputFile, 'utf8'))
  const reportPath = outputs['report-path']
  const report =
    reportPath && fs.existsSync(reportPath)
      ? (JSON.parse(fs.readFileSync(reportPath, 'utf8')) as Report)
      : undefined
  return {
    exitCode,
    stdout,
    stderr,
    outputs,
    summary: fs.readFileSync(summaryFile, 'utf8'),
    report,
    cliPids: cliPids(workspace)
  }
}

/** PIDs of the Copilot CLIs started so far by runs in this workspace (their cli.pid files). */
export function cliPids(workspace: Workspace): number[] {
  return fs
    .readdirSync(workspace.runnerTemp)
    .map((entry) => path.join(workspace.runnerTemp, entry, 'copilot-home', 'cli.pid'))
    .filter((file) => fs.existsSync(file))
    .map((file) => Number(fs.readFileSync(file, 'utf8')))
    .filter((pid) => pid > 0)
}

/** The sessions the CLI created in a run (COPILOT_HOME/session-state/<id>), across runs in this workspace. */
export function sessionDirs(workspace: Workspace): string[] {
  return fs.readdirSync(workspace.runnerTemp).flatMap((entry) => {
    const dir = path.join(workspace.runnerTemp, entry, 'copilot-home', 'session-state')
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => !name.startsWith('.')) : []
  })
}

/** True when a process (or, with `group`, any process of its group) is still alive. */
export function isAlive(pid: number, group = false): boolean {
  try {
    process.kill(group ? -pid : pid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits until none of the processes (and their groups) is alive; returns the ones still alive. */
export async function waitGone(pids: number[], timeoutMs = 5000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs
  let alive = pids.filter((pid) => isAlive(pid) || isAlive(pid, true))
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100))
    alive = alive.filter((pid) => isAlive(pid) || isAlive(pid, true))
  }
  return alive
}

export const EXAMPLE_POLICY = `version: 1
default: deny
rules:
  - id: no-push
    decision: deny
    reason: pushing is the workflow's job
    shell: ["git push*"]
  - { id: tests, decision: allow, shell: ["npm test*", "npm run *", "git status", "git diff*", "echo *", "cat *", "ls*"] }
  - { id: sources, decision: allow, write: ["src/**", "*.md"] }
  - { id: workflows, decision: deny, write: [".github/**"] }
  - { id: read-all, decision: allow, read: ["**"] }
`
