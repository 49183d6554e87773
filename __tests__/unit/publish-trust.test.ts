/**
 * Publish trusts nothing it did not check (issue 29), the pure parts: credentials by format and
 * by value, proposals judged again, branches long-lived by name, the policy file by its real
 * path, the agent step's refusal of a file holding a secret it knows, and the one door every
 * writer passes (report JSON, outputs, job summary, comment) walked with a secret planted in every
 * field the agent controls.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadPolicy, type CompiledPolicy } from '../../src/policy/index.js'
import {
  CREDENTIAL_FORMATS,
  credentialByFormat,
  findCredential,
  knownSecret
} from '../../src/text/credential-formats.js'
import { normalizeSecrets } from '../../src/text/safe-text.js'
import { judgeProposals, labelAllowed } from '../../src/modes/publish-judge.js'
import { branchMatches, longLivedReason } from '../../src/modes/publish-branch.js'
import { policyFileMatcher } from '../../src/modes/publish.js'
import { SafeOutputs } from '../../src/session/safe-outputs.js'
import { secretInPatch } from '../../src/session/write-back.js'
import { addSecrets } from '../../src/log.js'
import { publish } from '../../src/reporting/publish.js'
import type { Report, SafeOutputProposal } from '../../src/reporting/types.js'
import { readSettings } from '../../src/settings.js'
import { startFakeGitHub } from '../../test-support/github-api.js'
import { commentPublisher } from '../../src/reporting/publish.js'
import { EXAMPLE_POLICY } from '../../test-support/action.js'
import { sampleReport } from '../reporting/sample-reports.js'

let dir: string
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'publish-trust-'))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// Test values shaped like the real formats (none is a live credential).
const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`
const SAMPLES: Record<string, string> = {
  'a GitHub token': `token = "${GITHUB_TOKEN}"`,
  'a GitHub fine-grained token': `github_pat_${'11ABCDEFG0'.repeat(3)}_xyz`,
  'a private key': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n',
  'an AWS access key id': 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
  'a Google API key': `key=AIza${'Sy0123456789abcdefghijklmnopqrstuvw'}`,
  'a Slack token': 'xoxb-1234567890-abcdefghij',
  'an npm token': `//registry.npmjs.org/:_authToken=npm_${'abcdefghij'.repeat(4)}`
}

describe('credentials by format', () => {
  it.each(CREDENTIAL_FORMATS.map((f) => f.name))('finds %s, and says on which line', (name) => {
    const sample = SAMPLES[name] ?? ''
    expect(credentialByFormat(`first line\nsecond\n${sample}`)).toEqual({ what: name, line: 3 })
  })

  it.each([
    'ghp_short',
    'the ghp_ prefix in prose',
    '-----BEGIN PUBLIC KEY-----',
    'AKIA is a prefix',
    'xoxb- alone',
    'npm_config_cache=/tmp/npm'
  ])('leaves %j alone', (text) => {
    expect(credentialByFormat(text)).toBeUndefined()
  })

  it('finds a secret this job knows in any encoding the redactor knows, never naming it', () => {
    const secrets = normalizeSecrets(['planted-secret-value'])
    const b64 = Buffer.from('user:planted-secret-value').toString('base64')
    expect(knownSecret(`a\nAuthorization: Basic ${b64}\n`, secrets)).toEqual({
      what: 'a secret this job knows',
      line: 2
    })
    expect(knownSecret('x=planted%2Dsecret-value', secrets)).toBeUndefined() // not an encoding of it
    expect(findCredential('q=planted-secret-value', secrets)?.what).toBe('a secret this job knows')
  })
})

describe('every proposal judged again', () => {
  let policy: CompiledPolicy
  beforeAll(async () => {
    const root = path.join(dir, 'judge')
    fs.mkdirSync(path.join(root, '.github'), { recursive: true })
    fs.writeFileSync(
      path.join(root, '.github', 'copilot-policy.yml'),
      `${EXAMPLE_POLICY}  - { id: prs, decision: allow, tool: ["propose_pull_request", "add_labels", "add_comment"] }
  - { id: no-issues, decision: deny, tool: ["create_issue"] }
`
    )
    policy = await loadPolicy({ path: '.github/copilot-policy.yml', workingDirectory: root })
  })

  const context = (over: Partial<Parameters<typeof judgeProposals>[1]> = {}) => ({
    enabled: ['pull-request', 'labels', 'comment', 'issue'] as const,
    decideTool: (toolName: string) => policy.decide({ kind: 'custom-tool', toolName }),
    allowedLabels: ['bug', 'area/*'],
    labelExists: (name: string) => Promise.resolve(name !== 'area/ghost'),
    secrets: normalizeSecrets(['planted-secret-value']),
    ...over
  })
  const pr: SafeOutputProposal = { kind: 'pull-request', title: 'Fix', body: 'b', draft: true }

  // Broken before: publish applied every proposal in the file, whatever its own inputs said.
  it('refuses a kind the publish step does not enable, and a tool its policy denies', async () => {
    const issue: SafeOutputProposal = { kind: 'issue', title: 'Rotate', body: 'now', labels: [] }
    const comment: SafeOutputProposal = { kind: 'comment', body: 'hi' }
    const judged = await judgeProposals(
      [pr, comment, issue],
      context({ enabled: ['pull-request', 'issue'] })
    )
    expect(judged.accepted).toEqual([pr])
    expect(judged.refused).toEqual([
      "Proposal 2 (comment) was refused: the publish step's input 'safe-outputs' does not enable comment.",
      expect.stringMatching(
        /^Proposal 3 \(issue\) was refused: the policy does not allow create_issue \(rule no-issues/
      )
    ])
  })

  // Broken before: any label name was added (automerge, ok-to-test).
  it('keeps only labels allowed-labels names that the repository has', async () => {
    const judged = await judgeProposals(
      [{ kind: 'labels', labels: ['BUG', 'automerge', 'area/api', 'area/ghost', 'ok-to-test'] }],
      context()
    )
    expect(judged.accepted).toEqual([{ kind: 'labels', labels: ['BUG', 'area/api'] }])
    expect(judged.refused).toEqual([
      expect.stringMatching(/label automerge was refused: it is not in .*allowed-labels/),
      expect.stringMatching(/label area\/ghost was refused: the repository has no label/),
      expect.stringMatching(/label ok-to-test was refused/)
    ])
    const none = await judgeProposals(
      [{ kind: 'labels', labels: ['bug'] }],
      context({ allowedLabels: [] })
    )
    expect(none).toEqual({
      accepted: [],
      refused: [expect.stringMatching(/'allowed-labels' is empty \(labels need it\)/)]
    })
    expect(labelAllowed('Area/API', ['area/*'])).toBe(true)
    expect(labelAllowed('area', ['area/*'])).toBe(false)
  })

  it('refuses a proposal holding a credential, naming the field and line, never the value', async () => {
    const judged = await judgeProposals(
      [
        { ...pr, body: `ok\nleaked ${GITHUB_TOKEN}` },
        { kind: 'labels', labels: ['planted-secret-value'] }
      ],
      context({ allowedLabels: ['*'] })
    )
    expect(judged.accepted).toEqual([])
    expect(judged.refused).toEqual([
      'Proposal 1 (pull-request) was refused: its body holds a GitHub token (line 2).',
      'Proposal 2 (labels) was refused: its label 1 holds a secret this job knows (line 1).'
    ])
    expect(judged.refused.join()).not.toContain(GITHUB_TOKEN)
    expect(judged.refused.join()).not.toContain('planted-secret-value')
  })
})

describe('branches long-lived by name', () => {
  it.each([
    ['main', 'is a long-lived branch (main)'],
    ['Master', 'is a long-lived branch (master)'],
    ['release/1.0', 'is a long-lived branch (release/**)'],
    ['release/1.0/hotfix', 'is a long-lived branch (release/**)'],
    ['hotfix/urgent', 'is a long-lived branch (hotfix/**)'],
    ['gh-pages', 'is a long-lived branch (gh-pages)'],
    ['production', 'is a long-lived branch (production)'],
    ['trunk', 'is the default branch'],
    ['next', "is the pull request's base branch"],
    ['deploy/eu', "is a long-lived branch (deploy/*, input 'protected-branches')"]
  ])('%s %s', (branch, reason) => {
    expect(
      longLivedReason(branch, { defaultBranch: 'trunk', baseBranch: 'next', extra: ['deploy/*'] })
    ).toBe(reason)
  })

  it.each(['feature/x', 'fix-release', 'releases', 'copilot/42', 'deploy/eu/x'])(
    '%s is a review branch by name',
    (branch) => {
      expect(
        longLivedReason(branch, { defaultBranch: 'trunk', baseBranch: 'next', extra: ['deploy/*'] })
      ).toBeUndefined()
    }
  )

  it('matches * within a segment and ** at any depth', () => {
    expect(branchMatches('release/**', 'release')).toBe(true)
    expect(branchMatches('a/*/c', 'a/b/c')).toBe(true)
    expect(branchMatches('a/*/c', 'a/b/x/c')).toBe(false)
    expect(branchMatches('a.b', 'axb')).toBe(false)
  })
})

describe('the policy file by its real path', () => {
  // Broken before: the check compared names, so a patch editing a symlinked policy's target passed.
  it('knows the policy file by its name and by the file a symlink to it points at', () => {
    const root = path.join(dir, 'real-path')
    fs.mkdirSync(path.join(root, '.github'), { recursive: true })
    fs.mkdirSync(path.join(root, 'policies'), { recursive: true })
    fs.writeFileSync(path.join(root, 'policies', 'main.yml'), 'version: 1\n')
    fs.symlinkSync('../policies/main.yml', path.join(root, '.github', 'copilot-policy.yml'))
    fs.symlinkSync('policies', path.join(root, 'conf'))
    const isPolicy = policyFileMatcher(root, '.github/copilot-policy.yml')
    expect(isPolicy(path.join(root, '.github', 'copilot-policy.yml'))).toBe(true)
    expect(isPolicy(path.join(root, '.GitHub', 'Copilot-Policy.yml'))).toBe(true)
    expect(isPolicy(path.join(root, 'policies', 'main.yml'))).toBe(true)
    expect(isPolicy(path.join(root, 'conf', 'main.yml'))).toBe(true)
    expect(isPolicy(path.join(root, 'policies', 'other.yml'))).toBe(false)
  })
})

describe('the agent step hands on no file holding a secret it knows', () => {
  const secrets = normalizeSecrets(['planted-secret-value'])

  it('names the changed file and the patch line of a secret, never the value', () => {
    const patch = path.join(dir, 'secret.patch')
    fs.writeFileSync(
      patch,
      [
        'diff --git a/src/a.js b/src/a.js',
        '--- a/src/a.js',
        '+++ b/src/a.js',
        '@@ -1 +1 @@',
        '-a',
        `+const t = '${Buffer.from('planted-secret-value').toString('base64')}'`,
        ''
      ].join('\n')
    )
    expect(secretInPatch(patch, secrets)).toBe('the changes to src/a.js (line 6 of the patch)')
    fs.writeFileSync(patch, 'diff --git a/src/a.js b/src/a.js\n+clean\n')
    expect(secretInPatch(patch, secrets)).toBeUndefined()
  })

  it('refuses a proposal tool call holding a known secret: never recorded in the file', () => {
    const file = path.join(dir, 'out', 'proposals.json')
    const tools = new SafeOutputs(['comment', 'labels'], file, secrets)
    const refused = tools.call('add_comment', { body: 'the token: planted-secret-value' })
    expect(refused).toMatchObject({ resultType: 'failure' })
    expect(refused.textResultForLlm).not.toContain('planted-secret-value')
    expect(tools.call('add_labels', { labels: ['planted-secret-value'] })).toMatchObject({
      resultType: 'failure'
    })
    expect(tools.call('add_comment', { body: 'fine' })).toMatchObject({ resultType: 'success' })
    expect(fs.readFileSync(file, 'utf8')).not.toContain('planted-secret-value')
  })
})

describe('one door for redaction', () => {
  const SECRET = 'planted-door-secret-7'
  const B64 = Buffer.from(`x-access-token:${SECRET}`).toString('base64')
  const saved = { ...process.env }
  afterEach(() => {
    process.env = { ...saved }
  })

  // Broken before: the report JSON and the job summary showed raw secrets in changed-file names,
  // labels, proposal titles and bodies: they were added after redaction.
  it('walks every writer with a secret planted in every agent-controlled field', async () => {
    const github = await startFakeGitHub()
    try {
      const work = path.join(dir, 'door')
      fs.mkdirSync(work, { recursive: true })
      const outputFile = path.join(work, 'output')
      const summaryFile = path.join(work, 'summary')
      fs.writeFileSync(outputFile, '')
      fs.writeFileSync(summaryFile, '')
      const env = {
        ...saved,
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        GITHUB_REPOSITORY: 'octo/repo',
        GITHUB_API_URL: github.url,
        GITHUB_WORKSPACE: work,
        RUNNER_TEMP: path.join(work, 'temp')
      }
      process.env = env
      const settings = readSettings(
        (name) =>
          ({
            prompt: 'x',
            'github-token': 'installation-token',
            'provider-type': 'openai',
            'provider-base-url': 'http://127.0.0.1:1',
            'provider-api-key': SECRET,
            model: 'm',
            'issue-number': '5',
            'report-path': path.join(work, 'report.json')
          })[name] ?? '',
        env
      )
      addSecrets(settings.secrets)
      const planted = (what: string): string => `${what} ${SECRET} and ${B64}`
      const base = sampleReport('completed')
      const report: Report = {
        ...base,
        summary: planted('summary'),
        plan: {
          content: planted('plan'),
          todos: [{ id: 't1', title: planted('todo'), status: 'done' }]
        },
        changes: {
          base: 'a'.repeat(40),
          files: [{ path: `src/${SECRET}.js`, change: 'added', added: 1, removed: 0 }]
        },
        safeOutputs: {
          offered: ['pull-request', 'labels'],
          proposals: [
            { kind: 'pull-request', title: planted('title'), body: planted('body'), draft: true },
            { kind: 'labels', labels: [SECRET] }
          ],
          refused: [{ tool: 'add_comment', reason: planted('reason') }]
        }
      }
      const comments = commentPublisher(settings, env, {
        kind: 'issue',
        owner: 'octo',
        repo: 'repo',
        number: 5,
        source: 'input'
      })
      expect(comments).toBeDefined()
      const outputs = await publish(report, {
        settings,
        comments,
        runUrl: undefined,
        eventsPath: undefined
      })
      const written = {
        report: fs.readFileSync(path.join(work, 'report.json'), 'utf8'),
        outputs: JSON.stringify(outputs) + fs.readFileSync(outputFile, 'utf8'),
        summary: fs.readFileSync(summaryFile, 'utf8'),
        comment: github
          .comments('octo', 'repo', 5)
          .map((c) => c.body)
          .join('\n')
      }
      // every writer wrote something of the run, and none holds the secret in any form
      expect(written.report).toContain('src/***.js')
      expect(written.summary).toContain('summary')
      expect(written.comment).toContain('summary')
      expect(written.outputs).toContain('summary')
      for (const [where, text] of Object.entries(written)) {
        expect({ where, raw: text.includes(SECRET), b64: text.includes(B64.slice(20)) }).toEqual({
          where,
          raw: false,
          b64: false
        })
      }
    } finally {
      await github.close()
    }
  })

  it('the redaction door is the only writer: no other module sets outputs or the summary', () => {
    const src = path.resolve('src')
    const offenders: string[] = []
    const walk = (d: string): void => {
      for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
        const full = path.join(d, entry.name)
        if (entry.isDirectory()) walk(full)
        else if (/\.ts$/.test(entry.name) && !full.endsWith('redacted-writes.ts')) {
          if (/core\.(setOutput|summary)\b/.test(fs.readFileSync(full, 'utf8')))
            offenders.push(full)
        }
      }
    }
    walk(src)
    expect(offenders.map((f) => path.relative(src, f))).toEqual(['log.ts'])
  })
})
