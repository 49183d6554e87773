/**
 * A scripted OpenAI-compatible model on 127.0.0.1.
 *
 * The real Copilot CLI talks to it through BYOK (`provider.baseUrl`), so tests, the demo and the
 * benchmarks drive the real binary fully offline. Each POST /chat/completions takes the next turn
 * of the script; a turn is either an assistant message (text and/or tool calls), an HTTP error, or
 * a hang. Every request is recorded so tests can assert what the agent saw (for example the
 * feedback of a rejected permission).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ToolCall {
  name: string
  arguments: Record<string, unknown>
}

export type Turn =
  | {
      content?: string
      toolCalls?: ToolCall[]
      /** Token counts the turn reports; `cacheRead` of the input came from the prompt cache. */
      usage?: { input: number; output: number; cacheRead?: number }
    }
  | { status: number; body?: string }
  | { hang: true }

export interface RecordedRequest {
  index: number
  body: ChatRequest
}

export interface ChatMessage {
  role: string
  content?: unknown
  tool_call_id?: string
  tool_calls?: { id: string; function: { name: string; arguments: string } }[]
}

export interface ChatRequest {
  model?: string
  stream?: boolean
  messages: ChatMessage[]
  tools?: { function?: { name?: string } }[]
}

/** A script is a list of turns or a function that picks the turn for a request. */
export type Script = Turn[] | ((request: ChatRequest, index: number) => Turn)

export interface ModelServer {
  url: string
  requests: RecordedRequest[]
  /** Text of every tool result message the agent sent back, in order. */
  toolResults(): string[]
  /**
   * The results of the calls of tool `name`, in the order of the calls (parallel calls may
   * complete, and be reported, in any order).
   */
  toolResultsOf(name: string): string[]
  close(): Promise<void>
}

const FALLBACK: Turn = { content: 'I have nothing more to do.' }

function messageText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        part && typeof part === 'object' && 'text' in part ? String(part.text) : ''
      )
      .join('')
  }
  return ''
}

export async function startModelServer(script: Script): Promise<ModelServer> {
  const requests: RecordedRequest[] = []
  const hanging = new Set<http.ServerResponse>()
  let callId = 0

  const pick = (body: ChatRequest, index: number): Turn =>
    typeof script === 'function' ? script(body, index) : (script[index] ?? FALLBACK)

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }))
        return
      }
      let body: ChatRequest
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest
      } catch {
        res.writeHead(400).end()
        return
      }
      const index = requests.length
      requests.push({ index, body })
      const turn = pick(body, index)
      if ('hang' in turn) {
        hanging.add(res)
        res.on('close', () => hanging.delete(res))
        return
      }
      if ('status' in turn) {
        res.writeHead(turn.status, { 'content-type': 'application/json' })
        res.end(turn.body ?? JSON.stringify({ error: { message: `scripted ${turn.status}` } }))
        return
      }
      const toolCalls = (turn.toolCalls ?? []).map((call) => ({
        id: `call_${++callId}`,
        type: 'function' as const,
        function: { name: call.name, arguments: JSON.stringify(call.arguments) }
      }))
      const usage = {
        prompt_tokens: turn.usage?.input ?? 100,
        completion_tokens: turn.usage?.output ?? 20,
        total_tokens: (turn.usage?.input ?? 100) + (turn.usage?.output ?? 20),
        ...(turn.usage?.cacheRead !== undefined
          ? { prompt_tokens_details: { cached_tokens: turn.usage.cacheRead } }
          : {})
      }
      const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop'
      const model = body.model ?? 'scripted-model'
      const created = Math.floor(Date.now() / 1000)
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        const send = (payload: unknown): void => {
          res.write(`data: ${JSON.stringify(payload)}\n\n`)
        }
        const base = { id: `chatcmpl-${index}`, object: 'chat.completion.chunk', created, model }
        send({
          ...base,
          choices: [{ index: 0, delta: { role: 'assistant', content: turn.content ?? '' } }]
        })
        if (toolCalls.length > 0) {
          send({
            ...base,
            choices: [
              {
                index: 0,
                delta: { tool_calls: toolCalls.map((c, i) => ({ index: i, ...c })) }
              }
            ]
          })
        }
        send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage })
        res.end('data: [DONE]\n\n')
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id: `chatcmpl-${index}`,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: turn.content ?? null,
                ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {})
              },
              finish_reason: finish
            }
          ],
          usage
        })
      )
    })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    toolResults: () =>
      // The conversation is resent on every request: the last request holds every tool result.
      (requests.at(-1)?.body.messages ?? [])
        .filter((m) => m.role === 'tool')
        .map((m) => messageText(m.content)),
    toolResultsOf: (name) => {
      const messages = requests.at(-1)?.body.messages ?? []
      const calls = messages
        .flatMap((m) => m.tool_calls ?? [])
        .filter((c) => c.function.name === name)
      return calls.flatMap((call) =>
        messages
          .filter((m) => m.role === 'tool' && m.tool_call_id === call.id)
          .map((m) => messageText(m.content))
      )
    },
    close: async () => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
