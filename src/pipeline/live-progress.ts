/**
 * The sticky comment follows the run while it goes on: todos, phase, questions out, denials so
 * far, from the run's state (reporting/progress.ts renders it).
 */
import { log } from '../log.js'
import { LiveComment, renderProgress } from '../reporting/progress.js'
import type { CommentPublisher } from '../reporting/publish-comment.js'
import type { StateRecorder } from '../session/recorder.js'

export interface LiveProgress {
  live: LiveComment | undefined
  /** Stops following the state (the comment itself stops with `live.stop()`). */
  unsubscribe: () => void
}

export function followProgress(
  comments: CommentPublisher | undefined,
  recorder: StateRecorder,
  startedAt: string,
  runUrl: string | undefined,
  secrets: readonly string[]
): LiveProgress {
  const live = comments
    ? new LiveComment({
        publish: async (body) => {
          const result = await comments.publish(body)
          if (result.fallback) throw new Error(result.fallback)
        },
        render: () => renderProgress(progressOf(recorder, startedAt, runUrl), secrets),
        log
      })
    : undefined
  const unsubscribe = recorder.onChange((input) => {
    if (input.type === 'todos' || input.type === 'phase' || input.type === 'ask') live?.changed()
    if (input.type === 'decision' && input.approval) live?.changed()
  })
  return { live, unsubscribe }
}

/** What the progress comment shows, from the run's state. */
function progressOf(recorder: StateRecorder, startedAt: string, runUrl: string | undefined) {
  const { state } = recorder
  let denied = 0
  for (const counts of state.permissionCounts.values()) denied += counts.deny
  return {
    startedAt,
    now: Date.now(),
    phase: state.runPhase,
    ...(state.intent ? { intent: state.intent } : {}),
    todos: state.todos,
    asks: [...state.asks.values()],
    denied,
    ...(runUrl ? { runUrl } : {})
  }
}
