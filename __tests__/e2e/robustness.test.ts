import fs from 'node:fs'
import path from 'node:path'
/**
 * End to end with the real CLI: shell commands through the session, and runs that end badly —
 * every one must still end with a report, outputs and the summary, and leave no process behind.
 */
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'
import {
  cliPids,
  EXAMPLE_POLICY,
  isAlive,
  makeWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type ActionResult,
  type RunActionOptions,
  type Workspace
} from '../../test-support/action.js'

let workspace: Workspace
let signalAction: (signal: NodeJS.Signals) => void = () => undefined
let model: ModelServer | undefined

beforeEach(() => {
  workspace = makeWorkspace({ '.github/copilot-policy.yml': EXAMPLE_POLICY })
})
afterEach(async () => {
  await model?.close()
  model = undefined
  workspace.cleanup()
})

const complete = { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }

/** SIGTERM to the action once `condition()` holds (polled every `everyMs`). */
function sigtermWhen(
  condition: () => boolean,
  everyMs: number
): { onSpawn: RunActionOptions['onSpawn']; sent: () => boolean } {
  let sent = false
  return {
    sent: () => sent,
    onSpawn: (child) => {
      const timer = setInterval(() => {
        if (!condition()) return
        clearInterval(timer)
        sent = true
        child.kill('SIGTERM')
      }, everyMs)
      child.on('exit', () => clearInterval(timer))
    }
  }
}

async function runWith(
  script: Script,
  inputs: Record<string, string> = {},
  extra: Partial<RunActionOptions> = {}
): Promise<ActionResult> {
  model = await startModelServer(script)
  const result = await runAction({
    workspace,
    inputs: scriptedInputs(model.url, inputs),
    ...extra
  })
  expect(result.cliPids.length).toBeGreaterThan(0) // a CLI was started
  expect(await waitGone(result.cliPids)).toEqual([])
  return result
}

describe('setup and verify commands', () => {
  it('verify and repair: the failing check goes back to the agent, whose second fix passes', async () => {
    let repairSeen = false
    let repairTurns = 0
    const create = (file: string) => ({
      toolCalls: [
        { name: 'create', arguments: { path: path.join(workspace.dir, file), file_text: 'x\n' } }
      ]
    })
    const result = await runWith(
      (request, index) => {
        const text = JSON.stringify(request.messages)
        if (!repairSeen && text.includes('the checks the workflow runs afterwards failed')) {
          repairSeen = true
        }
        if (repairSeen) {
          // The second prompt carries the failing command's output.
          expect(text).toContain('missing b.md')
          return repairTurns++ === 0 ? create('b.md') : complete
        }
        return index === 0 ? create('a.md') : complete
      },
      {
        'verify-commands': 'test -f b.md || { echo missing b.md; exit 1; }',
        'verify-retries': '2'
      }
    )
    expect(repairSeen).toBe(true)
    expect(result.outputs.status).toBe('completed')
    expect(result.report!.repairs).toEqual([
      { attempt: 1, failed: [expect.stringContaining('test -f b.md')] }
    ])
    expect(result.report!.commands.map((c) => [c.attempt ?? 0, c.exitCode])).toEqual([
      [0, 1],
      [1, 0]
    ])
    expect(result.summary).toContain('verify (after repair 1)')
  })

  it('max-tokens stops the session once the budget is spent, with a full report', async () => {
    const status = {
      toolCalls: [{ name: 'bash', arguments: { command: 'git status', description: 'look' } }]
    }
    const result = await runWith([status, status, status, status, status, complete], {
      'max-tokens': '300' // each scripted model call reports 100 input + 20 output tokens
    })
    expect(result.outputs.status).toBe('budget-exceeded')
    expect(result.exitCode).not.toBe(0)
    const report = result.report!
    expect(report.error?.type).toBe('max-tokens')
    expect(report.error?.message).toMatch(/used 360 tokens .*max-tokens \(300\)/)
    expect(model!.requests.length).toBeLessThan(6)
    expect(report.metrics.models['claude-sonnet-4.5']?.inputTokens).toBeGreaterThanOrEqual(300)
    expect(result.summary).toContain('budget ran out')
  })

  it('reasoning-effort reaches the model request', async () => {
    // max-ai-credits goes to the CLI as sessionLimits.maxAiCredits: accepted (a BYOK run is not
    // GitHub-billed, so the limit itself is never reached here).
    const result = await runWith([complete], { 'reasoning-effort': 'high', 'max-ai-credits': '30' })
    expect(result.report!.error?.message).toBeUndefined()
    expect(result.outputs.status).toBe('completed')
    const body = model!.requests[0]!.body as unknown as Record<string, unknown>
    expect(body.reasoning_effort).toBe('high')
  })

  it('stops the run when a setup command fails: the agent is never prompted', async () => {
    const result = await runWith([complete], { 'setup-commands': 'echo preparing\nexit 3' })
    expect(result.outputs.status).toBe('failed')
    expect(result.exitCode).not.toBe(0)
    expect(model!.requests).toHaveLength(0)
    const commands = result.report!.commands
    expect(commands.map((c) => [c.phase, c.command, c.exitCode])).toEqual([
      ['setup', 'echo preparing', 0],
      ['setup', 'exit 3', 3]
    ])
    expect(commands[0]!.outputTail).toBe('preparing')
    expect(result.report!.error?.message).toMatch(/exit 3.*exit code 3/)
    expect(result.stdout).toContain('preparing') // streamed to the log
  })

  it('runs verify commands after the agent: passing', async () => {
    const result = await runWith([complete], {
      'setup-commands': 'echo ready > setup.txt',
      'verify-commands': 'test -f setup.txt\necho verified'
    })
    expect(result.outputs.status).toBe('completed')
    expect(result.outputs['verify-passed']).toBe('true')
    expect(result.exitCode).toBe(0)
    expect(result.report!.commands.map((c) => [c.phase, c.exitCode])).toEqual([
      ['setup', 0],
      ['verify', 0],
      ['verify', 0]
    ])
  })

  it('a verify command failing after task_complete: verify-failed everywhere, step failed', async () => {
    const result = await runWith([complete], { 'verify-commands': 'echo checking; false' })
    expect(result.outputs.status).toBe('verify-failed')
    expect(result.report!.status).toBe('verify-failed')
    expect(result.outputs['verify-passed']).toBe('false')
    expect(result.exitCode).not.toBe(0)
    expect(result.report!.commands[0]).toMatchObject({
      phase: 'verify',
      exitCode: 1,
      outputTail: 'checking'
    })
  })

  it('kills a command at its timeout, with its whole process group', async () => {
    const result = await runWith([complete], {
      'setup-commands': 'sleep 3011 & echo started; sleep 300',
      'command-timeout-seconds': '2'
    })
    const record = result.report!.commands[0]!
    expect(record.timedOut).toBe(true)
    expect(record.exitCode).toBeNull()
    expect(record.durationMs).toBeGreaterThanOrEqual(2000)
    expect(result.outputs.status).toBe('failed')
    // behind the OS sandbox the command has its own PID namespace: found by its command line
    expect(await waitGoneByCommandLine('sleep 3011')).toEqual([])
  })
})

/** Waits until no process runs `commandLine` (NUL-separated arguments joined by spaces). */
async function waitGoneByCommandLine(commandLine: string, timeoutMs = 5000): Promise<number[]> {
  const running = (): number[] =>
    fs
      .readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          return (
            fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() ===
            commandLine
          )
        } catch {
          return false
        }
      })
      .map(Number)
  const deadline = Date.now() + timeoutMs
  while (running().length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return running()
}

describe('command output and cancellation', () => {
  it("streams a command's output to the log while it runs", async () => {
    let sawTickAt = 0
    let exitedAt = 0
    await runWith(
      [complete],
      { 'setup-commands': 'echo tick-from-setup; sleep 3; echo tock' },
      {
        onOutput: (chunk) => {
          // the output line itself, not the group header that shows the command
          if (!sawTickAt && /^tick-from-setup$/m.test(chunk)) sawTickAt = Date.now()
        },
        onSpawn: (child) => child.on('exit', () => (exitedAt = Date.now()))
      }
    )
    expect(sawTickAt).toBeGreaterThan(0)
    // The first line reached the log while the command was still sleeping, not at its end.
    expect(exitedAt - sawTickAt).toBeGreaterThan(1500)
  })

  it('SIGTERM during a setup command: cancelled, the command and its group killed', async () => {
    const result = await runWith(
      [complete],
      { 'setup-commands': 'sleep 3012 & echo waiting; sleep 300' },
      {
        onOutput: (chunk) => {
          // the command's own output line (its text also stands in the group header)
          if (/^waiting$/m.test(chunk)) signalAction('SIGTERM')
        },
        onSpawn: (child) => {
          signalAction = (signal) => child.kill(signal)
        }
      }
    )
    expect(result.outputs.status).toBe('cancelled')
    expect(result.report!.commands[0]).toMatchObject({ phase: 'setup', exitCode: null })
    expect(model!.requests).toHaveLength(0)
    expect(await waitGoneByCommandLine('sleep 3012')).toEqual([])
  })
})

describe('runs that end badly still end with a report', () => {
  it('SIGTERM to the action mid-run: status cancelled, report and summary written, nothing left', async () => {
    const sigterm = sigtermWhen(() => (model?.requests.length ?? 0) > 0, 50)
    const result = await runWith(() => ({ hang: true }), {}, { onSpawn: sigterm.onSpawn })
    expect(sigterm.sent()).toBe(true)
    expect(result.outputs.status).toBe('cancelled')
    expect(result.report!.status).toBe('cancelled')
    expect(result.summary).toMatch(/cancelled/i)
    expect(result.exitCode).not.toBe(0)
  })

  it('SIGTERM while the action is still loading (its CLI already started): nothing left, no session', async () => {
    // The entry starts the CLI before the rest of the action loads: signal the action as soon
    // as the CLI exists.
    const sigterm = sigtermWhen(() => cliPids(workspace).length > 0, 2)
    const result = await runWith([complete], {}, { onSpawn: sigterm.onSpawn })
    expect(sigterm.sent()).toBe(true)
    expect(result.exitCode).not.toBe(0)
    expect(model!.requests).toHaveLength(0)
    // runWith has checked that the CLI's process group is gone
  })

  it('the CLI killed mid-run: status failed with its exit', async () => {
    const result = await runWith(
      () => ({ hang: true }),
      {},
      {
        onSpawn: (child) => {
          const timer = setInterval(() => {
            const [pid] = cliPids(workspace)
            if ((model?.requests.length ?? 0) > 0 && pid && isAlive(pid)) {
              clearInterval(timer)
              process.kill(pid, 'SIGKILL')
            }
          }, 50)
          child.on('exit', () => clearInterval(timer))
        }
      }
    )
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/Copilot CLI exited/)
    expect(result.report!.error?.message).toMatch(/SIGKILL/)
  })

  it('the model endpoint failing: status failed with the error type', async () => {
    const result = await runWith(() => ({ status: 500 }))
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.type).toBe('query')
    expect(result.report!.error?.message).toMatch(/retried/i)
    expect(result.report!.error?.message).toMatch(/\(HTTP 500\)/)
    expect(model!.requests.length).toBeGreaterThan(1)
  }, 90_000)

  it('the agent going silent counts as a hang', async () => {
    const result = await runWith(() => ({ hang: true }), { 'idle-timeout-minutes': '0.05' })
    expect(result.outputs.status).toBe('timed-out')
    expect(result.report!.error?.type).toBe('hang')
  })
})
