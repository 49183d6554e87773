/**
 * A run as one link of the chain of runs that continue each other: its id, how it ended, the
 * limit that stopped it, what it used. Pure: from the report.
 */
import { figures } from '../reporting/figures.js'
import type { Report } from '../reporting/types.js'
import type { ChainLink } from './format.js'

/** The limit that stopped a run, as the comment says it: `` `max-ai-credits` 300 ``. */
export function stoppedAt(report: Report): string | undefined {
  const message = report.error?.message ?? ''
  const type = report.error?.type ?? ''
  const limit = (input: string, value: string | undefined): string =>
    `\`${input}\`${value === undefined ? '' : ` ${value}`}`
  if (type === 'max-ai-credits') {
    return limit('max-ai-credits', /max-ai-credits \(([\d,.]+)\)/.exec(message)?.[1])
  }
  if (type === 'max-tokens')
    return limit('max-tokens', /max-tokens \(([\d,.]+)\)/.exec(message)?.[1])
  if (type === 'hang') return limit('idle-timeout-minutes', undefined)
  if (type === 'timeout') {
    return limit('timeout-minutes', /within (.+?) \(timeout-minutes\)/.exec(message)?.[1])
  }
  if (report.stopReason === 'cap_reached') return limit('max-autopilot-continues', undefined)
  return undefined
}

/** This run as a link of the chain. */
export function linkOf(report: Report, runId: string): ChainLink {
  const f = figures(report)
  const at = stoppedAt(report)
  const reason = report.error?.message.split('\n', 1)[0]
  return {
    runId: runId.slice(0, 40),
    status: report.status,
    ...(at === undefined ? {} : { stoppedAt: at.slice(0, 200) }),
    ...(reason === undefined || reason === '' ? {} : { reason: reason.slice(0, 2000) }),
    ...(f.cost.billedBy === 'copilot' ? { aiCredits: f.cost.credits } : {}),
    tokens: f.tokens.total
  }
}
