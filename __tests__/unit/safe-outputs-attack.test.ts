/**
 * Attacks on the safe outputs' pure checks (issue 23, red team): hostile patches against the
 * publish step's two looks at a patch (its headers, then what git really stages on a scratch
 * index), hostile text against the neutralizing of titles and bodies, and a proposals file or tool
 * arguments that lie. Each row is an attack; the comment says whether it once got through.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadPolicy, type CompiledPolicy } from '../../src/policy/index.js'
import { appliedEntries, patchPaths, safeBody, safeTitle } from '../../src/modes/publish.js'
import {
  LIMITS,
  MAX_PROPOSALS_BYTES,
  SafeOutputs,
  readProposals,
  validateCall
} from '../../src/session/safe-outputs.js'
import { neutralizeMarkdown } from '../../src/text/safe-text.js'
import { WriteBack } from '../../src/session/write-back.js'
import { createState } from '../../src/session/state/run-state.js'
import { readSettings } from '../../src/settings.js'
import { EXAMPLE_POLICY } from '../../test-support/action.js'

const ID = ['-c', 'user.name=t', '-c', 'user.email=t@e']
let dir: string
let repo: string
let policy: CompiledPolicy

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...ID, ...args], { cwd, encoding: 'utf8', stdio: 'pipe' })
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'safe-attack-unit-'))
  repo = path.join(dir, 'repo')
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true })
  fs.mkdirSync(path.join(repo, '.github', 'workflows'), { recursive: true })
  fs.writeFileSync(path.join(repo, 'src', 'a.js'), 'a\n')
  fs.writeFileSync(path.join(repo, '.github', 'workflows', 'ci.yml'), 'on: push\n')
  fs.writeFileSync(path.join(repo, '.github', 'copilot-policy.yml'), EXAMPLE_POLICY)
  git(dir, 'init', '-q', '-b', 'main', repo)
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', 'seed')
  policy = await loadPolicy({ path: '.github/copilot-policy.yml', workingDirectory: repo })
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const decide = (file: string) => policy.decide({ kind: 'write', fileName: file })

function patchFile(text: string): string {
  const file = path.join(dir, `p-${Math.random().toString(36).slice(2)}.patch`)
  fs.writeFileSync(file, text)
  return file
}

const blobA = execFileSync('git', ['hash-object', '--stdin'], {
  input: 'a\n',
  encoding: 'utf8'
}).trim()
const newFile = (header: string, mode: string, body = 'x'): string =>
  [
    `diff --git a/${header} b/${header}`,
    `new file mode ${mode}`,
    'index 0000000..1111111',
    '--- /dev/null',
    `+++ b/${header}`,
    '@@ -0,0 +1 @@',
    `+${body}`,
    '\\ No newline at end of file',
    ''
  ].join('\n')

describe('a patch git stages as a symlink or a submodule', () => {
  // Broken before: the text check wanted exactly ` 120000`; git reads the mode as octal.
  it.each([
    ['0120000', 'a zero in front'],
    ['  120000', 'two spaces'],
    ['120000 ', 'a space after'],
    ['00120000', 'two zeros in front'],
    ['+120000', 'a plus sign'],
    ['\v120000', 'a vertical tab']
  ])('new file mode %j (%s) is refused by what git stages', async (mode) => {
    const file = patchFile(newFile('src/link', mode, '../.github/workflows'))
    // the headers alone name an allowed path
    expect((await patchPaths(file, repo, decide)).map((p) => p.refusal)).toEqual([undefined])
    const staged = await appliedEntries(repo, file, decide)
    expect(staged).toEqual({ refusals: [expect.stringMatching(/^src\/link \(.*mode 120000/)] })
  })

  it('refuses a submodule entry spelled 0160000', async () => {
    const text = [
      'diff --git a/src/sub b/src/sub',
      'new file mode 0160000',
      'index 0000000..1111111',
      '--- /dev/null',
      '+++ b/src/sub',
      '@@ -0,0 +1 @@',
      `+Subproject commit ${blobA.padEnd(40, '0')}`,
      ''
    ].join('\n')
    const staged = await appliedEntries(repo, patchFile(text), decide)
    expect(staged).toEqual({ refusals: [expect.stringMatching(/mode 160000/)] })
  })

  it('lets a plain change through both looks (the checks can pass)', async () => {
    const file = patchFile(newFile('src/new.js', '100644'))
    expect((await patchPaths(file, repo, decide)).every((p) => !p.refusal)).toBe(true)
    expect(await appliedEntries(repo, file, decide)).toEqual({ refusals: [] })
  })
})

describe('a patch that names a protected path some other way', () => {
  const modify = (oldName: string, newName: string, plus = '+++', minus = '---') =>
    [
      `diff --git a/${oldName} b/${newName}`,
      `${minus} a/${oldName}`,
      `${plus} b/${newName}`,
      '@@ -1 +1 @@',
      '-on: push',
      '+on: [push, pull_request]',
      ''
    ].join('\n')
  // Each row: defended (refused by the headers, by what git stages, or not applied at all).
  const rows: Array<[string, string]> = [
    ['case-folded .GitHub', modify('.GitHub/workflows/ci.yml', '.GitHub/workflows/ci.yml')],
    ['./.github', modify('./.github/workflows/ci.yml', './.github/workflows/ci.yml')],
    [
      'src/../.github',
      modify('src/../.github/workflows/ci.yml', 'src/../.github/workflows/ci.yml')
    ],
    [
      'octal-quoted .github',
      [
        'diff --git "a/\\056github/workflows/ci.yml" "b/\\056github/workflows/ci.yml"',
        '--- "a/\\056github/workflows/ci.yml"',
        '+++ "b/\\056github/workflows/ci.yml"',
        '@@ -1 +1 @@',
        '-on: push',
        '+on: [push, pull_request]',
        ''
      ].join('\n')
    ],
    [
      'header src, --- and +++ .github',
      [
        'diff --git a/src/a.js b/src/a.js',
        '--- a/.github/workflows/ci.yml',
        '+++ b/.github/workflows/ci.yml',
        '@@ -1 +1 @@',
        '-on: push',
        '+on: [push, pull_request]',
        ''
      ].join('\n')
    ],
    [
      'a plain unified diff (no git header)',
      [
        '--- a/.github/workflows/ci.yml',
        '+++ b/.github/workflows/ci.yml',
        '@@ -1 +1 @@',
        '-on: push',
        '+on: [push, pull_request]',
        ''
      ].join('\n')
    ],
    [
      'a rename out of .github',
      [
        'diff --git a/.github/workflows/ci.yml b/src/ci.yml',
        'similarity index 100%',
        'rename from .github/workflows/ci.yml',
        'rename to src/ci.yml',
        ''
      ].join('\n')
    ],
    [
      'a rename whose source is quoted',
      [
        'diff --git a/src/x b/src/ci.yml',
        'similarity index 100%',
        'rename from ".github/workflows/ci.yml"',
        'rename to src/ci.yml',
        ''
      ].join('\n')
    ],
    [
      'a copy into .github',
      [
        'diff --git a/src/a.js b/.github/workflows/evil.yml',
        'similarity index 100%',
        'copy from src/a.js',
        'copy to .github/workflows/evil.yml',
        ''
      ].join('\n')
    ],
    [
      'a deletion of a workflow',
      [
        'diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml',
        'deleted file mode 100644',
        '--- a/.github/workflows/ci.yml',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-on: push',
        ''
      ].join('\n')
    ],
    [
      'a binary patch into .github',
      [
        'diff --git a/.github/x.bin b/.github/x.bin',
        'new file mode 100644',
        'index 0000000000000000000000000000000000000000..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391',
        'GIT binary patch',
        'literal 0',
        'HcmV?d00001',
        '',
        'literal 0',
        'HcmV?d00001',
        '',
        ''
      ].join('\n')
    ],
    [
      'a CRLF patch',
      modify('.github/workflows/ci.yml', '.github/workflows/ci.yml').replace(/\n/g, '\r\n')
    ],
    ['.git/hooks', newFile('.git/hooks/post-checkout', '100755')],
    ['a nested .GIT', newFile('src/.GIT/config', '100644')],
    ['.git with a trailing dot', newFile('src/.git./config', '100644')],
    ['the policy file', modify('.github/copilot-policy.yml', '.github/copilot-policy.yml')],
    ['a path with a newline into .github', newFile('"src/a\\n/../../.github/x"', '100644')]
  ]
  it.each(rows)('%s: refused or not applied', async (_name, text) => {
    const file = patchFile(text)
    let headerRefused: boolean
    try {
      headerRefused = (await patchPaths(file, repo, decide)).some((p) => p.refusal !== undefined)
    } catch {
      headerRefused = true // not readable as a patch: refused whole
    }
    const staged = await appliedEntries(repo, file, decide)
    const stagedRefused = 'error' in staged || staged.refusals.length > 0
    expect({ headerRefused, stagedRefused }).not.toEqual({
      headerRefused: false,
      stagedRefused: false
    })
    // whatever git stages from it, never a protected path
    if (!('error' in staged)) expect(staged.refusals.length > 0 || headerRefused).toBe(true)
  })
})

describe('hostile titles and bodies', () => {
  // Broken before: the body was neutralized, then cut; the cut could drop a code span's closing
  // backtick, and the mention and the HTML inside it were live again.
  it('cuts before it neutralizes: a code span cut in half never frees what was in it', () => {
    const raw = '<'.repeat(14990) + ' `@octocat <img src=x onerror=alert(1)>` tail'
    expect(raw.length).toBeLessThanOrEqual(LIMITS.body)
    const body = safeBody(raw)
    expect(body).not.toMatch(/(?<!`)@octocat/)
    expect(body).not.toContain('<img')
    expect(body.length).toBeLessThan(LIMITS.body + 200)
  })

  it('keeps every title within the limit, however much neutralizing adds', () => {
    expect(safeTitle('<'.repeat(LIMITS.title)).length).toBeLessThanOrEqual(LIMITS.title)
    expect(safeTitle('@a '.repeat(85)).length).toBeLessThanOrEqual(LIMITS.title)
  })

  // Broken before: a character reference renders as the character, after the mention check.
  it.each([
    '&#64;octocat',
    '&#x40;octocat',
    '&commat;octocat',
    '&#x202E;evil',
    '&num;12',
    '&#x6A;avascript:x'
  ])('%s is shown as written, not as the character it names', (text) => {
    for (const out of [safeBody(text), safeTitle(text), neutralizeMarkdown(`a ${text} b`)]) {
      expect(out).toContain('&amp;')
      expect(out).not.toMatch(/&(?!amp;)[#A-Za-z]/)
    }
  })

  it.each([
    ['@octocat', /(?<![\w`])@octocat/],
    ['@org/team', /(?<![\w`])@org\/team/],
    ['<details><summary>x</summary>hidden</details>', /<details>/],
    ['[x](javascript:alert(1))', /(?<!\\)\]\(javascript:/],
    ['![x](data:image/png;base64,AAAA)', /(?<!\\)\]\(data:/],
    ['[x][r]\n\n[r]: javascript:alert(1)', /^\[r\]:/m],
    ['<javascript:alert(1)>', /<javascript:/],
    ['<https://evil.example>', /<https:/],
    ['a\u202Eb\u2066c', /[\u202E\u2066]/],
    ['hi @\u200Doctocat', /(?<![\w`])@octocat/],
    ['<!-- hidden -->x', /hidden/]
  ])('defended: %j', (text, live) => {
    expect(safeBody(text)).not.toMatch(live)
    expect(safeTitle(text)).not.toMatch(live)
  })
})

describe('proposals that lie', () => {
  const file = (proposals: unknown[]): string => {
    const f = path.join(dir, `proposals-${Math.random().toString(36).slice(2)}.json`)
    fs.writeFileSync(f, JSON.stringify({ version: 1, proposals }))
    return f
  }

  // Broken before: the file was checked proposal by proposal, not against the run's counts.
  it.each([
    [
      'two pull requests',
      Array(2).fill({ kind: 'pull-request', title: 't', body: 'b', draft: true })
    ],
    ['four comments', Array(4).fill({ kind: 'comment', body: 'b' })],
    ['four issues', Array(4).fill({ kind: 'issue', title: 't', body: 'b', labels: [] })],
    [
      'eleven labels over two proposals',
      [
        { kind: 'labels', labels: ['a', 'b', 'c', 'd', 'e', 'f'] },
        { kind: 'labels', labels: ['g', 'h', 'i', 'j', 'k'] }
      ]
    ]
  ])('a forged file with %s is refused', (_name, proposals) => {
    expect(() => readProposals(file(proposals))).toThrow(/safe-outputs-path.*more than/)
  })

  // Defended before only by running out of memory: a huge file is refused unread.
  it('a proposals file bigger than any run could write is refused unread', () => {
    const f = file([])
    fs.truncateSync(f, MAX_PROPOSALS_BYTES + 1)
    expect(() => readProposals(f)).toThrow(/safe-outputs-path.*more than the 8388608/)
  })

  it('a file with extra fields, a __proto__ key or a repository keeps none of them', () => {
    const f = path.join(dir, 'extra.json')
    fs.writeFileSync(
      f,
      '{"version":1,"__proto__":{"polluted":true},"proposals":[{"kind":"pull-request","title":"t","body":"b","draft":true,"base":"release","head":"main","repo":"evil/repo","__proto__":{"x":1}}]}'
    )
    const read = readProposals(f)
    expect(read.proposals).toEqual([{ kind: 'pull-request', title: 't', body: 'b', draft: true }])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  // Broken before: a label could hold invisible and bidi characters (a look-alike of another).
  it.each(['bug\u200B', '\u202Ebug', 'b\u00ADug', 'bug\u0007'])('label %j is refused', (label) => {
    expect(validateCall('labels', { labels: [label] }, [])).toHaveProperty('refused')
    expect(() => readProposals(file([{ kind: 'labels', labels: [label] }]))).toThrow(/label/)
  })

  it.each([
    ['a number title', 'pull-request', { title: 1, body: 'b' }],
    ['an array body', 'comment', { body: ['x'] }],
    ['a string draft', 'pull-request', { title: 't', body: 'b', draft: 'false' }],
    ['an object label', 'labels', { labels: [{ toString: 'bug' }] }],
    ['labels as a string', 'labels', { labels: 'bug' }],
    ['null arguments', 'comment', null],
    ['a thousand labels', 'labels', { labels: Array.from({ length: 1000 }, (_, i) => `l${i}`) }],
    ['a giant title', 'issue', { title: 'x'.repeat(10_000), body: 'b' }]
  ] as const)('defended: tool arguments with %s are refused', (_name, kind, args) => {
    expect(validateCall(kind, args, [])).toHaveProperty('refused')
  })

  it('tool arguments with extra fields record only the known ones', () => {
    const args = JSON.parse(
      '{"title":"t","body":"b","base":"release","repo":"evil/repo","__proto__":{"draft":false}}'
    ) as unknown
    expect(validateCall('pull-request', args, [])).toEqual({
      proposal: { kind: 'pull-request', title: 't', body: 'b', draft: true }
    })
  })

  // Broken before: the agent's commands (or the verify commands, which run the agent's code) could
  // write the file after the last call, and what they wrote was uploaded for the publish step.
  it('the run ends by writing the proposals file from what the tools recorded', async () => {
    const workspace = path.join(dir, 'ws-finish')
    fs.mkdirSync(workspace, { recursive: true })
    const settings = readSettings(
      (name) => ({ prompt: 'x', 'safe-outputs': 'comment' })[name] ?? '',
      { GITHUB_WORKSPACE: workspace, RUNNER_TEMP: path.join(dir, 'runner-temp') }
    )
    const lines: string[] = []
    const writeBack = new WriteBack(settings, {
      info: (l) => lines.push(l),
      warning: (l) => lines.push(l)
    })
    const tools = writeBack.runOptions().externalTools
    expect(tools?.call('add_comment', { body: 'real' })).toMatchObject({ resultType: 'success' })
    const file = writeBack.outputs()['safe-outputs-path'] ?? ''
    const forged = Array.from({ length: 3 }, () => ({ kind: 'comment', body: 'forged @octocat' }))
    fs.writeFileSync(file, JSON.stringify({ version: 1, proposals: forged }))
    await writeBack.finish(
      createState({ startedAt: new Date().toISOString(), policySource: 'p.yml' })
    )
    expect(readProposals(file).proposals).toEqual([{ kind: 'comment', body: 'real' }])
  })

  // Broken before: the agent's commands could write the file after the last call, and it stayed.
  it('writes the file again from what was recorded, and never through a link left for it', () => {
    const f = path.join(dir, 'out', 'p.json')
    const tools = new SafeOutputs(['comment'], f)
    tools.call('add_comment', { body: 'real' })
    fs.writeFileSync(
      f,
      JSON.stringify({ version: 1, proposals: [{ kind: 'comment', body: 'forged' }] })
    )
    const victim = path.join(dir, 'victim.txt')
    fs.writeFileSync(victim, 'keep')
    fs.symlinkSync(victim, `${f}.${process.pid}.tmp`)
    tools.write()
    expect(readProposals(f).proposals).toEqual([{ kind: 'comment', body: 'real' }])
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep')
  })
})
