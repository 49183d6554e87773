/**
 * The run's one state and the one way to change it: `record(input)` folds the input and tells
 * whoever watches (the wait for the agent; live progress). Created before anything else runs, so
 * a run that fails early still has a state to report.
 */
import { createState, fold, type RunInput, type RunState, type StateOptions } from './fold.js'

export class StateRecorder {
  readonly state: RunState
  private readonly listeners = new Set<(input: RunInput) => void>()

  constructor(options: StateOptions) {
    this.state = createState(options)
  }

  record(input: RunInput): void {
    fold(this.state, input)
    for (const listener of this.listeners) listener(input)
  }

  /** Called after every input is folded; returns the unsubscribe function. */
  onChange(listener: (input: RunInput) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
