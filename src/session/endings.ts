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
  /** While true (a person is being asked), neither timeout runs. */
  paused?: () => boolean
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
      clearInterval(watchdog)
      signal.removeEventListener('abort', onAbort)
      unsubscribe()
      resolve(ending)
    }
    // Time counts only while no one is being asked: the run's clock and the silence both stop.
    let last = now()
    let activeMs = 0
    let resumedAt = 0
    const watchdog = setInterval(
      () => {
        const at = now()
        if (options.paused?.()) {
          resumedAt = at
        } else {
          activeMs += at - last
          const quietMs = at - Math.max(options.lastEventAt(), resumedAt)
          if (activeMs >= timeoutMs) done({ kind: 'timeout', limitMs: timeoutMs })
          else if (state.phase === 'working' && quietMs >= idleTimeoutMs)
            done({ kind: 'hang', quietMs })
        }
        last = at
      },
      Math.min(1_000, Math.max(50, Math.min(idleTimeoutMs, timeoutMs) / 8))
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
