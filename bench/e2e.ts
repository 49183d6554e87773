/**
 * The action next to the bare CLI, on the same scripted session: the scripted model on
 * 127.0.0.1 asks for TOOL_CALLS bash commands (`echo` / `cat`, which the policy allows), one a
 * turn, then ends (task_complete in autopilot; a plain answer in prompt mode, where that tool
 * does not exist). Both processes are timed from spawn to exit; the model server records when
 * the first request arrives. Runs alternate so both see the same machine load.
 *
 * - action: `node dist/index.js` through test-support's runAction (the runner's contract:
 *   INPUT_* variables, GITHUB_OUTPUT, ...), BYOK provider inputs, the policy answering every
 *   permission request.
 * - floor: bench/floor-client.mjs, the least a client of the headless protocol does to run this
 *   session answering the permission requests itself (approves all; no policy, no report): what
 *   the protocol costs next to prompt mode, before anything the action adds.
 * - bare CLI: `copilot -p ... --allow-all-tools --no-auto-update` with the CLI's own BYOK
 *   variables (COPILOT_PROVIDER_BASE_URL / _TYPE / _API_KEY, COPILOT_MODEL; see `copilot help
 *   environment`), a private COPILOT_HOME, and COPILOT_OFFLINE=true, its fastest configuration
 *   with a local provider. The same without COPILOT_OFFLINE is measured for reference.
 */
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process'
import type { Readable } from 'node:stream'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startModelServer, type ChatRequest, type Turn } from '../test-support/model-server.js'
import { compilePolicy } from '../src/policy/index.js'
import { sandboxConfigFor } from '../src/policy/sandbox.js'
import {
  EXAMPLE_POLICY,
  ROOT,
  cliBinary,
  makeWorkspace,
  runAction,
  type Workspace
} from '../test-support/action.js'

export const TOOL_CALLS = 20
const PROMPT = 'Run the checks one by one, then finish.'
const MODEL = 'claude-sonnet-4.5'
const README = '# Bench repository\n'

export type Variant = 'action' | 'action-large' | 'bare' | 'bare-online' | 'floor'

/**
 * The session's policy: the example's, with `sandbox: off` when the bench runs with the OS
 * sandbox off on both sides (`npm run bench -- --sandbox off`: AUTOPILOT_BENCH_SANDBOX=off).
 */
function benchPolicy(): string {
  return sandboxOff() ? `${EXAMPLE_POLICY.trimEnd()}\nsandbox:\n  mode: off\n` : EXAMPLE_POLICY
}

function sandboxOff(): boolean {
  return process.env.AUTOPILOT_BENCH_SANDBOX === 'off'
}

/** The files of the `action-large` variant's checkout (issue 28: the audit on a large tree). */
export const LARGE_FILES = 100_000

export interface Sample {
  variant: Variant
  wallMs: number
  firstRequestMs: number
  lastRequestMs: number
  requests: number
  /** Action only: stdout line → ms since spawn, for the startup breakdown. */
  marks: Record<string, number>
}

/** Every process group the benchmark started (CLIs), and the action processes: killed at the end. */
export const groups = new Set<number>()
const processes = new Set<number>()

/**
 * The processes of group `pgid` that are still running (not zombies: a process whose parent died
 * is reaped by PID 1, which in some containers never reaps, and a zombie has left nothing running).
 */
function runningInGroup(pgid: number): number[] {
  const out: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(pgrp) === pgid && state !== 'Z') out.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return out
}

export function killGroups(label = 'bench'): void {
  for (const [pid, target] of [
    ...[...groups].map((p) => [p, -p] as const),
    ...[...processes].map((p) => [p, p] as const)
  ]) {
    try {
      const left = target < 0 && process.platform === 'linux' ? runningInGroup(pid) : []
      process.kill(target, 'SIGKILL')
      if (left.length > 0) {
        console.error(`${label}: killed ${left.length} processes left running in group ${pid}`)
      }
    } catch {
      // already gone
    }
  }
  groups.clear()
  processes.clear()
}

function script(request: ChatRequest, index: number): Turn {
  if (index < TOOL_CALLS) {
    const command = index % 2 === 0 ? `echo check ${index}` : 'cat README.md'
    return { toolCalls: [{ name: 'bash', arguments: { command, description: `check ${index}` } }] }
  }
  const autopilot = request.tools?.some((t) => t.function?.name === 'task_complete')
  return autopilot
    ? { toolCalls: [{ name: 'task_complete', arguments: { summary: 'All checks ran.' } }] }
    : { content: 'All checks ran.' }
}

/** Checks that the session really ran: every tool call reached the shell and answered. */
function checkToolResults(results: string[], variant: Variant): void {
  const ok =
    results.length === TOOL_CALLS &&
    results.every((text, i) => text.includes(i % 2 === 0 ? `check ${i}` : README.trim()))
  if (!ok) {
    throw new Error(
      `${variant}: expected ${TOOL_CALLS} tool results, got ${results.length}: ${JSON.stringify(results.slice(0, 3))}`
    )
  }
}

const MARKS: Array<[string, RegExp]> = [
  ['policy-start', /^::group::Policy/],
  ['policy-done', /^Policy: /],
  ['cli-located', /^Using the Copilot CLI/],
  ['connected', /^Connected to Copilot CLI/],
  ['session', /^Session \S+ created/],
  ['prompt-sent', /^Prompt sent/]
]

/** Waits for the process to exit; throws with the end of its output unless it exited 0. */
async function exitedOk(
  child: ChildProcessByStdio<null, Readable, Readable>,
  variant: Variant
): Promise<void> {
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')))
  child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0) throw new Error(`${variant}: exit ${code}\n${output.slice(-2000)}`)
}

/** Where the bench's workspaces go: under HOME, as on GitHub's runners. */
const BENCH_HOME = path.join(os.homedir(), '.cache', 'autopilot-bench')

/** Whether bubblewrap is on the PATH (the action's `sandbox: auto` then engages it). */
function bubblewrap(): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && fs.existsSync(path.join(dir, 'bwrap')))
}

export async function measure(variant: Variant): Promise<Sample> {
  const arrivals: number[] = []
  let t0 = 0
  const model = await startModelServer((request, index) => {
    arrivals.push(performance.now() - t0)
    return script(request, index)
  })
  // laid out as on GitHub's runners: the workspace and RUNNER_TEMP under HOME, not under /tmp
  // (the OS sandbox denies /tmp; with the CLI's home below it, it would have to deny every
  // other entry of /tmp one by one, a cost of this machine's /tmp, not of the action)
  fs.mkdirSync(BENCH_HOME, { recursive: true })
  const workspace =
    variant === 'action-large'
      ? largeCheckout()
      : makeWorkspace(
          {
            '.github/copilot-policy.yml': benchPolicy(),
            'README.md': README
          },
          BENCH_HOME
        )
  // a checkout, as actions/checkout leaves it: the workspace audit writes a git tree of it
  if (variant !== 'action-large') commitAll(workspace.dir)
  const marks: Record<string, number> = {}
  try {
    let wallMs: number
    if (variant === 'action' || variant === 'action-large') {
      t0 = performance.now()
      const result = await runAction({
        workspace,
        entry: 'dist',
        inputs: {
          prompt: PROMPT,
          model: MODEL,
          'provider-type': 'openai',
          'provider-base-url': model.url,
          'provider-api-key': 'bench-key'
        },
        onSpawn: (child) => {
          if (child.pid !== undefined) processes.add(child.pid)
          let rest = ''
          child.stdout?.on('data', (chunk: Buffer) => {
            const at = performance.now() - t0
            const lines = (rest + chunk.toString('utf8')).split('\n')
            rest = lines.pop() ?? ''
            for (const line of lines) {
              if (process.env.AUTOPILOT_BENCH_TRACE === '1') {
                console.error(`${at.toFixed(0).padStart(6)} ms  ${line.slice(0, 160)}`)
              }
              for (const [name, pattern] of MARKS) if (pattern.test(line)) marks[name] ??= at
            }
          })
        }
      })
      wallMs = performance.now() - t0
      for (const pid of result.cliPids) groups.add(pid)
      const allowed = result.report?.permissions.filter((p) => p.decision === 'allow').length
      if (
        result.exitCode !== 0 ||
        result.report?.status !== 'completed' ||
        allowed !== TOOL_CALLS
      ) {
        throw new Error(
          `action: exit ${result.exitCode}, status ${result.report?.status}, ${allowed} allowed\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`
        )
      }
    } else if (variant === 'floor') {
      // the same session the action runs: with the OS sandbox the policy derives, when the
      // action's `sandbox: auto` engages it (bubblewrap present)
      const sandbox =
        bubblewrap() && !sandboxOff()
          ? sandboxConfigFor(
              await compilePolicy(benchPolicy(), '.github/copilot-policy.yml', workspace.dir),
              {
                // the facts the action gives it (pipeline/os-sandbox.ts sandboxContext), for the floor's own home
                workingDirectory: workspace.dir,
                env: { HOME: process.env.HOME, RUNNER_TEMP: workspace.runnerTemp },
                actionDir: path.join(ROOT, 'dist'),
                copilotHome: path.join(workspace.dir, '..', 'floor-copilot-home'),
                exists: (p) => fs.existsSync(p),
                children: (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir) : [])
              }
            )
          : undefined
      t0 = performance.now()
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, 'bench', 'floor-client.mjs'),
          cliBinary(),
          workspace.dir,
          model.url,
          MODEL,
          ...(sandbox ? [JSON.stringify(sandbox)] : [])
        ],
        { cwd: workspace.dir, stdio: ['ignore', 'pipe', 'pipe'] }
      )
      if (child.pid !== undefined) processes.add(child.pid)
      await exitedOk(child, variant)
      wallMs = performance.now() - t0
    } else {
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        COPILOT_HOME: path.join(workspace.runnerTemp, 'copilot-home'),
        COPILOT_PROVIDER_BASE_URL: model.url,
        COPILOT_PROVIDER_TYPE: 'openai',
        COPILOT_PROVIDER_API_KEY: 'bench-key',
        COPILOT_MODEL: MODEL,
        ...(variant === 'bare' ? { COPILOT_OFFLINE: 'true' } : {})
      }
      t0 = performance.now()
      const child = spawn(
        cliBinary(),
        ['-p', PROMPT, '--allow-all-tools', '--no-auto-update', '--silent'],
        { cwd: workspace.dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }
      )
      if (child.pid !== undefined) groups.add(child.pid)
      await exitedOk(child, variant)
      wallMs = performance.now() - t0
    }
    checkToolResults(model.toolResults(), variant)
    return {
      variant,
      wallMs,
      firstRequestMs: arrivals[0] ?? NaN,
      lastRequestMs: arrivals.at(-1) ?? NaN,
      requests: arrivals.length,
      marks
    }
  } finally {
    killGroups(variant)
    await model.close()
    workspace.cleanup()
  }
}

/** `git add -A` and a commit, as a checkout is left. */
function commitAll(dir: string): void {
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['-c', 'user.email=bench@example.com', '-c', 'user.name=bench', 'commit', '-qm', 'checkout']
  ]) {
    execFileSync('git', args, { cwd: dir })
  }
}

/**
 * The bench's checkout of LARGE_FILES files in 1,000 directories (made once, kept under
 * BENCH_HOME), with a fresh RUNNER_TEMP per run; the run leaves the checkout as it was.
 */
function largeCheckout(): Workspace {
  const base = path.join(BENCH_HOME, `large-${LARGE_FILES}${sandboxOff() ? '-sandbox-off' : ''}`)
  const dir = path.join(base, 'workspace')
  if (!fs.existsSync(path.join(base, '.done'))) {
    fs.rmSync(base, { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    for (let i = 0; i < LARGE_FILES; i++) {
      const sub = path.join(dir, 'src', `d${Math.floor(i / 100)}`)
      if (i % 100 === 0) fs.mkdirSync(sub, { recursive: true })
      fs.writeFileSync(path.join(sub, `f${i}.ts`), `export const v${i} = ${i}\n`)
    }
    fs.mkdirSync(path.join(dir, '.github'), { recursive: true })
    fs.writeFileSync(path.join(dir, '.github', 'copilot-policy.yml'), benchPolicy())
    fs.writeFileSync(path.join(dir, 'README.md'), README)
    commitAll(dir)
    fs.writeFileSync(path.join(base, '.done'), '')
  }
  const runnerTemp = fs.mkdtempSync(path.join(base, 'runner-temp-'))
  return {
    dir,
    runnerTemp,
    write: () => {
      throw new Error('the large checkout is not written to')
    },
    read: (file) => fs.readFileSync(path.join(dir, file), 'utf8'),
    cleanup: () => fs.rmSync(runnerTemp, { recursive: true, force: true })
  }
}

export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** A run that failed (printed and counted, not retried: a failure is a finding). */
export const failures: string[] = []

async function attempt(variant: Variant): Promise<Sample | undefined> {
  try {
    return await measure(variant)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    failures.push(`${variant}: ${message.split('\n')[0] ?? ''}`)
    console.error(`\nbench: a ${variant} run failed: ${message}`)
    return undefined
  }
}

/** Runs every variant `runs` times (after one discarded warm-up each), alternating the order. */
export async function e2e(runs: number, variants: Variant[]): Promise<Map<Variant, Sample[]>> {
  if (!fs.existsSync(cliBinary())) throw new Error(`no Copilot CLI at ${cliBinary()}`)
  const bundle = path.join(ROOT, 'dist', 'index.js')
  if (!fs.existsSync(bundle)) throw new Error(`no ${bundle}: npm run build first`)
  const samples = new Map<Variant, Sample[]>(variants.map((v) => [v, []]))
  for (const variant of variants) await attempt(variant) // page cache, first-run costs
  for (let i = 0; i < runs; i++) {
    const order = variants.map((_, k) => variants[(k + i) % variants.length] as Variant)
    for (const variant of order) {
      const sample = await attempt(variant)
      if (sample) samples.get(variant)?.push(sample)
    }
    process.stderr.write('.')
  }
  for (const [variant, list] of samples) {
    if (list.length === 0) throw new Error(`every ${variant} run failed: ${failures.join('; ')}`)
  }
  process.stderr.write('\n')
  return samples
}
