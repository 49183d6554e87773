/** The safe-output tools' validators, the proposals file, the publish step's checks and text. */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { UserError } from '../../src/errors.js'
import {
  LIMITS,
  RECORDED,
  SafeOutputs,
  parseSafeOutputs,
  readProposals,
  validateCall
} from '../../src/session/safe-outputs.js'
import { headCommit, parseChanges } from '../../src/session/changes.js'
import { checkPath, patchPaths, safeBody, safeTitle } from '../../src/modes/publish.js'
import { readSettings } from '../../src/settings.js'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'safe-outputs-unit-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('the safe-outputs input', () => {
  it('takes a comma or newline list, once each', () => {
    expect(parseSafeOutputs('')).toEqual([])
    expect(parseSafeOutputs('pull-request, labels\ncomment\nlabels')).toEqual([
      'pull-request',
      'labels',
      'comment'
    ])
  })
  it('names the input and the fix for a bad value', () => {
    expect(() => parseSafeOutputs('pull-request, push')).toThrow(UserError)
    expect(() => parseSafeOutputs('push')).toThrow(
      /Input 'safe-outputs' names 'push'.*pull-request, comment, labels, issue/
    )
  })
})

describe('the settings of safe outputs and publish', () => {
  const read = (inputs: Record<string, string>) =>
    readSettings((name) => inputs[name] ?? '', { GITHUB_WORKSPACE: dir, RUNNER_TEMP: dir })

  it('reads safe-outputs, and none by default', () => {
    expect(read({ prompt: 'x' }).safeOutputs).toEqual([])
    expect(read({ prompt: 'x', 'safe-outputs': 'labels,issue' }).safeOutputs).toEqual([
      'labels',
      'issue'
    ])
    expect(() => read({ prompt: 'x', 'safe-outputs': 'pull-requests' })).toThrow(
      /Input 'safe-outputs' names 'pull-requests'/
    )
  })

  it('takes mode: publish without a prompt, with patch-path or safe-outputs-path', () => {
    const settings = read({ mode: 'publish', 'patch-path': 'p.patch', 'push-to': 'pr-branch' })
    expect(settings.mode).toBe('publish')
    expect(settings.patchPath).toBe(path.join(dir, 'p.patch'))
    expect(settings.pushTo).toBe('pr-branch')
    expect(read({ prompt: 'x' }).pushTo).toBe('new-branch')
    expect(() => read({ mode: 'publish' })).toThrow(/'patch-path'.*'safe-outputs-path'/)
    expect(() => read({ mode: 'publish', 'patch-path': 'p', 'push-to': 'main' })).toThrow(
      /Input 'push-to' must be one of new-branch, pr-branch/
    )
  })
})

describe('validateCall', () => {
  it('records a pull request, draft unless it says otherwise', () => {
    expect(validateCall('pull-request', { title: 'Fix', body: 'b' }, [])).toEqual({
      proposal: { kind: 'pull-request', title: 'Fix', body: 'b', draft: true }
    })
    expect(validateCall('pull-request', { title: 'Fix', body: 'b', draft: false }, [])).toEqual({
      proposal: { kind: 'pull-request', title: 'Fix', body: 'b', draft: false }
    })
  })
  it('refuses a second pull request in the run', () => {
    const first = { kind: 'pull-request' as const, title: 'a', body: 'b', draft: true }
    expect(validateCall('pull-request', { title: 'x', body: 'y' }, [first])).toEqual({
      refused: expect.stringMatching(/one per run/) as unknown
    })
  })
  it('refuses sizes over the limits, empty and multi-line titles, with the field named', () => {
    const long = 'x'.repeat(LIMITS.title + 1)
    expect(validateCall('pull-request', { title: long, body: 'b' }, [])).toEqual({
      refused: expect.stringMatching(/^title: the title is longer than 256/) as unknown
    })
    expect(validateCall('issue', { title: 'a\nb', body: 'b' }, [])).toEqual({
      refused: expect.stringMatching(/more than one line/) as unknown
    })
    expect(validateCall('comment', { body: ' ' }, [])).toEqual({
      refused: expect.stringMatching(/body is empty/) as unknown
    })
    expect(validateCall('comment', { body: 'x'.repeat(LIMITS.body + 1) }, [])).toEqual({
      refused: expect.stringMatching(/longer than 60000/) as unknown
    })
    expect(validateCall('comment', {}, [])).toHaveProperty('refused')
    expect(validateCall('labels', { labels: 'bug' }, [])).toHaveProperty('refused')
  })
  it('counts labels over the run and refuses bad label names', () => {
    const many = Array.from({ length: LIMITS.labels }, (_, i) => `l${i}`)
    const had = [{ kind: 'labels' as const, labels: many }]
    expect(validateCall('labels', { labels: ['l0'] }, had)).toHaveProperty('proposal')
    expect(validateCall('labels', { labels: ['new'] }, had)).toEqual({
      refused: expect.stringMatching(/more than 10 labels/) as unknown
    })
    expect(validateCall('labels', { labels: ['a,b'] }, [])).toHaveProperty('refused')
    expect(validateCall('labels', { labels: [] }, [])).toHaveProperty('refused')
    expect(validateCall('labels', { labels: ['bug', 'bug'] }, [])).toEqual({
      proposal: { kind: 'labels', labels: ['bug'] }
    })
  })
  it('caps comments and issues', () => {
    const comments = Array.from({ length: LIMITS.comments }, () => ({
      kind: 'comment' as const,
      body: 'b'
    }))
    expect(validateCall('comment', { body: 'b' }, comments)).toHaveProperty('refused')
  })
})

describe('SafeOutputs', () => {
  it('offers exactly the tools asked for, answers each call and writes the file at once', () => {
    const file = path.join(dir, 'out', 'proposals.json')
    const tools = new SafeOutputs(['labels', 'issue'], file)
    expect(tools.definitions.map((d) => d.name)).toEqual(['add_labels', 'create_issue'])
    expect(readProposals(file).proposals).toEqual([])
    expect(tools.call('add_labels', { labels: ['bug'] })).toEqual({
      textResultForLlm: RECORDED,
      resultType: 'success'
    })
    const refused = tools.call('create_issue', { title: '' })
    expect(refused.resultType).toBe('failure')
    expect(refused.textResultForLlm).toMatch(/^Not recorded: .*call create_issue again/)
    expect(tools.call('propose_pull_request', { title: 't', body: 'b' }).resultType).toBe('failure')
    expect(readProposals(file).proposals).toEqual([{ kind: 'labels', labels: ['bug'] }])
    expect(tools.record().refused).toEqual([
      { tool: 'create_issue', reason: expect.stringMatching(/title is empty/) as unknown }
    ])
  })
})

describe('readProposals', () => {
  it('refuses a file of another version or shape, naming the input', () => {
    const file = path.join(dir, 'p.json')
    fs.writeFileSync(file, JSON.stringify({ version: 2, proposals: [] }))
    expect(() => readProposals(file)).toThrow(/safe-outputs-path.*version 1/)
    fs.writeFileSync(
      file,
      JSON.stringify({ version: 1, proposals: [{ kind: 'labels', labels: ['x'.repeat(99)] }] })
    )
    expect(() => readProposals(file)).toThrow(/longer than 50/)
    fs.writeFileSync(file, 'not json')
    expect(() => readProposals(file)).toThrow(/not a readable JSON file/)
  })
})

describe('the publish step', () => {
  const allowSrc = (p: string) =>
    p.includes('/src/')
      ? { decision: 'allow', rule: 'sources' }
      : { decision: 'deny', rule: 'default' }

  it('refuses .git in any spelling, paths that leave the tree and what the rules do not allow', () => {
    const root = '/ws'
    expect(checkPath('src/a.js', root, allowSrc).refusal).toBeUndefined()
    expect(checkPath('src/.git/config', root, allowSrc).refusal).toMatch(/git's own/)
    expect(checkPath('.GIT/hooks/x', root, allowSrc).refusal).toMatch(/git's own/)
    expect(checkPath('src/.git./x', root, allowSrc).refusal).toMatch(/git's own/)
    expect(checkPath('src/../../etc/passwd', root, allowSrc).refusal).toMatch(/out of/)
    expect(checkPath('.github/workflows/ci.yml', root, allowSrc).refusal).toMatch(/rule default/)
  })

  it('reads every path of a patch, renames both ways', async () => {
    const patch = [
      'diff --git a/src/old.js b/.github/new.yml',
      'similarity index 100%',
      'rename from src/old.js',
      'rename to .github/new.yml',
      'diff --git "a/src/caf\\303\\251.js" "b/src/caf\\303\\251.js"',
      'deleted file mode 100644',
      'index 1111111..0000000',
      '--- "a/src/caf\\303\\251.js"',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-x',
      'diff --git a/src/a.js b/src/a.js',
      'index 0000000..1111111 100644',
      '--- a/src/a.js',
      '+++ b/src/a.js',
      '@@ -1 +1 @@',
      '-a',
      '+b',
      ''
    ].join('\n')
    const file = path.join(dir, 'x.patch')
    fs.writeFileSync(file, patch)
    const paths = await patchPaths(file, '/ws', allowSrc)
    expect(paths.map((p) => p.path).sort()).toEqual([
      '.github/new.yml',
      'src/a.js',
      'src/café.js',
      'src/old.js'
    ])
    expect(paths.filter((p) => p.refusal).map((p) => p.path)).toEqual(['.github/new.yml'])
  })

  it('names an unreadable patch as the input to fix', async () => {
    const file = path.join(dir, 'bad.patch')
    fs.writeFileSync(file, 'diff --git a/x b/x\n@@ nonsense\n')
    await expect(patchPaths(file, '/ws', allowSrc)).rejects.toThrow(/patch-path/)
  })

  it('neutralizes titles and bodies: no notifying mention, no HTML, no link, length-limited', () => {
    const title = safeTitle(`Fix @octocat <b>x</b>\nsecond line ${'y'.repeat(400)}`)
    expect(title).not.toMatch(/@octocat/)
    expect(title).not.toContain('<b>')
    expect(title).not.toContain('\n')
    expect(title.length).toBeLessThanOrEqual(LIMITS.title + 20)
    const body = safeBody(
      'Hi @org/team <script>x</script> [a](javascript:alert(1)) <!-- marker --> #12'
    )
    expect(body).not.toMatch(/@org/)
    expect(body).not.toContain('<script>')
    expect(body).not.toMatch(/(?<!\\)\]\(javascript:/)
    expect(body).not.toContain('marker')
    expect(body).not.toMatch(/#12/)
    expect(safeBody('x'.repeat(LIMITS.body * 2)).length).toBeLessThan(LIMITS.body + 300)
  })
})

describe('the changes from git', () => {
  it('parses numstat and name-status, binary files without counts', () => {
    const numstat = ['3\t1\tsrc/a.js', '-\t-\timg.png', '0\t5\told.txt', ''].join('\0')
    const names = ['M', 'src/a.js', 'A', 'img.png', 'D', 'old.txt', ''].join('\0')
    expect(parseChanges(numstat, names)).toEqual([
      { path: 'src/a.js', change: 'modified', added: 3, removed: 1 },
      { path: 'img.png', change: 'added', added: 0, removed: 0, binary: true },
      { path: 'old.txt', change: 'deleted', added: 0, removed: 5 }
    ])
  })

  it('reads HEAD from the files, a branch ref loose or packed, without running git there', () => {
    execFileSync('git', ['init', '-q', '-b', 'main', dir])
    execFileSync(
      'git',
      ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--allow-empty', '-m', 'x'],
      { cwd: dir }
    )
    const id = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim()
    expect(headCommit(dir)).toBe(id)
    execFileSync('git', ['pack-refs', '--all'], { cwd: dir })
    expect(fs.existsSync(path.join(dir, '.git', 'refs', 'heads', 'main'))).toBe(false)
    expect(headCommit(dir)).toBe(id)
    expect(headCommit(path.join(dir, 'nowhere'))).toBe('')
  })
})
