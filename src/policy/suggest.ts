/**
 * What to change in the policy for a denied request, for the report and the pull request
 * comment: the narrowest allow rule when no rule matched, or why no allow rule helps (a deny
 * rule decided, or one of the engine's own checks), or, for a request an ask rule put to a
 * person who did not approve it, what that means.
 *
 * Pure: no file system, no policy needed. Shell commands are split as the engine splits them
 * (the bash parser must have been initialized, as it is once a policy has been compiled);
 * without the parser the whole command text is proposed.
 */
import { homeDirectory } from './readable.js'
import path from 'node:path'
import { Document, isScalar, Scalar, visit } from 'yaml'
import { z } from 'zod'
import { oneLine } from './engine.js'
import { BUILT_IN_IDS } from './schema.js'
import type { ShellAnalysis } from './shell/analysis.js'
import { analyzeShell } from './shell/analyzer.js'
import type { MatcherKey } from './types.js'
import { parseRequestUrl } from './url.js'
import { expandTilde } from './request-paths.js'

export type RuleSuggestion =
  /**
   * `yaml`: rules to append to the policy's `rules:` list (list items at column 0);
   * `alternative`: one sentence on writing them with `decision: ask` instead.
   */
  | { kind: 'add-rule'; yaml: string; note: string; alternative: string }
  | { kind: 'explicit-deny'; note: string }
  | { kind: 'built-in'; note: string }
  /** An ask rule decided and the person did not approve (denied, no answer, nobody to ask). */
  | { kind: 'asked'; note: string }

/** A denied request: a Decision, or a report's permission record. */
export interface DenialInput {
  /** The permission kind as the CLI named it (`shell`, `write`, `custom-tool`, ...). */
  kind: string
  /** The deciding rule id: `default`, a policy rule's id, or a built-in check's id. */
  rule: string
  subject: string
  reason?: string
  /** The CLI's permission request (checked here; fields of the wrong type are ignored). */
  request?: unknown
  /** Shell requests: the decision's segments, so that only what no rule matched is proposed. */
  segments?: ReadonlyArray<{ text: string; decision: string; rule: string }>
  /**
   * A report's `approval` (its permission record's): `rule` is an ask rule, and the request
   * was denied because the person asked did not approve it.
   */
  approval?: { verdict: string } | null
}

export interface SuggestOptions {
  /** The policy's working directory: paths inside it are proposed relative to it. */
  workingDirectory?: string
  /**
   * The policy's rule ids. A denial by one of them is an explicit deny even when its id is also
   * the name of a built-in check; without them, ids of built-in checks are taken as those.
   */
  ruleIds?: Iterable<string>
}

/** The request fields a suggestion uses. */
const RequestFields = z.looseObject({
  fullCommandText: z.string().optional().catch(undefined),
  fileName: z.string().optional().catch(undefined),
  path: z.string().optional().catch(undefined),
  url: z.string().optional().catch(undefined),
  serverName: z.string().optional().catch(undefined),
  toolName: z.string().optional().catch(undefined),
  readOnly: z.boolean().optional().catch(undefined)
})
type RequestFields = z.infer<typeof RequestFields>

interface Check {
  /** What the check protects, when the denial has no reason. */
  why: string
  /** What the agent could do instead, when obvious. */
  instead?: string
  /** An allow rule naming the whole command text exactly overrides the check (engine.ts). */
  exactOverride?: boolean
}

/** The engine's own checks: no rule can allow what they deny (but see `exactOverride`). */
const CHECKS: Record<string, Check> = {
  unparsable: {
    why: 'the command could not be read reliably',
    instead: 'split it into simpler commands',
    exactOverride: true
  },
  'dynamic-command': {
    why: 'which program runs is only known when the command runs',
    instead: 'write the command out literally, without run-time expansion ($VAR, $(...))',
    exactOverride: true
  },
  network: {
    why: 'an option or operand makes the program reach the network',
    exactOverride: true
  },
  'dynamic-path': {
    why: 'a file the command writes is only known when it runs',
    instead: 'write the file name literally, without variables, ~ or a cd to an unknown directory'
  },
  'dynamic-argument': {
    why: 'an argument only known when the command runs could be an option with an effect',
    instead: 'write the argument literally'
  },
  'too-complex': {
    why: 'the command nests too deeply to be checked',
    instead: 'split it into simpler commands'
  },
  'evaluates-code': { why: 'bash would evaluate a variable value as code' },
  'protected-variable': {
    why: 'setting this variable can make an allowed command run other programs',
    instead: 'run the command without setting that variable'
  },
  'network-redirect': { why: "a redirection to bash's /dev/tcp or /dev/udp opens a connection" },
  'sensitive-path': {
    why: 'the path holds secrets (process environments, credentials, the git config)',
    instead: 'work with files inside the working directory'
  },
  'runs-code': { why: 'an option or operand makes the program run other code' },
  'writes-unknown': {
    why: 'the program writes files the policy cannot name before it runs',
    instead: 'edit the files directly'
  },
  'reads-secret': {
    why: 'the command would print a secret',
    instead: 'read only the setting needed (git config --get <key>)'
  },
  'hard-link': { why: 'the file has other names, which the rules do not see' },
  'policy-file': { why: 'the file is the policy the run was loaded from' },
  'links-then-writes': {
    why: 'the command may create symlinks and then write through them',
    instead: 'run the command that creates the links on its own first'
  },
  'runner-files': { why: "the runner's own files are trusted by later steps of the job" },
  'invalid-request': { why: 'the request is incomplete' },
  'unknown-kind': { why: 'the policy does not know this kind of permission request' }
}

/** Every id the engine decides by itself (BUILT_IN_IDS and the checks above). */
export const BUILT_IN_CHECK_IDS: readonly string[] = [
  ...new Set([...BUILT_IN_IDS, ...Object.keys(CHECKS)])
]

/** Denials meaning "no rule matched": an allow rule fixes them. */
const NO_RULE = new Set(['default', 'outside-workspace'])

/** Rules to add, by matcher, in the schema's key order. */
type Proposal = Partial<Record<Exclude<MatcherKey, 'memory'>, string[]>> & {
  memory?: true
  readOnly?: true
}

/** Why a request an ask rule routed to a person ended denied, by the approval's verdict. */
const NOT_APPROVED: Record<string, string> = {
  denied: 'a maintainer denied it',
  timeout: 'no maintainer approved it in time (approval-timeout-minutes)',
  unavailable: 'there was nobody to ask (no pull request or issue to comment on)'
}

export function suggestRule(denial: DenialInput, options: SuggestOptions = {}): RuleSuggestion {
  return suggestWithProposal(denial, options).suggestion
}

/** What the report advises for a denied request: a suggestion, or why none is given. */
export type Advice = RuleSuggestion | { kind: 'withheld'; note: string }

/**
 * Hosts an agent reaches to get packages or raw files past the policy: a rule allowing them
 * would sidestep the deny that sent it there. Installing is for the workflow's setup-commands.
 */
const REGISTRY_HOSTS = new Set([
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'npm.pkg.github.com',
  'pypi.org',
  'files.pythonhosted.org',
  'crates.io',
  'static.crates.io',
  'index.crates.io',
  'proxy.golang.org',
  'sum.golang.org',
  'rubygems.org',
  'repo1.maven.org',
  'repo.maven.apache.org',
  'api.nuget.org',
  'raw.githubusercontent.com',
  'objects.githubusercontent.com',
  'codeload.github.com',
  'registry-1.docker.io'
])

/**
 * The advice the run's report gives for a denied request: `suggestRule`, except that it never
 * proposes an allow rule for what lies outside the workspace's intent: a path outside the
 * working directory (a download to /tmp, a file in the home directory) or a package registry or
 * raw-file host. For those it says why no rule is suggested.
 */
export function adviseOnDenial(denial: DenialInput, options: SuggestOptions = {}): Advice {
  const { suggestion, proposal } = suggestWithProposal(denial, options)
  if (suggestion.kind !== 'add-rule' || proposal === undefined) return suggestion
  const unescape = (pattern: string): string => pattern.replace(/\\(.)/g, '$1')
  const outside = [...(proposal.read ?? []), ...(proposal.write ?? [])]
    .map(unescape)
    .find((p) => path.isAbsolute(p))
  if (outside !== undefined) {
    return {
      kind: 'withheld',
      note: `No rule is suggested: \`${outside}\` is outside the working directory, and the agent's work belongs inside it. Say in the prompt where it should put files, or give it what it needs in the workflow's setup-commands.`
    }
  }
  const registry = (proposal.url ?? [])
    .map((u) => parseRequestUrl(unescape(u))?.hostname)
    .find((host) => host !== undefined && REGISTRY_HOSTS.has(host.toLowerCase()))
  if (registry !== undefined) {
    return {
      kind: 'withheld',
      note: `No rule is suggested: \`${registry}\` serves packages and raw files, and allowing it would let the agent install around the policy. Install what the task needs in the workflow's setup-commands, before the agent starts.`
    }
  }
  return suggestion
}

function suggestWithProposal(
  denial: DenialInput,
  options: SuggestOptions
): { suggestion: RuleSuggestion; proposal?: Proposal } {
  const { rule } = denial
  if (denial.approval !== undefined && denial.approval !== null) {
    const why = NOT_APPROVED[denial.approval.verdict] ?? 'no maintainer approved it'
    return {
      suggestion: {
        kind: 'asked',
        note: `Rule "${rule}" asks a maintainer about this request, and ${why}; change the rule to decision: allow if the agent may do it without asking.`
      }
    }
  }
  const ruleIds = new Set(options.ruleIds ?? [])
  if (ruleIds.has(rule) || (!NO_RULE.has(rule) && !BUILT_IN_CHECK_IDS.includes(rule))) {
    return { suggestion: explicitDeny(rule) }
  }
  if (!NO_RULE.has(rule)) return { suggestion: builtIn(rule, denial.reason) }
  const parsed = RequestFields.safeParse(denial.request ?? {})
  const request: RequestFields = parsed.success ? parsed.data : {}
  const proposal = propose(denial, request, options)
  if (proposal === undefined) return { suggestion: builtIn('invalid-request', undefined) }
  const outside =
    (proposal.read ?? []).some((p) => path.isAbsolute(p)) ||
    (proposal.write ?? []).some((p) => path.isAbsolute(p))
  const rules = rulesOf(proposal)
  const these = rules.length === 1 ? 'this rule allows' : 'these rules allow'
  return {
    proposal,
    suggestion: {
      kind: 'add-rule',
      yaml: rulesYaml(rules),
      alternative: `With decision: ask instead of allow, a maintainer approves each such request.`,
      note: outside
        ? `No rule allows this path outside the working directory; ${these} exactly this request, so add ${rules.length === 1 ? 'it' : 'them'} only if the agent should reach it.`
        : `No rule matches this request, so the policy default denied it; ${these} exactly this request.`
    }
  }
}

function explicitDeny(rule: string): RuleSuggestion {
  const slash = rule.indexOf('/')
  if (slash > 0) {
    const preset = rule.slice(0, slash)
    return {
      kind: 'explicit-deny',
      note: `Rule "${rule}" of the built-in preset ${preset} denies this on purpose and a deny beats any allow, so no rule can allow it while the policy extends ${preset}.`
    }
  }
  return {
    kind: 'explicit-deny',
    note: `Rule "${rule}" denies this on purpose, and a deny beats any allow.`
  }
}

function builtIn(rule: string, reason: string | undefined): RuleSuggestion {
  const check = CHECKS[rule] ?? { why: 'the policy checks this itself' }
  const why = oneLine(reason ?? check.why).replace(/[.\s]+$/, '')
  const instead = check.instead !== undefined ? `; instead, ${check.instead}` : ''
  const note =
    check.exactOverride === true
      ? `The policy denies this whatever the rules say (${why}), unless an allow rule names this exact command text${instead}.`
      : `No rule can allow this: ${why}${instead}.`
  return { kind: 'built-in', note }
}

// ---------------------------------------------------------------------------------------------
// Proposals

function propose(
  denial: DenialInput,
  request: RequestFields,
  options: SuggestOptions
): Proposal | undefined {
  const subject = denial.subject
  switch (denial.kind) {
    case 'shell':
      return proposeShell(request.fullCommandText ?? subject.replace(/ ⏎ /g, '\n'), denial, options)
    case 'write': {
      const file = nonEmpty(request.fileName) ?? nonEmpty(subject)
      return file === undefined ? undefined : { write: [pathPattern(file, options)] }
    }
    case 'read': {
      const file = nonEmpty(request.path) ?? nonEmpty(subject)
      return file === undefined ? undefined : { read: [pathPattern(file, options)] }
    }
    case 'url': {
      const pattern = urlPattern(nonEmpty(request.url) ?? subject)
      return pattern === undefined ? undefined : { url: [pattern] }
    }
    case 'mcp': {
      let server = nonEmpty(request.serverName)
      let tool = nonEmpty(request.toolName)
      // the CLI's `SERVER-TOOL` is `SERVER/TOOL` in a rule
      if (server !== undefined && tool?.startsWith(`${server}-`) === true) {
        tool = nonEmpty(tool.slice(server.length + 1))
      }
      if (server === undefined || tool === undefined) {
        const slash = subject.indexOf('/')
        if (slash <= 0 || slash === subject.length - 1) return undefined
        server = subject.slice(0, slash)
        tool = subject.slice(slash + 1)
      }
      if (server.includes('/')) return undefined // a pattern splits server/tool at the first /
      const proposal: Proposal = { mcp: [`${escapeGlob(server)}/${escapeGlob(tool)}`] }
      if (request.readOnly === true) proposal.readOnly = true
      return proposal
    }
    case 'memory':
      return { memory: true }
    case 'custom-tool': {
      const tool = nonEmpty(request.toolName) ?? nonEmpty(subject)
      return tool === undefined ? undefined : { tool: [escapeGlob(tool)] }
    }
    default:
      return undefined
  }
}

/** The rules for what no rule matched in a shell command: its commands, writes and URLs. */
function proposeShell(
  text: string,
  denial: DenialInput,
  options: SuggestOptions
): Proposal | undefined {
  if (text.trim() === '') return undefined
  let analysis: ShellAnalysis
  try {
    analysis = analyzeShell(text)
  } catch {
    // the parser is not initialized: the command as one pattern (right for a simple command)
    return { shell: [escapeGlob(text.trim())] }
  }
  const unmatched =
    denial.segments === undefined
      ? undefined
      : new Set(
          denial.segments
            .filter((s) => s.decision === 'deny' && NO_RULE.has(s.rule))
            .map((s) => s.text)
        )
  const bases = cdBases(analysis, options)
  // the segments no rule matched; all of the command when they are not known (or do not match)
  return (
    collectShell(analysis, bases, options, unmatched) ??
    (unmatched !== undefined ? collectShell(analysis, bases, options, undefined) : undefined)
  )
}

function collectShell(
  analysis: ShellAnalysis,
  bases: string[] | undefined,
  options: SuggestOptions,
  unmatched: ReadonlySet<string> | undefined
): Proposal | undefined {
  const wanted = (segmentText: string) => unmatched === undefined || unmatched.has(segmentText)
  const out: Proposal = {}
  const add = (key: 'shell' | 'write' | 'url', pattern: string) => {
    const list = (out[key] ??= [])
    if (!list.includes(pattern)) list.push(pattern)
  }
  for (const item of analysis.items) {
    switch (item.type) {
      case 'command': {
        const { assignments, text: command } = item.command
        const allowText = assignments.length > 0 ? `${assignments.join(' ')} ${command}` : command
        if (wanted(oneLine(allowText))) add('shell', escapeGlob(allowText))
        break
      }
      case 'assignment':
        if (wanted(oneLine(item.text))) add('shell', escapeGlob(item.text))
        break
      case 'write': {
        if (!wanted(oneLine(item.text)) || !item.target.literal) break
        const target = expandTilde(item.target.text, item.target.tilde)
        if (target === undefined) break
        const absolutes = path.isAbsolute(target)
          ? [target]
          : (bases ?? []).map((b) => path.resolve(b, target))
        for (const absolute of absolutes) {
          const pattern = pathPattern(absolute, options)
          add('write', pattern)
          // a recursive write (`rm -r d`) needs everything below too
          if (item.subtree === true) add('write', pattern === '.' ? '**' : `${pattern}/**`)
        }
        break
      }
      case 'url': {
        if (!wanted(oneLine(item.text)) || !item.target.literal) break
        const pattern = urlPattern(item.target.text)
        if (pattern !== undefined) add('url', pattern)
        break
      }
      case 'problem':
        break
    }
  }
  return out.shell === undefined && out.write === undefined && out.url === undefined
    ? undefined
    : out
}

/**
 * Where relative paths of the command may resolve after its `cd`s, as the engine takes them: the
 * working directory and every directory a `cd` leads to (a `cd` may fail); undefined if unknown.
 */
function cdBases(analysis: ShellAnalysis, options: SuggestOptions): string[] | undefined {
  let bases = [path.resolve(options.workingDirectory ?? process.cwd())]
  for (const target of analysis.cdTargets) {
    if (target.kind === 'unknown') return undefined
    const dir =
      target.kind === 'home' ? homeDirectory() : expandTilde(target.word.text, target.word.tilde)
    if (dir === undefined) return undefined
    bases = [...new Set([...bases, ...bases.map((b) => path.resolve(b, dir))])]
  }
  return bases
}

/**
 * A `write`/`read` pattern naming exactly `file`: relative to the working directory when inside
 * it (`.` for the directory itself), else absolute; glob characters escaped.
 */
function pathPattern(file: string, options: SuggestOptions): string {
  const root =
    options.workingDirectory !== undefined ? path.resolve(options.workingDirectory) : undefined
  if (root === undefined) {
    if (path.isAbsolute(file)) return escapePathGlob(path.resolve(file))
    const normalized = path.posix.normalize(file.split(path.sep).join('/')).replace(/\/+$/, '')
    return escapePathGlob(normalized === '' ? '.' : normalized)
  }
  const absolute = path.resolve(root, file)
  const rel = path.relative(root, absolute)
  if (rel === '') return '.'
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    return escapePathGlob(absolute.split(path.sep).join('/'))
  }
  return escapePathGlob(rel.split(path.sep).join('/'))
}

/** A `url` pattern for exactly this URL's scheme, host, port and path; undefined if unparsable. */
function urlPattern(raw: string): string | undefined {
  const url = parseRequestUrl(raw)
  if (url === undefined) return undefined
  const port = url.port === '' ? '' : `:${url.port}`
  return `${url.protocol}//${url.hostname}${port}${escapePathGlob(url.pathname)}`
}

/** Escapes the policy glob's specials (shell, mcp and tool patterns): `*` and `\`. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*]/g, '\\$&')
}

/** Escapes picomatch's specials (write, read and url path patterns). */
export function escapePathGlob(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@]/g, '\\$&')
}

function nonEmpty(text: string | undefined): string | undefined {
  return text !== undefined && text !== '' && text !== '?' ? text : undefined
}

/** The proposal as rules (one per matcher), in the schema's key order. */
function rulesOf(proposal: Proposal): Array<Record<string, unknown>> {
  const rules: Array<Record<string, unknown>> = []
  for (const key of ['shell', 'write', 'read', 'url', 'mcp', 'tool'] as const) {
    const patterns = proposal[key]
    if (patterns === undefined || patterns.length === 0) continue
    const rule: Record<string, unknown> = { decision: 'allow', [key]: patterns }
    if (key === 'mcp' && proposal.readOnly === true) rule.readOnly = true
    rules.push(rule)
  }
  if (proposal.memory === true) rules.push({ decision: 'allow', memory: true })
  return rules
}

/** Rules as YAML list items; patterns double-quoted, lists in flow style. */
function rulesYaml(rules: Array<Record<string, unknown>>): string {
  const doc = new Document(rules)
  visit(doc, {
    Seq(_, node, ancestors) {
      if (ancestors.length <= 1) return // the list of rules
      // a rule's patterns: one line, each double-quoted so none is read as another YAML type
      node.flow = true
      for (const item of node.items) if (isScalar(item)) item.type = Scalar.QUOTE_DOUBLE
    }
  })
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false })
}
