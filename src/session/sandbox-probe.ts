/**
 * The OS sandbox around the agent's shell commands, as the run sees it: before the session, a
 * probe of the backend (bubblewrap on Linux) decides whether the policy's `sandbox.mode` can be
 * met; during the session, the CLI's `sandbox.decision` events say whether it engaged.
 *
 * Measured with CLI 1.0.102: with `sandboxConfig.enabled` and no usable bwrap, every shell
 * command fails ("Sandboxing is enabled but not supported on this platform") — so `auto` passes
 * the config only when the probe found a working backend.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { dataOf, type SessionEvent } from '../cli/protocol.js'
import { UserError } from '../errors.js'
import type { SandboxConfig } from '../policy/index.js'
import type { SandboxMode } from '../policy/index.js'
import type { SandboxRecord } from '../reporting/types.js'
import { findOnPath } from '../wall/cli-wall.js'

/** How to get the sandbox on a runner the action does not set up itself. */
export const SANDBOX_FIX =
  "On GitHub-hosted Linux runners the action sets the sandbox up itself through the runner's passwordless sudo. Elsewhere install bubblewrap before this step (`sudo apt-get install -y bubblewrap`, and `slirp4netns iptables` when the policy has url allow rules); on Ubuntu 24.04 also let bwrap create user namespaces, which AppArmor restricts: write an AppArmor profile for /usr/bin/bwrap to /etc/apparmor.d/bwrap-userns and load it with `sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns` (the profile and the steps: https://github.com/gated-autopilot/autopilot-action/blob/main/docs/troubleshooting.md#sandbox-unavailable), or only if that fails `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` for the whole machine."

/** How to give the sandbox the network the policy's url rules allow. */
export const NETWORK_FIX =
  'Install the Debian/Ubuntu packages slirp4netns and iptables before this step (`sudo apt-get install -y slirp4netns iptables`); the sandbox also needs util-linux (unshare, nsenter), iproute2 (ip) and a /dev/net/tun it can read and write.'

/**
 * What the CLI runs to build the sandbox's private network, and the Debian/Ubuntu package of
 * each (measured, CLI 1.0.102: it names them when one is missing).
 */
export const NETWORK_PROGRAMS = {
  slirp4netns: 'slirp4netns',
  iptables: 'iptables',
  ip6tables: 'iptables',
  'iptables-restore': 'iptables',
  'ip6tables-restore': 'iptables',
  unshare: 'util-linux',
  nsenter: 'util-linux',
  ip: 'iproute2'
} as const
export type NetworkPackage = (typeof NETWORK_PROGRAMS)[keyof typeof NETWORK_PROGRAMS]

/** The device slirp4netns needs. */
export const TUN_DEVICE = '/dev/net/tun'

/** What the sandbox's private network needs, as found on this machine. */
export interface NetworkStack {
  /** The policy's url rules allow some host (`sandboxNetwork(policy).allowOutbound`). */
  needed: boolean
  /** The packages of the programs not on PATH (`slirp4netns`, `iptables`, `util-linux`, `iproute2`). */
  missing: NetworkPackage[]
  /** The programs not on PATH, when known. */
  programs?: string[]
  /** Whether /dev/net/tun exists and is readable and writable. */
  tun: boolean
}

/** Whether the sandbox can have the network the policy allows. */
export function networkReady(stack: NetworkStack): boolean {
  return !stack.needed || (stack.missing.length === 0 && stack.tun)
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`
}

/** What is missing of the network stack, in words (empty when nothing is). */
export function networkGap(stack: NetworkStack): string {
  const programs = stack.programs?.length ? ` (${stack.programs.join(', ')})` : ''
  const gaps = [
    ...(stack.missing.length > 0
      ? [
          `${listed(stack.missing)} ${stack.missing.length === 1 ? 'is' : 'are'} not on PATH${programs}`
        ]
      : []),
    ...(stack.tun ? [] : [`${TUN_DEVICE} is missing or not read-writable`])
  ]
  return gaps.join(', and ')
}

export type SandboxProbe =
  { available: true; backend: string } | { available: false; reason: string }

/** The namespaces the CLI's bubblewrap backend unshares (observed in its bwrap command line). */
export const BWRAP_PROBE_ARGS = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-net',
  '--die-with-parent',
  '--ro-bind',
  '/',
  '/',
  'true'
]

/** The CLI needs bwrap 0.5.0 or newer (major·10⁶ + minor·10³ + patch). */
const MIN_BWRAP = 5_000

export { findOnPath }

function run(
  file: string,
  args: string[],
  timeoutMs: number
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = ''
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs })
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d))
    child.once('error', (error) => resolve({ code: null, output: error.message }))
    child.once('close', (code) => resolve({ code, output: output.trim() }))
  })
}

/**
 * Whether the OS sandbox can run here: on Linux, bwrap on the PATH the CLI gets, new enough, and
 * able to create the namespaces the CLI asks for (Ubuntu 24.04's AppArmor default refuses).
 */
export async function probeSandbox(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform
): Promise<SandboxProbe> {
  if (platform === 'darwin') {
    // not verified by this action's tests: the CLI's seatbelt backend; events confirm it later
    return fs.existsSync('/usr/bin/sandbox-exec')
      ? { available: true, backend: 'seatbelt' }
      : { available: false, reason: '/usr/bin/sandbox-exec is missing' }
  }
  if (platform !== 'linux') {
    return {
      available: false,
      reason: `this action has not verified the CLI's sandbox on ${platform}`
    }
  }
  const bwrap = findOnPath('bwrap', env.PATH)
  if (bwrap === undefined) {
    return { available: false, reason: 'bubblewrap (bwrap) is not installed or not on PATH' }
  }
  const [version, trial] = await Promise.all([
    run(bwrap, ['--version'], 10_000),
    run(bwrap, BWRAP_PROBE_ARGS, 10_000)
  ])
  const found = /(\d+)\.(\d+)\.(\d+)/.exec(version.output)
  if (found !== null) {
    const [major = 0, minor = 0, patch = 0] = found.slice(1, 4).map(Number)
    if (major * 1e6 + minor * 1e3 + patch < MIN_BWRAP) {
      return {
        available: false,
        reason: `${bwrap} is version ${found[0]}; the Copilot CLI needs 0.5.0 or newer`
      }
    }
  }
  if (trial.code !== 0) {
    const detail = trial.output.split('\n')[0] ?? ''
    return {
      available: false,
      reason: `${bwrap} cannot create the sandbox's namespaces (exit ${trial.code ?? 'none'}${detail ? `: ${detail}` : ''})`
    }
  }
  return { available: true, backend: 'bubblewrap' }
}

/** What the run does about the sandbox: the config for `session.create` and the report's line. */
export interface SandboxPlan {
  mode: SandboxMode
  /** Passed to `session.create` when the sandbox is to be used. */
  config?: SandboxConfig
  record: SandboxRecord
}

/** What the setup before the session did and found (src/session/sandbox-setup.ts). */
export interface SetupOutcome {
  network?: NetworkStack
  provisioned?: readonly string[]
  seconds?: number
  /** Why something missing was not set up. */
  problems?: readonly string[]
}

/**
 * Decides from the policy's mode, the probe and the setup. `required` without a working backend,
 * or without the network stack its url rules need, throws a UserError naming the fix (before any
 * session exists). `auto` without a working backend throws too when the policy lets the agent
 * run code (`codeRule`: the rule that does, see `codeExecutionRule`): where no sandbox runs, what
 * the agent's own code does is unguarded, and that must be said with `sandbox: off`, not found
 * out; a policy that runs no code goes on without the sandbox, with a notice. `auto` with the
 * sandbox but without its network stack goes on without network.
 */
export function planSandbox(
  mode: SandboxMode,
  probe: SandboxProbe | undefined,
  config: () => SandboxConfig,
  setup: SetupOutcome = {},
  codeRule?: string
): SandboxPlan {
  if (mode === 'off') {
    return { mode, record: { state: 'off', reason: 'the policy sets sandbox.mode: off' } }
  }
  const provisioned =
    setup.provisioned !== undefined && setup.provisioned.length > 0
      ? { provisioned: [...setup.provisioned] }
      : {}
  const took = setup.seconds === undefined ? {} : { setupSeconds: setup.seconds }
  const problems = setup.problems?.length ? `; ${setup.problems.join('; ')}` : ''
  if (probe === undefined || !probe.available) {
    const reason = `${probe?.reason ?? 'not probed'}${problems}`
    if (mode === 'required') {
      throw new UserError(
        `The policy requires the OS sandbox (sandbox.mode: required), but it is not available: ${reason}. ${SANDBOX_FIX} Or set sandbox.mode: auto in the policy to run without it.`
      )
    }
    if (codeRule !== undefined) {
      throw new UserError(unguardedCodeMessage(codeRule, reason))
    }
    return { mode, record: { state: 'unavailable', reason, ...provisioned, ...took } }
  }
  let sandboxConfig = config()
  const network = sandboxConfig.userPolicy.network
  let networkOff: SandboxRecord['networkOff']
  if (network.allowOutbound && setup.network !== undefined && !networkReady(setup.network)) {
    const hosts = network.allowedHosts.length > 0 ? network.allowedHosts : ['*']
    const gap = `the sandbox's network needs slirp4netns, iptables, util-linux, iproute2 and /dev/net/tun, and ${networkGap(setup.network)}${problems}`
    if (mode === 'required') {
      throw new UserError(
        `The policy requires the OS sandbox (sandbox.mode: required) and its url rules allow ${hosts.join(', ')}, but ${gap}. ${NETWORK_FIX} Or set sandbox.mode: auto in the policy to run sandboxed without network.`
      )
    }
    // Without slirp4netns the CLI fails every sandboxed command: no network at all instead.
    sandboxConfig = {
      ...sandboxConfig,
      userPolicy: {
        ...sandboxConfig.userPolicy,
        network: { ...network, allowOutbound: false, allowedHosts: [] }
      }
    }
    networkOff = { hosts: [...hosts], reason: `${gap}. ${NETWORK_FIX}` }
  }
  return {
    mode,
    config: sandboxConfig,
    record: {
      state: 'enforced',
      backend: probe.backend,
      ...provisioned,
      ...took,
      ...(networkOff ? { networkOff } : {})
    }
  }
}

/**
 * Why a run with `sandbox: auto` stops before the session: the policy lets the agent run code,
 * and no OS sandbox can run here. What is missing, how to get it, and how to accept the risk.
 */
export function unguardedCodeMessage(codeRule: string, reason: string): string {
  return (
    `The policy lets the agent run code (rule ${codeRule}), and the OS sandbox that keeps that code from the runner's secrets, files and network cannot run here: ${reason}. ` +
    `${SANDBOX_FIX} ` +
    "To run without it and accept that the agent's code runs unguarded (the policy then judges only the commands, not what the code they run does), set `sandbox: { mode: off }` in the policy; a policy that runs no code (extends: read-only) runs without the sandbox."
  )
}

/** What one `sandbox.decision` event says about enforcement, when it says anything. */
export type SandboxEvidence =
  { engaged: true; backend: string } | { engaged: false; reason: string }

export function sandboxEvidence(event: SessionEvent): SandboxEvidence | undefined {
  const data = dataOf(event, 'sandbox.decision')
  if (data === undefined) return undefined
  const outcome = data.outcome ?? 'unknown'
  const failed =
    (data.kind === 'enforcement_state' && outcome !== 'engaged') ||
    outcome === 'failed' ||
    outcome === 'degraded' ||
    outcome === 'inactive'
  if (failed) {
    const why = [data.backend, data.degradationReason, data.attestation].filter(
      (part): part is string => typeof part === 'string' && part !== ''
    )
    return {
      engaged: false,
      reason: `the Copilot CLI reported the sandbox ${outcome} at ${data.kind}${why.length > 0 ? ` (${why.join(', ')})` : ''}`
    }
  }
  if (data.kind === 'enforcement_state') {
    return { engaged: true, backend: data.backend ?? 'unknown' }
  }
  return undefined
}
