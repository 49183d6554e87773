/**
 * The OS sandbox's cost per shell command: the same scripted session of N `bash` tool calls run
 * through the action (sources, real CLI, scripted model on 127.0.0.1) with `sandbox.mode:
 * required` (bubblewrap around every command) and `off`, alternating, and the time per turn
 * (model request to model request: one permission decision + one shell command + the CLI's own
 * turn) compared. Prints one JSON line.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startModelServer, type Turn } from '../test-support/model-server.js'
import { makeWorkspace, runAction } from '../test-support/action.js'

const COMMANDS = 12
const RUNS = 2

// Not under /tmp (git-ignored .tmp/): laid out as on a runner, so /tmp is denied as there.
const scratch = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '.tmp')
fs.mkdirSync(scratch, { recursive: true })

const policy = (mode: string): string => `version: 1
default: deny
sandbox: { mode: ${mode} }
rules:
  - { decision: allow, shell: ["echo *"] }
`

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2
    ? (sorted[mid] ?? NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

/** One run: ms per turn between the first and the last model request, and the report's sandbox. */
async function once(mode: 'required' | 'off'): Promise<{ perTurnMs: number; state: string }> {
  const times: number[] = []
  const turn = (i: number): Turn =>
    i < COMMANDS
      ? { toolCalls: [{ name: 'bash', arguments: { command: `echo ${i}`, description: 'x' } }] }
      : { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
  const model = await startModelServer((_request, index) => {
    times.push(performance.now())
    return turn(index)
  })
  const workspace = makeWorkspace({ '.github/copilot-policy.yml': policy(mode) }, scratch)
  try {
    const result = await runAction({
      workspace,
      inputs: {
        prompt: 'Run the commands.',
        model: 'claude-sonnet-4.5',
        'provider-type': 'openai',
        'provider-base-url': model.url,
        comment: 'off',
        'timeout-minutes': '2'
      }
    })
    if (result.outputs.status !== 'completed' || times.length < COMMANDS + 1) {
      throw new Error(
        `run (${mode}) ended ${result.outputs.status}:\n${result.stdout.slice(-2000)}`
      )
    }
    const first = times[0] ?? NaN
    const last = times[COMMANDS] ?? NaN
    return { perTurnMs: (last - first) / COMMANDS, state: result.report?.sandbox?.state ?? 'none' }
  } finally {
    await model.close()
    workspace.cleanup()
  }
}

const on: number[] = []
const off: number[] = []
const states = new Set<string>()
for (let i = 0; i < RUNS; i++) {
  const a = await once('required')
  const b = await once('off')
  on.push(a.perTurnMs)
  off.push(b.perTurnMs)
  states.add(`${a.state}/${b.state}`)
}
const onMs = median(on)
const offMs = median(off)
console.log(
  JSON.stringify({
    commands: COMMANDS,
    runs: RUNS,
    onMs,
    offMs,
    ratio: onMs / offMs,
    costMs: onMs - offMs,
    states: [...states]
  })
)
