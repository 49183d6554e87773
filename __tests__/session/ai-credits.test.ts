/**
 * AI credits first (issue 31, point 5): the CLI's `totalNanoAiu` and `aiCreditsStatus` folded into
 * the report, shown as credits with dollars beside them in the comment, the job summary and the
 * `ai-credits` output; under BYOK "billed by your provider", never a 0 as the cost; max-ai-credits
 * stops the session when the credits reach it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SessionEvent } from '../../src/cli/protocol.js'
import { aiCreditsOf, formatCredits, formatDollars } from '../../src/reporting/credits.js'
import { figures } from '../../src/reporting/figures.js'
import { actionOutputs } from '../../src/reporting/outputs.js'
import { renderComment, renderSummary } from '../../src/reporting/render.js'
import { toReport } from '../../src/reporting/report.js'
import {
  createState,
  fold,
  settle,
  stopReason,
  type RunState,
  type StateOptions
} from '../../src/session/fold.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
/** A `session.shutdown` of CLI 1.0.102's shape (its session-events schema), GitHub-billed. */
const SHUTDOWN: unknown = JSON.parse(
  fs.readFileSync(path.join(ROOT, 'test-support/fixtures/shutdown-ai-credits.json'), 'utf8')
)
const END = '2026-11-22T10:03:12.000Z'

let seq = 0
function ev(type: string, data: unknown): SessionEvent {
  return { id: `e${++seq}`, type, data, timestamp: '2026-11-22T10:01:00.000Z' }
}

function state(extra: Partial<StateOptions> = {}): RunState {
  return createState({
    startedAt: '2026-11-22T10:00:00.000Z',
    policySource: '.github/copilot-policy.yml',
    ...extra
  })
}

const usage = (nanoAiu: number | undefined, extra: Record<string, unknown> = {}): SessionEvent =>
  ev('assistant.usage', {
    model: 'claude-sonnet-4.5',
    inputTokens: 1000,
    outputTokens: 100,
    ...(nanoAiu === undefined ? {} : { copilotUsage: { totalNanoAiu: nanoAiu } }),
    ...extra
  })

function finish(s: RunState): ReturnType<typeof toReport> {
  fold(s, { type: 'ended', ending: { kind: 'idle' } })
  return toReport(s, { endedAt: END, settled: { status: 'completed' } })
}

const render = (report: ReturnType<typeof toReport>): string =>
  renderComment(report, { marker: '<!-- copilot-autopilot:default -->' })

describe('AI credits from the CLI', () => {
  it('folds a shutdown with a non-zero totalNanoAiu into credits and dollars, in every place', () => {
    const s = state({ model: 'claude-sonnet-4.5' })
    fold(s, { type: 'prompt-sent' })
    fold(s, { type: 'event', event: usage(4_000_000_000) })
    fold(s, { type: 'event', event: ev('session.shutdown', SHUTDOWN) })
    const report = finish(s)
    // the shutdown's total wins over the events' (1 AI credit = 1e9 nano-AIU, as the CLI counts)
    expect(report.metrics.aiCredits).toEqual({
      nanoAiu: 12_345_678_901,
      status: 'complete',
      byok: false
    })
    expect(figures(report).cost).toEqual({
      billedBy: 'copilot',
      credits: 12.345678901,
      dollars: 12.345678901 * 0.01,
      partial: false
    })
    expect(report.metrics.premiumRequests).toBe(2)
    const comment = render(report)
    expect(comment).toContain('12.35 AI credits ($0.12) · 2 premium requests · 6 model requests')
    expect(comment).toContain('AI credits are what Copilot bills (1 credit = USD 0.01')
    const summary = renderSummary(report)
    expect(summary).toContain('12.35 AI credits ($0.12)')
    const outputs = actionOutputs(report)
    expect(outputs['ai-credits']).toBe('12.345679')
    expect(outputs['premium-requests']).toBe('2')
  })

  it('under BYOK says the provider bills the run: no 0 credits, no 0 premium requests, ai-credits empty', () => {
    const s = state({ byok: true })
    fold(s, { type: 'prompt-sent' })
    fold(s, {
      type: 'event',
      event: usage(undefined, { aiCreditsStatus: 'unavailable', isByok: true, cost: 0 })
    })
    fold(s, {
      type: 'event',
      event: ev('session.shutdown', {
        shutdownType: 'routine',
        totalPremiumRequests: 0,
        totalNanoAiu: 0,
        modelMetrics: { m: { requests: { count: 1, cost: 0 }, usage: { inputTokens: 1000 } } },
        accountingSnapshot: { aiCreditsStatus: 'unavailable', totalNanoAiu: 0 }
      })
    })
    const report = finish(s)
    expect(report.metrics.aiCredits).toEqual({ nanoAiu: 0, status: 'unavailable', byok: true })
    const comment = render(report)
    expect(comment).toContain('billed by your provider (BYOK) · 1 model request')
    expect(comment).not.toMatch(/\b0 (AI credits|premium requests)/)
    expect(renderSummary(report)).not.toMatch(/\b0 (AI credits|premium requests)/)
    expect(actionOutputs(report)['ai-credits']).toBe('')
  })

  it('knows BYOK from the usage events alone, and says a GitHub run without amounts is not reported', () => {
    const byok = state()
    fold(byok, { type: 'event', event: usage(undefined, { isByok: true }) })
    expect(figures(finish(byok)).cost).toEqual({ billedBy: 'provider' })

    const unpriced = state()
    fold(unpriced, { type: 'event', event: usage(undefined) })
    const report = finish(unpriced)
    expect(report.metrics.aiCredits?.status).toBe('unavailable')
    expect(figures(report).cost).toEqual({ billedBy: 'not-reported' })
    expect(actionOutputs(report)['ai-credits']).toBe('')
  })

  it('sums the calls once when both assistant.usage and session.usage_record report them; partial when some did not', () => {
    const s = state()
    fold(s, { type: 'event', event: usage(2_000_000_000) })
    fold(s, {
      type: 'event',
      event: ev('session.usage_record', {
        usage: { copilotUsage: { totalNanoAiu: 2_000_000_000 } }
      })
    })
    fold(s, { type: 'event', event: usage(1_000_000_000) })
    fold(s, {
      type: 'event',
      event: ev('session.usage_record', {
        usage: { copilotUsage: { totalNanoAiu: 1_000_000_000 } }
      })
    })
    fold(s, { type: 'event', event: usage(undefined) })
    const report = finish(s)
    expect(report.metrics.aiCredits).toEqual({
      nanoAiu: 3_000_000_000,
      status: 'partial',
      byok: false
    })
    expect(render(report)).toContain('at least 3 AI credits ($0.03), some calls reported no amount')
  })

  it('reads reports written before AI credits as before: premium requests', () => {
    const s = state()
    fold(s, { type: 'event', event: ev('session.shutdown', { totalPremiumRequests: 3 }) })
    const report = finish(s)
    delete report.metrics.aiCredits
    expect(figures(report).cost).toEqual({ billedBy: 'not-reported' })
    expect(render(report)).toContain('3 premium requests')
  })
})

describe('max-ai-credits', () => {
  it('stops the session when the credits the events report reach it, and says so', () => {
    const s = state({ maxAiCredits: 30 })
    fold(s, { type: 'prompt-sent' })
    fold(s, { type: 'event', event: usage(20_000_000_000) })
    expect(stopReason(s)).toBeUndefined()
    fold(s, { type: 'event', event: usage(12_500_000_000) })
    const ending = stopReason(s)
    expect(ending).toEqual({ kind: 'budget', used: 32.5, limit: 30, input: 'max-ai-credits' })
    fold(s, { type: 'ended', ending: ending! })
    const settled = settle(s)
    expect(settled).toEqual({
      status: 'budget-exceeded',
      error: {
        message:
          'The agent used 32.5 AI credits, reaching max-ai-credits (30): the session was stopped.',
        type: 'max-ai-credits'
      }
    })
    const report = toReport(s, { endedAt: END })
    const comment = render(report)
    expect(comment).toContain('stopped at `max-ai-credits` 30')
    expect(comment).toContain('Raise `max-ai-credits`')
    expect(comment).toContain('32.5 AI credits ($0.33)')
  })

  it("stops at the CLI's own limit prompt (session_limits_exhausted.requested), which would wait forever", () => {
    const s = state({ maxAiCredits: 30 })
    fold(s, { type: 'prompt-sent' })
    fold(s, {
      type: 'event',
      event: ev('session_limits_exhausted.requested', {
        requestId: 'r1',
        usedAiCredits: 30.2,
        maxAiCredits: 30
      })
    })
    expect(stopReason(s)).toEqual({
      kind: 'budget',
      used: 30.2,
      limit: 30,
      input: 'max-ai-credits'
    })
  })

  it('does not stop without the input, nor before the prompt', () => {
    const s = state()
    fold(s, { type: 'prompt-sent' })
    fold(s, { type: 'event', event: usage(900_000_000_000) })
    expect(stopReason(s)).toBeUndefined()
    const early = state({ maxAiCredits: 30 })
    fold(early, { type: 'event', event: usage(900_000_000_000) })
    expect(stopReason(early)).toBeUndefined()
  })
})

describe('credit figures', () => {
  it('converts and formats', () => {
    expect(aiCreditsOf(1_000_000_000)).toBe(1)
    expect(aiCreditsOf(-5)).toBe(0)
    expect(aiCreditsOf(Number.NaN)).toBe(0)
    expect(formatCredits(0.0042)).toBe('0.0042')
    expect(formatCredits(1234.5)).toBe('1,234.5')
    expect(formatDollars(0.000042)).toBe('$0.000042')
    expect(formatDollars(12.3456)).toBe('$12.35')
  })
})
