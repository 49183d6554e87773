/**
 * A hostile pull request against the action itself (not the agent's policy): files of the
 * checked-out tree the action or the CLI reads outside the policy, the event payload, and what
 * the action publishes. Each test asserts the SECURE outcome: a failing test is a confirmed
 * finding.
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

/** A registry credential in the fake HOME's ~/.docker/config.json. */
const DOCKER_AUTH = Buffer.from('octocat:docker-registry-password-77f1').toString('base64')

describe('instruction files the action does not look at', () => {
  let ws: Workspace
  let model: ModelServer
  let home: string
  let docker: string

  function setup(files: Record<string, string>): void {
    ws = makeWorkspace({
      'src/index.ts': 'export const answer = 42\n',
      '.github/copilot-policy.yml': EXAMPLE_POLICY,
      ...files
    })
    home = path.join(path.dirname(ws.dir), 'home')
    withCliRuntime(home)
    docker = path.join(home, '.docker', 'config.json')
    fs.mkdirSync(path.dirname(docker), { recursive: true })
    fs.writeFileSync(docker, JSON.stringify({ auths: { 'ghcr.io': { auth: DOCKER_AUTH } } }))
  }

  afterEach(async () => {
    await model?.close()
    ws?.cleanup()
  })

  async function run(): Promise<{ result: ActionResult; seen: string }> {
    model = await startModelServer([
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
    const result = await runAction({
      workspace: ws,
      inputs: { ...scriptedInputs(model.url), 'provider-api-key': 'sk-hostile-pr-key-0001' },
      env: { HOME: home }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    const seen = model.requests.map((r) => JSON.stringify(r.body)).join('\n')
    return { result, seen }
  }

  it('more than 10,000 entries under .github/instructions: a .claude/rules link to ~/.docker/config.json never reaches the model', async () => {
    const pad: Record<string, string> = {}
    for (let i = 0; i < 10_001; i++) pad[`.github/instructions/pad/f${i}.txt`] = ''
    setup({ ...pad, '.claude/rules/plain.md': 'PLAIN-RULE-MARKER-91aa\n' })
    fs.symlinkSync(docker, path.join(ws.dir, '.claude', 'rules', 'style.md'))
    const { result, seen } = await run()
    // what the action cannot check is not handed to the CLI: the run is refused before a session
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/more than 10,000 entries.*trusted-config: true/s)
    expect(model.requests).toHaveLength(0)
    expect(seen.includes(DOCKER_AUTH)).toBe(false)
  }, 180_000)

  it('a link deeper than 16 directories under .claude/rules never reaches the model', async () => {
    const deep = '.claude/rules/' + Array.from({ length: 18 }, (_, i) => `d${i}`).join('/')
    setup({ [`${deep}/plain.md`]: 'DEEP-RULE-MARKER-5b2c\n' })
    fs.symlinkSync(docker, path.join(ws.dir, deep, 'style.md'))
    const { result, seen } = await run()
    expect(result.outputs.status).toBe('failed')
    expect(result.report!.error?.message).toMatch(/deeper than 16 levels/)
    expect(model.requests).toHaveLength(0)
    expect(seen.includes(DOCKER_AUTH)).toBe(false)
  }, 180_000)
})

describe('instruction file names in another letter case', () => {
  // The CLI matches instruction file names in any letter case (CLI 1.0.102: `claude.md`,
  // `Agents.md`, `gemini.md`, `.github/copilot-instructions.MD`, `x.INSTRUCTIONS.md`, `.claude/rules/x.MD`
  // are all read), the action's list only in the exact one.
  let ws: Workspace | undefined
  let model: ModelServer | undefined
  afterEach(async () => {
    await model?.close()
    ws?.cleanup()
  })

  it.each([
    ['claude.md'],
    ['Agents.md'],
    ['.github/copilot-instructions.MD'],
    ['.github/instructions/style.INSTRUCTIONS.md'],
    ['.claude/rules/style.MD']
  ])(
    '%s linked to ~/.docker/config.json never reaches the model',
    async (name) => {
      ws = makeWorkspace({
        'src/index.ts': 'export const answer = 42\n',
        '.github/copilot-policy.yml': EXAMPLE_POLICY
      })
      const home = path.join(path.dirname(ws.dir), 'home')
      withCliRuntime(home)
      const docker = path.join(home, '.docker', 'config.json')
      fs.mkdirSync(path.dirname(docker), { recursive: true })
      fs.writeFileSync(docker, JSON.stringify({ auths: { 'ghcr.io': { auth: DOCKER_AUTH } } }))
      fs.mkdirSync(path.dirname(path.join(ws.dir, name)), { recursive: true })
      fs.symlinkSync(docker, path.join(ws.dir, name))
      model = await startModelServer([
        { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
      ])
      const result = await runAction({
        workspace: ws,
        inputs: { ...scriptedInputs(model.url), 'provider-api-key': 'sk-hostile-pr-key-0001' },
        env: { HOME: home }
      })
      expect(await waitGone(result.cliPids)).toEqual([])
      const seen = model.requests.map((r) => JSON.stringify(r.body)).join('\n')
      expect(model.requests.length).toBeGreaterThan(0)
      expect(seen.includes(DOCKER_AUTH)).toBe(false)
    },
    120_000
  )
})
