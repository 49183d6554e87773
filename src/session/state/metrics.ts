/** The metrics slice: token usage per model, from events, `getMetrics` and the shutdown event. */
import type { MetricSource, RunState, Sourced } from './run-state.js'
import { REPORT_LIMITS, clean, zeroUsage } from './run-state.js'
import type { ModelUsage } from '../../reporting/types.js'
import type { SessionEvent } from '../../cli/protocol.js'
import { UsageMetrics, dataOf } from '../../cli/protocol.js'
import { clip } from '../../text/safe-text.js'
export function onUsage(state: RunState, event: SessionEvent): void {
  const data = dataOf(event, 'assistant.usage')
  if (!data) return
  const credits = data.copilotUsage?.totalNanoAiu
  if (credits !== undefined) {
    state.eventCredits.live += credits
    state.eventCredits.priced++
  } else {
    state.eventCredits.unpriced++
  }
  if (data.isByok === true) state.eventCredits.byok = true
  const raw = (event.data ?? {}) as { cost?: unknown; duration?: unknown }
  if (typeof raw.cost === 'number' && Number.isFinite(raw.cost)) state.eventPremium += raw.cost
  if (typeof raw.duration === 'number' && Number.isFinite(raw.duration)) {
    state.eventApiMs += raw.duration
  }
  const name = data.model ?? state.model ?? 'unknown'
  let usage = state.eventModels.get(name)
  if (!usage) {
    if (state.eventModels.size >= REPORT_LIMITS.toolNames) return
    usage = zeroUsage()
    state.eventModels.set(name, usage)
  }
  usage.requests++
  usage.inputTokens += data.inputTokens
  usage.outputTokens += data.outputTokens
  usage.cacheReadTokens += data.cacheReadTokens
  usage.cacheWriteTokens += data.cacheWriteTokens
  if (state.model === null && data.model) state.model = clip(clean(state, data.model), 100)
}

/**
 * `session.usage_record`: the CLI's durable receipt of a call `assistant.usage` already reported;
 * its credits are summed apart (`eventCredits.receipts`), so a CLI that sends only one of the two
 * is still counted, and one that sends both is not counted twice.
 */
export function onUsageRecord(state: RunState, event: SessionEvent): void {
  const usage = dataOf(event, 'session.usage_record')?.usage
  if (!usage) return
  state.eventCredits.receipts += usage.copilotUsage?.totalNanoAiu ?? 0
  if (usage.isByok === true) state.eventCredits.byok = true
}

/** The CLI's own AI-credit limit was reached: it asks the client what to do (the run stops). */
export function onCreditLimit(state: RunState, event: SessionEvent): void {
  const data = dataOf(event, 'session_limits_exhausted.requested')
  if (!data) return
  state.creditLimitReached = {
    ...(data.usedAiCredits === undefined ? {} : { used: data.usedAiCredits }),
    ...(data.maxAiCredits === undefined ? {} : { max: data.maxAiCredits })
  }
}

/** AI credits used so far, in nano-AIU: the CLI's session total when it gave one, else the events'. */
export function nanoAiuUsed(state: RunState): number {
  return state.nanoAiu?.value ?? Math.max(state.eventCredits.live, state.eventCredits.receipts)
}

/**
 * Figures from `session.shutdown` or `session.usage.getMetrics`. They come flat or nested
 * under `accountingSnapshot` (1.0.102 nests them, with premium requests as
 * `totalPremiumRequestCost`); the snapshot wins field by field, the flat shape fills gaps.
 */
export function applyMetrics(state: RunState, data: unknown, source: MetricSource): void {
  if (data === null || typeof data !== 'object') return
  const flat = UsageMetrics.safeParse(data)
  const nested = UsageMetrics.safeParse(
    (data as { accountingSnapshot?: unknown }).accountingSnapshot
  )
  const layers = [nested.success ? nested.data : undefined, flat.success ? flat.data : undefined]
  const first = <T>(pick: (m: UsageMetrics) => T | undefined): T | undefined => {
    for (const layer of layers) {
      const value = layer === undefined ? undefined : pick(layer)
      if (value !== undefined) return value
    }
    return undefined
  }
  const premium = first((m) => m.totalPremiumRequests) ?? first((m) => m.totalPremiumRequestCost)
  const apiMs = first((m) => m.totalApiDurationMs)
  const code = first((m) => m.codeChanges)
  const modelMetrics = first((m) =>
    m.modelMetrics && Object.keys(m.modelMetrics).length > 0 ? m.modelMetrics : undefined
  )
  const currentModel = first((m) => m.currentModel)
  const nanoAiu = first((m) => m.totalNanoAiu)
  const creditsStatus = first((m) => m.aiCreditsStatus)

  const wins = (current: Sourced<unknown> | undefined): boolean =>
    current === undefined || current.source <= source
  if (premium !== undefined && wins(state.premium)) state.premium = { value: premium, source }
  if (nanoAiu !== undefined && wins(state.nanoAiu)) state.nanoAiu = { value: nanoAiu, source }
  if (creditsStatus !== undefined && wins(state.creditsStatus)) {
    state.creditsStatus = { value: creditsStatus, source }
  }
  if (apiMs !== undefined && wins(state.apiMs)) state.apiMs = { value: apiMs, source }
  if (code !== undefined && wins(state.code)) {
    state.code = {
      value: {
        linesAdded: code.linesAdded,
        linesRemoved: code.linesRemoved,
        files: code.filesModified.map((file) => clip(clean(state, file), 1000))
      },
      source
    }
  }
  if (modelMetrics !== undefined && wins(state.models)) {
    // A Map, then fromEntries: model names are untrusted (`__proto__` must stay a plain key).
    const models = new Map<string, ModelUsage>()
    for (const [name, metric] of Object.entries(modelMetrics)) {
      models.set(clip(clean(state, name), 100), {
        requests: metric.requests?.count ?? 0,
        inputTokens: metric.usage?.inputTokens ?? 0,
        outputTokens: metric.usage?.outputTokens ?? 0,
        cacheReadTokens: metric.usage?.cacheReadTokens ?? 0,
        cacheWriteTokens: metric.usage?.cacheWriteTokens ?? 0
      })
    }
    state.models = { value: Object.fromEntries(models), source }
  }
  if (state.model === null && currentModel) state.model = clip(clean(state, currentModel), 100)
}
