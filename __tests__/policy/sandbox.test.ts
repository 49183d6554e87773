/**
 * The policy's `sandbox:` section, and the CLI sandbox config derived from a policy and the
 * run's facts (src/policy/sandbox.ts).
 */
import { compilePolicy, PolicyError } from '../../src/policy/index.js'
import { resolvePolicyText } from '../../src/policy/load.js'
import { HOME_CREDENTIALS } from '../../src/policy/sensitive.js'
import { inScratchArea } from '../../src/policy/scratch-areas.js'
import {
  HOME_CACHES,
  protectedNames,
  sandboxConfigFor,
  sandboxNetwork,
  type SandboxFacts
} from '../../src/policy/sandbox.js'
import { EXAMPLE_POLICY, tempWorkspace } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
beforeAll(() => {
  ws = tempWorkspace()
})
afterAll(() => ws.cleanup())

async function errorOf(text: string): Promise<PolicyError> {
  try {
    await compilePolicy(text, 'policy.yml', ws.dir)
  } catch (error) {
    if (error instanceof PolicyError) return error
    throw error
  }
  throw new Error('expected a PolicyError')
}

describe('the sandbox section', () => {
  it('defaults to auto, with or without a preset', async () => {
    expect((await compilePolicy(EXAMPLE_POLICY, 'p.yml', ws.dir)).sandboxMode).toBe('auto')
    expect(
      (await compilePolicy('version: 1\nextends: ci-fix\n', 'p.yml', ws.dir)).sandboxMode
    ).toBe('auto')
  })

  it.each(['auto', 'required', 'off'] as const)('accepts mode: %s', async (mode) => {
    const policy = await compilePolicy(`version: 1\nsandbox:\n  mode: ${mode}\n`, 'p.yml', ws.dir)
    expect(policy.sandboxMode).toBe(mode)
  })

  it('the nearest file wins over the preset it extends', () => {
    const resolved = resolvePolicyText(
      'version: 1\nextends: read-only\nsandbox: { mode: off }\n',
      'p'
    )
    expect(resolved.presets).toEqual(['read-only'])
    expect(resolved.sandboxMode).toBe('off')
  })

  it('an unknown mode names file, line, column and the allowed values', async () => {
    const e = await errorOf('version: 1\nsandbox:\n  mode: strict\n')
    expect(e.message).toMatch(/^policy\.yml:3:9: "mode" must be "auto" or "required" or "off"/)
    expect(e.message).toContain('mode: auto (or required, or off)')
  })

  it('a misspelt key suggests the right one', async () => {
    const e = await errorOf('version: 1\nsandbox:\n  mod: required\n')
    expect(e.message).toMatch(/^policy\.yml:3:3: unknown key "mod"/)
    expect(e.message).toContain('did you mean "mode"?')
  })

  it('a missing mode and a non-mapping are errors with a fix', async () => {
    expect((await errorOf('version: 1\nsandbox: {}\n')).message).toMatch(
      /^policy\.yml:2:10: missing "mode".*add mode: auto/s
    )
    expect((await errorOf('version: 1\nsandbox: required\n')).message).toMatch(
      /^policy\.yml:2:10: "sandbox" must be object, not the string "required".*sandbox: \{ mode: auto \}/s
    )
  })
})

const RUNNER = {
  HOME: '/home/runner',
  RUNNER_TEMP: '/home/runner/work/_temp',
  RUNNER_TOOL_CACHE: '/opt/hostedtoolcache',
  GITHUB_ENV: '/home/runner/work/_temp/_runner_file_commands/set_env_1',
  GITHUB_PATH: '/home/runner/work/_temp/_runner_file_commands/add_path_1',
  GITHUB_OUTPUT: '/home/runner/work/_temp/_runner_file_commands/set_output_1',
  GITHUB_STEP_SUMMARY: '/home/runner/work/_temp/_runner_file_commands/step_summary_1',
  GITHUB_STATE: '/home/runner/work/_temp/_runner_file_commands/save_state_1',
  GITHUB_ACTION_PATH: '/home/runner/work/_actions/octo/autopilot/v1'
}

function facts(overrides: Partial<SandboxFacts> = {}): SandboxFacts {
  return {
    workingDirectory: '/home/runner/work/repo/repo',
    env: RUNNER,
    copilotHome: '/home/runner/work/_temp/copilot-autopilot-1-2/copilot-home',
    exists: () => true,
    children: (dir) => TREE[dir] ?? [],
    ...overrides
  }
}

/** What the runner's directories hold, for `children`. */
const TREE: Record<string, string[]> = {
  '/home/runner/work/_temp': ['_runner_file_commands', 'copilot-autopilot-1-2', 'other-action'],
  '/home/runner/work/_temp/copilot-autopilot-1-2': ['copilot-home', 'report.json'],
  '/home/runner/work/_temp/copilot-autopilot-1-2/copilot-home': [
    'session-state',
    'logs',
    'config.json'
  ]
}

async function configOf(text: string, f: SandboxFacts = facts()) {
  return sandboxConfigFor(await compilePolicy(text, 'p.yml', ws.dir), f)
}

describe('sandboxConfigFor', () => {
  it('no bypass, the workspace read-write, secrets and the runner files denied', async () => {
    const config = await configOf(EXAMPLE_POLICY)
    expect(config).toMatchObject({
      enabled: true,
      allowBypass: false,
      addCurrentWorkingDirectory: true
    })
    const fsPolicy = config.userPolicy.filesystem
    expect(fsPolicy.readwritePaths).toEqual(['/home/runner/work/repo/repo'])
    expect(fsPolicy.deniedPaths).toEqual([
      // the scratch areas: each a private tmpfs
      '/tmp',
      '/var/tmp',
      '/dev/shm',
      // RUNNER_TEMP and the CLI's home hold the session state (plan.md), which the CLI's own file
      // tools must reach: everything around it is denied instead
      '/home/runner/work/_temp/_runner_file_commands',
      '/home/runner/work/_temp/copilot-autopilot-1-2/copilot-home/logs',
      '/home/runner/work/_temp/copilot-autopilot-1-2/copilot-home/config.json',
      '/home/runner/work/_temp/copilot-autopilot-1-2/report.json',
      '/home/runner/work/_temp/other-action',
      '/home/runner/work/_actions/octo/autopilot/v1',
      // HOME holds the workspace: its credentials instead (a denied ancestor of the workspace
      // makes the CLI's file tools refuse the workspace)
      ...HOME_CREDENTIALS.map((name) => `/home/runner/${name}`)
    ])
    expect(fsPolicy.deniedPaths).toContain('/home/runner/.ssh')
    expect(fsPolicy.deniedPaths).toContain('/home/runner/.config/gh')
    // toolchains readable, never writable
    expect(fsPolicy.readonlyPaths).toEqual([
      '/usr/local',
      '/opt',
      '/opt/hostedtoolcache',
      // HOME's caches and toolchains the CLI would bind read-write (they exist here)
      ...HOME_CACHES.map((name) => `/home/runner/${name}`),
      // the CLI's unpacked runtime: its grep and glob tools run its ripgrep in the sandbox
      '/home/runner/.cache/copilot/pkg'
    ])
  })

  it('without GITHUB_ACTION_PATH the bundle directory is denied', async () => {
    const env = { ...RUNNER, GITHUB_ACTION_PATH: undefined }
    const config = await configOf(EXAMPLE_POLICY, facts({ env, actionDir: '/srv/action/dist' }))
    expect(config.userPolicy.filesystem.deniedPaths).toContain('/srv/action/dist')
  })

  it('absolute write-allow globs add their literal base; relative ones are in the workspace', async () => {
    const config = await configOf(`version: 1
rules:
  - { decision: allow, write: ["src/**", "/srv/out/**/*.json", "/var/cache/build/*"] }
  - { decision: allow, write: ["/**", "/home/runner/**"] }
  - { decision: deny, write: ["/etc/out/**"] }
`)
    expect(config.userPolicy.filesystem.readwritePaths).toEqual([
      '/home/runner/work/repo/repo',
      '/srv/out',
      '/var/cache/build'
    ])
  })

  it('paths that do not exist are left out (bubblewrap cannot bind them)', async () => {
    const exists = (p: string): boolean => !p.startsWith('/srv') && p !== '/opt/hostedtoolcache'
    const config = await configOf(
      'version: 1\nrules:\n  - { decision: allow, write: ["/srv/out/**"] }\n',
      facts({ exists })
    )
    expect(config.userPolicy.filesystem.readwritePaths).toEqual(['/home/runner/work/repo/repo'])
    expect(config.userPolicy.filesystem.readonlyPaths).not.toContain('/opt/hostedtoolcache')
  })

  it('denies HOME whole when the workspace and the session state are elsewhere', async () => {
    const config = await configOf(
      EXAMPLE_POLICY,
      facts({ workingDirectory: '/srv/repo', copilotHome: '/srv/temp/copilot-home' })
    )
    expect(config.userPolicy.filesystem.deniedPaths).toContain('/home/runner')
    expect(config.userPolicy.filesystem.deniedPaths).not.toContain('/home/runner/.ssh')
  })

  it('HOME holding only the session state: everything around it denied, and its credentials', async () => {
    const children = (dir: string): string[] =>
      dir === '/home/runner' ? ['.ssh', '.bashrc', 'work'] : (TREE[dir] ?? [])
    const config = await configOf(
      EXAMPLE_POLICY,
      facts({ workingDirectory: '/srv/repo', children })
    )
    const denied = config.userPolicy.filesystem.deniedPaths
    expect(denied).toEqual(
      expect.arrayContaining(['/home/runner/.ssh', '/home/runner/.bashrc', '/home/runner/.npmrc'])
    )
    expect(denied).not.toContain('/home/runner')
    expect(denied).not.toContain('/home/runner/work')
  })

  it('never denies the workspace or a directory that holds it', async () => {
    for (const workingDirectory of ['/home/runner', '/home/runner/work/_temp/repo']) {
      const config = await configOf(EXAMPLE_POLICY, facts({ workingDirectory }))
      const denied = config.userPolicy.filesystem.deniedPaths
      expect(denied.filter((d) => workingDirectory.startsWith(d))).toEqual([])
      expect(config.userPolicy.filesystem.readwritePaths).toEqual([workingDirectory])
    }
  })

  it('a workspace under /tmp: /tmp read-only (the CLI would bind it read-write), everything else in it denied', () => {
    const tree: Record<string, string[]> = {
      '/tmp': ['other-job', 'runner', 'secret.txt'],
      '/tmp/runner': ['home', '_temp'],
      '/tmp/runner/home': ['.bashrc', 'work'],
      '/tmp/runner/home/work': ['repo', 'sibling'],
      '/tmp/runner/home/work/repo': ['repo', 'stray'],
      '/tmp/runner/_temp': ['run-1', 'other-action'],
      '/tmp/runner/_temp/run-1': ['copilot-home', 'scratch', 'report.json'],
      '/tmp/runner/_temp/run-1/copilot-home': ['session-state', 'logs']
    }
    const dir = '/tmp/runner/home/work/repo/repo'
    const config = sandboxConfigFor(
      { rules: [] },
      {
        workingDirectory: dir,
        env: { HOME: '/tmp/runner/home', RUNNER_TEMP: '/tmp/runner/_temp' },
        copilotHome: '/tmp/runner/_temp/run-1/copilot-home',
        scratchDir: '/tmp/runner/_temp/run-1/scratch',
        exists: () => true,
        children: (d) => tree[d] ?? []
      }
    )
    const { readwritePaths, readonlyPaths, deniedPaths } = config.userPolicy.filesystem
    expect(readwritePaths).toEqual([dir, '/tmp/runner/_temp/run-1/scratch'])
    expect(readonlyPaths).toContain('/tmp')
    expect(deniedPaths).toEqual(
      expect.arrayContaining([
        '/tmp/other-job',
        '/tmp/secret.txt',
        '/tmp/runner/home/.bashrc',
        '/tmp/runner/home/work/sibling',
        '/tmp/runner/home/work/repo/stray',
        '/tmp/runner/_temp/other-action',
        '/tmp/runner/_temp/run-1/report.json',
        '/tmp/runner/_temp/run-1/copilot-home/logs',
        '/tmp/runner/home/.ssh',
        '/var/tmp',
        '/dev/shm'
      ])
    )
    // never a directory on the way to what must stay reachable
    for (const kept of [
      dir,
      '/tmp/runner/_temp/run-1/scratch',
      '/tmp/runner/_temp/run-1/copilot-home/session-state'
    ]) {
      expect(deniedPaths.filter((d) => kept === d || kept.startsWith(`${d}/`))).toEqual([])
    }
    const elsewhere = sandboxConfigFor(
      { rules: [] },
      { workingDirectory: '/srv/repo', env: {}, exists: () => true }
    )
    expect(elsewhere.userPolicy.filesystem.deniedPaths).toEqual(['/tmp', '/var/tmp', '/dev/shm'])
    expect(elsewhere.userPolicy.filesystem.readonlyPaths).not.toContain('/tmp')
  })

  it("HOME's caches: read-only where they exist, not mounted where they do not", async () => {
    const exists = (p: string): boolean =>
      p !== '/home/runner/.npm' && p !== '/home/runner/.cache/yarn'
    const config = await configOf(EXAMPLE_POLICY, facts({ exists }))
    const { readonlyPaths, deniedPaths } = config.userPolicy.filesystem
    expect(readonlyPaths).toEqual(
      expect.arrayContaining(['/home/runner/.cache', '/home/runner/.node-gyp'])
    )
    expect(readonlyPaths).not.toContain('/home/runner/.npm')
    expect(deniedPaths).not.toContain('/home/runner/.npm')
    // a workspace inside one keeps its binding
    const inCache = await configOf(
      EXAMPLE_POLICY,
      facts({ workingDirectory: '/home/runner/.cache/work/repo' })
    )
    expect(inCache.userPolicy.filesystem.readonlyPaths).not.toContain('/home/runner/.cache')
  })

  it('the protected paths that exist inside the workspace are read-only; none outside it', async () => {
    const config = await configOf(
      EXAMPLE_POLICY,
      facts({
        protectedPaths: ['.github', '.git/config', '.git/hooks', 'web/.npmrc', '../escape', '.'],
        exists: (p) => p !== '/home/runner/work/repo/repo/web/.npmrc'
      })
    )
    const readonly = config.userPolicy.filesystem.readonlyPaths
    expect(readonly).toEqual(
      expect.arrayContaining([
        '/home/runner/work/repo/repo/.github',
        '/home/runner/work/repo/repo/.git/config',
        '/home/runner/work/repo/repo/.git/hooks'
      ])
    )
    // gone since it was found; outside the workspace; the workspace itself
    expect(readonly).not.toContain('/home/runner/work/repo/repo/web/.npmrc')
    expect(readonly).not.toContain('/home/runner/work/repo/escape')
    expect(readonly).not.toContain('/home/runner/work/repo/repo')
    expect(config.userPolicy.filesystem.readwritePaths).toEqual(['/home/runner/work/repo/repo'])
  })

  it("the runner's installation: its credentials and logs denied", async () => {
    const config = await configOf(
      EXAMPLE_POLICY,
      facts({ runnerDir: '/home/runner/runners/2.330.0' })
    )
    expect(config.userPolicy.filesystem.deniedPaths).toEqual(
      expect.arrayContaining([
        '/home/runner/runners/2.330.0/.credentials',
        '/home/runner/runners/2.330.0/.credentials_rsaparams',
        '/home/runner/runners/2.330.0/_diag'
      ])
    )
  })
})

describe('protectedNames', () => {
  it('the literal names of the write-deny globs, wherever they stand', async () => {
    const policy = await compilePolicy(
      `version: 1
extends: ci-fix
rules:
  - { decision: deny, write: ["Secrets/**", "*.lock", "/etc/**", "docs/**/*.md"] }
  - { decision: allow, write: ["allowed/**"] }
`,
      'p.yml',
      ws.dir
    )
    const names = protectedNames(policy)
    expect([...names]).toEqual(
      expect.arrayContaining(['.github', '.git', '.npmrc', '.husky', 'secrets', 'docs'])
    )
    expect(names.has('allowed')).toBe(false)
    expect([...names].some((n) => n.includes('*'))).toBe(false)
  })
})

describe('sandboxNetwork', () => {
  const network = async (rules: string) =>
    sandboxNetwork(await compilePolicy(`version: 1\nrules:\n${rules}`, 'p.yml', ws.dir))

  it('no url rule: no outbound network and never the local network', async () => {
    expect(await network('  - { decision: allow, shell: ["npm test"] }\n')).toEqual({
      allowOutbound: false,
      allowLocalNetwork: false,
      allowedHosts: [],
      blockedHosts: []
    })
  })

  it('exact hosts of url allow rules, not wildcard ones; deny rules block', async () => {
    expect(
      await network(`  - { decision: allow, url: ["registry.npmjs.org", "https://docs.github.com/**", "*.example.com", "https://api.github.com:8443/x"] }
  - { decision: deny, url: ["evil.example.org", "api.github.com"] }
`)
    ).toEqual({
      allowOutbound: true,
      allowLocalNetwork: false,
      allowedHosts: ['registry.npmjs.org', 'docs.github.com'],
      blockedHosts: ['evil.example.org', 'api.github.com']
    })
  })

  it('an allow rule for every host opens outbound to all hosts but the blocked ones', async () => {
    expect(
      await network(`  - { decision: allow, url: ["*"] }
  - { decision: deny, url: ["metadata.google.internal"] }
`)
    ).toEqual({
      allowOutbound: true,
      allowLocalNetwork: false,
      allowedHosts: [],
      blockedHosts: ['metadata.google.internal']
    })
  })

  it('only wildcard hosts allowed: no outbound (the sandbox list takes exact hosts)', async () => {
    expect((await network('  - { decision: allow, url: ["*.npmjs.com"] }\n')).allowOutbound).toBe(
      false
    )
  })
})

describe('inScratchArea', () => {
  it('says when /tmp, /var/tmp or /dev/shm holds a path (the commands then need a TMPDIR of their own)', () => {
    expect(inScratchArea(['/home/runner/work/r/r', '/home/runner/work/_temp/x'])).toBe(false)
    expect(inScratchArea(['/home/runner/work/r/r', '/tmp/runner-temp/x'])).toBe(true)
    expect(inScratchArea(['/var/tmp/ws'])).toBe(true)
    expect(inScratchArea(['/tmpfoo/ws', '/tmp/../srv/ws'])).toBe(false)
  })
})
