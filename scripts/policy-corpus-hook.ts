/**
 * Jest setup file for `scripts/policy-corpus.ts`: records every request a policy test decides,
 * with the policy's identity and the decision, one JSON line each, to $POLICY_CORPUS_OUT. Not
 * part of the normal test run (only the corpus script passes it to jest).
 */
import { appendFileSync } from 'node:fs'
import fc from 'fast-check'
import { PolicyEngine } from '../src/policy/index.js'

const out = process.env.POLICY_CORPUS_OUT
// property tests without a seed draw the same commands on every corpus run
fc.configureGlobal({ seed: 20261126 })

if (out !== undefined && out !== '') {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with .call(this)
  const decide = PolicyEngine.prototype.decide
  PolicyEngine.prototype.decide = function (this: PolicyEngine, request) {
    const decision = decide.call(this, request)
    const policy = {
      default: this.defaultDecision,
      presets: this.presets,
      rules: this.rules.map((r) => [r.id, r.decision, r.matcher, r.patterns, r.reason ?? ''])
    }
    appendFileSync(
      out,
      JSON.stringify({ ws: this.workingDirectory, policy, request, decision }) + '\n'
    )
    return decision
  }
}
