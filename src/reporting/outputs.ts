/** The action's step outputs, as a pure function of the report and what the run left behind. */
import { neutralizeMarkdown } from '../text/safe-text.js'
import { figures, finite } from './figures.js'
import type { Report } from './types.js'

/** Output names, exactly as declared in action.yml (a test holds them to it). */
export const OUTPUT_NAMES = [
  'status',
  'session-id',
  'summary',
  'summary-markdown',
  'report-path',
  'premium-requests',
  'ai-credits',
  'input-tokens',
  'output-tokens',
  'lines-added',
  'lines-removed',
  'files-modified',
  'permissions-denied',
  'verify-passed',
  'comment-url',
  'events-path',
  'checkpoint-path'
] as const
export type OutputName = (typeof OUTPUT_NAMES)[number]

/** The outputs of the write-back (session/write-back.ts, modes/publish.ts), also in action.yml. */
export const WRITE_BACK_OUTPUT_NAMES = [
  'patch-path',
  'safe-outputs-path',
  'pull-request-url',
  'patch-sha256',
  'safe-outputs-sha256'
] as const

/** The outputs of `mode: rollup` (modes/rollup.ts), also in action.yml. */
export const ROLLUP_OUTPUT_NAMES = [
  'rollup-counts',
  'tracking-issue',
  'tracking-issue-url'
] as const

/** What the outputs need besides the report: where things were written or posted. */
export interface OutputExtras {
  /** Where the JSON report was written (absent or '' when it could not be). */
  reportPath?: string
  /** The sticky comment's URL, when one was posted. */
  commentUrl?: string
  /** The session's events.jsonl, when it was kept. */
  eventsPath?: string
  /** The run's checkpoint file, when one was written. */
  checkpointPath?: string
}

/**
 * Every output as a string ('' for what is unknown), from the figures the comment and the job
 * summary show (figures.ts). Token counts are summed over models; `files-modified` and
 * `permissions-denied` are counts; lines and files come from git (`report.changes`) when the
 * report has them. The summary is the agent's text, redacted but not neutralized: untrusted
 * markdown, never to be put into a body, title or commit message by hand (issue 29);
 * `summary-markdown` is the same text neutralized (no mention that notifies, no raw HTML or HTML
 * comment, no link or image, no character reference), for a workflow that must show it.
 */
export function actionOutputs(
  report: Report,
  extras: OutputExtras = {}
): Record<OutputName, string> {
  const f = figures(report)
  return {
    status: report.status,
    'session-id': report.sessionId ?? '',
    summary: report.summary ?? '',
    'summary-markdown': neutralizeMarkdown(report.summary ?? ''),
    'report-path': extras.reportPath ?? '',
    'premium-requests': String(f.premiumRequests),
    // '' unless Copilot billed the run and the CLI reported its credits (never 0 under BYOK)
    'ai-credits':
      f.cost.billedBy === 'copilot' ? String(Math.round(f.cost.credits * 1e6) / 1e6) : '',
    'input-tokens': String(f.tokens.input),
    'output-tokens': String(f.tokens.output),
    'lines-added': String(f.changes.added),
    'lines-removed': String(f.changes.removed),
    'files-modified': String(f.changes.files.length),
    'permissions-denied': String(deniedCount(report)),
    'verify-passed': verifyPassed(report),
    'comment-url': extras.commentUrl ?? '',
    'events-path': extras.eventsPath ?? '',
    'checkpoint-path': extras.checkpointPath ?? ''
  }
}

/**
 * The last attempt's verify result (after the last repair, when the agent repaired): `true` when
 * each of its verify commands passed (exit 0, in time), `false` when one did not, '' when no
 * verify command ran.
 */
export function verifyPassed(report: Report): 'true' | 'false' | '' {
  const passed = figures(report).verifyPassed
  return passed === undefined ? '' : passed ? 'true' : 'false'
}

/** Denied permission requests, over every decision (also records dropped to bound memory). */
export function deniedCount(report: Report): number {
  if (report.permissionCounts) {
    return Object.values(report.permissionCounts).reduce((n, c) => n + finite(c.deny), 0)
  }
  return report.permissions.filter((p) => p.decision === 'deny').length
}
