// The protocol's floor: the least any client of the headless CLI must do to run the bench's
// session with every permission request answered by the client (what the action does with its
// policy). No policy, no report, no logging, no validation: connect, create the session,
// autopilot, send, approve every request at once, wait for idle, shut down, exit.
// Plain JavaScript (no tsx) so that it starts like the action's bundle does.
// Usage: node floor-client.mjs <copilot> <workdir> <model-url> <model> [<sandboxConfig JSON>]
// (with the sandbox the action's policy derives, the session is the one the action runs)
import { spawn } from 'node:child_process'
import path from 'node:path'
import rpc from 'vscode-jsonrpc/node'

const [executable, workdir, baseUrl, model, sandbox] = process.argv.slice(2)
const cli = spawn(executable, ['--headless', '--stdio', '--no-auto-update', '--no-auto-login'], {
  cwd: workdir,
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    COPILOT_HOME: path.join(workdir, '..', 'floor-copilot-home')
  },
  stdio: ['pipe', 'pipe', 'inherit'],
  detached: true
})
const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(cli.stdout),
  new rpc.StreamMessageWriter(cli.stdin)
)
let sessionId = ''
let idle = () => undefined
const idled = new Promise((resolve) => (idle = resolve))
connection.onNotification('session.event', ({ event }) => {
  if (event.type === 'permission.requested') {
    void connection.sendRequest('session.permissions.handlePendingPermissionRequest', {
      sessionId,
      requestId: event.data.requestId,
      result: { kind: 'approve-once' }
    })
  } else if (event.type === 'session.idle') idle()
})
connection.listen()
await connection.sendRequest('connect', {})
;({ sessionId } = await connection.sendRequest('session.create', {
  model,
  workingDirectory: workdir,
  requestPermission: true,
  streaming: false,
  provider: { type: 'openai', baseUrl, apiKey: 'bench-key' },
  ...(sandbox ? { sandboxConfig: JSON.parse(sandbox) } : {})
}))
await connection.sendRequest('session.mode.set', { sessionId, mode: 'autopilot' })
await connection.sendRequest('session.send', {
  sessionId,
  prompt: 'Run the checks one by one, then finish.'
})
await idled
await connection.sendRequest('session.shutdown', { sessionId })
connection.dispose()
const exited = new Promise((resolve) => cli.on('exit', resolve))
process.kill(-cli.pid, 'SIGTERM')
await exited
