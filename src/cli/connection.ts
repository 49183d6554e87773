/**
 * The JSON-RPC transport to the headless CLI (vscode-jsonrpc over stdio): requests whose results
 * are parsed with a zod schema, notifications, and server→client requests. It names no method:
 * session-api.ts does.
 */
import * as rpc from 'vscode-jsonrpc/node'
import type { z } from 'zod'
import { messageOf } from '../errors.js'
import type { CliProcess } from './process.js'

export type NotificationListener = (method: string, params: unknown) => void
export type RequestHandler = (params: unknown) => unknown

/** The CLI answered with a JSON-RPC error, or the connection broke, during `method`. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError'
  constructor(
    readonly method: string,
    message: string,
    readonly code?: number
  ) {
    super(`${method}: ${message}`)
  }
}

export class Connection {
  private readonly connection: rpc.MessageConnection
  private readonly notificationListeners = new Set<NotificationListener>()
  private closed = false

  constructor(private readonly cli: CliProcess) {
    this.connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(cli.child.stdout),
      new rpc.StreamMessageWriter(cli.child.stdin)
    )
    this.connection.onNotification((method: string, params: unknown) => {
      for (const listener of this.notificationListeners) listener(method, params)
    })
    this.connection.onClose(() => {
      this.closed = true
    })
    // A write to a dead CLI must not crash the action: the exit is reported through `cli.exited`.
    cli.child.stdin.on('error', () => undefined)
    // The CLI gone, every pending request is rejected at once (request() says it exited).
    void cli.exited.then(() => this.connection.dispose())
    this.connection.listen()
  }

  get isClosed(): boolean {
    return this.closed || this.cli.hasExited
  }

  onNotification(listener: NotificationListener): () => void {
    this.notificationListeners.add(listener)
    return () => this.notificationListeners.delete(listener)
  }

  /** Answer a server→client request. */
  onRequest(method: string, handler: RequestHandler): void {
    this.connection.onRequest(method, (params: unknown) => handler(params))
  }

  /**
   * Send a request and parse its result. Fails when the CLI answers with an error, when it exits
   * first, or after `timeoutMs` (a CLI that stopped answering).
   */
  async request<S extends z.ZodType>(
    method: string,
    params: unknown,
    schema: S,
    timeoutMs = 60_000
  ): Promise<z.infer<S>> {
    if (this.isClosed) throw new ProtocolError(method, 'the Copilot CLI is not running')
    let timer: NodeJS.Timeout | undefined
    try {
      const raw: unknown = await Promise.race([
        this.connection.sendRequest<unknown>(method, params),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new ProtocolError(method, `no answer within ${Math.round(timeoutMs / 1000)} s`)
              ),
            timeoutMs
          )
        })
      ])
      const parsed = schema.safeParse(raw ?? {})
      if (!parsed.success) {
        throw new ProtocolError(
          method,
          `unexpected result shape: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`
        )
      }
      return parsed.data
    } catch (error) {
      if (error instanceof ProtocolError) throw error
      const code = error instanceof rpc.ResponseError ? error.code : undefined
      const exit = this.cli.exitStatus
      if (exit && code === rpc.ErrorCodes.PendingResponseRejected) {
        throw new ProtocolError(
          method,
          `the Copilot CLI exited (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'}) before answering`
        )
      }
      throw new ProtocolError(method, messageOf(error), code)
    } finally {
      clearTimeout(timer)
    }
  }

  dispose(): void {
    this.closed = true
    this.connection.dispose()
  }
}
