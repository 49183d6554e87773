/**
 * `npm run preview`: what the PR comment and the job summary look like. Renders every report in
 * test-support/fixtures/reports/*.json (one per run status, and a policy with errors) into
 * docs/examples/<name>.comment.md and <name>.summary.md, with an index in docs/examples/README.md.
 *
 * The reports are recorded, not written by hand: `npm run record-examples`
 * (scripts/record-examples.ts) runs each scenario through the action on the real Copilot CLI with
 * a scripted model and keeps the report it wrote, normalized (ids, times, durations, paths). Each
 * is checked against the Report type on the way in (a schema the type checker holds equal to it,
 * field by field), and a test renders the same fixtures and compares them with the committed
 * files; another re-records some scenarios and compares them with the fixtures.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { z } from 'zod'
import { PermissionRequest } from '../src/cli/protocol.js'
import { initBashParser } from '../src/policy/index.js'
import { markerFor } from '../src/reporting/publish-comment.js'
import { renderComment, renderSummary } from '../src/reporting/render.js'
import { RUN_STATUSES, type Report } from '../src/reporting/types.js'
import { EXAMPLE_PROMPT, EXAMPLE_REPO, EXAMPLE_RUN_ID } from '../test-support/record-examples.js'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const FIXTURES_DIR = path.join(ROOT, 'test-support', 'fixtures', 'reports')
export const EXAMPLES_DIR = path.join(ROOT, 'docs', 'examples')

/** The links the examples show (the repository and run the recordings name). */
const RUN_URL = `https://github.com/${EXAMPLE_REPO}/actions/runs/${EXAMPLE_RUN_ID}`
const SUMMARY_URL = `${RUN_URL}/job/34567890123#summary-34567890123`

// ---------------------------------------------------------------------------------------------
// The Report type as a schema

const ToolStats = z.strictObject({
  calls: z.number(),
  succeeded: z.number(),
  failed: z.number(),
  denied: z.number(),
  durationMs: z.number()
})

const ModelUsage = z.strictObject({
  requests: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number()
})

const ChainLinkSchema = z.strictObject({
  runId: z.string(),
  status: z.string(),
  stoppedAt: z.string().optional(),
  reason: z.string().optional(),
  aiCredits: z.number().optional(),
  tokens: z.number().optional()
})

const ReportSchema = z.strictObject({
  checkpoint: z
    .strictObject({
      path: z.string(),
      sha256: z.string(),
      bytes: z.number(),
      cut: z.array(z.string())
    })
    .optional(),
  continuedFrom: z.array(ChainLinkSchema).optional(),
  resumeRefused: z.string().optional(),
  version: z.literal(1),
  status: z.enum(RUN_STATUSES),
  sessionId: z.string().nullable(),
  summary: z.string().nullable(),
  cliVersion: z.string().nullable(),
  model: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  error: z.strictObject({ message: z.string(), type: z.string().optional() }).optional(),
  policy: z.strictObject({
    source: z.string(),
    builtIn: z.boolean(),
    issues: z
      .array(
        z.strictObject({
          file: z.string(),
          line: z.number(),
          column: z.number(),
          message: z.string(),
          fix: z.string()
        })
      )
      .optional()
  }),
  completion: z
    .strictObject({ state: z.enum(['accepted', 'rejected']), reason: z.string().optional() })
    .optional(),
  sandbox: z
    .strictObject({
      state: z.enum(['enforced', 'unavailable', 'off']),
      backend: z.string().optional(),
      reason: z.string().optional(),
      provisioned: z.array(z.string()).optional(),
      setupSeconds: z.number().optional(),
      networkOff: z.strictObject({ hosts: z.array(z.string()), reason: z.string() }).optional(),
      cliConfined: z.boolean().optional()
    })
    .optional(),
  credentials: z
    .strictObject({
      removed: z.array(z.string()),
      restored: z.boolean(),
      error: z.string().optional()
    })
    .optional(),
  killedProcesses: z
    .array(
      z.strictObject({
        pid: z.number(),
        command: z.string(),
        step: z.enum(['agent', 'setup', 'verify']),
        when: z.enum(['after-command', 'after-session']),
        inWall: z.boolean().optional()
      })
    )
    .optional(),
  instructionFiles: z
    .strictObject({
      kept: z.array(z.strictObject({ path: z.string(), reason: z.string() })),
      restored: z.boolean(),
      error: z.string().optional()
    })
    .optional(),
  environment: z
    .strictObject({
      dropped: z.array(z.strictObject({ name: z.string(), reason: z.string() })),
      notListed: z.number()
    })
    .optional(),
  changes: z
    .strictObject({
      base: z.string(),
      files: z.array(
        z.strictObject({
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
  audit: z
    .strictObject({
      checks: z.number(),
      changed: z.number(),
      complete: z.boolean(),
      readOnly: z.array(z.string()).optional(),
      notes: z
        .array(
          z.strictObject({
            path: z.string(),
            change: z.enum(['created', 'changed', 'deleted']),
            reason: z.string(),
            reverted: z.boolean()
          })
        )
        .optional(),
      violations: z.array(
        z.strictObject({
          path: z.string(),
          change: z.enum(['created', 'changed', 'deleted']),
          rule: z.string(),
          reason: z.string().optional(),
          reverted: z.boolean(),
          note: z.string().optional(),
          command: z.string().optional()
        })
      )
    })
    .optional(),
  plan: z.strictObject({
    content: z.string().nullable(),
    todos: z.array(z.strictObject({ id: z.string(), title: z.string(), status: z.string() }))
  }),
  tools: z.array(
    z.strictObject({
      toolCallId: z.string(),
      name: z.string(),
      outcome: z.enum(['succeeded', 'failed', 'denied', 'unfinished']),
      success: z.boolean().nullable(),
      durationMs: z.number().nullable(),
      target: z.string().optional(),
      error: z.string().optional(),
      rule: z.string().optional(),
      parentToolCallId: z.string().optional(),
      startedAt: z.string().optional()
    })
  ),
  permissions: z.array(
    z.strictObject({
      requestId: z.string(),
      toolCallId: z.string().nullable(),
      kind: z.string(),
      subject: z.string(),
      decision: z.enum(['allow', 'deny']),
      rule: z.string(),
      reason: z.string().optional(),
      approval: z
        .strictObject({
          id: z.string(),
          verdict: z.enum(['approved', 'denied', 'timeout', 'unavailable']),
          askedAt: z.string(),
          answeredAt: z.string(),
          by: z.string().optional(),
          reason: z.string().optional(),
          url: z.string().optional()
        })
        .optional(),
      request: PermissionRequest
    })
  ),
  commands: z.array(
    z.strictObject({
      phase: z.enum(['setup', 'verify']),
      confinement: z.enum(['sandboxed', 'unconfined', 'no-sandbox']).optional(),
      network: z.enum(['none', 'proxy', 'shared']).optional(),
      refused: z
        .array(z.strictObject({ target: z.string(), reason: z.string(), attempts: z.number() }))
        .optional(),
      refusedMore: z.number().optional(),
      attempt: z.number().optional(),
      command: z.string(),
      exitCode: z.number().nullable(),
      timedOut: z.boolean(),
      durationMs: z.number(),
      outputTail: z.string()
    })
  ),
  metrics: z.strictObject({
    aiCredits: z
      .strictObject({
        nanoAiu: z.number(),
        status: z.enum(['complete', 'partial', 'unavailable', 'not-reported']),
        byok: z.boolean()
      })
      .optional(),
    premiumRequests: z.number(),
    apiDurationMs: z.number(),
    linesAdded: z.number(),
    linesRemoved: z.number(),
    filesModified: z.array(z.string()),
    models: z.record(z.string(), ModelUsage)
  }),
  repository: z.string().optional(),
  commit: z.string().optional(),
  checkout: z
    .strictObject({ repository: z.string(), from: z.enum(['origin', 'workflow']) })
    .optional(),
  run: z
    .strictObject({
      url: z.string(),
      id: z.string(),
      attempt: z.number().optional(),
      job: z.string().optional()
    })
    .optional(),
  lastActivity: z.array(z.string()),
  stopReason: z.string().optional(),
  workingDirectory: z.string().optional(),
  toolStats: z.record(z.string(), ToolStats).optional(),
  toolsOmitted: z.number().optional(),
  repairs: z.array(z.strictObject({ attempt: z.number(), failed: z.array(z.string()) })).optional(),
  mcpServers: z
    .array(
      z.strictObject({
        name: z.string(),
        type: z.string(),
        status: z.string(),
        error: z.string().optional(),
        tools: z.number().optional(),
        calls: z.number(),
        denied: z.number()
      })
    )
    .optional(),
  agent: z.strictObject({ name: z.string(), file: z.string(), selected: z.boolean() }).optional(),
  subagents: z
    .array(
      z.strictObject({
        toolCallId: z.string(),
        name: z.string(),
        description: z.string().optional(),
        outcome: z.enum(['running', 'completed', 'failed']),
        error: z.string().optional(),
        calls: z.number().optional()
      })
    )
    .optional(),
  internalCalls: z.number().optional(),
  permissionCounts: z
    .record(z.string(), z.strictObject({ allow: z.number(), deny: z.number() }))
    .optional(),
  permissionsOmitted: z.number().optional(),
  safeOutputs: z
    .strictObject({
      offered: z.array(z.enum(['pull-request', 'comment', 'labels', 'issue'])),
      proposals: z.array(
        z.discriminatedUnion('kind', [
          z.strictObject({
            kind: z.literal('pull-request'),
            title: z.string(),
            body: z.string(),
            draft: z.boolean()
          }),
          z.strictObject({ kind: z.literal('comment'), body: z.string() }),
          z.strictObject({ kind: z.literal('labels'), labels: z.array(z.string()) }),
          z.strictObject({
            kind: z.literal('issue'),
            title: z.string(),
            body: z.string(),
            labels: z.array(z.string())
          })
        ])
      ),
      refused: z.array(z.strictObject({ tool: z.string(), reason: z.string() })),
      path: z.string().optional()
    })
    .optional(),
  quota: z
    .strictObject({
      premiumRemaining: z.number().optional(),
      premiumEntitlement: z.number().optional(),
      premiumUsed: z.number(),
      remainingPercentage: z.number(),
      unlimited: z.boolean(),
      overage: z.number(),
      resetDate: z.string().optional()
    })
    .optional()
})

/** True only when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
/** Fails to compile when the schema and the Report type differ: update the schema with the type. */
const schemaIsReport: Same<z.infer<typeof ReportSchema>, Report> = true
/**
 * `Same` holds when the schema lacks an optional field of the type (then a report that has it
 * fails to load): the field names are compared too, at every level a fixture has.
 */
type Parsed = z.infer<typeof ReportSchema>
type Item<T> = T extends readonly (infer E)[] ? E : never
type Def<T> = Exclude<T, undefined>
const sameFields: [
  Same<keyof Parsed, keyof Report>,
  Same<keyof Item<Parsed['tools']>, keyof Item<Report['tools']>>,
  Same<keyof Item<Parsed['permissions']>, keyof Item<Report['permissions']>>,
  Same<
    keyof Def<Item<Parsed['permissions']>['approval']>,
    keyof Def<Item<Report['permissions']>['approval']>
  >,
  Same<keyof Item<Parsed['commands']>, keyof Item<Report['commands']>>,
  Same<keyof Parsed['metrics'], keyof Report['metrics']>,
  Same<keyof Parsed['policy'], keyof Report['policy']>,
  Same<keyof Def<Parsed['sandbox']>, keyof Def<Report['sandbox']>>,
  Same<keyof Def<Parsed['audit']>, keyof Def<Report['audit']>>,
  Same<
    keyof Item<Def<Parsed['audit']>['violations']>,
    keyof Item<Def<Report['audit']>['violations']>
  >,
  Same<keyof Def<Parsed['changes']>, keyof Def<Report['changes']>>,
  Same<keyof Item<Def<Parsed['changes']>['files']>, keyof Item<Def<Report['changes']>['files']>>,
  Same<keyof Def<Parsed['credentials']>, keyof Def<Report['credentials']>>,
  Same<keyof Def<Parsed['instructionFiles']>, keyof Def<Report['instructionFiles']>>,
  Same<keyof Def<Parsed['environment']>, keyof Def<Report['environment']>>,
  Same<keyof Item<Def<Parsed['mcpServers']>>, keyof Item<Def<Report['mcpServers']>>>,
  Same<keyof Item<Def<Parsed['subagents']>>, keyof Item<Def<Report['subagents']>>>,
  Same<keyof Def<Parsed['completion']>, keyof Def<Report['completion']>>
] = [
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true
]
void schemaIsReport
void sameFields

// ---------------------------------------------------------------------------------------------
// Fixtures and examples

export interface Fixture {
  /** The file name without `.json`: `completed`, `bad-policy`, ... */
  name: string
  report: Report
}

/** Every fixture report, by name, each checked against the Report type. */
export function loadFixtures(dir = FIXTURES_DIR): Fixture[] {
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const json: unknown = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))
      const parsed = ReportSchema.safeParse(json)
      if (!parsed.success) {
        throw new Error(`${file} is not a Report: ${z.prettifyError(parsed.error)}`)
      }
      return { name: file.slice(0, -'.json'.length), report: parsed.data }
    })
}

/** How the examples are ordered in the index: by status, then the policy with errors. */
const ORDER = [...RUN_STATUSES, 'bad-policy'] as string[]

/**
 * docs/examples/ as it should be: file name → content. Call `initBashParser()` first, as the
 * action has by the time it renders: the suggested rules for shell commands depend on it.
 */
export function renderExamples(fixtures = loadFixtures()): Map<string, string> {
  const files = new Map<string, string>()
  const sorted = [...fixtures].sort(
    (a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name)
  )
  for (const { name, report } of sorted) {
    const source = `test-support/fixtures/reports/${name}.json`
    const comment = renderComment(report, {
      marker: markerFor(),
      runUrl: RUN_URL,
      summaryUrl: SUMMARY_URL,
      ...(name === 'bad-policy' ? {} : { prompt: EXAMPLE_PROMPT })
    })
    const summary = renderSummary(report, { runUrl: RUN_URL })
    files.set(`${name}.comment.md`, page(source, 'the PR comment', comment))
    files.set(`${name}.summary.md`, page(source, 'the job summary', summary))
  }
  files.set('README.md', index(sorted))
  return files
}

function rank(name: string): number {
  const i = ORDER.indexOf(name)
  return i < 0 ? ORDER.length : i
}

/** A rendered body as a file: verbatim (Prettier must not reflow it), with where it came from. */
function page(source: string, what: string, body: string): string {
  return [
    `<!-- Generated by \`npm run preview\` from ${source} (recorded from a real run by \`npm run record-examples\`): ${what}. Do not edit. -->`,
    '<!-- prettier-ignore-start -->',
    '',
    body.trimEnd(),
    '',
    '<!-- prettier-ignore-end -->',
    ''
  ].join('\n')
}

function index(fixtures: Fixture[]): string {
  const lines = [
    '# What a run reports',
    '',
    'Every run ends with a sticky comment on the pull request (for a reviewer with ten seconds:',
    'the outcome, what went wrong and how to fix it, the agent’s own summary, the figures) and a',
    'job summary with everything else (every tool call, the full decision log, command output).',
    '',
    'Each example is what a run produced: `npm run record-examples` runs every scenario through the',
    'action on the real Copilot CLI, with a scripted model on 127.0.0.1 standing in for the model, in',
    'a small project (a calc library whose `sum()` fails for negative numbers), and records the',
    'report it wrote into `test-support/fixtures/reports/`, with ids, times, durations and paths',
    'normalized (`/home/runner/work/calc/calc`, repository `octo-org/calc`). `npm run preview`',
    'renders these pages from those reports; tests keep both up to date. The model runs as BYOK',
    '(`provider-base-url`), so no premium requests are counted.',
    ''
  ]
  for (const { name, report } of fixtures) {
    const what = report.policy.issues?.length ? 'policy file with errors' : `\`${report.status}\``
    lines.push(
      `- ${what}: [comment](${name}.comment.md) · [job summary](${name}.summary.md) · [report](../../test-support/fixtures/reports/${name}.json)`
    )
  }
  return `${lines.join('\n')}\n`
}

/** Writes docs/examples/ and removes example files no fixture renders any more. */
export async function writeExamples(dir = EXAMPLES_DIR): Promise<string[]> {
  await initBashParser()
  const files = renderExamples()
  fs.mkdirSync(dir, { recursive: true })
  for (const file of fs.readdirSync(dir)) {
    if (file.endsWith('.md') && !files.has(file)) fs.rmSync(path.join(dir, file))
  }
  for (const [file, content] of files) fs.writeFileSync(path.join(dir, file), content)
  return [...files.keys()]
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = await writeExamples()
  console.log(`Wrote ${written.length} files to ${path.relative(process.cwd(), EXAMPLES_DIR)}/:`)
  for (const file of written) console.log(`  ${file}`)
}
