/**
 * The agent's todo list, read with `session.plan.readSqlTodos` whenever the CLI says it changed.
 * Reads never overlap: a change during a read leads to one more read after it.
 */
import type { SessionApi } from '../cli/session-api.js'
import { messageOf } from '../errors.js'
import type { RunInput } from './fold.js'
import type { Logger } from './log.js'

export interface TodosOptions {
  api: SessionApi
  log: Logger
  record: (input: RunInput) => void
  track: (work: Promise<unknown>) => void
}

export class Todos {
  private reading = false
  private dirty = false

  constructor(private readonly options: TodosOptions) {}

  /** The list changed: read it (now, or after the read in flight). */
  changed(sessionId: string): void {
    if (this.reading) {
      this.dirty = true
      return
    }
    this.reading = true
    this.options.track(
      this.read(sessionId).finally(() => {
        this.reading = false
        if (this.dirty) {
          this.dirty = false
          this.changed(sessionId)
        }
      })
    )
  }

  /** Read the list once; a failure is logged, never thrown. */
  async read(sessionId: string, timeoutMs = 10_000): Promise<void> {
    try {
      const todos = await this.options.api.readTodos(sessionId, { timeoutMs })
      this.options.record({ type: 'todos', todos })
    } catch (error) {
      this.options.log.debug(`Reading the todo list failed: ${messageOf(error)}`)
    }
  }
}
