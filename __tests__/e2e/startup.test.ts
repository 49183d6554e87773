/**
 * Startup failures: credentials, protocol version, a CLI that dies at once. Each must fail fast
 * with an error that names the fix, still write the report and summary, and leak no secret.
 */
import path from 'node:path'
import {
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

  it('fails fast when the CLI rejects the credential, naming the fix and never the token', async () => {
    const token = 'ghp_thisTokenIsNotValid1234567890'
    const result = await runAction({
      workspace,
      inputs: { prompt: 'x', 'copilot-token': token, 'github-token': '' }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/not signed in/)
    expect(result.report!.error?.message).toMatch(/copilot-requests: write/)
    const everything =
      JSON.stringify(result.report) +
      result.stdout.replaceAll(`::add-mask::${token}`, '') +
      result.summary
    expect(everything).not.toContain(token)
    expect(result.report!.sessionId).not.toBeNull()
  })

  it('fails fast on a CLI that speaks another protocol version', async () => {
    const result = await runAction({
      workspace,
      inputs: {
        prompt: 'x',
        'cli-path': STUB,
        'provider-type': 'openai',
        'provider-base-url': 'http://127.0.0.1:9/v1',
        model: 'm'
      }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/protocol version 99.*supports version 3/)
    expect(result.report!.error?.message).toMatch(/cli-version/)
  })

  it('reports the last stderr lines of a CLI that dies at startup', async () => {
    const result = await runAction({
      workspace,
      inputs: {
        prompt: 'x',
        'cli-path': STUB,
        'provider-type': 'openai',
        'provider-base-url': 'http://127.0.0.1:9/v1',
        model: 'm'
      },
      env: { STUB_MODE: 'crash' }
    })
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/exited.*code 3/)
    expect(result.report!.error?.message).toContain('could not open the session store')
  })
})
