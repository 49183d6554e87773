/**
 * End to end: the checkout's token is not in the workspace's git config while the real Copilot
 * CLI's agent works, whatever allowed command reads it, and is back, byte for byte, afterwards.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startModelServer, type ModelServer, type Turn } from '../../test-support/model-server.js'
import {
  makeWorkspace,
  runAction,
  scriptedInputs,
  sourceEntry,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'
import { itWithSandbox } from '../../test-support/sandbox-suite.js'

const TOKEN = 'ghs_E2eCheckoutToken0123456789abcdefXYZ'
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64')
const UUID = '7e0b6a4c-1d2e-4f3a-8b9c-0a1b2c3d4e5f'

const POLICY = `version: 1
default: deny
rules:
  - { id: look, decision: allow, shell: ["node read.js"] }
  - { id: read-all, decision: allow, read: ["**"] }
`

let workspace: Workspace
let model: ModelServer | undefined

afterEach(async () => {
  await model?.close()
  model = undefined
  workspace.cleanup()
})

function git(...args: string[]): void {
  execFileSync('git', args, {
    cwd: workspace.dir,
    stdio: 'pipe',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: os.devNull }
  })
}

const bash = (command: string) => ({
  toolCalls: [{ name: 'bash', arguments: { command, description: 'look' } }]
})

describe("the checkout's credentials during a run of the real CLI", () => {
  it('are out of .git/config while the agent works, and back afterwards', async () => {
    workspace = makeWorkspace({
      '.github/copilot-policy.yml': POLICY,
      'README.md': '# demo\n',
      // what an allowed test script can do (the policy itself denies \`git config --list\`): print
      // .git/config, every file it includes, and what git makes of it all
      'read.js': [
        "const fs = require('node:fs')",
        "const text = fs.readFileSync('.git/config', 'utf8')",
        "console.log('CONFIG<<' + text + '>>')",
        'for (const m of text.matchAll(/path = (.+)/g)) {',
        "  try { console.log(fs.readFileSync(m[1].trim(), 'utf8')) } catch (e) { console.log('unreadable ' + e.code) }",
        '}',
        "const git = require('node:child_process').spawnSync('git', ['config', '--list'], { encoding: 'utf8' })",
        "console.log('GIT<<' + git.stdout + git.stderr + '>>')"
      ].join('\n')
    })
    git('init', '-q', '-b', 'main')
    // as actions/checkout v4/v5 leaves it: the header in .git/config, a token in the remote URL
    git('config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${BASIC}`)
    git('remote', 'add', 'origin', `https://x-access-token:${TOKEN}@github.com/octo/repo`)
    // as checkout v6+ leaves it: a credentials file in RUNNER_TEMP, included by gitdir
    const credentials = path.join(workspace.runnerTemp, `git-credentials-${UUID}.config`)
    fs.writeFileSync(
      credentials,
      `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${BASIC}\n`
    )
    git('config', `includeIf.gitdir:${path.join(workspace.dir, '.git')}.path`, credentials)
    const configFile = path.join(workspace.dir, '.git', 'config')
    const before = fs.readFileSync(configFile)

    model = await startModelServer([
      bash('node read.js'),
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Looked around.' } }] }
    ])
    const result = await runAction({ workspace, inputs: scriptedInputs(model.url) })
    expect(await waitGone(result.cliPids)).toEqual([])

    expect(result.outputs.status).toBe('completed')
    const report = result.report!
    // the command ran and said what the file holds and what git makes of it
    expect(report.permissions.map((p) => [p.subject, p.decision])).toEqual([
      ['node read.js', 'allow']
    ])
    const results = model.toolResults()
    const output = results.join('\n')
    expect(output).toContain('CONFIG<<[core]')
    expect(output).toMatch(/GIT<<[^]*remote\.origin\.url=https:\/\/github\.com\/octo\/repo\n/)
    // … but no token, in any form
    for (const text of results) {
      expect(text).not.toContain(TOKEN)
      expect(text).not.toContain(BASIC)
      expect(text).not.toContain('extraheader')
    }

    // back afterwards, byte for byte, and the report and summary say so
    expect(fs.readFileSync(configFile).equals(before)).toBe(true)
    expect(report.credentials?.restored).toBe(true)
    expect(report.credentials?.removed.sort()).toEqual([
      '.git/config: http.https://github.com/.extraheader',
      `.git/config: includeif.gitdir:${path.join(workspace.dir, '.git')}.path`,
      '.git/config: remote.origin.url'
    ])
    expect(result.summary).toContain(
      '**Credentials:** 🔑 Checkout credentials taken out of .git/config during the session and put back'
    )
    // masked in the log, and nowhere else
    expect(result.stdout).toContain(`::add-mask::${TOKEN}`)
    const log = result.stdout.replace(/^::add-mask::.*$/gm, '')
    const everything =
      JSON.stringify(report) + JSON.stringify(result.outputs) + log + result.summary
    expect(everything).not.toContain(TOKEN)
    expect(everything).not.toContain(BASIC)
    // nothing left for the post step
    const left = fs
      .readdirSync(workspace.runnerTemp, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('git-credentials-stash.json'))
    expect(left).toEqual([])
  })

  /** A git workspace with the header checkout v4 writes; returns .git/config's path and bytes. */
  function checkedOut(): { file: string; bytes: Buffer } {
    workspace = makeWorkspace({ '.github/copilot-policy.yml': POLICY, 'README.md': '# demo\n' })
    git('init', '-q', '-b', 'main')
    git('config', 'http.https://github.com/.extraheader', `AUTHORIZATION: basic ${BASIC}`)
    const file = path.join(workspace.dir, '.git', 'config')
    return { file, bytes: fs.readFileSync(file) }
  }

  it('are back after a cancelled run (SIGTERM while the agent works)', async () => {
    const config = checkedOut()
    model = await startModelServer(() => ({ hang: true }))
    let during: string | undefined
    const result = await runAction({
      workspace,
      inputs: scriptedInputs(model.url),
      onSpawn: (child) => {
        const timer = setInterval(() => {
          if ((model?.requests.length ?? 0) === 0) return
          clearInterval(timer)
          during = fs.readFileSync(config.file, 'utf8')
          child.kill('SIGTERM')
        }, 50)
        child.on('exit', () => clearInterval(timer))
      }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(result.outputs.status).toBe('cancelled')
    expect(during).toBeDefined()
    expect(during).not.toContain(BASIC)
    expect(fs.readFileSync(config.file).equals(config.bytes)).toBe(true)
    expect(result.report?.credentials).toEqual({
      removed: ['.git/config: http.https://github.com/.extraheader'],
      restored: true
    })
  })

  it('are put back by the post step when the run was killed outright', async () => {
    const config = checkedOut()
    model = await startModelServer(() => ({ hang: true }))
    const result = await runAction({
      workspace,
      inputs: scriptedInputs(model.url),
      onSpawn: (child) => {
        const timer = setInterval(() => {
          if ((model?.requests.length ?? 0) === 0) return
          clearInterval(timer)
          child.kill('SIGKILL')
        }, 50)
        child.on('exit', () => clearInterval(timer))
      }
    })
    // the CLI outlives a killed action: end it as the runner would
    for (const pid of result.cliPids) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone already
      }
    }
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(fs.readFileSync(config.file, 'utf8')).not.toContain(BASIC)
    // The harness sets no GITHUB_STATE: the state came as a workflow command, as the runner
    // reads it and hands it to the post step as STATE_<name>.
    const stashDir = /^::save-state name=credentials-stash::(.+)$/m.exec(result.stdout)?.[1]
    expect(stashDir).toBeDefined()
    const post = spawnSync(process.execPath, sourceEntry('post'), {
      cwd: workspace.dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        'STATE_credentials-stash': stashDir
      },
      encoding: 'utf8'
    })
    expect(post.status).toBe(0)
    expect(post.stdout).toContain('Put the checkout credentials back into .git/config')
    expect(fs.readFileSync(config.file).equals(config.bytes)).toBe(true)
  })

  /** Runs the action until the model's first request, then kills it outright (SIGKILL). */
  async function killedRun(
    turns: Turn[] = []
  ): Promise<{ result: ActionResult; runDir: string; mark: string }> {
    model = await startModelServer((_request, index) => turns[index] ?? { hang: true })
    const result = await runAction({
      workspace,
      inputs: scriptedInputs(model.url),
      onSpawn: (child) => {
        const timer = setInterval(() => {
          if ((model?.requests.length ?? 0) <= turns.length) return
          clearInterval(timer)
          child.kill('SIGKILL')
        }, 50)
        child.on('exit', () => clearInterval(timer))
      }
    })
    const state = (name: string): string =>
      new RegExp(`^::save-state name=${name}::(.+)$`, 'm').exec(result.stdout)?.[1] ?? ''
    return { result, runDir: state('run-dir'), mark: state('run-mark') }
  }

  /** The processes carrying the run's mark (as the sweep finds them: /proc/<pid>/environ). */
  function markedProcesses(mark: string): Array<{ pid: number; commandLine: string }> {
    return fs.readdirSync('/proc').flatMap((name) => {
      if (!/^\d+$/.test(name)) return []
      try {
        const environ = fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0')
        if (!environ.includes(`AUTOPILOT_PROCESS_MARK=${mark}`)) return []
        const commandLine = fs
          .readFileSync(`/proc/${name}/cmdline`, 'utf8')
          .replace(/\0+$/, '')
          .split('\0')
          .join(' ')
        return [{ pid: Number(name), commandLine }]
      } catch {
        return []
      }
    })
  }

  /** The post step, as the runner runs it after a killed main step: with the state it saved. */
  function postStep(state: Record<string, string>): SpawnSyncReturns<string> {
    return spawnSync(process.execPath, sourceEntry('post'), {
      cwd: workspace.dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v]))
      },
      encoding: 'utf8'
    })
  }

  it('the post step ends what a killed run left running (no OS sandbox: a setsid child outlives it)', async () => {
    checkedOut()
    workspace.write(
      '.github/copilot-policy.yml',
      `${POLICY}  - { id: spawn, decision: allow, shell: ["sh spawn.sh"] }\nsandbox:\n  mode: off\n`
    )
    // a detached child in its own session: neither the CLI's end nor the action's takes it along
    workspace.write('spawn.sh', 'setsid sleep 300 </dev/null >/dev/null 2>&1 &\necho spawned\n')
    const { runDir, mark } = await killedRun([bash('sh spawn.sh')])
    expect(mark).toMatch(/^[0-9a-f]{20}$/)
    const left = markedProcesses(mark)
    expect(left.map((p) => p.commandLine)).toContain('sleep 300')
    const post = postStep({ 'run-dir': runDir, 'run-mark': mark })
    expect(post.status).toBe(0)
    expect(post.stdout).toMatch(/::warning::Killed \d+ process(es)? the run left running/)
    expect(post.stdout).toContain('agent: sleep')
    expect(await waitGone(left.map((p) => p.pid))).toEqual([])
  })

  itWithSandbox(
    "the post step removes the private HOME a killed run's walled CLI left (it dies with the action)",
    async () => {
      checkedOut()
      const { result, runDir, mark } = await killedRun()
      expect(await waitGone(result.cliPids)).toEqual([])
      const home = path.join(runDir, 'home')
      expect(fs.existsSync(home)).toBe(true)
      const post = postStep({ 'run-dir': runDir, 'run-mark': mark })
      expect(post.status).toBe(0)
      expect(post.stdout).toContain("Removed the Copilot CLI's private HOME the run left")
      expect(fs.existsSync(home)).toBe(false)
    }
  )
})
