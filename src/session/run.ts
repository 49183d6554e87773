/**
 * Drives one autopilot run of a Copilot CLI session: create it, set the mode, run the setup
 * commands, send the prompt, wait until the agent is done (or fails, hangs, times out, is
 * cancelled), run the verify commands, read back plan, todos and metrics, shut down.
 *
 * `Run` only orchestrates. What happened is read once, by the fold (fold.ts), through the
 * recorder; permissions, leaving plan mode, todos, waiting and commands are their own modules.
 */
import type { CreateSessionResult } from '../cli/protocol.js'
import type { CommandRecord } from '../reporting/types.js'
import type {
  CreateSessionOptions,
  ExternalToolDefinition,
  ExternalToolResult,
  SessionApi
} from '../cli/session-api.js'
import { UserError, messageOf } from '../errors.js'
import type { Policy } from '../policy/index.js'
import type { WorkspaceAudit } from './audit.js'
import { AUTH_FIX, checkAuth } from './auth.js'
import { premiumQuota, verifyModel } from './account.js'
import { runCommands, type CommandsConfinement, type CommandsOptions } from './setup-verify.js'
import { waitForEnd } from './endings.js'
import { dataOf } from '../cli/protocol.js'
import type { Ending, RunInput } from './fold.js'
import type { Logger } from './log.js'
import { Permissions, type Asker } from './permission-requests.js'
import { PlanExit } from './plan-exit.js'
import type { StateRecorder } from './recorder.js'
import { describeRepositoryConfig } from './repository-config.js'
import { Todos } from './todos.js'

export type { Logger } from './log.js'

export interface RunOptions {
  api: SessionApi
  policy: Policy
  recorder: StateRecorder
  log: Logger
  prompt: string
  /**
   * The `session.create` options, built once (session-options.ts). What the run itself reads of
   * them (the working directory, plan first, the provider) it reads here.
   */
  session: CreateSessionOptions
  /** The custom agent's file, relative to the working directory (for the report). */
  agentFile?: string
  /** Verify and repair: how often a failing verify goes back to the agent. */
  verifyRetries?: number
  /**
   * The GitHub credential itself (no BYOK provider): `models.list` checks the `model` input with
   * it before the session, `account.getQuota` reads the premium quota after it (both sent over
   * the pipe, never put in the CLI's environment).
   */
  gitHubToken?: string
  /** Send the prompt in the CLI's fleet mode (`session.fleet.start`): parallel subagents. */
  fleet?: boolean
  /**
   * The workspace audit, its snapshot taken before the session: checked after the agent's work
   * (and each repair), taken again after the setup and verify commands (the workflow's work).
   */
  audit?: WorkspaceAudit
  timeoutMs: number
  idleTimeoutMs: number
  /** Aborted when the runner cancels the job. */
  signal: AbortSignal
  /** Resolves, with a description, if the CLI process exits during the run. */
  cliExited: Promise<string>
  setupCommands: readonly string[]
  verifyCommands: readonly string[]
  commandTimeoutMs: number
  /** Scratch directory for command wrappers. */
  scratchDir: string
  /** Process groups a command kill must never signal (the CLI's). */
  protectedGroups: number[]
  /** The wall around the setup and verify commands, and the run's process mark. */
  commandConfinement?: CommandsConfinement
  redact: (text: string) => string
  /** Who answers the policy's `ask` rules; without one, an ask is denied with `noAskerReason`. */
  asker?: Asker
  noAskerReason?: string
  /** Called once the workspace is on record, right before the prompt (the agent's changes start here). */
  onAgentStart?: () => Promise<void>
  /** What answers the calls of the tools offered in `session.tools`. */
  externalTools?: ExternalTools
}

/** Client-provided tools: offered at `session.create`, their calls answered by `call`. */
export interface ExternalTools {
  definitions: ExternalToolDefinition[]
  /** The answer to one call of one of the tools (the policy approved it already). */
  call(toolName: string, args: unknown): ExternalToolResult
}

const FINALIZE_TIMEOUT_MS = 15_000

/** Output lines of a failing verify command sent back to the agent. */
const REPAIR_OUTPUT_LINES = 60

/** The prompt that sends failing verify commands (the latest attempt's) back to the agent. */
export function repairPrompt(verify: readonly CommandRecord[]): string {
  const attempt = Math.max(0, ...verify.map((c) => c.attempt ?? 0))
  const failed = verify.filter(
    (c) => (c.attempt ?? 0) === attempt && (c.exitCode !== 0 || c.timedOut)
  )
  const parts = failed.map((c) => {
    const result = c.timedOut ? 'timed out' : `failed with exit code ${c.exitCode ?? 'none'}`
    const tail = c.outputTail.split('\n').slice(-REPAIR_OUTPUT_LINES).join('\n')
    const fence = '`'.repeat(Math.max(3, ...[...tail.matchAll(/`+/g)].map((m) => m[0].length + 1)))
    return `The verify command \`${c.command}\` ${result}. The end of its output:\n\n${fence}\n${tail}\n${fence}`
  })
  return [
    'You called task_complete, but the checks the workflow runs afterwards failed.',
    ...parts,
    'Find and fix the cause, check your fix, then call task_complete again.'
  ].join('\n\n')
}

export class SessionRun {
  private sessionId: string | null = null
  private lastEventAt = Date.now()
  private readonly pending = new Set<Promise<unknown>>()
  private readonly permissions: Permissions
  private readonly planExit: PlanExit
  private readonly todos: Todos
  /** Ends the questions to a person still open when the agent's turn ends (one per turn). */
  private questions = new AbortController()

  constructor(private readonly options: RunOptions) {
    const { api, log } = options
    const record = (input: RunInput): void => options.recorder.record(input)
    const track = (work: Promise<unknown>): void => this.track(work)
    this.permissions = new Permissions({
      api,
      policy: options.policy,
      log,
      record,
      track,
      ...(options.asker ? { asker: options.asker } : {}),
      ...(options.noAskerReason ? { noAskerReason: options.noAskerReason } : {}),
      signal: () => AbortSignal.any([options.signal, this.questions.signal])
    })
    this.planExit = new PlanExit({
      api,
      log,
      planFirst: options.session.requestExitPlanMode,
      sessionId: () => this.sessionId,
      track
    })
    this.todos = new Todos({ api, log, record, track })
  }

  /**
   * Runs the session to its end and records how it ended (`ended`); the status is settled from
   * the state. Throws only what the run cannot report as an ending (bad credential, a CLI that
   * refuses to create a session): the caller records those.
   */
  async execute(): Promise<Ending> {
    const { api, recorder } = this.options
    const unsubscribe = api.onEvent((event) => {
      this.lastEventAt = Date.now()
      recorder.record({ type: 'event', event, receivedAt: this.lastEventAt })
      this.react(event)
    })
    api.serveExitPlanRequests(() => this.planExit.onRequest())
    try {
      const ending = await this.drive()
      recorder.record({ type: 'ended', ending })
      return ending
    } finally {
      unsubscribe()
      this.questions.abort()
      this.planExit.dispose()
      await Promise.allSettled([...this.pending])
    }
  }

  private async drive(): Promise<Ending> {
    const { api, log, recorder, signal } = this.options
    const { gitHubToken, session } = this.options
    const { model } = session
    if (model && gitHubToken && !session.provider) {
      await verifyModel(api, model, { gitHubToken }, log)
    }
    const created = await this.createSession()
    const sessionId = created.sessionId
    this.sessionId = sessionId
    recorder.record({ type: 'session-created', sessionId })
    log.info(`Session ${sessionId} created`)
    log.info(describeRepositoryConfig(this.options.session.repositoryConfig))
    if (!this.options.session.provider) {
      const login = await checkAuth(api, sessionId)
      log.info(`Signed in to Copilot${login ? ` as ${login}` : ''}`)
    }
    await api.setMode(sessionId, this.options.session.requestExitPlanMode ? 'plan' : 'autopilot')
    if (signal.aborted) return { kind: 'cancelled', during: 'setup' }

    if (this.options.setupCommands.length > 0) recorder.record({ type: 'phase', phase: 'setup' })
    const setupPassed = await runCommands(
      sessionId,
      'setup',
      this.options.setupCommands,
      this.commandOptions()
    )
    if (signal.aborted) return await this.close({ kind: 'cancelled', during: 'setup' })
    if (!setupPassed) return await this.close({ kind: 'setup-failed' })
    if (this.options.setupCommands.length > 0) await this.options.audit?.rebaseline()

    // the workspace as it was is on record before the agent may change anything
    await this.options.audit?.ready()
    await this.options.onAgentStart?.()
    this.lastEventAt = Date.now()
    recorder.record({ type: 'phase', phase: 'agent' })
    recorder.record({ type: 'prompt-sent' })
    this.agentWorked = true
    if (this.options.fleet) {
      await api.startFleet(sessionId, this.options.prompt)
      log.info('Prompt sent in fleet mode; the agent dispatches parallel subagents in autopilot')
    } else {
      await api.send(sessionId, this.options.prompt)
      log.info('Prompt sent; the agent is working in autopilot')
    }

    this.deadline = Date.now() + this.options.timeoutMs
    const ending = await waitForEnd({
      state: recorder.state,
      onChange: (listener) => recorder.onChange(listener),
      lastEventAt: () => this.lastEventAt,
      timeoutMs: this.options.timeoutMs,
      idleTimeoutMs: this.options.idleTimeoutMs,
      // Waiting for a person is not the agent hanging, nor its time.
      paused: () => recorder.state.asks.size > 0,
      signal,
      cliExited: this.options.cliExited
    })
    return await this.close(ending)
  }

  /** What the session's own events ask of the action. */
  private react(event: Parameters<Parameters<SessionApi['onEvent']>[0]>[0]): void {
    const sessionId = this.sessionId
    switch (event.type) {
      case 'permission.requested': {
        const data = dataOf(event, 'permission.requested')
        if (!sessionId) return
        if (data) this.permissions.answer(sessionId, data.requestId, data.permissionRequest)
        else this.permissions.refuseUnreadable(sessionId, event.data)
        return
      }
      case 'exit_plan_mode.requested': {
        const data = dataOf(event, 'exit_plan_mode.requested')
        if (data) this.planExit.onEvent(data.requestId)
        return
      }
      case 'session.mode_changed':
        this.planExit.onModeChanged(dataOf(event, 'session.mode_changed')?.newMode)
        return
      case 'external_tool.requested': {
        const data = dataOf(event, 'external_tool.requested')
        if (sessionId && data) this.answerTool(sessionId, data)
        return
      }
      case 'session.todos_changed':
        if (sessionId) this.todos.changed(sessionId)
        return
      case 'session.error': {
        const error = this.options.recorder.state.sessionError
        if (error)
          this.options.log.warning(`Session error (${error.type ?? 'unknown'}): ${error.message}`)
        return
      }
      case 'sandbox.decision': {
        const failure = this.options.recorder.state.sandboxFailure
        if (failure && !this.sandboxWarned) {
          this.sandboxWarned = true
          this.options.log.warning(failure)
        }
        return
      }
      default:
        return
    }
  }

  /** Answers a call of a tool the action gave the agent (every call is answered, once). */
  private answerTool(
    sessionId: string,
    data: { requestId: string; toolName: string; arguments?: unknown }
  ): void {
    const tools = this.options.externalTools
    const offered = this.options.session.tools?.some((d) => d.name === data.toolName) ?? false
    const result: ExternalToolResult =
      offered && tools
        ? tools.call(data.toolName, data.arguments)
        : {
            textResultForLlm: `No tool named ${data.toolName} is offered in this run.`,
            resultType: 'failure',
            error: 'unknown tool'
          }
    this.track(
      this.options.api.answerToolCall(sessionId, data.requestId, result).catch((error: unknown) => {
        this.options.log.warning(`Could not answer the ${data.toolName} call: ${messageOf(error)}`)
      })
    )
  }

  private sandboxWarned = false
  /** When timeout-minutes runs out for the agent (set when the prompt is sent). */
  private deadline = Number.POSITIVE_INFINITY

  private async createSession(): Promise<CreateSessionResult> {
    const { api, session, agentFile } = this.options
    try {
      const { mcpServers, agent } = session
      this.options.recorder.record({
        type: 'session-options',
        mcpServers: Object.entries(mcpServers ?? {}).map(([name, s]) => ({ name, type: s.type })),
        ...(agent ? { agent: { name: agent.name, file: agentFile ?? '' } } : {})
      })
      return await api.create(session)
    } catch (error) {
      // The CLI validates the token while it creates the session.
      if (
        session.gitHubTokenRegistration &&
        /token validation|authenticat|unauthori[sz]ed|401|403/i.test(messageOf(error))
      ) {
        throw new UserError(
          `The Copilot CLI rejected the credential it was given (${messageOf(error)}). ${AUTH_FIX}`,
          { cause: error }
        )
      }
      throw error
    }
  }

  /**
   * After the wait: abort an agent that did not finish, run the verify commands after one that
   * did, then read back plan, todos and metrics and shut the session down.
   */
  private async close(ending: Ending): Promise<Ending> {
    const { log } = this.options
    // The agent is done: a question still open can no longer let it do anything.
    this.questions.abort()
    switch (ending.kind) {
      case 'cli-exit':
        await this.checkWorkspace()
        return ending
      case 'cancelled':
        if (ending.during === 'agent') {
          log.warning('The run was cancelled; aborting the session')
          await this.abort()
        }
        break
      case 'timeout':
      case 'hang':
        log.warning(
          ending.kind === 'timeout'
            ? `The run reached timeout-minutes; aborting the session`
            : `The agent went silent; treating it as a hang and aborting the session`
        )
        await this.abort()
        break
      case 'session-error':
      case 'sandbox-failed':
        await this.abort()
        break
      case 'budget':
        log.warning(
          ending.input === 'max-ai-credits'
            ? `The agent used ${ending.used} AI credits, reaching max-ai-credits (${ending.limit}); stopping the session`
            : `The agent used ${ending.used} tokens, reaching max-tokens (${ending.limit}); stopping the session`
        )
        await this.abort()
        break
      case 'idle':
        // the verify commands, then, where they failed, the agent again; each turn audited
        ending = await this.verifyAndRepair()
        // An ending of a repair turn (not of the verify commands) is closed like any other.
        if (
          ending.kind !== 'idle' &&
          !(ending.kind === 'cancelled' && ending.during === 'verify')
        ) {
          return await this.close(ending)
        }
        break
      default:
        break
    }
    if (ending.kind !== 'idle') await this.checkWorkspace()
    this.options.recorder.record({ type: 'phase', phase: 'finishing' })
    await this.collect()
    return ending
  }

  /**
   * The verify commands, also after an incomplete run (what they say is evidence either way).
   * With verify-retries, a failure after the agent's task_complete goes back to the agent as a
   * new prompt (the failing command and the end of its output), and the commands run again when
   * it is done, up to verify-retries times. Returns how the last wait for the agent ended.
   */
  private async verifyAndRepair(): Promise<Ending> {
    const { api, recorder, signal, verifyCommands } = this.options
    const sessionId = this.sessionId ?? ''
    const retries = this.options.verifyRetries ?? 0
    for (let attempt = 0; ; attempt++) {
      await this.checkWorkspace()
      if (verifyCommands.length > 0) recorder.record({ type: 'phase', phase: 'verify' })
      const passed = await runCommands(sessionId, 'verify', verifyCommands, this.commandOptions())
      // What the verify commands leave is the workflow's, but a process the agent left running
      // may write meanwhile: only what an explicit rule forbids counts for this window.
      if (verifyCommands.length > 0) await this.checkWorkspace({ protectedOnly: true })
      if (signal.aborted) return { kind: 'cancelled', during: 'verify' }
      const state = recorder.state
      if (passed || attempt >= retries || state.completion?.state !== 'accepted' || api.isClosed) {
        return { kind: 'idle' }
      }
      const prompt = repairPrompt(state.commands.filter((c) => c.phase === 'verify'))
      this.options.log.info(
        `A verify command failed: sending it back to the agent (repair ${attempt + 1} of ${retries})`
      )
      this.agentWorked = true
      this.questions = new AbortController()
      recorder.record({ type: 'repair', attempt: attempt + 1 })
      recorder.record({ type: 'phase', phase: 'agent' })
      this.lastEventAt = Date.now()
      recorder.record({ type: 'prompt-sent' })
      await api.send(sessionId, prompt)
      // timeout-minutes bounds the agent's work over all its turns, repairs included.
      const ending = await waitForEnd({
        state: recorder.state,
        onChange: (listener) => recorder.onChange(listener),
        lastEventAt: () => this.lastEventAt,
        timeoutMs: Math.max(1, this.deadline - Date.now()),
        idleTimeoutMs: this.options.idleTimeoutMs,
        paused: () => recorder.state.asks.size > 0,
        signal,
        cliExited: this.options.cliExited
      })
      this.questions.abort()
      if (ending.kind === 'timeout') return { kind: 'timeout', limitMs: this.options.timeoutMs }
      if (ending.kind !== 'idle') return ending
    }
  }

  /** Whether the agent worked since the workspace was last audited. */
  private agentWorked = false

  /**
   * The workspace audit after the agent's work: what the write rules forbid is put back, and
   * recorded (the run then ends `policy-violation`). Once per agent turn.
   */
  private async checkWorkspace(options: { protectedOnly?: boolean } = {}): Promise<void> {
    const { audit, log } = this.options
    if (audit === undefined || (!this.agentWorked && options.protectedOnly !== true)) return
    this.agentWorked = false
    try {
      await audit.check(options)
    } catch (error) {
      log.warning(`The workspace audit failed: ${messageOf(error)}`)
      throw error
    }
  }

  private async abort(): Promise<void> {
    if (!this.sessionId || this.options.api.isClosed) return
    try {
      await this.options.api.abort(this.sessionId, { timeoutMs: 5_000 })
    } catch (error) {
      this.options.log.debug(`session.abort failed: ${messageOf(error)}`)
    }
  }

  /** Read the plan, the todos and the metrics, then shut the session down (emits its metrics). */
  private async collect(): Promise<void> {
    const { api, recorder, log } = this.options
    if (!this.sessionId || api.isClosed) return
    const sessionId = this.sessionId
    const timeoutMs = FINALIZE_TIMEOUT_MS
    const attempt = async (what: string, work: () => Promise<void>): Promise<void> => {
      try {
        await work()
      } catch (error) {
        log.debug(`${what} failed: ${messageOf(error)}`)
      }
    }
    // Independent reads: asked for together.
    await Promise.all([
      attempt('Reading the plan', async () => {
        const plan = await api.readPlan(sessionId, { timeoutMs })
        recorder.record({
          type: 'plan',
          content: plan.exists ? (plan.content ?? null) : null,
          path: plan.path ?? null
        })
      }),
      this.todos.read(sessionId, timeoutMs), // logs its own failure
      attempt('Reading the usage metrics', async () => {
        recorder.record({ type: 'metrics', metrics: await api.metrics(sessionId, { timeoutMs }) })
      }),
      this.readQuota(attempt, timeoutMs)
    ])
    await attempt('Shutting the session down', () => api.shutdown(sessionId, { timeoutMs }))
  }

  /** The account's premium quota after the run, with the GitHub credential only. */
  private async readQuota(
    attempt: (what: string, work: () => Promise<void>) => Promise<void>,
    timeoutMs: number
  ): Promise<void> {
    const { api, gitHubToken, recorder } = this.options
    if (!gitHubToken || this.options.session.provider) return
    await attempt('Reading the premium quota', async () => {
      const quota = premiumQuota(await api.quota({ gitHubToken, timeoutMs }))
      if (quota) recorder.record({ type: 'quota', quota })
    })
  }

  private commandOptions(): CommandsOptions {
    return {
      api: this.options.api,
      log: this.options.log,
      record: (input) => this.options.recorder.record(input),
      workingDirectory: this.options.session.workingDirectory,
      scratchDir: this.options.scratchDir,
      timeoutMs: this.options.commandTimeoutMs,
      signal: this.options.signal,
      protectedGroups: this.options.protectedGroups,
      redact: this.options.redact,
      ...(this.options.commandConfinement ? { confinement: this.options.commandConfinement } : {})
    }
  }

  private track(promise: Promise<unknown>): void {
    this.pending.add(promise)
    void promise.finally(() => this.pending.delete(promise))
  }
}
