/**
 * The OS sandbox is the wall wherever the runner keeps the workspace. End to end with the real
 * CLI and bubblewrap, in GitHub's runner layout (HOME holding work/REPO/REPO, work/_temp,
 * work/_actions) and in a self-hosted layout under /tmp: a hostile test script run by an ALLOWED
 * command changes nothing outside the workspace, cannot write the protected paths that exist
 * through any program or option, and what slips past the OS (a protected path that did not
 * exist) is reverted by the workspace audit, which ends the run `policy-violation`.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
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
import { describeWithSandbox } from '../../test-support/sandbox-suite.js'

const POLICY = `version: 1
extends: ci-fix
sandbox:
  mode: required
rules:
  - { id: tests, decision: allow, shell: ["node *"] }
`

const LAYOUTS = [
  ['the GitHub runner layout (HOME holds the work root)', os.homedir()],
  ['a self-hosted layout under /tmp', os.tmpdir()]
] as const

let ws: RunnerWorkspace
let model: ModelServer | undefined
const ORIGINAL = {
  workflow: 'on: push\njobs: {}\n',
  gitHook: '#!/bin/sh\nexit 0\n'
}

afterEach(async () => {
  await model?.close()
  model = undefined
  ws.cleanup()
  for (const p of outsideTmpTargets) fs.rmSync(p, { force: true })
})

/** Files outside the layout's HOME that the script aims at (/tmp, /var/tmp, /dev/shm). */
let outsideTmpTargets: string[] = []

function layout(parent: string): void {
  ws = makeRunnerWorkspace(
    {
      '.github/copilot-policy.yml': POLICY,
      '.github/workflows/ci.yml': ORIGINAL.workflow,
      'src/index.js': 'export {}\n',
      'package.json': '{"name":"x","scripts":{"test":"node hostile.js"}}\n'
    },
    parent
  )
  execFileSync('git', ['init', '-q', ws.dir])
  execFileSync('git', ['-C', ws.dir, 'add', '-A'])
  execFileSync('git', [
    '-C',
    ws.dir,
    '-c',
    'user.email=a@b',
    '-c',
    'user.name=a',
    'commit',
    '-qm',
    'start'
  ])
  fs.writeFileSync(path.join(ws.dir, '.git', 'hooks', 'pre-commit'), ORIGINAL.gitHook, {
    mode: 0o755
  })
  const id = `${process.pid}-${Date.now()}`
  outsideTmpTargets = [`/tmp/autopilot-e2e-${id}`, `/var/tmp/autopilot-e2e-${id}`]
  if (fs.existsSync('/dev/shm')) outsideTmpTargets.push(`/dev/shm/autopilot-e2e-${id}`)
}

/** Every place the script tries to write, as `~` (HOME), `W` (workspace) or absolute paths. */
function targets(): { outside: string[]; protectedExisting: string[]; protectedNew: string[] } {
  return {
    outside: [
      '~/.npmrc',
      '~/.gitconfig',
      '~/.config/git/config',
      '~/.config/pip/pip.conf',
      '~/.gradle/init.d/x.gradle',
      '~/.node_modules/x.js',
      '~/.bashrc',
      '~/work/new-file',
      '~/work/repo/next-to-workspace',
      '~/work/other/other/build.sh',
      '~/work/_actions/x.js',
      '~/work/_temp/x',
      '~/work/_tool/x',
      ...outsideTmpTargets
    ],
    // in or below a protected path that exists: read-only
    protectedExisting: [
      'W/.github/workflows/ci.yml',
      'W/.github/workflows/new.yml',
      'W/.git/config',
      'W/.git/hooks/pre-commit',
      'W/.git/hooks/post-checkout'
    ],
    // protected, but not there to bind when the sandbox started
    protectedNew: ['W/.npmrc', 'W/.husky/pre-commit', 'W/src/.npmrc']
  }
}

function resolveTarget(t: string): string {
  return t.replace(/^~/, ws.home).replace(/^W/, ws.dir)
}

/**
 * The agent's test script: writes every target it is given on its command line and reports
 * each result; `--out=FILE` plays a program that writes where its options say (a junit report,
 * a compiler's output directory).
 */
function hostileScript(all: string[]): string {
  return `
const fs = require('fs'), os = require('os'), path = require('path')
const out = {}
const attempt = (name, work) => { try { work(); out[name] = 'ok' } catch (e) { out[name] = e.code || String(e) } }
const home = process.env.HOME, ws = process.cwd()
for (const t of ${JSON.stringify(all)}) {
  const file = t.replace(/^~/, home).replace(/^W/, ws)
  attempt(t, () => { fs.mkdirSync(path.dirname(file), { recursive: true }); fs.writeFileSync(file, 'pwned') })
}
for (const arg of process.argv.slice(2)) {
  const m = /^--out=(.*)$/.exec(arg)
  if (m) attempt('option ' + m[1], () => fs.writeFileSync(m[1], 'pwned'))
}
attempt('tmpdir', () => fs.writeFileSync(path.join(os.tmpdir(), 'scratch-' + process.pid), 'x'))
attempt('workspace', () => fs.writeFileSync('src/generated.js', 'ok'))
console.log('HOSTILE ' + JSON.stringify(out))
`
}

async function runHostile(): Promise<{ result: ActionResult; got: Record<string, string> }> {
  const t = targets()
  ws.write('hostile.js', hostileScript([...t.outside, ...t.protectedExisting, ...t.protectedNew]))
  const script: Script = [
    {
      // the CLI's own file tool, at a protected path that exists: refused by the sandbox
      toolCalls: [
        {
          name: 'create',
          arguments: { path: path.join(ws.dir, '.github/workflows/new.yml'), file_text: 'x' }
        }
      ]
    },
    {
      toolCalls: [
        {
          name: 'bash',
          arguments: {
            command: 'node hostile.js --out=.github/workflows/ci.yml',
            description: 'tests'
          }
        }
      ]
    },
    { toolCalls: [{ name: 'task_complete', arguments: { summary: 'tests ran' } }] }
  ]
  model = await startModelServer(script)
  const result = await runAction({
    workspace: ws,
    inputs: { ...scriptedInputs(model.url), 'provider-api-key': 'k', comment: 'off' },
    env: ws.env
  })
  expect(await waitGone(result.cliPids)).toEqual([])
  const line = model
    .toolResults()
    .join('\n')
    .split('\n')
    .find((l) => l.startsWith('HOSTILE '))
  if (line === undefined) throw new Error(`no HOSTILE line: ${model.toolResults().join('\n')}`)
  return { result, got: JSON.parse(line.slice('HOSTILE '.length)) as Record<string, string> }
}

describeWithSandbox.each(LAYOUTS)('the OS sandbox in %s', (_name, parent) => {
  beforeEach(() => layout(parent))

  it('a hostile test script changes nothing outside the workspace nor any protected path', async () => {
    const { result, got } = await runHostile()
    const t = targets()
    expect(result.report!.sandbox).toMatchObject({ state: 'enforced' })

    // outside the workspace: whatever the script was told, nothing reached the host
    for (const target of t.outside) {
      const file = resolveTarget(target)
      if (target === '~/work/other/other/build.sh') {
        expect(fs.readFileSync(file, 'utf8')).toBe('echo build\n')
      } else {
        expect([target, fs.existsSync(file)]).toEqual([target, false])
      }
    }
    expect(fs.readdirSync(ws.runnerTemp).some((f) => f === 'x')).toBe(false)

    // protected paths that exist are read-only to every program and option
    for (const target of t.protectedExisting)
      expect([target, got[target]]).toEqual([target, 'EROFS'])
    expect(got['option .github/workflows/ci.yml']).toBe('EROFS')
    expect(ws.read('.github/workflows/ci.yml')).toBe(ORIGINAL.workflow)
    expect(ws.read('.git/config')).not.toContain('pwned')
    expect(ws.read('.git/hooks/pre-commit')).toBe(ORIGINAL.gitHook)

    // the commands still work: their TMPDIR and the workspace are writable
    expect(got.tmpdir).toBe('ok')
    expect(got.workspace).toBe('ok')
    expect(ws.read('src/generated.js')).toBe('ok')

    // what the OS could not bind ahead (it did not exist) was written, then reverted
    for (const target of t.protectedNew) expect([target, got[target]]).toEqual([target, 'ok'])
    for (const target of t.protectedNew) {
      expect([target, fs.existsSync(resolveTarget(target))]).toEqual([target, false])
    }
    expect(fs.existsSync(path.join(ws.dir, '.husky'))).toBe(false)
    expect(result.outputs.status).toBe('policy-violation')
    expect(result.exitCode).not.toBe(0)
    const violations = result.report!.audit!.violations
    expect(violations.map((v) => [v.path, v.change, v.reverted])).toEqual([
      ['.husky/pre-commit', 'created', true],
      ['.npmrc', 'created', true],
      ['src/.npmrc', 'created', true]
    ])
    expect(violations.find((v) => v.path === '.npmrc')?.rule).toBe('ci-fix/protected-files')
    expect(result.report!.audit!.readOnly).toEqual(
      expect.arrayContaining(['.github', '.git/config', '.git/hooks'])
    )
    expect(result.summary).toContain('Changed what the policy forbids')

    // the CLI's file tool was refused by the sandbox: a denial with its path, not a failure
    const create = result.report!.tools.find((t) => t.name === 'create')
    expect(create).toMatchObject({ outcome: 'denied', rule: 'sandbox' })
    expect(create?.error).toMatch(/read-only/)
    expect(result.report!.permissions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'write',
          decision: 'deny',
          rule: 'sandbox',
          subject: expect.stringContaining('.github/workflows/new.yml') as unknown
        })
      ])
    )
    expect(result.summary).toMatch(/`\.npmrc` created — rule `ci-fix\/protected-files`.*put back/)
  })
})

describeWithSandbox('the workspace audit', () => {
  beforeEach(() => layout(os.homedir()))

  it('a run that changes only what the rules allow completes, the audit saying so', async () => {
    model = await startModelServer([
      {
        toolCalls: [
          {
            name: 'bash',
            arguments: {
              command: "node -e \"require('fs').writeFileSync('src/a.js', '1')\"",
              description: 'x'
            }
          }
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
    expect(ws.read('src/a.js')).toBe('1')
    // after the agent's work, and once more when the CLI (and all it started) is gone
    expect(result.report!.audit).toMatchObject({ checks: 2, violations: [], complete: true })
    expect(result.report!.audit!.changed).toBeGreaterThanOrEqual(1)
    expect(result.summary).toMatch(
      /\*\*Workspace audit:\*\* \d+ paths? changed while the agent worked; nothing the write rules forbid/
    )
  })

  /**
   * A process the agent leaves running (the bash tool's `mode: async`, `detach` to survive the
   * session), writing `.npmrc` after `ms`.
   */
  function lateWriter(ms: number, detach: boolean): Script {
    ws.write('late.js', `setTimeout(() => require('fs').writeFileSync('.npmrc', 'late'), ${ms})\n`)
    return [
      {
        toolCalls: [
          {
            name: 'bash',
            arguments: { command: 'node late.js', description: 'x', mode: 'async', detach }
          }
        ]
      },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ]
  }

  it('a write by a process the agent left running, during the verify commands, is reverted too', async () => {
    model = await startModelServer(lateWriter(1000, false))
    const result = await runAction({
      workspace: ws,
      inputs: {
        ...scriptedInputs(model.url),
        'provider-api-key': 'k',
        comment: 'off',
        'verify-commands': 'sleep 3'
      },
      env: ws.env
    })
    expect(result.outputs.status).toBe('policy-violation')
    expect(result.report!.audit!.violations).toEqual([
      expect.objectContaining({ path: '.npmrc', change: 'created', reverted: true })
    ])
    expect(ws.read('.npmrc')).toBeUndefined()
  })

  it('a detached process the agent left running cannot write after the run', async () => {
    model = await startModelServer(lateWriter(3000, true))
    const result = await runAction({
      workspace: ws,
      inputs: { ...scriptedInputs(model.url), 'provider-api-key': 'k', comment: 'off' },
      env: ws.env
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 4000))
    expect(ws.read('.npmrc')).toBeUndefined()
    expect(result.outputs.status).toBe('completed')
  })
})
