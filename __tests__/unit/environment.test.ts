/**
 * The Copilot CLI's environment is every agent command's too (the sandbox sets it again after
 * --clearenv): an allowlist, from which a secret of the run in any encoding, a credential by its
 * format, a writable root of the CLI's sandbox and the runner's own files never pass.
 */
import {
  agentEnvironment,
  describeEnvironment,
  GIT_HOUSEKEEPING_OFF,
  invalidPassthrough,
  looksLikeCredential,
  WRITABLE_ROOTS
} from '../../src/wall/environment.js'

const TOKEN = 'ghs_1234567890abcdefghijklmnopqrstuvwxyz'
const PROVIDER_KEY = 'provider-key-7d1e9a0b3c5f'
const b64 = (text: string): string => Buffer.from(text).toString('base64')

/** A runner job's environment, with the encoded secrets of issue 28. */
const JOB = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/runner',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  CI: 'true',
  GITHUB_WORKSPACE: '/home/runner/work/repo/repo',
  GITHUB_REPOSITORY: 'octo/repo',
  GITHUB_RUN_ID: '42',
  RUNNER_OS: 'Linux',
  RUNNER_TOOL_CACHE: '/opt/hostedtoolcache',
  JAVA_HOME: '/usr/lib/jvm/temurin-17',
  JAVA_HOME_17_X64: '/usr/lib/jvm/temurin-17',
  pythonLocation: '/opt/hostedtoolcache/Python/3.12.1/x64',
  // the runner's files and tokens
  RUNNER_TEMP: '/home/runner/work/_temp',
  GITHUB_ENV: '/home/runner/work/_temp/_runner_file_commands/set_env_1',
  GITHUB_OUTPUT: '/home/runner/work/_temp/_runner_file_commands/set_output_1',
  GITHUB_PATH: '/home/runner/work/_temp/_runner_file_commands/add_path_1',
  GITHUB_STATE: '/home/runner/work/_temp/_runner_file_commands/save_state_1',
  GITHUB_STEP_SUMMARY: '/home/runner/work/_temp/_runner_file_commands/step_summary_1',
  GITHUB_EVENT_PATH: '/home/runner/work/_temp/_github_workflow/event.json',
  GITHUB_TOKEN: TOKEN,
  ACTIONS_RUNTIME_TOKEN: 'runtime-token-value',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc',
  'INPUT_GITHUB-TOKEN': TOKEN,
  COPILOT_ALLOW_ALL: 'true',
  // a job-level TMPDIR: ${{ runner.temp }}
  TMPDIR: '/home/runner/work/_temp',
  TMP: '/home/runner/work/_temp',
  TEMP: '/home/runner/work/_temp',
  // encoded secrets
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader',
  GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${b64(`x-access-token:${TOKEN}`)}`,
  NPM_CONFIG__AUTH: b64(TOKEN),
  SOMETHING_ELSE: b64(PROVIDER_KEY),
  // ordinary variables no list names
  MY_SETTING: 'on',
  NODE_OPTIONS: '--max-old-space-size=4096'
}

describe('agentEnvironment', () => {
  it('passes the fixed set only, and records what carries a secret by name', () => {
    const { env, dropped, notListed } = agentEnvironment({
      env: JOB,
      secrets: [TOKEN, PROVIDER_KEY]
    })
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/runner',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      CI: 'true',
      GITHUB_WORKSPACE: '/home/runner/work/repo/repo',
      GITHUB_REPOSITORY: 'octo/repo',
      GITHUB_RUN_ID: '42',
      RUNNER_OS: 'Linux',
      RUNNER_TOOL_CACHE: '/opt/hostedtoolcache',
      JAVA_HOME: '/usr/lib/jvm/temurin-17',
      JAVA_HOME_17_X64: '/usr/lib/jvm/temurin-17',
      pythonLocation: '/opt/hostedtoolcache/Python/3.12.1/x64'
    })
    // what carries a secret is named (never its value), the step's inputs and the runner's
    // tokens aside (every run has them)
    expect(dropped).toEqual([
      { name: 'GIT_CONFIG_VALUE_0', reason: 'secret' },
      { name: 'GITHUB_TOKEN', reason: 'secret' },
      { name: 'NPM_CONFIG__AUTH', reason: 'secret' },
      { name: 'SOMETHING_ELSE', reason: 'secret' }
    ])
    expect(notListed).toBeGreaterThan(5)
    const line = describeEnvironment({ dropped, notListed })
    expect(line).toContain('GIT_CONFIG_VALUE_0, GITHUB_TOKEN, NPM_CONFIG__AUTH, SOMETHING_ELSE')
    for (const value of [TOKEN, b64(TOKEN), b64(PROVIDER_KEY), PROVIDER_KEY]) {
      expect(line).not.toContain(value)
    }
  })

  it('passes what env-passthrough names, unless it carries a secret, looks like one, or is reserved', () => {
    const { env, dropped } = agentEnvironment({
      env: {
        ...JOB,
        MY_APP_MODE: 'test',
        MY_APP_URL: 'https://example.com/api',
        MY_APP_TOKEN: 'plain-but-named-like-a-token',
        DEPLOY_KEY: `prefix-${TOKEN}-suffix`,
        PERCENT: encodeURIComponent(`a b/${PROVIDER_KEY}`),
        LOOKS: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'
      },
      secrets: [TOKEN, PROVIDER_KEY],
      passthrough: [
        'MY_SETTING',
        'NODE_OPTIONS',
        'MY_APP_*',
        'DEPLOY_KEY',
        'PERCENT',
        'LOOKS',
        'GITHUB_TOKEN',
        'GITHUB_ENV',
        'RUNNER_TEMP',
        'TMPDIR',
        'GOCACHE',
        'NPM_CONFIG__AUTH'
      ]
    })
    expect(env).toMatchObject({
      MY_SETTING: 'on',
      NODE_OPTIONS: '--max-old-space-size=4096',
      MY_APP_MODE: 'test',
      MY_APP_URL: 'https://example.com/api'
    })
    // a glob does not pass a name that reads as a credential's
    expect(env.MY_APP_TOKEN).toBeUndefined()
    for (const name of [
      'DEPLOY_KEY',
      'PERCENT',
      'LOOKS',
      'GITHUB_TOKEN',
      'GITHUB_ENV',
      'RUNNER_TEMP',
      'TMPDIR',
      'NPM_CONFIG__AUTH'
    ]) {
      expect([name, env[name]]).toEqual([name, undefined])
    }
    expect(dropped).toEqual(
      expect.arrayContaining([
        { name: 'DEPLOY_KEY', reason: 'secret' },
        { name: 'PERCENT', reason: 'secret' },
        { name: 'LOOKS', reason: 'credential' },
        { name: 'GITHUB_TOKEN', reason: 'reserved' },
        { name: 'GITHUB_ENV', reason: 'reserved' },
        { name: 'RUNNER_TEMP', reason: 'reserved' },
        { name: 'NPM_CONFIG__AUTH', reason: 'secret' }
      ])
    )
  })

  it('never passes the job value of a variable the CLI makes a writable root of its sandbox', () => {
    const job = Object.fromEntries(WRITABLE_ROOTS.map((name) => [name, '/home/runner/work/_temp']))
    const { env, dropped } = agentEnvironment({
      env: { ...job, npm_config_cache: '/home/runner/work/_temp', PATH: '/bin' },
      secrets: [],
      passthrough: ['*']
    })
    expect(env).toEqual({ PATH: '/bin' })
    expect(dropped.map((d) => d.reason)).not.toContain('secret')
    expect(dropped.find((d) => d.name === 'npm_config_cache')?.reason).toBe('writable-root')
    expect(dropped.find((d) => d.name === 'GOCACHE')?.reason).toBe('writable-root')
  })

  it("adds the action's variables last: git's housekeeping off, the commands' TMPDIR, COPILOT_HOME", () => {
    const { env } = agentEnvironment({
      env: JOB,
      secrets: [TOKEN],
      passthrough: ['*'],
      action: { copilotHome: '/r/copilot-home', scratch: '/r/scratch' }
    })
    expect(env).toMatchObject({
      ...GIT_HOUSEKEEPING_OFF,
      GIT_CONFIG_KEY_0: 'gc.auto',
      GIT_CONFIG_KEY_1: 'maintenance.auto',
      TMPDIR: '/r/scratch/tmp',
      TMP: '/r/scratch/tmp',
      TEMP: '/r/scratch/tmp',
      COPILOT_HOME: '/r/copilot-home'
    })
    // without a scratch directory none is set: /tmp is the sandbox's private tmpfs
    const plain = agentEnvironment({
      env: JOB,
      secrets: [],
      action: { copilotHome: '/r/h' }
    }).env
    expect([plain.TMPDIR, plain.TMP, plain.TEMP]).toEqual([undefined, undefined, undefined])
    // nothing of the job's secrets, in any form, whatever the passthrough
    const text = JSON.stringify(env)
    for (const value of [TOKEN, b64(TOKEN), b64(`x-access-token:${TOKEN}`)]) {
      expect(text).not.toContain(value)
    }
  })
})

describe('looksLikeCredential', () => {
  it.each([
    'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
    'AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46c2VjcmV0',
    'Bearer abcdefghijklmnop1234',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig',
    '-----BEGIN OPENSSH PRIVATE KEY-----\nabc',
    'AKIAABCDEFGHIJKLMNOP',
    'https://user:hunter22@registry.example.com/',
    b64('deploy:s3cr3t-password'),
    b64('ghp_abcdefghijklmnopqrstuvwxyz0123456789')
  ])('%s is a credential', (value) => {
    expect(looksLikeCredential(value)).toBe(true)
  })

  it.each([
    '/usr/bin:/bin',
    'C.UTF-8',
    'https://github.com',
    '--max-old-space-size=4096',
    'refs/heads/main',
    '0123456789abcdef0123456789abcdef01234567', // a commit SHA
    'dGhpcyBpcyBqdXN0IHRleHQ=' // base64 of plain words
  ])('%s is not', (value) => {
    expect(looksLikeCredential(value)).toBe(false)
  })
})

describe('invalidPassthrough', () => {
  it('takes names and globs of * and ?, nothing else', () => {
    for (const ok of ['NODE_OPTIONS', 'MY_APP_*', 'A?', '*', 'lower_case']) {
      expect([ok, invalidPassthrough(ok)]).toEqual([ok, false])
    }
    for (const bad of ['A=B', 'MY APP', '$HOME', 'a-b', '1ABC', '[A-Z]*']) {
      expect([bad, invalidPassthrough(bad)]).toEqual([bad, true])
    }
  })
})
