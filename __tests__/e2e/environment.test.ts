/**
 * The agent's environment is an allowlist (issue 28, point 3). End to end with the real CLI and
 * bubblewrap in GitHub's runner layout, with the job environment of the issue: a job-level
 * `TMPDIR: ${{ runner.temp }}` (and TMP, TEMP), the checkout's extraheader through git's
 * environment config (`GIT_CONFIG_VALUE_0=AUTHORIZATION: basic <base64 of x-access-token:TOKEN>`),
 * `NPM_CONFIG__AUTH=<base64 of the token>` and the provider key in base64 under a name nobody
 * could guess. The agent runs `env`, writes its temporary files and commits (git's own `gc --auto`
 * would run): no form of a secret reaches the model, the report, the outputs or the log; nothing
 * appears in RUNNER_TEMP on the host; git's housekeeping stays off, and the policy still lets the
 * agent's git commands run.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer, type ModelServer } from '../../test-support/model-server.js'
import {
  makeRunnerWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type ActionResult,
  type RunnerWorkspace
} from '../../test-support/action.js'
import { describeWithSandbox } from '../../test-support/sandbox-suite.js'
import { normalizeSecrets } from '../../src/text/safe-text.js'

const GITHUB_TOKEN = 'ghs_EnvAllowlistToken0123456789abcdefXYZ'
const PROVIDER_KEY = 'sk-env-allowlist-provider-key-4b7d2e'
const b64 = (text: string): string => Buffer.from(text).toString('base64')

const POLICY = `version: 1
extends: ci-fix
sandbox:
  mode: required
rules:
  - { id: probe, decision: allow, shell: ["env", "node probe.js", "git add -A", "git status --short"] }
`

/** Each command's marker in its output, and the files the probe writes. */
const MARK = 'agent-tmp-28'

function probeScript(runnerTemp: string): string {
  return `
const fs = require('fs'), os = require('os'), path = require('path'), cp = require('child_process')
const out = { tmpdir: os.tmpdir(), TMPDIR: process.env.TMPDIR ?? null, TMP: process.env.TMP ?? null, TEMP: process.env.TEMP ?? null }
const attempt = (name, work) => { try { work(); out[name] = 'ok' } catch (e) { out[name] = e.code || String(e) } }
attempt('os.tmpdir', () => fs.writeFileSync(path.join(os.tmpdir(), '${MARK}-tmpdir'), 'x'))
for (const name of ['TMPDIR', 'TMP', 'TEMP']) {
  const dir = process.env[name]
  if (dir) attempt(name + ' write', () => fs.writeFileSync(path.join(dir, '${MARK}-' + name), 'x'))
}
// the job's RUNNER_TEMP, where the job's TMPDIR pointed
attempt('runner temp', () => fs.writeFileSync(${JSON.stringify(path.join(runnerTemp, `${MARK}-direct`))}, 'x'))
for (const key of ['gc.auto', 'maintenance.auto']) {
  try { out[key] = cp.execFileSync('git', ['config', '--get', key]).toString().trim() } catch { out[key] = null }
}
console.log('PROBE ' + JSON.stringify(out))
`
}

/** Every file below `dir` whose name holds the marker. */
function marked(dir: string): string[] {
  const found: string[] = []
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name)
      if (entry.name.includes(MARK)) found.push(full)
      if (entry.isDirectory() && !entry.isSymbolicLink()) walk(full)
    }
  }
  walk(dir)
  return found
}

describeWithSandbox('the agent environment, from a job environment holding encoded secrets', () => {
  let ws: RunnerWorkspace
  let model: ModelServer
  let result: ActionResult
  let outputOf: (marker: string) => string

  beforeAll(async () => {
    ws = makeRunnerWorkspace({
      '.github/copilot-policy.yml': POLICY,
      'src/index.js': 'export {}\n',
      'package.json': '{"name":"x"}\n'
    })
    ws.write('probe.js', probeScript(ws.runnerTemp))
    execFileSync('git', ['init', '-q', ws.dir])
    const git = (...args: string[]): void => {
      execFileSync('git', ['-C', ws.dir, ...args])
    }
    git('config', 'user.email', 'a@b')
    git('config', 'user.name', 'a')
    // any loose object starts git's housekeeping, in the foreground: `gc --auto` after a commit
    // repacks and writes .git/info/refs (where no .git/info existed: nothing to bind read-only)
    git('config', 'gc.auto', '1')
    git('config', 'gc.autoDetach', 'false')
    git('config', 'maintenance.auto', 'true')
    git('add', '-A')
    git('commit', '-qm', 'start')
    // a checkout with many loose objects (git counts those in .git/objects/17 against gc.auto)
    const blobs = fs.mkdtempSync(path.join(ws.home, 'blobs-'))
    const files = Array.from({ length: 2000 }, (_, i) => {
      const file = path.join(blobs, String(i))
      fs.writeFileSync(file, `loose object ${i}\n`)
      return file
    })
    execFileSync('git', ['-C', ws.dir, 'hash-object', '-w', '--stdin-paths'], {
      input: files.join('\n')
    })
    fs.rmSync(blobs, { recursive: true, force: true })
    fs.rmSync(path.join(ws.dir, '.git', 'info'), { recursive: true, force: true })

    const bash = (command: string): { name: string; arguments: Record<string, unknown> } => ({
      name: 'bash',
      arguments: { command, description: command }
    })
    model = await startModelServer([
      { toolCalls: [bash('env')] },
      { toolCalls: [bash('node probe.js')] },
      { toolCalls: [bash('git add -A')] },
      { toolCalls: [bash('git status --short')] },
      { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
    ])
    ws.write('src/work.js', 'export const work = 1\n')
    result = await runAction({
      workspace: ws,
      inputs: {
        ...scriptedInputs(model.url),
        'provider-api-key': PROVIDER_KEY,
        'github-token': GITHUB_TOKEN,
        comment: 'off'
      },
      env: {
        ...ws.env,
        TMPDIR: ws.runnerTemp,
        TMP: ws.runnerTemp,
        TEMP: ws.runnerTemp,
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader',
        GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${b64(`x-access-token:${GITHUB_TOKEN}`)}`,
        NPM_CONFIG__AUTH: b64(GITHUB_TOKEN),
        BUILD_CACHE_BLOB: b64(PROVIDER_KEY)
      }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    const results = model.toolResults()
    outputOf = (marker) => results.find((r) => r.includes(marker)) ?? ''
  }, 120_000)

  afterAll(async () => {
    await model.close()
    ws.cleanup()
  })

  it('ran in the sandbox and completed', () => {
    expect(result.report?.sandbox).toMatchObject({ state: 'enforced' })
    expect(result.outputs.status).toBe('completed')
    expect(result.exitCode).toBe(0)
  })

  it('no form of a secret reaches the model, the report, the outputs or the log', () => {
    const forms = [
      ...normalizeSecrets([GITHUB_TOKEN, PROVIDER_KEY]),
      b64(`x-access-token:${GITHUB_TOKEN}`),
      b64(GITHUB_TOKEN),
      b64(PROVIDER_KEY)
    ]
    const everything = [
      result.stdout.replace(/^::add-mask::.*$/gm, ''),
      result.stderr,
      result.summary,
      JSON.stringify(result.outputs),
      JSON.stringify(result.report ?? null),
      ...model.requests.map((r) => JSON.stringify(r.body))
    ].join('\n')
    expect(forms.filter((form) => everything.includes(form))).toEqual([])
    // the agent's `env` ran, and shows what the action passes
    const env = outputOf('PATH=')
    expect(env).toContain('GIT_CONFIG_KEY_0=gc.auto')
    for (const name of ['NPM_CONFIG__AUTH', 'BUILD_CACHE_BLOB', 'AUTHORIZATION', 'RUNNER_TEMP=']) {
      expect([name, env.includes(name)]).toEqual([name, false])
    }
  })

  it('names what it kept from the agent in the report and the log, never a value', () => {
    const dropped = result.report?.environment?.dropped ?? []
    expect(dropped).toEqual(
      expect.arrayContaining([
        { name: 'GIT_CONFIG_VALUE_0', reason: 'secret' },
        { name: 'NPM_CONFIG__AUTH', reason: 'secret' },
        { name: 'BUILD_CACHE_BLOB', reason: 'secret' }
      ])
    )
    expect(result.stdout).toMatch(
      /not passed: [^\n]*BUILD_CACHE_BLOB, GIT_CONFIG_VALUE_0, [^\n]*NPM_CONFIG__AUTH/
    )
  })

  it("puts the commands' temporary files in the sandbox's scratch, never the job's RUNNER_TEMP", () => {
    const line = outputOf('PROBE ')
      .split('\n')
      .find((l) => l.startsWith('PROBE '))
    const probe = JSON.parse(line?.slice('PROBE '.length) ?? '{}') as Record<string, unknown>
    expect(probe.tmpdir).not.toBe(ws.runnerTemp)
    expect([probe.TMPDIR, probe.TMP, probe.TEMP]).not.toContain(ws.runnerTemp)
    expect(probe['os.tmpdir']).toBe('ok')
    // nothing the agent wrote reached the host: not RUNNER_TEMP, not HOME, not /tmp
    expect(marked(ws.home)).toEqual([])
    expect(fs.readdirSync('/tmp').filter((name) => name.includes(MARK))).toEqual([])
  })

  it("keeps git's housekeeping off, and the policy still lets the agent's git commands run", () => {
    const probe = outputOf('PROBE ')
    expect(probe).toContain('"gc.auto":"0"')
    expect(probe).toContain('"maintenance.auto":"false"')
    const gitRequests = (result.report?.permissions ?? []).filter((p) =>
      p.subject.startsWith('git ')
    )
    expect(gitRequests.map((p) => [p.subject, p.decision])).toEqual([
      ['git add -A', 'allow'],
      ['git status --short', 'allow']
    ])
    // (a commit of the agent's would move a ref, which the audit puts back: not this test's
    // subject) git's gc did not run (no repack, no .git/info/refs)
    expect(fs.existsSync(path.join(ws.dir, '.git', 'info', 'refs'))).toBe(false)
    expect(result.report?.audit?.violations ?? []).toEqual([])
  })
})
