/**
 * The network of a setup or verify command behind the wall: a filtering forward proxy the action
 * runs for the command's lifetime, on a unix socket the wall binds in (command-wall.ts forwards
 * 127.0.0.1:<port> inside the wall to it). The command has no other network (`--unshare-net`).
 *
 * - `CONNECT host:port` (https, and anything a client tunnels) and plain-http requests with an
 *   absolute URL (`GET http://host/path`); nothing else.
 * - A connection goes through only when the policy's url rules allow it (policy/network.ts), and
 *   the proxy itself resolves the name and connects to an address it checked: never to loopback,
 *   link-local (the cloud metadata service), a private or a special-purpose range
 *   (local-addresses.ts), unless the allowing rule names that very address (`127.0.0.1:8080`,
 *   `localhost:3000`) or the network allows the local one.
 * - A plain-http request goes to the host of its URL, with that host as its `Host` header: a
 *   header cannot send it elsewhere. A tunnel carries what the client sends (TLS: its SNI may
 *   name another host than the CONNECT did; the proxy cannot see into it).
 * - Every refusal is answered `403` with the reason, and counted per host and port; the first
 *   refusal of each is reported as it happens (`onRefused`).
 */
import dns from 'node:dns'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import type { Duplex } from 'node:stream'
import { decideConnection, type CommandNetwork } from '../policy/index.js'
import { localRange } from './local-addresses.js'

/** A host and port the proxy refused a command, and how often. */
export interface RefusedConnection {
  /** `host:port` as the command asked for it (the host normalized). */
  target: string
  reason: string
  attempts: number
}

/** Resolves a host name to its addresses (the system's resolver by default). */
export type Lookup = (hostname: string) => Promise<string[]>

export interface CommandProxyOptions {
  /** Where to listen (a unix socket; removed first if something stale is there). */
  socketPath: string
  network: CommandNetwork
  lookup?: Lookup
  /** Called once per refused host and port, at its first refusal. */
  onRefused?: (refusal: RefusedConnection) => void
  /** How long a connection to an upstream may take to open. */
  connectTimeoutMs?: number
}

export interface CommandProxy {
  socketPath: string
  /** The refusals so far, in the order of their first attempt (at most MAX_REFUSALS targets). */
  refused(): RefusedConnection[]
  /** How many more targets were refused than `refused()` lists. */
  refusedBeyond(): number
  /** Stops listening, ends every open connection, removes the socket. */
  close(): Promise<void>
}

/** The most refused targets kept (a command that tries every host must not grow the report). */
export const MAX_REFUSALS = 20

/** The longest unix socket path (sun_path holds 108 bytes with the terminating NUL). */
export const MAX_SOCKET_PATH = 107

const systemLookup: Lookup = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true })
  return found.map((a) => a.address)
}

/** `host:port` of a CONNECT request, or undefined when it is not one. */
export function connectTarget(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:/?#@[\]\s]+):(\d{1,5})$/.exec(authority)
  if (match?.[1] === undefined || match[2] === undefined) return undefined
  return { host: match[1], port: Number(match[2]) }
}

/** Request headers a proxy does not pass on (hop by hop, and its own). */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host'
])

/** Starts the proxy; rejects when it cannot listen at `socketPath`. */
export async function startCommandProxy(options: CommandProxyOptions): Promise<CommandProxy> {
  const { socketPath, network } = options
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    throw new Error(
      `the proxy's socket path is longer than ${MAX_SOCKET_PATH} bytes: ${socketPath}`
    )
  }
  const lookup = options.lookup ?? systemLookup
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000
  const refusals = new Map<string, RefusedConnection>()
  let beyond = 0
  const open = new Set<Duplex>()
  const track = (socket: Duplex): void => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
  }

  const refuse = (target: string, reason: string): string => {
    const known = refusals.get(target)
    if (known !== undefined) {
      known.attempts++
    } else if (refusals.size < MAX_REFUSALS) {
      const refusal = { target, reason, attempts: 1 }
      refusals.set(target, refusal)
      options.onRefused?.({ ...refusal })
    } else {
      beyond++
    }
    return `Refused by the policy's network for setup and verify commands: ${target}: ${reason}\n`
  }

  /** An address to connect to, or why there is none. */
  const resolve = async (
    hostname: string,
    namesAddress: boolean
  ): Promise<{ address: string } | { refused: string } | { failed: string }> => {
    const bare = hostname.replace(/^\[(.*)\]$/, '$1')
    let addresses: string[]
    if (net.isIP(bare) !== 0) addresses = [bare]
    else {
      try {
        addresses = await lookup(bare)
      } catch (error) {
        return {
          failed: `${hostname} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`
        }
      }
    }
    if (addresses.length === 0) return { failed: `${hostname} does not resolve` }
    const local: string[] = []
    for (const address of addresses) {
      const range = localRange(address)
      if (range === undefined || network.allowLocalNetwork || namesAddress) return { address }
      local.push(`${address} (${range})`)
    }
    return {
      refused: `it resolves to ${local.join(', ')}: the local network is not reachable unless a url rule names the address itself`
    }
  }

  /** Decides and resolves a target: the address to connect to, or the answer to send. */
  const vet = async (
    host: string,
    port: number,
    url?: string
  ): Promise<{ address: string } | { status: number; body: string }> => {
    const decision = decideConnection(network, {
      host,
      port,
      ...(url === undefined ? {} : { url })
    })
    const target = `${decision.hostname}:${port}`
    if (!decision.allowed) return { status: 403, body: refuse(target, decision.reason) }
    const found = await resolve(decision.hostname, decision.namesAddress)
    if ('refused' in found) return { status: 403, body: refuse(target, found.refused) }
    if ('failed' in found) return { status: 502, body: `${found.failed}\n` }
    return found
  }

  const tunnel = async (req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> => {
    track(client)
    client.on('error', () => client.destroy())
    const target = connectTarget(req.url ?? '')
    if (target === undefined) {
      answerRaw(client, 400, 'CONNECT needs host:port\n')
      return
    }
    const vetted = await vet(target.host, target.port)
    if ('status' in vetted) {
      answerRaw(client, vetted.status, vetted.body)
      return
    }
    const upstream = net.connect({ host: vetted.address, port: target.port })
    track(upstream)
    let established = false
    upstream.setTimeout(connectTimeoutMs, () => upstream.destroy(new Error('timed out')))
    upstream.once('connect', () => {
      established = true
      upstream.setTimeout(0)
      if (client.destroyed) {
        upstream.destroy()
        return
      }
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', (error) => {
      if (established) client.destroy()
      else answerRaw(client, 502, `${target.host}:${target.port}: ${error.message}\n`)
    })
    upstream.on('close', () => {
      if (established) client.destroy()
    })
    client.on('close', () => upstream.destroy())
  }

  const forward = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const raw = req.url ?? ''
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      answer(res, 400, 'This is a proxy: send an absolute http:// URL, or CONNECT host:port\n')
      return
    }
    if (url.protocol !== 'http:' || !raw.startsWith('http://')) {
      answer(res, 400, `Only http:// URLs are forwarded (https: CONNECT host:443)\n`)
      return
    }
    const port = url.port === '' ? 80 : Number(url.port)
    const vetted = await vet(url.hostname, port, raw)
    if ('status' in vetted) {
      answer(res, vetted.status, vetted.body)
      return
    }
    const headers: string[] = []
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i] ?? ''
      if (HOP_BY_HOP.has(name.toLowerCase())) continue
      headers.push(name, req.rawHeaders[i + 1] ?? '')
    }
    headers.push('Host', url.host)
    const upstream = http.request({
      host: vetted.address,
      port,
      method: req.method ?? 'GET',
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
      agent: false,
      timeout: connectTimeoutMs
    })
    upstream.on('socket', (socket) => track(socket))
    upstream.on('timeout', () => upstream.destroy(new Error('timed out')))
    upstream.on('response', (response) => {
      upstream.setTimeout(0)
      const back: string[] = []
      for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
        const name = response.rawHeaders[i] ?? ''
        if (HOP_BY_HOP.has(name.toLowerCase())) continue
        back.push(name, response.rawHeaders[i + 1] ?? '')
      }
      res.writeHead(response.statusCode ?? 502, response.statusMessage, back)
      response.pipe(res)
      response.on('error', () => res.destroy())
    })
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy()
      else answer(res, 502, `${url.host}: ${error.message}\n`)
    })
    req.pipe(upstream)
    req.on('error', () => upstream.destroy())
  }

  const server = http.createServer()
  server.on('connection', (socket: net.Socket) => track(socket))
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    void tunnel(req, client, head).catch(() => client.destroy())
  })
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    void forward(req, res).catch(() => res.destroy())
  })
  server.on('upgrade', (_req: http.IncomingMessage, client: Duplex) => {
    answerRaw(client, 501, 'Upgrades over plain http are not forwarded: use CONNECT\n')
  })
  server.on('clientError', (_error: Error, socket: Duplex) => socket.destroy())

  fs.rmSync(socketPath, { force: true })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(socketPath, () => {
      server.off('error', reject)
      resolve()
    })
  })
  // only the action's own user (the commands run as it, in their user namespace)
  fs.chmodSync(socketPath, 0o600)

  return {
    socketPath,
    refused: () => [...refusals.values()].map((r) => ({ ...r })),
    refusedBeyond: () => beyond,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const socket of open) socket.destroy()
      await closed
      fs.rmSync(socketPath, { force: true })
    }
  }
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  501: 'Not Implemented',
  502: 'Bad Gateway'
}

function answer(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close'
  })
  res.end(body)
}

/** An answer on a raw socket (CONNECT and upgrades have no response object), then the end. */
function answerRaw(socket: Duplex, status: number, body: string): void {
  if (socket.destroyed) return
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}
