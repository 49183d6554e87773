#!/usr/bin/env node
/**
 * A tiny MCP server over stdio (newline-delimited JSON-RPC 2.0), for the end-to-end tests: the
 * real Copilot CLI starts it from the action's `mcp-servers` input.
 *
 * Tools:
 * - `echo {text}`: returns the text; it also appends the text to $MCP_FIXTURE_LOG (when set), so
 *   a test can tell whether a call really reached the server or was denied before it.
 * - `token_check`: says whether $FIXTURE_TOKEN is set (never its value): the env of the
 *   configuration reaches the server.
 *
 * Unknown methods get -32601, as the protocol asks; notifications get no answer.
 */
import { appendFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

const TOOLS = [
  {
    name: 'echo',
    description: 'Echo the given text back.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text']
    }
  },
  {
    name: 'token_check',
    description: 'Say whether the server has its token.',
    inputSchema: { type: 'object', properties: {} }
  }
]

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
}

function call(name, args) {
  if (name === 'echo') {
    const text = typeof args?.text === 'string' ? args.text : ''
    if (process.env.MCP_FIXTURE_LOG) appendFileSync(process.env.MCP_FIXTURE_LOG, `${text}\n`)
    return { content: [{ type: 'text', text: `echo: ${text}` }] }
  }
  if (name === 'token_check') {
    const has = (process.env.FIXTURE_TOKEN ?? '') !== ''
    return { content: [{ type: 'text', text: has ? 'token: present' : 'token: missing' }] }
  }
  return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true }
}

const lines = createInterface({ input: process.stdin })
lines.on('line', (line) => {
  if (line.trim() === '') return
  let message
  try {
    message = JSON.parse(line)
  } catch {
    send({ id: null, error: { code: -32700, message: 'parse error' } })
    return
  }
  const { id, method, params } = message
  if (id === undefined || id === null) return // a notification
  switch (method) {
    case 'initialize':
      send({
        id,
        result: {
          protocolVersion: params?.protocolVersion ?? '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'fixture', version: '1.0.0' }
        }
      })
      return
    case 'ping':
      send({ id, result: {} })
      return
    case 'tools/list':
      send({ id, result: { tools: TOOLS } })
      return
    case 'tools/call':
      send({ id, result: call(params?.name, params?.arguments) })
      return
    default:
      send({ id, error: { code: -32601, message: `method not found: ${method}` } })
  }
})
lines.on('close', () => process.exit(0))
