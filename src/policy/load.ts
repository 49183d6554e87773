/**
 * Loading a policy: read the YAML file (keeping positions), validate it strictly, compile the
 * rules, initialize the shell parser. Every problem is reported as `file:line:column` with a
 * fix; all problems found are reported at once.
 */
import fs from 'node:fs'
import {
  isMap,
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Range
} from 'yaml'
import type { z } from 'zod'
import { compileRule, PatternError, PolicyEngine, requestOf, type RuleSpec } from './engine.js'
import { byPosition, clipMessage, excerpt, PolicyError, type PolicyIssue } from './errors.js'
import { presetText } from './presets.js'
import type { PolicyTestCase } from './testing.js'
import {
  BUILT_IN_IDS,
  KEY_HELP,
  MATCHER_KEYS,
  POLICY_KEYS,
  PolicyFileSchema,
  RULE_KEYS,
  SANDBOX_KEYS,
  TEST_KEYS,
  TEST_REQUEST_KEYS,
  type PolicyFileInput,
  type PresetName,
  type SandboxMode
} from './schema.js'
import type { DefaultVerdict } from './types.js'
import { initBashParser } from './wasm.js'
import { readTreeFile, TreeFileError } from '../tree-file.js'

export type PathSegment = string | number

/** Maps paths in the parsed document back to line and column. */
export class SourceMap {
  constructor(
    readonly file: string,
    readonly doc: Document,
    private readonly lines: LineCounter
  ) {}

  /** Position of the value at `at` (or of its key, with `key`), or of its closest ancestor. */
  position(at: readonly PathSegment[], key = false): { line: number; column: number } {
    let node: unknown = this.doc.contents
    let range: Range | undefined = isNode(node) ? (node.range ?? undefined) : undefined
    for (let i = 0; i < at.length; i++) {
      const segment = at[i]
      const last = i === at.length - 1
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === segment)
        if (pair === undefined) break
        if ((last && key) || !isNode(pair.value) || !pair.value.range) {
          if (isNode(pair.key) && pair.key.range) range = pair.key.range
          if (last && key) break
        }
        node = pair.value
        if (isNode(node) && node.range) range = node.range
      } else if (isSeq(node) && typeof segment === 'number') {
        const item: unknown = node.items[segment]
        if (item === undefined) break
        node = item
        if (isNode(item) && item.range) range = item.range
      } else {
        break
      }
    }
    const offset = range?.[0] ?? 0
    const pos = this.lines.linePos(offset)
    return { line: pos.line, column: pos.col }
  }

  issue(
    at: readonly PathSegment[],
    message: string,
    fix: string,
    options: { key?: boolean; severity?: 'error' | 'warning' } = {}
  ): PolicyIssue {
    const { line, column } = this.position(at, options.key ?? false)
    return {
      severity: options.severity ?? 'error',
      file: this.file,
      line,
      column,
      message,
      fix
    }
  }

  has(at: readonly PathSegment[]): boolean {
    return this.doc.hasIn(at)
  }
}

/** The result of reading a policy file without compiling it (used by loader and `check`). */
export interface ParsedPolicy {
  file: string
  map: SourceMap
  data: PolicyFileInput | undefined
  /** Errors and warnings, in file order. */
  issues: PolicyIssue[]
  /** The file's own rule specs (with final ids) when the structure is valid. */
  rules: RuleSpec[]
  /** The file's own `default`, when it sets one. */
  defaultDecision: DefaultVerdict | undefined
  /** The preset the file extends. */
  extends: PresetName | undefined
  /** The file's own `sandbox.mode`, when it sets one. */
  sandboxMode: SandboxMode | undefined
  /** The file's `tests:` section. */
  tests: PolicyTestCase[]
}

function ruleLabel(index: number, id: string | undefined): string {
  return id === undefined ? `rule ${index + 1}` : `rule ${index + 1} (${excerpt(id)})`
}

function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0))
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[]
      const prev = d[i - 1] as number[]
      row[j] = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)
      )
    }
  }
  return (d[a.length] as number[])[b.length] as number
}

export function suggest(key: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of allowed) {
    const dist = distance(key.toLowerCase(), candidate.toLowerCase())
    if (dist < bestDistance) {
      best = candidate
      bestDistance = dist
    }
  }
  return bestDistance <= Math.max(1, Math.floor(key.length / 3)) ? best : undefined
}

function describeType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a mapping'
  if (typeof value === 'string') return `the string ${excerpt(value)}`
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`
  return typeof value
}

type ZodIssue = z.core.$ZodIssue

/** The keys allowed in the mapping at `at`. */
function keysAt(at: readonly PropertyKey[]): readonly string[] {
  if (at[0] === 'rules') return RULE_KEYS
  if (at[0] === 'tests') return TEST_KEYS
  if (at[0] === 'sandbox') return SANDBOX_KEYS
  return POLICY_KEYS
}

/** ` in rule 3` / ` in test 2` for a path inside a rule or test. */
function contextLabel(at: readonly PathSegment[]): string {
  if (typeof at[1] !== 'number') return ''
  if (at[0] === 'rules') return ` in ${ruleLabel(at[1], undefined)}`
  if (at[0] === 'tests') return ` in test ${at[1] + 1}`
  return ''
}

function zodIssues(map: SourceMap, issues: readonly ZodIssue[], input: unknown): PolicyIssue[] {
  const out: PolicyIssue[] = []
  // a missing key that an unknown key in the same mapping is a misspelling of: one error only
  const misspelled = new Set<string>()
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue
    const allowed = keysAt(issue.path)
    for (const key of issue.keys) {
      const guess = suggest(key, allowed)
      if (guess !== undefined) misspelled.add(JSON.stringify([...issue.path.map(String), guess]))
    }
  }
  for (const issue of issues) {
    if (misspelled.has(JSON.stringify(issue.path.map(String)))) continue
    const at = issue.path.filter((p): p is PathSegment => typeof p !== 'symbol')
    const label = contextLabel(at)
    const last = at[at.length - 1]
    const name = typeof last === 'string' ? last : undefined
    const inTest = at[0] === 'tests' && at.length === 3
    const help =
      name === undefined
        ? undefined
        : inTest && name !== 'expect' && name !== 'rule' && name !== 'readOnly'
          ? `${name}: ${name === 'memory' ? 'true' : '"<what the agent asks for>"'}`
          : KEY_HELP[name]
    if (issue.code === 'unrecognized_keys') {
      const allowed = keysAt(at)
      for (const key of issue.keys) {
        const guess = suggest(key, allowed)
        out.push(
          map.issue(
            [...at, key],
            `unknown key ${excerpt(key)}${label}`,
            guess !== undefined
              ? `did you mean "${guess}"? (allowed keys: ${allowed.join(', ')})`
              : `remove it; allowed keys: ${allowed.join(', ')}`,
            { key: true }
          )
        )
      }
      continue
    }
    if (at.length === 0) {
      out.push(
        map.issue(
          at,
          `a policy must be a mapping, not ${describeType(input)}`,
          'start the file with "version: 1" and a "rules:" list'
        )
      )
      continue
    }
    if (!map.has(at) && name !== undefined) {
      out.push(map.issue(at.slice(0, -1), `missing "${name}"${label}`, `add ${help ?? name}`))
      continue
    }
    const value = map.doc.getIn(at)
    if (
      issue.code === 'invalid_value' &&
      at.length === 1 &&
      name === 'default' &&
      value === 'ask'
    ) {
      out.push(
        map.issue(
          at,
          'default: ask is not allowed: every request no rule matches would wait for a maintainer',
          'write default: deny, and a rule with decision: ask for the requests a maintainer ' +
            'should approve (e.g. { decision: ask, shell: ["npm install *"] })'
        )
      )
      continue
    }
    switch (issue.code) {
      case 'invalid_value':
        out.push(
          map.issue(
            at,
            `"${String(name ?? last)}"${label} must be ${issue.values
              .map((v) => JSON.stringify(v))
              .join(' or ')}, not ${describeType(value)}`,
            name === 'memory'
              ? 'write memory: true (a rule that matches no memory request is not needed)'
              : `write ${help ?? issue.values.map((v) => JSON.stringify(v)).join(' or ')}`
          )
        )
        break
      case 'invalid_type': {
        const what = typeof last === 'number' ? 'a pattern' : `"${String(last)}"`
        out.push(
          map.issue(
            at,
            `${what}${label} must be ${issue.expected === 'array' ? 'a list' : issue.expected}, ` +
              `not ${describeType(value)}`,
            issue.expected === 'array' && help !== undefined
              ? `write a list, e.g. ${help}`
              : help !== undefined
                ? `write ${help}`
                : `write a ${issue.expected}`
          )
        )
        break
      }
      case 'too_small':
        out.push(
          issue.origin === 'array'
            ? map.issue(
                at,
                `"${String(last)}"${label} is an empty list, so it never matches`,
                'add at least one pattern, or remove the key'
              )
            : map.issue(at, `an empty pattern${label}`, 'remove it or write a pattern')
        )
        break
      case 'invalid_format':
        out.push(
          map.issue(
            at,
            `invalid ${String(name ?? 'value')} ${excerpt(String(value))}${label}`,
            `write ${help ?? 'a valid value'}`
          )
        )
        break
      default:
        out.push(
          map.issue(at, `${clipMessage(issue.message)}${label}`, `write ${help ?? 'a valid value'}`)
        )
    }
  }
  return out
}

/** Reads YAML text into a validated structure; never throws for bad input. */
export function parsePolicyText(text: string, file: string): ParsedPolicy {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const map = new SourceMap(file, doc, lines)
  const result: ParsedPolicy = {
    file,
    map,
    data: undefined,
    issues: [],
    rules: [],
    defaultDecision: undefined,
    extends: undefined,
    sandboxMode: undefined,
    tests: []
  }
  for (const error of doc.errors) {
    const pos = lines.linePos(error.pos[0])
    const firstLine = error.message.split('\n')[0] ?? error.message
    result.issues.push({
      severity: 'error',
      file,
      line: pos.line,
      column: pos.col,
      message: `invalid YAML: ${clipMessage(firstLine.replace(/ at line \d+, column \d+:?$/, ''))}`,
      fix:
        error.code === 'DUPLICATE_KEY'
          ? 'remove one of the duplicate keys'
          : 'correct the YAML syntax (indentation, quotes, brackets); quote patterns that ' +
            'start with * or contain ": "'
    })
  }
  if (result.issues.length > 0) return result
  for (const warning of doc.warnings) {
    const pos = lines.linePos(warning.pos[0])
    result.issues.push({
      severity: 'warning',
      file,
      line: pos.line,
      column: pos.col,
      message: clipMessage(warning.message),
      fix: 'see the YAML warning'
    })
  }
  const input: unknown = doc.toJS({ maxAliasCount: 100 })
  if (input === null || input === undefined) {
    result.issues.push({
      severity: 'error',
      file,
      line: 1,
      column: 1,
      message: 'the policy file is empty',
      fix: 'start the file with "version: 1" and a "rules:" list'
    })
    return result
  }
  const parsed = PolicyFileSchema.safeParse(input)
  if (!parsed.success) {
    result.issues.push(...zodIssues(map, parsed.error.issues, input))
    result.issues.sort(byPosition)
    return result
  }
  result.data = parsed.data
  result.defaultDecision = parsed.data.default
  result.extends = parsed.data.extends
  result.sandboxMode = parsed.data.sandbox?.mode
  result.issues.push(...ruleSpecs(map, parsed.data, result.rules))
  result.issues.push(...testCases(map, parsed.data, result.tests))
  result.issues.sort(byPosition)
  return result
}

/** Checks the `tests:` section and builds the requests it describes. */
function testCases(map: SourceMap, data: PolicyFileInput, out: PolicyTestCase[]): PolicyIssue[] {
  const issues: PolicyIssue[] = []
  ;(data.tests ?? []).forEach((test, i) => {
    const at = ['tests', i]
    const present = TEST_REQUEST_KEYS.filter((k) => test[k] !== undefined)
    if (present.length !== 1) {
      issues.push(
        map.issue(
          present.length === 0 ? at : [...at, present[1] as string],
          present.length === 0
            ? `test ${i + 1} has no request`
            : `test ${i + 1} has ${present.length} requests (${present.join(', ')})`,
          `give each test exactly one of ${TEST_REQUEST_KEYS.join(', ')}`,
          { key: present.length > 1 }
        )
      )
      return
    }
    const key = present[0] as (typeof TEST_REQUEST_KEYS)[number]
    if (test.readOnly !== undefined && key !== 'mcp') {
      issues.push(
        map.issue([...at, 'readOnly'], `readOnly in test ${i + 1} is only for mcp`, 'remove it', {
          key: true
        })
      )
      return
    }
    const subject = key === 'memory' ? 'memory' : (test[key] as string)
    const request = requestOf(key, subject, test.readOnly)
    // requestOf refuses an mcp subject without a server; a test needs the tool too
    if (request === undefined || (key === 'mcp' && subject.indexOf('/') === subject.length - 1)) {
      issues.push(
        map.issue(
          [...at, 'mcp'],
          `${excerpt(subject)} in test ${i + 1} is not server/tool`,
          'write mcp: "server/tool"'
        )
      )
      return
    }
    const { line, column } = map.position(at)
    const testCase: PolicyTestCase = {
      file: map.file,
      line,
      column,
      index: i,
      label: key === 'memory' ? 'memory' : `${key} ${JSON.stringify(subject)}`,
      request,
      expect: test.expect
    }
    if (test.rule !== undefined) testCase.rule = test.rule
    out.push(testCase)
  })
  return issues
}

/** Checks what the schema cannot (one matcher per rule, ids) and builds the rule specs. */
function ruleSpecs(map: SourceMap, data: PolicyFileInput, out: RuleSpec[]): PolicyIssue[] {
  const issues: PolicyIssue[] = []
  const rules = data.rules ?? []
  const generated = new Set(rules.map((r, i) => (r.id === undefined ? `rule-${i + 1}` : '')))
  const seen = new Map<string, number>()
  rules.forEach((rule, i) => {
    const at = ['rules', i]
    const label = ruleLabel(i, rule.id)
    const present = MATCHER_KEYS.filter((k) => rule[k] !== undefined)
    if (present.length === 0) {
      issues.push(
        map.issue(
          at,
          `${label} has no matcher`,
          `add exactly one of ${MATCHER_KEYS.join(', ')} (e.g. ${KEY_HELP.shell})`
        )
      )
    } else if (present.length > 1) {
      issues.push(
        map.issue(
          [...at, present[1] as string],
          `${label} has ${present.length} matchers (${present.join(', ')})`,
          'a rule matches one kind of request: split it into one rule per matcher',
          { key: true }
        )
      )
    }
    if (rule.id !== undefined) {
      const first = seen.get(rule.id)
      if ((BUILT_IN_IDS as readonly string[]).includes(rule.id)) {
        issues.push(
          map.issue(
            [...at, 'id'],
            `id ${excerpt(rule.id)} is reserved for the policy's built-in decisions`,
            'choose another id'
          )
        )
      } else if (first !== undefined) {
        const pos = map.position(['rules', first, 'id'])
        issues.push(
          map.issue(
            [...at, 'id'],
            `duplicate rule id ${excerpt(rule.id)} (first used at line ${pos.line})`,
            'give every rule a different id'
          )
        )
      } else if (generated.has(rule.id)) {
        issues.push(
          map.issue(
            [...at, 'id'],
            `id ${excerpt(rule.id)} is also the generated id of the rule at that position`,
            'choose an id that is not of the form rule-<n>'
          )
        )
      }
      seen.set(rule.id, seen.get(rule.id) ?? i)
    }
    const matcher = present[0]
    if (rule.readOnly !== undefined && matcher !== 'mcp') {
      issues.push(
        map.issue(
          [...at, 'readOnly'],
          `readOnly in ${label} only applies to mcp rules`,
          'remove it, or use it in a rule with mcp: [...]',
          { key: true }
        )
      )
      return
    }
    if (present.length !== 1 || matcher === undefined) return
    const patterns = matcher === 'memory' ? [] : (rule[matcher] as string[])
    const spec: RuleSpec = {
      id: rule.id ?? `rule-${i + 1}`,
      decision: rule.decision,
      matcher,
      patterns,
      origin: { file: map.file, ...map.position(at), index: i }
    }
    if (rule.reason !== undefined) spec.reason = rule.reason
    if (rule.readOnly !== undefined) spec.readOnly = rule.readOnly
    try {
      compileRule(spec)
      out.push(spec)
    } catch (error) {
      if (!(error instanceof PatternError)) throw error
      issues.push(
        map.issue([...at, matcher, error.index], `${error.message} in ${label}`, error.fix)
      )
    }
  })
  return issues
}

export interface CompileOptions {
  /** Marks the policy as the built-in fallback (no policy file existed). */
  builtIn?: boolean
  /** The policy file's names (as loaded, and its real path): no write may reach it. */
  policyFiles?: readonly string[]
}

/** A policy file with its presets applied. */
export interface ResolvedPolicy {
  parsed: ParsedPolicy
  /** The file's rules first, then each extended preset's rules (ids prefixed `preset/`). */
  rules: RuleSpec[]
  defaultDecision: DefaultVerdict
  /** The nearest `sandbox.mode` (the file's, else its presets'), `auto` when none sets one. */
  sandboxMode: SandboxMode
  /** The presets applied, nearest first. */
  presets: PresetName[]
  /** Errors and warnings of the file (the presets are known to be valid). */
  issues: PolicyIssue[]
}

const presetCache = new Map<PresetName, ResolvedPolicy>()

function resolvePreset(name: PresetName, seen: readonly PresetName[]): ResolvedPolicy {
  const cached = presetCache.get(name)
  if (cached !== undefined) return cached
  if (seen.includes(name)) {
    throw new Error(`preset ${name} extends itself (${[...seen, name].join(' → ')})`)
  }
  const resolved = resolveParsed(parsePolicyText(presetText(name), `built-in:${name}`), [
    ...seen,
    name
  ])
  const errors = resolved.issues.filter((i) => i.severity === 'error')
  if (errors.length > 0) throw new PolicyError(errors) // a bug in a preset, caught by its tests
  // a preset is used where nobody chose to page a maintainer: it never asks
  const asks = resolved.rules.find((r) => r.decision === 'ask')
  if (asks !== undefined) throw new Error(`preset ${name}: rule "${asks.id}" is an ask rule`)
  presetCache.set(name, resolved)
  return resolved
}

function resolveParsed(parsed: ParsedPolicy, seen: readonly PresetName[]): ResolvedPolicy {
  const resolved: ResolvedPolicy = {
    parsed,
    rules: [...parsed.rules],
    defaultDecision: parsed.defaultDecision ?? 'deny',
    sandboxMode: parsed.sandboxMode ?? 'auto',
    presets: [],
    issues: parsed.issues
  }
  if (parsed.extends === undefined) return resolved
  const preset = resolvePreset(parsed.extends, seen)
  const name = parsed.extends
  for (const rule of preset.rules) {
    resolved.rules.push(rule.id.includes('/') ? rule : { ...rule, id: `${name}/${rule.id}` })
  }
  resolved.defaultDecision = parsed.defaultDecision ?? preset.defaultDecision
  resolved.sandboxMode = parsed.sandboxMode ?? preset.sandboxMode
  resolved.presets = [name, ...preset.presets]
  return resolved
}

/** Parses policy text and applies the preset it extends; never throws for bad input. */
export function resolvePolicyText(text: string, file: string): ResolvedPolicy {
  return resolveParsed(parsePolicyText(text, file), [])
}

/** The compiled policy: `decide` plus what tooling needs (rules, default, tests, origin). */
export type CompiledPolicy = PolicyEngine

/**
 * Compiles policy YAML text. `source` names it in errors (a file path or `built-in:<name>`);
 * relative path globs are relative to `workingDirectory`. Throws PolicyError on bad input.
 */
export async function compilePolicy(
  text: string,
  source: string,
  workingDirectory: string,
  options: CompileOptions = {}
): Promise<CompiledPolicy> {
  return compileResolved(resolvePolicyText(text, source), source, workingDirectory, options)
}

/** compilePolicy for text already resolved (resolvePolicyText). Throws PolicyError on errors. */
export async function compileResolved(
  resolved: ResolvedPolicy,
  source: string,
  workingDirectory: string,
  options: CompileOptions = {}
): Promise<CompiledPolicy> {
  const errors = resolved.issues.filter((i) => i.severity === 'error')
  if (errors.length > 0) throw new PolicyError(errors)
  await initBashParser()
  return new PolicyEngine({
    source,
    builtIn: options.builtIn ?? false,
    rules: resolved.rules.map((spec) => compileRule(spec)),
    defaultDecision: resolved.defaultDecision,
    workingDirectory,
    tests: resolved.parsed.tests,
    presets: resolved.presets,
    sandboxMode: resolved.sandboxMode,
    ...(options.policyFiles ? { policyFiles: options.policyFiles } : {})
  })
}

/** The built-in policy used when the repository has no policy file. */
export const FALLBACK_PRESET: PresetName = 'read-only'

/**
 * Loads the policy file at `options.path` (relative paths are relative to the working
 * directory). A missing file gives the built-in `read-only` policy. The file is read as a file
 * of the checked-out tree (src/tree-file.ts): one that leads out of `options.workspace` (the
 * working directory when not given), or is not a regular file, is refused unread.
 */
export async function loadPolicy(options: {
  path: string
  workingDirectory: string
  workspace?: string
  /** Who names the file, for errors (`input 'policy'`). */
  what?: string
}): Promise<CompiledPolicy> {
  let read: { file: string; realPath: string; text: string }
  try {
    read = readTreeFile({
      what: options.what ?? 'the policy',
      name: options.path,
      base: options.workingDirectory,
      workspace: options.workspace ?? options.workingDirectory
    })
  } catch (error) {
    if (!(error instanceof TreeFileError)) throw error
    if (error.problem === 'missing') {
      try {
        fs.lstatSync(error.file)
      } catch {
        // nothing there at all (not a link to nothing): the built-in policy
        return compilePolicy(
          presetText(FALLBACK_PRESET),
          `built-in:${FALLBACK_PRESET}`,
          options.workingDirectory,
          { builtIn: true }
        )
      }
    }
    if (error.problem === 'not-regular' && error.kind === 'a directory') {
      throw new PolicyError([
        {
          severity: 'error',
          file: options.path,
          line: 1,
          column: 1,
          message: 'the policy path is a directory',
          fix: 'point the policy input at a YAML file, e.g. .github/copilot-policy.yml'
        }
      ])
    }
    throw error
  }
  // known by its real path too: a symlinked policy file is its target's content
  return compilePolicy(read.text, options.path, options.workingDirectory, {
    policyFiles: [read.file, read.realPath]
  })
}
