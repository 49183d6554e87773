/**
 * Startup failures: credentials, protocol version, a CLI that dies at once. Each must fail fast
 * with an error that names the fix, still write the report and summary, and leak no secret.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { DEFAULT_CLI_VERSION } from '../../src/settings.js'
import { startModelServer } from '../../test-support/model-server.js'
import {
  cliBinary,
  cliPids,
  makeWorkspace,
  ROOT,
  runAction,
  waitGone,
  type Workspace
} from '../../test-support/action.js'

let workspace: Workspace
beforeEach(() => {
  workspace = makeWorkspace({ '.github/copilot-policy.yml': 'version: 1\nrules: []\n' })
})
afterEach(() => workspace.cleanup())

const STUB = path.join(ROOT, 'test-support', 'stub-cli.mjs')

/** Inputs of a BYOK run with the CLI at `cliPath` (no model is ever reached). */
const cliAt = (cliPath = STUB) => ({
  prompt: 'x',
  'cli-path': cliPath,
  'provider-type': 'openai',
  'provider-base-url': 'http://127.0.0.1:9/v1',
  model: 'm'
})

describe('startup', () => {
  it('fails before starting the CLI when there is no credential at all', async () => {
    const result = await runAction({ workspace, inputs: { prompt: 'x', 'github-token': '' } })
    expect(result.exitCode).not.toBe(0)
    expect(result.cliPids).toEqual([])
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/copilot-requests: write/)
    expect(result.report!.error?.message).toMatch(/Copilot Requests/)
    expect(result.summary).toMatch(/copilot-requests: write/)
  })

  it('hands the token over JSON-RPC, never in the CLI environment, and fails fast when it is rejected', async () => {
    const token = 'ghp_thisTokenIsNotValid1234567890'
    const environments: string[] = []
    const result = await runAction({
      workspace,
      inputs: { prompt: 'x', 'copilot-token': token, 'github-token': '' },
      onSpawn: (child) => {
        // Read the CLI's environment while it runs, as an agent's command could.
        const timer = setInterval(() => {
          for (const pid of cliPids(workspace)) {
            try {
              environments.push(fs.readFileSync(`/proc/${pid}/environ`, 'utf8'))
            } catch {
              // not started yet, or gone
            }
          }
        }, 10)
        child.on('exit', () => clearInterval(timer))
      }
    })
    expect(result.cliPids.length).toBeGreaterThan(0) // a CLI was started
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(environments.length).toBeGreaterThan(0)
    for (const environment of environments) expect(environment).not.toContain(token)
    expect(result.outputs.status).toBe('failed')
    // Offline, the CLI cannot validate the token it asked the action for: that is the rejection.
    expect(result.report!.error?.message).toMatch(/rejected the credential.*token validation/)
    expect(result.report!.error?.message).toMatch(/copilot-requests: write/)
    const log = result.stdout.replaceAll(`::add-mask::${token}`, '')
    expect(JSON.stringify(result.report) + log + result.summary).not.toContain(token)
  })

  it('fails fast on a CLI that speaks another protocol version', async () => {
    const result = await runAction({
      workspace,
      inputs: cliAt()
    })
    expect(result.cliPids.length).toBeGreaterThan(0) // a CLI was started
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/protocol version 99.*supports version 3/)
    expect(result.report!.error?.message).toMatch(/cli-version/)
  })

  it('reports the last stderr lines of a CLI that dies at startup', async () => {
    const result = await runAction({
      workspace,
      // the stub reads its mode from the environment: the workflow passes it on by name
      inputs: { ...cliAt(), 'env-passthrough': 'STUB_MODE' },
      env: { STUB_MODE: 'crash' }
    })
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/exited.*code 3/)
    expect(result.report!.error?.message).toContain('could not open the session store')
    expect(result.report!.error?.message).toMatch(/fix 'cli-path'/)
  })

  it('names a cli-path that cannot be executed, with the reason', async () => {
    const file = path.join(workspace.runnerTemp, 'not-executable')
    fs.writeFileSync(file, 'not a program\n', { mode: 0o644 })
    const result = await runAction({
      workspace,
      inputs: cliAt(file)
    })
    expect(result.outputs.status).toBe('failed')
    const message = result.report!.error?.message ?? ''
    expect(message).toMatch(/could not be started/)
    expect(message).toMatch(/EACCES/)
    expect(message).toContain(`The executable at 'cli-path' (${file})`)
  })

  it('starts the CLI from the tool cache (no cli-path, nothing to install)', async () => {
    // The runner's tool cache as the action's install leaves it (tc.cacheDir): the CLI's npm
    // prefix under copilot-cli/<version>/<arch>, and the .complete marker beside it.
    const entry = path.join(
      workspace.runnerTemp,
      'tool-cache',
      'copilot-cli',
      DEFAULT_CLI_VERSION,
      os.arch()
    )
    const binary = path.join(entry, 'node_modules', '.bin', 'copilot')
    fs.mkdirSync(path.dirname(binary), { recursive: true })
    fs.symlinkSync(cliBinary(), binary)
    fs.writeFileSync(`${entry}.complete`, '')
    const model = await startModelServer([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'cached CLI ran' } }] }
    ])
    try {
      const result = await runAction({
        workspace,
        inputs: {
          prompt: 'x',
          'cli-path': '', // offline: an install would fail
          model: 'claude-sonnet-4.5',
          'provider-type': 'openai',
          'provider-base-url': model.url
        }
      })
      expect(result.outputs.status).toBe('completed')
      expect(result.outputs.summary).toBe('cached CLI ran')
      expect(result.stdout).toContain(
        `Using the Copilot CLI ${DEFAULT_CLI_VERSION} from the tool cache`
      )
      expect(result.stdout).not.toContain('Installing')
      expect(result.cliPids.length).toBeGreaterThan(0) // a CLI was started
      expect(await waitGone(result.cliPids)).toEqual([])
    } finally {
      await model.close()
    }
  })

  it('mode check-policy validates and tests the policy without starting the CLI', async () => {
    workspace.write(
      '.github/copilot-policy.yml',
      'version: 1\nrules:\n  - { id: no-push, decision: deny, shell: ["git push*"] }\ntests:\n  - { shell: "git push origin main", expect: deny }\n'
    )
    const good = await runAction({ workspace, inputs: { mode: 'check-policy' } })
    expect(good.exitCode).toBe(0)
    expect(good.outputs.status).toBe('completed')
    expect(good.cliPids).toEqual([])
    expect(good.stdout).toMatch(/: 1 test passed/)

    workspace.write(
      '.github/copilot-policy.yml',
      'version: 1\nrules:\n  - { id: no-push, decision: deny, shell: ["git push*"] }\ntests:\n  - { shell: "git push origin main", expect: allow }\n'
    )
    const bad = await runAction({ workspace, inputs: { mode: 'check-policy' } })
    expect(bad.exitCode).not.toBe(0)
    expect(bad.outputs.status).toBe('failed')
    expect(bad.stdout).toMatch(/copilot-policy\.yml:5:\d+/)
  })
})
