/**
 * The `safe-outputs` input: which proposal tools the agent is offered. Kept apart from
 * safe-outputs.ts (zod) because settings.ts is read by the entry chunk, before the CLI starts.
 */
import { UserError } from '../errors.js'

export type SafeOutputKind = 'pull-request' | 'comment' | 'labels' | 'issue'
export const SAFE_OUTPUT_KINDS: readonly SafeOutputKind[] = [
  'pull-request',
  'comment',
  'labels',
  'issue'
]

/** The `safe-outputs` input: a comma or newline list of kinds; empty: none. */
export function parseSafeOutputs(raw: string): SafeOutputKind[] {
  const words = raw
    .split(/[,\r\n]+/)
    .map((w) => w.trim())
    .filter((w) => w !== '')
  const out: SafeOutputKind[] = []
  for (const word of words) {
    const kind = SAFE_OUTPUT_KINDS.find((k) => k === word.toLowerCase())
    if (kind === undefined) {
      throw new UserError(
        `Input 'safe-outputs' names '${word}', which is not a safe output. Use a comma or newline list of ${SAFE_OUTPUT_KINDS.join(', ')} (or leave it empty for none). Fix the 'with:' block of the step.`
      )
    }
    if (!out.includes(kind)) out.push(kind)
  }
  return out
}
