/**
 * Decides permission requests against compiled rules. Synchronous; the bash parser must have
 * been initialized (the loader does that).
 *
 * The rules: a matching deny beats any ask, and an ask any allow; without a match the policy
 * default applies. For shell requests every simple command, every written file and every part
 * that cannot be known before the command runs is decided on its own: one denial denies the
 * request, else one ask asks a person about it. An ask rule never turns a built-in check's
 * denial into an ask: a person cannot approve what the engine refuses by itself.
 */
import {
  statOf,
  mayNameGitConfig,
  type TreeSource,
  walkTree,
  isDirectory,
  isExistingFile,
  hardLinked,
  SELF_PROC,
  GIT_DIRECTORY,
  NUMERIC_EXPANSION,
  loopSubstitutions,
  linkMaker,
  writesBesides,
  expandTilde,
  below
} from './request-paths.js'
import picomatch from 'picomatch'
import path from 'node:path'
import type { PermissionRequest } from '../cli/protocol.js'
import { compileGlob, globMatches, globMayMatchPrefix, literalOf, type Glob } from './glob.js'
import {
  compilePathGlob,
  PathError,
  pathGlobMatchesSubject,
  pathGlobMatchesTreeRoot,
  pathGlobMayMatchUnder,
  physicalPathUnder,
  inside as insideDirectory,
  realDirectory,
  subjectPath,
  resolveRequestPath,
  type SubjectPath,
  type PathGlob
} from './paths.js'
import {
  ATTACHED_DIRECTORY,
  commandSpellings,
  DIRECTORY_OPTION,
  globDirectory,
  namedPaths,
  pathOperands,
  readsRecursively,
  readsTreeContents,
  type CdTarget
} from './programs/index.js'
import { excerpt } from './errors.js'
import { untrustedRepository } from './repositories.js'
import {
  homeDirectory,
  inHome,
  namesHome,
  readPlace,
  readPlaces,
  SYSTEM_READ,
  type ReadPlace,
  type ReadPlaces
} from './readable.js'
import { GIT_CONFIG, runnerPaths, sensitiveDirectory, sensitiveWordReason } from './sensitive.js'
import type { ShellCommand, ShellItem } from './shell/analysis.js'
import { analyzeShell } from './shell/analyzer.js'
import { literalWord, type ShellWord } from './shell-word.js'
import { operandTargets, treeLinks, unknownRead } from './operand-reads.js'
import type { PresetName, SandboxMode } from './schema.js'
import type { PolicyTestCase } from './testing.js'
import type {
  Decision,
  DefaultVerdict,
  MatcherKey,
  Policy,
  SegmentDecision,
  Verdict
} from './types.js'
import { compileUrlPattern, parseRequestUrl, urlPatternMatches, type UrlPattern } from './url.js'

/** Where a rule was written (for messages, `check` and `explain`). */
export interface RuleOrigin {
  file: string
  line: number
  column: number
  /** The rule's index in that file's `rules:` list. */
  index: number
}

interface RuleBase {
  id: string
  decision: Verdict
  reason?: string
  /** The patterns as written (empty for `memory: true`). */
  patterns: string[]
  origin: RuleOrigin
}

export type CompiledRule = RuleBase &
  (
    | { matcher: 'shell'; globs: Glob[] }
    | {
        matcher: 'write' | 'read'
        paths: PathGlob[]
        /** Ask rules: the patterns as deny rules read them (any letter case), see `match`. */
        gatePaths?: PathGlob[]
      }
    | { matcher: 'url'; urls: UrlPattern[] }
    | { matcher: 'mcp'; tools: Array<{ server: Glob; tool: Glob }>; readOnly?: boolean }
    | { matcher: 'memory' }
    | { matcher: 'tool'; globs: Glob[] }
  )

export interface RuleSpec {
  id: string
  decision: Verdict
  reason?: string
  matcher: MatcherKey
  patterns: string[]
  origin: RuleOrigin
  /** mcp only: match only requests whose readOnly flag is this. */
  readOnly?: boolean
}

/** Compiles one rule's patterns; throws an Error naming the bad pattern's index. */
export class PatternError extends Error {
  constructor(
    readonly index: number,
    message: string,
    readonly fix: string
  ) {
    super(message)
  }
}

export function compileRule(spec: RuleSpec): CompiledRule {
  const base: RuleBase = {
    id: spec.id,
    decision: spec.decision,
    patterns: spec.patterns,
    origin: spec.origin
  }
  if (spec.reason !== undefined) base.reason = spec.reason
  const each = <T>(fn: (p: string, i: number) => T): T[] => spec.patterns.map((p, i) => fn(p, i))
  switch (spec.matcher) {
    case 'shell':
      return { ...base, matcher: 'shell', globs: each((p) => compileGlob(p)) }
    case 'tool':
      return { ...base, matcher: 'tool', globs: each((p) => compileGlob(p)) }
    case 'write':
    case 'read': {
      const rule: CompiledRule = {
        ...base,
        matcher: spec.matcher,
        paths: each((p, i) => {
          if (p.startsWith('!')) {
            throw new PatternError(
              i,
              `${excerpt(p)} is a negated glob`,
              'use a deny rule instead of "!"'
            )
          }
          const segments = p.split('/')
          if (!p.startsWith('/') && segments.includes('..')) {
            throw new PatternError(
              i,
              `${excerpt(p)} leaves the working directory and can never match`,
              'relative globs match inside the working directory only; use an absolute glob ' +
                'such as /tmp/** for paths outside it'
            )
          }
          return compilePathGlob(p, spec.decision === 'deny')
        })
      }
      if (spec.decision === 'ask') rule.gatePaths = each((p) => compilePathGlob(p, true))
      return rule
    }
    case 'url':
      return {
        ...base,
        matcher: 'url',
        urls: each((p, i) => {
          try {
            return compileUrlPattern(p)
          } catch (error) {
            throw new PatternError(
              i,
              (error as Error).message,
              'write a host (docs.github.com, *.example.com) or scheme://host/path-glob'
            )
          }
        })
      }
    case 'mcp':
      return {
        ...base,
        matcher: 'mcp',
        ...(spec.readOnly !== undefined ? { readOnly: spec.readOnly } : {}),
        tools: each((p, i) => {
          const slash = p.indexOf('/')
          if (slash <= 0 || slash === p.length - 1) {
            throw new PatternError(
              i,
              `${excerpt(p)} is not server/tool`,
              `write the MCP server and tool: ${excerpt(`${slash < 0 ? p : p.replace(/\//g, '')}/*`)} ` +
                'for every tool of a server, "github/get_*" for some'
            )
          }
          return {
            server: compileGlob(p.slice(0, slash)),
            tool: compileGlob(p.slice(slash + 1))
          }
        })
      }
    case 'memory':
      return { ...base, matcher: 'memory' }
  }
}

const KIND_MATCHER: Record<string, MatcherKey> = {
  shell: 'shell',
  write: 'write',
  read: 'read',
  url: 'url',
  mcp: 'mcp',
  memory: 'memory',
  'custom-tool': 'tool'
}

/**
 * The permission request `<matcher>: <subject>` names (a policy test, an explain query): the
 * inverse of KIND_MATCHER. Undefined for an mcp subject without a server before a `/`.
 */
export function requestOf(
  matcher: MatcherKey,
  subject: string,
  readOnly?: boolean
): PermissionRequest | undefined {
  switch (matcher) {
    case 'shell':
      return { kind: 'shell', fullCommandText: subject }
    case 'write':
      return { kind: 'write', fileName: subject }
    case 'read':
      return { kind: 'read', path: subject }
    case 'url':
      return { kind: 'url', url: subject }
    case 'memory':
      return { kind: 'memory' }
    case 'tool':
      return { kind: 'custom-tool', toolName: subject }
    case 'mcp': {
      const slash = subject.indexOf('/')
      if (slash <= 0) return undefined
      const request: PermissionRequest = {
        kind: 'mcp',
        serverName: subject.slice(0, slash),
        toolName: subject.slice(slash + 1)
      }
      if (readOnly !== undefined) request.readOnly = readOnly
      return request
    }
  }
}

/**
 * Built-in denials an allow rule naming the whole command text exactly (no `*`) overrides: the
 * author has read that command (`git pull`, an unusual construct) and allows just it. An ask
 * rule naming it exactly makes it an ask instead. No other built-in denial can be overridden.
 */
const EXPLICITLY_ALLOWABLE: ReadonlySet<string> = new Set([
  'unparsable',
  'dynamic-command',
  'network'
])

/** Redirect targets that are never files. */
const NULL_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr'])
/** Input redirections that read no file. */
const INPUT_DEVICES = new Set([
  '/dev/null',
  '/dev/stdin',
  '/dev/zero',
  '/dev/urandom',
  '/dev/random'
])

/** How many directories a command's `cd`s may lead to before relative paths are unknown. */
const MAX_CD_BASES = 16

/** Makes a subject one line: newlines become ⏎. */
export function oneLine(text: string): string {
  return text.replace(/\r?\n/g, ' ⏎ ').trim()
}

interface Verdicts {
  decision: Verdict
  rule: string
  reason?: string
  /** Ids of every rule that matched, deny, ask and allow, in policy order. */
  matched: string[]
}

/**
 * How a rule's patterns are tested against a request. `grant`: as an allow rule must name it
 * (the command with the variables it sets, where the file really lands). `gate`: as a deny rule
 * catches it (every spelling: the program's base name, each assignment, the prefix of a command
 * only known at run time, any letter case of a path, anything below a recursive write).
 */
type Reading = 'grant' | 'gate'

export interface EngineOptions {
  source: string
  builtIn: boolean
  rules: CompiledRule[]
  defaultDecision: DefaultVerdict
  workingDirectory: string
  /** The policy file's `tests:` section. */
  tests?: PolicyTestCase[]
  /** The presets the policy extends, nearest first. */
  presets?: PresetName[]
  /** `sandbox.mode` (default `auto`). */
  sandboxMode?: SandboxMode
  /** Directories no write may reach; default: `runnerPaths(process.env)`. */
  runnerPaths?: string[]
  /** The policy file as loaded and by its real path: no write reaches it (rule `policy-file`). */
  policyFiles?: readonly string[]
  /** What is readable outside the working directory without a rule; default: from process.env. */
  readPlaces?: ReadPlaces
}

export class PolicyEngine implements Policy {
  readonly source: string
  readonly builtIn: boolean
  readonly rules: readonly CompiledRule[]
  readonly defaultDecision: DefaultVerdict
  readonly workingDirectory: string
  readonly tests: readonly PolicyTestCase[]
  readonly presets: readonly PresetName[]
  readonly sandboxMode: SandboxMode
  readonly policyFiles: readonly string[] // lower case: as loaded, and its real path
  private readonly lexicalRoot: string
  private readonly realRoot: string
  /** Directories no write may reach (runnerPaths), less any that hold the working directory. */
  private readonly runnerRoots: string[]
  /** The system locations readable without a rule, and HOME (readable only by a rule in it). */
  private readonly places: ReadPlaces
  /** The rules of each matcher, in policy order (decide() must not filter 500 rules a call). */
  private readonly byMatcher = new Map<MatcherKey, CompiledRule[]>()
  private readonly ruleIds: ReadonlySet<string>
  /**
   * Shell deny and ask rules, and the rule naming each literal command text — the first ask
   * rule, else the first allow rule (explicitShellRule).
   */
  private readonly shellDenies: CompiledRule[] = []
  private readonly shellAsks: CompiledRule[] = []
  private readonly shellLiteralRules = new Map<string, CompiledRule>()

  constructor(options: EngineOptions) {
    this.source = options.source
    this.builtIn = options.builtIn
    this.rules = options.rules
    this.defaultDecision = options.defaultDecision
    this.workingDirectory = options.workingDirectory
    this.tests = options.tests ?? []
    this.presets = options.presets ?? []
    this.sandboxMode = options.sandboxMode ?? 'auto'
    const policyFiles = (options.policyFiles ?? []).map((p) => path.resolve(p).toLowerCase())
    this.policyFiles = [...new Set(policyFiles)]
    this.lexicalRoot = path.resolve(options.workingDirectory)
    this.realRoot = realDirectory(options.workingDirectory)
    this.runnerRoots = (options.runnerPaths ?? runnerPaths()).flatMap((p) => [p, realDirectory(p)])
    this.places = options.readPlaces ?? readPlaces(homeDirectory())
    for (const rule of this.rules) {
      const list = this.byMatcher.get(rule.matcher)
      if (list === undefined) this.byMatcher.set(rule.matcher, [rule])
      else list.push(rule)
    }
    this.ruleIds = new Set(this.rules.map((r) => r.id))
    for (const rule of this.rulesFor('shell')) {
      if (rule.matcher !== 'shell') continue
      if (rule.decision === 'deny') {
        this.shellDenies.push(rule)
        continue
      }
      if (rule.decision === 'ask') this.shellAsks.push(rule)
      for (const glob of rule.globs) {
        const literal = literalOf(glob)
        if (literal === undefined) continue
        const named = this.shellLiteralRules.get(literal)
        if (named === undefined || (named.decision === 'allow' && rule.decision === 'ask'))
          this.shellLiteralRules.set(literal, rule)
      }
    }
  }

  private rulesFor(matcher: MatcherKey): readonly CompiledRule[] {
    return this.byMatcher.get(matcher) ?? []
  }

  decide(request: PermissionRequest): Decision {
    this.physicalCache.clear()
    const kind = typeof request.kind === 'string' ? request.kind : String(request.kind)
    const matcher = KIND_MATCHER[kind]
    switch (matcher) {
      case 'shell':
        return this.decideShell(request)
      case 'write':
        return this.decideFile(kind, 'write', request.fileName)
      case 'read':
        return this.decideFile(kind, 'read', request.path)
      case 'url':
        return this.decideUrl(request)
      case 'mcp': {
        const { serverName, toolName } = request
        if (!nonEmpty(serverName) || !nonEmpty(toolName)) {
          return invalid(kind, `${serverName ?? '?'}/${toolName ?? '?'}`, 'serverName and toolName')
        }
        // The CLI names an MCP tool `SERVER-TOOL` (what the model sees); rules name it as users
        // write it, `SERVER/TOOL`. A deny or ask rule matches either spelling.
        const prefix = `${serverName}-`
        const tool = toolName.startsWith(prefix) ? toolName.slice(prefix.length) : toolName
        return this.finish(
          kind,
          `${serverName}/${tool}`,
          this.match(
            'mcp',
            (r, reading) =>
              r.matcher === 'mcp' &&
              (r.readOnly === undefined || r.readOnly === (request.readOnly === true)) &&
              r.tools.some(
                (t) =>
                  globMatches(t.server, serverName) &&
                  (globMatches(t.tool, tool) ||
                    (reading !== 'grant' && globMatches(t.tool, toolName)))
              )
          )
        )
      }
      case 'memory':
        return this.finish(
          kind,
          'memory',
          this.match('memory', () => true)
        )
      case 'tool': {
        const { toolName } = request
        if (!nonEmpty(toolName)) return invalid(kind, '?', 'toolName')
        return this.finish(
          kind,
          toolName,
          this.match('tool', (r) =>
            r.matcher === 'tool' ? r.globs.some((g) => globMatches(g, toolName)) : false
          )
        )
      }
      default:
        return {
          decision: 'deny',
          rule: 'unknown-kind',
          reason: `the policy does not know permission requests of kind "${kind}"`,
          kind,
          subject: oneLine(kind)
        }
    }
  }

  private finish(kind: string, subject: string, verdicts: Verdicts): Decision {
    const decision: Decision = {
      decision: verdicts.decision,
      rule: verdicts.rule,
      kind,
      subject: oneLine(subject),
      matched: verdicts.matched
    }
    if (verdicts.reason !== undefined) decision.reason = verdicts.reason
    return decision
  }

  /**
   * Runs the rules of one matcher: the first matching deny; else the first ask rule that matches
   * as an allow rule would (`grant`); else the first matching allow, the fallback or the default
   * — and when that allows, the first ask rule that matches as a deny rule would (`gate`) asks
   * instead. So an ask rule holds back every spelling a deny rule would catch, but makes askable
   * only what an allow rule in its place would allow.
   */
  private match(
    matcher: MatcherKey,
    test: (rule: CompiledRule, reading: Reading) => boolean,
    fallback?: () => Verdicts | undefined,
    candidates: readonly CompiledRule[] = this.rulesFor(matcher)
  ): Verdicts {
    let deny: CompiledRule | undefined
    let ask: CompiledRule | undefined
    let gate: CompiledRule | undefined
    let allow: CompiledRule | undefined
    const matched: string[] = []
    for (const rule of candidates) {
      switch (rule.decision) {
        case 'deny':
          if (!test(rule, 'gate')) continue
          deny ??= rule
          break
        case 'allow':
          if (!test(rule, 'grant')) continue
          allow ??= rule
          break
        case 'ask':
          if (test(rule, 'grant')) ask ??= rule
          else if (test(rule, 'gate')) gate ??= rule
          else continue
          break
      }
      matched.push(rule.id)
    }
    const winner = deny ?? ask
    if (winner !== undefined) return ruleVerdicts(winner, matched)
    const otherwise =
      allow !== undefined
        ? ruleVerdicts(allow, matched)
        : (fallback?.() ?? {
            decision: this.defaultDecision,
            rule: 'default',
            reason: `no rule matches; the policy default is ${this.defaultDecision}`,
            matched
          })
    if (gate !== undefined && otherwise.decision === 'allow') return ruleVerdicts(gate, matched)
    return otherwise
  }

  // -------------------------------------------------------------------------------------------
  // Files

  private decideFile(kind: string, matcher: 'write' | 'read', requested: string | undefined) {
    if (!nonEmpty(requested)) return invalid(kind, '?', matcher === 'write' ? 'fileName' : 'path')
    return this.finish(kind, requested, this.pathVerdicts(matcher, requested, this.lexicalRoot))
  }

  /**
   * The paths (relative to the written path) a recursive write puts or removes below it, where
   * they can be known: what is there now for a removal, the source trees for a copy; undefined
   * when anything may land there (an archive, a source only known at run time, a huge tree).
   */
  private treeBelow(tree: TreeSource, target: string, base: string): string[] | undefined {
    if (tree.removes === true) {
      const dir = path.resolve(base, target)
      const stat = statOf(dir)
      return stat === undefined ? [] : stat.isDirectory() ? walkTree(dir) : []
    }
    if (tree.from === undefined) return undefined
    const out: string[] = []
    for (const source of tree.from) {
      const expanded = source.literal ? expandTilde(source.text, source.tilde) : undefined
      if (expanded === undefined) return undefined
      let real: string
      try {
        real = this.physical(path.resolve(base, expanded))
      } catch {
        return undefined
      }
      // cp follows a symlink given as a source (-L, -H, a plain copy): judge its target's tree.
      // A source that is not there yet is what an earlier command of the request makes, and
      // those writes are judged on their own.
      const stat = statOf(real)
      if (stat === undefined || !stat.isDirectory()) continue
      const entries = walkTree(real)
      if (entries === undefined) return undefined
      out.push(...entries)
    }
    return out
  }

  /** Decides one path against the `write` or `read` rules; relative paths resolve against `base`. */
  private pathVerdicts(
    matcher: 'write' | 'read',
    requested: string,
    base: string,
    subtree = false,
    entries?: string[]
  ): Verdicts {
    let lexical: string
    let real: string[]
    try {
      ;({ lexical, real } = resolveRequestPath(requested, base, this.physical))
    } catch (error) {
      if (!(error instanceof PathError)) throw error
      return { decision: 'deny', rule: 'invalid-request', reason: error.message, matched: [] }
    }
    if (matcher === 'read' && SELF_PROC.test(lexical)) {
      // /proc/self is the reading process: judged as written, not as the link the engine sees
      const place = readPlace(lexical, this.places)
      return place.kind === 'system'
        ? { decision: 'allow', rule: SYSTEM_READ, reason: place.reason, matched: [] }
        : {
            decision: 'deny',
            rule: 'sensitive-path',
            reason: place.kind === 'never' ? place.reason : `${lexical} is not readable`,
            matched: []
          }
    }
    const lexicalPath = subjectPath(lexical, this.lexicalRoot)
    const realPaths = real.map((r) => subjectPath(r, this.realRoot))
    const offLimits = this.offLimits(matcher, [lexicalPath, ...realPaths])
    if (offLimits !== undefined) return offLimits
    // a recursive write (`git checkout -- f`, `rm -r f`) of an existing file is that file alone
    if (subtree && real.every((r) => isExistingFile(r))) subtree = false
    // where what lands below is known (`rm -r build`, `cp -r src x`), deny rules see those paths
    const known =
      subtree && entries !== undefined
        ? [lexicalPath, ...realPaths].flatMap((p) => [
            p,
            ...entries.map((rel) => ({
              absolute: `${p.absolute}/${rel}`,
              relative:
                p.relative === undefined
                  ? undefined
                  : p.relative === '.'
                    ? rel
                    : `${p.relative}/${rel}`
            }))
          ])
        : undefined
    // A read of a directory may read its whole tree (the CLI's grep and glob tools ask for their
    // search root): a deny glob anywhere below it denies the read.
    const readsTree = matcher === 'read' && realPaths.some((r) => isDirectory(r.absolute))
    return this.match(
      matcher,
      (rule, reading) => {
        if (rule.matcher !== 'write' && rule.matcher !== 'read') return false
        // deny when any reading of the path (or, for a recursive write or a directory read, of
        // a path below it) matches; a read of the directory a glob covers the whole tree below
        // (`secrets` for `secrets/**`) is a read of that tree
        if (reading === 'gate') {
          const globs = rule.gatePaths ?? rule.paths
          if (known !== undefined) {
            return globs.some((g) =>
              known.some((p) => pathGlobMatchesSubject(g, p) || pathGlobMatchesTreeRoot(g, p))
            )
          }
          const hits =
            subtree || readsTree
              ? pathGlobMayMatchUnder
              : matcher === 'read'
                ? (g: PathGlob, p: SubjectPath) =>
                    pathGlobMatchesSubject(g, p) || pathGlobMatchesTreeRoot(g, p)
                : pathGlobMatchesSubject
          return globs.some((g) => hits(g, lexicalPath) || realPaths.some((r) => hits(g, r)))
        }
        // allow only when where the write really lands matches (and, recursively, all below it);
        // a read of an existing directory whose whole tree a glob allows (`.` for `**`) too.
        // In HOME (outside the working directory) only a glob naming a path in HOME reads.
        return realPaths.every((r) => {
          const globs =
            matcher === 'read' && inHome(r, this.places.home)
              ? rule.paths.filter((g) => namesHome(g, this.places.home))
              : rule.paths
          return (
            (subtree ? [r, below(r)] : [r]).every((p) =>
              globs.some((g) => pathGlobMatchesSubject(g, p))
            ) ||
            (matcher === 'read' &&
              globs.some((g) => pathGlobMatchesTreeRoot(g, r)) &&
              isDirectory(r.absolute))
          )
        })
      },
      () => {
        const outside = realPaths.filter((r) => r.relative === undefined)
        if (outside.length === 0) return undefined
        if (matcher === 'read') {
          // outside the working directory, a read no rule allows is the allowlist's to decide
          const places = outside.map((r) => readPlace(r.absolute, this.places))
          const closed = places.findIndex((p) => p.kind !== 'system')
          if (closed < 0) {
            const first = places[0] as ReadPlace & { kind: 'system' }
            return { decision: 'allow', rule: SYSTEM_READ, reason: first.reason, matched: [] }
          }
          const at = (outside[closed] as SubjectPath).absolute
          const place = places[closed] as ReadPlace
          return {
            decision: 'deny',
            rule: place.kind === 'never' ? 'sensitive-path' : 'outside-workspace',
            reason:
              place.kind === 'never'
                ? place.reason
                : place.kind === 'home'
                  ? `${at} is in HOME, which only a read rule naming a path in it opens`
                  : `${at} is outside the working directory, and neither a rule nor the system locations tools need (/usr, /etc, /opt, the toolchains) allow it`,
            matched: []
          }
        }
        return {
          decision: 'deny',
          rule: 'outside-workspace',
          reason: `${(outside[0] as SubjectPath).absolute} is outside the working directory and no rule allows it`,
          matched: []
        }
      }
    )
  }

  /**
   * Paths no rule can open up: outside the working directory, the runner's own files and HOME
   * (writes), /proc environments and HOME's credentials (reads and writes).
   */
  private offLimits(matcher: 'write' | 'read', paths: SubjectPath[]): Verdicts | undefined {
    for (const p of paths) {
      if (matcher === 'read' && p.relative !== undefined && GIT_CONFIG.test(p.relative)) {
        // actions/checkout keeps the job's token in it (http.extraheader)
        return {
          decision: 'deny',
          rule: 'sensitive-path',
          reason: `${p.relative} is the repository's git configuration, which can hold a token`,
          matched: []
        }
      }
      if (matcher === 'write' && this.policyFiles.includes(p.absolute.toLowerCase())) {
        // the policy's own file under any name (a symlink to it, the file a symlinked policy leads
        // to) and letter case (a case-insensitive disk)
        return {
          decision: 'deny',
          rule: 'policy-file',
          reason: `${p.relative ?? p.absolute} is the policy file the run was loaded from`,
          matched: []
        }
      }
      if (matcher === 'write' && hardLinked(p.absolute)) {
        return {
          decision: 'deny',
          rule: 'hard-link',
          reason: `${p.absolute} has other names (a hard link): a write would change files the rules do not see`,
          matched: []
        }
      }
      if (p.relative !== undefined) continue
      if (matcher === 'read') {
        // a secret of the system (`/etc/shadow`, a file kept from other users): no rule opens it
        const place = readPlace(p.absolute, this.places)
        if (place.kind === 'never' && !p.absolute.startsWith('/proc')) {
          return { decision: 'deny', rule: 'sensitive-path', reason: place.reason, matched: [] }
        }
      }
      if (matcher === 'write') {
        const lower = p.absolute.toLowerCase()
        const root = this.runnerRoots.find(
          (r) => lower === r.toLowerCase() || lower.startsWith(`${r.toLowerCase()}/`)
        )
        if (root !== undefined && insideDirectory(this.lexicalRoot, p.absolute) === undefined) {
          return {
            decision: 'deny',
            rule: 'runner-files',
            reason: `${p.absolute} is among the runner's own files (${root}), which later steps of the job trust`,
            matched: []
          }
        }
      }
      const reason = sensitiveWordReason({ text: p.absolute, literal: true, prefix: p.absolute })
      if (reason !== undefined) {
        return { decision: 'deny', rule: 'sensitive-path', reason, matched: [] }
      }
    }
    return undefined
  }

  // -------------------------------------------------------------------------------------------
  // URLs

  private decideUrl(request: PermissionRequest): Decision {
    const kind = request.kind
    const raw = request.url
    if (!nonEmpty(raw)) return invalid(kind, '?', 'url')
    return this.finish(kind, raw, this.urlVerdicts({ text: raw, literal: true }))
  }

  /** Decides one URL (a `url` request, or a URL a shell command reaches) against the url rules. */
  private urlVerdicts(target: { text: string; literal: boolean }): Verdicts {
    if (!target.literal) return onlyKnownWhenRun('dynamic-argument', `the URL "${target.text}"`)
    const url = parseRequestUrl(target.text)
    if (url === undefined) {
      return { decision: 'deny', rule: 'unparsable', reason: 'the URL does not parse', matched: [] }
    }
    return this.match('url', (r) =>
      r.matcher === 'url' ? r.urls.some((u) => urlPatternMatches(u, url)) : false
    )
  }

  // -------------------------------------------------------------------------------------------
  // Shell

  /**
   * The rule naming the whole command text literally (an ask rule before an allow rule), unless
   * a deny rule matches that text; an allow becomes an ask when an ask rule matches the text.
   * It overrides the built-in denials in EXPLICITLY_ALLOWABLE.
   */
  private explicitShellRule(text: string): CompiledRule | undefined {
    const whole = text.trim()
    const named = this.shellLiteralRules.get(whole)
    if (named === undefined) return undefined
    const matches = (rule: CompiledRule) =>
      rule.matcher === 'shell' && rule.globs.some((g) => globMatches(g, whole))
    if (this.shellDenies.some(matches)) return undefined
    if (named.decision === 'allow') return this.shellAsks.find(matches) ?? named
    return named
  }

  private decideShell(request: PermissionRequest): Decision {
    const kind = request.kind
    const text = request.fullCommandText
    if (!nonEmpty(text) || text.trim() === '') return invalid(kind, '?', 'fullCommandText')
    const subject = oneLine(text)
    const analysis = analyzeShell(text)
    const explicit = this.explicitShellRule(text)
    const bases = this.cdBases(analysis.cdTargets)
    const segments: SegmentDecision[] = []
    for (const item of analysis.items) segments.push(this.shellSegment(item, explicit, bases))
    if (bases === undefined && analysis.cdTargets.length > 0) {
      segments.push({
        text: subject,
        decision: 'deny',
        rule: 'dynamic-path',
        reason: 'the command changes to a directory only known when it runs'
      })
    }
    const sensitive = this.sensitivePlaces(analysis.items, bases)
    if (sensitive !== undefined) {
      segments.push({ text: subject, decision: 'deny', rule: 'sensitive-path', reason: sensitive })
    }
    segments.push(...this.outsideReads(analysis.items, bases))
    const repository = untrustedRepository(analysis.items, bases, this.physical, this.realRoot)
    if (repository !== undefined) {
      const allowed = explicit?.decision === 'allow'
      segments.push({
        text: subject,
        decision: allowed ? 'allow' : 'deny',
        rule: allowed ? explicit.id : 'untrusted-repository',
        reason: repository
      })
    }
    const built = this.builtPaths(analysis.items, bases)
    if (built !== undefined) {
      segments.push({ text: subject, decision: 'deny', rule: 'dynamic-path', reason: built })
    }
    const linker = linkMaker(analysis.items)
    if (
      linker !== undefined &&
      (analysis.cdTargets.length > 0 || writesBesides(analysis.items, linker))
    ) {
      // paths are resolved before the command runs: a link it makes first is not there yet
      segments.push({
        text: subject,
        decision: 'deny',
        rule: 'links-then-writes',
        reason: `${linker.text} may create symlinks, and the same command then writes or changes directory through paths that could run through them: run it on its own first`
      })
    }
    if (segments.length === 0) {
      segments.push({
        text: subject,
        decision: 'deny',
        rule: 'unparsable',
        reason: 'no command found'
      })
    }
    const denied = decidingDenial(segments, this.ruleIds)
    if (denied !== undefined) {
      const decision: Decision = { decision: 'deny', rule: denied.rule, kind, subject, segments }
      if (denied.reason !== undefined) decision.reason = denied.reason
      return decision
    }
    const asked = segments.filter((s) => s.decision === 'ask')
    if (asked.length > 0) {
      const ids = [...new Set(asked.map((s) => s.rule))]
      const reasons = [...new Set(asked.flatMap((s) => (s.reason === undefined ? [] : [s.reason])))]
      const decision: Decision = { decision: 'ask', rule: ids.join(', '), kind, subject, segments }
      if (reasons.length > 0) decision.reason = reasons.join('; ')
      return decision
    }
    const deciding = segments.filter((s) => s.rule !== 'null-device')
    const ids = [...new Set((deciding.length > 0 ? deciding : segments).map((s) => s.rule))]
    return { decision: 'allow', rule: ids.join(', '), kind, subject, segments }
  }

  private shellSegment(
    item: ShellItem,
    explicit: CompiledRule | undefined,
    bases: string[] | undefined
  ): SegmentDecision {
    switch (item.type) {
      case 'problem':
        if (explicit !== undefined && EXPLICITLY_ALLOWABLE.has(item.id)) {
          return segment(oneLine(item.text), {
            decision: explicit.decision,
            rule: explicit.id,
            reason:
              explicit.decision === 'ask'
                ? (explicit.reason ?? 'the rule asks a person about this exact command text')
                : 'the rule allows this exact command text',
            matched: [explicit.id]
          })
        }
        return segment(oneLine(item.text), {
          decision: 'deny',
          rule: item.id,
          reason: item.reason,
          matched: []
        })
      case 'command': {
        const { assignments, text } = item.command
        const shown = assignments.length > 0 ? `${assignments.join(' ')} ${text}` : text
        return segment(oneLine(shown), this.commandVerdicts(item.command))
      }
      case 'assignment': {
        // an assignment is a command: an allow rule must name it (deny rules match each one)
        const variants = [item.text, ...item.assignments]
        return segment(
          oneLine(item.text),
          this.match(
            'shell',
            (rule, reading) =>
              rule.matcher === 'shell' &&
              (reading === 'grant'
                ? rule.globs.some((g) => globMatches(g, item.text))
                : rule.globs.some((g) => variants.some((v) => globMatches(g, v)))),
            undefined,
            this.shellCandidates(item.text)
          )
        )
      }
      case 'write':
        return segment(
          oneLine(item.text),
          this.targetVerdicts('write', item.target, bases, item.subtree === true, item)
        )
      case 'read':
        return segment(oneLine(item.text), this.inputVerdicts(item.target, bases))
      case 'url':
        return segment(oneLine(item.text), this.urlVerdicts(item.target))
    }
  }

  private commandVerdicts(command: ShellCommand): Verdicts {
    const literal = command.words.every((w) => w.literal)
    const name = command.words[0]?.text ?? ''
    const base = path.basename(name)
    // the text known before the command runs, and the same with the program's base name
    let known = ''
    if (!literal) {
      const words: string[] = []
      for (const w of command.words) {
        if (!w.literal) {
          if (w.prefix !== '') words.push(w.prefix)
          break
        }
        words.push(w.text)
      }
      known = words.join(' ')
    }
    const withBase = (t: string) => (base !== name ? base + t.slice(name.length) : undefined)
    const assigned = command.assignments.join(' ')
    const withAssignments = (t: string) => (assigned !== '' ? `${assigned} ${t}` : undefined)
    const allowText = withAssignments(command.text) ?? command.text
    const denyTexts = literal
      ? [command.text, withBase(command.text), withAssignments(command.text)]
      : []
    const denyPrefixes = literal ? [] : [known, withBase(known), withAssignments(known)]
    // the same command spelled otherwise (`npm --registry=x publish`, `npm pub`): what a deny
    // or ask rule catches in one spelling it catches in all
    for (const spelling of commandSpellings(command.words)) {
      const dynamic = spelling.findIndex((w) => !w.literal)
      if (dynamic < 0) {
        const text = spelling.map((w) => w.text).join(' ')
        denyTexts.push(text, withBase(text))
      } else {
        const words = spelling.slice(0, dynamic).map((w) => w.text)
        const prefix = spelling[dynamic]?.prefix ?? ''
        const known = [...words, ...(prefix === '' ? [] : [prefix])].join(' ')
        denyPrefixes.push(known, withBase(known))
      }
    }
    return this.match(
      'shell',
      (rule, reading) => {
        if (rule.matcher !== 'shell') return false
        // Variables set for a command steer what it does (GIT_EXTERNAL_DIFF=cmd git diff,
        // NODE_OPTIONS=--require=x npm test): an allow rule must name them too.
        if (reading === 'grant') return rule.globs.some((g) => globMatches(g, allowText))
        return rule.globs.some(
          (g) =>
            denyTexts.some((t) => t !== undefined && globMatches(g, t)) ||
            denyPrefixes.some((t) => t !== undefined && globMayMatchPrefix(g, t)) ||
            command.assignments.some((a) => globMatches(g, a))
        )
      },
      undefined,
      this.shellCandidates(allowText)
    )
  }

  private readonly shellBuckets = new Map<string, CompiledRule[]>()

  /**
   * The shell rules that can match a command whose allow text is `text`, in policy order: every
   * deny and ask rule (they also test other spellings of the command), and the allow rules with a
   * glob that starts with a star or with the text's first character (`globMatches` needs that
   * prefix).
   */
  private shellCandidates(text: string): readonly CompiledRule[] {
    const key = text.charAt(0)
    let bucket = this.shellBuckets.get(key)
    if (bucket === undefined) {
      bucket = this.rulesFor('shell').filter(
        (r) =>
          r.matcher === 'shell' &&
          (r.decision !== 'allow' ||
            r.globs.some((g) => g.parts[0] === '' || (g.parts[0] as string).charAt(0) === key))
      )
      this.shellBuckets.set(key, bucket)
    }
    return bucket
  }

  /**
   * The directories relative paths may resolve against after the command's `cd`s, each both as
   * bash's logical `cd` and as the kernel's physical one (`cd -P link/..`); undefined when a
   * target is only known at run time or there are too many.
   */
  private cdBases(targets: CdTarget[]): string[] | undefined {
    let bases = [this.lexicalRoot]
    for (const target of targets) {
      let dir: string
      if (target.kind === 'unknown') return undefined
      if (target.kind === 'home') {
        dir = homeDirectory()
      } else {
        const expanded = expandTilde(target.word.text, target.word.tilde)
        if (expanded === undefined) return undefined
        dir = expanded
      }
      const next = new Set(bases)
      for (const b of bases) {
        next.add(path.resolve(b, dir))
        try {
          next.add(this.physical(path.isAbsolute(dir) ? dir : `${b}/${dir}`))
        } catch {
          return undefined // a symlink loop
        }
      }
      bases = [...next]
      if (bases.length > MAX_CD_BASES) return undefined
    }
    return bases
  }

  /**
   * physicalPath, looking up only the components below the working directory when inside it,
   * and each path once per decision (a command's argument is often its write target too).
   */
  private readonly physical = (p: string): string => {
    let resolved = this.physicalCache.get(p)
    if (resolved === undefined) {
      resolved = physicalPathUnder(p, this.lexicalRoot, this.realRoot)
      this.physicalCache.set(p, resolved)
    }
    return resolved
  }

  /** physical()'s answers for the decision being made (the file system may change between). */
  private readonly physicalCache = new Map<string, string>()

  /** Whether an absolute, normalized path lies in the working directory (either spelling). */
  private insideRoot(p: string): boolean {
    return (
      subjectPath(p, this.realRoot).relative !== undefined ||
      subjectPath(p, this.lexicalRoot).relative !== undefined
    )
  }

  /**
   * Why the command's `cd`s or path arguments reach a place no command may touch (`cd /proc/1`,
   * `cd ~ && cat .ssh/id_rsa`, a workspace symlink into /proc, `--from-file=../../.ssh/id_rsa`,
   * a glob in HOME or /proc), or undefined. Each path is taken both as written and through the
   * file system's symlinks, from every directory the command's `cd`s may lead to.
   */
  private sensitivePlaces(items: ShellItem[], bases: string[] | undefined): string | undefined {
    if (bases === undefined) return undefined
    const home = homeDirectory()
    for (const base of bases) {
      if (this.insideRoot(base)) continue
      const reason = sensitiveDirectory(base, home)
      if (reason !== undefined) return reason
    }
    for (const item of items) {
      if (item.type !== 'command') continue
      const words = item.command.words
      // a program that reads a whole tree: a directory operand holding HOME or /proc reaches them
      const recursive = readsRecursively(words)
      // a program that reads (or renames) the files of a tree: given the repository's .git
      // directory, it reads the token in .git/config
      const contents = readsTreeContents(words)
      for (let i = 1; i < words.length; i++) {
        const word = words[i] as ShellWord
        const operand = !word.text.startsWith('-')
        const reason =
          this.sensitiveWord(word, bases, home) ??
          (DIRECTORY_OPTION.test(words[i - 1]?.text ?? '') ||
          ATTACHED_DIRECTORY.test(word.text) ||
          (recursive && operand)
            ? this.sensitiveDirectoryWord(word, bases, home)
            : undefined) ??
          (contents && operand ? this.gitDirectoryWord(word, bases) : undefined)
        if (reason !== undefined) return `${word.text}: ${reason}`
      }
    }
    return undefined
  }

  /**
   * Why a tree a program reads the files of (`grep -r x .git`, `tar c .git`, `cp -r .git x`)
   * holds the repository's git configuration, or undefined: the word names a `.git` directory
   * or a path inside one, as written or through symlinks, or is a pattern that can match one.
   * The working directory itself (`grep -r x .`) is left to the checkout: keep the token out of
   * it (`persist-credentials: false`).
   */
  private gitDirectoryWord(word: ShellWord, bases: string[]): string | undefined {
    const reason = "a tree that holds the repository's git configuration, which can hold a token"
    if (!word.literal) {
      if (/[$`]/.test(word.text)) return undefined // judged by sensitiveDirectoryWord
      let re: RegExp
      try {
        re = picomatch.makeRe(word.text.replace(/^\.\//, ''), { dot: true, nocase: true })
      } catch {
        return reason
      }
      return ['.git', '.git/x', 'x/.git'].some((p) => re.test(p)) ? reason : undefined
    }
    const expanded = expandTilde(word.text, word.tilde)
    if (expanded === undefined) return undefined
    for (const candidate of this.pathCandidates(expanded, bases)) {
      const inside =
        subjectPath(candidate, this.realRoot).relative ??
        subjectPath(candidate, this.lexicalRoot).relative
      if (inside !== undefined && GIT_DIRECTORY.test(inside)) return reason
    }
    return undefined
  }

  /**
   * Why a file a program reads is built when the command runs (`cat $(echo ~)/.ssh/id_rsa`,
   * `head "$(printf .gi)t/config"`, `cat ${HOME%/}/.ssh/x`), or undefined. An expansion or a
   * command substitution may hold `/` and `..`, so no literal part around it rules out a secret:
   * only numbers (`$?`, `$$`, `$((…))`) and HOME are known. Globs are judged by the files they
   * can match (sensitiveWord); words in a program's pattern or script position are not paths.
   */
  private builtPaths(items: ShellItem[], bases: string[] | undefined): string | undefined {
    const home = homeDirectory()
    for (const item of items) {
      if (item.type !== 'command') continue
      for (const word of pathOperands(item.command.words)) {
        if (word.literal || !/[$`]/.test(word.text)) continue
        // a process substitution is a pipe (/dev/fd/N): what runs in it is judged on its own
        if (/^[<>]\([\s\S]*\)$/.test(word.text)) continue
        const known = word.text
          .replace(NUMERIC_EXPANSION, '1')
          .replace(/\$\{HOME\}|\$HOME(?![A-Za-z0-9_])/g, home)
        for (const value of loopSubstitutions(known, item.command.loops ?? {})) {
          if (/[$`]/.test(value) || /\\/.test(value)) {
            return `${word.text}: a file name built when the command runs could name a secret (.git/config, /proc/<pid>/environ, HOME's credentials): name the file`
          }
          const glob = /[*?[]/.test(value)
          const prefix = glob ? value.slice(0, value.search(/[*?[]/)) : value
          const reason = this.sensitiveWord(
            { text: value, literal: !glob, prefix, tilde: false },
            bases ?? [this.lexicalRoot],
            home
          )
          if (reason !== undefined) return `${word.text}: ${reason}`
        }
      }
    }
    return undefined
  }

  /**
   * The files and directories the request's commands name outside the working directory (`cat
   * /etc/os-release`, `ls ../other`, `cd /tmp`, `grep -r x ~/.m2`, `--config=/srv/x`): each is a
   * read, which outside the working directory only a rule or the system locations allow (see
   * readable.ts), in every spelling and glob match, links in followed trees too (operand-reads.ts).
   */
  private outsideReads(items: ShellItem[], bases: string[] | undefined): SegmentDecision[] {
    if (bases === undefined) return []
    const written = new Set(items.flatMap((i) => (i.type === 'write' ? [i.target.text] : [])))
    const out: SegmentDecision[] = []
    const readings = (p: string) => this.pathCandidates(p, bases)
    const seen = new Set<string>()
    for (const item of items) {
      if (item.type !== 'command') continue
      for (const word of namedPaths(item.command.words)) {
        if (written.has(word.text) || word.text.includes('://') || seen.has(word.text)) continue
        seen.add(word.text)
        if (!word.literal && !/[$`]/.test(word.text) && item.command.via.includes('xargs')) {
          // xargs hands the command names from its input (`-a FILE`, a pipe, `-I{}`)
          const program = path.basename(item.command.words[0]?.text ?? '')
          const reason = `xargs gives ${program} file names from its input, which the policy cannot see`
          out.push(segment(oneLine(`read: ${word.text}`), unknownRead(reason)))
          continue
        }
        const targets = operandTargets(word, item.command, bases)
        if (!Array.isArray(targets)) {
          out.push(segment(oneLine(`read: ${word.text}`), targets))
          continue
        }
        const listed = word.literal ? undefined : globDirectory(word)
        for (const target of listed === undefined ? targets : [listed, ...targets]) {
          if (target.text === '' || !this.leavesRoot(target, bases)) continue
          const verdicts = this.inputVerdicts(target, bases)
          if (verdicts.decision === 'allow') continue
          out.push(segment(oneLine(`read: ${word.text}`), verdicts))
          break
        }
      }
      // a recursive reader that follows the symlinks in its trees reads where they lead
      const found = treeLinks(item.command, bases, this.realRoot, readings)
      const label = `read: the symlinks in the trees ${item.command.words[0]?.text ?? ''} follows`
      if (typeof found === 'string') out.push(segment(label, unknownRead(found)))
      for (const target of typeof found === 'string' ? [] : found) {
        const verdicts = this.inputVerdicts(literalWord(target), bases)
        if (verdicts.decision === 'allow') continue
        out.push(segment(`${label} (${target})`, verdicts))
        break
      }
    }
    return out
  }

  /**
   * Whether a path a command names leads outside the working directory (as written or through
   * symlinks, from any of the bases) to something that exists: one that does not exist names
   * nothing to read, and what a later command makes there is judged when it is named again.
   */
  private leavesRoot(word: ShellWord, bases: string[]): boolean {
    const expanded = expandTilde(word.text, word.tilde)
    if (expanded === undefined) return false // judged by sensitiveWord
    const candidates = this.pathCandidates(expanded, bases)
    return (
      candidates.some((c) => !this.insideRoot(c)) && candidates.some((c) => statOf(c) !== undefined)
    )
  }

  /** A directory a program is told to work in (`tar -C DIR`, `make --directory=DIR`). */
  private sensitiveDirectoryWord(
    word: ShellWord,
    bases: string[],
    home: string
  ): string | undefined {
    const value = word.text.replace(ATTACHED_DIRECTORY, '')
    if (!word.literal) {
      // a glob in the working directory (`du -sh *`, `grep -r x src/*`) stays below it;
      // an expansion (`"$D"`) may be any directory
      const globOnly = !/[$`]/.test(word.text) && !word.prefix.startsWith('/') && !word.tilde
      return globOnly ? undefined : 'a directory only known when the command runs'
    }
    const expanded = expandTilde(value, value.startsWith('~'))
    if (expanded === undefined) return 'a ~user, ~+ or ~- path is only known when the command runs'
    for (const candidate of this.pathCandidates(expanded, bases)) {
      if (this.insideRoot(candidate)) continue
      const reason = sensitiveDirectory(candidate, home)
      if (reason !== undefined) return reason
    }
    return undefined
  }

  private sensitiveWord(word: ShellWord, bases: string[], home: string): string | undefined {
    if (word.tilde && expandTilde(word.literal ? word.text : word.prefix, true) === undefined) {
      return 'a ~user, ~+ or ~- path is only known when the command runs'
    }
    if (!word.literal) {
      if (/(?:^|\/)\.\.(?:\/|$)/.test(word.text)) {
        return 'a path only known when the command runs climbs out with ".."'
      }
      // a pattern that can name the repository's git configuration (`.*/config`, `{.git,x}/config`)
      if (!/[$`]/.test(word.text) && mayNameGitConfig(word.text, bases)) {
        return "a pattern that can match the repository's git configuration, which can hold a token"
      }
      // a glob or expansion: where its literal directory part is decides what it can reach
      const known = expandTilde(word.prefix, word.tilde) ?? ''
      const dir = known.slice(0, known.lastIndexOf('/') + 1)
      if (dir === '') return undefined
      for (const candidate of this.pathCandidates(dir, bases)) {
        if (this.insideRoot(candidate)) {
          // `.git/conf*`: a pattern over the repository's git configuration
          if (/(?:^|\/)\.git\/?$/i.test(candidate)) {
            return "a pattern in the repository's .git directory, whose config can hold a token"
          }
          continue
        }
        const reason = sensitiveDirectory(candidate, home)
        if (reason !== undefined) return reason
      }
      return undefined
    }
    // the word itself, and paths inside it: `--from-file=../x`, `1R ../x` in a sed script,
    // `-f../x` after a short option
    const tokens = [word.text]
    const attached = /^-[A-Za-z]+([/~.].*)$/.exec(word.text)
    if (attached !== null) tokens.push(attached[1] as string)
    if (/[=:,@\s]/.test(word.text)) {
      for (const t of word.text.split(/[=:,@\s]+/)) {
        const pathLike = t.startsWith('/') || t.startsWith('~/') || t.includes('..')
        if (t !== word.text && (pathLike || /\.git(?:\/|$)/i.test(t))) {
          tokens.push(t)
        }
      }
    }
    for (const token of tokens) {
      if (token === '' || (token === word.text && token.startsWith('-'))) continue
      if (token.includes('://')) continue // a URL (checked against url rules where it matters)
      const expanded = expandTilde(token, token.startsWith('~'))
      if (expanded === undefined)
        return 'a ~user, ~+ or ~- path is only known when the command runs'
      for (const candidate of this.pathCandidates(expanded, bases)) {
        if (this.insideRoot(candidate)) {
          if (GIT_CONFIG.test(candidate))
            return "the repository's git configuration can hold a token"
          continue
        }
        const reason = sensitiveWordReason(
          { text: candidate, literal: true, prefix: candidate },
          home
        )
        if (reason !== undefined) return reason
      }
    }
    return undefined
  }

  private readonly candidatesFrom = (bases: string[]) => (p: string) =>
    this.pathCandidates(p, bases)

  /** An argument taken as a path from each base: as written, and through the file system. */
  private pathCandidates(p: string, bases: string[]): string[] {
    const out: string[] = []
    for (const base of bases) {
      const lexical = path.resolve(base, p)
      out.push(lexical)
      // /proc/self is the process that opens it, not the link the engine would follow
      if (SELF_PROC.test(lexical)) continue
      try {
        // the root is physical already: only the argument's own components are looked up
        const physical = this.physical(path.isAbsolute(p) ? p : `${base}/${p}`)
        if (physical !== lexical) out.push(physical)
      } catch {
        // a symlink loop: the command fails there
      }
      if (path.isAbsolute(p)) break
    }
    return out
  }

  /**
   * A file the shell opens for a command to read (`npm test < f`): the read rules decide, as for
   * the CLI's own read tools. Inside the working directory the CLI reads without asking, so a
   * path there no rule names is allowed; a deny or ask read rule holds it back everywhere.
   */
  private inputVerdicts(target: ShellWord, bases: string[] | undefined): Verdicts {
    const verdicts = this.targetVerdicts('read', target, bases)
    if (verdicts.decision !== 'deny' || verdicts.rule !== 'default') return verdicts
    const expanded = expandTilde(target.text, target.tilde) ?? target.text
    const inside = (path.isAbsolute(expanded) ? [this.lexicalRoot] : (bases ?? [])).every((b) =>
      this.pathCandidates(expanded, [b]).every((c) => this.insideRoot(c))
    )
    if (!inside) return verdicts
    return {
      decision: 'allow',
      rule: 'workspace-read',
      reason: 'the CLI reads inside the working directory without asking',
      matched: []
    }
  }

  /** A file a command writes or reads, against the `write` or `read` rules. */
  private targetVerdicts(
    matcher: 'write' | 'read',
    target: ShellWord,
    bases: string[] | undefined,
    subtree = false,
    tree: TreeSource = {}
  ): Verdicts {
    if (!target.literal) return onlyKnownWhenRun('dynamic-path', `the file "${target.text}"`)
    const expanded = expandTilde(target.text, target.tilde)
    if (expanded === undefined) {
      return {
        decision: 'deny',
        rule: 'dynamic-path',
        reason: `the file "${target.text}" depends on tilde expansion`,
        matched: []
      }
    }
    const devices = matcher === 'write' ? NULL_DEVICES : INPUT_DEVICES
    if (path.isAbsolute(expanded) && devices.has(path.normalize(expanded))) {
      return { decision: 'allow', rule: 'null-device', matched: [] }
    }
    if (!path.isAbsolute(expanded) && bases === undefined) {
      return {
        decision: 'deny',
        rule: 'dynamic-path',
        reason: `the command changes directory, so where "${target.text}" is cannot be known`,
        matched: []
      }
    }
    const results = (path.isAbsolute(expanded) ? [this.lexicalRoot] : (bases ?? [])).map((b) =>
      this.pathVerdicts(matcher, expanded, b, subtree, this.treeBelow(tree, expanded, b))
    )
    // from each directory the command's `cd`s may leave it in; a policy rule's denial first
    return (
      results.find((r) => r.decision === 'deny' && this.ruleIds.has(r.rule)) ??
      results.find((r) => r.decision === 'deny') ??
      results.find((r) => r.decision === 'ask') ??
      (results[0] as Verdicts)
    )
  }
}

/**
 * The denied segment that names the request's denial: one denied by a policy rule first (the
 * most useful feedback), then one denied by a built-in check, then one denied by the default.
 */
function decidingDenial(
  segments: SegmentDecision[],
  ruleIds: ReadonlySet<string>
): SegmentDecision | undefined {
  const denied = segments.filter((s) => s.decision === 'deny')
  return (
    denied.find((s) => ruleIds.has(s.rule)) ?? denied.find((s) => s.rule !== 'default') ?? denied[0]
  )
}

/** The verdicts of a matching rule. */
function ruleVerdicts(rule: CompiledRule, matched: string[]): Verdicts {
  const v: Verdicts = { decision: rule.decision, rule: rule.id, matched }
  if (rule.reason !== undefined) v.reason = rule.reason
  return v
}

function segment(text: string, v: Verdicts): SegmentDecision {
  const s: SegmentDecision = { text, decision: v.decision, rule: v.rule, matched: v.matched }
  if (v.reason !== undefined) s.reason = v.reason
  return s
}

function nonEmpty(value: string | undefined): value is string {
  return typeof value === 'string' && value.length > 0
}

/** A URL or a file the command names with a word only known when it runs: denied. */
function onlyKnownWhenRun(rule: 'dynamic-argument' | 'dynamic-path', what: string): Verdicts {
  return {
    decision: 'deny',
    rule,
    reason: `${what} is only known when the command runs`,
    matched: []
  }
}

function invalid(kind: string, subject: string, field: string): Decision {
  return {
    decision: 'deny',
    rule: 'invalid-request',
    reason: `the ${kind} request has no ${field}`,
    kind,
    subject: oneLine(subject)
  }
}

/**
 * The reject feedback sent to the agent for a denial (or a note for an allow). An ask is
 * answered after the person did, as an allow or a denial; for an ask itself this says that the
 * request waits for a maintainer's approval.
 */
export function feedbackFor(decision: Decision): string {
  if (decision.decision === 'allow') return `Allowed by policy rule "${decision.rule}"`
  const { reason } = decision
  let text =
    decision.decision === 'deny'
      ? `Denied by policy rule "${decision.rule}": ${reason ?? 'the policy does not allow this'}`
      : `Policy rule "${decision.rule}" needs a maintainer's approval for this` +
        (reason !== undefined ? `: ${reason}` : '')
  const first = decision.rule.split(', ')[0]
  const deciding =
    decision.segments?.find((s) => s.decision === decision.decision && s.rule === first) ??
    decision.segments?.find((s) => s.decision === decision.decision)
  if (deciding !== undefined && deciding.text !== decision.subject)
    text += ` (in: ${deciding.text})`
  return text
}
