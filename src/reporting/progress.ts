/**
 * Live progress in the sticky comment while the agent works: what phase the run is in, how long
 * it has run, what the agent says it is doing, its todo list, questions waiting for a person,
 * and denials so far. Rendered from the run's state (a `Progress` value taken from the fold);
 * published at most once every few seconds, and never at the cost of the run: a failed update
 * is logged and forgotten. `stop()` ends it before the final comment is written.
 */
import type { Phase } from '../session/fold.js'
import {
  codeSpan,
  formatDuration,
  inlineText,
  normalizeSecrets,
  redactNormalized
} from '../text/safe-text.js'
import type { TodoRecord } from './types.js'

export interface Progress {
  startedAt: string
  /** ms since the epoch, when rendered. */
  now: number
  phase: Phase
  intent?: string
  todos: readonly TodoRecord[]
  /** Questions waiting for a person. */
  asks: readonly { id: string; kind: string; subject: string; rule: string }[]
  denied: number
  runUrl?: string
}

const PHASES: Record<Phase, string> = {
  starting: 'starting',
  setup: 'running the setup commands',
  agent: 'the agent is working',
  verify: 'running the verify commands',
  finishing: 'finishing'
}

/** The comment body while the run is in progress (the marker is added by the publisher). */
export function renderProgress(progress: Progress, secrets: readonly string[] = []): string {
  const normalized = normalizeSecrets(secrets)
  const clean = (text: string): string => redactNormalized(text, normalized)
  const started = Date.parse(progress.startedAt)
  const elapsed = Number.isFinite(started) ? formatDuration(progress.now - started) : null
  const head = [`### ⏳ Copilot is working on it · ${PHASES[progress.phase]}`]
  const facts: string[] = []
  if (elapsed !== null) facts.push(`⏱ ${elapsed}`)
  if (progress.denied > 0) {
    facts.push(
      `🚫 ${progress.denied} ${progress.denied === 1 ? 'request' : 'requests'} denied so far`
    )
  }
  if (progress.runUrl && /^https?:\/\/[^\s<>()[\]"'`\\]+$/.test(progress.runUrl)) {
    facts.push(`[workflow run](${progress.runUrl})`)
  }
  const parts = [head.join(''), facts.join(' · ')]
  if (progress.intent) parts.push(`**Now:** ${inlineText(clean(progress.intent), 160)}`)
  for (const ask of progress.asks.slice(0, 5)) {
    // The question itself (a comment of its own) shows the request in full and how to answer.
    parts.push(
      `🙋 **Waiting for a maintainer** to answer question ${codeSpan(ask.id.replace(/[^0-9a-f]/gi, ''), 10)} (see the comment asking it): ${codeSpan(clean(ask.kind), 40)} request, rule ${codeSpan(clean(ask.rule), 100)}`
    )
  }
  if (progress.todos.length > 0) {
    const done = progress.todos.filter((t) => isDone(t.status)).length
    const shown = progress.todos.slice(0, 30)
    const list = shown.map((todo) => {
      const state = isDone(todo.status)
        ? ''
        : todo.status === 'in_progress'
          ? ' _(in progress)_'
          : ` _(${inlineText(clean(todo.status), 30)})_`
      return `- [${isDone(todo.status) ? 'x' : ' '}] ${inlineText(clean(todo.title || todo.id), 200)}${state}`
    })
    if (progress.todos.length > shown.length)
      list.push(`- … ${progress.todos.length - shown.length} more`)
    parts.push(`**Todos** · ${done} of ${progress.todos.length} done\n\n${list.join('\n')}`)
  }
  parts.push('_This comment is updated as the run goes, and replaced by the report at the end._')
  return `${parts.filter((part) => part !== '').join('\n\n')}\n`
}

function isDone(status: string): boolean {
  return status === 'done' || status === 'completed' || status === 'complete'
}

export interface LiveCommentOptions {
  /** Writes the comment (the sticky comment's publisher). */
  publish: (body: string) => Promise<unknown>
  /** The body as of now. */
  render: () => string
  /** At most one update per this many ms (default 5 s). */
  intervalMs?: number
  log: { debug(line: string): void; warning(line: string): void }
  now?: () => number
}

/** Throttled updates of the sticky comment; the latest state always wins. */
export class LiveComment {
  private lastAt = Number.NEGATIVE_INFINITY
  private timer: NodeJS.Timeout | undefined
  private inFlight: Promise<void> = Promise.resolve()
  private stopped = false
  private failures = 0

  constructor(private readonly options: LiveCommentOptions) {}

  /** Something worth showing changed: update now, or when the interval allows. */
  changed(): void {
    if (this.stopped || this.timer !== undefined) return
    const now = (this.options.now ?? Date.now)()
    const wait = Math.max(0, this.lastAt + (this.options.intervalMs ?? 5_000) - now)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.flush()
    }, wait)
  }

  private flush(): void {
    if (this.stopped) return
    this.lastAt = (this.options.now ?? Date.now)()
    const body = this.options.render()
    this.inFlight = this.inFlight.then(() =>
      this.options.publish(body).then(
        () => undefined,
        (error: unknown) => {
          // Progress is a courtesy: the run goes on, the final report is written as usual.
          this.failures++
          const line = `Could not update the progress comment: ${error instanceof Error ? error.message : String(error)}`
          if (this.failures === 1) this.options.log.warning(line)
          else this.options.log.debug(line)
        }
      )
    )
  }

  /** No more updates; resolves when the last one in flight is done. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    this.timer = undefined
    await this.inFlight
  }
}
