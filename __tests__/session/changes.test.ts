/**
 * The agent's changes from git (session/changes.ts) against a real repository: what counts, what
 * never does, and that nothing of the repository's own git configuration runs.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { compilePolicy, protectedNames } from '../../src/policy/index.js'
import { WorkspaceAudit } from '../../src/session/audit.js'
import { AgentChanges } from '../../src/session/changes.js'

const ID = ['-c', 'user.name=t', '-c', 'user.email=t@e']
let dir: string
let root: string

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', [...ID, ...args], { cwd, encoding: 'utf8', stdio: 'pipe' })
}

function write(rel: string, content: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), content)
}

function changes(): AgentChanges {
  return new AgentChanges({
    root,
    storeDir: path.join(dir, 'store'),
    patchPath: path.join(dir, 'out', 'run.patch'),
    excluded: [path.join(root, '.github', 'copilot-policy.yml'), path.join(root, 'report.json')]
  })
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'changes-'))
  root = path.join(dir, 'repo')
  fs.mkdirSync(root)
  git(root, 'init', '-q', '-b', 'main')
  write('src/a.js', 'one\ntwo\n')
  write('old.txt', 'a\nb\nc\n')
  write('.gitignore', 'build/\n')
  write('.github/copilot-policy.yml', 'version: 1\n')
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '-m', 'base')
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('AgentChanges', () => {
  it('records added, modified, deleted and binary files, and a patch that applies on the base', async () => {
    const tracker = changes()
    await tracker.start()
    write('src/a.js', 'one\nTWO\nthree\n')
    write('src/new.js', 'x\n')
    fs.rmSync(path.join(root, 'old.txt'))
    write('img.bin', Buffer.from([0, 1, 2, 255, 0, 3]))
    write('build/out.js', 'ignored\n') // git ignores it: not a change
    write('.github/copilot-policy.yml', 'version: 1\nrules: []\n') // the policy: never counted
    write('report.json', '{}') // the report: never counted
    write('src/reverted.js', 'the audit flagged this\n')
    const record = await tracker.finish(['src/reverted.js'])
    const head = git(root, 'rev-parse', 'HEAD').trim()
    expect(record?.base).toBe(head)
    expect(record?.error).toBeUndefined()
    expect(record?.files.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: 'img.bin', change: 'added', added: 0, removed: 0, binary: true },
      { path: 'old.txt', change: 'deleted', added: 0, removed: 3 },
      { path: 'src/a.js', change: 'modified', added: 2, removed: 1 },
      { path: 'src/new.js', change: 'added', added: 1, removed: 0 }
    ])
    // the patch applies on a fresh clone of the base
    const other = path.join(dir, 'clone')
    git(dir, 'clone', '-q', root, other)
    git(other, 'checkout', '-q', head)
    git(other, 'apply', '--index', record?.patchPath ?? '')
    expect(fs.readFileSync(path.join(other, 'src', 'a.js'), 'utf8')).toBe('one\nTWO\nthree\n')
    expect(fs.readFileSync(path.join(other, 'img.bin'))).toEqual(Buffer.from([0, 1, 2, 255, 0, 3]))
    expect(fs.existsSync(path.join(other, 'old.txt'))).toBe(false)
    expect(fs.existsSync(path.join(other, 'src', 'reverted.js'))).toBe(false)
    expect(fs.readFileSync(path.join(other, '.github', 'copilot-policy.yml'), 'utf8')).toBe(
      'version: 1\n'
    )
  })

  it('counts only what changed after the start, and writes an empty patch for no change', async () => {
    write('src/a.js', 'before the agent\n') // the workflow's change, before the agent starts
    const tracker = changes()
    await tracker.start()
    const record = await tracker.finish()
    expect(record?.files).toEqual([])
    expect(fs.readFileSync(record?.patchPath ?? '', 'utf8')).toBe('')
  })

  it("runs nothing of the repository's git config: filters, textconv, fsmonitor, hooks", async () => {
    const marker = path.join(dir, 'ran')
    const cmd = `sh -c 'echo ran >> ${marker}; cat'`
    git(root, 'config', 'filter.evil.clean', cmd)
    git(root, 'config', 'filter.evil.smudge', cmd)
    git(root, 'config', 'filter.evil.required', 'true')
    git(root, 'config', 'diff.evil.textconv', cmd)
    git(root, 'config', 'diff.external', cmd)
    git(root, 'config', 'core.fsmonitor', cmd)
    fs.writeFileSync(path.join(root, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\n${cmd}\n`, {
      mode: 0o755
    })
    const tracker = changes()
    await tracker.start()
    // the agent plants attributes that would run the filter and the diff driver
    write('.gitattributes', '* filter=evil diff=evil\n')
    write('src/a.js', 'one\nchanged\n')
    const record = await tracker.finish()
    expect(fs.existsSync(marker)).toBe(false)
    expect(record?.files.map((f) => f.path).sort()).toEqual(['.gitattributes', 'src/a.js'])
    expect(fs.readFileSync(record?.patchPath ?? '', 'utf8')).toContain('+changed')
  })

  it('has no record outside a git checkout', async () => {
    fs.rmSync(path.join(root, '.git'), { recursive: true })
    const tracker = changes()
    await tracker.start()
    write('src/a.js', 'x\n')
    expect(await tracker.finish()).toBeUndefined()
  })

  it('has no record when the agent never started', async () => {
    expect(await changes().finish()).toBeUndefined()
  })
})

describe('starting from the audit’s store (the tree of the start written once)', () => {
  async function auditStart(): Promise<{ audit: WorkspaceAudit; store: string }> {
    const policy = await compilePolicy('version: 1\nextends: ci-fix\n', 'p.yml', root)
    const store = path.join(dir, 'audit')
    const { audit } = await WorkspaceAudit.start({
      root,
      storeDir: store,
      protection: {
        names: protectedNames(policy),
        decide: (file) => policy.decide({ kind: 'write', fileName: file })
      },
      report: () => undefined,
      evidence: () => ({ tools: [], permissions: [] })
    })
    return { audit, store }
  }

  function seeded(store: string): AgentChanges {
    return new AgentChanges({
      root,
      storeDir: path.join(dir, 'store'),
      patchPath: path.join(dir, 'out', 'run.patch'),
      excluded: [],
      seedStore: store
    })
  }

  it('takes the audit’s tree while the workspace is unchanged, and the patch holds only the agent’s work', async () => {
    write('untracked-at-start.txt', 'there before the agent\n')
    const { audit, store } = await auditStart()
    const tree = await audit.startTree()
    expect(tree).toMatch(/^[0-9a-f]{40}$/)
    const tracker = seeded(store)
    await tracker.start(tree)
    write('src/a.js', 'one\nTWO\n')
    write('untracked-at-start.txt', 'changed by the agent\n')
    const record = await tracker.finish()
    expect(record?.error).toBeUndefined()
    expect(record?.files.map((f) => `${f.change} ${f.path}`).sort()).toEqual([
      'modified src/a.js',
      'modified untracked-at-start.txt'
    ])
    audit.discard()
  })

  it('has no tree to give once setup commands moved the baseline: the changes start from now', async () => {
    const { audit, store } = await auditStart()
    write('src/setup-output.js', 'made by a setup command\n')
    await audit.rebaseline()
    expect(await audit.startTree()).toBeUndefined()
    const tracker = seeded(store)
    await tracker.start(await audit.startTree())
    write('src/a.js', 'one\nTWO\n')
    const record = await tracker.finish()
    // the setup command's file is the workspace the agent started from, not the agent's change
    expect(record?.files.map((f) => f.path)).toEqual(['src/a.js'])
    audit.discard()
  })

  it('keeps the start’s trees in its own store: forged repository objects change nothing it reads', async () => {
    const { audit, store } = await auditStart()
    const tree = await audit.startTree()
    // the agent may rewrite the repository's object files: the store must not need them for trees
    const storeOnly = { ...process.env, GIT_DIR: path.join(store, 'git') }
    fs.rmSync(path.join(root, '.git', 'objects'), { recursive: true, force: true })
    fs.mkdirSync(path.join(root, '.git', 'objects'))
    const listed = execFileSync('git', ['ls-tree', '-r', '--name-only', tree ?? ''], {
      env: storeOnly,
      encoding: 'utf8'
    })
    expect(listed.split('\n').filter(Boolean).sort()).toEqual([
      '.github/copilot-policy.yml',
      '.gitignore',
      'old.txt',
      'src/a.js'
    ])
    audit.discard()
  })
})
