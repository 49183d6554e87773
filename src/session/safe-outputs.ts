/**
 * Safe outputs: the write-backs the agent may propose (a pull request, a comment, labels, an
 * issue) as tools the action gives it. A call writes nothing to GitHub: it is validated (sizes,
 * counts, one pull request per run), recorded in a JSON file beside the patch and in the report,
 * and answered to the agent. A second job without an agent (`mode: publish`) checks and applies
 * them. The policy decides each call first, like any custom tool (`tool:` rules).
 */
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { UserError } from '../errors.js'
import { parseSafeOutputs, SAFE_OUTPUT_KINDS, type SafeOutputKind } from './safe-output-kinds.js'
import type { ExternalToolDefinition, ExternalToolResult } from '../cli/session-api.js'
import { knownSecret } from '../text/credential-formats.js'
import type { SafeOutputProposal, SafeOutputsRecord } from '../reporting/types.js'

export { parseSafeOutputs, SAFE_OUTPUT_KINDS, type SafeOutputKind }

/**
 * The tool each kind is offered as. Not `create_pull_request`: Copilot CLI 1.0.85 has a tool of
 * its own by that name, which took the agent's call (and failed) without a permission request
 * (measured in the CLI version matrix).
 */
export const SAFE_OUTPUT_TOOLS: Record<SafeOutputKind, string> = {
  'pull-request': 'propose_pull_request',
  comment: 'add_comment',
  labels: 'add_labels',
  issue: 'create_issue'
}

export const LIMITS = {
  title: 256,
  body: 60_000,
  label: 50,
  /** Labels over the run (add_labels calls together, and per issue). */
  labels: 10,
  comments: 3,
  issues: 3,
  pullRequests: 1
} as const

export const RECORDED =
  'Recorded; applied after the run by the publish step (nothing is written to GitHub during this run).'

const DEFINITIONS: Record<SafeOutputKind, ExternalToolDefinition> = {
  'pull-request': {
    name: 'propose_pull_request',
    description:
      'Propose a pull request with your changes to the working tree. Call it once, after your changes are done and checked; the workflow commits the changes and opens the pull request after this session ends (you cannot push yourself).',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', description: `Title, at most ${LIMITS.title} characters.` },
        body: { type: 'string', description: 'Description in markdown: what changed and why.' },
        draft: { type: 'boolean', description: 'Open as a draft (default true).' }
      },
      required: ['title', 'body']
    }
  },
  comment: {
    name: 'add_comment',
    description:
      'Propose a comment on the pull request or issue this workflow runs for; posted after the session ends.',
    parameters: {
      type: 'object',
      properties: { body: { type: 'string', description: 'The comment, in markdown.' } },
      required: ['body']
    }
  },
  labels: {
    name: 'add_labels',
    description:
      'Propose labels for the pull request you propose (or the one this workflow runs for); added after the session ends.',
    parameters: {
      type: 'object',
      properties: {
        labels: { type: 'array', items: { type: 'string' }, description: 'Label names.' }
      },
      required: ['labels']
    }
  },
  issue: {
    name: 'create_issue',
    description: 'Propose a new issue; opened after the session ends.',
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        body: { type: 'string' },
        labels: { type: 'array', items: { type: 'string' } }
      },
      required: ['title', 'body']
    }
  }
}

const Title = z
  .string()
  .trim()
  .min(1, 'the title is empty')
  .max(LIMITS.title, `the title is longer than ${LIMITS.title} characters`)
  .refine((t) => !/[\r\n]/.test(t), 'the title is more than one line')
const Body = z
  .string()
  .max(LIMITS.body, `the body is longer than ${LIMITS.body} characters`)
  .refine((b) => b.trim() !== '', 'the body is empty')
/** Control, invisible (soft hyphen, zero-width) and bidi characters: none in a label. */
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/
const Label = z
  .string()
  .trim()
  .min(1, 'a label is empty')
  .max(LIMITS.label, `a label is longer than ${LIMITS.label} characters`)
  .refine((l) => !/[\r\n,]/.test(l), 'a label holds a comma or a line break')
  .refine((l) => !INVISIBLE.test(l), 'a label holds a control, invisible or bidi character')
const Labels = z.array(Label).max(LIMITS.labels, `more than ${LIMITS.labels} labels`)

/** Each proposal as stored and read back (the proposals file, the report). */
export const Proposal = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('pull-request'),
    title: Title,
    body: Body,
    draft: z.boolean()
  }),
  z.object({ kind: z.literal('comment'), body: Body }),
  z.object({ kind: z.literal('labels'), labels: Labels.min(1, 'no label given') }),
  z.object({ kind: z.literal('issue'), title: Title, body: Body, labels: Labels })
])

export const PROPOSALS_VERSION = 1
/** The largest proposals file read: every proposal at its limits, each character escaped, fits. */
export const MAX_PROPOSALS_BYTES = 8 * 1024 * 1024
export const ProposalsFile = z.looseObject({
  version: z.literal(PROPOSALS_VERSION),
  proposals: z
    .array(Proposal)
    .max(LIMITS.comments + LIMITS.issues + LIMITS.pullRequests + LIMITS.labels)
    // the run's limits again: the file is read in another job, from wherever it was uploaded
    .superRefine((proposals, ctx) => {
      const count = (kind: SafeOutputKind): number =>
        proposals.filter((p) => p.kind === kind).length
      const limits: Array<[SafeOutputKind, number]> = [
        ['pull-request', LIMITS.pullRequests],
        ['comment', LIMITS.comments],
        ['issue', LIMITS.issues]
      ]
      for (const [kind, max] of limits) {
        if (count(kind) > max)
          ctx.addIssue({ code: 'custom', message: `more than ${max} ${kind} proposals` })
      }
      const labels = new Set(proposals.flatMap((p) => (p.kind === 'labels' ? p.labels : [])))
      if (labels.size > LIMITS.labels) {
        ctx.addIssue({ code: 'custom', message: `more than ${LIMITS.labels} labels over the run` })
      }
    })
})
export type ProposalsFile = z.infer<typeof ProposalsFile>

/** The arguments of each tool, as the agent sends them. */
const Args = {
  'pull-request': z.object({ title: Title, body: Body, draft: z.boolean().optional() }),
  comment: z.object({ body: Body }),
  labels: z.object({ labels: Labels.min(1, 'no label given') }),
  issue: z.object({ title: Title, body: Body, labels: Labels.optional() })
} as const

/** Why a proposal is refused, or undefined: the counts over the run. */
function overLimit(
  kind: SafeOutputKind,
  args: unknown,
  proposals: readonly SafeOutputProposal[]
): string | undefined {
  const count = (k: SafeOutputKind): number => proposals.filter((p) => p.kind === k).length
  if (kind === 'pull-request' && count('pull-request') >= LIMITS.pullRequests) {
    return 'a pull request was already proposed in this run (one per run)'
  }
  if (kind === 'comment' && count('comment') >= LIMITS.comments) {
    return `${LIMITS.comments} comments were already proposed in this run`
  }
  if (kind === 'issue' && count('issue') >= LIMITS.issues) {
    return `${LIMITS.issues} issues were already proposed in this run`
  }
  if (kind === 'labels') {
    const have = new Set(proposals.flatMap((p) => (p.kind === 'labels' ? p.labels : [])))
    const asked = (args as { labels: string[] }).labels
    for (const l of asked) have.add(l)
    if (have.size > LIMITS.labels) return `more than ${LIMITS.labels} labels over the run`
  }
  return undefined
}

/** Validates one call: the proposal, or why it is refused (said to the agent so it can retry). */
export function validateCall(
  kind: SafeOutputKind,
  args: unknown,
  proposals: readonly SafeOutputProposal[]
): { proposal: SafeOutputProposal } | { refused: string } {
  const parsed = Args[kind].safeParse(args ?? {})
  if (!parsed.success) {
    return {
      refused: parsed.error.issues
        .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
        .join('; ')
    }
  }
  const limit = overLimit(kind, parsed.data, proposals)
  if (limit !== undefined) return { refused: limit }
  const a = parsed.data
  switch (kind) {
    case 'pull-request': {
      const p = a as z.infer<(typeof Args)['pull-request']>
      return { proposal: { kind, title: p.title, body: p.body, draft: p.draft ?? true } }
    }
    case 'comment':
      return { proposal: { kind, body: (a as z.infer<(typeof Args)['comment']>).body } }
    case 'labels':
      return {
        proposal: { kind, labels: [...new Set((a as z.infer<(typeof Args)['labels']>).labels)] }
      }
    case 'issue': {
      const p = a as z.infer<(typeof Args)['issue']>
      return { proposal: { kind, title: p.title, body: p.body, labels: p.labels ?? [] } }
    }
  }
}

/** Reads a proposals file (the publish step), validated; a clear error when it is not one. */
export function readProposals(file: string): ProposalsFile {
  let json: unknown
  try {
    // the run's limits fit in far less; a bigger file is not read at all
    const size = fs.statSync(file).size
    if (size > MAX_PROPOSALS_BYTES) {
      throw new Error(
        `it is ${size} bytes, more than the ${MAX_PROPOSALS_BYTES} a proposals file can be`
      )
    }
    json = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    throw new UserError(
      `Input 'safe-outputs-path' names '${file}', which is not a readable JSON file (${error instanceof Error ? error.message : String(error)}). Pass the file the agent job's output 'safe-outputs-path' named (upload it as an artifact there, download it here).`
    )
  }
  const parsed = ProposalsFile.safeParse(json)
  if (!parsed.success) {
    throw new UserError(
      `The proposals file '${file}' (input 'safe-outputs-path') is not a version ${PROPOSALS_VERSION} proposals file: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')}. Pass the file the agent job wrote, from the same version of this action.`
    )
  }
  return parsed.data
}

/**
 * The safe-output tools of one run: their definitions for `session.create {tools}`, and the
 * answer to each call. Every accepted proposal is written to `file` at once (a run that times out
 * keeps what was proposed before).
 */
export class SafeOutputs {
  private readonly proposals: SafeOutputProposal[] = []
  private readonly refused: Array<{ tool: string; reason: string }> = []

  constructor(
    private readonly offered: readonly SafeOutputKind[],
    private readonly file: string,
    /** The run's secrets, normalized: a call holding one is refused (never recorded). */
    private readonly secrets: readonly string[] = []
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    this.write()
  }

  get definitions(): ExternalToolDefinition[] {
    return this.offered.map((kind) => DEFINITIONS[kind])
  }

  call(toolName: string, args: unknown): ExternalToolResult {
    const kind = this.offered.find((k) => SAFE_OUTPUT_TOOLS[k] === toolName)
    if (kind === undefined) {
      return {
        textResultForLlm: `${toolName} is not offered in this run.`,
        resultType: 'failure',
        error: 'not offered'
      }
    }
    const validated = validateCall(kind, args, this.proposals)
    const secret =
      'proposal' in validated
        ? knownSecret(
            Object.values(validated.proposal)
              .flat()
              .filter((v): v is string => typeof v === 'string')
              .join('\n'),
            this.secrets
          )
        : undefined
    const result =
      secret === undefined
        ? validated
        : {
            refused:
              'it holds a secret this run knows (a token or key; never propose one, and never write one into a file)'
          }
    if ('refused' in result) {
      this.refused.push({ tool: toolName, reason: result.refused })
      return {
        textResultForLlm: `Not recorded: ${result.refused}. Fix the arguments and call ${toolName} again.`,
        resultType: 'failure',
        error: result.refused
      }
    }
    this.proposals.push(result.proposal)
    this.write()
    return { textResultForLlm: RECORDED, resultType: 'success' }
  }

  record(): SafeOutputsRecord {
    return {
      offered: [...this.offered],
      proposals: [...this.proposals],
      refused: [...this.refused],
      path: this.file
    }
  }

  /**
   * Writes the file from what was recorded (again once the run is over: whatever the agent's
   * commands wrote there in between is replaced). A new file each time, never through a link.
   */
  write(): void {
    const data: ProposalsFile = { version: PROPOSALS_VERSION, proposals: this.proposals }
    const next = `${this.file}.${process.pid}.tmp`
    fs.rmSync(next, { force: true })
    fs.writeFileSync(next, JSON.stringify(data, null, 2) + '\n', { mode: 0o644, flag: 'wx' })
    fs.renameSync(next, this.file)
  }
}
