/**
 * Setup and verify commands behind the wall, and nothing any command started survives the step
 * (issue 28, point 2). End to end in GitHub's runner layout with the real CLI: a verify command
 * whose test double-forks a process that keeps writing the proposals file, package.json and the
 * workspace; an agent's bash command that leaves a `setsid nohup` writer behind; a verify command
 * that writes HOME, RUNNER_TEMP and the file behind GITHUB_ENV. Nothing of it reaches the host
 * after the step, the processes are gone, and the report names what was killed.
 */
import fs from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { startModelServer, type ModelServer, type Script } from '../../test-support/model-server.js'
import {
  makeRunnerWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type ActionResult,
  type RunnerWorkspace
} from '../../test-support/action.js'
import { describeWithSandbox, itWithSandboxNetwork } from '../../test-support/sandbox-suite.js'

const SANDBOXED = `version: 1
extends: ci-fix
sandbox:
  mode: required
rules:
  - { id: tests, decision: allow, shell: ["node *", "setsid *"] }
`

const NO_SANDBOX = `version: 1
extends: ci-fix
sandbox:
  mode: off
rules:
  - { id: tests, decision: allow, shell: ["node *", "setsid *"] }
`

/** The agent's tests: every command allowed, so that the writer starts (the walls are what is tested). */
const agentPolicy = (mode: 'required' | 'off'): string => `version: 1
default: allow
sandbox:
  mode: ${mode}
`

const PACKAGE = '{"name":"x","scripts":{"test":"node test.js"}}\n'

let ws: RunnerWorkspace
let model: ModelServer | undefined
/** A token only the late writers' command lines carry (to find them, and end them after a test). */
let token: string

/** Pids of the processes whose command line holds `token`. */
function lateWriters(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(token)
      } catch {
        return false
      }
    })
    .map(Number)
}

beforeEach(() => {
  token = `late-writer-${process.pid}-${Date.now()}`
})

afterEach(async () => {
  await model?.close()
  model = undefined
  // on the old code the writers outlive the run: never past the test
  for (const pid of lateWriters()) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  ws.cleanup()
})

function workspace(policy: string): void {
  ws = makeRunnerWorkspace({
    '.github/copilot-policy.yml': policy,
    'package.json': PACKAGE,
    'src/index.js': 'export {}\n',
    // the late writer: after 2 s, for 20 s, every half second, the proposals file, package.json
    // and the workspace (its name carries the token)
    [`${token}.sh`]: `sleep 2
for i in $(seq 40); do
  sleep 0.5
  for f in "$RUNNER_TEMP"/*.safe-outputs.json; do echo HACKED > "$f"; done
  echo x >> package.json
  echo late >> src/late.txt
done
`,
    // the agent's test: double-forks the late writer (a shell that backgrounds a new session and
    // exits), then passes
    'test.js': `require('child_process').spawnSync('sh', ['-c', 'setsid sh ${token}.sh > /dev/null 2>&1 &'], { stdio: 'ignore' })
console.log('1 test passed')
`
  })
}

/** The first address of this machine that is not loopback (IPv4): a server the proxy may reach. */
function hostAddress(): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  }
  throw new Error('this machine has no IPv4 address besides loopback')
}

/** An http server at `host` answering `hello from <port>`; the requests that reached it in `seen`. */
async function listen(
  host: string
): Promise<{ port: number; seen: string[]; server: http.Server }> {
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    seen.push(`${req.method ?? ''} ${req.url ?? ''}`)
    res.end(`hello from ${(server.address() as net.AddressInfo).port}`)
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return { port: (server.address() as net.AddressInfo).port, seen, server }
}

const COMPLETE: Script = [
  { toolCalls: [{ name: 'add_comment', arguments: { body: 'Tests pass.' } }] },
  { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
]

async function run(
  script: Script,
  extra: Record<string, string> = {},
  env: Record<string, string> = {}
): Promise<ActionResult> {
  model = await startModelServer(script)
  return await runAction({
    workspace: ws,
    inputs: {
      ...scriptedInputs(model.url),
      'provider-api-key': 'k',
      comment: 'off',
      'safe-outputs': 'comment',
      ...extra
    },
    env: { ...ws.env, ...env }
  })
}

/** What the run left on disk; compared again after the late writer would have written. */
function snapshot(result: ActionResult): Record<string, string | undefined> {
  const proposals = result.outputs['safe-outputs-path'] ?? ''
  return {
    proposals: fs.existsSync(proposals) ? fs.readFileSync(proposals, 'utf8') : undefined,
    packageJson: ws.read('package.json'),
    late: ws.read('src/late.txt')
  }
}

async function afterTheStep(result: ActionResult): Promise<void> {
  expect(await waitGone(result.cliPids)).toEqual([])
  await new Promise((resolve) => setTimeout(resolve, 9000))
}

describeWithSandbox('setup and verify commands behind the wall', () => {
  it('a verify command whose test double-forks a writer: the writer dies with the command, and the report names it', async () => {
    workspace(SANDBOXED)
    const result = await run(COMPLETE, { 'verify-commands': 'npm test' })
    expect(result.outputs.status).toBe('completed')
    const atExit = snapshot(result)
    await afterTheStep(result)

    // nothing written after the step: not the proposals, not package.json, not the workspace
    expect(snapshot(result)).toEqual(atExit)
    expect(atExit.proposals).toContain('Tests pass.')
    expect(atExit.proposals).not.toContain('HACKED')
    expect(atExit.packageJson).toBe(PACKAGE)
    expect(atExit.late).toBeUndefined()
    expect(lateWriters()).toEqual([])

    const verify = result.report!.commands.find((c) => c.phase === 'verify')
    expect(verify).toMatchObject({ exitCode: 0, confinement: 'sandboxed', network: 'none' })
    expect(result.report!.killedProcesses).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          step: 'verify',
          when: 'after-command',
          inWall: true,
          command: expect.stringContaining(token) as unknown
        })
      ])
    )
    expect(result.summary).toContain('left running')
    expect(result.stdout).toMatch(/Killed \d+ process(es)? the verify command left running/)
  }, 150_000)

  it('a verify command that writes HOME, RUNNER_TEMP and the file behind GITHUB_ENV changes nothing on the host', async () => {
    workspace(SANDBOXED)
    const githubEnv = path.join(ws.runnerTemp, 'set_env')
    fs.writeFileSync(githubEnv, '')
    fs.writeFileSync(path.join(ws.home, '.bashrc'), '# mine\n')
    const writes = [
      'echo NODE_OPTIONS=--require=/x >> "$GITHUB_ENV"',
      'echo pwned >> "$HOME/.bashrc"',
      'echo pwned > "$HOME/.npmrc"',
      'echo pwned > "$RUNNER_TEMP/x"',
      'echo pwned > "$HOME/work/_actions/x.js"',
      'echo ok > src/written.txt'
    ].map((w) => `${w} || true`)
    const result = await run(
      COMPLETE,
      { 'verify-commands': writes.join('; ') },
      { GITHUB_ENV: githubEnv }
    )
    expect(result.outputs.status).toBe('completed')
    expect(fs.readFileSync(githubEnv, 'utf8')).toBe('')
    expect(fs.readFileSync(path.join(ws.home, '.bashrc'), 'utf8')).toBe('# mine\n')
    expect(fs.existsSync(path.join(ws.home, '.npmrc'))).toBe(false)
    expect(fs.existsSync(path.join(ws.runnerTemp, 'x'))).toBe(false)
    expect(fs.existsSync(path.join(ws.workRoot, '_actions', 'x.js'))).toBe(false)
    // the workspace is the command's to write
    expect(ws.read('src/written.txt')).toBe('ok\n')
  }, 150_000)

  it('a command named in unconfined-commands runs without its own wall (the network its verify needs), and says so', async () => {
    workspace(SANDBOXED)
    // behind the command wall a command has no network device but loopback; without it, the
    // runner's (the CLI's own wall shares the network): the interfaces it sees say which
    const command = 'grep -c : /proc/net/dev > src/net-devices.txt'
    const result = await run(COMPLETE, {
      'verify-commands': command,
      'unconfined-commands': command
    })
    expect(result.outputs.status).toBe('completed')
    const hostDevices = fs
      .readFileSync('/proc/net/dev', 'utf8')
      .split('\n')
      .filter((l) => l.includes(':'))
    expect(Number(ws.read('src/net-devices.txt'))).toBe(hostDevices.length)
    expect(result.report!.commands[0]).toMatchObject({ confinement: 'unconfined' })
    expect(result.stdout).toContain('Runs UNCONFINED')
    expect(result.summary).toMatch(/unconfined/i)
  }, 150_000)

  // The CLI sets NODE_ENV=production in what session.shell.exec starts (measured, CLI 1.0.102):
  // `npm ci` then skips devDependencies. The command gets the job's NODE_ENV, or none.
  it.each([
    ['without NODE_ENV in the job, none', {}, 'unset'],
    ['with NODE_ENV=development in the job, that', { NODE_ENV: 'development' }, 'development']
  ])(
    'a setup command gets the job’s NODE_ENV: %s',
    async (_case, env, expected) => {
      workspace(SANDBOXED)
      const result = await run(
        COMPLETE,
        { 'setup-commands': 'echo "${NODE_ENV-unset}" > src/node-env.txt' },
        env
      )
      expect(result.outputs.status).toBe('completed')
      expect(result.report!.commands[0]).toMatchObject({ phase: 'setup', exitCode: 0 })
      expect(ws.read('src/node-env.txt')).toBe(`${expected}\n`)
    },
    150_000
  )

  it('a setup command that downloads, without network (no url rule): warned before it runs, and its failure names the fix', async () => {
    workspace(SANDBOXED)
    // behind the wall without network the name does not resolve: curl fails at once, offline or not
    const command = 'curl -fsS https://registry.npmjs.org/ -o /dev/null'
    const result = await run(COMPLETE, {
      'setup-commands': command,
      'command-timeout-seconds': '60'
    })
    expect(result.outputs.status).toBe('failed')
    const setup = result.report!.commands[0]
    expect(setup).toMatchObject({ phase: 'setup', confinement: 'sandboxed', network: 'none' })
    expect(setup?.exitCode).not.toBe(0)
    // (a) before it ran: the command, what downloads, the host and both fixes
    expect(result.stdout).toMatch(
      /::warning::The setup command `curl -fsS https:\/\/registry\.npmjs\.org\/ -o \/dev\/null` downloads \(`curl`\), but it runs behind the OS sandbox without network/
    )
    expect(result.stdout).toContain('url: ["registry.npmjs.org"]')
    // (b) its failure says it had no network, in the report and the job summary
    expect(result.report!.error?.message).toContain(
      "the agent was not started. It ran behind the OS sandbox without network (the policy's url rules allow no host)"
    )
    expect(result.report!.error?.message).toContain('`unconfined-commands`')
    expect(result.summary).toContain('📵 It ran behind the OS sandbox without network')
  }, 150_000)

  // Before: any url rule gave the setup and verify commands the runner's whole network, loopback
  // and cloud metadata included. Now only what the url rules allow, through the action's proxy.
  itWithSandboxNetwork(
    'a verify command reaches an allowed host through the proxy, and is refused another host and the runner’s loopback; the report names what was refused',
    async () => {
      const address = hostAddress()
      const allowed = await listen(address)
      const loopback = await listen('127.0.0.1')
      try {
        workspace(`version: 1
extends: ci-fix
sandbox:
  mode: required
rules:
  - { id: tests, decision: allow, shell: ["node *", "setsid *"] }
  - { id: test-server, decision: allow, url: ["${address}:${allowed.port}"] }
  - { id: any-host-on-port, decision: allow, url: ["*:${loopback.port}"] }
`)
        const command = [
          // through the proxy the environment names: the allowed server
          `curl -sS --max-time 20 http://${address}:${allowed.port}/allowed > src/allowed.txt`,
          // another host (its tunnel refused by the rules before any name is looked up)
          'curl -sS --max-time 20 https://example.com/ -o /dev/null',
          // the runner's loopback, asked of the proxy on purpose (a rule's wildcard matches it)
          `curl -sS --max-time 20 -x "$HTTP_PROXY" --noproxy '' -o src/loopback.txt http://127.0.0.1:${loopback.port}/`,
          // loopback without the proxy is the sandbox's own, where nothing listens
          `curl -sS --max-time 20 --noproxy '*' http://127.0.0.1:${loopback.port}/ || echo direct-refused > src/direct.txt`,
          'true'
        ].join('; ')
        const result = await run(COMPLETE, { 'verify-commands': command })
        expect(result.outputs.status).toBe('completed')
        expect(ws.read('src/allowed.txt')).toBe(`hello from ${allowed.port}`)
        expect(allowed.seen).toEqual(['GET /allowed'])
        // nothing reached the runner's loopback, through the proxy or around it
        expect(loopback.seen).toEqual([])
        expect(ws.read('src/loopback.txt')).toContain('127.0.0.1 (loopback)')
        expect(ws.read('src/direct.txt')).toBe('direct-refused\n')

        const verify = result.report!.commands.find((c) => c.phase === 'verify')
        expect(verify).toMatchObject({ exitCode: 0, confinement: 'sandboxed', network: 'proxy' })
        expect(verify?.refused).toEqual([
          { target: 'example.com:443', reason: 'no url allow rule matches it', attempts: 1 },
          {
            target: `127.0.0.1:${loopback.port}`,
            reason: expect.stringContaining('it resolves to 127.0.0.1 (loopback)') as unknown,
            attempts: 1
          }
        ])
        // said in the log once per host, and in the job summary
        expect(result.stdout).toContain('::warning::The network proxy refused the verify command')
        expect(result.stdout).toContain("network: only the hosts the policy's url rules allow")
        expect(result.summary).toContain('🚫 The network proxy refused `example.com:443`')
        // the forwarder is the sandbox's, not a process the command left running
        expect(
          (result.report!.killedProcesses ?? []).filter((p) => p.command.includes('perl'))
        ).toEqual([])
      } finally {
        allowed.server.close()
        loopback.server.close()
      }
    },
    150_000
  )

  it("an agent's setsid nohup writer does not outlive the session", async () => {
    workspace(agentPolicy('required'))
    const result = await run([
      {
        toolCalls: [
          {
            name: 'bash',
            arguments: {
              command: `setsid nohup sh ${token}.sh > /dev/null 2>&1 &`,
              description: 'start'
            }
          }
        ]
      },
      ...COMPLETE
    ])
    // the writer did start: the command ran
    expect(result.report!.tools.find((t) => t.name === 'bash')).toMatchObject({
      outcome: 'succeeded'
    })
    const atExit = snapshot(result)
    await afterTheStep(result)
    expect(snapshot(result)).toEqual(atExit)
    expect(lateWriters()).toEqual([])
  }, 150_000)
})

describe('without the OS sandbox (sandbox.mode: off)', () => {
  it('a verify command that double-forks a writer: the sweep kills it when the command ends, and the report says the command ran without the sandbox', async () => {
    workspace(NO_SANDBOX)
    const result = await run(COMPLETE, { 'verify-commands': 'npm test' })
    expect(result.outputs.status).toBe('completed')
    const atExit = snapshot(result)
    await afterTheStep(result)
    expect(snapshot(result)).toEqual(atExit)
    expect(atExit.proposals).not.toContain('HACKED')
    expect(atExit.packageJson).toBe(PACKAGE)
    expect(atExit.late).toBeUndefined()
    expect(lateWriters()).toEqual([])

    expect(result.report!.commands[0]).toMatchObject({ confinement: 'no-sandbox' })
    const killed = result.report!.killedProcesses ?? []
    expect(killed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          step: 'verify',
          when: 'after-command',
          command: expect.stringContaining(token) as unknown
        })
      ])
    )
    expect(killed.some((k) => k.inWall === true)).toBe(false)
  }, 150_000)

  it("an agent's `setsid nohup sh -c 'sleep 2; echo x >> package.json' &` is killed after the session and named in the report", async () => {
    workspace(agentPolicy('off'))
    const result = await run([
      {
        toolCalls: [
          {
            name: 'bash',
            arguments: {
              // (sleep 8, not 2: the write must come after the session on a slow machine too)
              command: `setsid nohup sh -c 'sleep 8; echo x >> package.json; : ${token}' > /dev/null 2>&1 &`,
              description: 'start'
            }
          }
        ]
      },
      ...COMPLETE
    ])
    expect(result.report!.tools.find((t) => t.name === 'bash')).toMatchObject({
      outcome: 'succeeded'
    })
    const atExit = snapshot(result)
    await afterTheStep(result)
    expect(ws.read('package.json')).toBe(PACKAGE)
    expect(snapshot(result)).toEqual(atExit)
    expect(lateWriters()).toEqual([])
    expect(result.report!.killedProcesses).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          step: 'agent',
          when: 'after-session',
          command: expect.stringContaining(token) as unknown
        })
      ])
    )
    expect(result.summary).toContain('left running')
  }, 150_000)
})
