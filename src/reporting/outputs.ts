/** The action's step outputs, as a pure function of the report. */
import type { Report } from './types.js'

/** Output names, exactly as declared in action.yml. */
export const OUTPUT_NAMES = [
  'status',
  'session-id',
  'summary',
  'report-path',
  'premium-requests',
  'input-tokens',
  'output-tokens',
  'lines-added',
  'lines-removed',
  'files-modified',
  'permissions-denied'
] as const
export type OutputName = (typeof OUTPUT_NAMES)[number]

/**
 * Every output as a string. Token counts are summed over models; `files-modified` and
 * `permissions-denied` are counts. The summary is the agent's text, redacted but not neutralized
 * (an output is not markdown: whoever renders it must treat it as untrusted).
 */
export function actionOutputs(report: Report, reportPath: string): Record<OutputName, string> {
  const models = Object.values(report.metrics.models)
  const sum = (pick: (m: (typeof models)[number]) => number): number =>
    models.reduce((total, m) => total + finite(pick(m)), 0)
  return {
    status: report.status,
    'session-id': report.sessionId ?? '',
    summary: report.summary ?? '',
    'report-path': reportPath,
    'premium-requests': String(Math.round(finite(report.metrics.premiumRequests) * 100) / 100),
    'input-tokens': String(sum((m) => m.inputTokens)),
    'output-tokens': String(sum((m) => m.outputTokens)),
    'lines-added': String(finite(report.metrics.linesAdded)),
    'lines-removed': String(finite(report.metrics.linesRemoved)),
    'files-modified': String(report.metrics.filesModified.length),
    'permissions-denied': String(deniedCount(report))
  }
}

/** Denied permission requests, over every decision (also records dropped to bound memory). */
export function deniedCount(report: Report): number {
  if (report.permissionCounts) {
    return Object.values(report.permissionCounts).reduce((n, c) => n + finite(c.deny), 0)
  }
  return report.permissions.filter((p) => p.decision === 'deny').length
}

function finite(n: number): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0
}
