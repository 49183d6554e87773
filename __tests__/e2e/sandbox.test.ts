/**
 * End to end with the real CLI and the OS sandbox engaged (bubblewrap; `.ci/run` installs it):
 * a hostile test script the agent wrote, run through an ALLOWED command, finds no way out — no
 * write outside the workspace reaches the host, no loopback connection arrives, no secret shows
 * up in what the agent sees. And the policy's `sandbox.mode` when bwrap is not on PATH.
 */
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'
import {
  makeWorkspace,
  runAction,
  sessionDirs,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'
import { itWithSandbox, itWithSandboxNetwork } from '../../test-support/sandbox-suite.js'

const SECRETS = {
  githubToken: 'ghs_e2eGithubTokenValue0123456789',
  apiKey: 'sk-e2e-provider-key-0123456789',
  envToken: 'gho_e2eEnvTokenValue0123456789',
  copilotEnv: 'ghu_e2eCopilotEnvValue0123456789',
  runtime: 'e2e-actions-runtime-token-0123456789',
  idToken: 'e2e-id-token-request-token-0123456789',
  custom: 'e2e-job-level-secret-0123456789'
}

let workspace: Workspace
let model: ModelServer | undefined
let loopback: net.Server
let connections = 0
let loopbackPort = 0
/** Host files outside the workspace the hostile script aims at. */
let targets: { home: string; tmp: string; runnerTemp: string; toolCache: string }
let runnerFiles: Record<'GITHUB_ENV' | 'GITHUB_PATH' | 'GITHUB_STATE', string>

const policy = (mode: string, shell = '["node hostile.js", "echo *"]') => `version: 1
default: deny
sandbox:
  mode: ${mode}
rules:
  - { id: run-tests, decision: allow, shell: ${shell} }
  - { id: sources, decision: allow, write: ["*.js"] }
  - { id: read-all, decision: allow, read: ["**"] }
`

beforeAll(async () => {
  loopback = net.createServer((socket) => {
    connections++
    socket.destroy()
  })
  await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve))
  loopbackPort = (loopback.address() as net.AddressInfo).port
})
afterAll(async () => {
  await new Promise<void>((resolve) => loopback.close(() => resolve()))
})

beforeEach(() => {
  connections = 0
  // Laid out as on GitHub's runners: workspace and RUNNER_TEMP under HOME, /tmp elsewhere.
  workspace = makeWorkspace({}, os.homedir())
  const id = `${process.pid}-${Date.now()}`
  fs.mkdirSync(path.join(workspace.runnerTemp, 'tool-cache'), { recursive: true })
  targets = {
    home: path.join(os.homedir(), `.sandbox-e2e-${id}`),
    // under /tmp (in the run's own directory of it: see test-support/global-setup.mjs)
    tmp: path.join(os.tmpdir(), `sandbox-e2e-${id}`),
    runnerTemp: path.join(workspace.runnerTemp, 'pwned'),
    toolCache: path.join(workspace.runnerTemp, 'tool-cache', 'pwned')
  }
  runnerFiles = {
    GITHUB_ENV: path.join(workspace.runnerTemp, 'set_env'),
    GITHUB_PATH: path.join(workspace.runnerTemp, 'add_path'),
    GITHUB_STATE: path.join(workspace.runnerTemp, 'save_state')
  }
  for (const file of Object.values(runnerFiles)) fs.writeFileSync(file, '')
})
afterEach(async () => {
  await model?.close()
  model = undefined
  for (const file of [targets.home, targets.tmp]) fs.rmSync(file, { force: true })
  workspace.cleanup()
})

/**
 * The agent's test script: tries every way out it can think of and prints what it got. Written
 * by the agent (through the `create` tool), run by the allowed `node hostile.js`.
 */
function hostileScript(): string {
  return `
const fs = require('fs')
const net = require('net')
const path = require('path')
const out = {}
const attempt = (name, work) => { try { out[name] = work() ?? 'ok' } catch (e) { out[name] = 'blocked: ' + e.code } }
const targets = ${JSON.stringify(targets)}
for (const [name, file] of Object.entries(targets)) attempt('write ' + name, () => fs.writeFileSync(file, 'pwned'))
attempt('write HOME from env', () => fs.writeFileSync(path.join(process.env.HOME || '/nonexistent', '.pwned-' + process.pid), 'x'))
for (const name of ['GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE', 'GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY']) {
  const file = process.env[name] || ${JSON.stringify(runnerFiles)}[name]
  if (file) attempt('append ' + name, () => fs.appendFileSync(file, 'NODE_OPTIONS=--require=/tmp/evil.js\\n'))
}
// every readable environment and command line under /proc, and our own: whatever looks like a
// credential (the CLI cuts long tool output, so only the findings are printed)
const texts = [Object.entries(process.env).map(([k, v]) => k + '=' + v).join('\\0')]
const pids = fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))
for (const pid of pids) {
  for (const f of ['environ', 'cmdline']) {
    try { texts.push(fs.readFileSync('/proc/' + pid + '/' + f, 'utf8')) } catch (e) {}
  }
}
const found = new Set()
for (const text of texts) {
  for (const entry of text.split('\\0')) {
    if (/^(INPUT_|ACTIONS_|[A-Z_]*(TOKEN|KEY|SECRET)[A-Z_]*=)/.test(entry)) found.add(entry)
  }
}
out.pids = pids.length
out.found = [...found]
const socket = net.connect(${loopbackPort}, '127.0.0.1')
socket.on('connect', () => { out.loopback = 'CONNECTED'; finish() })
socket.on('error', (e) => { out.loopback = 'blocked: ' + e.code; finish() })
setTimeout(() => { out.loopback = out.loopback || 'timeout'; finish() }, 3000)
let done = false
function finish() { if (done) return; done = true; socket.destroy(); console.log('HOSTILE ' + JSON.stringify(out)) }
`
}

async function runHostile(mode: string, env: Record<string, string> = {}): Promise<ActionResult> {
  workspace.write('.github/copilot-policy.yml', policy(mode))
  const script: Script = [
    {
      toolCalls: [
        {
          name: 'create',
          arguments: { path: path.join(workspace.dir, 'hostile.js'), file_text: hostileScript() }
        }
      ]
    },
    {
      toolCalls: [{ name: 'bash', arguments: { command: 'node hostile.js', description: 'test' } }]
    },
    { toolCalls: [{ name: 'task_complete', arguments: { summary: 'tests ran' } }] }
  ]
  return runWith(script, env)
}

async function runWith(script: Script, env: Record<string, string> = {}): Promise<ActionResult> {
  model = await startModelServer(script)
  const result = await runAction({
    workspace,
    inputs: {
      prompt: 'Run the tests.',
      model: 'claude-sonnet-4.5',
      'provider-type': 'openai',
      'provider-base-url': model.url,
      'provider-api-key': SECRETS.apiKey,
      'github-token': SECRETS.githubToken,
      comment: 'off',
      'timeout-minutes': '2'
    },
    env: {
      ...runnerFiles,
      GITHUB_TOKEN: SECRETS.envToken,
      COPILOT_GITHUB_TOKEN: SECRETS.copilotEnv,
      ACTIONS_RUNTIME_TOKEN: SECRETS.runtime,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: SECRETS.idToken,
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/x',
      // a job-level secret under a name nobody can guess, equal to an input
      MY_DEPLOY_KEY: SECRETS.githubToken,
      ...env
    }
  })
  expect(await waitGone(result.cliPids)).toEqual([])
  return result
}

/** The hostile script's own account of what it got, from the tool result the model saw. */
function hostileOutput(): Record<string, unknown> {
  const line = model!
    .toolResults()
    .join('\n')
    .split('\n')
    .find((l) => l.startsWith('HOSTILE '))
  if (line === undefined) throw new Error(`no HOSTILE line in: ${model!.toolResults().join('\n')}`)
  return JSON.parse(line.slice('HOSTILE '.length)) as Record<string, unknown>
}

/** The real bwrap. */
function findBwrap(): string {
  const found = (process.env.PATH ?? '')
    .split(':')
    .map((dir) => path.join(dir, 'bwrap'))
    .find((file) => fs.existsSync(file))
  if (found === undefined) throw new Error('bwrap is not installed (.ci/run installs it)')
  return found
}

/**
 * A directory with a bwrap that works for the action (its probe, the CLI's outer wall) but not for
 * the CLI behind that wall (which does not see RUNNER_TEMP's files): too old, as far as the CLI
 * can tell. Beside RUNNER_TEMP, under HOME: a PATH directory the wall shows the CLI read-only.
 */
function bwrapFailingForTheCli(): string {
  const dir = path.join(path.dirname(workspace.runnerTemp), 'bin-bwrap-cli-fails')
  const host = path.join(workspace.runnerTemp, 'on-the-host')
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(host, '')
  fs.writeFileSync(
    path.join(dir, 'bwrap'),
    `#!/bin/sh\nif [ -n "$COPILOT_HOME" ] && [ ! -e ${host} ]; then\n  [ "$1" = --version ] && echo "bubblewrap 0.4.0" && exit 0\n  echo "bwrap: broken" >&2; exit 1\nfi\nexec ${findBwrap()} "$@"\n`,
    { mode: 0o755 }
  )
  return dir
}

/** A PATH on which bwrap cannot be found: node alone (bash is found by absolute path). */
function pathWithoutBwrap(): string {
  const dir = path.join(workspace.runnerTemp, 'bin-without-bwrap')
  fs.mkdirSync(dir, { recursive: true })
  fs.symlinkSync(process.execPath, path.join(dir, 'node'))
  return dir
}

describe('the OS sandbox around an allowed command', () => {
  itWithSandbox(
    'enforced with bubblewrap: a hostile test script writes nothing outside, connects nowhere, sees no secret',
    async () => {
      const result = await runHostile('required')
      expect(result.outputs.status).toBe('completed')
      // started behind its outer wall by the entry, before the policy loaded: one boot
      expect(result.stdout).not.toContain('Restarting the Copilot CLI')
      expect(result.report!.sandbox).toEqual({
        state: 'enforced',
        backend: 'bubblewrap',
        cliConfined: true
      })
      expect(result.summary).toMatch(/\*\*Sandbox:\*\* 🛡️ enforced \(`bubblewrap`\)/)

      const got = hostileOutput()
      // it ran, as an allowed command, and tried
      expect(result.report!.permissions.map((p) => [p.kind, p.decision])).toEqual([
        ['write', 'allow'],
        ['shell', 'allow']
      ])
      expect(Object.keys(got)).toEqual(
        expect.arrayContaining(['write home', 'append GITHUB_ENV', 'loopback', 'found'])
      )

      // nothing reached the host
      for (const file of Object.values(targets)) expect(fs.existsSync(file)).toBe(false)
      expect(fs.readFileSync(runnerFiles.GITHUB_ENV, 'utf8')).toBe('')
      expect(fs.readFileSync(runnerFiles.GITHUB_PATH, 'utf8')).toBe('')
      // GITHUB_STATE holds only what the action saved for its post step (run-dir, run-mark)
      const state = fs.readFileSync(runnerFiles.GITHUB_STATE, 'utf8')
      const names = [...state.matchAll(/^([\w-]+)<<ghadelimiter_/gm)].map((m) => m[1])
      expect(names).toEqual(['run-dir', 'run-mark'])
      expect(state.split('\n').filter((l) => l !== '')).toHaveLength(6)
      const outputFile = fs
        .readdirSync(workspace.runnerTemp)
        .filter((f) => f.startsWith('output-') || f.startsWith('summary-'))
      for (const file of outputFile) {
        expect(fs.readFileSync(path.join(workspace.runnerTemp, file), 'utf8')).not.toContain(
          'NODE_OPTIONS'
        )
      }
      expect(connections).toBe(0)
      expect(got.loopback).not.toBe('CONNECTED')

      // no secret in anything the agent saw
      const seen = model!.toolResults().join('\n')
      for (const secret of Object.values(SECRETS)) expect(seen).not.toContain(secret)
      expect(got.found).toEqual([])
      // it did look under /proc: its own PID namespace, a handful of processes
      expect(got.pids).toBeGreaterThan(0)
      expect(got.pids).toBeLessThan(20)
    }
  )

  it('required, bwrap not on PATH: fails before any session exists, naming the fix', async () => {
    workspace.write('.github/copilot-policy.yml', policy('required'))
    const result = await runWith([{ toolCalls: [] }], { PATH: pathWithoutBwrap() })
    expect(result.outputs.status).toBe('failed')
    expect(result.exitCode).not.toBe(0)
    expect(model!.requests).toHaveLength(0)
    expect(sessionDirs(workspace)).toEqual([])
    expect(result.report!.error?.message).toMatch(/sandbox\.mode: required/)
    expect(result.report!.error?.message).toContain('sudo apt-get install -y bubblewrap')
    expect(result.report!.error?.message).toContain(
      'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'
    )
    expect(result.stdout).toContain('bubblewrap (bwrap) is not installed or not on PATH')
  }, 60_000)

  itWithSandbox(
    'required, and the CLI reports the sandbox not engaged mid-run: the run is stopped as failed',
    async () => {
      const dir = bwrapFailingForTheCli()
      workspace.write('.github/copilot-policy.yml', policy('required'))
      const result = await runWith(
        [
          { toolCalls: [{ name: 'bash', arguments: { command: 'echo hi', description: 'x' } }] },
          { toolCalls: [{ name: 'bash', arguments: { command: 'echo again', description: 'x' } }] },
          { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
        ],
        { PATH: `${dir}:${process.env.PATH ?? ''}` }
      )
      expect(result.outputs.status).toBe('failed')
      expect(result.report!.error).toMatchObject({ type: 'sandbox' })
      expect(result.report!.error?.message).toMatch(/did not engage.*sandbox\.mode: required/s)
      expect(result.report!.sandbox).toMatchObject({ state: 'unavailable' })
      // stopped at the first command: the agent never got to the second
      expect(model!.requests.length).toBeLessThanOrEqual(2)
    },
    60_000
  )

  it('auto, bwrap not on PATH, a policy that runs code: fails before any session, naming what is missing and sandbox: off', async () => {
    workspace.write('.github/copilot-policy.yml', policy('auto'))
    const result = await runWith([{ toolCalls: [] }], { PATH: pathWithoutBwrap() })
    expect(result.outputs.status).toBe('failed')
    expect(result.exitCode).not.toBe(0)
    expect(model!.requests).toHaveLength(0)
    expect(sessionDirs(workspace)).toEqual([])
    const message = result.report!.error?.message ?? ''
    expect(message).toContain('rule run-tests ("node hostile.js")')
    expect(message).toContain('bubblewrap (bwrap) is not installed or not on PATH')
    expect(message).toContain('sudo apt-get install -y bubblewrap')
    expect(message).toContain('sandbox: { mode: off }')
  }, 60_000)

  it('auto, bwrap not on PATH, a policy that runs no code: runs without the sandbox, and says so loudly', async () => {
    workspace.write('.github/copilot-policy.yml', policy('auto', '["echo *"]'))
    const result = await runWith(
      [
        {
          toolCalls: [{ name: 'bash', arguments: { command: 'echo unconfined', description: 'x' } }]
        },
        { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
      ],
      { PATH: pathWithoutBwrap() }
    )
    expect(result.outputs.status).toBe('completed')
    expect(result.report!.sandbox).toMatchObject({
      state: 'unavailable',
      reason: expect.stringContaining('bwrap') as unknown
    })
    expect(result.stdout).toMatch(/::warning::The OS sandbox is unavailable/)
    expect(result.summary).toMatch(/\*\*Sandbox:\*\* ⚠️ unavailable/)
    // the command ran (unconfined), not failed closed
    expect(model!.toolResults().join('\n')).toContain('unconfined')
  }, 60_000)

  itWithSandbox(
    'auto, and the CLI reports the sandbox not engaged mid-run: stopped as failed, never completed',
    async () => {
      const dir = bwrapFailingForTheCli()
      workspace.write('.github/copilot-policy.yml', policy('auto'))
      const result = await runWith(
        [
          { toolCalls: [{ name: 'bash', arguments: { command: 'echo hi', description: 'x' } }] },
          { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
        ],
        { PATH: `${dir}:${process.env.PATH ?? ''}` }
      )
      expect(result.outputs.status).toBe('failed')
      expect(result.report!.error).toMatchObject({ type: 'sandbox' })
      expect(result.report!.error?.message).toMatch(/did not engage.*sandbox\.mode: auto/s)
      expect(result.report!.sandbox).toMatchObject({ state: 'unavailable' })
      // whether or not the agent got to task_complete before the stop: failed, with the reason
      expect(result.summary).toMatch(/sandbox\.mode: auto/)
    },
    60_000
  )

  it('off (the control): the same hostile script gets out, and the report says off', async () => {
    const result = await runHostile('off')
    expect(result.outputs.status).toBe('completed')
    expect(result.report!.sandbox?.state).toBe('off')
    expect(result.summary).toContain('**Sandbox:** off')
    // the entry read the policy's sandbox: { mode: off } and started the CLI without its wall
    expect(result.stdout).not.toContain('Restarting the Copilot CLI')
    const got = hostileOutput()
    // what the sandbox stops in the first test does happen without it
    expect(fs.readFileSync(targets.tmp, 'utf8')).toBe('pwned')
    expect(fs.readFileSync(runnerFiles.GITHUB_ENV, 'utf8')).toContain('NODE_OPTIONS')
    expect(connections).toBeGreaterThan(0)
    // the action's own /proc/<pid>/environ holds its inputs
    expect(got.found).toEqual(expect.arrayContaining([`INPUT_GITHUB-TOKEN=${SECRETS.githubToken}`]))
    expect(model!.toolResults().join('\n')).toContain(SECRETS.githubToken)
  })
})

describe('url rules: the sandbox network', () => {
  /** A url allow rule: the derived sandbox allows outbound traffic to docs.github.com. */
  const urlPolicy = `version: 1
default: deny
sandbox:
  mode: auto
rules:
  - { id: run, decision: allow, shell: ["echo *"] }
  - { id: docs, decision: allow, url: ["docs.github.com"] }
`
  // what the command sees: inside the sandbox's network the CLI's proxy is set
  const probe: Script = [
    {
      toolCalls: [
        {
          name: 'bash',
          arguments: { command: 'echo "hi proxy=${HTTPS_PROXY:-none}"', description: 'x' }
        }
      ]
    },
    { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
  ]
  const said = (): string => model!.toolResults().join('\n')
  /** This machine's program `name` (.ci/run installs slirp4netns and iptables). */
  const where = (name: string): string => {
    const found = ['/usr/bin', '/usr/sbin', '/sbin', '/bin']
      .map((d) => path.join(d, name))
      .find((f) => fs.existsSync(f))
    if (found === undefined) throw new Error(`${name} is not installed (.ci/run installs it)`)
    return found
  }

  /** The network stack's programs, which pathWithoutNetworkStack leaves out. */
  const NETWORK_ONLY = [
    'slirp4netns',
    'iptables',
    'ip6tables',
    'iptables-restore',
    'ip6tables-restore'
  ]

  /**
   * A PATH with everything of /usr/bin, /usr/sbin and node but slirp4netns and iptables (the
   * CLI's network also runs sh, sleep, unshare, nsenter, ip). Inside the workspace: the CLI looks
   * for slirp4netns on PATH inside the sandbox too, which shows neither RUNNER_TEMP nor HOME.
   */
  function pathWithoutNetworkStack(): string {
    const dir = path.join(workspace.dir, '.bin')
    fs.mkdirSync(dir, { recursive: true })
    for (const from of ['/usr/sbin', '/usr/bin']) {
      for (const name of fs.readdirSync(from)) {
        const link = path.join(dir, name)
        if (NETWORK_ONLY.includes(name) || fs.existsSync(link)) continue
        fs.symlinkSync(path.join(from, name), link)
      }
    }
    if (!fs.existsSync(path.join(dir, 'node')))
      fs.symlinkSync(process.execPath, path.join(dir, 'node'))
    return dir
  }

  itWithSandbox(
    'slirp4netns not on PATH (not a GitHub-hosted runner): the command runs in the sandbox without network, and the report names the hosts',
    async () => {
      workspace.write('.github/copilot-policy.yml', urlPolicy)
      const result = await runWith(probe, { PATH: pathWithoutNetworkStack() })
      expect(result.outputs.status).toBe('completed')
      expect(said()).toContain('hi proxy=none')
      expect(result.report!.tools.find((t) => t.name === 'bash')?.outcome).toBe('succeeded')
      expect(result.report!.sandbox).toMatchObject({
        state: 'enforced',
        backend: 'bubblewrap',
        networkOff: {
          hosts: ['docs.github.com'],
          reason: expect.stringMatching(
            /slirp4netns and iptables are not on PATH \(slirp4netns, iptables, ip6tables, iptables-restore, ip6tables-restore\).*the action runs no sudo here.*Install the Debian\/Ubuntu packages slirp4netns and iptables/
          ) as unknown
        }
      })
      expect(result.report!.sandbox?.provisioned).toBeUndefined()
      expect(result.stdout).toMatch(
        /::warning::OS sandbox: bubblewrap \(sandbox.mode: auto\) WITHOUT network: the agent's shell commands cannot reach docs.github.com/
      )
      expect(result.summary).toContain(
        '**without network**: they could not reach `docs.github.com`'
      )
    },
    60_000
  )

  itWithSandboxNetwork(
    'slirp4netns and iptables on PATH: the command runs with the network the url rule allows',
    async () => {
      workspace.write('.github/copilot-policy.yml', urlPolicy)
      const result = await runWith(probe)
      expect(result.outputs.status).toBe('completed')
      expect(said()).toMatch(/hi proxy=http:\/\/\S+/)
      expect(result.report!.sandbox).toEqual({
        state: 'enforced',
        backend: 'bubblewrap',
        cliConfined: true
      })
      expect(result.stdout).not.toContain('WITHOUT network')
    },
    60_000
  )

  /**
   * A fake `sudo` first on PATH: records its argv in the file it returns, and "installs" a
   * package (`apt-get install`) by linking this machine's `programs` into `bin`.
   */
  function fakeSudo(bin: string, programs: string[]): { dir: string; calls: () => string[] } {
    const dir = path.join(path.dirname(workspace.runnerTemp), 'fake-sudo')
    const file = path.join(dir, 'calls')
    fs.mkdirSync(dir)
    fs.writeFileSync(
      path.join(dir, 'sudo'),
      `#!/bin/sh\nPATH=/usr/bin:/bin\necho "$*" >> '${file}'\nif [ "$2" = apt-get ]; then\n${programs.map((name) => `  ln -s '${name === 'bwrap' ? findBwrap() : where(name)}' '${bin}/${name}'\n`).join('')}fi\nexit 0\n`,
      { mode: 0o755 }
    )
    return { dir, calls: () => fs.readFileSync(file, 'utf8').trim().split('\n') }
  }
  const GITHUB_HOSTED = { RUNNER_ENVIRONMENT: 'github-hosted', RUNNER_OS: 'Linux' }

  itWithSandbox(
    'GitHub-hosted (a fake sudo first on PATH): the action installs slirp4netns and iptables, restarts the CLI, and the command gets the network',
    async () => {
      const bin = pathWithoutNetworkStack()
      const sudo = fakeSudo(bin, NETWORK_ONLY)
      workspace.write('.github/copilot-policy.yml', urlPolicy)
      const result = await runWith(probe, { PATH: `${sudo.dir}:${bin}`, ...GITHUB_HOSTED })
      expect(sudo.calls()).toEqual([
        '-n true',
        '-n apt-get install -y --no-install-recommends slirp4netns iptables'
      ])
      expect(result.outputs.status).toBe('completed')
      expect(said()).toMatch(/hi proxy=http:\/\/\S+/)
      expect(result.report!.sandbox).toMatchObject({
        state: 'enforced',
        backend: 'bubblewrap',
        provisioned: ['slirp4netns', 'iptables'],
        setupSeconds: expect.any(Number) as unknown
      })
      expect(result.stdout).toContain('::group::Sandbox setup')
      expect(result.stdout).toMatch(
        /\$ sudo -n apt-get install -y --no-install-recommends slirp4netns iptables {2}\(\d+\.\d s\)/
      )
      // the CLI looks for slirp4netns when it starts: the one started before the setup would not
      // find it
      expect(result.stdout).toContain('Restarting the Copilot CLI')
      expect(result.summary).toContain(
        'set up on this runner by the action (slirp4netns, iptables;'
      )
    },
    60_000
  )

  itWithSandbox(
    'GitHub-hosted without bwrap (a fake sudo): the action installs bubblewrap, and the command runs sandboxed',
    async () => {
      const bin = pathWithoutNetworkStack()
      fs.rmSync(path.join(bin, 'bwrap'))
      const sudo = fakeSudo(bin, ['bwrap'])
      workspace.write('.github/copilot-policy.yml', policy('auto'))
      const result = await runWith(
        [
          { toolCalls: [{ name: 'bash', arguments: { command: 'echo hi', description: 'x' } }] },
          { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
        ],
        { PATH: `${sudo.dir}:${bin}`, ...GITHUB_HOSTED }
      )
      // (this machine has no AppArmor restriction: no profile to load)
      expect(sudo.calls()).toEqual([
        '-n true',
        '-n apt-get install -y --no-install-recommends bubblewrap'
      ])
      expect(result.outputs.status).toBe('completed')
      expect(said()).toContain('hi')
      expect(result.report!.sandbox).toMatchObject({
        state: 'enforced',
        backend: 'bubblewrap',
        provisioned: ['bubblewrap']
      })
      expect(result.report!.tools.find((t) => t.name === 'bash')?.outcome).toBe('succeeded')
    },
    60_000
  )

  itWithSandbox(
    'self-hosted (the same fake sudo on PATH): never called',
    async () => {
      const bin = pathWithoutNetworkStack()
      const sudo = fakeSudo(bin, NETWORK_ONLY)
      workspace.write('.github/copilot-policy.yml', urlPolicy)
      const result = await runWith(probe, {
        PATH: `${sudo.dir}:${bin}`,
        RUNNER_ENVIRONMENT: 'self-hosted',
        RUNNER_OS: 'Linux'
      })
      expect(fs.existsSync(path.join(sudo.dir, 'calls'))).toBe(false)
      expect(result.outputs.status).toBe('completed')
      expect(result.report!.sandbox?.networkOff?.reason).toContain(
        'RUNNER_ENVIRONMENT=self-hosted, RUNNER_OS=Linux): the action runs no sudo here'
      )
      expect(said()).toContain('hi proxy=none')
    },
    60_000
  )
})
