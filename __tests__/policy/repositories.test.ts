/**
 * Issue 30, point 3: every git repository in the tree but the checkout's own is untrusted
 * configuration. A git command whose working directory (a `cd`, `-C`) lies in a nested checkout,
 * a submodule or a bare repository committed as ordinary files is denied unless a rule names the
 * exact command.
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { compilePolicy, presetText, type CompiledPolicy } from '../../src/policy/index.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
let policies: CompiledPolicy[]
beforeAll(async () => {
  ws = tempWorkspace()
  writeFiles(ws.dir, {
    'vendor/x/config': '[diff "x"]\n  textconv = sh -c id\n',
    'vendor/x/HEAD': 'ref: refs/heads/main\n',
    'vendor/x/info/attributes': '* diff=x\n',
    'sub/.git': 'gitdir: ../.git/modules/sub\n',
    'nested/repo/.git/HEAD': 'ref: refs/heads/main\n',
    'src/a.ts': 'x\n'
  })
  mkdirSync(path.join(ws.dir, '.git'), { recursive: true })
  policies = [
    await compilePolicy(presetText('read-only'), 'built-in:read-only', ws.dir),
    await compile(
      'version: 1\nrules:\n  - { id: git, decision: allow, shell: ["git *", "cd *"] }\n  - { id: exact, decision: allow, shell: ["git -C vendor/x log"] }\n',
      ws.dir
    )
  ]
})
afterAll(() => ws.cleanup())

describe('git in a repository other than the checkout', () => {
  it.each([
    'cd vendor/x && git log',
    'cd vendor/x/info && git diff',
    'cd sub && git status',
    'cd nested/repo && git log',
    'cd nested/repo/src && git log',
    'git -C sub log',
    'git -C nested/repo diff'
  ])('%s is denied', (command) => {
    for (const p of policies) {
      const d = p.decide(shell(command))
      expect([command, d.decision, d.rule]).toEqual([command, 'deny', 'untrusted-repository'])
    }
  })

  it('is allowed by a rule naming the exact command', () => {
    expect((policies[1] as CompiledPolicy).decide(shell('git -C vendor/x log')).decision).toBe(
      'allow'
    )
  })

  it.each(['git status', 'cd src && git log', 'git log -- vendor/x'])(
    '%s is allowed',
    (command) => {
      for (const p of policies)
        expect([command, p.decide(shell(command)).decision]).toEqual([command, 'allow'])
    }
  )
})
