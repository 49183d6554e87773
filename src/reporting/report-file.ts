/**
 * A report file read back (`mode: rollup`): the JSON the `report-path` output names, from another
 * job or another version of the action. It is validated with the schema below, which holds what
 * a roll-up reads, field by field; other fields are ignored (a later version within the same
 * `version` only adds fields). A file that is missing, unreadable, not JSON, not a report, or of a
 * newer version is a `ReportProblem` that says so: never an exception.
 */
import fs from 'node:fs'
import { z } from 'zod'
import { RUN_STATUSES, REPORT_VERSION, type Report } from './types.js'
import { aiCreditsOf } from './credits.js'

/** The largest report file read (a report is bounded well below this: REPORT_LIMITS). */
export const REPORT_FILE_MAX_BYTES = 32 * 1024 * 1024

const Command = z.object({
  phase: z.enum(['setup', 'verify']),
  attempt: z.number().int().positive().optional(),
  command: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  outputTail: z.string()
})

const ModelUsage = z.object({
  requests: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number()
})

/**
 * AI credits, as the report carries them (`metrics.aiCredits`, see AiCreditsRecord): nano-AIU, the
 * CLI's status, and whether a BYOK provider bills the run. Reports from before AI credits were
 * reported have none: that is not an error.
 */
const Credits = z.looseObject({
  nanoAiu: z.number(),
  status: z.string(),
  byok: z.boolean().optional()
})

/** What a roll-up reads of a report (see the Report type for what each field means). */
export const RollupReportSchema = z.looseObject({
  version: z.number().int().positive(),
  status: z.enum(RUN_STATUSES),
  summary: z.string().nullable().optional(),
  startedAt: z.string(),
  endedAt: z.string().nullable().optional(),
  durationMs: z.number().nullable().optional(),
  error: z.object({ message: z.string(), type: z.string().optional() }).optional(),
  stopReason: z.string().optional(),
  policy: z.object({
    source: z.string(),
    builtIn: z.boolean(),
    issues: z
      .array(
        z.object({
          file: z.string(),
          line: z.number(),
          column: z.number(),
          message: z.string(),
          fix: z.string()
        })
      )
      .optional()
  }),
  commands: z.array(Command),
  repairs: z.array(z.object({ attempt: z.number(), failed: z.array(z.string()) })).optional(),
  metrics: z.looseObject({
    premiumRequests: z.number(),
    apiDurationMs: z.number().optional(),
    linesAdded: z.number(),
    linesRemoved: z.number(),
    filesModified: z.array(z.string()),
    models: z.record(z.string(), ModelUsage),
    aiCredits: Credits.optional()
  }),
  changes: z
    .object({
      base: z.string(),
      files: z.array(
        z.object({
          path: z.string(),
          change: z.enum(['added', 'modified', 'deleted', 'renamed']),
          from: z.string().optional(),
          added: z.number(),
          removed: z.number(),
          binary: z.boolean().optional()
        })
      ),
      patchPath: z.string().optional(),
      error: z.string().optional()
    })
    .optional(),
  safeOutputs: z
    .object({
      offered: z.array(z.string()),
      proposals: z.array(z.looseObject({ kind: z.string(), title: z.string().optional() })),
      refused: z.array(z.object({ tool: z.string(), reason: z.string() }))
    })
    .optional(),
  permissions: z.array(
    z.looseObject({
      kind: z.string(),
      subject: z.string(),
      decision: z.enum(['allow', 'deny']),
      rule: z.string(),
      approval: z
        .looseObject({
          verdict: z.enum(['approved', 'denied', 'timeout', 'unavailable']),
          reason: z.string().optional()
        })
        .optional()
    })
  ),
  audit: z
    .looseObject({
      violations: z.array(
        z.object({
          path: z.string(),
          change: z.enum(['created', 'changed', 'deleted']),
          rule: z.string(),
          reverted: z.boolean()
        })
      )
    })
    .optional(),
  repository: z.string().optional(),
  checkout: z.object({ repository: z.string(), from: z.enum(['origin', 'workflow']) }).optional(),
  run: z
    .object({
      url: z.string(),
      id: z.string(),
      attempt: z.number().optional(),
      job: z.string().optional()
    })
    .optional()
})
export type RollupReport = z.infer<typeof RollupReportSchema>

/** AI credits of a run: a number, `byok` (billed by the provider), or unknown. */
export type CreditsFigure =
  { kind: 'credits'; value: number } | { kind: 'byok' } | { kind: 'unknown' }

/** A report the roll-up could read. */
export interface ReadReport {
  kind: 'report'
  file: string
  report: RollupReport
}

/** A report file the roll-up could not use, and why (one sentence). */
export interface ReportProblem {
  kind: 'problem'
  file: string
  problem: 'missing' | 'unreadable' | 'malformed' | 'newer'
  reason: string
}

export type ReportReading = ReadReport | ReportProblem

/** Reads and validates one report file; every failure is a ReportProblem. */
export function readReportFile(file: string): ReportReading {
  let text: string
  try {
    const stat = fs.statSync(file)
    if (!stat.isFile()) {
      return problem(file, 'unreadable', 'it is not a regular file')
    }
    if (stat.size > REPORT_FILE_MAX_BYTES) {
      return problem(
        file,
        'unreadable',
        `it is ${stat.size} bytes, more than a report can be (${REPORT_FILE_MAX_BYTES})`
      )
    }
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'ENOENT') return problem(file, 'missing', 'the file does not exist')
    const why = typeof code === 'string' ? code : 'error'
    return problem(file, 'unreadable', `it could not be read (${why})`)
  }
  return parseReport(file, text)
}

/** Validates the text of a report file (pure). */
export function parseReport(file: string, text: string): ReportReading {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return problem(file, 'malformed', 'it is not JSON (cut short, or not a report)')
  }
  const version = z.looseObject({ version: z.number() }).safeParse(value)
  if (version.success && version.data.version > REPORT_VERSION) {
    return problem(
      file,
      'newer',
      `it is a version ${version.data.version} report, newer than this action reads (${REPORT_VERSION}): update the action the roll-up runs`
    )
  }
  const parsed = RollupReportSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where =
      issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`
    return problem(
      file,
      'malformed',
      `it is not a report of this action${where}: ${issue?.message ?? 'invalid'}`
    )
  }
  return { kind: 'report', file, report: parsed.data }
}

function problem(file: string, kind: ReportProblem['problem'], reason: string): ReportProblem {
  return { kind: 'problem', file, problem: kind, reason }
}

/** The run's AI credits (`Credits`): credits, billed by the provider, or not reported. */
export function creditsOf(report: RollupReport): CreditsFigure {
  const credits = report.metrics.aiCredits
  if (credits === undefined) return { kind: 'unknown' }
  if (credits.byok === true || credits.status === 'unavailable') return { kind: 'byok' }
  if (credits.status === 'not-reported') return { kind: 'unknown' }
  const value = aiCreditsOf(credits.nanoAiu)
  return Number.isFinite(value) ? { kind: 'credits', value } : { kind: 'unknown' }
}

/**
 * The read report as a `Report`, for the comment's renderers (render-sections.ts): the fields
 * the roll-up did not read are empty. Only for what the roll-up shows from those renderers.
 */
export function asReport(report: RollupReport): Report {
  return {
    version: REPORT_VERSION,
    status: report.status,
    sessionId: null,
    summary: report.summary ?? null,
    cliVersion: null,
    model: null,
    startedAt: report.startedAt,
    endedAt: report.endedAt ?? null,
    durationMs: report.durationMs ?? null,
    ...(report.error === undefined ? {} : { error: report.error }),
    ...(report.stopReason === undefined ? {} : { stopReason: report.stopReason }),
    policy: report.policy,
    plan: { content: null, todos: [] },
    tools: [],
    permissions: [],
    commands: report.commands,
    ...(report.repairs === undefined ? {} : { repairs: report.repairs }),
    metrics: {
      premiumRequests: report.metrics.premiumRequests,
      apiDurationMs: report.metrics.apiDurationMs ?? 0,
      linesAdded: report.metrics.linesAdded,
      linesRemoved: report.metrics.linesRemoved,
      filesModified: report.metrics.filesModified,
      models: report.metrics.models
    },
    ...(report.changes === undefined ? {} : { changes: report.changes }),
    lastActivity: []
  }
}
