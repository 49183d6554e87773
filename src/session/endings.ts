/**
 * Waiting for the agent to finish. The state (fold.ts) says when the session is done
 * (`stopReason`); this module adds what only time and the outside world can say: the run's time
 * limit, a silent agent (no event for idle-timeout), the workflow's cancellation and the CLI
 * exiting. The first of these ends the wait.
 */
import { stopReason, type Ending, type RunState } from './fold.js'

export interface WaitOptions {
  state: RunState
  /** Subscribe to "the state changed"; returns the unsubscribe function. */
  onChange: (listener: () => void) => () => void
  /** Receive time (ms) of the last CLI event. */
  lastEventAt: () => number
  timeoutMs: number
  idleTimeoutMs: number
  signal: AbortSignal
  /** Resolves, with a description, if the CLI process exits. */
  cliExited: Promise<string>
  now?: () => number
}

export function waitForEnd(options: WaitOptions): Promise<Ending> {
  const { signal, timeoutMs, idleTimeoutMs, state } = options
  const now = options.now ?? Date.now
  return new Promise<Ending>((resolve) => {
    if (signal.aborted) return resolve({ kind: 'cancelled', during: 'agent' })
    const already = stopReason(state)
    if (already) return resolve(already)
    let settled = false
    const done = (ending: Ending): void => {
      if (settled) return
      settled = true
      clearTimeout(timeout)
      clearInterval(watchdog)
      signal.removeEventListener('abort', onAbort)
      unsubscribe()
      resolve(ending)
    }
    const timeout = setTimeout(() => done({ kind: 'timeout', limitMs: timeoutMs }), timeoutMs)
    const watchdog = setInterval(
      () => {
        const quietMs = now() - options.lastEventAt()
        if (state.phase === 'working' && quietMs >= idleTimeoutMs) done({ kind: 'hang', quietMs })
      },
      Math.min(5_000, Math.max(100, idleTimeoutMs / 4))
    )
    const onAbort = (): void => done({ kind: 'cancelled', during: 'agent' })
    signal.addEventListener('abort', onAbort)
    const unsubscribe = options.onChange(() => {
      const reason = stopReason(state)
      if (reason) done(reason)
    })
    void options.cliExited.then((message) => done({ kind: 'cli-exit', message }))
  })
}
