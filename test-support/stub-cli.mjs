#!/usr/bin/env node
// A stand-in for the Copilot CLI, for the failure paths the real binary cannot be made to take:
// a CLI speaking another protocol version, and a CLI that crashes at startup. STUB_MODE picks.
if (process.argv.includes('--version')) {
  console.log('GitHub Copilot CLI 9.9.9.')
  process.exit(0)
}
const mode = process.env.STUB_MODE ?? 'protocol'
if (mode === 'crash') {
  process.stderr.write('Error: could not open the session store\n    at startup (stub)\n')
  process.exit(3)
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
    if (message.method === 'connect') {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        result: { ok: true, protocolVersion: 99, version: '9.9.9' }
      })
      process.stdout.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
    }
  }
})
