import { symlinkSync } from 'node:fs'
import path from 'node:path'
import type { CompiledPolicy } from '../../src/policy/index.js'
import { compilePolicy, presetText } from '../../src/policy/index.js'
import { mcp, read, shell, tempWorkspace, tool, url, write, writeFiles } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
beforeAll(() => {
  ws = tempWorkspace()
  writeFiles(ws.dir, { 'src/a.ts': '', '.env': '' })
  symlinkSync('/etc', path.join(ws.dir, 'etc-link'))
})
afterAll(() => ws.cleanup())

describe('preset read-only', () => {
  let p: CompiledPolicy
  beforeAll(async () => {
    p = await compilePolicy(presetText('read-only'), 'built-in:read-only', ws.dir)
  })

  it.each([
    'ls',
    'ls -la src',
    'cat src/a.ts',
    'head -n 20 README.md',
    'tail -n 5 log.txt',
    'wc -l src/*.ts',
    'grep -rn "TODO" src',
    'rg -n policy src',
    'find . -name "*.ts"',
    'find src -type f | head',
    'pwd',
    'echo hello',
    'echo hello > /dev/null',
    'git status',
    'git status --short',
    'git diff',
    'git diff HEAD~1 -- src',
    'git log --oneline -n 10',
    'git show HEAD:src/a.ts',
    'cat src/a.ts | grep x | wc -l',
    'cd src && ls'
  ])('allows %j', (command) => {
    expect(p.decide(shell(command))).toMatchObject({ decision: 'allow' })
  })

  it.each([
    'rm -rf src',
    'echo x > src/a.ts',
    'echo x >> README.md',
    'cat src/a.ts | tee copy.ts',
    'find . -exec rm {} \\;',
    'find . -delete',
    'find . -name x -execdir sh -c "id" \\;',
    'find . -fprint out.txt',
    'rg --pre ./evil.sh x',
    'git diff --output=/tmp/x',
    'git difftool -x evil',
    'git push',
    'git commit -m x',
    'git checkout -- src',
    'git -c core.pager=evil log',
    'npm test',
    'sed -i s/a/b/ src/a.ts',
    'PATH=./evil:$PATH git status',
    'LD_PRELOAD=./x.so cat a',
    'GIT_EXTERNAL_DIFF=./evil git diff',
    'export PATH=.; git status',
    'ls $(rm -rf src)',
    'bash -c "ls"',
    'curl https://example.com'
  ])('denies %j', (command) => {
    expect(p.decide(shell(command)).decision).toBe('deny')
  })

  it('reads inside the workspace, dotfiles included, and nothing outside', () => {
    expect(p.decide(read('src/a.ts')).decision).toBe('allow')
    expect(p.decide(read('.env')).decision).toBe('allow')
    expect(p.decide(read('/etc/passwd')).decision).toBe('deny')
    expect(p.decide(read('etc-link/passwd')).decision).toBe('deny')
  })

  it('denies writes, urls, mcp, memory and tools', () => {
    expect(p.decide(write('src/a.ts')).decision).toBe('deny')
    expect(p.decide(url('https://docs.github.com/')).decision).toBe('deny')
    expect(p.decide(mcp('github', 'get_issue')).decision).toBe('deny')
    expect(p.decide({ kind: 'memory' })).toMatchObject({ decision: 'deny', rule: 'no-memory' })
    expect(p.decide(tool('x')).decision).toBe('deny')
  })
})
