/**
 * A typed JSON-RPC connection to the headless CLI (vscode-jsonrpc over stdio). Every result and
 * notification is parsed with the zod schemas of protocol.ts before it leaves this module.
 */
import { randomUUID } from 'node:crypto'
import * as rpc from 'vscode-jsonrpc/node'
import { z } from 'zod'
import { UserError, messageOf } from '../errors.js'
import type { CliProcess } from './process.js'
import {
  ConnectResult,
  SessionEventNotification,
  SUPPORTED_PROTOCOL_VERSION,
  type SessionEvent
} from './protocol.js'

const GitHubTokenRequest = z.looseObject({ registrationId: z.string() })

export type EventListener = (sessionId: string | undefined, event: SessionEvent) => void
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
  private readonly eventListeners = new Set<EventListener>()
  private readonly notificationListeners = new Set<NotificationListener>()
  private closed = false

  constructor(private readonly cli: CliProcess) {
    this.connection = rpc.createMessageConnection(
      new rpc.StreamMessageReader(cli.child.stdout),
      new rpc.StreamMessageWriter(cli.child.stdin)
    )
    this.connection.onNotification((method: string, params: unknown) => {
      if (method === 'session.event') {
        const parsed = SessionEventNotification.safeParse(params)
        if (!parsed.success) return // an event we cannot read at all is ignored, never fatal
        for (const listener of this.eventListeners)
          listener(parsed.data.sessionId, parsed.data.event)
        return
      }
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

  onEvent(listener: EventListener): () => void {
    this.eventListeners.add(listener)
    return () => this.eventListeners.delete(listener)
  }

  onNotification(listener: NotificationListener): () => void {
    this.notificationListeners.add(listener)
    return () => this.notificationListeners.delete(listener)
  }

  /** Answer server→client requests such as `exitPlanMode.request`. */
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

  /** The protocol handshake: `connect`, checking the protocol version. Returns the CLI version. */
  async handshake(timeoutMs = 30_000): Promise<ConnectResult> {
    const result = await this.request('connect', {}, ConnectResult, timeoutMs)
    if (result.protocolVersion !== SUPPORTED_PROTOCOL_VERSION) {
      throw new UserError(
        `The Copilot CLI${result.version ? ` ${result.version}` : ''} speaks protocol version ${result.protocolVersion}, but this action supports version ${SUPPORTED_PROTOCOL_VERSION}. Set the input 'cli-version' to a supported version (see the README).`
      )
    }
    return result
  }

  /**
   * Serve the CLI's `gitHubToken.getToken` requests for one registration with `token`. The CLI
   * asks when a session created with `gitHubTokenProviderRegistrationId` starts, and again before
   * the token would expire. Returns the registration id to pass to `session.create`.
   */
  provideGitHubToken(token: string): string {
    const registrationId = randomUUID()
    type Answer = { kind: 'cancelled' } | { kind: 'token'; accessToken: string; expiresIn: number }
    this.onRequest('gitHubToken.getToken', (params: unknown): Answer => {
      const request = GitHubTokenRequest.safeParse(params)
      if (!request.success || request.data.registrationId !== registrationId) {
        return { kind: 'cancelled' }
      }
      // GitHub tokens given to a job outlive it; the CLI refreshes when under an hour is left.
      return { kind: 'token', accessToken: token, expiresIn: 6 * 3600 }
    })
    return registrationId
  }

  dispose(): void {
    this.closed = true
    this.connection.dispose()
  }
}
