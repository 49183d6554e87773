/**
 * Setup and verify commands without network say so (issue 28): which command lines obviously
 * download, what the warning before one says, and the hint a failed command without network adds
 * to the run's error, the comment and the job summary.
 */
import { renderComment, renderSummary } from '../../src/reporting/render.js'
import type { CommandRecord } from '../../src/reporting/types.js'
import { toReport } from '../../src/reporting/report.js'
import { createState, fold, settle, type RunInput } from '../../src/session/fold.js'
import {
  fetcherIn,
  noNetworkHint,
  noNetworkWarning,
  ranWithoutNetwork
} from '../../src/wall/command-network.js'

describe('fetcherIn: commands that obviously download', () => {
  it.each([
    ['npm ci', 'npm ci', 'registry.npmjs.org'],
    ['npm install --no-audit', 'npm install', 'registry.npmjs.org'],
    ['npm i -D typescript', 'npm i', 'registry.npmjs.org'],
    ['yarn', 'yarn', 'registry.yarnpkg.com'],
    ['yarn --frozen-lockfile', 'yarn', 'registry.yarnpkg.com'],
    ['pnpm install --frozen-lockfile', 'pnpm install', 'registry.npmjs.org'],
    ['bun install', 'bun install', 'registry.npmjs.org'],
    ['pip install -r requirements.txt', 'pip install', 'pypi.org'],
    ['python3 -m pip install -e .', 'pip install', 'pypi.org'],
    ['poetry install', 'poetry install', 'pypi.org'],
    ['bundle install', 'bundle install', 'rubygems.org'],
    ['bundle', 'bundle', 'rubygems.org'],
    ['cargo fetch', 'cargo fetch', 'index.crates.io'],
    ['go mod download', 'go mod download', 'proxy.golang.org'],
    ['sudo apt-get install -y jq', 'apt-get install', undefined],
    ['curl -fsSL https://example.com/install.sh -o i.sh', 'curl', 'example.com'],
    ['wget http://user@Mirror.example.org:8080/x.tgz', 'wget', 'mirror.example.org'],
    ['git clone git@github.com:octo/lib.git vendor/lib', 'git clone', 'github.com'],
    ['git submodule update --init', 'git submodule update', undefined],
    // in a list, a pipeline, behind variables and wrappers
    ['cd app && CI=1 npm ci', 'npm ci', 'registry.npmjs.org'],
    ['echo start; timeout 300 npm ci', 'npm ci', 'registry.npmjs.org'],
    ['env NODE_ENV=test /usr/bin/npm ci', 'npm ci', 'registry.npmjs.org'],
    ["bash -c 'npm ci && npm test'", 'npm ci', 'registry.npmjs.org'],
    ['curl -s https://get.example.dev | sh', 'curl', 'get.example.dev']
  ])('%s: %s', (line, what, host) => {
    expect(fetcherIn(line)).toEqual({ what, ...(host === undefined ? {} : { host }) })
  })

  it.each([
    'npm test',
    'npm run build',
    'npx tsc --noEmit',
    'yarn test',
    'pytest -q',
    'cargo build --release',
    'cargo test',
    'go test ./...',
    'make',
    'git status',
    'git log --grep fetch',
    'echo npm ci',
    'node scripts/install.js'
  ])('%s: not a download', (line) => {
    expect(fetcherIn(line)).toBeUndefined()
  })
})

describe('what the action says', () => {
  it('the warning before the command names it, what downloads, and both fixes', () => {
    const warning = noNetworkWarning('setup', 'npm ci', {
      what: 'npm ci',
      host: 'registry.npmjs.org'
    })
    expect(warning).toContain('The setup command `npm ci` downloads (`npm ci`)')
    expect(warning).toContain('without network')
    expect(warning).toContain('command-timeout-seconds')
    expect(warning).toContain('`- { decision: allow, url: ["registry.npmjs.org"] }`')
    expect(warning).toContain("through the action's proxy, and no other")
    expect(warning).not.toContain('whole network')
    expect(warning).toContain('`unconfined-commands`')
  })

  it('the hint of a failed command: with the host when the command names one, without otherwise', () => {
    expect(noNetworkHint('curl -fsS https://example.invalid/x')).toContain(
      'url: ["example.invalid"]'
    )
    const plain = noNetworkHint('node test.js')
    expect(plain).toContain('It ran without network')
    expect(plain).toContain('allow its host with a `url` rule')
    expect(plain).toContain('`unconfined-commands`')
  })

  it('only a command behind the wall with network none ran without network', () => {
    expect(ranWithoutNetwork({ confinement: 'sandboxed', network: 'none' })).toBe(true)
    expect(ranWithoutNetwork({ confinement: 'sandboxed', network: 'proxy' })).toBe(false)
    expect(ranWithoutNetwork({ confinement: 'sandboxed', network: 'shared' })).toBe(false)
    expect(ranWithoutNetwork({ confinement: 'unconfined' })).toBe(false)
    expect(ranWithoutNetwork({ confinement: 'no-sandbox' })).toBe(false)
    expect(ranWithoutNetwork({})).toBe(false)
  })
})

describe('a failed command without network: the hint reaches the error, the comment and the summary', () => {
  const record = (
    phase: 'setup' | 'verify',
    network: 'none' | 'proxy',
    exitCode: number | null,
    refused?: CommandRecord['refused']
  ): CommandRecord => ({
    ...(refused === undefined ? {} : { refused }),
    phase,
    confinement: 'sandboxed',
    network,
    command: phase === 'setup' ? 'npm ci' : 'npm test',
    exitCode,
    timedOut: exitCode === null,
    durationMs: 5000,
    outputTail: 'npm error network request failed'
  })

  function run(...inputs: RunInput[]): ReturnType<typeof toReport> {
    const state = createState({
      startedAt: '2026-11-23T10:00:00.000Z',
      policySource: '.github/copilot-policy.yml',
      workingDirectory: '/ws',
      maxAutopilotContinues: 5
    })
    for (const input of inputs) fold(state, input)
    return toReport(state, { endedAt: '2026-11-23T10:05:00.000Z' })
  }

  it('a setup command that timed out without network', () => {
    const report = run(
      { type: 'command', record: record('setup', 'none', null) },
      { type: 'ended', ending: { kind: 'setup-failed' } }
    )
    expect(report.status).toBe('failed')
    expect(report.error?.message).toContain('the agent was not started. It ran behind the OS')
    expect(report.error?.message).toContain('url: ["registry.npmjs.org"]')
    const comment = renderComment(report, { marker: '<!-- m -->' })
    expect(comment).toContain('📵 It ran behind the OS sandbox without network')
    expect(comment).toContain('`unconfined-commands`')
    expect(renderSummary(report)).toContain('📵 It ran behind the OS sandbox without network')
  })

  it('a verify command that failed without network', () => {
    const state = createState({
      startedAt: '2026-11-23T10:00:00.000Z',
      policySource: '.github/copilot-policy.yml',
      workingDirectory: '/ws',
      maxAutopilotContinues: 5
    })
    fold(state, {
      type: 'event',
      event: { type: 'session.task_complete', data: { summary: 'done' } }
    })
    fold(state, { type: 'command', record: record('verify', 'none', 1) })
    fold(state, { type: 'ended', ending: { kind: 'idle' } })
    const settled = settle(state)
    expect(settled.status).toBe('verify-failed')
    expect(settled.error?.message).toContain('failed. It ran without network')
  })

  it('with the network (a url rule allows a host) and nothing refused, no hint', () => {
    const report = run(
      { type: 'command', record: record('setup', 'proxy', 1) },
      { type: 'ended', ending: { kind: 'setup-failed' } }
    )
    expect(report.error?.message).not.toContain('without network')
    expect(report.error?.message).not.toContain('refused')
    expect(renderComment(report, { marker: '<!-- m -->' })).not.toContain('📵')
    expect(renderComment(report, { marker: '<!-- m -->' })).not.toContain('🚫')
  })

  it('behind the proxy, the hosts it refused and the fix reach the error, the comment and the summary', () => {
    const refused = [
      { target: 'registry.npmjs.org:443', reason: 'no url allow rule matches it', attempts: 3 },
      {
        target: '169.254.169.254:80',
        reason: 'it resolves to 169.254.169.254 (cloud metadata)',
        attempts: 1
      }
    ]
    const report = run(
      { type: 'command', record: record('setup', 'proxy', 1, refused) },
      { type: 'ended', ending: { kind: 'setup-failed' } }
    )
    expect(report.commands[0]?.refused).toEqual(refused)
    expect(report.error?.message).toContain(
      'The network proxy refused it registry.npmjs.org:443 (no url allow rule matches it) and 1 other.'
    )
    expect(report.error?.message).toContain('url: ["registry.npmjs.org"]')
    const comment = renderComment(report, { marker: '<!-- m -->' })
    expect(comment).toContain('🚫 The network proxy refused it registry.npmjs.org:443')
    expect(comment).toContain(
      '🚫 **Network refused** to a setup command: `registry.npmjs.org:443` and 1 more'
    )
    const summary = renderSummary(report)
    expect(summary).toContain("🛡️ sandboxed, the policy's hosts")
    expect(summary).toContain(
      '🚫 The network proxy refused `registry.npmjs.org:443` (no url allow rule matches it, 3×), `169.254.169.254:80` (it resolves to 169.254.169.254 (cloud metadata))'
    )
  })
})
