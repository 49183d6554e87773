/**
 * AI credits: the unit Copilot bills in since 2026-06-01 (GitHub's changelog: 1 AI credit = USD
 * 0.01, metered on tokens). The Copilot CLI reports them as `totalNanoAiu` (in
 * `session.shutdown`, `session.usage.getMetrics`, per model, and per call as
 * `assistant.usage.copilotUsage.totalNanoAiu`).
 *
 * The conversion 1 AI credit = 1,000,000,000 nano-AIU is what CLI 1.0.102 itself uses, measured:
 * its runtime's `responseLimitsNanoAiuToAiCredits(1e9)` returns 1 (and `(123456789)` 0.123456789),
 * the figure it shows as "AIC" and compares with `sessionLimits.maxAiCredits`; its schema
 * (`session-events.schema.json`) describes `consumedNanoAiu` as "AI credits this run consumed, in
 * nano-AIU". Pure: no imports, used by the fold's budget check and every renderer.
 */

/** Nano-AIU in one AI credit. */
export const NANO_AIU_PER_CREDIT = 1_000_000_000

/** US dollars per AI credit (GitHub's changelog, 2026-06-01). */
export const USD_PER_CREDIT = 0.01

/** AI credits from nano-AIU (0 for anything that is not a finite, non-negative number). */
export function aiCreditsOf(nanoAiu: number): number {
  return Number.isFinite(nanoAiu) && nanoAiu > 0 ? nanoAiu / NANO_AIU_PER_CREDIT : 0
}

/** Dollars for a number of AI credits. */
export function dollarsOf(credits: number): number {
  return credits * USD_PER_CREDIT
}

/**
 * A number of AI credits for people: two decimals (`12.35`), more for small amounts so that a
 * non-zero figure never reads as 0 (`0.0042`), grouped (`1,234.5`).
 */
export function formatCredits(credits: number): string {
  if (!Number.isFinite(credits) || credits === 0) return '0'
  const digits = credits >= 1 ? 2 : Math.min(6, 1 - Math.floor(Math.log10(credits)) + 1)
  return credits.toLocaleString('en-US', { maximumFractionDigits: digits })
}

/** Dollars for people: `$0.12`, `$0.0042` for less than a cent, `$1,234.50`. */
export function formatDollars(dollars: number): string {
  if (!Number.isFinite(dollars) || dollars === 0) return '$0'
  if (dollars < 0.01) return `$${formatCredits(dollars)}`
  return `$${dollars.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
}
