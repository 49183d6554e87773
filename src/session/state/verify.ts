/** The setup and verify commands slice: their records, in order, with the repair attempts. */
import type { CommandRecord } from '../../reporting/types.js'
import type { RunState } from './run-state.js'
import { REPORT_LIMITS, clean } from './run-state.js'
import { clip, truncate } from '../../text/safe-text.js'

/** The refused targets a command's record keeps (the proxy keeps as many). */
const REFUSED_TARGETS = 20

export function onCommand(state: RunState, record: CommandRecord): void {
  if (record.phase === 'verify') {
    state.verify.ran++
    if (record.exitCode !== 0 || record.timedOut) state.verify.failed++
  }
  if (state.commands.length >= REPORT_LIMITS.commands) return
  const attempt = record.phase === 'verify' ? state.repairs.length : 0
  const refusedMore =
    (record.refusedMore ?? 0) + Math.max(0, (record.refused?.length ?? 0) - REFUSED_TARGETS)
  state.commands.push({
    phase: record.phase,
    ...(record.confinement === undefined ? {} : { confinement: record.confinement }),
    ...(record.network === undefined ? {} : { network: record.network }),
    ...(record.refused === undefined || record.refused.length === 0
      ? {}
      : {
          refused: record.refused.slice(0, REFUSED_TARGETS).map((r) => ({
            target: clip(clean(state, r.target), 300),
            reason: clip(clean(state, r.reason), 500),
            attempts: r.attempts
          }))
        }),
    ...(refusedMore > 0 ? { refusedMore } : {}),
    ...(attempt > 0 ? { attempt } : {}),
    command: truncate(clean(state, record.command), 2000),
    exitCode: record.exitCode,
    timedOut: record.timedOut,
    durationMs: record.durationMs,
    outputTail: clean(
      state,
      truncate(record.outputTail, REPORT_LIMITS.commandOutput, { keep: 'tail' })
    )
  })
}
