/**
 * Warnings about a valid policy: patterns that can never match, allows and asks a deny (or, for
 * an allow, an ask) shadows, globs that look like mistakes, and risky allows. Used by
 * `copilot-policy check`.
 */
import path from 'node:path'
import type { RuleSpec } from './engine.js'
import { byPosition, type PolicyIssue } from './errors.js'
import { compileGlob, globCovers } from './glob.js'
import type { ResolvedPolicy } from './load.js'
import type { Policy, Verdict } from './types.js'
import { compileUrlPattern, type UrlPattern } from './url.js'

type Where = { rule: RuleSpec; pattern?: number; key?: boolean }

function warning(
  resolved: ResolvedPolicy,
  where: Where,
  message: string,
  fix: string
): PolicyIssue {
  const { rule } = where
  const at: Array<string | number> = ['rules', rule.origin.index]
  if (where.pattern !== undefined) at.push(rule.matcher, where.pattern)
  return resolved.parsed.map.issue(at, message, fix, { severity: 'warning' })
}

function describe(rule: RuleSpec): string {
  const file = rule.origin.file
  return `${rule.decision} rule "${rule.id}" (${file}:${rule.origin.line}:${rule.origin.column})`
}

const SHELL_OPERATORS = /&&|\|\||;|\||\$\(|`|(?:^|\s)\d*>{1,2}|(?:^|\s)</

function shellPatternWarnings(resolved: ResolvedPolicy, rule: RuleSpec): PolicyIssue[] {
  const out: PolicyIssue[] = []
  rule.patterns.forEach((p, pattern) => {
    const where = { rule, pattern }
    const literal = compileGlob(p).hasStar === false
    // a literal allow (or ask) with $ is the way to allow one dynamic command exactly
    const explicitDynamic = rule.decision !== 'deny' && literal && p.includes('$')
    if (explicitDynamic) return
    if (SHELL_OPERATORS.test(p)) {
      out.push(
        warning(
          resolved,
          where,
          `shell pattern "${p}" contains a shell operator, but patterns match one simple ` +
            'command at a time, so it can never match',
          'write one pattern per command (e.g. "npm ci" and "npm test"); redirections are ' +
            'checked as writes'
        )
      )
    } else if (/["']/.test(p)) {
      out.push(
        warning(
          resolved,
          where,
          `shell pattern "${p}" contains quotes, but commands are matched after quote removal`,
          `remove the quotes (git commit -m "x" is matched as git commit -m x)`
        )
      )
    } else if (/\s{2,}|\t/.test(p)) {
      out.push(
        warning(
          resolved,
          where,
          `shell pattern "${p}" has repeated or tab spaces, but command words are joined by ` +
            'single spaces, so it can never match',
          'separate words with one space'
        )
      )
    }
    if (rule.decision === 'deny' && literal && !p.includes('=')) {
      out.push(
        warning(
          resolved,
          where,
          `deny pattern "${p}" has no *, so it denies only exactly "${p}", not "${p} <arguments>"`,
          `write "${p}*" to deny it with any arguments`
        )
      )
    }
  })
  return out
}

function pathPatternWarnings(resolved: ResolvedPolicy, rule: RuleSpec): PolicyIssue[] {
  const out: PolicyIssue[] = []
  rule.patterns.forEach((p, pattern) => {
    const where = { rule, pattern }
    if (p.endsWith('/') && p.length > 1) {
      out.push(
        warning(
          resolved,
          where,
          `path pattern "${p}" ends with /, so it matches no file`,
          `write "${p}**" for everything below it`
        )
      )
    } else if (/(^|\/)\*$/.test(p) && p !== '*') {
      out.push(
        warning(
          resolved,
          where,
          `path pattern "${p}" matches only files directly in ${p.slice(0, -1)}, not below it`,
          `write "${p}*" for everything below it, or keep "${p}" if that is meant`
        )
      )
    } else if (p.includes('\\')) {
      out.push(
        warning(
          resolved,
          where,
          `path pattern "${p}" contains a backslash`,
          'use / to separate directories; \\ escapes glob characters'
        )
      )
    }
  })
  return out
}

function urlPatternWarnings(resolved: ResolvedPolicy, rule: RuleSpec): PolicyIssue[] {
  const out: PolicyIssue[] = []
  rule.patterns.forEach((p, pattern) => {
    const host = compileUrlPattern(p).host.source
    const risky = host
      .split('.')
      .some((label, i) => label.includes('*') && (label !== '*' || i > 0))
    if (risky && rule.decision !== 'deny') {
      out.push(
        warning(
          resolved,
          { rule, pattern },
          `host pattern "${host}"${host === p ? '' : ` of "${p}"`} also matches look-alike hosts ` +
            `(e.g. ${host.replace(/\*/g, 'evil')})`,
          'use * only as a whole leading label: *.example.com'
        )
      )
    }
  })
  return out
}

/** Whether every string `narrow` matches is matched by `broad` (sound, not complete). */
function pathCovers(broad: string, narrow: string): boolean {
  const strip = (p: string) => p.replace(/^(\.\/)+/, '')
  const b = strip(broad)
  const n = strip(narrow)
  if (path.isAbsolute(b) !== path.isAbsolute(n)) return false
  if (b === n || b === '**' || b === '/**') return true
  if (b.endsWith('/**')) {
    const dir = b.slice(0, -2)
    return n.startsWith(dir) && !/[*?[{]/.test(dir)
  }
  return false
}

function urlCovers(broad: UrlPattern, narrow: UrlPattern): boolean {
  if (broad.source === narrow.source) return true
  const schemes =
    broad.protocol === undefined
      ? narrow.protocol === undefined || narrow.protocol === 'http:' || narrow.protocol === 'https:'
      : broad.protocol === narrow.protocol
  return (
    schemes &&
    broad.port === narrow.port &&
    globCovers(broad.host, narrow.host) &&
    broad.path === undefined
  )
}

function mcpCovers(broad: string, narrow: string): boolean {
  const split = (p: string) => [p.slice(0, p.indexOf('/')), p.slice(p.indexOf('/') + 1)] as const
  const [bs, bt] = split(broad)
  const [ns, nt] = split(narrow)
  return (
    globCovers(compileGlob(bs), compileGlob(ns)) && globCovers(compileGlob(bt), compileGlob(nt))
  )
}

/** The pattern of `stronger` that matches everything `pattern` of `weaker` matches (sound, not complete). */
function covers(stronger: RuleSpec, weaker: RuleSpec, pattern: string): string | undefined {
  if (stronger.matcher !== weaker.matcher) return undefined
  switch (weaker.matcher) {
    case 'memory':
      return 'memory: true'
    case 'shell':
    case 'tool':
      return stronger.patterns.find((q) => globCovers(compileGlob(q), compileGlob(pattern)))
    case 'write':
    case 'read':
      return stronger.patterns.find((q) => pathCovers(q, pattern))
    case 'url':
      return stronger.patterns.find((q) =>
        urlCovers(compileUrlPattern(q), compileUrlPattern(pattern))
      )
    case 'mcp':
      if (stronger.readOnly !== undefined && stronger.readOnly !== weaker.readOnly) return undefined
      return stronger.patterns.find((q) => mcpCovers(q, pattern))
  }
}

/** What a rule does, for "never allows anything". */
const DOES: Record<Verdict, string> = { allow: 'allows', ask: 'asks about', deny: 'denies' }

/**
 * An allow rule that a deny or an ask rule matches wherever it matches, or an ask rule that a
 * deny rule does: a deny beats an ask, an ask beats an allow.
 */
function shadowWarnings(resolved: ResolvedPolicy, rule: RuleSpec): PolicyIssue[] {
  if (rule.decision === 'deny') return []
  const stronger: Verdict[] = rule.decision === 'allow' ? ['deny', 'ask'] : ['deny']
  const shadows = stronger.flatMap((d) =>
    resolved.rules.filter((r) => r.decision === d && r.matcher === rule.matcher)
  )
  const patterns = rule.matcher === 'memory' ? ['memory: true'] : rule.patterns
  const shadowed = patterns.map((p) => {
    for (const shadow of shadows) {
      const by = covers(shadow, rule, p)
      if (by !== undefined) return { shadow, by }
    }
    return undefined
  })
  const does = DOES[rule.decision]
  // an ask in the way still lets a maintainer approve what the allow rule names
  const never = (asks: boolean) => `never ${does} anything${asks ? ' without asking' : ''}`
  if (shadowed.every((s) => s !== undefined)) {
    const first = shadowed[0]
    const kinds = [...new Set(shadowed.map((s) => s?.shadow.decision))].join(' or ')
    const by = first === undefined ? '' : ` (${describe(first.shadow)}, pattern "${first.by}")`
    return [
      warning(
        resolved,
        { rule },
        `${rule.decision} rule "${rule.id}" ${never(kinds.includes('ask'))}: a ${kinds} rule ` +
          `matches everything it matches${by}`,
        `remove the ${rule.decision} rule, or narrow the ${kinds} rule`
      )
    ]
  }
  const out: PolicyIssue[] = []
  shadowed.forEach((s, pattern) => {
    if (s === undefined) return
    out.push(
      warning(
        resolved,
        { rule, pattern },
        `pattern "${patterns[pattern] ?? ''}" of ${rule.decision} rule "${rule.id}" ` +
          `${never(s.shadow.decision === 'ask')}: ${describe(s.shadow)} ` +
          `${DOES[s.shadow.decision]} it with "${s.by}"`,
        `remove the pattern, or narrow the ${s.shadow.decision} rule`
      )
    )
  })
  return out
}

/** Sensitive writes: allowing them lets the agent make git or the workflow run its programs. */
const SENSITIVE_WRITES = [
  { path: '.git/hooks/pre-commit', why: 'git runs hooks and programs named in .git/config' },
  { path: '.github/workflows/copilot.yml', why: 'workflows run with the repository token' }
]

function probeWarnings(resolved: ResolvedPolicy, policy: Policy): PolicyIssue[] {
  const out: PolicyIssue[] = []
  for (const probe of SENSITIVE_WRITES) {
    const decision = policy.decide({ kind: 'write', fileName: probe.path })
    if (decision.decision !== 'allow') continue
    const rule = resolved.parsed.rules.find((r) => r.id === decision.rule)
    const issue: PolicyIssue =
      rule !== undefined
        ? warning(resolved, { rule }, `rule "${rule.id}" allows writing ${probe.path}`, '')
        : resolved.parsed.map.issue([], `the policy allows writing ${probe.path}`, '', {
            severity: 'warning'
          })
    issue.message += ` (${probe.why})`
    const parent = probe.path.split('/')[0] as string
    issue.fix = `add a deny rule: { decision: deny, write: ["${parent}/**"] }`
    out.push(issue)
  }
  return out
}

/**
 * Warnings for a policy that loads. `policy` is the compiled policy (for probes of risky
 * writes); only the file's own rules are examined, against all rules (presets included).
 */
export function lintPolicy(resolved: ResolvedPolicy, policy: Policy): PolicyIssue[] {
  const out: PolicyIssue[] = []
  const own = resolved.parsed.rules
  for (const rule of own) {
    if (rule.matcher === 'shell') out.push(...shellPatternWarnings(resolved, rule))
    if (rule.matcher === 'write' || rule.matcher === 'read') {
      out.push(...pathPatternWarnings(resolved, rule))
    }
    if (rule.matcher === 'url') out.push(...urlPatternWarnings(resolved, rule))
    out.push(...shadowWarnings(resolved, rule))
  }
  if (resolved.parsed.defaultDecision === 'allow') {
    out.push(
      resolved.parsed.map.issue(
        ['default'],
        'default: allow allows every request no rule denies, including commands nobody thought of',
        'use default: deny and allow what the agent needs',
        { severity: 'warning' }
      )
    )
  }
  out.push(...probeWarnings(resolved, policy))
  return out.sort(byPosition)
}
