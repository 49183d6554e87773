/**
 * Drives one autopilot run of a Copilot CLI session: create, set the mode, answer every permission
 * request from the policy, send the prompt, and wait until the agent finishes, fails, hangs, times
 * out or is cancelled. Everything the run observes goes to a RunObserver (the report builder).
 */
import type { Connection } from '../cli/connection.js'
import {
  CreateSessionResult,
  PlanReadResult,
  ReadTodosResult,
  SendResult,
  UsageMetrics,
  dataOf,
  type PermissionAnswer,
  type PermissionRequest,
  type SessionEvent,
  type Todo
} from '../cli/protocol.js'
import { UserError, messageOf } from '../errors.js'
import type { Decision, Policy } from '../policy/types.js'
import { feedbackFor } from '../policy/index.js'
import type { CommandRecord, RunStatus } from '../reporting/types.js'
import { z } from 'zod'
import { AUTH_FIX, checkAuth } from './auth.js'
import type { Provider } from '../settings.js'
import { runShellCommand } from './shell.js'
import type { SandboxConfig } from '../policy/sandbox.js'
import { sandboxEvidence } from './sandbox.js'
import { describeRepositoryConfig, repositoryConfigOptions } from './repository-config.js'

export interface Logger {
  info(line: string): void
  warning(line: string): void
  debug(line: string): void
  /** A collapsible group in the log. */
  group<T>(name: string, work: () => Promise<T>): Promise<T>
}

/** What the driver tells the report. The ReportBuilder implements it. */
export interface RunObserver {
  onEvent(event: SessionEvent): void
  onDecision(requestId: string, request: PermissionRequest, decision: Decision): void
  onCommand(record: CommandRecord): void
  setSessionId(sessionId: string): void
  setPlan(content: string | null): void
  setTodos(todos: Todo[]): void
  setMetrics(metrics: UsageMetrics): void
}

export interface RunOptions {
  connection: Connection
  policy: Policy
  observer: RunObserver
  log: Logger
  prompt: string
  workingDirectory: string
  model?: string
  /** A BYOK provider; without one the GitHub sign-in is checked before prompting. */
  provider?: Provider
  /** Registration id of the connection's GitHub token provider (the credential never goes into the CLI's environment). */
  tokenRegistration?: string
  /** Start in plan mode; the action approves the agent's exit from plan mode into autopilot. */
  planFirst: boolean
  /**
   * The OS sandbox for the agent's shell commands (`sandboxConfig`), when the run uses it.
   * `required`: the run stops as failed if the CLI reports that it did not engage.
   */
  sandbox?: { config: SandboxConfig; required: boolean }
  /** Let the CLI load the working tree's own configuration (hooks, MCP servers, skills, ...). */
  trustedConfig: boolean
  maxAutopilotContinues: number
  timeoutMs: number
  idleTimeoutMs: number
  /** Aborted when the runner cancels the job. */
  signal: AbortSignal
  /** Resolves, with a description, if the CLI process exits during the run. */
  cliExited: Promise<string>
  setupCommands: string[]
  verifyCommands: string[]
  commandTimeoutMs: number
  /** Scratch directory for command wrappers. */
  scratchDir: string
  /** Process groups a command kill must never signal (the CLI's). */
  protectedGroups: number[]
  redact: (text: string) => string
}

export interface RunOutcome {
  status: RunStatus
  sessionId: string | null
  summary: string | null
  error?: { message: string; type?: string }
  /** Whether every verify command passed; undefined when none ran. */
  verifyPassed?: boolean
}

/** Why waiting for the agent ended. */
type Ending =
  | { kind: 'idle' }
  | { kind: 'error' }
  | { kind: 'timeout' }
  | { kind: 'hang'; quietMs: number }
  | { kind: 'cancelled' }
  | { kind: 'cli-exit'; message: string }

const FINALIZE_TIMEOUT_MS = 15_000

export class Run {
  private sessionId: string | null = null
  private summary: string | null = null
  private taskCompleted = false
  private autopilotStopReason: string | undefined
  private sessionError: { message: string; type?: string } | undefined
  private readonly answered = new Set<string>()
  private readonly pending = new Set<Promise<unknown>>()
  private lastEventAt = Date.now()
  private busy = false
  private idleSignal: (() => void) | undefined
  private errorSignal: (() => void) | undefined
  private todosReading = false
  private todosDirty = false

  constructor(private readonly options: RunOptions) {}

  /** The session's id once session.create answered. */
  get createdSessionId(): string | null {
    return this.sessionId
  }

  async execute(): Promise<RunOutcome> {
    const { connection, log } = this.options
    const unsubscribe = connection.onEvent((_sessionId, event) => this.onEvent(event))
    // Leaving plan mode: the CLI both emits `exit_plan_mode.requested` and sends the request
    // `exitPlanMode.request`. The request is authoritative (the CLI awaits its answer); the event
    // is answered only when no request follows it (CLI versions without the request).
    connection.onRequest('exitPlanMode.request', () => this.approvePlanExit('request'))
    try {
      const created = await this.createSession()
      this.sessionId = created.sessionId
      this.options.observer.setSessionId(created.sessionId)
      log.info(`Session ${created.sessionId} created`)
      log.info(describeRepositoryConfig(this.options.trustedConfig))
      if (!this.options.provider) {
        const login = await checkAuth(connection, created.sessionId)
        log.info(`Signed in to Copilot${login ? ` as ${login}` : ''}`)
      }

      const mode = this.options.planFirst ? 'plan' : 'autopilot'
      await connection.request(
        'session.mode.set',
        { sessionId: created.sessionId, mode },
        z.unknown()
      )
      if (this.options.signal.aborted) return this.outcome('cancelled')

      for (const command of this.options.setupCommands) {
        const record = await this.runCommand('setup', command)
        if (this.options.signal.aborted) {
          await this.collect()
          return this.outcome('cancelled', {
            message: 'The workflow run was cancelled during the setup commands.',
            type: 'cancelled'
          })
        }
        if (record.exitCode !== 0) {
          await this.collect()
          return this.outcome('failed', {
            message: `Setup command \`${record.command}\` ${record.timedOut ? `timed out after ${Math.round(this.options.commandTimeoutMs / 1000)} s` : `failed with exit code ${record.exitCode ?? 'none'}`}; the agent was not started.`,
            type: 'setup-command'
          })
        }
      }

      this.busy = true
      this.lastEventAt = Date.now()
      await connection.request(
        'session.send',
        { sessionId: created.sessionId, prompt: this.options.prompt },
        SendResult
      )
      log.info('Prompt sent; the agent is working in autopilot')

      const ending = await this.waitForEnd()
      return await this.finish(ending)
    } finally {
      unsubscribe()
      // A plan approval still waiting for its fallback must not fire after the run.
      clearTimeout(this.exitPlanTimer)
      await Promise.allSettled([...this.pending])
    }
  }

  private async createSession(): Promise<CreateSessionResult> {
    const { connection, provider, tokenRegistration } = this.options
    try {
      return await connection.request(
        'session.create',
        {
          ...(this.options.model ? { model: this.options.model } : {}),
          workingDirectory: this.options.workingDirectory,
          requestPermission: true,
          streaming: false,
          autopilot: { maxContinues: this.options.maxAutopilotContinues },
          ...(this.options.planFirst ? { requestExitPlanMode: true } : {}),
          ...(this.options.sandbox ? { sandboxConfig: this.options.sandbox.config } : {}),
          ...repositoryConfigOptions(this.options.trustedConfig),
          ...(provider ? { provider } : {}),
          ...(tokenRegistration ? { gitHubTokenProviderRegistrationId: tokenRegistration } : {})
        },
        CreateSessionResult
      )
    } catch (error) {
      // The CLI validates the token while it creates the session.
      if (
        tokenRegistration &&
        /token validation|authenticat|unauthori[sz]ed|401|403/i.test(messageOf(error))
      ) {
        throw new UserError(
          `The Copilot CLI rejected the credential it was given (${messageOf(error)}). ${AUTH_FIX}`,
          {
            cause: error
          }
        )
      }
      throw error
    }
  }

  // ------------------------------------------------------------------------------------------
  // Events

  private onEvent(event: SessionEvent): void {
    this.lastEventAt = Date.now()
    this.options.observer.onEvent(event)
    switch (event.type) {
      case 'permission.requested': {
        const data = dataOf(event, 'permission.requested')
        if (data) this.answerPermission(data.requestId, data.permissionRequest)
        else
          this.options.log.warning(
            'A permission request could not be read; it stays unanswered and the run will time out.'
          )
        break
      }
      case 'session.task_complete': {
        const data = dataOf(event, 'session.task_complete')
        this.taskCompleted = data?.success !== false
        this.summary = data?.summary ?? this.summary
        break
      }
      case 'session.autopilot_stopped':
        this.autopilotStopReason = dataOf(event, 'session.autopilot_stopped')?.reason
        break
      case 'session.error': {
        const data = dataOf(event, 'session.error')
        const status = data?.statusCode === undefined ? '' : ` (HTTP ${data.statusCode})`
        this.sessionError = {
          message: `${data?.message ?? 'the session reported an error'}${status}`,
          ...(data?.errorType ? { type: data.errorType } : {})
        }
        this.options.log.warning(
          `Session error (${data?.errorType ?? 'unknown'}): ${this.sessionError.message}`
        )
        // The CLI has already retried; some versions let autopilot prompt again and again after
        // an error. The run ends here, the same way on every version.
        this.errorSignal?.()
        break
      }
      case 'exit_plan_mode.requested': {
        const data = dataOf(event, 'exit_plan_mode.requested')
        if (data) {
          // The report keeps data.planContent itself (observer.onEvent above).
          this.exitPlanRequestId = data.requestId
          this.exitPlanTimer = setTimeout(() => void this.approvePlanExit('event'), 1500)
        }
        break
      }
      case 'session.mode_changed':
        // Back in plan mode: the next request to leave it gets its own answer.
        if (dataOf(event, 'session.mode_changed')?.newMode === 'plan') this.exitPlanAnswered = false
        break
      case 'session.todos_changed':
        this.refreshTodos()
        break
      case 'sandbox.decision':
        this.onSandboxDecision(event)
        break
      case 'session.idle':
        this.busy = false
        this.idleSignal?.()
        break
      default:
        break
    }
  }

  private sandboxFailure: { message: string; type: string } | undefined

  /** The CLI says the sandbox did not engage: said loudly; a `required` sandbox ends the run. */
  private onSandboxDecision(event: SessionEvent): void {
    const evidence = sandboxEvidence(event)
    if (evidence === undefined || evidence.engaged || this.sandboxFailure) return
    this.sandboxFailure = {
      message: `The OS sandbox did not engage: ${evidence.reason}. The agent's shell commands fail closed without it.`,
      type: 'sandbox'
    }
    this.options.log.warning(this.sandboxFailure.message)
    if (this.options.sandbox?.required) {
      this.sandboxFailure.message +=
        ' The policy requires the sandbox (sandbox.mode: required): the run is stopped.'
      this.errorSignal?.()
    }
  }

  private answerPermission(requestId: string, request: PermissionRequest): void {
    if (this.answered.has(requestId)) return
    this.answered.add(requestId)
    let decision: Decision
    try {
      decision = this.options.policy.decide(request)
    } catch (error) {
      // The policy engine failing is a bug; it must still never allow.
      decision = {
        decision: 'deny',
        rule: 'policy-error',
        reason: messageOf(error),
        kind: request.kind,
        subject: request.kind
      }
    }
    this.options.observer.onDecision(requestId, request, decision)
    const verdict = decision.decision === 'allow' ? 'allowed' : 'DENIED'
    this.options.log.info(
      `Permission ${verdict} by rule "${decision.rule}": ${decision.kind} ${decision.subject}`
    )
    const result: PermissionAnswer =
      decision.decision === 'allow'
        ? { kind: 'approve-once' }
        : { kind: 'reject', feedback: feedbackFor(decision) }
    this.track(
      this.options.connection
        .request(
          'session.permissions.handlePendingPermissionRequest',
          { sessionId: this.sessionId, requestId, result },
          z.unknown()
        )
        .catch((error: unknown) =>
          this.options.log.warning(
            `Answering permission request ${requestId} failed: ${messageOf(error)}`
          )
        )
    )
  }

  private refreshTodos(): void {
    if (!this.sessionId) return
    if (this.todosReading) {
      this.todosDirty = true
      return
    }
    this.todosReading = true
    this.track(
      this.readTodos().finally(() => {
        this.todosReading = false
        if (this.todosDirty) {
          this.todosDirty = false
          this.refreshTodos()
        }
      })
    )
  }

  private async readTodos(): Promise<void> {
    try {
      const todos = await this.options.connection.request(
        'session.plan.readSqlTodos',
        { sessionId: this.sessionId },
        ReadTodosResult,
        10_000
      )
      this.options.observer.setTodos(todos.rows)
    } catch (error) {
      this.options.log.debug(`Reading the todo list failed: ${messageOf(error)}`)
    }
  }

  private exitPlanRequestId: string | undefined
  private exitPlanTimer: NodeJS.Timeout | undefined
  private exitPlanAnswered = false

  /** Approve the agent's plan and continue in autopilot; edits still go through the policy. */
  private approvePlanExit(channel: 'request' | 'event'): {
    approved: boolean
    selectedAction?: string
    autoApproveEdits: boolean
  } {
    clearTimeout(this.exitPlanTimer)
    const response = this.options.planFirst
      ? { approved: true, selectedAction: 'autopilot', autoApproveEdits: false }
      : { approved: false, autoApproveEdits: false }
    if (this.exitPlanAnswered) return response
    this.exitPlanAnswered = true
    this.options.log.info(
      `Plan ${response.approved ? 'approved' : 'not requested'}: continuing in autopilot`
    )
    if (channel === 'event' && this.exitPlanRequestId) {
      this.track(
        this.options.connection
          .request(
            'session.ui.handlePendingExitPlanMode',
            { sessionId: this.sessionId, requestId: this.exitPlanRequestId, response },
            z.unknown()
          )
          .catch((error: unknown) =>
            this.options.log.warning(`Approving the plan failed: ${messageOf(error)}`)
          )
      )
    }
    return response
  }

  private track(promise: Promise<unknown>): void {
    this.pending.add(promise)
    void promise.finally(() => this.pending.delete(promise))
  }

  // ------------------------------------------------------------------------------------------
  // Waiting and finishing

  private waitForEnd(): Promise<Ending> {
    const { signal, timeoutMs, idleTimeoutMs } = this.options
    return new Promise<Ending>((resolve) => {
      if (signal.aborted) return resolve({ kind: 'cancelled' })
      if (!this.busy) return resolve({ kind: 'idle' })
      const timeout = setTimeout(() => done({ kind: 'timeout' }), timeoutMs)
      const watchdog = setInterval(
        () => {
          const quietMs = Date.now() - this.lastEventAt
          if (this.busy && quietMs >= idleTimeoutMs) done({ kind: 'hang', quietMs })
        },
        Math.min(5_000, Math.max(100, idleTimeoutMs / 4))
      )
      const done = (ending: Ending): void => {
        clearTimeout(timeout)
        clearInterval(watchdog)
        signal.removeEventListener('abort', onAbort)
        this.idleSignal = undefined
        this.errorSignal = undefined
        resolve(ending)
      }
      const onAbort = (): void => done({ kind: 'cancelled' })
      signal.addEventListener('abort', onAbort)
      this.idleSignal = () => done({ kind: 'idle' })
      this.errorSignal = () => done({ kind: 'error' })
      void this.options.cliExited.then((message) => done({ kind: 'cli-exit', message }))
    })
  }

  private async finish(ending: Ending): Promise<RunOutcome> {
    const { log } = this.options
    switch (ending.kind) {
      case 'cli-exit':
        return this.outcome('failed', { message: ending.message, type: 'cli-exit' })
      case 'cancelled':
        log.warning('The run was cancelled; aborting the session')
        await this.abort()
        await this.collect()
        return this.outcome('cancelled', {
          message: 'The workflow run was cancelled.',
          type: 'cancelled'
        })
      case 'timeout':
        log.warning(
          `The run reached timeout-minutes (${Math.round(this.options.timeoutMs / 60_000)} min); aborting the session`
        )
        await this.abort()
        await this.collect()
        return this.outcome('timed-out', {
          message: `The agent did not finish within ${formatMinutes(this.options.timeoutMs)} (timeout-minutes).`,
          type: 'timeout'
        })
      case 'hang':
        log.warning(
          `No event from the agent for ${formatMinutes(ending.quietMs)}; treating it as a hang`
        )
        await this.abort()
        await this.collect()
        return this.outcome('timed-out', {
          message: `The agent went silent: no event for ${formatMinutes(ending.quietMs)} while it was working (idle-timeout-minutes). The model endpoint may be hanging.`,
          type: 'hang'
        })
      case 'error':
        await this.abort()
        await this.collect()
        return this.outcome(
          'failed',
          this.options.sandbox?.required
            ? (this.sandboxFailure ?? this.sessionError)
            : this.sessionError
        )
      case 'idle':
        await this.verify()
        await this.collect()
        if (this.taskCompleted) return this.outcome('completed')
        if (this.sessionError) return this.outcome('failed', this.sessionError)
        return this.outcome('incomplete', {
          message:
            this.autopilotStopReason === 'cap_reached'
              ? `The agent stopped without calling task_complete after the maximum number of autopilot continues (${this.options.maxAutopilotContinues}).`
              : `The agent stopped without calling task_complete${this.autopilotStopReason ? ` (autopilot stopped: ${this.autopilotStopReason})` : ''}.`,
          type: this.autopilotStopReason ?? 'stopped'
        })
    }
  }

  private async abort(): Promise<void> {
    if (!this.sessionId || this.options.connection.isClosed) return
    try {
      await this.options.connection.request(
        'session.abort',
        { sessionId: this.sessionId },
        z.unknown(),
        5_000
      )
    } catch (error) {
      this.options.log.debug(`session.abort failed: ${messageOf(error)}`)
    }
  }

  /** Read the plan, the todos and the metrics, then shut the session down (emits its metrics). */
  private async collect(): Promise<void> {
    const { connection, observer, log } = this.options
    if (!this.sessionId || connection.isClosed) return
    const sessionId = this.sessionId
    const attempt = async <T>(what: string, work: () => Promise<T>): Promise<void> => {
      try {
        await work()
      } catch (error) {
        log.debug(`${what} failed: ${messageOf(error)}`)
      }
    }
    // Independent reads: asked for together.
    await Promise.all([
      attempt('Reading the plan', async () => {
        const plan = await connection.request(
          'session.plan.read',
          { sessionId },
          PlanReadResult,
          FINALIZE_TIMEOUT_MS
        )
        observer.setPlan(plan.exists ? (plan.content ?? null) : null)
      }),
      this.readTodos(), // logs its own failure
      attempt('Reading the usage metrics', async () => {
        observer.setMetrics(
          await connection.request(
            'session.usage.getMetrics',
            { sessionId },
            UsageMetrics,
            FINALIZE_TIMEOUT_MS
          )
        )
      })
    ])
    await attempt('Shutting the session down', () =>
      connection.request('session.shutdown', { sessionId }, z.unknown(), FINALIZE_TIMEOUT_MS)
    )
  }

  private verifyPassed: boolean | undefined

  private async verify(): Promise<void> {
    for (const command of this.options.verifyCommands) {
      if (this.options.signal.aborted || this.options.connection.isClosed) return
      const record = await this.runCommand('verify', command)
      this.verifyPassed = (this.verifyPassed ?? true) && record.exitCode === 0
    }
  }

  private runCommand(phase: 'setup' | 'verify', command: string): Promise<CommandRecord> {
    const { log, redact } = this.options
    return log.group(`${phase}: ${redact(command)}`, async () => {
      const record = await runShellCommand(
        { phase, command },
        {
          connection: this.options.connection,
          sessionId: this.sessionId ?? '',
          workingDirectory: this.options.workingDirectory,
          scratchDir: this.options.scratchDir,
          timeoutMs: this.options.commandTimeoutMs,
          signal: this.options.signal,
          onLine: (line) => log.info(line),
          redact,
          protectedGroups: this.options.protectedGroups
        }
      )
      this.options.observer.onCommand(record)
      const result = record.timedOut ? 'timed out' : `exit code ${record.exitCode ?? 'none'}`
      const line = `${phase} command ${result} after ${(record.durationMs / 1000).toFixed(1)} s: ${record.command}`
      if (record.exitCode === 0) log.info(line)
      else log.warning(line)
      return record
    })
  }

  private outcome(status: RunStatus, error?: { message: string; type?: string }): RunOutcome {
    return {
      status,
      sessionId: this.sessionId,
      summary: this.summary,
      ...(error ? { error } : {}),
      ...(this.verifyPassed !== undefined ? { verifyPassed: this.verifyPassed } : {})
    }
  }
}

function formatMinutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round((ms / 60_000) * 10) / 10} min` : `${Math.round(ms / 1000)} s`
}
