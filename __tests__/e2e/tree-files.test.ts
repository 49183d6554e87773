/**
 * End to end on the real CLI, as the author of a hostile pull request: files of the checked-out
 * tree that are symlinks out of it carry nothing out. A `prompt-file` or `policy` linked to
 * /proc/self/environ (the action's environment) or to a secret file outside the workspace fails
 * the run before any session, quoting nothing; an AGENTS.md or .github/copilot-instructions.md
 * linked to a credential file in HOME never reaches the model (the CLI would read it by itself),
 * and is back as a link after the run.
 */
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer, type ModelServer } from '../../test-support/model-server.js'
import {
  EXAMPLE_POLICY,
  makeWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type ActionResult,
  type Workspace,
  withCliRuntime
} from '../../test-support/action.js'

const PROVIDER_KEY = 'sk-tree-files-provider-key-5d1c'
const GITHUB_TOKEN = 'ghs_treefilesgithubtoken0000000000000'
/** A secret only in the environment (a job-level `env:`), not an input the action knows. */
const ENV_SECRET = 'env-secret-value-7a9b3c'
/** A secret in a file outside the workspace. */
const FILE_SECRET = 'file-secret-value-4e8f21'
/** A registry credential in the fake HOME's ~/.docker/config.json. */
const DOCKER_AUTH = Buffer.from('octocat:docker-registry-password-9b2e').toString('base64')

const SECRETS = [PROVIDER_KEY, GITHUB_TOKEN, ENV_SECRET, FILE_SECRET, DOCKER_AUTH]

/** Every form of each secret that must not appear: exact and base64. */
function leaks(text: string): string[] {
  return SECRETS.flatMap((s) => [s, Buffer.from(s).toString('base64')]).filter((form) =>
    text.includes(form)
  )
}

/** Everything the run wrote or sent that an outsider could read. */
function everything(result: ActionResult, model: ModelServer): string {
  return [
    // the runner takes its masking commands out of the log
    result.stdout.replace(/^::add-mask::.*$/gm, ''),
    result.stderr,
    result.summary,
    JSON.stringify(result.outputs),
    JSON.stringify(result.report ?? null),
    ...model.requests.map((r) => JSON.stringify(r.body))
  ].join('\n')
}

describe('files of the tree that lead out of it', () => {
  let ws: Workspace
  let model: ModelServer
  let secretFile: string

  beforeEach(async () => {
    ws = makeWorkspace({ 'src/index.ts': 'export const answer = 42\n' })
    secretFile = path.join(path.dirname(ws.dir), 'secret.txt')
    fs.writeFileSync(secretFile, `token: ${FILE_SECRET}\n`)
    model = await startModelServer([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
  })
  afterEach(async () => {
    await model.close()
    ws.cleanup()
  })

  async function run(inputs: Record<string, string>): Promise<ActionResult> {
    const result = await runAction({
      workspace: ws,
      inputs: {
        ...scriptedInputs(model.url, inputs),
        'provider-api-key': PROVIDER_KEY,
        'github-token': GITHUB_TOKEN
      },
      env: { JOB_SECRET: ENV_SECRET }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    return result
  }

  it.each([
    ['/proc/self/environ', () => '/proc/self/environ'],
    ['a secret file outside the workspace', () => secretFile]
  ])('a prompt-file linked to %s fails the run before any session', async (_, target) => {
    fs.mkdirSync(path.join(ws.dir, '.github', 'copilot'), { recursive: true })
    fs.symlinkSync(target(), path.join(ws.dir, '.github', 'copilot', 'task.md'))
    const { prompt: _prompt, ...inputs } = scriptedInputs(model.url)
    const result = await runAction({
      workspace: ws,
      inputs: {
        ...inputs,
        'prompt-file': '.github/copilot/task.md',
        'provider-api-key': PROVIDER_KEY,
        'github-token': GITHUB_TOKEN
      },
      env: { JOB_SECRET: ENV_SECRET }
    })
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout).toMatch(
      /Input 'prompt-file' names '.*task\.md', which leads to '.*', outside the workspace/
    )
    expect(model.requests).toHaveLength(0)
    expect(leaks(everything(result, model))).toEqual([])
  })

  it.each([
    ['/proc/self/environ', () => '/proc/self/environ'],
    ['a secret file outside the workspace', () => secretFile]
  ])('a policy linked to %s fails the run before any session', async (_, target) => {
    fs.mkdirSync(path.join(ws.dir, '.github'), { recursive: true })
    fs.symlinkSync(target(), path.join(ws.dir, '.github', 'copilot-policy.yml'))
    const result = await run({})
    expect(result.exitCode).not.toBe(0)
    expect(result.outputs.status).toBe('failed')
    expect(result.stdout).toMatch(
      /Input 'policy' names '.*copilot-policy\.yml', which leads to '.*', outside the workspace/
    )
    expect(result.report?.error?.message).toMatch(/outside the workspace/)
    expect(result.report?.sessionId).toBeNull()
    expect(model.requests).toHaveLength(0)
    expect(leaks(everything(result, model))).toEqual([])
  })
})

describe('instruction files linked to a credential in HOME', () => {
  let ws: Workspace
  let home: string
  let model: ModelServer
  let result: ActionResult
  let seen: string
  const INSTRUCTIONS = 'CLAUDE-MD-INSTRUCTIONS-3c7d: answer briefly'

  beforeAll(async () => {
    ws = makeWorkspace({
      'src/index.ts': 'export const answer = 42\n',
      '.github/copilot-policy.yml': EXAMPLE_POLICY,
      // a plain instruction file still reaches the model: the check below is not vacuous
      'CLAUDE.md': `${INSTRUCTIONS}\n`
    })
    home = path.join(path.dirname(ws.dir), 'home')
    withCliRuntime(home)
    const docker = path.join(home, '.docker', 'config.json')
    fs.mkdirSync(path.dirname(docker), { recursive: true })
    fs.writeFileSync(docker, JSON.stringify({ auths: { 'ghcr.io': { auth: DOCKER_AUTH } } }))
    fs.symlinkSync(docker, path.join(ws.dir, 'AGENTS.md'))
    fs.symlinkSync(docker, path.join(ws.dir, '.github', 'copilot-instructions.md'))
    model = await startModelServer([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
    result = await runAction({
      workspace: ws,
      inputs: {
        ...scriptedInputs(model.url),
        'provider-api-key': PROVIDER_KEY,
        'github-token': GITHUB_TOKEN
      },
      env: { HOME: home, JOB_SECRET: ENV_SECRET }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    seen = model.requests.map((r) => JSON.stringify(r.body)).join('\n')
  }, 120_000)

  afterAll(async () => {
    await model.close()
    ws.cleanup()
  })

  it('runs the session to the end', () => {
    expect(result.outputs.status).toBe('completed')
    expect(model.requests.length).toBeGreaterThan(0)
  })

  it('never hands the credential to the model, nor writes it anywhere', () => {
    expect(seen).toContain(INSTRUCTIONS)
    expect(leaks(everything(result, model))).toEqual([])
    expect(seen).not.toContain('ghcr.io')
  })

  it('puts the links back as they were', () => {
    const docker = path.join(home, '.docker', 'config.json')
    expect(fs.readlinkSync(path.join(ws.dir, 'AGENTS.md'))).toBe(docker)
    expect(fs.readlinkSync(path.join(ws.dir, '.github', 'copilot-instructions.md'))).toBe(docker)
    expect(fs.readFileSync(docker, 'utf8')).toContain(DOCKER_AUTH)
  })

  it('names them in the report and the job summary', () => {
    const record = result.report?.instructionFiles
    expect(record?.restored).toBe(true)
    expect(record?.kept.map((file) => file.path)).toEqual([
      '.github/copilot-instructions.md',
      'AGENTS.md'
    ])
    for (const file of record?.kept ?? []) {
      expect(file.reason).toMatch(/^a symlink to .*config\.json, outside the workspace$/)
    }
    expect(result.summary).toContain('**Instruction files:**')
    expect(result.summary).toContain('AGENTS.md')
    // no policy violation: the audit's snapshot was taken with the files aside
    expect(result.report?.audit?.violations ?? []).toEqual([])
  })
})
