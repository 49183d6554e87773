/**
 * Issue 30, second review round: a path operand is judged as the paths it reads on disk, not as
 * it is spelled.
 *
 * A. HOME has one judgement in every spelling (`~`, `~me`, `$HOME`, `${HOME}`, `"$HOME"`, in an
 *    operand, after `--rawfile`, attached to an option): unreadable unless a rule names a path in
 *    it. A variable the engine cannot resolve in a path operand reads something unknown.
 * C. A glob is every path it can match now (symlinks in the workspace followed); a recursive
 *    reader that follows links reads what the links in its trees lead to. `grep -r`, which does
 *    not follow links inside the tree, reads the tree alone.
 *
 * A real temp workspace with real symlinks, under read-only and a narrow policy that allows the
 * programs by name.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { compilePolicy, presetText, type CompiledPolicy } from '../../src/policy/index.js'
import { expandBraces, expandGlob, operandTargets } from '../../src/policy/operand-reads.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

const NARROW = `version: 1
rules:
  - id: tools
    decision: allow
    shell: ["cat *", "head *", "ls *", "grep *", "awk *", "jq *", "sort *", "wc *", "diff *",
            "rg *", "find *", "du *", "tar *", "tail *", "cd *"]
  - { id: sources, decision: allow, write: ["src/**"] }
`

let ws: ReturnType<typeof tempWorkspace>
let home: string
let outside: string
const savedHome = process.env.HOME
const policies: Array<[string, CompiledPolicy]> = []

beforeAll(async () => {
  ws = tempWorkspace('operand-reads-ws-')
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'operand-reads-home-')))
  outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'operand-reads-out-')))
  process.env.HOME = home
  writeFiles(home, {
    '.bashrc': 'export FAKE=1\n',
    '.vault-token': 'FAKE',
    '.gradle/gradle.properties': 'token=FAKE',
    '.config/git/credentials': 'https://u:FAKE@github.com'
  })
  writeFiles(outside, { 'secret.txt': 'OUTSIDE\n' })
  writeFiles(ws.dir, {
    'src/a.ts': 'x\n',
    'src/b.ts': 'y\n',
    'src/deep/c.ts': 'z\n',
    'vendor/v.ts': 'v\n',
    'plain/p.ts': 'p\n',
    'inner/i.ts': 'i\n'
  })
  // links a pull request can commit: out of the workspace, into HOME, and inside it
  symlinkSync(path.join(outside, 'secret.txt'), path.join(ws.dir, 'src/sec'))
  symlinkSync(home, path.join(ws.dir, 'src/deep/h'))
  symlinkSync('../inner', path.join(ws.dir, 'plain/in'))
  mkdirSync(path.join(ws.dir, 'hidden'))
  symlinkSync(outside, path.join(ws.dir, 'hidden/out'))
  symlinkSync('../hidden', path.join(ws.dir, 'inner/via'))
  policies.push(
    ['read-only', await compilePolicy(presetText('read-only'), 'built-in:read-only', ws.dir)],
    ['narrow', await compile(NARROW, ws.dir)]
  )
})
afterAll(() => {
  process.env.HOME = savedHome
  ws.cleanup()
  rmSync(home, { recursive: true, force: true })
  rmSync(outside, { recursive: true, force: true })
})

function decisions(command: string): Array<[string, string, string, string]> {
  return policies.map(([name, p]) => {
    const d = p.decide(shell(command.replaceAll('$OUT', outside)))
    return [command, name, d.decision, d.rule]
  })
}

function expectDenied(command: string): void {
  for (const [c, name, decision] of decisions(command)) {
    expect([c, name, decision]).toEqual([command, name, 'deny'])
  }
}

function expectAllowed(command: string): void {
  for (const [c, name, decision, rule] of decisions(command)) {
    expect([c, name, decision, rule]).toEqual([command, name, 'allow', expect.any(String)])
  }
}

describe('A. HOME is one place in every spelling', () => {
  const me = os.userInfo().username
  it.each([
    'cat ~/.bashrc',
    `cat ~${me}/.bashrc`,
    'cat $HOME/.bashrc',
    'cat ${HOME}/.vault-token',
    'cat "$HOME"/.gradle/gradle.properties',
    'cat "${HOME}/.config/git/credentials"',
    'head -1 $HOME/.config/git/credentials',
    'tail -n1 "$HOME/.bashrc"',
    'awk 1 ${HOME}/.bashrc',
    "jq -n --rawfile s ${HOME}/.bashrc '$s'",
    'jq -n --slurpfile s "$HOME"/.vault-token \'$s\'',
    'sort --random-source=${HOME}/.bashrc -R src/a.ts',
    'wc -c $HOME/.vault-token',
    'diff src/a.ts ${HOME}/.bashrc',
    'cat $HOME/.b*',
    'cat ${HOME}/.{bashrc,vault-token}',
    'ls $HOME',
    'cd src && cat $HOME/.bashrc'
  ])('%s is denied (HOME, no rule names it)', expectDenied)

  it.each(['cat $UNSET_DIR/x', 'cat "$(echo ~)/.bashrc"', 'awk 1 "$F"', 'head -1 ${X}/y'])(
    '%s is denied (a path only known when it runs)',
    expectDenied
  )

  it('a rule naming a path in HOME opens that path in every spelling', async () => {
    const p = await compile(
      `version: 1\nrules:\n  - { id: cat, decision: allow, shell: ["cat *"] }\n  - { id: vault, decision: allow, read: ["${home}/.vault-token"] }\n`,
      ws.dir
    )
    for (const c of ['cat ~/.vault-token', 'cat $HOME/.vault-token', 'cat "${HOME}"/.vault-token'])
      expect([c, p.decide(shell(c)).decision]).toEqual([c, 'allow'])
    expect(p.decide(shell('cat $HOME/.bashrc')).decision).toBe('deny')
  })
})

describe('C. globs and link-following trees read where the links lead', () => {
  it.each([
    'cat src/*',
    'cat src/s?c',
    'cat src/[s]ec',
    'cat src/{a.ts,sec}',
    'cat src/deep/*/.bashrc',
    'cat src/*/h/.vault-token',
    'jq -R . src/*',
    'head -n1 src/*',
    'wc -l src/* plain/*',
    'grep -R . src',
    'grep -rR x src',
    'grep --dereference-recursive FAKE src',
    'grep -R OUTSIDE',
    'cd src && grep -R x .',
    'diff -rN src vendor',
    'diff -r vendor src',
    'rg -L OUTSIDE src',
    'rg --follow x src',
    'ls -RLa src',
    'ls -R -L src',
    'find -L src -type f',
    'du -L src',
    'tar -chf - src',
    'grep -R x plain',
    'grep -R x src/*',
    // a link inside the workspace leads to a tree whose link leaves it
    'grep -R x plain/in',
    'grep -R x inner'
  ])('%s is denied', expectDenied)

  it.each([
    'cat src/*.ts',
    'cat src/{a,b}.ts',
    'head -n1 plain/*',
    'grep -r . src',
    'grep -rn x .',
    'grep -R x vendor',
    'rg x src',
    'diff src/a.ts src/b.ts',
    'ls -R src',
    'ls -L src',
    'find src -type f',
    'ls src/deep'
  ])('%s is allowed', expectAllowed)
})

describe('operand-reads helpers', () => {
  it('expands braces as bash does', () => {
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef'])
    expect(expandBraces('x{1..3}')).toEqual(['x1', 'x2', 'x3'])
    expect(expandBraces('{a}')).toEqual(['{a}'])
  })

  it('expands a glob against the disk, through directory links', () => {
    expect(expandGlob('src/deep/*/.bash*', ws.dir)).toEqual([
      path.join(ws.dir, 'src/deep/h/.bashrc')
    ])
    expect(expandGlob('src/.*', ws.dir)).toEqual(expect.arrayContaining([ws.dir]))
  })

  it('caps what a glob may match', () => {
    const many = tempWorkspace('operand-reads-many-')
    try {
      writeFiles(
        many.dir,
        Object.fromEntries(Array.from({ length: 2100 }, (_, i) => [`f${i}`, '']))
      )
      const star = { text: '*', literal: false, prefix: '', tilde: false }
      expect(operandTargets(star, { words: [star] }, [many.dir])).toMatchObject({
        decision: 'deny',
        rule: 'reads-unknown'
      })
    } finally {
      many.cleanup()
    }
  })
})
