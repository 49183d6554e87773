/**
 * The run's figures, computed once from a Report: its cost (AI credits and dollars, or who bills
 * it), tokens (input with its cache reads and writes, output, total), model and premium requests, the files changed with their lines, the verify
 * result of the last attempt. The comment, the job summary and the step outputs all use these,
 * so no two of them can disagree.
 */
import { aiCreditsOf, dollarsOf } from './credits.js'
import type { CommandRecord, Report } from './types.js'

export interface TokenFigures {
  /** Input + output, over all models: what `max-tokens` counts. */
  total: number
  /** Input tokens as the CLI reports them (cache reads are part of them). */
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}

export interface FileChange {
  /** As the report has it (relative to the workspace for `changes`; may be absolute otherwise). */
  path: string
  change?: 'added' | 'modified' | 'deleted' | 'renamed'
  from?: string
  /** Unknown (undefined) when only the CLI's list of files is known. */
  added?: number
  removed?: number
  binary?: boolean
}

export interface ChangeFigures {
  /** `git`: from the workspace against the starting commit; `cli`: the CLI's own code-change figures. */
  source: 'git' | 'cli'
  files: FileChange[]
  added: number
  removed: number
}

/**
 * What the run cost. `copilot`: Copilot billed it and the CLI reported the AI credits (`partial`:
 * some calls reported no amount, so `credits` is a subtotal). `provider`: a BYOK model, billed by
 * the user's provider (no credits: never shown as 0). `not-reported`: the CLI gave no AI-credit
 * figure (an older CLI, or no model call): premium requests are all there is.
 */
export type CostFigures =
  | { billedBy: 'copilot'; credits: number; dollars: number; partial: boolean }
  | { billedBy: 'provider' }
  | { billedBy: 'not-reported' }

export interface Figures {
  cost: CostFigures
  tokens: TokenFigures
  /** Calls to the model, over all models. */
  modelRequests: number
  /** What Copilot bills (per prompt and model multiplier), as the CLI reports it. */
  premiumRequests: number
  changes: ChangeFigures
  /** The verify commands of the last attempt (after the last repair), in order; empty when none ran. */
  verify: CommandRecord[]
  /** Whether every verify command of the last attempt passed; undefined when none ran. */
  verifyPassed: boolean | undefined
}

/** One sentence on the units shown, said once wherever they are shown. */
export function usageNote(f: Figures): string {
  const requests = 'model requests count every call to the model, tool turns included'
  switch (f.cost.billedBy) {
    case 'copilot':
      return `AI credits are what Copilot bills (1 credit = USD 0.01, metered on tokens); premium requests are the older unit, shown while the CLI reports them; ${requests}`
    case 'provider':
      return `the model is your own provider's (BYOK): it bills the run, not Copilot; ${requests}`
    case 'not-reported':
      return `the Copilot CLI reported no AI credits for this run; premium requests are the older unit it reported; ${requests}`
  }
}

export function figures(report: Report): Figures {
  const models = Object.values(report.metrics.models)
  const sum = (pick: (m: (typeof models)[number]) => number): number =>
    models.reduce((total, m) => total + finite(pick(m)), 0)
  const input = sum((m) => m.inputTokens)
  const output = sum((m) => m.outputTokens)
  const verify = lastVerify(report.commands)
  return {
    cost: costFigures(report),
    tokens: {
      total: input + output,
      input,
      output,
      cacheRead: sum((m) => m.cacheReadTokens),
      cacheWrite: sum((m) => m.cacheWriteTokens)
    },
    modelRequests: sum((m) => m.requests),
    premiumRequests: Math.round(finite(report.metrics.premiumRequests) * 100) / 100,
    changes: changeFigures(report),
    verify,
    verifyPassed: verify.length === 0 ? undefined : verify.every(passed)
  }
}

/** From `report.metrics.aiCredits` (reports from before it: `not-reported`). */
function costFigures(report: Report): CostFigures {
  const record = report.metrics.aiCredits
  if (record === undefined) return { billedBy: 'not-reported' }
  if (record.byok) return { billedBy: 'provider' }
  if (record.status === 'complete' || record.status === 'partial') {
    const credits = aiCreditsOf(record.nanoAiu)
    return {
      billedBy: 'copilot',
      credits,
      dollars: dollarsOf(credits),
      partial: record.status === 'partial'
    }
  }
  return { billedBy: 'not-reported' }
}

export function passed(c: CommandRecord): boolean {
  return c.exitCode === 0 && !c.timedOut
}

/** The verify commands of the last attempt: the highest `attempt` (absent: the first run). */
function lastVerify(commands: CommandRecord[]): CommandRecord[] {
  const verify = commands.filter((c) => c.phase === 'verify')
  const last = verify.reduce((max, c) => Math.max(max, c.attempt ?? 0), 0)
  return verify.filter((c) => (c.attempt ?? 0) === last)
}

/** From `report.changes` (git) when it has them, else the CLI's own figures. */
function changeFigures(report: Report): ChangeFigures {
  const changes = report.changes
  if (changes !== undefined && !(changes.error !== undefined && changes.files.length === 0)) {
    const files: FileChange[] = changes.files.map((f) => ({
      path: f.path,
      change: f.change,
      ...(f.from === undefined ? {} : { from: f.from }),
      added: finite(f.added),
      removed: finite(f.removed),
      ...(f.binary === true ? { binary: true } : {})
    }))
    return {
      source: 'git',
      files,
      added: files.reduce((n, f) => n + (f.added ?? 0), 0),
      removed: files.reduce((n, f) => n + (f.removed ?? 0), 0)
    }
  }
  return {
    source: 'cli',
    files: report.metrics.filesModified.map((path) => ({ path })),
    added: finite(report.metrics.linesAdded),
    removed: finite(report.metrics.linesRemoved)
  }
}

export function finite(n: number): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0
}
