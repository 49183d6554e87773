/**
 * An in-memory `SessionApi` for unit tests of the session driver: it records every call, and
 * plays a script of session events when the prompt is sent. Shell commands really run (bash, in
 * the same way the CLI would run the wrapper the action gives it), so exit codes and output are
 * real. The real CLI is exercised by the e2e suite; this fake is for what is hard to make the
 * real one do on cue (a hang, a refused call, a session error at a given moment).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type {
  CreateSessionResult,
  ModelInfo,
  PermissionAnswer,
  QuotaResult,
  PlanReadResult,
  SessionEvent,
  Todo,
  UsageMetrics
} from '../src/cli/protocol.js'
import type {
  AuthStatus,
  CallOptions,
  CreateSessionOptions,
  ExitPlanResponse,
  GitHubCallOptions,
  SessionApi,
  SessionMode,
  ShellSignal
} from '../src/cli/session-api.js'

/** One step of a script: emit an event, or wait (ms), or wait for an answer to a request. */
export type ScriptStep =
  | { event: SessionEvent }
  | { wait: number }
  | { awaitPermission: string }
  | { awaitExitPlan: string }

export interface FakeCall {
  method: keyof SessionApi
  args: unknown[]
}

export class FakeSession implements SessionApi {
  readonly calls: FakeCall[] = []
  readonly permissionAnswers = new Map<string, PermissionAnswer>()
  readonly exitPlanAnswers = new Map<string, ExitPlanResponse>()
  todos: Todo[] = []
  plan: PlanReadResult = { exists: false }
  metricsResult: UsageMetrics = {}
  /** What `models.list` answers (an Error: it fails). */
  models: ModelInfo[] | Error = []
  /** What `account.getQuota` answers (an Error: it fails). */
  quotaResult: QuotaResult | Error = { quotaSnapshots: {} }
  closed = false
  private readonly listeners = new Set<(event: SessionEvent) => void>()
  private exitPlanHandler: (() => ExitPlanResponse) | undefined
  private readonly answered = new Map<string, () => void>()
  private readonly shells = new Map<string, ChildProcess>()
  private aborted = false
  /** Resolves when the script has played to its end (or was aborted). */
  played: Promise<void> = Promise.resolve()

  constructor(private readonly script: ScriptStep[] = []) {}

  get isClosed(): boolean {
    return this.closed
  }

  private log(method: keyof SessionApi, ...args: unknown[]): void {
    this.calls.push({ method, args })
  }

  methods(): string[] {
    return this.calls.map((c) => c.method)
  }

  emit(event: SessionEvent): void {
    for (const listener of this.listeners) listener(event)
  }

  create(options: CreateSessionOptions): Promise<CreateSessionResult> {
    this.log('create', options)
    return Promise.resolve({ sessionId: 'fake-session' })
  }

  authStatus(sessionId: string): Promise<AuthStatus> {
    this.log('authStatus', sessionId)
    return Promise.resolve({ isAuthenticated: true, login: 'octocat' })
  }

  setMode(sessionId: string, mode: SessionMode): Promise<void> {
    this.log('setMode', sessionId, mode)
    return Promise.resolve()
  }

  send(sessionId: string, prompt: string): Promise<void> {
    this.log('send', sessionId, prompt)
    this.played = this.play()
    return Promise.resolve()
  }

  startFleet(sessionId: string, prompt: string): Promise<void> {
    this.log('startFleet', sessionId, prompt)
    this.played = this.play()
    return Promise.resolve()
  }

  listModels(options: GitHubCallOptions): Promise<ModelInfo[]> {
    this.log('listModels', options)
    return this.models instanceof Error ? Promise.reject(this.models) : Promise.resolve(this.models)
  }

  quota(options: GitHubCallOptions): Promise<QuotaResult> {
    this.log('quota', options)
    return this.quotaResult instanceof Error
      ? Promise.reject(this.quotaResult)
      : Promise.resolve(this.quotaResult)
  }

  private async play(): Promise<void> {
    for (const step of this.script) {
      if (this.aborted) return
      if ('event' in step) this.emit(step.event)
      else if ('wait' in step) await sleep(step.wait)
      else {
        const id = 'awaitPermission' in step ? step.awaitPermission : step.awaitExitPlan
        const done =
          'awaitPermission' in step ? this.permissionAnswers.has(id) : this.exitPlanAnswers.has(id)
        if (!done) await new Promise<void>((resolve) => this.answered.set(id, resolve))
      }
    }
  }

  abort(sessionId: string, options?: CallOptions): Promise<void> {
    this.log('abort', sessionId, options)
    this.aborted = true
    return Promise.resolve()
  }

  shutdown(sessionId: string, options?: CallOptions): Promise<void> {
    this.log('shutdown', sessionId, options)
    return Promise.resolve()
  }

  readPlan(sessionId: string): Promise<PlanReadResult> {
    this.log('readPlan', sessionId)
    return Promise.resolve(this.plan)
  }

  readTodos(sessionId: string): Promise<Todo[]> {
    this.log('readTodos', sessionId)
    return Promise.resolve(this.todos)
  }

  metrics(sessionId: string): Promise<UsageMetrics> {
    this.log('metrics', sessionId)
    return Promise.resolve(this.metricsResult)
  }

  answerPermission(sessionId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    this.log('answerPermission', sessionId, requestId, answer)
    this.permissionAnswers.set(requestId, answer)
    this.answered.get(requestId)?.()
    return Promise.resolve()
  }

  answerExitPlan(sessionId: string, requestId: string, response: ExitPlanResponse): Promise<void> {
    this.log('answerExitPlan', sessionId, requestId, response)
    this.exitPlanAnswers.set(requestId, response)
    this.answered.get(requestId)?.()
    return Promise.resolve()
  }

  /** What the CLI's own `exitPlanMode.request` would get as an answer. */
  requestExitPlan(): ExitPlanResponse | undefined {
    return this.exitPlanHandler?.()
  }

  shellExec(
    sessionId: string,
    command: { command: string; cwd: string; timeoutMs: number }
  ): Promise<{ processId: string }> {
    this.log('shellExec', sessionId, command)
    const child = spawn('bash', ['-c', command.command], {
      cwd: command.cwd,
      stdio: 'ignore',
      detached: true
    })
    const processId = String(child.pid)
    this.shells.set(processId, child)
    return Promise.resolve({ processId })
  }

  shellKill(sessionId: string, processId: string, signal: ShellSignal): Promise<void> {
    this.log('shellKill', sessionId, processId, signal)
    this.shells.get(processId)?.kill(signal)
    return Promise.resolve()
  }

  onEvent(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  onShellExit(): () => void {
    return () => undefined
  }

  serveExitPlanRequests(handler: () => ExitPlanResponse): void {
    this.exitPlanHandler = handler
  }
}

/** A script's pause; it never keeps the test process alive. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}
