/**
 * The Copilot CLI's JSON-RPC methods the action uses, one typed, zod-checked function each.
 * This is the only module that names a method: everything else calls `CopilotApi` (or, in unit
 * tests, an in-memory `SessionApi`).
 */
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { UserError } from '../errors.js'
import type { Connection } from './connection.js'
import {
  ConnectResult,
  CreateSessionResult,
  FleetStartResult,
  ModelsListResult,
  QuotaResult,
  PlanReadResult,
  ReadTodosResult,
  SendResult,
  SessionEventNotification,
  ShellExecResult,
  ShellExitNotification,
  SUPPORTED_PROTOCOL_VERSION,
  UsageMetrics,
  type ModelInfo,
  type PermissionAnswer,
  type SessionEvent,
  type Todo
} from './protocol.js'
import type { SandboxConfig } from '../policy/index.js'
import type { CustomAgentConfig, McpServerConfig, Provider } from './session-config.js'

/** The JSON-RPC method names, in one place. */
export const METHOD = {
  connect: 'connect',
  sessionEvent: 'session.event',
  create: 'session.create',
  /** The same options as `session.create`, plus the id of a session in COPILOT_HOME/session-state. */
  resume: 'session.resume',
  authStatus: 'session.gitHubAuth.getStatus',
  setMode: 'session.mode.set',
  send: 'session.send',
  // fleet mode, the models and the quota
  startFleet: 'session.fleet.start',
  listModels: 'models.list',
  quota: 'account.getQuota',
  abort: 'session.abort',
  shutdown: 'session.shutdown',
  readPlan: 'session.plan.read',
  readTodos: 'session.plan.readSqlTodos',
  metrics: 'session.usage.getMetrics',
  answerPermission: 'session.permissions.handlePendingPermissionRequest',
  answerExitPlan: 'session.ui.handlePendingExitPlanMode',
  shellExec: 'session.shell.exec',
  shellKill: 'session.shell.kill',
  shellExit: 'shell.exit',
  exitPlanRequest: 'exitPlanMode.request',
  getToken: 'gitHubToken.getToken',
  answerToolCall: 'session.tools.handlePendingToolCall'
} as const

export type SessionMode = 'plan' | 'autopilot' | 'interactive'

/** The session.create fields that decide what the CLI loads from the working tree. */
export interface RepositoryConfigOptions {
  enableConfigDiscovery: boolean
  enableFileHooks: boolean
  /** Declares the working directory trusted for this session only (never persisted). */
  trustWorkingDirectory?: 'session'
  requestExtensions?: false
  /** Instruction files of the directories a viewed file is in, surfaced after the view. */
  enableOnDemandInstructionDiscovery?: false
  excludedTools?: string[]
}

/** A tool the action gives the agent (`session.create {tools}`): the model sees it by `name`. */
export interface ExternalToolDefinition {
  name: string
  description: string
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>
}

/** The answer to one call of an external tool (`session.tools.handlePendingToolCall {result}`). */
export interface ExternalToolResult {
  textResultForLlm: string
  resultType: 'success' | 'failure'
  error?: string
}

export interface CreateSessionOptions {
  /**
   * Continue this session (its state folder restored into COPILOT_HOME/session-state) with
   * `session.resume` instead of creating one: every other option here configures it, as for a new
   * session (measured, CLI 1.0.102: without `sandboxConfig` again the sandbox is "unsupported").
   */
  resumeSessionId?: string
  model?: string
  /** MCP servers the CLI starts for the session, by name (the CLI's `mcpServers` format). */
  mcpServers?: Record<string, McpServerConfig>
  /** Run the session as this custom agent. */
  agent?: CustomAgentConfig
  /** Tools the action gives the agent; their calls arrive as `external_tool.requested`. */
  tools?: ExternalToolDefinition[]
  reasoningEffort?: string
  maxAiCredits?: number
  workingDirectory: string
  maxAutopilotContinues: number
  /** Ask the action before leaving plan mode (plan-first runs). */
  requestExitPlanMode: boolean
  sandboxConfig?: SandboxConfig
  /** Extra `session.create` fields that decide which repository configuration the CLI loads. */
  repositoryConfig: RepositoryConfigOptions
  provider?: Provider
  /** From `provideGitHubToken`. */
  gitHubTokenRegistration?: string
}

export const AuthStatus = z.looseObject({
  isAuthenticated: z.boolean(),
  login: z.string().optional(),
  statusMessage: z.string().optional()
})
export type AuthStatus = z.infer<typeof AuthStatus>

/** The action's answer to the agent's request to leave plan mode. */
export interface ExitPlanResponse {
  approved: boolean
  selectedAction?: string
  autoApproveEdits: boolean
}

/** A server-level call made with the run's GitHub credential. */
export interface GitHubCallOptions extends CallOptions {
  gitHubToken: string
}

export type ShellSignal = 'SIGTERM' | 'SIGKILL'

/** Per-call time limits; a CLI that stops answering must not hang the run. */
export interface CallOptions {
  timeoutMs?: number
}

/**
 * What a run needs from the CLI. `CopilotApi` implements it over JSON-RPC; tests drive `SessionRun`
 * with an in-memory implementation.
 */
export interface SessionApi {
  readonly isClosed: boolean
  create(options: CreateSessionOptions): Promise<CreateSessionResult>
  authStatus(sessionId: string): Promise<AuthStatus>
  setMode(sessionId: string, mode: SessionMode): Promise<void>
  send(sessionId: string, prompt: string): Promise<void>
  /**
   * Sends the prompt in the CLI's fleet mode (`fleet: true`): the CLI adds its fleet
   * instructions and the agent dispatches the work to parallel subagents (`task` calls).
   */
  startFleet(sessionId: string, prompt: string): Promise<void>
  /**
   * The models the GitHub account may use. Needs the GitHub credential (`gitHubToken`, sent over
   * the pipe, never put in the CLI's environment); the CLI answers "Not authenticated" under BYOK.
   */
  listModels(options: GitHubCallOptions): Promise<ModelInfo[]>
  /** The account's quota snapshots by type (`premium_interactions`, ...); GitHub credential only. */
  quota(options: GitHubCallOptions): Promise<QuotaResult>
  abort(sessionId: string, options?: CallOptions): Promise<void>
  shutdown(sessionId: string, options?: CallOptions): Promise<void>
  readPlan(sessionId: string, options?: CallOptions): Promise<PlanReadResult>
  readTodos(sessionId: string, options?: CallOptions): Promise<Todo[]>
  metrics(sessionId: string, options?: CallOptions): Promise<UsageMetrics>
  answerPermission(sessionId: string, requestId: string, answer: PermissionAnswer): Promise<void>
  answerExitPlan(sessionId: string, requestId: string, response: ExitPlanResponse): Promise<void>
  /** Answers an `external_tool.requested` event. */
  answerToolCall(sessionId: string, requestId: string, result: ExternalToolResult): Promise<void>
  shellExec(
    sessionId: string,
    command: { command: string; cwd: string; timeoutMs: number }
  ): Promise<{ processId: string }>
  shellKill(sessionId: string, processId: string, signal: ShellSignal): Promise<void>
  /** Every session event, parsed at the boundary. Returns the unsubscribe function. */
  onEvent(listener: (event: SessionEvent) => void): () => void
  /** `shell.exit` notifications (some CLI versions only). */
  onShellExit(listener: (processId: string, exitCode: number | null) => void): () => void
  /** Serve the CLI's own request to leave plan mode (CLI versions that send one). */
  serveExitPlanRequests(handler: () => ExitPlanResponse): void
}

export class CopilotApi implements SessionApi {
  constructor(private readonly connection: Connection) {}

  /** A request whose result the action does not read (the CLI answers `{}` or nothing useful). */
  private async requestOnly(method: string, params: unknown, timeoutMs?: number): Promise<void> {
    await this.connection.request(method, params, z.unknown(), timeoutMs)
  }

  get isClosed(): boolean {
    return this.connection.isClosed
  }

  /** The protocol handshake, checking the protocol version. */
  async connect(timeoutMs = 30_000): Promise<ConnectResult> {
    const result = await this.connection.request(METHOD.connect, {}, ConnectResult, timeoutMs)
    if (result.protocolVersion !== SUPPORTED_PROTOCOL_VERSION) {
      throw new UserError(
        `The Copilot CLI${result.version ? ` ${result.version}` : ''} speaks protocol version ${result.protocolVersion}, but this action supports version ${SUPPORTED_PROTOCOL_VERSION}. Set the input 'cli-version' to a supported version (see the README).`
      )
    }
    return result
  }

  create(options: CreateSessionOptions): Promise<CreateSessionResult> {
    const resume = options.resumeSessionId
    return this.connection.request(
      resume === undefined ? METHOD.create : METHOD.resume,
      {
        ...(resume === undefined ? {} : { sessionId: resume }),
        ...(options.model ? { model: options.model } : {}),
        ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
        ...(options.agent ? { customAgents: [options.agent], agent: options.agent.name } : {}),
        ...(options.reasoningEffort ? { reasoningEffort: options.reasoningEffort } : {}),
        ...(options.maxAiCredits === undefined
          ? {}
          : { sessionLimits: { maxAiCredits: options.maxAiCredits } }),
        workingDirectory: options.workingDirectory,
        requestPermission: true,
        streaming: false,
        autopilot: { maxContinues: options.maxAutopilotContinues },
        ...(options.requestExitPlanMode ? { requestExitPlanMode: true } : {}),
        ...(options.sandboxConfig ? { sandboxConfig: options.sandboxConfig } : {}),
        ...options.repositoryConfig,
        ...(options.provider ? { provider: options.provider } : {}),
        ...(options.gitHubTokenRegistration
          ? { gitHubTokenProviderRegistrationId: options.gitHubTokenRegistration }
          : {})
      },
      CreateSessionResult
    )
  }

  authStatus(sessionId: string): Promise<AuthStatus> {
    return this.connection.request(METHOD.authStatus, { sessionId }, AuthStatus)
  }

  async setMode(sessionId: string, mode: SessionMode): Promise<void> {
    await this.requestOnly(METHOD.setMode, { sessionId, mode })
  }

  async send(sessionId: string, prompt: string): Promise<void> {
    await this.connection.request(METHOD.send, { sessionId, prompt }, SendResult)
  }

  async startFleet(sessionId: string, prompt: string): Promise<void> {
    const result = await this.connection.request(
      METHOD.startFleet,
      { sessionId, prompt },
      FleetStartResult
    )
    if (!result.started) {
      throw new Error(
        `The Copilot CLI did not start fleet mode (${METHOD.startFleet} answered started: false)`
      )
    }
  }

  async listModels(options: GitHubCallOptions): Promise<ModelInfo[]> {
    const result = await this.connection.request(
      METHOD.listModels,
      { gitHubToken: options.gitHubToken },
      ModelsListResult,
      options.timeoutMs ?? 30_000
    )
    return result.models
  }

  quota(options: GitHubCallOptions): Promise<QuotaResult> {
    return this.connection.request(
      METHOD.quota,
      { gitHubToken: options.gitHubToken },
      QuotaResult,
      options.timeoutMs ?? 30_000
    )
  }

  async abort(sessionId: string, options: CallOptions = {}): Promise<void> {
    await this.requestOnly(METHOD.abort, { sessionId }, options.timeoutMs)
  }

  async shutdown(sessionId: string, options: CallOptions = {}): Promise<void> {
    await this.requestOnly(METHOD.shutdown, { sessionId }, options.timeoutMs)
  }

  readPlan(sessionId: string, options: CallOptions = {}): Promise<PlanReadResult> {
    return this.connection.request(
      METHOD.readPlan,
      { sessionId },
      PlanReadResult,
      options.timeoutMs
    )
  }

  async readTodos(sessionId: string, options: CallOptions = {}): Promise<Todo[]> {
    const result = await this.connection.request(
      METHOD.readTodos,
      { sessionId },
      ReadTodosResult,
      options.timeoutMs
    )
    return result.rows
  }

  metrics(sessionId: string, options: CallOptions = {}): Promise<UsageMetrics> {
    return this.connection.request(METHOD.metrics, { sessionId }, UsageMetrics, options.timeoutMs)
  }

  async answerPermission(
    sessionId: string,
    requestId: string,
    answer: PermissionAnswer
  ): Promise<void> {
    await this.requestOnly(METHOD.answerPermission, { sessionId, requestId, result: answer })
  }

  async answerExitPlan(
    sessionId: string,
    requestId: string,
    response: ExitPlanResponse
  ): Promise<void> {
    await this.requestOnly(METHOD.answerExitPlan, { sessionId, requestId, response })
  }

  async answerToolCall(
    sessionId: string,
    requestId: string,
    result: ExternalToolResult
  ): Promise<void> {
    await this.requestOnly(METHOD.answerToolCall, { sessionId, requestId, result })
  }

  async shellExec(
    sessionId: string,
    command: { command: string; cwd: string; timeoutMs: number }
  ): Promise<{ processId: string }> {
    const result = await this.connection.request(
      METHOD.shellExec,
      { sessionId, command: command.command, cwd: command.cwd, timeout: command.timeoutMs },
      ShellExecResult
    )
    return { processId: String(result.processId) }
  }

  async shellKill(sessionId: string, processId: string, signal: ShellSignal): Promise<void> {
    await this.requestOnly(METHOD.shellKill, { sessionId, processId, signal }, 5_000)
  }

  onEvent(listener: (event: SessionEvent) => void): () => void {
    return this.connection.onNotification((method, params) => {
      if (method !== METHOD.sessionEvent) return
      const parsed = SessionEventNotification.safeParse(params)
      // An event we cannot read at all is ignored, never fatal.
      if (parsed.success) listener(parsed.data.event)
    })
  }

  onShellExit(listener: (processId: string, exitCode: number | null) => void): () => void {
    return this.connection.onNotification((method, params) => {
      if (method !== METHOD.shellExit) return
      const parsed = ShellExitNotification.safeParse(params)
      if (parsed.success) listener(parsed.data.processId, parsed.data.exitCode ?? null)
    })
  }

  serveExitPlanRequests(handler: () => ExitPlanResponse): void {
    this.connection.onRequest(METHOD.exitPlanRequest, () => handler())
  }

  /**
   * Serve the CLI's `gitHubToken.getToken` requests for one registration with `token`. The CLI
   * asks when a session created with the registration starts, and again before the token would
   * expire. Returns the registration id to pass to `create`. The credential never goes into the
   * CLI's environment.
   */
  provideGitHubToken(token: string): string {
    const registrationId = randomUUID()
    type Answer = { kind: 'cancelled' } | { kind: 'token'; accessToken: string; expiresIn: number }
    this.connection.onRequest(METHOD.getToken, (params: unknown): Answer => {
      const request = GitHubTokenRequest.safeParse(params)
      if (!request.success || request.data.registrationId !== registrationId) {
        return { kind: 'cancelled' }
      }
      // GitHub tokens given to a job outlive it; the CLI refreshes when under an hour is left.
      return { kind: 'token', accessToken: token, expiresIn: 6 * 3600 }
    })
    return registrationId
  }
}

const GitHubTokenRequest = z.looseObject({ registrationId: z.string() })
