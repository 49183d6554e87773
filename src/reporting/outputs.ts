/** The action's step outputs, as a pure function of the report and what the run left behind. */
import type { Report } from './types.js'

/** Output names, exactly as declared in action.yml (a test holds them to it). */
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
  'permissions-denied',
  'verify-passed',
  'comment-url',
  'events-path'
] as const
export type OutputName = (typeof OUTPUT_NAMES)[number]

/** The outputs of the write-back (session/write-back.ts, modes/publish.ts), also in action.yml. */
export const WRITE_BACK_OUTPUT_NAMES = [
  'patch-path',
  'safe-outputs-path',
  'pull-request-url'
] as const

/** What the outputs need besides the report: where things were written or posted. */
export interface OutputExtras {
  /** Where the JSON report was written (absent or '' when it could not be). */
  reportPath?: string
  /** The sticky comment's URL, when one was posted. */
  commentUrl?: string
  /** The session's events.jsonl, when it was kept. */
  eventsPath?: string
}

/**
 * Every output as a string ('' for what is unknown). Token counts are summed over models;
 * `files-modified` and `permissions-denied` are counts. The summary is the agent's text, redacted
 * but not neutralized (an output is not markdown: whoever renders it must treat it as untrusted).
 */
export function actionOutputs(
  report: Report,
  extras: OutputExtras = {}
): Record<OutputName, string> {
  const models = Object.values(report.metrics.models)
  const sum = (pick: (m: (typeof models)[number]) => number): number =>
    models.reduce((total, m) => total + finite(pick(m)), 0)
  return {
    status: report.status,
    'session-id': report.sessionId ?? '',
    summary: report.summary ?? '',
    'report-path': extras.reportPath ?? '',
    'premium-requests': String(Math.round(finite(report.metrics.premiumRequests) * 100) / 100),
    'input-tokens': String(sum((m) => m.inputTokens)),
    'output-tokens': String(sum((m) => m.outputTokens)),
    'lines-added': String(finite(report.metrics.linesAdded)),
    'lines-removed': String(finite(report.metrics.linesRemoved)),
    'files-modified': String(report.metrics.filesModified.length),
    'permissions-denied': String(deniedCount(report)),
    'verify-passed': verifyPassed(report),
    'comment-url': extras.commentUrl ?? '',
    'events-path': extras.eventsPath ?? ''
  }
}

/**
 * `true` when every verify command ran and passed (exit 0, in time), `false` when one did not,
 * '' when no verify command ran.
 */
export function verifyPassed(report: Report): 'true' | 'false' | '' {
  const verify = report.commands.filter((c) => c.phase === 'verify')
  if (verify.length === 0) return ''
  return verify.every((c) => c.exitCode === 0 && !c.timedOut) ? 'true' : 'false'
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
