/**
 * End to end (issue 28): the Copilot CLI process itself behind the sandbox's outer wall, in
 * GitHub's runner layout, with the real CLI and a scripted model.
 *
 * The racer: the agent starts a background command that flips `src/d<N>` between a directory and
 * a symlink (to HOME, to the GITHUB_ENV file's folder, to an action's folder under `_actions`, to
 * `~/.config/git`, to `~/.ssh`, to /proc), then calls `edit` and `view` on paths under them, many
 * times at once. The CLI's file tools act in its own process: the policy judges `src/d1/.bashrc`
 * inside the workspace, and the tool opens it through the link a moment later. Without the wall
 * some of these land on the host; behind it the links lead into the CLI's own view, where HOME
 * is a private directory and other processes' environments are out of reach.
 *
 * And: the CLI's `grep` and `glob` tools work under the sandbox (they run the ripgrep the CLI
 * unpacks under HOME).
 *
 * Every HOME here is a fresh one without the CLI's runtime, as on a GitHub-hosted runner's first
 * run: the CLI unpacks it into the run's private HOME (the other runner-layout suites give HOME a
 * copy of it, test-support/cli-runtime.mjs).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  startModelServer,
  type ModelServer,
  type ToolCall,
  type Turn
} from '../../test-support/model-server.js'
import {
  makeRunnerWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type RunnerWorkspace
} from '../../test-support/action.js'
import { describeWithSandbox } from '../../test-support/sandbox-suite.js'

const SECRET = 'sk-racer-Secret-0123456789abcdefXYZ'
const SSH_MARKER = 'SSH-PRIVATE-KEY-MARKER-4f1c9a'

const POLICY = `version: 1
default: deny
rules:
  - { id: flipper, decision: allow, shell: ["node flip.js"] }
  - { id: sources, decision: allow, write: ["src/**"] }
  - { id: read-all, decision: allow, read: ["**"] }
`

/** A HOME without the CLI's runtime: the CLI unpacks it into the run's private HOME. */
const FRESH_HOME = { cliRuntime: false }

let ws: RunnerWorkspace
let model: ModelServer | undefined

afterEach(async () => {
  await model?.close()
  model = undefined
  ws.cleanup()
})

const base64 = (text: string): string => Buffer.from(text).toString('base64')

/** Every text the model server received, in one string. */
function received(server: ModelServer): string {
  return server.requests.map((request) => JSON.stringify(request.body)).join('\n')
}

describeWithSandbox('the Copilot CLI behind its outer wall (runner layout)', () => {
  it("a racer flipping links under the CLI's file tools changes nothing outside and reads nothing secret", async () => {
    ws = makeRunnerWorkspace(
      {
        '.github/copilot-policy.yml': POLICY,
        'README.md': '# demo\n',
        'src/index.ts': 'export {}\n'
      },
      os.homedir(),
      FRESH_HOME
    )
    // the host's files the tools must not reach
    const envFile = path.join(ws.runnerTemp, '_runner_file_commands', 'set_env_1234')
    const checkout = path.join(ws.workRoot, '_actions', 'actions', 'checkout', 'v4', 'dist')
    const planted: Record<string, string> = {
      [path.join(ws.home, '.bashrc')]: 'ORIGINAL-BASHRC\n',
      [envFile]: 'ORIGINAL-ENV=1\n',
      [path.join(checkout, 'index.js')]: 'ORIGINAL-CHECKOUT\n',
      [path.join(ws.home, '.config', 'git', 'config')]: 'ORIGINAL-GITCONFIG\n',
      [path.join(ws.home, '.ssh', 'id_rsa')]: `${SSH_MARKER}\n`
    }
    for (const [file, content] of Object.entries(planted)) {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, content)
    }
    // d<N> flips between a directory and a link to targets[N-1]
    const targets = [
      ws.home,
      path.dirname(envFile),
      checkout,
      path.join(ws.home, '.config', 'git'),
      path.join(ws.home, '.ssh'),
      '/proc'
    ]
    ws.write(
      'flip.js',
      [
        "const fs = require('node:fs')",
        `const targets = ${JSON.stringify(targets)}`,
        'const end = Date.now() + 90_000',
        'while (Date.now() < end) {',
        '  targets.forEach((target, i) => {',
        '    const d = `src/d${i + 1}`',
        '    try { fs.rmSync(d, { recursive: true, force: true }); fs.mkdirSync(d) } catch {}',
        '    try { fs.rmSync(d, { recursive: true, force: true }); fs.symlinkSync(target, d) } catch {}',
        '  })',
        '}'
      ].join('\n')
    )
    let actionPid = 0
    const edit = (n: number, file: string, from: string, to: string): ToolCall => ({
      name: 'edit',
      arguments: { path: path.join(ws.dir, `src/d${n}`, file), old_str: from, new_str: to }
    })
    const view = (n: number, file: string): ToolCall => ({
      name: 'view',
      arguments: { path: path.join(ws.dir, `src/d${n}`, file) }
    })
    const round = (): ToolCall[] => [
      edit(1, '.bashrc', 'ORIGINAL-BASHRC', 'PWNED-BASHRC'),
      edit(2, path.basename(envFile), 'ORIGINAL-ENV=1', 'NODE_OPTIONS=--require=/tmp/pwn.js'),
      edit(3, 'index.js', 'ORIGINAL-CHECKOUT', 'PWNED-CHECKOUT'),
      edit(4, 'config', 'ORIGINAL-GITCONFIG', '[core]\n\tfsmonitor = touch /tmp/pwned'),
      view(5, 'id_rsa'),
      view(6, `${actionPid}/environ`),
      view(6, 'self/environ')
    ]
    const ROUNDS = 8
    const PER_TURN = 6
    model = await startModelServer((_request, index): Turn => {
      if (index === 0) {
        return {
          toolCalls: [
            {
              name: 'bash',
              arguments: { command: 'node flip.js', description: 'flip', mode: 'async' }
            }
          ]
        }
      }
      if (index <= ROUNDS) {
        return { toolCalls: Array.from({ length: PER_TURN }, round).flat() }
      }
      return { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    })
    const result = await runAction({
      workspace: ws,
      inputs: {
        ...scriptedInputs(model.url),
        'provider-api-key': SECRET,
        comment: 'off',
        'timeout-minutes': '4'
      },
      env: { ...ws.env, GITHUB_ENV: envFile },
      onSpawn: (child) => (actionPid = child.pid ?? 0)
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    // the tools ran, many times, while the links flipped
    const tools = result.report?.tools ?? []
    expect(tools.filter((t) => t.name === 'edit').length).toBeGreaterThanOrEqual(ROUNDS * 4)
    expect(tools.filter((t) => t.name === 'view').length).toBeGreaterThanOrEqual(ROUNDS * 3)
    // nothing outside the workspace changed
    for (const [file, content] of Object.entries(planted)) {
      expect([file, fs.readFileSync(file, 'utf8')]).toEqual([file, content])
    }
    // nothing secret reached the model: the SSH key, the action's environment (its inputs)
    const sent = received(model)
    for (const secret of [SSH_MARKER, SECRET, 'INPUT_PROVIDER-API-KEY']) {
      expect(sent).not.toContain(secret)
      expect(sent).not.toContain(base64(secret))
    }
    expect(result.report?.sandbox).toMatchObject({ state: 'enforced', cliConfined: true })
  }, 300_000)

  it("the CLI's grep and glob tools find real matches under the sandbox", async () => {
    ws = makeRunnerWorkspace(
      {
        'README.md': '# demo\n',
        'src/needle.ts': 'export const needleInTheHaystack = 42\n',
        'src/other.ts': 'export const other = 1\n'
      },
      os.homedir(),
      FRESH_HOME
    )
    model = await startModelServer([
      {
        toolCalls: [
          { name: 'grep', arguments: { pattern: 'needleInTheHaystack' } },
          { name: 'glob', arguments: { pattern: 'src/**/*.ts' } }
        ]
      },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
    const result = await runAction({
      workspace: ws,
      inputs: { ...scriptedInputs(model.url), 'provider-api-key': 'k', comment: 'off' },
      env: ws.env
    })
    expect(result.outputs.status).toBe('completed')
    // grep lists the file that matches (not the other); glob lists both
    // the two calls run in parallel: each result by its call, not by the order they came back
    const [grep] = model.toolResultsOf('grep')
    const [glob] = model.toolResultsOf('glob')
    expect(grep).toContain('needle.ts')
    // the pinned CLI's grep takes `pattern` as the regex; the oldest supported one (the version
    // matrix) lists every file it searched
    if (process.env.COPILOT_CLI_PATH === undefined) expect(grep).not.toContain('other.ts')
    expect(glob).toContain('needle.ts')
    expect(glob).toContain('other.ts')
    const tools = result.report?.tools ?? []
    expect(tools.map((t) => [t.name, t.success])).toEqual([
      ['grep', true],
      ['glob', true],
      ['task_complete', true]
    ])
    expect(result.report?.sandbox).toMatchObject({ state: 'enforced', cliConfined: true })
  }, 120_000)

  it("the CLI's private HOME is removed after the run, what was written into it included", async () => {
    ws = makeRunnerWorkspace({ 'README.md': '# demo\n' }, os.homedir(), FRESH_HOME)
    model = await startModelServer([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
    // an unconfined setup command runs inside the CLI's wall, where HOME is the private one: a
    // directory it makes unwritable, a link to the host's root, a file
    const setup =
      'mkdir -p "$HOME/locked/sub" && echo x > "$HOME/locked/sub/f" && chmod 500 "$HOME/locked/sub" "$HOME/locked" && ln -s / "$HOME/root-link" && echo mine > "$HOME/.bashrc"'
    let actionPid = 0
    let during: { exists: boolean; entries: string[] } | undefined
    const home = (): string =>
      path.join(ws.runnerTemp, `copilot-autopilot-4242-${actionPid}`, 'home')
    const result = await runAction({
      workspace: ws,
      inputs: {
        ...scriptedInputs(model.url),
        'provider-api-key': 'k',
        comment: 'off',
        'setup-commands': setup,
        'unconfined-commands': setup
      },
      env: ws.env,
      onSpawn: (child) => (actionPid = child.pid ?? 0),
      onOutput: () => {
        // once the setup command has run, while the CLI still runs
        if (during !== undefined || !fs.existsSync(path.join(home(), '.bashrc'))) return
        during = { exists: true, entries: fs.readdirSync(home()).sort() }
      }
    })
    expect(result.outputs.status).toBe('completed')
    expect(result.report?.sandbox).toMatchObject({ state: 'enforced', cliConfined: true })
    expect(result.report?.commands[0]).toMatchObject({ confinement: 'unconfined', exitCode: 0 })
    // it was there, with what the setup command wrote, and never on the host's HOME
    expect(during).toEqual({
      exists: true,
      entries: expect.arrayContaining(['.bashrc', 'locked', 'root-link']) as unknown
    })
    expect(fs.existsSync(path.join(ws.home, 'locked'))).toBe(false)
    // after the run: gone, and the run's other files (the report) kept
    expect(fs.existsSync(home())).toBe(false)
    expect(result.outputs['report-path']).toBe(path.join(path.dirname(home()), 'report.json'))
    expect(fs.existsSync(result.outputs['report-path'] ?? '')).toBe(true)
    expect(result.stdout).toContain("Removed the Copilot CLI's private HOME of the run")
  }, 120_000)
})
