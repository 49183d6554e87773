/**
 * Setting the OS sandbox up on a GitHub-hosted Linux runner: the decision (which commands run on
 * which runner), and the executor against a FAKE `sudo` first on PATH that records its argv and
 * fakes success or failure — the commands asserted exactly. The probe afterwards is the real one
 * (the fake "installs" by linking this machine's bwrap, slirp4netns and iptables).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  APPARMOR_PROFILE_FILE,
  apparmorProfile,
  planSetup,
  runSteps,
  setUpSandbox,
  type CommandRunner,
  type RunnerFacts,
  type SetupStep
} from '../../src/session/sandbox-setup.js'
import { findOnPath, probeSandbox, type NetworkStack } from '../../src/session/sandbox-probe.js'
import { itWithSandbox, itWithSandboxNetwork } from '../../test-support/sandbox-suite.js'

const NO_BWRAP = {
  available: false as const,
  reason: 'bubblewrap (bwrap) is not installed or not on PATH'
}
const USERNS_REFUSED = {
  available: false as const,
  reason:
    "/usr/bin/bwrap cannot create the sandbox's namespaces (exit 1: bwrap: setting up uid map: Permission denied)"
}
const NO_NETWORK_NEEDED: NetworkStack = { needed: false, missing: [], tun: true }

/** GitHub's ubuntu-latest (24.04) as the runner sees it, bwrap not installed. */
const UBUNTU_24: RunnerFacts = {
  platform: 'linux',
  runnerEnvironment: 'github-hosted',
  runnerOs: 'Linux',
  probe: NO_BWRAP,
  bwrap: undefined,
  network: NO_NETWORK_NEEDED,
  apparmorRestricted: true
}
const SUDO_WORKS = { works: true as const }

const argvOf = (steps: SetupStep[]) => steps.flatMap((s) => s.commands.map((c) => c.argv.join(' ')))

describe('planSetup: which commands run on which runner', () => {
  it('GitHub-hosted Ubuntu 24.04 without bwrap: checks sudo -n first, then installs bubblewrap and loads an AppArmor profile for it', () => {
    expect(planSetup(UBUNTU_24)).toEqual({
      kind: 'check-sudo',
      command: { argv: ['sudo', '-n', 'true'] }
    })
    const plan = planSetup({ ...UBUNTU_24, sudo: SUDO_WORKS })
    if (plan.kind !== 'steps') throw new Error(plan.kind)
    expect(argvOf(plan.steps)).toEqual([
      'sudo -n apt-get install -y --no-install-recommends bubblewrap',
      `sudo -n tee ${APPARMOR_PROFILE_FILE}`,
      `sudo -n apparmor_parser -r ${APPARMOR_PROFILE_FILE}`
    ])
    const [install, apparmor] = plan.steps
    expect(install?.provides).toEqual(['bubblewrap'])
    // apt-get update only when the install fails for missing or stale lists
    expect(install?.retry?.first.map((c) => c.argv.join(' '))).toEqual(['sudo -n apt-get update'])
    expect(install?.retry?.when.test('E: Unable to locate package bubblewrap')).toBe(true)
    expect(install?.retry?.when.test('E: Could not open lock file')).toBe(false)
    expect(apparmor?.provides).toEqual(['apparmor profile'])
    expect(apparmor?.commands[0]?.stdin).toBe(apparmorProfile('/usr/bin/bwrap'))
    expect(apparmor?.commands[0]?.stdin).toContain(
      'profile bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,'
    )
    expect(apparmor?.commands[0]?.stdin).toMatch(/^abi <abi\/4\.0>,\ninclude <tunables\/global>\n/)
    expect(apparmor?.commands[0]?.stdin).toContain('include if exists <local/bwrap>')
    // the machine-wide switch only when the profile cannot be loaded
    expect(apparmor?.fallback?.commands.map((c) => c.argv.join(' '))).toEqual([
      'sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'
    ])
  })

  it('bwrap installed, AppArmor refusing its user namespaces: only the profile, for the bwrap found', () => {
    const plan = planSetup({
      ...UBUNTU_24,
      probe: USERNS_REFUSED,
      bwrap: '/usr/bin/bwrap',
      sudo: SUDO_WORKS
    })
    if (plan.kind !== 'steps') throw new Error(plan.kind)
    expect(argvOf(plan.steps)).toEqual([
      `sudo -n tee ${APPARMOR_PROFILE_FILE}`,
      `sudo -n apparmor_parser -r ${APPARMOR_PROFILE_FILE}`
    ])
    const local = planSetup({
      ...UBUNTU_24,
      probe: USERNS_REFUSED,
      bwrap: '/usr/local/bin/bwrap',
      sudo: SUDO_WORKS
    })
    if (local.kind !== 'steps') throw new Error(local.kind)
    expect(local.steps[0]?.commands[0]?.stdin).toContain('profile bwrap /usr/local/bin/bwrap ')
  })

  it('Ubuntu 22.04 (no AppArmor restriction) without bwrap: the package alone', () => {
    const plan = planSetup({ ...UBUNTU_24, apparmorRestricted: false, sudo: SUDO_WORKS })
    if (plan.kind !== 'steps') throw new Error(plan.kind)
    expect(argvOf(plan.steps)).toEqual([
      'sudo -n apt-get install -y --no-install-recommends bubblewrap'
    ])
  })

  it('the policy allows a host and slirp4netns is missing: installs the network packages that are missing', () => {
    const working = { ...UBUNTU_24, probe: { available: true as const, backend: 'bubblewrap' } }
    const plan = planSetup({
      ...working,
      bwrap: '/usr/bin/bwrap',
      network: { needed: true, missing: ['slirp4netns'], tun: true },
      sudo: SUDO_WORKS
    })
    if (plan.kind !== 'steps') throw new Error(plan.kind)
    expect(argvOf(plan.steps)).toEqual([
      'sudo -n apt-get install -y --no-install-recommends slirp4netns'
    ])
    // with bwrap missing too: one apt-get for all three
    const all = planSetup({
      ...UBUNTU_24,
      network: { needed: true, missing: ['slirp4netns', 'iptables'], tun: true },
      sudo: SUDO_WORKS
    })
    if (all.kind !== 'steps') throw new Error(all.kind)
    expect(argvOf(all.steps)[0]).toBe(
      'sudo -n apt-get install -y --no-install-recommends bubblewrap slirp4netns iptables'
    )
    expect(all.steps[0]?.provides).toEqual(['bubblewrap', 'slirp4netns', 'iptables'])
    // no host allowed: the network packages are not needed
    expect(
      planSetup({
        ...working,
        bwrap: '/usr/bin/bwrap',
        network: { needed: false, missing: ['slirp4netns', 'iptables'], tun: true }
      })
    ).toEqual({ kind: 'skip' })
  })

  it('no /dev/net/tun: the network packages would not help; nothing installed for them, and why', () => {
    expect(
      planSetup({
        ...UBUNTU_24,
        probe: { available: true, backend: 'bubblewrap' },
        bwrap: '/usr/bin/bwrap',
        network: { needed: true, missing: ['slirp4netns'], tun: false },
        sudo: SUDO_WORKS
      })
    ).toEqual({
      kind: 'skip',
      reason: '/dev/net/tun is missing or not read-writable (the sandbox runs without network)'
    })
  })

  it('self-hosted, RUNNER_ENVIRONMENT unset or not github-hosted, RUNNER_OS not Linux: never sudo, and says so', () => {
    const others: Array<Partial<RunnerFacts>> = [
      { runnerEnvironment: 'self-hosted' },
      { runnerEnvironment: undefined },
      { runnerEnvironment: 'GitHub-Hosted' },
      { runnerOs: undefined },
      { runnerOs: 'macOS' }
    ]
    for (const other of others) {
      // even when sudo would work
      const plan = planSetup({ ...UBUNTU_24, ...other, sudo: SUDO_WORKS })
      expect(plan).toMatchObject({
        kind: 'skip',
        reason: expect.stringMatching(
          /^not a GitHub-hosted Linux runner \(RUNNER_ENVIRONMENT=.*\): the action runs no sudo here, so it does not set up bubblewrap, user namespaces for bwrap$/
        ) as unknown
      })
      expect(planSetup({ ...UBUNTU_24, ...other }).kind).toBe('skip')
    }
    expect(planSetup({ ...UBUNTU_24, runnerEnvironment: 'self-hosted' })).toEqual({
      kind: 'skip',
      reason:
        'not a GitHub-hosted Linux runner (RUNNER_ENVIRONMENT=self-hosted, RUNNER_OS=Linux): the action runs no sudo here, so it does not set up bubblewrap, user namespaces for bwrap'
    })
  })

  it('macOS and Windows: nothing, not even on GitHub-hosted runners', () => {
    for (const [platform, runnerOs] of [
      ['darwin', 'macOS'],
      ['win32', 'Windows']
    ] as const) {
      expect(
        planSetup({
          ...UBUNTU_24,
          platform,
          runnerOs,
          probe: { available: false, reason: 'x' },
          network: { needed: true, missing: ['slirp4netns', 'iptables'], tun: false },
          sudo: SUDO_WORKS
        })
      ).toEqual({ kind: 'skip' })
    }
  })

  it('sudo -n failing (a container job, a runner without passwordless sudo): nothing, with a clear reason', () => {
    expect(
      planSetup({ ...UBUNTU_24, sudo: { works: false, output: 'sudo: a password is required' } })
    ).toEqual({
      kind: 'skip',
      reason:
        'passwordless sudo does not work on this runner (`sudo -n true` failed: sudo: a password is required), so the action cannot set up bubblewrap, user namespaces for bwrap'
    })
  })

  it('nothing missing: nothing to do, sudo not even tried', () => {
    expect(
      planSetup({
        ...UBUNTU_24,
        probe: { available: true, backend: 'bubblewrap' },
        bwrap: '/usr/bin/bwrap',
        network: { needed: true, missing: [], tun: true }
      })
    ).toEqual({ kind: 'skip' })
  })

  it('a bwrap that fails for a reason AppArmor does not explain (too old): nothing the action can install', () => {
    const old = {
      available: false as const,
      reason: '/opt/bwrap is version 0.4.1; the Copilot CLI needs 0.5.0 or newer'
    }
    expect(
      planSetup({ ...UBUNTU_24, probe: old, bwrap: '/opt/bwrap', apparmorRestricted: false })
    ).toEqual({ kind: 'skip', reason: old.reason })
  })
})

describe('runSteps', () => {
  const silent = { info: () => undefined, warning: () => undefined }
  const step: SetupStep = {
    provides: ['x'],
    commands: [{ argv: ['a'] }, { argv: ['b'] }],
    retry: { when: /lists/, first: [{ argv: ['update'] }] }
  }

  it('runs the retry only when the output says so, then the commands again', async () => {
    const ran: string[] = []
    const run = (fail: (argv: string, n: number) => string | undefined): CommandRunner => {
      return (command) => {
        const argv = command.argv.join(' ')
        ran.push(argv)
        const output = fail(argv, ran.filter((r) => r === argv).length)
        return Promise.resolve(output === undefined ? { code: 0, output: '' } : { code: 1, output })
      }
    }
    expect(
      await runSteps(
        [step],
        run((a, n) => (a === 'b' && n === 1 ? 'no lists' : undefined)),
        silent
      )
    ).toEqual({
      provisioned: ['x'],
      problems: [],
      warnings: []
    })
    expect(ran).toEqual(['a', 'b', 'update', 'a', 'b'])
    ran.length = 0
    expect(
      await runSteps(
        [step],
        run((a) => (a === 'a' ? 'disk full' : undefined)),
        silent
      )
    ).toEqual({
      provisioned: [],
      problems: ['x: `a` failed (exit 1: disk full)'],
      warnings: []
    })
    expect(ran).toEqual(['a'])
  })
})

describe('setUpSandbox with a fake sudo first on PATH', () => {
  let dir: string
  let bin: string
  let log: string
  let lines: string[]
  const realBwrap = findOnPath('bwrap', process.env.PATH)
  const real = (name: string): string => {
    const found = findOnPath(name, `${process.env.PATH ?? ''}:/usr/sbin:/sbin`)
    if (found === undefined) throw new Error(`${name} is not installed here`)
    return found
  }

  /**
   * `sudo` that appends its argv (one line, `|`-separated) to the log, keeps what `tee` got on
   * stdin, fails for the commands named in FAKE_SUDO_FAIL, answers `apt-get install` with
   * "Unable to locate package" until `apt-get update` ran when FAKE_SUDO_NO_LISTS is set, and
   * "installs" a package by linking this machine's program into `bin`.
   */
  function fakeSudo(): void {
    const links: Record<string, string[]> = {
      bubblewrap: ['bwrap'],
      slirp4netns: ['slirp4netns'],
      iptables: ['iptables', 'ip6tables', 'iptables-restore', 'ip6tables-restore']
    }
    const installs = Object.entries(links)
      .map(
        ([pkg, names]) =>
          `    ${pkg}) ${names.map((name) => `ln -sf '${name === 'bwrap' ? (realBwrap ?? '/nonexistent') : real(name)}' '${bin}/${name}'`).join('; ')} ;;`
      )
      .join('\n')
    fs.writeFileSync(
      path.join(dir, 'sudo'),
      `#!/bin/sh
PATH=/usr/bin:/bin
line=""
for a in "$@"; do line="$line$a|"; done
echo "$line" >> '${log}'
[ "$1" = -n ] || { echo "sudo: not -n" >&2; exit 9; }
shift
for f in $FAKE_SUDO_FAIL; do
  [ "$1" = "$f" ] && { echo "sudo: $f: fake failure" >&2; exit 1; }
done
case "$1" in
  tee) cat > '${dir}/tee-stdin' ;;
  apt-get)
    if [ "$2" = update ]; then touch '${dir}/lists'; exit 0; fi
    if [ -n "$FAKE_SUDO_NO_LISTS" ] && [ ! -e '${dir}/lists' ]; then
      echo "E: Unable to locate package $5" >&2; exit 100
    fi
    shift 4
    for pkg in "$@"; do
      case "$pkg" in
${installs}
      esac
    done ;;
esac
exit 0
`,
      { mode: 0o755 }
    )
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-sudo-'))
    bin = path.join(dir, 'bin')
    fs.mkdirSync(bin)
    log = path.join(dir, 'sudo.log')
    lines = []
    fs.writeFileSync(path.join(dir, 'restrict'), '1\n')
    fakeSudo()
    // util-linux (Essential) and iproute2 are on every Ubuntu runner already
    for (const name of ['unshare', 'nsenter', 'ip'])
      fs.symlinkSync(real(name), path.join(bin, name))
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  const sudoCalls = (): string[] =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => `sudo ${l.slice(0, -1).split('|').join(' ')}`)
      : []

  async function setUp(env: Record<string, string>, networkNeeded = false) {
    const full = {
      PATH: `${dir}:${bin}`,
      RUNNER_ENVIRONMENT: 'github-hosted',
      RUNNER_OS: 'Linux',
      ...env
    }
    return setUpSandbox({
      mode: 'auto',
      probe: await probeSandbox(full, 'linux'),
      networkNeeded,
      env: full,
      platform: 'linux',
      log: {
        info: (line) => lines.push(line),
        warning: (line) => lines.push(`WARNING ${line}`),
        group: async (name, work) => {
          lines.push(`GROUP ${name}`)
          return work()
        }
      },
      files: { apparmorSysctl: path.join(dir, 'restrict'), tun: '/dev/null' }
    })
  }

  itWithSandbox(
    'GitHub-hosted, no bwrap, stale lists, AppArmor restricting: exactly these commands, then the sandbox works',
    async () => {
      const setup = await setUp({ FAKE_SUDO_NO_LISTS: '1' })
      expect(sudoCalls()).toEqual([
        'sudo -n true',
        'sudo -n apt-get install -y --no-install-recommends bubblewrap',
        'sudo -n apt-get update',
        'sudo -n apt-get install -y --no-install-recommends bubblewrap',
        `sudo -n tee ${APPARMOR_PROFILE_FILE}`,
        `sudo -n apparmor_parser -r ${APPARMOR_PROFILE_FILE}`
      ])
      expect(fs.readFileSync(path.join(dir, 'tee-stdin'), 'utf8')).toBe(
        apparmorProfile('/usr/bin/bwrap')
      )
      expect(setup).toMatchObject({
        probe: { available: true, backend: 'bubblewrap' },
        provisioned: ['bubblewrap', 'apparmor profile'],
        problems: []
      })
      expect(setup.seconds).toBeGreaterThanOrEqual(0)
      // each command and its time, in the group
      expect(lines[0]).toBe('GROUP Sandbox setup')
      expect(lines).toContainEqual(expect.stringMatching(/^\$ sudo -n true {2}\(\d+\.\d s\)$/))
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^\$ sudo -n apt-get install -y --no-install-recommends bubblewrap {2}\(exit 100 after \d+\.\d s\)\nE: Unable to locate package bubblewrap$/
        )
      )
      expect(lines).toContainEqual(
        expect.stringMatching(/^\$ sudo -n tee \/etc\/apparmor.d\/bwrap-userns < \(below\) {2}\(/)
      )
      expect(lines.at(-1)).toMatch(
        /^Sandbox setup took \d+\.\d s: set up bubblewrap, apparmor profile; the sandbox is available\.$/
      )
    }
  )

  it('the profile cannot be loaded: falls back to the sysctl, and warns that it is machine-wide', async () => {
    const setup = await setUp({ FAKE_SUDO_FAIL: 'apparmor_parser' })
    expect(sudoCalls()).toEqual([
      'sudo -n true',
      'sudo -n apt-get install -y --no-install-recommends bubblewrap',
      `sudo -n tee ${APPARMOR_PROFILE_FILE}`,
      `sudo -n apparmor_parser -r ${APPARMOR_PROFILE_FILE}`,
      'sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'
    ])
    expect(setup.provisioned).toEqual(['bubblewrap', 'unprivileged user namespaces (sysctl)'])
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^WARNING The AppArmor profile for bwrap could not be loaded, so the action lifted the restriction .* for the whole machine .*\(`sudo -n apparmor_parser -r \/etc\/apparmor.d\/bwrap-userns` failed \(exit 1: sudo: apparmor_parser: fake failure\)\)$/
      )
    )
  })

  it('sudo -n fails: nothing else runs, and the reason says why', async () => {
    const setup = await setUp({ FAKE_SUDO_FAIL: 'true' })
    expect(sudoCalls()).toEqual(['sudo -n true'])
    expect(setup.probe).toEqual(NO_BWRAP)
    expect(setup.provisioned).toEqual([])
    expect(setup.problems).toEqual([
      'passwordless sudo does not work on this runner (`sudo -n true` failed: sudo: true: fake failure), so the action cannot set up bubblewrap, user namespaces for bwrap'
    ])
    expect(lines).toContainEqual(expect.stringMatching(/^WARNING Sandbox setup: passwordless sudo/))
  })

  it('the install fails for good: the problem is reported, the AppArmor step still tried, the probe still says unavailable', async () => {
    const setup = await setUp({ FAKE_SUDO_FAIL: 'apt-get' })
    expect(sudoCalls()).toEqual([
      'sudo -n true',
      'sudo -n apt-get install -y --no-install-recommends bubblewrap',
      `sudo -n tee ${APPARMOR_PROFILE_FILE}`,
      `sudo -n apparmor_parser -r ${APPARMOR_PROFILE_FILE}`
    ])
    expect(setup.probe).toEqual(NO_BWRAP)
    expect(setup.problems).toEqual([
      'bubblewrap: `sudo -n apt-get install -y --no-install-recommends bubblewrap` failed (exit 1: sudo: apt-get: fake failure)'
    ])
  })

  it('self-hosted, or RUNNER_ENVIRONMENT unset: sudo is never run', async () => {
    for (const env of [{ RUNNER_ENVIRONMENT: 'self-hosted' }, { RUNNER_ENVIRONMENT: '' }]) {
      const setup = await setUp(env, true)
      expect(sudoCalls()).toEqual([])
      expect(setup.provisioned).toEqual([])
      expect(setup.problems[0]).toMatch(
        /^not a GitHub-hosted Linux runner .* the action runs no sudo here/
      )
      expect(setup.seconds).toBeUndefined()
      expect(lines).toEqual([])
    }
  })

  it('sandbox.mode off: nothing probed or run', async () => {
    const setup = await setUpSandbox({
      mode: 'off',
      probe: NO_BWRAP,
      networkNeeded: true,
      env: { PATH: `${dir}:${bin}`, RUNNER_ENVIRONMENT: 'github-hosted', RUNNER_OS: 'Linux' },
      platform: 'linux',
      log: { info: () => undefined, warning: () => undefined, group: (_n, work) => work() }
    })
    expect(sudoCalls()).toEqual([])
    expect(setup.provisioned).toEqual([])
  })

  itWithSandboxNetwork(
    'the policy allows a host: slirp4netns and iptables installed with bubblewrap, the network stack found afterwards',
    async () => {
      fs.writeFileSync(path.join(dir, 'restrict'), '0\n')
      const setup = await setUp({}, true)
      expect(sudoCalls()).toEqual([
        'sudo -n true',
        'sudo -n apt-get install -y --no-install-recommends bubblewrap slirp4netns iptables'
      ])
      expect(setup.provisioned).toEqual(['bubblewrap', 'slirp4netns', 'iptables'])
      expect(setup.network).toEqual({ needed: true, missing: [], tun: true })
      expect(setup.probe).toEqual({ available: true, backend: 'bubblewrap' })
    }
  )
})
