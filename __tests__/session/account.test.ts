/**
 * The methods that need the GitHub credential, at the JSON-RPC boundary: the model check before
 * the session (`models.list`) and the premium quota after it (`account.getQuota`), and fleet mode's
 * `session.fleet.start`. The real CLI offline (BYOK) answers the first two "Not authenticated", so
 * a stand-in CLI (test-support/fake-github-cli.mjs) answers them here, through the action's own
 * process, connection and session API; fleet mode reaching the real CLI is in __tests__/e2e.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ModelInfo } from '../../src/cli/protocol.js'
import { Connection } from '../../src/cli/connection.js'
import { CliProcess } from '../../src/cli/process.js'
import { CopilotApi } from '../../src/cli/session-api.js'
import { UserError } from '../../src/errors.js'
import { compilePolicy, type CompiledPolicy } from '../../src/policy/index.js'
import { toReport } from '../../src/reporting/report.js'
import type { Report } from '../../src/reporting/types.js'
import { checkModel, premiumQuota } from '../../src/session/account.js'
import { StateRecorder } from '../../src/session/recorder.js'
import { SessionRun, type Logger } from '../../src/session/run.js'
import {
  TEST_PROVIDER,
  testRunOptions,
  type TestRunOptions
} from '../../test-support/run-options.js'
import {
  EXAMPLE_POLICY,
  ROOT,
  makeWorkspace,
  runAction,
  type Workspace
} from '../../test-support/action.js'

const FAKE_CLI = path.join(ROOT, 'test-support', 'fake-github-cli.mjs')
const TOKEN = 'ghu_FixtureCopilotToken0123456789'

const MODELS = [
  {
    id: 'claude-sonnet-4.5',
    name: 'Claude Sonnet 4.5',
    capabilities: { supports: { vision: true }, limits: { max_context_window_tokens: 200000 } },
    policy: { state: 'enabled', terms: '' },
    billing: { multiplier: 1 },
    pickerCategory: 'powerful'
  },
  { id: 'gpt-5', name: 'GPT-5', capabilities: { supports: {}, limits: {} } },
  { id: 'o9-preview', name: 'o9', policy: { state: 'disabled', terms: '' } }
]
const QUOTA = {
  quotaSnapshots: {
    chat: { isUnlimitedEntitlement: true, entitlementRequests: -1, usedRequests: 0 },
    premium_interactions: {
      isUnlimitedEntitlement: false,
      entitlementRequests: 300,
      usedRequests: 72,
      usageAllowedWithExhaustedQuota: false,
      remainingPercentage: 76,
      overage: 0,
      overageAllowedWithExhaustedQuota: false,
      resetDate: '2026-12-01T00:00:00.000Z',
      somethingNew: { nested: true }
    }
  }
}

let dir: string
let policy: CompiledPolicy
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'account-test-'))
  policy = await compilePolicy('version: 1\nsandbox: { mode: off }\nrules: []\n', 'p.yml', dir)
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const lines: string[] = []
const log: Logger = {
  info: (line) => lines.push(line),
  warning: (line) => lines.push(`warning: ${line}`),
  debug: (line) => lines.push(`debug: ${line}`),
  group: (_name, work) => work()
}

interface Received {
  method: string
  params: Record<string, unknown> | undefined
}

/** Runs a session through the stand-in CLI; what it received, the report, or the error. */
async function runAgainst(
  script: Record<string, unknown>,
  options: Partial<TestRunOptions> = {}
): Promise<{ received: Received[]; report: Report; error?: unknown }> {
  const run = fs.mkdtempSync(path.join(dir, 'run-'))
  const scriptFile = path.join(run, 'script.json')
  const logFile = path.join(run, 'requests.log')
  fs.writeFileSync(scriptFile, JSON.stringify({ token: TOKEN, ...script }))
  const cli = new CliProcess({
    executable: FAKE_CLI,
    home: path.join(run, 'home'),
    env: { PATH: process.env.PATH, FAKE_CLI_SCRIPT: scriptFile, FAKE_CLI_LOG: logFile },
    // the stand-in reads its script from the environment, which is an allowlist
    passthrough: ['FAKE_CLI_*']
  })
  const recorder = new StateRecorder({
    startedAt: new Date().toISOString(),
    policySource: 'p.yml',
    workingDirectory: dir,
    secrets: [TOKEN]
  })
  let error: unknown
  try {
    const api = new CopilotApi(new Connection(cli))
    await api.connect()
    await new SessionRun(
      testRunOptions({
        api,
        policy,
        recorder,
        log,
        dir,
        gitHubToken: TOKEN,
        cliExited: cli.exited.then(() => 'The Copilot CLI exited'),
        scratchDir: path.join(run, 'scratch'),
        ...options,
        session: {
          model: 'claude-sonnet-4.5',
          provider: undefined,
          tokenRegistration: api.provideGitHubToken(TOKEN),
          ...options.session
        }
      })
    ).execute()
  } catch (caught) {
    error = caught
  } finally {
    await cli.kill()
  }
  const received = fs.existsSync(logFile)
    ? fs
        .readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Received)
    : []
  return {
    received,
    report: toReport(recorder.state, { endedAt: new Date().toISOString() }),
    ...(error === undefined ? {} : { error })
  }
}

const methods = (received: Received[]): string[] => received.map((r) => r.method)

describe('the model check (models.list), with the GitHub credential', () => {
  it('an unknown model fails before session.create, listing the models the account may use', async () => {
    const { received, error } = await runAgainst(
      { models: { models: MODELS }, quota: QUOTA },
      { session: { model: 'claude-sonet-4.5' } }
    )
    expect(error).toBeInstanceOf(UserError)
    const message = (error as Error).message
    expect(message).toContain("Input 'model' is 'claude-sonet-4.5'")
    expect(message).toContain('claude-sonnet-4.5, gpt-5')
    // a model the organization disabled is not offered
    expect(message).not.toContain('o9-preview')
    expect(methods(received)).toEqual(['connect', 'models.list'])
    // the credential went over the pipe, with the request
    expect(received[1]?.params).toEqual({ gitHubToken: TOKEN })
  })

  it('a listed model: the session is created, and the premium quota is in the report', async () => {
    const { received, report, error } = await runAgainst({
      models: { models: MODELS, auto: { tiers: [] } },
      quota: QUOTA
    })
    expect(error).toBeUndefined()
    expect(report.status).toBe('completed')
    const order = methods(received)
    expect(order.indexOf('models.list')).toBeLessThan(order.indexOf('session.create'))
    expect(order).toContain('session.send')
    expect(order).not.toContain('session.fleet.start')
    const quota = received.find((r) => r.method === 'account.getQuota')
    expect(quota?.params).toEqual({ gitHubToken: TOKEN })
    expect(order.indexOf('account.getQuota')).toBeGreaterThan(order.indexOf('session.send'))
    expect(report.quota).toEqual({
      premiumRemaining: 228,
      premiumEntitlement: 300,
      premiumUsed: 72,
      remainingPercentage: 76,
      unlimited: false,
      overage: 0,
      resetDate: '2026-12-01T00:00:00.000Z'
    })
    // the credential is in no report field
    expect(JSON.stringify(report)).not.toContain(TOKEN)
  })

  it('a CLI that cannot list the models: the run goes on, and no quota is reported without one', async () => {
    const { received, report, error } = await runAgainst({
      models: 'Method not found: models.list',
      quota: 'Method not found: account.getQuota'
    })
    expect(error).toBeUndefined()
    expect(report.status).toBe('completed')
    expect(methods(received)).toContain('session.create')
    expect(report.quota).toBeUndefined()
    expect(lines.some((line) => line.includes('Listing the models failed'))).toBe(true)
  })

  it('a quota result the action cannot read is left out; the run is not failed for it', async () => {
    const { report, error } = await runAgainst({
      models: { models: MODELS },
      quota: { quotaSnapshots: 'not an object' }
    })
    expect(error).toBeUndefined()
    expect(report.status).toBe('completed')
    expect(report.quota).toBeUndefined()
  })

  it('under a BYOK provider neither models.list nor account.getQuota is asked', async () => {
    const { received, report } = await runAgainst(
      { models: { models: [] }, quota: QUOTA },
      {
        gitHubToken: undefined,
        session: { provider: TEST_PROVIDER, model: 'my-local-model', tokenRegistration: undefined }
      }
    )
    expect(report.status).toBe('completed')
    expect(methods(received)).not.toContain('models.list')
    expect(methods(received)).not.toContain('account.getQuota')
  })
})

describe('fleet mode (session.fleet.start)', () => {
  it('sends the prompt with session.fleet.start instead of session.send', async () => {
    const { received, report } = await runAgainst(
      { models: { models: MODELS }, quota: QUOTA },
      { fleet: true }
    )
    expect(report.status).toBe('completed')
    expect(methods(received)).not.toContain('session.send')
    const fleet = received.filter((r) => r.method === 'session.fleet.start')
    expect(fleet.map((r) => r.params)).toEqual([
      { sessionId: 'fake-github-session', prompt: 'Fix the tests' }
    ])
    expect(methods(received).indexOf('session.mode.set')).toBeLessThan(
      methods(received).indexOf('session.fleet.start')
    )
  })

  it('a CLI that does not start fleet mode fails the run, saying so', async () => {
    const { error } = await runAgainst(
      { models: { models: MODELS }, quota: QUOTA, fleetStarted: false },
      { fleet: true }
    )
    expect((error as Error).message).toContain('did not start fleet mode')
  })
})

describe('checkModel', () => {
  const models = MODELS as ModelInfo[]
  it('accepts a listed model, exactly as listed', () => {
    expect(() => checkModel('gpt-5', models)).not.toThrow()
    expect(() => checkModel('GPT-5', models)).toThrow("Did you mean 'gpt-5'?")
  })
  it('names a disabled model as disabled', () => {
    expect(() => checkModel('o9-preview', models)).toThrow(/organization has disabled it/)
  })
  it('an empty list says so, with no model to pick', () => {
    expect(() => checkModel('gpt-5', [])).toThrow(/lists no model this GitHub account may use/)
  })
  it('a long list is cut, saying how many more', () => {
    const many = Array.from({ length: 45 }, (_, i) => ({ id: `m${i}` }))
    expect(() => checkModel('x', many)).toThrow(/m39, and 5 more; or leave it empty/)
  })
})

describe('premiumQuota', () => {
  it('unlimited: no remaining count, used still reported', () => {
    expect(
      premiumQuota({
        quotaSnapshots: {
          premium_interactions: {
            isUnlimitedEntitlement: true,
            entitlementRequests: -1,
            usedRequests: 9
          }
        }
      })
    ).toEqual({ premiumUsed: 9, remainingPercentage: 100, unlimited: true, overage: 0 })
  })
  it('over the entitlement: none left, the overage kept, the percentage computed when absent', () => {
    expect(
      premiumQuota({
        quotaSnapshots: {
          premium_interactions: { entitlementRequests: 50, usedRequests: 60, overage: 10 }
        }
      })
    ).toEqual({
      premiumRemaining: 0,
      premiumEntitlement: 50,
      premiumUsed: 60,
      remainingPercentage: 0,
      unlimited: false,
      overage: 10
    })
  })
  it('no premium snapshot, or one without counts: nothing to report', () => {
    expect(premiumQuota({ quotaSnapshots: { chat: { usedRequests: 1 } } })).toBeUndefined()
    expect(premiumQuota({ quotaSnapshots: { premium_interactions: {} } })).toBeUndefined()
    expect(premiumQuota({ quotaSnapshots: { premium_interactions: null } })).toBeUndefined()
  })
})

describe('the action with the GitHub credential (the stand-in CLI as cli-path)', () => {
  let workspace: Workspace
  beforeEach(() => {
    // The stand-in reads its script from RUNNER_TEMP, which the OS sandbox's wall around the CLI
    // hides: it is no Copilot CLI to confine, so it runs without the sandbox.
    workspace = makeWorkspace({
      '.github/copilot-policy.yml': `${EXAMPLE_POLICY.trimEnd()}\nsandbox: { mode: off }\n`
    })
  })
  afterEach(() => workspace.cleanup())

  async function action(script: Record<string, unknown>, inputs: Record<string, string>) {
    const scriptFile = path.join(workspace.runnerTemp, 'script.json')
    const logFile = path.join(workspace.runnerTemp, 'requests.log')
    fs.writeFileSync(scriptFile, JSON.stringify({ token: TOKEN, ...script }))
    const result = await runAction({
      workspace,
      inputs: {
        prompt: 'Do the task.',
        'copilot-token': TOKEN,
        'cli-path': FAKE_CLI,
        comment: 'off',
        'timeout-minutes': '1',
        'env-passthrough': 'FAKE_CLI_*',
        ...inputs
      },
      env: { FAKE_CLI_SCRIPT: scriptFile, FAKE_CLI_LOG: logFile }
    })
    const received = fs.existsSync(logFile)
      ? fs
          .readFileSync(logFile, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Received)
      : []
    return { result, received }
  }

  it('an unknown model fails the step before any session, with the list', async () => {
    const { result, received } = await action(
      { models: { models: MODELS }, quota: QUOTA },
      { model: 'gpt-4-turbo' }
    )
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout).toMatch(
      /::error::.*Input 'model' is 'gpt-4-turbo', which is not a model this GitHub account may use\. Set 'model' to one of: claude-sonnet-4\.5, gpt-5;/
    )
    expect(methods(received)).not.toContain('session.create')
    expect(result.report?.status).toBe('failed')
    expect((result.stdout + result.summary).replace(`::add-mask::${TOKEN}`, '')).not.toContain(
      TOKEN
    )
  })

  it('fleet: true sends the prompt in fleet mode; the quota reaches the report and the summary', async () => {
    const { result, received } = await action(
      { models: { models: MODELS }, quota: QUOTA },
      { model: 'gpt-5', fleet: 'true' }
    )
    expect(result.outputs.status).toBe('completed')
    expect(methods(received)).toContain('session.fleet.start')
    expect(methods(received)).not.toContain('session.send')
    expect(result.report?.quota?.premiumRemaining).toBe(228)
    expect(result.summary).toContain('**Premium requests quota:** 228 of 300 left (76%)')
  })
})
