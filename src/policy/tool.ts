/**
 * `copilot-policy`: check, explain, test and replay a policy. Each command is a function that
 * returns its output and exit code; `src/policy-cli.ts` only wires it to the process.
 *
 * Exit codes: 0 fine (allowed, no errors, tests pass, nothing changes); 1 not (denied or asks a
 * person, errors, failures, changes); 2 bad usage, or a policy or report that cannot be read.
 */
import { readFile } from 'node:fs/promises'
import { readTreeFile } from '../tree-file.js'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { z } from 'zod'
import { PermissionRequest } from '../cli/protocol.js'
import { feedbackFor, requestOf, type CompiledRule } from './engine.js'
import { byPosition, formatIssue, PolicyError, type PolicyIssue } from './errors.js'
import { lintPolicy } from './lint.js'
import { compilePolicy, compileResolved, resolvePolicyText, type CompiledPolicy } from './load.js'
import { PRESET_NAMES, presetText, type PresetName } from './presets.js'
import { runPolicyTests } from './testing.js'
import { MATCHER_KEYS, RULE_DECISIONS } from './schema.js'
import type { Decision, MatcherKey, SegmentDecision, Verdict } from './types.js'

export interface ToolResult {
  exitCode: 0 | 1 | 2
  output: string
  /**
   * `check`: the errors and warnings found, in file order (absent when there are none). Their
   * `file` is the policy as given (relative to the working directory), for policyAnnotations.
   */
  issues?: PolicyIssue[]
}

export interface ToolOptions {
  /** The directory relative policy paths and relative path globs are resolved against. */
  workingDirectory: string
  /**
   * The checked-out tree a policy named inside it must stay in (src/tree-file.ts); the working
   * directory when not given.
   */
  workspace?: string
}

export const USAGE = `Usage:
  copilot-policy check <policy> [--strict]
  copilot-policy explain <policy> (--shell "cmd" | --write path | --read path | --url url
                                   | --mcp server/tool [--read-only] | --tool name | --memory
                                   | --json '<permission request JSON>')
  copilot-policy test <policy>
  copilot-policy replay <policy> <report.json> [--workspace-was <dir>]

<policy> is a policy file or built-in:<preset> (${PRESET_NAMES.join(', ')}).
Options: --working-directory <dir>  where relative paths resolve (default: current directory)
Exit codes: 0 fine, 1 denied or asks a person / errors / failures / changes, 2 bad usage or
unreadable input.`

class InputError extends Error {}

function readPolicyText(ref: string, options: ToolOptions): { text: string; source: string } {
  if (ref.startsWith('built-in:')) {
    const name = ref.slice('built-in:'.length)
    if (!(PRESET_NAMES as readonly string[]).includes(name)) {
      throw new InputError(`unknown preset "${name}": use one of ${PRESET_NAMES.join(', ')}`)
    }
    return { text: presetText(name as PresetName), source: ref }
  }
  try {
    const { text } = readTreeFile({
      what: `the policy ${ref}`,
      name: ref,
      base: options.workingDirectory,
      workspace: options.workspace ?? options.workingDirectory
    })
    return { text, source: ref }
  } catch (error) {
    throw new InputError(`cannot read ${ref}: ${(error as Error).message}`)
  }
}

async function loadForTool(ref: string, options: ToolOptions): Promise<CompiledPolicy> {
  const { text, source } = readPolicyText(ref, options)
  return compilePolicy(text, source, options.workingDirectory)
}

function failure(error: unknown): ToolResult {
  if (error instanceof PolicyError || error instanceof InputError) {
    return { exitCode: 2, output: error.message }
  }
  throw error
}

function lines(...parts: Array<string | string[] | undefined>): string {
  return parts
    .flat()
    .filter((p): p is string => p !== undefined)
    .join('\n')
}

// ---------------------------------------------------------------------------------------------
// check

export async function checkPolicy(
  ref: string,
  options: ToolOptions & { strict?: boolean }
): Promise<ToolResult> {
  let text: string
  let source: string
  try {
    ;({ text, source } = readPolicyText(ref, options))
  } catch (error) {
    return failure(error)
  }
  const resolved = resolvePolicyText(text, source)
  const issues = [...resolved.issues]
  if (!issues.some((i) => i.severity === 'error')) {
    const policy = await compileResolved(resolved, source, options.workingDirectory)
    issues.push(...lintPolicy(resolved, policy))
  }
  issues.sort(byPosition)
  const errors = issues.filter((i) => i.severity === 'error').length
  const warnings = issues.length - errors
  const summary =
    issues.length === 0
      ? `${source}: no problems (${resolved.rules.length} rules, ${resolved.parsed.tests.length} tests)`
      : `${source}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`
  const failed = errors > 0 || (options.strict === true && warnings > 0)
  const result: ToolResult = {
    exitCode: failed ? 1 : 0,
    output: lines(issues.map(formatIssue), summary)
  }
  if (issues.length > 0) result.issues = issues
  return result
}

// ---------------------------------------------------------------------------------------------
// explain

export type ExplainQuery =
  | { shell: string }
  | { write: string }
  | { read: string }
  | { url: string }
  | { mcp: string; readOnly?: boolean }
  | { tool: string }
  | { memory: true }
  | { json: string }

/** The permission request an explain query stands for. */
export function requestFor(query: ExplainQuery): PermissionRequest {
  if (!('json' in query)) {
    // exactly one matcher key (`readOnly` goes with mcp)
    const matcher = MATCHER_KEYS.find((key) => key in query)
    if (matcher === undefined) throw new InputError('nothing to explain')
    const value: unknown = (query as Partial<Record<MatcherKey, unknown>>)[matcher]
    const subject = typeof value === 'string' ? value : matcher
    const request = requestOf(matcher, subject, 'mcp' in query ? query.readOnly : undefined)
    if (request === undefined) throw new InputError(`--mcp takes server/tool, not "${subject}"`)
    return request
  }
  let raw: unknown
  try {
    raw = JSON.parse(query.json)
  } catch (error) {
    throw new InputError(`--json is not JSON: ${(error as Error).message}`)
  }
  // accept a bare request, or a permission.requested event's data
  const candidate =
    raw !== null && typeof raw === 'object' && 'permissionRequest' in raw
      ? raw.permissionRequest
      : raw
  const parsed = PermissionRequest.safeParse(candidate)
  if (!parsed.success) {
    throw new InputError(`--json is not a permission request: ${parsed.error.issues[0]?.message}`)
  }
  return parsed.data
}

function ruleIndex(policy: CompiledPolicy): Map<string, CompiledRule> {
  return new Map(policy.rules.map((r) => [r.id, r]))
}

function ruleRef(id: string, rules: Map<string, CompiledRule>): string {
  const rule = rules.get(id)
  if (rule === undefined) return `"${id}"`
  return `"${id}" (${rule.origin.file}:${rule.origin.line}:${rule.origin.column})`
}

function describeSegment(s: SegmentDecision, rules: Map<string, CompiledRule>): string[] {
  const out = [`  ${s.decision.padEnd(5)}  ${s.text}`, `         rule ${ruleRef(s.rule, rules)}`]
  if (s.reason !== undefined) out.push(`         reason: ${s.reason}`)
  out.push(`         matched: ${s.matched?.length ? s.matched.join(', ') : '(no rule)'}`)
  return out
}

export function formatDecision(decision: Decision, policy: CompiledPolicy): string {
  const rules = ruleIndex(policy)
  const deciding = decision.rule
    .split(', ')
    .map((id) => ruleRef(id, rules))
    .join(', ')
  const presets = policy.presets.length > 0 ? ` (extends ${policy.presets.join(' → ')})` : ''
  return lines(
    `policy: ${policy.source}${presets}`,
    `request: ${decision.kind} ${decision.subject}`,
    `decision: ${decision.decision.toUpperCase()} by rule ${deciding}`,
    decision.reason !== undefined ? `reason: ${decision.reason}` : undefined,
    decision.decision === 'deny' ? `feedback to the agent: ${feedbackFor(decision)}` : undefined,
    decision.decision === 'ask'
      ? 'asks a maintainer: allowed only if someone with write access answers /approve in time'
      : undefined,
    decision.segments !== undefined
      ? ['segments:', ...decision.segments.flatMap((s) => describeSegment(s, rules))]
      : `matched: ${decision.matched?.length ? decision.matched.join(', ') : '(no rule)'}`
  )
}

export async function explainRequest(
  ref: string,
  query: ExplainQuery,
  options: ToolOptions
): Promise<ToolResult> {
  try {
    const request = requestFor(query)
    const policy = await loadForTool(ref, options)
    const decision = policy.decide(request)
    return {
      exitCode: decision.decision === 'allow' ? 0 : 1,
      output: formatDecision(decision, policy)
    }
  } catch (error) {
    return failure(error)
  }
}

// ---------------------------------------------------------------------------------------------
// test

export async function testPolicy(ref: string, options: ToolOptions): Promise<ToolResult> {
  let policy: CompiledPolicy
  try {
    policy = await loadForTool(ref, options)
  } catch (error) {
    return failure(error)
  }
  if (policy.tests.length === 0) {
    return {
      exitCode: 0,
      output: `${policy.source}: no tests (add a tests: section, see policy/README.md)`
    }
  }
  const failures = runPolicyTests(policy)
  const total = policy.tests.length
  const summary =
    failures.length === 0
      ? `${policy.source}: ${total} test${total === 1 ? '' : 's'} passed`
      : `${policy.source}: ${failures.length} of ${total} test${total === 1 ? '' : 's'} failed`
  return {
    exitCode: failures.length === 0 ? 0 : 1,
    output: lines(
      failures.map((f) => f.message),
      summary
    )
  }
}

// ---------------------------------------------------------------------------------------------
// replay

const ReportForReplay = z.looseObject({
  workingDirectory: z.string().optional(),
  policy: z.looseObject({ source: z.string().optional() }).optional(),
  permissions: z.array(
    z.looseObject({
      /** The final answer; a report may also hold the policy's `ask` itself. */
      decision: z.enum(RULE_DECISIONS),
      rule: z.string().optional(),
      /** Present when the policy asked a person: the request's final decision is theirs. */
      approval: z.looseObject({ verdict: z.string().optional() }).nullish().catch(undefined),
      request: PermissionRequest
    })
  )
})

type ReplayRecord = z.infer<typeof ReportForReplay>['permissions'][number]

/** What the policy decided for a recorded request: `ask` when a person was asked. */
function recordedVerdict(record: ReplayRecord): Verdict {
  return record.approval !== undefined && record.approval !== null ? 'ask' : record.decision
}

/** The transitions the summary always counts, then those it counts when they occur. */
const TRANSITIONS: ReadonlyArray<readonly [Verdict, Verdict, boolean]> = [
  ['allow', 'deny', true],
  ['deny', 'allow', true],
  ['allow', 'ask', false],
  ['ask', 'allow', false],
  ['ask', 'deny', false],
  ['deny', 'ask', false]
]

/** Moves absolute paths of a request from the run's workspace to `to`. */
function rebase(request: PermissionRequest, from: string, to: string): PermissionRequest {
  const move = (p: string | undefined) =>
    p !== undefined && (p === from || p.startsWith(`${from}/`)) ? to + p.slice(from.length) : p
  const out: PermissionRequest = { ...request }
  if (out.fileName !== undefined) out.fileName = move(out.fileName)
  if (out.path !== undefined) out.path = move(out.path)
  if (out.fullCommandText !== undefined) {
    out.fullCommandText = out.fullCommandText.split(from).join(to)
  }
  return out
}

export async function replayReport(
  ref: string,
  reportPath: string,
  options: ToolOptions & { workspaceWas?: string }
): Promise<ToolResult> {
  let policy: CompiledPolicy
  let report: z.infer<typeof ReportForReplay>
  try {
    policy = await loadForTool(ref, options)
    let raw: unknown
    try {
      raw = JSON.parse(await readFile(path.resolve(options.workingDirectory, reportPath), 'utf8'))
    } catch (error) {
      throw new InputError(`cannot read ${reportPath}: ${(error as Error).message}`)
    }
    const parsed = ReportForReplay.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new InputError(
        `${reportPath} is not a run report: ${issue?.path.join('.')}: ${issue?.message}`
      )
    }
    report = parsed.data
  } catch (error) {
    return failure(error)
  }
  const from = options.workspaceWas ?? report.workingDirectory
  const to = path.resolve(options.workingDirectory)
  const changes: string[] = []
  const counts = new Map<string, number>()
  for (const record of report.permissions) {
    const request = from !== undefined ? rebase(record.request, from, to) : record.request
    const now = policy.decide(request)
    const then = recordedVerdict(record)
    if (now.decision === then) continue
    const transition = `${then} → ${now.decision}`
    counts.set(transition, (counts.get(transition) ?? 0) + 1)
    // an ask shows how the person answered (approved, denied, timeout, unavailable)
    const answer = then === 'ask' ? record.approval?.verdict : undefined
    const shown = answer !== undefined ? `${then} (${answer}) → ${now.decision}` : transition
    const was = record.rule !== undefined ? `"${record.rule}"` : '?'
    changes.push(
      `  ${shown}  ${now.kind}  ${now.subject}\n` +
        `      was rule ${was}, now rule "${now.rule}"${now.reason !== undefined ? `: ${now.reason}` : ''}`
    )
  }
  const total = report.permissions.length
  const counted = TRANSITIONS.flatMap(([a, b, always]) => {
    const n = counts.get(`${a} → ${b}`) ?? 0
    return n > 0 || always ? [`${n} ${a} → ${b}`] : []
  })
  const summary =
    changes.length === 0
      ? `${total} request${total === 1 ? '' : 's'} replayed against ${policy.source}: no decision changes`
      : `${total} requests replayed against ${policy.source}: ${changes.length} would change ` +
        `(${counted.join(', ')})`
  const note =
    from === undefined
      ? 'note: the report does not say where the run worked; pass --workspace-was <dir> if its ' +
        'paths are absolute'
      : undefined
  return {
    exitCode: changes.length === 0 ? 0 : 1,
    output: lines(changes.length > 0 ? 'changes:' : undefined, changes, summary, note)
  }
}

// ---------------------------------------------------------------------------------------------
// argv

/** Runs the tool for command-line arguments (without `node` and the script). */
export async function runPolicyTool(argv: string[], cwd: string): Promise<ToolResult> {
  let parsed: ReturnType<typeof parseToolArgs>
  try {
    parsed = parseToolArgs(argv)
  } catch (error) {
    return { exitCode: 2, output: `${(error as Error).message}\n\n${USAGE}` }
  }
  const { values, positionals } = parsed
  const [command, ref, extra] = positionals
  if (values.help === true || command === undefined || command === 'help') {
    return { exitCode: command === undefined && values.help !== true ? 2 : 0, output: USAGE }
  }
  const usage = (message: string): ToolResult => ({
    exitCode: 2,
    output: `${message}\n\n${USAGE}`
  })
  if (ref === undefined) return usage(`${command}: which policy? (a file or built-in:<preset>)`)
  const options: ToolOptions = {
    workingDirectory: path.resolve(cwd, values['working-directory'] ?? '.')
  }
  switch (command) {
    case 'check':
      if (extra !== undefined) return usage(`check takes one policy, not "${extra}"`)
      return checkPolicy(ref, { ...options, strict: values.strict === true })
    case 'test':
      if (extra !== undefined) return usage(`test takes one policy, not "${extra}"`)
      return testPolicy(ref, options)
    case 'replay':
      if (extra === undefined) return usage('replay: which report? (the run report JSON)')
      return replayReport(ref, extra, {
        ...options,
        ...(values['workspace-was'] !== undefined ? { workspaceWas: values['workspace-was'] } : {})
      })
    case 'explain': {
      const queries: ExplainQuery[] = []
      if (values.shell !== undefined) queries.push({ shell: values.shell })
      if (values.write !== undefined) queries.push({ write: values.write })
      if (values.read !== undefined) queries.push({ read: values.read })
      if (values.url !== undefined) queries.push({ url: values.url })
      if (values.tool !== undefined) queries.push({ tool: values.tool })
      if (values.memory === true) queries.push({ memory: true })
      if (values.json !== undefined) queries.push({ json: values.json })
      if (values.mcp !== undefined) {
        queries.push(
          values['read-only'] === true ? { mcp: values.mcp, readOnly: true } : { mcp: values.mcp }
        )
      }
      const [query, second] = queries
      if (query === undefined || second !== undefined || extra !== undefined) {
        return usage(
          'explain takes one request: --shell, --write, --read, --url, --mcp, --tool, --memory or --json'
        )
      }
      return explainRequest(ref, query, options)
    }
    default:
      return usage(`unknown command "${command}"`)
  }
}

function parseToolArgs(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      shell: { type: 'string' },
      write: { type: 'string' },
      read: { type: 'string' },
      url: { type: 'string' },
      mcp: { type: 'string' },
      'read-only': { type: 'boolean' },
      tool: { type: 'string' },
      memory: { type: 'boolean' },
      json: { type: 'string' },
      strict: { type: 'boolean' },
      'working-directory': { type: 'string' },
      'workspace-was': { type: 'string' },
      help: { type: 'boolean', short: 'h' }
    }
  })
}
