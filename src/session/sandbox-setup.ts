/**
 * Making the OS sandbox work on a GitHub-hosted Linux runner before the session: install what is
 * missing (bubblewrap; slirp4netns and iptables when the policy's url rules allow a host) and let
 * bwrap create user namespaces where Ubuntu 24.04's AppArmor restricts them — all through the
 * runner's passwordless sudo, and only there: on any other runner the action never runs sudo.
 *
 * Two halves: `planSetup`, a pure decision from the runner's facts (which commands to run), and
 * `runSteps`, a thin executor over an injectable command runner. `setUpSandbox` gathers the
 * facts, asks, runs, and probes again.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import {
  findOnPath,
  NETWORK_PROGRAMS,
  type NetworkPackage,
  networkGap,
  networkReady,
  probeSandbox,
  TUN_DEVICE,
  type NetworkStack,
  type SandboxProbe
} from './sandbox-probe.js'

/** Where Ubuntu says whether unprivileged user namespaces are restricted by AppArmor. */
export const APPARMOR_USERNS_SYSCTL = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns'
/** The profile the action writes: bwrap alone may create user namespaces. */
export const APPARMOR_PROFILE_FILE = '/etc/apparmor.d/bwrap-userns'
/** Where `apt-get install bubblewrap` puts bwrap. */
const PACKAGED_BWRAP = '/usr/bin/bwrap'

/** The AppArmor profile that lets `bwrap` (at `bwrapPath`) create user namespaces, and no other program. */
export function apparmorProfile(bwrapPath: string): string {
  return `abi <abi/4.0>,
include <tunables/global>

profile bwrap ${bwrapPath} flags=(unconfined) {
  userns,

  include if exists <local/bwrap>
}
`
}

/** Everything the decision needs to know about the runner. */
export interface RunnerFacts {
  platform: NodeJS.Platform
  /** RUNNER_ENVIRONMENT: `github-hosted` on GitHub's own runners. */
  runnerEnvironment: string | undefined
  /** RUNNER_OS: `Linux`, `macOS`, `Windows`. */
  runnerOs: string | undefined
  /** What probeSandbox found. */
  probe: SandboxProbe
  /** bwrap on PATH (its real path), when it is there. */
  bwrap: string | undefined
  network: NetworkStack
  /** `kernel.apparmor_restrict_unprivileged_userns` is 1 (Ubuntu 24.04). */
  apparmorRestricted: boolean
  /** Whether `sudo -n true` succeeded, with its output when not; undefined: not tried. */
  sudo?: { works: true } | { works: false; output: string }
}

/** One command the setup runs (argv, never a shell line), and what goes to its stdin. */
export interface SetupCommand {
  argv: string[]
  stdin?: string
}

/** One thing to set up: commands run in order; the step holds when all of them succeed. */
export interface SetupStep {
  /** What it sets up, for the log and the report (`bubblewrap`, `apparmor profile`). */
  provides: string[]
  commands: SetupCommand[]
  /** When the commands fail with output matching `when`: run `first`, then the commands again. */
  retry?: { when: RegExp; first: SetupCommand[] }
  /** When the commands fail (after any retry): these instead, with a warning saying so. */
  fallback?: { provides: string[]; commands: SetupCommand[]; warning: string }
}

export type SetupPlan =
  /** Nothing to set up, or nothing the action may set up here (`reason` then says why). */
  | { kind: 'skip'; reason?: string }
  /** Something is missing on a GitHub-hosted Linux runner: first see whether `sudo -n` works. */
  | { kind: 'check-sudo'; command: SetupCommand }
  | { kind: 'steps'; steps: SetupStep[] }

const sudo = (...argv: string[]): SetupCommand => ({ argv: ['sudo', '-n', ...argv] })

/** Is this runner one the action sets up? (GitHub's own Linux runners, and only those.) */
export function provisionable(
  facts: Pick<RunnerFacts, 'platform' | 'runnerEnvironment' | 'runnerOs'>
): boolean {
  return (
    facts.platform === 'linux' &&
    facts.runnerEnvironment === 'github-hosted' &&
    facts.runnerOs === 'Linux'
  )
}

/** What the sandbox lacks here: packages to install, user namespaces to allow, and the rest. */
function needs(facts: RunnerFacts): { packages: string[]; userns: boolean; unfixable: string[] } {
  const packages: string[] = []
  const unfixable: string[] = []
  let userns = false
  if (!facts.probe.available) {
    if (facts.bwrap === undefined) {
      packages.push('bubblewrap')
      userns = facts.apparmorRestricted
    } else if (facts.apparmorRestricted) {
      userns = true
    } else {
      // too old, or refused for a reason an AppArmor profile does not lift
      return { packages: [], userns: false, unfixable: [facts.probe.reason] }
    }
  }
  const { network } = facts
  if (network.needed) {
    if (!network.tun) {
      unfixable.push(
        `${TUN_DEVICE} is missing or not read-writable (the sandbox runs without network)`
      )
    } else packages.push(...network.missing)
  }
  return { packages, userns, unfixable }
}

/**
 * Which commands make the sandbox work on this runner. Pure: the facts come in, the steps go
 * out. Never a step off a GitHub-hosted Linux runner, and none before `sudo -n` proved to work.
 */
export function planSetup(facts: RunnerFacts): SetupPlan {
  if (facts.platform !== 'linux') return { kind: 'skip' }
  const { packages, userns, unfixable } = needs(facts)
  const cannot = unfixable.length > 0 ? unfixable.join('; ') : undefined
  if (packages.length === 0 && !userns)
    return cannot ? { kind: 'skip', reason: cannot } : { kind: 'skip' }
  const wanted = [...packages, ...(userns ? ['user namespaces for bwrap'] : [])].join(', ')
  if (!provisionable(facts)) {
    return {
      kind: 'skip',
      reason: `not a GitHub-hosted Linux runner (RUNNER_ENVIRONMENT=${facts.runnerEnvironment ?? 'unset'}, RUNNER_OS=${facts.runnerOs ?? 'unset'}): the action runs no sudo here, so it does not set up ${wanted}`
    }
  }
  if (facts.sudo === undefined) return { kind: 'check-sudo', command: sudo('true') }
  if (!facts.sudo.works) {
    const said = facts.sudo.output.split('\n')[0] ?? ''
    return {
      kind: 'skip',
      reason: `passwordless sudo does not work on this runner (\`sudo -n true\` failed${said ? `: ${said}` : ''}), so the action cannot set up ${wanted}`
    }
  }
  const steps: SetupStep[] = []
  if (packages.length > 0) {
    const install = sudo('apt-get', 'install', '-y', '--no-install-recommends', ...packages)
    steps.push({
      provides: packages,
      commands: [install],
      // the runner's package lists are missing or stale: fetch them once, then try again
      retry: {
        when: /Unable to locate package|has no installation candidate|Failed to fetch|apt-get update/i,
        first: [sudo('apt-get', 'update')]
      }
    })
  }
  if (userns) {
    const bwrap = facts.bwrap ?? PACKAGED_BWRAP
    const sysctl = sudo('sysctl', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0')
    // an AppArmor path with spaces or quotes would need quoting; no runner installs bwrap there
    const profile = /^\/[\w./+-]+$/.test(bwrap)
    const fallback = {
      provides: ['unprivileged user namespaces (sysctl)'],
      commands: [sysctl],
      warning:
        'The AppArmor profile for bwrap could not be loaded, so the action lifted the restriction on unprivileged user namespaces for the whole machine (kernel.apparmor_restrict_unprivileged_userns=0) instead.'
    }
    steps.push(
      profile
        ? {
            provides: ['apparmor profile'],
            commands: [
              { ...sudo('tee', APPARMOR_PROFILE_FILE), stdin: apparmorProfile(bwrap) },
              sudo('apparmor_parser', '-r', APPARMOR_PROFILE_FILE)
            ],
            fallback
          }
        : { provides: fallback.provides, commands: [sysctl] }
    )
  }
  return { kind: 'steps', steps }
}

// ---------------------------------------------------------------------------------------------
// The executor

export interface CommandResult {
  /** The exit code; null when it could not start or was killed. */
  code: number | null
  output: string
}

export type CommandRunner = (command: SetupCommand) => Promise<CommandResult>

export interface SetupLog {
  info: (line: string) => void
  warning: (line: string) => void
}

export interface StepsResult {
  /** What was set up (each step's `provides`, or its fallback's). */
  provisioned: string[]
  /** What could not be, each with the command that failed. */
  problems: string[]
  /** Fallbacks taken. */
  warnings: string[]
}

/** A command as the log shows it. */
export function shown(command: SetupCommand): string {
  return command.argv.join(' ') + (command.stdin === undefined ? '' : ' < (below)')
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

/** Runs each command, logging it and its time; stops at the first that fails. */
async function runAll(
  commands: readonly SetupCommand[],
  run: CommandRunner,
  log: SetupLog
): Promise<{ ok: true } | { ok: false; command: SetupCommand; result: CommandResult }> {
  for (const command of commands) {
    if (command.stdin !== undefined) log.info(command.stdin.trimEnd())
    const started = performance.now()
    const result = await run(command)
    const took = seconds(performance.now() - started)
    if (result.code === 0) {
      log.info(`$ ${shown(command)}  (${took})`)
      continue
    }
    const tail = result.output.split('\n').slice(-5).join('\n')
    log.info(
      `$ ${shown(command)}  (exit ${result.code ?? 'none'} after ${took})${tail ? `\n${tail}` : ''}`
    )
    return { ok: false, command, result }
  }
  return { ok: true }
}

function failure(command: SetupCommand, result: CommandResult): string {
  const last = result.output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .pop()
  return `\`${command.argv.join(' ')}\` failed (exit ${result.code ?? 'none'}${last ? `: ${last.trim()}` : ''})`
}

/** Runs the plan's steps in order; a step that fails does not stop the next one. */
export async function runSteps(
  steps: readonly SetupStep[],
  run: CommandRunner,
  log: SetupLog
): Promise<StepsResult> {
  const result: StepsResult = { provisioned: [], problems: [], warnings: [] }
  for (const step of steps) {
    let outcome = await runAll(step.commands, run, log)
    if (!outcome.ok && step.retry && step.retry.when.test(outcome.result.output)) {
      const first = await runAll(step.retry.first, run, log)
      if (first.ok) outcome = await runAll(step.commands, run, log)
    }
    if (outcome.ok) {
      result.provisioned.push(...step.provides)
      continue
    }
    const why = failure(outcome.command, outcome.result)
    if (step.fallback) {
      const fallback = await runAll(step.fallback.commands, run, log)
      if (fallback.ok) {
        const warning = `${step.fallback.warning} (${why})`
        log.warning(warning)
        result.warnings.push(warning)
        result.provisioned.push(...step.fallback.provides)
        continue
      }
      result.problems.push(
        `${step.provides.join(', ')}: ${why}; ${failure(fallback.command, fallback.result)}`
      )
      continue
    }
    result.problems.push(`${step.provides.join(', ')}: ${why}`)
  }
  return result
}

/** Runs a command as a child process with `env` (whose PATH finds `sudo`), output captured. */
export function commandRunner(env: NodeJS.ProcessEnv, timeoutMs = 300_000): CommandRunner {
  return (command) =>
    new Promise((resolve) => {
      const [file = '', ...args] = command.argv
      let output = ''
      const child = spawn(file, args, {
        env,
        stdio: [command.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        timeout: timeoutMs
      })
      child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d))
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d))
      child.stdin?.on('error', () => undefined).end(command.stdin)
      child.once('error', (error) => resolve({ code: null, output: error.message }))
      child.once('close', (code) => resolve({ code, output: output.trim() }))
    })
}

// ---------------------------------------------------------------------------------------------
// The whole setup: facts, decision, commands, the probe again

/** What the run knows of the sandbox after the setup. */
export interface SandboxSetup {
  /** The probe after any setup (the first probe when nothing ran). */
  probe: SandboxProbe
  network: NetworkStack
  /** What the action set up. */
  provisioned: string[]
  /** How long the setup took (sudo check, commands, probe again), when anything ran. */
  seconds?: number
  /** Why something missing was not set up (not a GitHub-hosted runner, no sudo, failed commands). */
  problems: string[]
}

export interface SandboxSetupOptions {
  /** The policy's sandbox.mode: `off` sets up nothing. */
  mode: 'auto' | 'required' | 'off'
  probe: SandboxProbe
  /** Whether the policy's url rules allow any host (`sandboxNetwork(policy).allowOutbound`). */
  networkNeeded: boolean
  env: NodeJS.ProcessEnv
  platform?: NodeJS.Platform
  log: SetupLog & { group: <T>(name: string, work: () => Promise<T>) => Promise<T> }
  run?: CommandRunner
  /** Files read for the facts (tests point them elsewhere). */
  files?: { apparmorSysctl?: string; tun?: string }
}

/** The network stack as found on `env`'s PATH. */
export function findNetworkStack(
  needed: boolean,
  env: NodeJS.ProcessEnv,
  tun: string = TUN_DEVICE
): NetworkStack {
  const programs = Object.keys(NETWORK_PROGRAMS).filter(
    (name) => findOnPath(name, env.PATH) === undefined
  ) as Array<keyof typeof NETWORK_PROGRAMS>
  const missing = [...new Set(programs.map((name): NetworkPackage => NETWORK_PROGRAMS[name]))]
  let usable = true
  try {
    fs.accessSync(tun, fs.constants.R_OK | fs.constants.W_OK)
  } catch {
    usable = false
  }
  return { needed, missing, ...(programs.length > 0 ? { programs } : {}), tun: usable }
}

function realBwrap(env: NodeJS.ProcessEnv): string | undefined {
  const found = findOnPath('bwrap', env.PATH)
  if (found === undefined) return undefined
  try {
    return fs.realpathSync(found)
  } catch {
    return found
  }
}

function apparmorRestricts(file: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8').trim() === '1'
  } catch {
    return false
  }
}

/**
 * Probe, decide, set up, probe again. Runs sudo only on a GitHub-hosted Linux runner and only
 * for what the probe says is missing; every command and its time go to the log group
 * "Sandbox setup".
 */
export async function setUpSandbox(options: SandboxSetupOptions): Promise<SandboxSetup> {
  const { env, log } = options
  const platform = options.platform ?? process.platform
  const stack = (): NetworkStack => findNetworkStack(options.networkNeeded, env, options.files?.tun)
  const unchanged: SandboxSetup = {
    probe: options.probe,
    network: stack(),
    provisioned: [],
    problems: []
  }
  if (options.mode === 'off') return unchanged
  const facts: RunnerFacts = {
    platform,
    runnerEnvironment: env.RUNNER_ENVIRONMENT,
    runnerOs: env.RUNNER_OS,
    probe: options.probe,
    bwrap: platform === 'linux' ? realBwrap(env) : undefined,
    network: unchanged.network,
    apparmorRestricted:
      platform === 'linux' &&
      apparmorRestricts(options.files?.apparmorSysctl ?? APPARMOR_USERNS_SYSCTL)
  }
  const first = planSetup(facts)
  if (first.kind === 'skip') {
    return first.reason ? { ...unchanged, problems: [first.reason] } : unchanged
  }
  const run = options.run ?? commandRunner(env)
  return log.group('Sandbox setup', async () => {
    const started = performance.now()
    let plan: SetupPlan = first
    if (plan.kind === 'check-sudo') {
      const checked = await runAll([plan.command], run, log)
      facts.sudo = checked.ok ? { works: true } : { works: false, output: checked.result.output }
      plan = planSetup(facts)
    }
    const done: StepsResult =
      plan.kind === 'steps'
        ? await runSteps(plan.steps, run, log)
        : {
            provisioned: [],
            problems: plan.kind === 'skip' && plan.reason ? [plan.reason] : [],
            warnings: []
          }
    const probe = options.probe.available ? options.probe : await probeSandbox(env, platform)
    const took = (performance.now() - started) / 1000
    const setup: SandboxSetup = {
      probe,
      network: stack(),
      provisioned: done.provisioned,
      seconds: Math.round(took * 10) / 10,
      problems: done.problems
    }
    log.info(
      `Sandbox setup took ${seconds(took * 1000)}: ${setup.provisioned.length > 0 ? `set up ${setup.provisioned.join(', ')}` : 'nothing set up'}; the sandbox is ${probe.available ? 'available' : `unavailable (${probe.reason})`}${setup.network.needed ? `, its network ${networkReady(setup.network) ? 'available' : `unavailable (${networkGap(setup.network)})`}` : ''}.`
    )
    for (const problem of setup.problems) log.warning(`Sandbox setup: ${problem}`)
    return setup
  })
}
