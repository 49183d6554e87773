/**
 * The OS sandbox and workspace audit slice: the sandbox record, its denials, the audit's
 * result.
 */
import type { AuditRecord, SandboxRecord } from '../../reporting/types.js'
import type { RunState } from './run-state.js'
import { REPORT_LIMITS, clean, note } from './run-state.js'
import type { SessionEvent } from '../../cli/protocol.js'
import { clip } from '../../text/safe-text.js'
import { sandboxEvidence } from '../sandbox-probe.js'

/**
 * The rule a denial by the OS sandbox is recorded under (tool calls, counts, the comment). A
 * built-in id (policy/schema.ts BUILT_IN_IDS): no policy rule takes it.
 */
export const SANDBOX_RULE = 'sandbox'

export function onAudit(state: RunState, result: Omit<AuditRecord, 'readOnly' | 'checks'>): void {
  const audit = state.audit ?? { checks: 0, changed: 0, violations: [], complete: true }
  const room = Math.max(0, REPORT_LIMITS.violations - audit.violations.length)
  const notes = [
    ...(audit.notes ?? []),
    ...(result.notes ?? []).map((n) => ({
      ...n,
      path: clip(clean(state, n.path), 300),
      reason: clip(clean(state, n.reason), 300)
    }))
  ].slice(0, REPORT_LIMITS.violations)
  state.audit = {
    ...audit,
    ...(notes.length > 0 ? { notes } : {}),
    checks: audit.checks + 1,
    changed: audit.changed + result.changed,
    complete: audit.complete && result.complete,
    violations: [
      ...audit.violations,
      ...result.violations.slice(0, room).map((v) => ({
        ...v,
        path: clip(clean(state, v.path), 300),
        rule: clip(clean(state, v.rule), 100),
        ...(v.reason === undefined ? {} : { reason: clip(clean(state, v.reason), 300) }),
        ...(v.note === undefined ? {} : { note: clip(clean(state, v.note), 300) }),
        ...(v.command === undefined ? {} : { command: clip(clean(state, v.command), 300) })
      }))
    ]
  }
}

export function onSandboxDecision(state: RunState, event: SessionEvent): void {
  const evidence = sandboxEvidence(event)
  // without the sandbox in the session (off, unavailable) its events say nothing of the run
  if (evidence === undefined || (state.sandbox?.state !== 'enforced' && !state.sandboxPlanned)) {
    return
  }
  if (!evidence.engaged && state.sandboxFailure === undefined) {
    state.sandboxFailure = clean(
      state,
      `The OS sandbox did not engage: ${evidence.reason}. The agent's shell commands fail closed without it.`
    )
  }
  // An enforced sandbox the CLI says did not engage is unavailable; the first failure stays.
  if (state.sandbox?.state !== 'enforced') return
  if (evidence.engaged) {
    state.sandbox = { ...state.sandbox, backend: clip(clean(state, evidence.backend), 100) }
  } else {
    setSandbox(state, { ...state.sandbox, state: 'unavailable', reason: evidence.reason })
    note(state, `sandbox: ${evidence.reason}`)
  }
}

export function setSandbox(state: RunState, sandbox: SandboxRecord): void {
  state.sandbox = {
    state: sandbox.state,
    ...(sandbox.backend === undefined ? {} : { backend: clip(clean(state, sandbox.backend), 100) }),
    ...(sandbox.reason === undefined ? {} : { reason: clip(clean(state, sandbox.reason), 500) }),
    ...(sandbox.provisioned === undefined
      ? {}
      : { provisioned: sandbox.provisioned.slice(0, 10).map((p) => clip(clean(state, p), 100)) }),
    ...(sandbox.setupSeconds === undefined ? {} : { setupSeconds: sandbox.setupSeconds }),
    ...(sandbox.cliConfined === true ? { cliConfined: true } : {}),
    ...(sandbox.networkOff === undefined
      ? {}
      : {
          networkOff: {
            hosts: sandbox.networkOff.hosts.slice(0, 50).map((h) => clip(clean(state, h), 200)),
            reason: clip(clean(state, sandbox.networkOff.reason), 500)
          }
        })
  }
}
