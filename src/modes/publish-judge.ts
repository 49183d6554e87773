/**
 * The publish step judges every proposal again (issue 29): the agent job's policy is its
 * checkout's, which on a pull request is the pull request's, so what the agent job let through
 * proves nothing. Each proposal is held to the publish job's own `safe-outputs` input, its
 * checkout's policy (`tool` rules, decided as the agent job decides a call), `allowed-labels` and
 * the repository's labels, and never carries a credential (by format, or a secret this job knows).
 * The counts and sizes were checked again when the file was read (session/safe-outputs.ts
 * readProposals). Pure but for `labelExists`, which asks the API.
 */
import type { SafeOutputProposal } from '../reporting/types.js'
import { SAFE_OUTPUT_TOOLS, type SafeOutputKind } from '../session/safe-outputs.js'
import { findCredential } from '../text/credential-formats.js'
import { inlineText } from '../text/safe-text.js'

export interface JudgeContext {
  /** The publish step's own `safe-outputs` input. */
  enabled: readonly SafeOutputKind[]
  /** The checkout's policy on a proposal tool (`custom-tool` requests). */
  decideTool: (toolName: string) => { decision: string; rule: string; reason?: string }
  /** `allowed-labels`: names or globs (`*`); compared case-insensitively, as GitHub does. */
  allowedLabels: readonly string[]
  /** Whether the repository has a label of this name (the API). */
  labelExists: (name: string) => Promise<boolean>
  /** The secrets this job knows, normalized (text/safe-text.ts normalizeSecrets). */
  secrets: readonly string[]
}

export interface Judgement {
  /** What may be applied, in the file's order; an issue keeps only its allowed labels. */
  accepted: SafeOutputProposal[]
  /** Each refusal with its reason, for the job summary (never a secret's value). */
  refused: string[]
}

/** How a proposal is named in the summary: its place in the file and its kind. */
function nameOf(index: number, proposal: SafeOutputProposal): string {
  return `Proposal ${index + 1} (${proposal.kind})`
}

/** Whether `label` matches one of the `allowed-labels` patterns. */
export function labelAllowed(label: string, allowed: readonly string[]): boolean {
  return allowed.some((pattern) => {
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')
    return new RegExp(`^${source}$`, 'is').test(label)
  })
}

/** The fields of a proposal the agent wrote, by name. */
function fieldsOf(proposal: SafeOutputProposal): Array<[string, string]> {
  switch (proposal.kind) {
    case 'pull-request':
      return [
        ['title', proposal.title],
        ['body', proposal.body]
      ]
    case 'comment':
      return [['body', proposal.body]]
    case 'labels':
      return proposal.labels.map((l, i): [string, string] => [`label ${i + 1}`, l])
    case 'issue':
      return [
        ['title', proposal.title],
        ['body', proposal.body],
        ...proposal.labels.map((l, i): [string, string] => [`label ${i + 1}`, l])
      ]
  }
}

/** Every proposal judged; see the module's comment. */
export async function judgeProposals(
  proposals: readonly SafeOutputProposal[],
  context: JudgeContext
): Promise<Judgement> {
  const accepted: SafeOutputProposal[] = []
  const refused: string[] = []
  for (const [index, proposal] of proposals.entries()) {
    const name = nameOf(index, proposal)
    if (!context.enabled.includes(proposal.kind)) {
      refused.push(
        `${name} was refused: the publish step's input 'safe-outputs' does not enable ${proposal.kind}.`
      )
      continue
    }
    const tool = SAFE_OUTPUT_TOOLS[proposal.kind]
    const decision = context.decideTool(tool)
    if (decision.decision !== 'allow') {
      refused.push(
        `${name} was refused: the policy does not allow ${tool} (rule ${decision.rule}${decision.reason ? `: ${decision.reason}` : ''}).`
      )
      continue
    }
    const credential = fieldsOf(proposal)
      .map(([field, text]) => ({ field, found: findCredential(text, context.secrets) }))
      .find((f) => f.found !== undefined)
    if (credential?.found) {
      refused.push(
        `${name} was refused: its ${credential.field} holds ${credential.found.what} (line ${credential.found.line}).`
      )
      continue
    }
    if (proposal.kind === 'labels' || proposal.kind === 'issue') {
      const kept: string[] = []
      for (const label of proposal.labels) {
        const why = await labelRefusal(label, context)
        if (why === undefined) kept.push(label)
        else refused.push(`${name}: the label ${inlineText(label, 60)} was refused: ${why}.`)
      }
      if (proposal.kind === 'labels') {
        if (kept.length === 0) continue
        accepted.push({ kind: 'labels', labels: kept })
      } else accepted.push({ ...proposal, labels: kept })
      continue
    }
    accepted.push(proposal)
  }
  return { accepted, refused }
}

async function labelRefusal(label: string, context: JudgeContext): Promise<string | undefined> {
  if (context.allowedLabels.length === 0) {
    return "the publish step's input 'allowed-labels' is empty (labels need it)"
  }
  if (!labelAllowed(label, context.allowedLabels)) {
    return "it is not in the publish step's input 'allowed-labels'"
  }
  try {
    if (!(await context.labelExists(label))) return 'the repository has no label of that name'
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return `GitHub did not say whether the repository has it (${inlineText(message, 200)})`
  }
  return undefined
}
