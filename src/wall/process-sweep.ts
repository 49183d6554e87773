/**
 * Nothing any command started survives its step: a sweep that finds the processes carrying the
 * run's mark in their environment and kills them.
 *
 * The mark is one environment variable, PROCESS_MARK_VARIABLE, set in the Copilot CLI's
 * environment (cli/process.ts) and inherited by everything the CLI starts: the agent's shell
 * commands (the CLI's sandbox sets its own environment again inside bubblewrap), MCP servers, and
 * the setup and verify commands, whose wrapper sets a mark of their own below the run's
 * (`<run>/setup/1`). `setsid`, `nohup` and a double fork leave the process group and the parent
 * behind, never the environment a process started with (`/proc/<pid>/environ`). A process that
 * clears the variable before it execs escapes the sweep: where bubblewrap runs, the PID namespace
 * of each command (the CLI's for the agent's, command-wall.ts for setup and verify) still ends it.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/**
 * The environment variable that marks every process the run's CLI starts. The environment
 * allowlist of the CLI (cli/process.ts) must keep it.
 */
export const PROCESS_MARK_VARIABLE = 'AUTOPILOT_PROCESS_MARK'

/** Which step started a process, as its mark says. */
export type MarkedStep = 'agent' | 'setup' | 'verify'

/**
 * The run's mark: opaque, the same for every CLI the run starts (the action's pid and its
 * private directory make it unique on the machine).
 */
export function runMark(tempDir: string, pid: number = process.pid): string {
  return createHash('sha256').update(`${pid}\0${tempDir}`).digest('hex').slice(0, 20)
}

/** The mark of the `index`th (1-based) setup or verify command of a run. */
export function commandMark(run: string, phase: 'setup' | 'verify', index: number): string {
  return `${run}/${phase}/${index}`
}

/** The step a process belongs to when its mark is `value` (undefined: not this run's). */
export function stepOfMark(value: string, run: string): MarkedStep | undefined {
  if (value === run) return 'agent'
  const match = /^([^/]+)\/(setup|verify)\/\d+$/.exec(value)
  return match?.[1] === run ? (match[2] as 'setup' | 'verify') : undefined
}

/** The mark a process's environment (`/proc/<pid>/environ`: NUL-separated) carries, if any. */
export function markIn(environ: string): string | undefined {
  const prefix = `${PROCESS_MARK_VARIABLE}=`
  for (const entry of environ.split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length)
  }
  return undefined
}

/** Whether a process with mark `value` is one the sweep for `scope` kills. */
export function inScope(value: string, scope: string): boolean {
  return value === scope || value.startsWith(`${scope}/`)
}

/** A process the sweep found and killed. */
export interface SweptProcess {
  pid: number
  /** Its command line, as /proc gave it (unredacted: the caller redacts). */
  commandLine: string
  step: MarkedStep
}

/** What the sweep reads of the machine; the real /proc by default. */
export interface ProcessTable {
  pids(): number[]
  environ(pid: number): string | undefined
  commandLine(pid: number): string
  signal(pid: number, signal: NodeJS.Signals): void
}

export const procTable: ProcessTable = {
  pids: () => {
    try {
      return fs
        .readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
    } catch {
      return [] // no /proc (macOS, Windows): nothing to sweep this way
    }
  },
  environ: (pid) => {
    try {
      return fs.readFileSync(path.join('/proc', String(pid), 'environ'), 'latin1')
    } catch {
      return undefined // gone, or not ours to read
    }
  },
  commandLine: (pid) => {
    try {
      return fs
        .readFileSync(path.join('/proc', String(pid), 'cmdline'), 'utf8')
        .replace(/\0+$/, '')
        .split('\0')
        .join(' ')
    } catch {
      return ''
    }
  },
  signal: (pid, signal) => {
    try {
      process.kill(pid, signal)
    } catch {
      // gone already
    }
  }
}

/**
 * Bash lines that kill, right where a command ended, every process carrying exactly `mark`
 * (`/proc/<pid>/environ`), the shell running them spared, and name each on `file` as
 * `pid<TAB>command line`: the setup and verify wrapper's own sweep, which leaves no window
 * between the command's end and the action noticing it. Bash builtins only (no process of its
 * own to find); the action's `sweepMarked` runs after it as the second net.
 */
export function sweepLines(mark: string, file: string): string[] {
  const wanted = `${PROCESS_MARK_VARIABLE}=${mark}`
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`
  return [
    `wanted=${quote(wanted)}`,
    'for d in /proc/[0-9]*; do',
    '  p=${d#/proc/}',
    '  if [ "$p" = $$ ]; then continue; fi',
    '  e=()',
    '  mapfile -d "" -t e 2>/dev/null < "$d/environ" || continue',
    '  for v in "${e[@]}"; do',
    '    if [ "$v" = "$wanted" ]; then',
    '      kill -STOP "$p" 2>/dev/null',
    '      a=()',
    '      mapfile -d "" -t a 2>/dev/null < "$d/cmdline"',
    `      printf "%s\\t%s\\n" "$p" "\${a[*]}" >> ${quote(file)}`,
    '      kill -KILL "$p" 2>/dev/null',
    '      break',
    '    fi',
    '  done',
    'done'
  ]
}

/** How many times the sweep looks again for processes started while it killed. */
const ROUNDS = 10
const ROUND_PAUSE_MS = 25

/**
 * Kills every process whose mark is `scope` or below it (`<run>` takes the agent's and every
 * command's; `<run>/verify/2` one command's), never a pid of `protectedPids`. Each round stops
 * what it finds first (SIGSTOP: no more forks) and then kills it, and looks again until a round
 * finds nothing (at most ROUNDS rounds). Returns what it killed, in the order found.
 */
export async function sweepMarked(
  scope: string,
  run: string,
  protectedPids: readonly number[],
  table: ProcessTable = procTable
): Promise<SweptProcess[]> {
  const killed: SweptProcess[] = []
  const seen = new Set<number>()
  const spared = new Set([...protectedPids, process.pid])
  for (let round = 0; round < ROUNDS; round++) {
    const found: SweptProcess[] = []
    for (const pid of table.pids()) {
      if (spared.has(pid)) continue
      const environ = table.environ(pid)
      const mark = environ === undefined ? undefined : markIn(environ)
      if (mark === undefined || !inScope(mark, scope)) continue
      const step = stepOfMark(mark, run)
      if (step === undefined) continue
      found.push({ pid, commandLine: table.commandLine(pid), step })
    }
    if (found.length === 0) break
    for (const process_ of found) table.signal(process_.pid, 'SIGSTOP')
    for (const process_ of found) table.signal(process_.pid, 'SIGKILL')
    for (const process_ of found) {
      if (seen.has(process_.pid)) continue
      seen.add(process_.pid)
      killed.push(process_)
    }
    // a killed process keeps its environment until the kernel has torn it down
    await new Promise((resolve) => setTimeout(resolve, ROUND_PAUSE_MS))
  }
  return killed
}
