/** The `tests:` section of a policy file: requests with the decision they must get. */
import type { PermissionRequest } from '../cli/protocol.js'
import type { Decision, Policy, Verdict } from './types.js'

export interface PolicyTestCase {
  /** The policy file, and where the test is written in it. */
  file: string
  line: number
  column: number
  /** The test's index in the `tests:` list. */
  index: number
  /** The request in words: `shell "git push"`, `write "src/a.ts"`, `memory`. */
  label: string
  request: PermissionRequest
  expect: Verdict
  /** The rule expected to decide, when the test names one. */
  rule?: string
}

export interface PolicyTestFailure {
  test: PolicyTestCase
  /** What the policy decided. */
  actual: Decision
  /** `file:line:column: test 3 (shell "git push"): expected deny, got allow by rule "x"`. */
  message: string
}

/** Runs the policy's `tests:` section; returns the failures, in file order. */
export function runPolicyTests(
  policy: Policy & { readonly tests: readonly PolicyTestCase[] }
): PolicyTestFailure[] {
  const failures: PolicyTestFailure[] = []
  for (const test of policy.tests) {
    const actual = policy.decide(test.request)
    const verdictOk = actual.decision === test.expect
    const ruleOk = test.rule === undefined || ruleNames(actual).includes(test.rule)
    if (verdictOk && ruleOk) continue
    const expected = test.rule === undefined ? test.expect : `${test.expect} by rule "${test.rule}"`
    const got = `${actual.decision} by rule "${actual.rule}"`
    const why = actual.reason !== undefined ? ` (${actual.reason})` : ''
    failures.push({
      test,
      actual,
      message:
        `${test.file}:${test.line}:${test.column}: test ${test.index + 1} (${test.label}): ` +
        `expected ${expected}, got ${got}${why}`
    })
  }
  return failures
}

/** The rules a decision names: one, or several for a shell request allowed by several rules. */
function ruleNames(decision: Decision): string[] {
  return decision.rule.split(', ')
}
