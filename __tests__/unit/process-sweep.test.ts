/**
 * The process sweep (src/wall/process-sweep.ts): which processes a mark matches, the sweep's
 * rounds over a process table, and the real thing on this machine: a `setsid` child carrying the
 * mark is found and killed, by the action's sweep and by the wrapper's bash lines.
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  commandMark,
  inScope,
  markIn,
  PROCESS_MARK_VARIABLE,
  runMark,
  stepOfMark,
  sweepLines,
  sweepMarked,
  type ProcessTable
} from '../../src/wall/process-sweep.js'
import { processMarkEnvironment } from '../../src/cli/process.js'

const RUN = 'abc123'

describe('marks', () => {
  it('a run has one opaque mark, its commands marks below it', () => {
    expect(runMark('/t/a', 10)).toBe(runMark('/t/a', 10))
    expect(runMark('/t/a', 10)).not.toBe(runMark('/t/b', 10))
    expect(runMark('/t/a', 10)).not.toBe(runMark('/t/a', 11))
    expect(runMark('/t/a', 10)).toMatch(/^[0-9a-f]{20}$/)
    expect(commandMark(RUN, 'verify', 2)).toBe(`${RUN}/verify/2`)
    expect(processMarkEnvironment('m')).toEqual({ [PROCESS_MARK_VARIABLE]: 'm' })
    expect(processMarkEnvironment(undefined)).toEqual({})
  })

  it('reads the mark out of an environment block, and the step out of the mark', () => {
    const environ = ['PATH=/bin', `${PROCESS_MARK_VARIABLE}=${RUN}/setup/1`, 'X=1', ''].join('\0')
    expect(markIn(environ)).toBe(`${RUN}/setup/1`)
    expect(markIn('PATH=/bin\0NOT_AUTOPILOT_PROCESS_MARK=x\0')).toBeUndefined()
    expect(markIn(`X=${PROCESS_MARK_VARIABLE}=${RUN}\0`)).toBeUndefined()
    expect(stepOfMark(RUN, RUN)).toBe('agent')
    expect(stepOfMark(`${RUN}/setup/1`, RUN)).toBe('setup')
    expect(stepOfMark(`${RUN}/verify/12`, RUN)).toBe('verify')
    expect(stepOfMark('other', RUN)).toBeUndefined()
    expect(stepOfMark(`other/verify/1`, RUN)).toBeUndefined()
    expect(stepOfMark(`${RUN}/verify/x`, RUN)).toBeUndefined()
  })

  it("a command's sweep takes only that command's processes; the run's takes them all", () => {
    expect(inScope(`${RUN}/verify/1`, `${RUN}/verify/1`)).toBe(true)
    expect(inScope(`${RUN}/verify/10`, `${RUN}/verify/1`)).toBe(false)
    expect(inScope(RUN, `${RUN}/verify/1`)).toBe(false)
    expect(inScope(`${RUN}/verify/10`, RUN)).toBe(true)
    expect(inScope(RUN, RUN)).toBe(true)
    expect(inScope(`${RUN}x`, RUN)).toBe(false)
  })
})

/** A process table in memory: `spawns` start new processes when a pid is killed (a fork race). */
function table(
  processes: Record<number, string | undefined>,
  spawns: Record<number, Record<number, string>> = {}
): ProcessTable & { signals: string[] } {
  const live = new Map(Object.entries(processes).map(([pid, mark]) => [Number(pid), mark]))
  const signals: string[] = []
  return {
    signals,
    pids: () => [...live.keys()],
    environ: (pid) => {
      const mark = live.get(pid)
      return mark === undefined ? 'PATH=/bin\0' : `PATH=/bin\0${PROCESS_MARK_VARIABLE}=${mark}\0`
    },
    commandLine: (pid) => `proc ${pid}`,
    signal: (pid, signal) => {
      signals.push(`${signal} ${pid}`)
      if (signal !== 'SIGKILL') return
      live.delete(pid)
      for (const [child, mark] of Object.entries(spawns[pid] ?? {})) live.set(Number(child), mark)
    }
  }
}

describe('sweepMarked', () => {
  it('stops, then kills what carries the mark, never a protected pid, nor what is unmarked or of another run', async () => {
    const t = table({
      10: RUN,
      11: `${RUN}/verify/1`,
      12: undefined,
      13: 'another-run',
      14: RUN
    })
    const killed = await sweepMarked(RUN, RUN, [14], t)
    expect(killed).toEqual([
      { pid: 10, commandLine: 'proc 10', step: 'agent' },
      { pid: 11, commandLine: 'proc 11', step: 'verify' }
    ])
    expect(t.signals).toEqual(['SIGSTOP 10', 'SIGSTOP 11', 'SIGKILL 10', 'SIGKILL 11'])
  })

  it("a command's sweep leaves the CLI and the agent's processes alone", async () => {
    const t = table({ 20: RUN, 21: `${RUN}/setup/1`, 22: `${RUN}/setup/2` })
    const killed = await sweepMarked(`${RUN}/setup/1`, RUN, [], t)
    expect(killed.map((k) => k.pid)).toEqual([21])
  })

  it('looks again until nothing is found: what a process forked while it was killed is killed too', async () => {
    const t = table({ 30: RUN }, { 30: { 31: RUN }, 31: { 32: RUN } })
    const killed = await sweepMarked(RUN, RUN, [], t)
    expect(killed.map((k) => k.pid)).toEqual([30, 31, 32])
  })
})

describe('on this machine', () => {
  const sleepers: number[] = []
  afterEach(() => {
    for (const pid of sleepers.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone
      }
    }
  })

  /** A `setsid` sleeper (its own session and group) with `mark` in its environment. */
  function sleeper(mark: string): number {
    const child = spawn('sleep', ['60'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, [PROCESS_MARK_VARIABLE]: mark }
    })
    child.unref()
    if (child.pid === undefined) throw new Error('no pid')
    sleepers.push(child.pid)
    return child.pid
  }

  const alive = (pid: number): boolean => {
    try {
      // a killed child of ours stays a zombie until reaped: not running
      return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    } catch {
      return false
    }
  }

  it("the action's sweep finds a detached process by its mark and kills it", async () => {
    const run = runMark(`/tmp/sweep-test-${Date.now()}`)
    const marked = sleeper(commandMark(run, 'verify', 1))
    const other = sleeper(commandMark(run, 'verify', 2))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const killed = await sweepMarked(commandMark(run, 'verify', 1), run, [])
    expect(killed).toEqual([{ pid: marked, commandLine: 'sleep 60', step: 'verify' }])
    expect(alive(marked)).toBe(false)
    expect(alive(other)).toBe(true)
  })

  it("the wrapper's bash lines kill what carries exactly the mark, and name it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-lines-'))
    try {
      const run = runMark(dir)
      const mark = commandMark(run, 'setup', 1)
      const marked = sleeper(mark)
      const other = sleeper(`${mark}0`)
      const file = path.join(dir, 'swept')
      execFileSync('bash', ['-c', sweepLines(mark, file).join('\n')])
      expect(fs.readFileSync(file, 'utf8')).toBe(`${marked}\tsleep 60\n`)
      expect(alive(marked)).toBe(false)
      expect(alive(other)).toBe(true)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
