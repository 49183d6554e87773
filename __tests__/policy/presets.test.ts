import os from 'node:os'
import { readFileSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import type { CompiledPolicy } from '../../src/policy/index.js'
import {
  compilePolicy,
  PRESET_NAMES,
  presetText,
  resolvePolicyText,
  runPolicyTests
} from '../../src/policy/index.js'
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

  it('reads inside the workspace, dotfiles included, and outside only the system locations', () => {
    expect(p.decide(read('src/a.ts')).decision).toBe('allow')
    expect(p.decide(read('.env')).decision).toBe('allow')
    expect(p.decide(read('/etc/passwd')).rule).toBe('system-read')
    expect(p.decide(read('etc-link/passwd')).rule).toBe('system-read')
    expect(p.decide(read('/etc/shadow')).decision).toBe('deny')
    expect(p.decide(read('/srv/data/x')).rule).toBe('outside-workspace')
    expect(p.decide(read(`${os.homedir()}/.m2/settings.xml`)).rule).toBe('outside-workspace')
  })

  it('denies writes, urls, mcp, memory and tools', () => {
    expect(p.decide(write('src/a.ts')).decision).toBe('deny')
    expect(p.decide(url('https://docs.github.com/')).decision).toBe('deny')
    expect(p.decide(mcp('github', 'get_issue')).decision).toBe('deny')
    expect(p.decide({ kind: 'memory' })).toMatchObject({ decision: 'deny', rule: 'no-memory' })
    expect(p.decide(tool('x')).decision).toBe('deny')
  })
})

describe.each(PRESET_NAMES)('preset %s', (name) => {
  it('passes its own tests section', async () => {
    const p = await compilePolicy(presetText(name), `built-in:${name}`, ws.dir)
    expect(p.tests.length).toBeGreaterThanOrEqual(10)
    expect(runPolicyTests(p).map((f) => f.message)).toEqual([])
  })

  it('is documented in policy/README.md with every rule id', () => {
    const readme = readFileSync(new URL('../../policy/README.md', import.meta.url), 'utf8')
    expect(readme).toContain(`### \`${name}\``)
    const section = readme.split(`### \`${name}\``)[1]?.split('\n### ')[0] ?? ''
    for (const rule of resolvePolicyText(presetText(name), `built-in:${name}`).parsed.rules) {
      expect([name, rule.id, section.includes(`\`${rule.id}\``)]).toEqual([name, rule.id, true])
    }
  })
})

describe('extends', () => {
  it('puts the policy rules first and prefixes the preset rule ids', async () => {
    const p = await compilePolicy(
      `version: 1
extends: ci-fix
rules:
  - { id: publish-docs, decision: allow, shell: ["npm publish --dry-run"] }
  - { id: no-tests, decision: deny, reason: too slow, shell: ["npm test*"] }
`,
      'policy.yml',
      ws.dir
    )
    expect(p.presets).toEqual(['ci-fix', 'read-only'])
    expect(p.rules.slice(0, 3).map((r) => r.id)).toEqual([
      'publish-docs',
      'no-tests',
      'ci-fix/no-publish'
    ])
    expect(p.rules.map((r) => r.id)).toContain('read-only/env-hijack')
    // a deny still beats an allow, wherever the rules come from
    expect(p.decide(shell('npm publish --dry-run'))).toMatchObject({
      decision: 'deny',
      rule: 'ci-fix/no-publish'
    })
    expect(p.decide(shell('npm test'))).toMatchObject({ decision: 'deny', rule: 'no-tests' })
    expect(p.decide(shell('npm run build')).rule).toBe('ci-fix/project-checks')
    expect(p.decide(write('.github/x')).rule).toBe('ci-fix/protected-files')
    expect(p.decide(read('src/a.ts')).rule).toBe('read-only/read-workspace')
  })

  it("keeps the preset's default unless the policy sets one", async () => {
    const inherit = await compilePolicy('version: 1\nextends: read-only\n', 'p.yml', ws.dir)
    expect(inherit.defaultDecision).toBe('deny')
    const own = await compilePolicy(
      'version: 1\nextends: read-only\ndefault: allow\n',
      'p.yml',
      ws.dir
    )
    expect(own.decide(shell('make')).decision).toBe('allow')
    expect(own.decide(shell('find . -delete')).decision).toBe('deny')
  })

  it('rejects an unknown preset with the names of the known ones', async () => {
    await expect(compilePolicy('version: 1\nextends: yolo\n', 'p.yml', ws.dir)).rejects.toThrow(
      /p\.yml:2:10: "extends" must be "read-only" or "ci-fix" or "maintenance"/
    )
  })
})
