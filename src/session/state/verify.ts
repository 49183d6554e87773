/** The setup and verify commands slice: their records, in order, with the repair attempts. */
import type { CommandRecord } from '../../reporting/types.js'
import type { RunState } from './run-state.js'
import { REPORT_LIMITS, clean } from './run-state.js'
import { truncate } from '../../text/safe-text.js'
export function onCommand(state: RunState, record: CommandRecord): void {
  if (record.phase === 'verify') {
    state.verify.ran++
    if (record.exitCode !== 0 || record.timedOut) state.verify.failed++
  }
  if (state.commands.length >= REPORT_LIMITS.commands) return
  const attempt = record.phase === 'verify' ? state.repairs.length : 0
  state.commands.push({
    phase: record.phase,
    ...(record.confinement === undefined ? {} : { confinement: record.confinement }),
    ...(record.network === undefined ? {} : { network: record.network }),
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
