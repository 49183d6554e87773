/**
 * Records the event stream of a real Copilot CLI session (headless, streaming on, every event
 * including the ephemeral ones) against the scripted model, as the template the event-folding
 * benchmark replays: `npx tsx bench/record-events.ts > bench/fixtures/session-events.jsonl`.
 * Only the shapes matter (strings over 300 characters are cut); the benchmark rewrites ids,
 * timestamps, tool call ids and delta text.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as rpc from 'vscode-jsonrpc/node'
import { startModelServer } from '../test-support/model-server.js'
import { cliBinary } from '../test-support/action.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-record-'))
fs.writeFileSync(path.join(dir, 'README.md'), '# Demo\n')
const model = await startModelServer((_req, i) =>
  i < 4
    ? {
        content: `Step ${i}: let me check the repository before changing anything.`,
        toolCalls: [
          {
            name: 'bash',
            arguments: { command: i % 2 ? 'cat README.md' : `echo step ${i}`, description: 'Look' }
          }
        ],
        usage: { input: 1200 + i * 300, output: 40 }
      }
    : {
        content: 'All done.',
        toolCalls: [{ name: 'task_complete', arguments: { summary: 'Done' } }]
      }
)
const child = spawn(cliBinary(), ['--headless', '--stdio', '--no-auto-update', '--no-auto-login'], {
  cwd: dir,
  env: { PATH: process.env.PATH, HOME: process.env.HOME, COPILOT_HOME: path.join(dir, 'home') },
  stdio: ['pipe', 'pipe', 'ignore'],
  detached: true
})
const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(child.stdout),
  new rpc.StreamMessageWriter(child.stdin)
)
let done: () => void = () => undefined
const idle = new Promise<void>((resolve) => (done = resolve))
connection.onNotification((method: string, params: unknown) => {
  if (method !== 'session.event') return
  const { sessionId, event } = params as {
    sessionId: string
    event: { type: string; data: { requestId?: string } }
  }
  // long texts (the system prompt, tool schemas) are cut: the benchmark needs shapes, not prose
  const clipped = JSON.stringify(event, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 300 ? `${value.slice(0, 300)}…` : value
  )
  process.stdout.write(clipped + '\n')
  if (event.type === 'permission.requested') {
    void connection.sendRequest('session.permissions.handlePendingPermissionRequest', {
      sessionId,
      requestId: event.data.requestId,
      result: { kind: 'approve-once' }
    })
  }
  if (event.type === 'session.idle') done()
})
connection.listen()
try {
  await connection.sendRequest('connect', {})
  const { sessionId } = await connection.sendRequest<{ sessionId: string }>('session.create', {
    model: 'claude-sonnet-4.5',
    workingDirectory: dir,
    requestPermission: true,
    streaming: true,
    provider: { type: 'openai', baseUrl: model.url, apiKey: 'bench-key' }
  })
  await connection.sendRequest('session.mode.set', { sessionId, mode: 'autopilot' })
  await connection.sendRequest('session.send', { sessionId, prompt: 'Look around, then finish.' })
  await idle
  await connection.sendRequest('session.shutdown', { sessionId })
} finally {
  connection.dispose()
  try {
    process.kill(-(child.pid as number), 'SIGKILL')
  } catch {
    // gone
  }
  await model.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
