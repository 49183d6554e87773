#!/usr/bin/env node
// A stand-in for the Copilot CLI signed in to GitHub, at the JSON-RPC boundary: the methods that
// need GitHub authentication (models.list, account.getQuota), which the real CLI run offline
// against a scripted model (BYOK) answers with "Not authenticated". It speaks the headless
// protocol over stdio (Content-Length framing), records every request it gets in FAKE_CLI_LOG
// (one JSON line each), and answers from the JSON file FAKE_CLI_SCRIPT:
//   { token, models, quota, fleetStarted }
// `models` / `quota`: the result, or a string (answered as that JSON-RPC error). A request with a
// gitHubToken other than `token` is answered "Not authenticated", as the real CLI does. After
// session.send or session.fleet.start it plays task_complete and idle.
import fs from 'node:fs'

if (process.argv.includes('--version')) {
  console.log('GitHub Copilot CLI 1.0.102.')
  process.exit(0)
}
const script = JSON.parse(fs.readFileSync(process.env.FAKE_CLI_SCRIPT ?? '', 'utf8'))
const logFile = process.env.FAKE_CLI_LOG ?? ''

function write(message) {
  const body = JSON.stringify({ jsonrpc: '2.0', ...message })
  process.stdout.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
}
const event = (sessionId, type, data) =>
  write({
    method: 'session.event',
    params: {
      sessionId,
      event: { id: `${type}-${Date.now()}`, timestamp: new Date().toISOString(), type, data }
    }
  })
const NOT_AUTHENTICATED = 'Not authenticated. Please authenticate first.'

function answer(method, params) {
  switch (method) {
    case 'connect':
      return { ok: true, protocolVersion: 3, version: '1.0.102' }
    case 'models.list':
    case 'account.getQuota': {
      if (params?.gitHubToken !== script.token) throw new Error(NOT_AUTHENTICATED)
      const result = method === 'models.list' ? script.models : script.quota
      if (typeof result === 'string') throw new Error(result)
      return result
    }
    case 'session.create':
      return { sessionId: 'fake-github-session', workspacePath: '/tmp/none', mode: 'interactive' }
    case 'session.gitHubAuth.getStatus':
      return { isAuthenticated: true, login: 'octocat' }
    case 'session.send':
    case 'session.fleet.start': {
      const started = method === 'session.send' || script.fleetStarted !== false
      if (started) {
        setTimeout(() => {
          event(params.sessionId, 'session.task_complete', { summary: 'Done.', success: true })
          event(params.sessionId, 'session.idle', {})
        }, 20)
      }
      return method === 'session.send' ? { messageId: 'm1' } : { started, extra: 'tolerated' }
    }
    case 'session.plan.read':
      return { exists: false }
    case 'session.plan.readSqlTodos':
      return { rows: [] }
    default:
      return {}
  }
}

let buffer = Buffer.alloc(0)
process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk])
  for (;;) {
    const headerEnd = buffer.indexOf('\r\n\r\n')
    if (headerEnd < 0) return
    const length = Number(
      /Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]
    )
    if (buffer.length < headerEnd + 4 + length) return
    const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString())
    buffer = buffer.subarray(headerEnd + 4 + length)
    if (message.id === undefined || message.method === undefined) continue
    if (logFile) {
      fs.appendFileSync(
        logFile,
        `${JSON.stringify({ method: message.method, params: message.params })}\n`
      )
    }
    try {
      write({ id: message.id, result: answer(message.method, message.params) })
    } catch (error) {
      write({ id: message.id, error: { code: -32603, message: error.message } })
    }
  }
})
process.stdin.on('end', () => process.exit(0))
