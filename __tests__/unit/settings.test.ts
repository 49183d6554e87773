import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { readSettings, type InputReader } from '../../src/settings.js'

let workspace: string
beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-'))
})
afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }))

const read = (inputs: Record<string, string>) => {
  const input: InputReader = (name) => inputs[name] ?? ''
  return readSettings(input, { GITHUB_WORKSPACE: workspace, RUNNER_TEMP: workspace })
}

describe('settings', () => {
  it('reads prompt-file as a file of the tree: a symlink out of it is refused unread', () => {
    fs.writeFileSync(path.join(workspace, 'task.md'), ' the task \n')
    expect(read({ 'prompt-file': 'task.md' }).prompt).toBe('the task')
    fs.symlinkSync('/proc/self/environ', path.join(workspace, 'environ.md'))
    expect(() => read({ 'prompt-file': 'environ.md' })).toThrow(
      /^Input 'prompt-file' names '.*environ\.md', which leads to '\/proc\/\d+\/environ', outside the workspace/
    )
    expect(() => read({ 'prompt-file': 'missing.md' })).toThrow(/which does not exist/)
  })

  it('reads env-passthrough as names and globs, one a line, and names the line of a bad one', () => {
    expect(read({ prompt: 'x' }).envPassthrough).toEqual([])
    expect(
      read({ prompt: 'x', 'env-passthrough': 'NODE_OPTIONS\n# a comment\n\n  MY_APP_*  \n' })
        .envPassthrough
    ).toEqual(['NODE_OPTIONS', 'MY_APP_*'])
    expect(() => read({ prompt: 'x', 'env-passthrough': 'NODE_OPTIONS\nMY_APP=1' })).toThrow(
      /^Input 'env-passthrough', line 2: 'MY_APP=1' is not a variable name or a glob of \* and \?/
    )
  })

  it('refuses a working-directory that is a symlink out of the workspace', () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-elsewhere-'))
    try {
      fs.symlinkSync(elsewhere, path.join(workspace, 'sub'))
      expect(() => read({ prompt: 'x', 'working-directory': 'sub' })).toThrow(
        /Input 'working-directory' is '.*sub', which leads to '.*settings-elsewhere-.*', outside the workspace/
      )
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('reads numbers in plain decimal notation', () => {
    const settings = read({
      prompt: 'x',
      'timeout-minutes': '2.5',
      'max-autopilot-continues': '0',
      'command-timeout-seconds': '30',
      'issue-number': '42'
    })
    expect(settings.timeoutMs).toBe(150_000)
    expect(settings.maxAutopilotContinues).toBe(0)
    expect(settings.commandTimeoutMs).toBe(30_000)
    expect(settings.issueNumber).toBe(42)
  })

  it.each([
    ['timeout-minutes', '0'],
    ['timeout-minutes', '-1'],
    ['timeout-minutes', '1e3'],
    ['timeout-minutes', '0x10'],
    ['timeout-minutes', 'soon'],
    ['max-autopilot-continues', '1.5'],
    ['issue-number', 'abc'],
    ['issue-number', '0'],
    ['issue-number', '-3'],
    ['issue-number', '1.5'],
    ['issue-number', '99999999999999999999']
  ])("rejects %s: '%s', naming the input and the fix", (name, value) => {
    expect(() => read({ prompt: 'x', [name]: value })).toThrow(
      new RegExp(
        `Input '${name}' must be a .*got '${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'.*with:`
      )
    )
  })

  it('reads the issue-number input once, the way the comment target uses it', () => {
    expect(read({ prompt: 'x', 'issue-number': '#12' }).issueNumber).toBe(12)
    expect(read({ prompt: 'x', 'issue-number': '' }).issueNumber).toBeUndefined()
  })

  it('takes an http(s) BYOK endpoint and rejects anything else', () => {
    const ok = read({
      prompt: 'x',
      model: 'm',
      'provider-base-url': 'http://127.0.0.1:8080/v1',
      'provider-api-key': 'sk-secret'
    })
    expect(ok.provider).toEqual({
      type: 'openai',
      baseUrl: 'http://127.0.0.1:8080/v1',
      apiKey: 'sk-secret'
    })
    expect(ok.secrets).toContain('sk-secret')
    for (const url of ['127.0.0.1:8080', 'file:///etc/passwd', 'not a url']) {
      expect(() => read({ prompt: 'x', model: 'm', 'provider-base-url': url })).toThrow(
        /provider-base-url/
      )
    }
  })

  it('takes the credentials in provider-base-url and the runner tokens as secrets', () => {
    const settings = readSettings(
      (name) =>
        ({
          prompt: 'x',
          model: 'm',
          'provider-base-url': 'https://gw.example.com/v1/gw-key-7Hq2LmX9pQ/chat?sig=Zm9vYmFy1'
        })[name] ?? '',
      {
        GITHUB_WORKSPACE: process.cwd(),
        ACTIONS_RUNTIME_TOKEN: 'runtime-token-123',
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-token-456'
      }
    )
    expect(settings.secrets).toEqual(
      expect.arrayContaining([
        'gw-key-7Hq2LmX9pQ',
        'Zm9vYmFy1',
        'runtime-token-123',
        'oidc-request-token-456'
      ])
    )
    expect(settings.secrets).not.toContain('chat')
  })

  it('never quotes a provider-base-url it cannot parse', () => {
    expect(() =>
      read({ prompt: 'x', model: 'm', 'provider-base-url': 'gw.example.com/v1/sk-12345678' })
    ).toThrow(/^(?!.*sk-12345678).*provider-base-url/s)
  })

  it('keeps the tree untrusted unless trusted-config is exactly true', () => {
    expect(read({ prompt: 'x' }).trustedConfig).toBe(false)
    expect(read({ prompt: 'x', 'trusted-config': 'false' }).trustedConfig).toBe(false)
    expect(read({ prompt: 'x', 'trusted-config': 'true' }).trustedConfig).toBe(true)
    for (const value of ['yes', 'TRUE', '1']) {
      expect(() => read({ prompt: 'x', 'trusted-config': value })).toThrow(
        /Input 'trusted-config' must be one of true, false/
      )
    }
  })
})

describe('settings for people in the loop', () => {
  it('reads the approval timing and the actor gate', () => {
    const settings = read({
      prompt: 'x',
      'approval-timeout-minutes': '0.5',
      'approval-poll-seconds': '2',
      'allowed-actors': 'dependabot[bot], @renovate[bot]\nocto-bot',
      'allow-any-actor': 'false'
    })
    expect(settings.approvalTimeoutMs).toBe(30_000)
    expect(settings.approvalPollMs).toBe(2_000)
    expect(settings.allowedActors).toEqual(['dependabot[bot]', 'renovate[bot]', 'octo-bot'])
    expect(settings.allowAnyActor).toBe(false)
    const defaults = read({ prompt: 'x' })
    expect([defaults.approvalTimeoutMs, defaults.approvalPollMs]).toEqual([600_000, 10_000])
  })

  it('polls at most once a second', () => {
    expect(() => read({ prompt: 'x', 'approval-poll-seconds': '0.5' })).toThrow(
      /Input 'approval-poll-seconds' must be a positive number of at least 1, got '0\.5'/
    )
  })
})

describe('settings for the model and the repair loop', () => {
  it('takes the reasoning efforts the CLI accepts, and rejects others naming them', () => {
    expect(read({ prompt: 'x', 'reasoning-effort': 'xhigh' }).reasoningEffort).toBe('xhigh')
    expect(read({ prompt: 'x' }).reasoningEffort).toBeUndefined()
    expect(() => read({ prompt: 'x', 'reasoning-effort': 'max' })).toThrow(
      "Input 'reasoning-effort' must be one of low, medium, high, xhigh; got 'max'."
    )
  })

  it('verify-retries is a whole number, 0 by default', () => {
    expect(read({ prompt: 'x' }).verifyRetries).toBe(0)
    expect(read({ prompt: 'x', 'verify-retries': '3' }).verifyRetries).toBe(3)
    expect(() => read({ prompt: 'x', 'verify-retries': '1.5' })).toThrow(/verify-retries/)
  })
})

describe('settings for budgets', () => {
  it('max-tokens is a whole number; max-ai-credits a positive number; both unset by default', () => {
    const set = read({ prompt: 'x', 'max-tokens': '200000', 'max-ai-credits': '42.5' })
    expect([set.maxTokens, set.maxAiCredits]).toEqual([200_000, 42.5])
    expect(() => read({ prompt: 'x', 'max-ai-credits': '5' })).toThrow(/at least 30/)
    const unset = read({ prompt: 'x' })
    expect([unset.maxTokens, unset.maxAiCredits]).toEqual([undefined, undefined])
    expect(() => read({ prompt: 'x', 'max-tokens': '1e6' })).toThrow(/Input 'max-tokens'/)
  })
})

describe('the fleet input', () => {
  it('is off by default, on with true', () => {
    expect(read({ prompt: 'x' }).fleet).toBe(false)
    expect(read({ prompt: 'x', fleet: 'false' }).fleet).toBe(false)
    expect(read({ prompt: 'x', fleet: 'true' }).fleet).toBe(true)
  })

  it.each(['yes', 'TRUE', '1', 'on'])('refuses %s, naming the input and the fix', (value) => {
    expect(() => read({ prompt: 'x', fleet: value })).toThrow(
      `Input 'fleet' must be true or false, got '${value}'. Fix the 'with:' block of the step.`
    )
  })

  it('does not combine with plan-first: the error says why and what to set', () => {
    expect(() => read({ prompt: 'x', fleet: 'true', 'plan-first': 'true' })).toThrow(
      /Inputs 'fleet' and 'plan-first' are both true, but fleet mode starts the work at once .* Set one of them to false/
    )
    expect(read({ prompt: 'x', fleet: 'false', 'plan-first': 'true' }).planFirst).toBe(true)
  })
})
