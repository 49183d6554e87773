/**
 * Issue 30, review round 1: the engine's reading must not depend on how an option is spelled, nor
 * on how a repository or a directory is reached.
 * - B: an option's value is recognised in every getopt spelling (`-fVAL`, `-f VAL`, flags ending
 *   in it `-rfVAL`, `--opt VAL`, `--opt=VAL`), and a value naming a file or directory outside the
 *   working directory is a read there.
 * - D: options that read a list of file names (from a file or stdin) read unknown files.
 * - E: a repository is recognised the way git does (`HEAD` + `commondir`, `objects` + `refs`, a
 *   `.git` file), and a tool's change-directory option is judged like `cd` into it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { compilePolicy, presetText, type CompiledPolicy } from '../../src/policy/index.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

const NARROW = `version: 1
rules:
  - id: tools
    decision: allow
    shell: ["cd *", "grep *", "rg *", "file *", "git *", "sort *", "tar *", "zip *", "cpio *",
            "rsync *", "make", "make *", "cat *", "head *", "diff *"]
  - { id: sources, decision: allow, write: ["src/**"] }
`

let ws: ReturnType<typeof tempWorkspace>
let outside: string
let policies: CompiledPolicy[]
beforeAll(async () => {
  ws = tempWorkspace()
  outside = mkdtempSync(path.join(os.tmpdir(), 'policy-spell-out-'))
  writeFileSync(path.join(outside, 'secret.txt'), 'secret\n')
  writeFiles(ws.dir, {
    'src/a.ts': 'x\n',
    'src/list': `${outside}/secret.txt\n`,
    'src/Makefile': 'test:\n\tid\n',
    Makefile: 'test:\n\ttrue\n',
    // a linked worktree's git directory: HEAD and commondir, the config is the common one's
    'vendor/z/config': '[diff "x"]\n  textconv = sh -c id\n',
    'vendor/z/objects/.keep': '',
    'vendor/w/HEAD': 'ref: refs/heads/main\n',
    'vendor/w/commondir': '../z\n',
    // a git directory with no HEAD: objects and refs
    'vendor/y/objects/.keep': '',
    'vendor/y/refs/heads/.keep': '',
    // a .git file
    'vendor/v/.git': 'gitdir: ../z\n'
  })
  policies = [
    await compilePolicy(presetText('read-only'), 'built-in:read-only', ws.dir),
    await compile(NARROW, ws.dir)
  ]
})
afterAll(() => {
  ws.cleanup()
  rmSync(outside, { recursive: true, force: true })
})

const rel = (): string => path.relative(ws.dir, outside)
const decisions = (command: string): string[] =>
  policies.map((p) => p.decide(shell(command)).decision)

describe('an option value names a file in every spelling', () => {
  // `OUT` is the outside directory, relative (`../…`) or absolute
  it.each([
    'grep -f OUT/secret.txt src/a.ts',
    'grep -fOUT/secret.txt src/a.ts',
    'grep -rfOUT/secret.txt src',
    'grep --file=OUT/secret.txt src/a.ts',
    'grep -r --exclude-from OUT/secret.txt x src',
    'grep -r --exclude-from=OUT/secret.txt x src',
    'rg -fOUT/secret.txt src',
    'git blame -SOUT/secret.txt src/a.ts',
    'git grep --no-index -fOUT/secret.txt',
    'file -mOUT/secret.txt src/a.ts',
    'file --magic-file OUT/secret.txt src/a.ts',
    'diff --from-file OUT/secret.txt src/a.ts',
    'sort -T OUT src/a.ts',
    'sort -TOUT src/a.ts',
    'sort --temporary-directory=OUT src/a.ts',
    'tar -cf - -C OUT secret.txt',
    'tar -C OUT -cf - .',
    'tar -cf - --directory=OUT .'
  ])('%s is denied (relative and absolute)', (template) => {
    for (const out of [rel(), outside]) {
      const command = template.replaceAll('OUT', out)
      expect([command, ...decisions(command)]).toEqual([command, 'deny', 'deny'])
    }
  })

  it.each([
    'grep -n foo src/a.ts',
    'grep -rn --include "*.ts" foo src',
    'grep -r --exclude-dir node_modules foo src',
    'sort -k2 -t, src/a.ts',
    'tar -cf - -C src .',
    'file src/a.ts'
  ])('%s is allowed', (command) => {
    expect(policies[1]?.decide(shell(command)).decision).toBe('allow')
  })
})

describe('options that read a list of file names read unknown files', () => {
  it.each([
    'file -f src/list',
    'file -fsrc/list',
    'file --files-from=src/list',
    'file --files-from src/list',
    'tar -cf - -T src/list',
    'tar -cf - --null -Tsrc/list',
    'tar -cf src/o.tar --files-from=src/list',
    'tar cTf src/list -',
    'rsync -a --files-from=src/list / src/x',
    'zip -@ src/o.zip',
    'zip -r@ src/o.zip',
    'cpio -o',
    'cpio -ov'
  ])('%s is denied', (command) => {
    expect([command, ...decisions(command)]).toEqual([command, 'deny', 'deny'])
    const d = policies[1]?.decide(shell(command))
    expect(d?.rule).toBe('reads-unknown')
  })
})

describe('repositories are recognised the way git recognises them', () => {
  it.each([
    'cd vendor/w && git log -p',
    '(cd vendor/w && git show)',
    'cd vendor/w; git diff HEAD~1 HEAD',
    'git -C vendor/w log -p',
    'cd vendor/y && git log',
    'cd vendor/v && git log'
  ])('%s is denied', (command) => {
    for (const p of policies) {
      const d = p.decide(shell(command))
      expect([command, d.decision]).toEqual([command, 'deny'])
    }
    expect(policies[1]?.decide(shell(command)).rule).toBe('untrusted-repository')
  })
})

describe("a tool's change-directory option is judged like cd", () => {
  it.each([
    'make test -C src',
    'make test -Csrc',
    'make -sC src test',
    'make test --directory=src',
    'make test --directory src',
    'cd src && make test',
    '(cd src; make)'
  ])('%s is denied', (command) => {
    expect([command, ...decisions(command)]).toEqual([command, 'deny', 'deny'])
  })

  it.each(['make test', 'make -C . test'])('%s is allowed', (command) => {
    expect(policies[1]?.decide(shell(command)).decision).toBe('allow')
  })
})
