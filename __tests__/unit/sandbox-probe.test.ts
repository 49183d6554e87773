/**
 * The run's side of the OS sandbox: the probe (real bwrap on this machine; `.ci/run` installs
 * it), the plan from the policy's mode, what `sandbox.decision` events say, and how the report
 * folds and shows it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { UserError } from '../../src/errors.js'
import type { SandboxConfig } from '../../src/policy/sandbox.js'
import { toReport } from '../../src/reporting/report.js'
import { createState, fold, type RunState } from '../../src/session/fold.js'
import type { SandboxRecord } from '../../src/reporting/types.js'
import { renderSummary } from '../../src/reporting/render.js'
import {
  findOnPath,
  planSandbox,
  probeSandbox,
  sandboxEvidence
} from '../../src/session/sandbox-probe.js'
import type { SessionEvent } from '../../src/cli/protocol.js'
import { itWithSandbox } from '../../test-support/sandbox-suite.js'

const CONFIG: SandboxConfig = {
  enabled: true,
  allowBypass: false,
  addCurrentWorkingDirectory: true,
  userPolicy: {
    network: { allowOutbound: false, allowLocalNetwork: false, allowedHosts: [], blockedHosts: [] },
    filesystem: { readwritePaths: ['/ws'], readonlyPaths: [], deniedPaths: ['/tmp'] }
  }
}

const decision = (data: Record<string, unknown>): SessionEvent => ({
  type: 'sandbox.decision',
  ephemeral: true,
  data
})

// As CLI 1.0.102 emitted them (bwrap present, then bwrap missing).
const ENGAGED = decision({
  kind: 'enforcement_state',
  control: 'process',
  outcome: 'engaged',
  toolCallId: 'call_1',
  platform: 'linux',
  backend: 'bubblewrap',
  enforcementPoint: 'shell',
  attestation: 'spawn_succeeded'
})
const RESOLVED = decision({
  kind: 'policy_resolved',
  outcome: 'resolved',
  backend: 'bubblewrap',
  readwritePathsCount: 2
})
const SPAWN_FAILED = decision({
  kind: 'spawn_completed',
  control: 'process',
  outcome: 'failed',
  platform: 'linux',
  backend: 'unsupported',
  enforcementPoint: 'shell',
  durationMs: 0,
  degradationReason: 'unsupported_platform'
})
const NOT_ENGAGED = decision({
  kind: 'enforcement_state',
  outcome: 'failed',
  backend: 'unsupported',
  attestation: 'unsupported'
})

describe('probeSandbox', () => {
  itWithSandbox(
    'finds bwrap on PATH and runs it with the namespaces the CLI asks for',
    async () => {
      expect(findOnPath('bwrap', process.env.PATH)).toBeDefined()
      expect(await probeSandbox(process.env, 'linux')).toEqual({
        available: true,
        backend: 'bubblewrap'
      })
    }
  )

  it('no bwrap on PATH: unavailable, saying so', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-bwrap-'))
    try {
      expect(await probeSandbox({ PATH: dir }, 'linux')).toEqual({
        available: false,
        reason: 'bubblewrap (bwrap) is not installed or not on PATH'
      })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a bwrap that cannot create namespaces (AppArmor on Ubuntu 24.04): unavailable, with its error', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-bwrap-'))
    try {
      // what bwrap prints when unprivileged user namespaces are refused
      fs.writeFileSync(
        path.join(dir, 'bwrap'),
        '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.9.0"; exit 0; }\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
        { mode: 0o755 }
      )
      const probe = await probeSandbox({ PATH: dir }, 'linux')
      expect(probe).toEqual({
        available: false,
        reason: `${dir}/bwrap cannot create the sandbox's namespaces (exit 1: bwrap: setting up uid map: Permission denied)`
      })
      fs.writeFileSync(path.join(dir, 'bwrap'), '#!/bin/sh\necho "bubblewrap 0.4.1"\n', {
        mode: 0o755
      })
      expect(await probeSandbox({ PATH: dir }, 'linux')).toMatchObject({
        available: false,
        reason: expect.stringContaining('version 0.4.1; the Copilot CLI needs 0.5.0') as unknown
      })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('platforms the action has not verified: unavailable', async () => {
    expect(await probeSandbox({}, 'win32')).toMatchObject({ available: false })
  })
})

describe('planSandbox', () => {
  const ok = { available: true as const, backend: 'bubblewrap' }
  const missing = { available: false as const, reason: 'bwrap is missing' }

  it('auto or required with a working backend: the config, enforced', () => {
    for (const mode of ['auto', 'required'] as const) {
      expect(planSandbox(mode, ok, () => CONFIG)).toEqual({
        mode,
        config: CONFIG,
        record: { state: 'enforced', backend: 'bubblewrap' }
      })
    }
  })

  it('auto without one: no config (the CLI would fail every command), unavailable with the reason', () => {
    expect(planSandbox('auto', missing, () => CONFIG)).toEqual({
      mode: 'auto',
      record: { state: 'unavailable', reason: 'bwrap is missing' }
    })
  })

  it('auto without one, for a policy that runs code: a UserError naming the rule, what is missing, the fix and sandbox: off', () => {
    const plan = () => planSandbox('auto', missing, () => CONFIG, {}, 'tests ("npm test*")')
    expect(plan).toThrow(UserError)
    expect(plan).toThrow(/rule tests \("npm test\*"\).*bwrap is missing/)
    expect(plan).toThrow('sudo apt-get install -y bubblewrap')
    expect(plan).toThrow('sandbox: { mode: off }')
    // off is the author's choice: no error, and the record says off
    expect(planSandbox('off', missing, () => CONFIG, {}, 'tests').record.state).toBe('off')
    // with the sandbox, code runs inside it
    expect(planSandbox('auto', ok, () => CONFIG, {}, 'tests').record.state).toBe('enforced')
  })

  it('required without one: a UserError naming both fixes', () => {
    const plan = () => planSandbox('required', missing, () => CONFIG)
    expect(plan).toThrow(UserError)
    expect(plan).toThrow(/sandbox\.mode: required.*bwrap is missing/)
    expect(plan).toThrow('sudo apt-get install -y bubblewrap')
    expect(plan).toThrow('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0')
    // the AppArmor step the action itself takes comes first, with where to find the profile
    expect(plan).toThrow('sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns')
    expect(plan).toThrow('docs/troubleshooting.md#sandbox-unavailable')
  })

  describe('the policy allows hosts (url rules) and the network stack is missing', () => {
    const withHosts: SandboxConfig = {
      ...CONFIG,
      userPolicy: {
        ...CONFIG.userPolicy,
        network: {
          allowOutbound: true,
          allowLocalNetwork: false,
          allowedHosts: ['docs.github.com', 'registry.npmjs.org'],
          blockedHosts: []
        }
      }
    }
    const noSlirp = { needed: true, missing: ['slirp4netns' as const], tun: true }

    it('auto: the sandbox without network, the record naming the hosts and what to install', () => {
      const plan = planSandbox('auto', ok, () => withHosts, { network: noSlirp })
      expect(plan.config?.userPolicy.network).toEqual({
        allowOutbound: false,
        allowLocalNetwork: false,
        allowedHosts: [],
        blockedHosts: []
      })
      expect(plan.config?.userPolicy.filesystem).toEqual(CONFIG.userPolicy.filesystem)
      expect(plan.record).toEqual({
        state: 'enforced',
        backend: 'bubblewrap',
        networkOff: {
          hosts: ['docs.github.com', 'registry.npmjs.org'],
          reason: expect.stringContaining('slirp4netns is not on PATH') as unknown
        }
      })
      expect(plan.record.networkOff?.reason).toContain(
        'Install the Debian/Ubuntu packages slirp4netns and iptables'
      )
      // an allow-all url rule: any host
      const any = planSandbox(
        'auto',
        ok,
        () => ({
          ...withHosts,
          userPolicy: {
            ...withHosts.userPolicy,
            network: { ...withHosts.userPolicy.network, allowedHosts: [] }
          }
        }),
        { network: { needed: true, missing: [], tun: false } }
      )
      expect(any.record.networkOff).toEqual({
        hosts: ['*'],
        reason: expect.stringContaining('/dev/net/tun is missing or not read-writable') as unknown
      })
    })

    it('required: a UserError naming the packages, before any session', () => {
      const plan = () =>
        planSandbox('required', ok, () => withHosts, {
          network: { needed: true, missing: ['slirp4netns', 'iptables'], tun: true },
          problems: ['not a GitHub-hosted Linux runner (…)']
        })
      expect(plan).toThrow(UserError)
      expect(plan).toThrow(/url rules allow docs\.github\.com, registry\.npmjs\.org/)
      expect(plan).toThrow('slirp4netns and iptables are not on PATH')
      expect(plan).toThrow('sudo apt-get install -y slirp4netns iptables')
    })

    it('the stack present, or no host allowed: the network as the policy says', () => {
      const ready = { needed: true, missing: [], tun: true }
      expect(planSandbox('auto', ok, () => withHosts, { network: ready }).config).toEqual(withHosts)
      expect(planSandbox('required', ok, () => CONFIG, { network: noSlirp }).record).toEqual({
        state: 'enforced',
        backend: 'bubblewrap'
      })
    })
  })

  it('what the setup did goes into the record, and why it did not into the reason', () => {
    expect(
      planSandbox('auto', ok, () => CONFIG, {
        provisioned: ['bubblewrap', 'apparmor profile'],
        seconds: 9.4
      }).record
    ).toEqual({
      state: 'enforced',
      backend: 'bubblewrap',
      provisioned: ['bubblewrap', 'apparmor profile'],
      setupSeconds: 9.4
    })
    expect(
      planSandbox('auto', missing, () => CONFIG, { problems: ['passwordless sudo does not work'] })
        .record
    ).toEqual({ state: 'unavailable', reason: 'bwrap is missing; passwordless sudo does not work' })
  })

  it('off: no config, whatever the probe', () => {
    expect(planSandbox('off', ok, () => CONFIG)).toMatchObject({ record: { state: 'off' } })
    expect(planSandbox('off', ok, () => CONFIG).config).toBeUndefined()
  })
})

describe('sandboxEvidence', () => {
  it('engaged only from enforcement_state engaged; resolved says nothing yet', () => {
    expect(sandboxEvidence(ENGAGED)).toEqual({ engaged: true, backend: 'bubblewrap' })
    expect(sandboxEvidence(RESOLVED)).toBeUndefined()
  })

  it('a failed spawn or enforcement is not engaged, with what the CLI said', () => {
    expect(sandboxEvidence(SPAWN_FAILED)).toEqual({
      engaged: false,
      reason:
        'the Copilot CLI reported the sandbox failed at spawn_completed (unsupported, unsupported_platform)'
    })
    expect(sandboxEvidence(NOT_ENGAGED)).toMatchObject({ engaged: false })
  })

  it('tolerates other events and malformed data', () => {
    expect(sandboxEvidence({ type: 'session.idle' })).toBeUndefined()
    expect(sandboxEvidence(decision({ outcome: 'engaged' }))).toBeUndefined() // no kind
  })
})

describe('the report', () => {
  const START = '2026-11-22T10:00:00.000Z'
  class Builder {
    readonly state: RunState = createState({ startedAt: START, policySource: 'p.yml' })
    setSandbox(record: SandboxRecord): void {
      fold(this.state, { type: 'sandbox', record, required: false })
    }
    onEvent(event: SessionEvent): void {
      fold(this.state, { type: 'event', event })
    }
  }
  const builder = (): Builder => new Builder()
  const finish = (b: Builder) =>
    toReport(b.state, { endedAt: '2026-11-22T10:01:00.000Z', settled: { status: 'completed' } })

  it('no sandbox key until the run sets one (older reports stay as they were)', () => {
    expect(finish(builder()).sandbox).toBeUndefined()
  })

  it('enforced stays enforced while the CLI says engaged', () => {
    const b = builder()
    b.setSandbox({ state: 'enforced', backend: 'bubblewrap' })
    b.onEvent(RESOLVED)
    b.onEvent(ENGAGED)
    const report = finish(b)
    expect(report.sandbox).toEqual({ state: 'enforced', backend: 'bubblewrap' })
    expect(renderSummary(report)).toContain('**Sandbox:** 🛡️ enforced (`bubblewrap`)')
  })

  it('enforced becomes unavailable, with the reason, when the CLI says it did not engage', () => {
    const b = builder()
    b.setSandbox({ state: 'enforced', backend: 'bubblewrap' })
    b.onEvent(SPAWN_FAILED)
    b.onEvent(ENGAGED) // a later success does not hide the failure
    const report = finish(b)
    expect(report.sandbox).toMatchObject({ state: 'unavailable' })
    expect(report.sandbox?.reason).toContain('unsupported_platform')
    expect(report.lastActivity.join('\n')).toContain('sandbox: the Copilot CLI reported')
    expect(renderSummary(report)).toMatch(/\*\*Sandbox:\*\* ⚠️ unavailable — the Copilot CLI/)
  })

  it('what the action set up, and a sandbox without network, in the summary line and the headline', () => {
    const b = builder()
    b.setSandbox({
      state: 'enforced',
      backend: 'bubblewrap',
      provisioned: ['bubblewrap', 'apparmor profile'],
      setupSeconds: 9.42
    })
    expect(renderSummary(finish(b))).toContain(
      "**Sandbox:** 🛡️ enforced (`bubblewrap`), set up on this runner by the action (bubblewrap, apparmor profile; 9.4 s): the agent's shell commands ran confined to the workspace, without network beyond the policy's hosts"
    )
    b.setSandbox({
      state: 'enforced',
      backend: 'bubblewrap',
      networkOff: { hosts: ['docs.github.com'], reason: 'slirp4netns is not on PATH' }
    })
    const report = finish(b)
    expect(report.sandbox?.networkOff).toEqual({
      hosts: ['docs.github.com'],
      reason: 'slirp4netns is not on PATH'
    })
    const summary = renderSummary(report)
    expect(summary).toContain(
      "**Sandbox:** 🛡️ enforced (`bubblewrap`): the agent's shell commands ran confined to the workspace and **without network**: they could not reach `docs.github.com`, which the policy's url rules allow — slirp4netns is not on PATH"
    )
    expect(summary).toContain('sandbox 🛡️ enforced (no network)')
  })

  it('a planned sandbox that fails keeps what was set up', () => {
    const b = builder()
    b.setSandbox({ state: 'enforced', backend: 'bubblewrap', provisioned: ['bubblewrap'] })
    b.onEvent(SPAWN_FAILED)
    expect(finish(b).sandbox).toMatchObject({ state: 'unavailable', provisioned: ['bubblewrap'] })
  })

  it('unavailable and off are one line each', () => {
    const b = builder()
    b.setSandbox({ state: 'unavailable', reason: 'bwrap is missing' })
    expect(renderSummary(finish(b))).toContain(
      "**Sandbox:** ⚠️ unavailable — bwrap is missing: the agent's shell commands ran without the OS sandbox"
    )
    b.setSandbox({ state: 'off' })
    const lines = renderSummary(finish(b)).split('\n')
    expect(lines.filter((l) => l.includes('**Sandbox:**'))).toEqual([
      "**Sandbox:** off (sandbox.mode: off): the agent's shell commands ran without the OS sandbox"
    ])
  })
})
