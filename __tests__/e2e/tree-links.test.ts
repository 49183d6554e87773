/**
 * Files read from the tree, other names of them (issue 28, point 6), end to end on the real CLI:
 * a hard link is a regular file inside the tree whose data is an outside file's, so a hardlinked
 * `prompt-file` fails the run before any session and a hardlinked AGENTS.md never reaches the
 * model; the policy file is known by its real path, so when the policy input names a symlink, the
 * agent's write to the file it leads to is denied to the CLI's edit tool, and a shell write to it
 * is a violation the audit puts back.
 */
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer, type ModelServer } from '../../test-support/model-server.js'
import {
  makeWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type ActionResult,
  type Workspace,
  withCliRuntime
} from '../../test-support/action.js'

const PROVIDER_KEY = 'sk-tree-links-provider-key-2c9e'
const GITHUB_TOKEN = 'ghs_treelinksgithubtoken00000000000000'
/** A registry credential in the fake HOME's ~/.docker/config.json. */
const DOCKER_AUTH = Buffer.from('octocat:docker-registry-password-71d3').toString('base64')
/** A secret in a file outside the workspace. */
const FILE_SECRET = 'file-secret-value-hardlink-8a4c'

function leaks(text: string): string[] {
  return [PROVIDER_KEY, GITHUB_TOKEN, DOCKER_AUTH, FILE_SECRET].filter((s) => text.includes(s))
}

function everything(result: ActionResult, model: ModelServer): string {
  return [
    result.stdout.replace(/^::add-mask::.*$/gm, ''),
    result.stderr,
    result.summary,
    JSON.stringify(result.outputs),
    JSON.stringify(result.report ?? null),
    ...model.requests.map((r) => JSON.stringify(r.body))
  ].join('\n')
}

const credentials = {
  'provider-api-key': PROVIDER_KEY,
  'github-token': GITHUB_TOKEN,
  comment: 'off'
}

describe('a hardlinked prompt-file', () => {
  let ws: Workspace
  let model: ModelServer

  beforeEach(async () => {
    ws = makeWorkspace({ 'src/index.ts': 'export {}\n' })
    model = await startModelServer([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
  })
  afterEach(async () => {
    await model.close()
    ws.cleanup()
  })

  it('fails the run before any session, quoting nothing of it', async () => {
    const secretFile = path.join(path.dirname(ws.dir), 'secret.txt')
    fs.writeFileSync(secretFile, `token: ${FILE_SECRET}\n`)
    fs.mkdirSync(path.join(ws.dir, '.github', 'copilot'), { recursive: true })
    fs.linkSync(secretFile, path.join(ws.dir, '.github', 'copilot', 'task.md'))
    const { prompt: _prompt, ...inputs } = scriptedInputs(model.url)
    const result = await runAction({
      workspace: ws,
      inputs: { ...inputs, ...credentials, 'prompt-file': '.github/copilot/task.md' }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout).toMatch(
      /Input 'prompt-file' names '.*task\.md': a file with 2 names \(a hard link\)/
    )
    expect(model.requests).toHaveLength(0)
    expect(leaks(everything(result, model))).toEqual([])
  })
})

describe('a hardlinked AGENTS.md', () => {
  let ws: Workspace
  let home: string
  let model: ModelServer
  let result: ActionResult

  beforeAll(async () => {
    ws = makeWorkspace({ 'src/index.ts': 'export {}\n' })
    home = path.join(path.dirname(ws.dir), 'home')
    withCliRuntime(home)
    const docker = path.join(home, '.docker', 'config.json')
    fs.mkdirSync(path.dirname(docker), { recursive: true })
    fs.writeFileSync(docker, JSON.stringify({ auths: { 'ghcr.io': { auth: DOCKER_AUTH } } }))
    fs.linkSync(docker, path.join(ws.dir, 'AGENTS.md'))
    model = await startModelServer([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
    result = await runAction({
      workspace: ws,
      inputs: { ...scriptedInputs(model.url), ...credentials },
      env: { HOME: home }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
  }, 120_000)

  afterAll(async () => {
    await model.close()
    ws.cleanup()
  })

  it('is kept from the CLI: the credential reaches neither the model nor anything the run writes', () => {
    expect(result.outputs.status).toBe('completed')
    expect(model.requests.length).toBeGreaterThan(0)
    expect(leaks(everything(result, model))).toEqual([])
    expect(model.requests.map((r) => JSON.stringify(r.body)).join('\n')).not.toContain('ghcr.io')
  })

  it('is named in the report, and back as it was after the run', () => {
    const record = result.report?.instructionFiles
    expect(record?.restored).toBe(true)
    expect(record?.kept).toEqual([
      {
        path: 'AGENTS.md',
        reason: 'a hard link (2 names), whose data may be a file outside the workspace'
      }
    ])
    const stat = fs.statSync(path.join(ws.dir, 'AGENTS.md'))
    expect(stat.nlink).toBe(2)
    expect(stat.ino).toBe(fs.statSync(path.join(home, '.docker', 'config.json')).ino)
  })
})

describe('a policy input that is a symlink to another file of the tree', () => {
  const POLICY = `version: 1
extends: ci-fix
sandbox:
  mode: off
rules:
  - { id: edit-script, decision: allow, shell: ["node edit.js"] }
`
  let ws: Workspace
  let model: ModelServer
  let result: ActionResult

  beforeAll(async () => {
    ws = makeWorkspace({
      'policies/agent.yml': POLICY,
      'src/index.ts': 'export {}\n',
      // writes the policy through its real name, which no rule of the policy protects
      'edit.js': `require('fs').appendFileSync('policies/agent.yml', '  - { id: all, decision: allow, shell: ["*"] }\\n')\nconsole.log('EDITED')\n`
    })
    fs.mkdirSync(path.join(ws.dir, '.github'), { recursive: true })
    fs.symlinkSync('../policies/agent.yml', path.join(ws.dir, '.github', 'copilot-policy.yml'))
    model = await startModelServer([
      {
        toolCalls: [
          {
            name: 'edit',
            arguments: {
              path: path.join(ws.dir, 'policies', 'agent.yml'),
              old_str: 'mode: off',
              new_str: 'mode: off\n# edited'
            }
          }
        ]
      },
      { toolCalls: [{ name: 'bash', arguments: { command: 'node edit.js', description: 'e' } }] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
    result = await runAction({
      workspace: ws,
      inputs: { ...scriptedInputs(model.url), ...credentials }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
  }, 120_000)

  afterAll(async () => {
    await model.close()
    ws.cleanup()
  })

  it("denies the CLI's edit of the file the policy link leads to", () => {
    const edit = (result.report?.permissions ?? []).find((p) => p.kind === 'write')
    expect(edit).toMatchObject({ decision: 'deny', rule: 'policy-file' })
  })

  it("finds the shell's write to it a violation, and puts the policy back", () => {
    expect(model.toolResults().join('\n')).toContain('EDITED')
    expect(result.outputs.status).toBe('policy-violation')
    expect(result.report?.audit?.violations).toEqual([
      expect.objectContaining({
        path: 'policies/agent.yml',
        change: 'changed',
        rule: 'policy-file',
        reverted: true
      })
    ])
    expect(ws.read('policies/agent.yml')).toBe(POLICY)
    expect(fs.readlinkSync(path.join(ws.dir, '.github', 'copilot-policy.yml'))).toBe(
      '../policies/agent.yml'
    )
  })
})
