import { mkdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import type { CompiledPolicy } from '../../src/policy/index.js'
import picomatch from 'picomatch'
import {
  MATCH_OPTIONS,
  pathMatcher,
  physicalPath,
  resolveRequestPath
} from '../../src/policy/paths.js'
import {
  compile,
  EXAMPLE_POLICY,
  read,
  shell,
  tempWorkspace,
  write,
  writeFiles
} from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
let outside: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy

beforeAll(async () => {
  ws = tempWorkspace()
  outside = tempWorkspace('policy-outside-')
  writeFiles(ws.dir, { 'src/a.ts': '', 'README.md': '', '.github/workflows/ci.yml': '' })
  writeFiles(outside.dir, { 'secret.txt': '' })
  // src/escape -> a directory outside the workspace
  symlinkSync(outside.dir, path.join(ws.dir, 'src', 'escape'))
  // src/dangling -> a file outside that does not exist yet (a write would create it there)
  symlinkSync(path.join(outside.dir, 'created-by-write'), path.join(ws.dir, 'src', 'dangling'))
  // src/rel -> ../.github (a relative link to a denied directory)
  symlinkSync('../.github', path.join(ws.dir, 'src', 'rel'))
  // lib -> src (a link that stays inside)
  symlinkSync('src', path.join(ws.dir, 'lib'))
  // a link loop
  symlinkSync('loop-b', path.join(ws.dir, 'loop-a'))
  symlinkSync('loop-a', path.join(ws.dir, 'loop-b'))
  mkdirSync(path.join(ws.dir, 'src', 'deep', 'er'), { recursive: true })
  policy = await compile(EXAMPLE_POLICY, ws.dir)
})
afterAll(() => {
  ws.cleanup()
  outside.cleanup()
})

describe('write and read paths', () => {
  it('allows writes the rules allow, inside the workspace', () => {
    expect(policy.decide(write(path.join(ws.dir, 'src/a.ts')))).toMatchObject({
      decision: 'allow',
      rule: 'sources',
      kind: 'write',
      subject: path.join(ws.dir, 'src/a.ts')
    })
    expect(policy.decide(write('src/new/file.ts')).decision).toBe('allow')
    expect(policy.decide(write('README.md')).decision).toBe('allow')
    expect(policy.decide(write('./docs.md')).decision).toBe('allow')
  })

  it('denies src/../../etc/passwd', () => {
    const d = policy.decide(write('src/../../etc/passwd'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'outside-workspace' })
    expect(policy.decide(write(`${ws.dir}/src/../../etc/passwd`)).decision).toBe('deny')
    expect(policy.decide(write(`${ws.dir}/../escape.txt`)).decision).toBe('deny')
  })

  it('does not match src/** for a symlink in the workspace that points outside', () => {
    const d = policy.decide(write(path.join(ws.dir, 'src/escape/secret.txt')))
    expect(d).toMatchObject({ decision: 'deny', rule: 'outside-workspace' })
    expect(d.reason).toContain(outside.dir)
    expect(policy.decide(write('src/escape/new-file')).decision).toBe('deny')
  })

  it('follows dangling symlinks to where a write would land', () => {
    expect(policy.decide(write('src/dangling')).decision).toBe('deny')
  })

  it('applies deny rules to where a symlink leads', () => {
    expect(policy.decide(write('src/rel/workflows/ci.yml'))).toMatchObject({
      decision: 'deny',
      rule: 'workflows'
    })
  })

  it('allows a path through a symlink that stays inside an allowed directory', () => {
    expect(policy.decide(write('lib/a.ts'))).toMatchObject({ decision: 'allow', rule: 'sources' })
  })

  it('resolves .. after a symlink the way the kernel does', () => {
    // src/escape/.. is the parent of the outside directory, not src/
    expect(policy.decide(write('src/escape/../x.md')).decision).toBe('deny')
  })

  it('denies deny-listed paths, dotfiles included', () => {
    expect(policy.decide(write('.github/workflows/ci.yml'))).toMatchObject({
      decision: 'deny',
      rule: 'workflows'
    })
    expect(policy.decide(write('src/../.github/workflows/x.yml')).rule).toBe('workflows')
  })

  it('matches dotfiles with **', () => {
    expect(policy.decide(read('.github/workflows/ci.yml'))).toMatchObject({
      decision: 'allow',
      rule: 'read-all'
    })
    expect(policy.decide(read('src/.hidden/x')).decision).toBe('allow')
    expect(policy.decide(read('.env')).decision).toBe('allow')
  })

  it('denies reads outside the workspace with the relative ** rule', () => {
    expect(policy.decide(read('/srv/data/passwd'))).toMatchObject({
      decision: 'deny',
      rule: 'outside-workspace'
    })
    expect(policy.decide(read(path.join(outside.dir, 'secret.txt'))).decision).toBe('deny')
    expect(policy.decide(read('src/escape/secret.txt')).decision).toBe('deny')
  })

  it('matches absolute globs against absolute paths', async () => {
    const p = await compile(
      `version: 1
rules:
  - { id: tmp, decision: allow, write: ["${outside.dir}/**"] }
  - { id: no-secret, decision: deny, write: ["${outside.dir}/secret.*"] }
`,
      ws.dir
    )
    expect(p.decide(write(path.join(outside.dir, 'x.txt'))).rule).toBe('tmp')
    expect(p.decide(write(path.join(outside.dir, 'secret.txt'))).rule).toBe('no-secret')
    // through the workspace symlink: the real path is in the allowed directory
    expect(p.decide(write('src/escape/x.txt'))).toMatchObject({ decision: 'allow', rule: 'tmp' })
    expect(p.decide(write('src/escape/secret.txt')).rule).toBe('no-secret')
    // a relative path inside the workspace is not matched by the absolute glob
    expect(p.decide(write('src/a.ts'))).toMatchObject({ decision: 'deny', rule: 'default' })
  })

  it('does not let an absolute allow match a path that leaves it through a symlink', async () => {
    const p = await compile(
      `version: 1\nrules:\n  - { id: ws, decision: allow, write: ["${ws.dir}/**"] }\n`,
      ws.dir
    )
    expect(p.decide(write(path.join(ws.dir, 'src/a.ts'))).decision).toBe('allow')
    expect(p.decide(write(path.join(ws.dir, 'src/escape/x'))).decision).toBe('deny')
  })

  it('denies invalid paths', () => {
    expect(policy.decide(write('loop-a/x'))).toMatchObject({
      decision: 'deny',
      rule: 'invalid-request'
    })
    expect(policy.decide(write('src/a\0b'))).toMatchObject({ rule: 'invalid-request' })
    expect(policy.decide({ kind: 'write' })).toMatchObject({ rule: 'invalid-request' })
    expect(policy.decide({ kind: 'read', path: '' })).toMatchObject({ rule: 'invalid-request' })
  })

  it('does not treat a sibling directory with the same prefix as inside', async () => {
    const p = await compile(`version: 1\nrules:\n  - { decision: allow, write: ["**"] }\n`, ws.dir)
    expect(p.decide(write(`${ws.dir}-evil/x`)).decision).toBe('deny')
    expect(p.decide(write(`${ws.dir}/x`)).decision).toBe('allow')
  })

  it('lets default apply inside the workspace only', async () => {
    const p = await compile(`version: 1\ndefault: allow\n`, ws.dir)
    expect(p.decide(write('anything.bin'))).toMatchObject({ decision: 'allow', rule: 'default' })
    expect(p.decide(write('/etc/passwd'))).toMatchObject({
      decision: 'deny',
      rule: 'outside-workspace'
    })
  })

  it('checks shell redirect targets through symlinks', async () => {
    const p = await compile(EXAMPLE_POLICY + `  - { decision: allow, shell: ["echo *"] }\n`, ws.dir)
    expect(p.decide(shell('echo x > src/b.ts')).decision).toBe('allow')
    expect(p.decide(shell('echo x > src/escape/b.ts')).decision).toBe('deny')
    expect(p.decide(shell('echo x > src/rel/workflows/ci.yml')).rule).toBe('workflows')
  })
})

describe('path resolution', () => {
  it('resolves physically, component by component', () => {
    expect(physicalPath(path.join(ws.dir, 'lib/a.ts'))).toBe(path.join(ws.dir, 'src/a.ts'))
    expect(physicalPath(path.join(ws.dir, 'src/escape/secret.txt'))).toBe(
      path.join(outside.dir, 'secret.txt')
    )
    expect(physicalPath(path.join(ws.dir, 'src/deep/er/../../a.ts'))).toBe(
      path.join(ws.dir, 'src/a.ts')
    )
    expect(physicalPath(path.join(ws.dir, 'missing/../x'))).toBe(path.join(ws.dir, 'x'))
  })

  it('gives both readings when .. follows a symlink', () => {
    const r = resolveRequestPath('src/escape/../x', ws.dir)
    expect(r.lexical).toBe(path.join(ws.dir, 'src/x'))
    expect(r.real).toEqual(
      expect.arrayContaining([
        path.join(ws.dir, 'src/x'),
        path.join(path.dirname(outside.dir), 'x')
      ])
    )
  })
})

describe('pathMatcher', () => {
  it('answers exactly what picomatch does with the policy options', () => {
    const globs = [
      '**',
      '*.md',
      'src/**',
      'src/**/*.ts',
      '**/.env',
      '**/.env.*',
      '.github/**',
      '/tmp/**',
      '/etc/shadow',
      'docs/*/index.md',
      'a?c',
      '[ab]*.txt',
      '{src,test}/**',
      '!negated',
      'literal(1).txt',
      '**/secrets/**'
    ]
    const paths = [
      '.',
      '',
      'README.md',
      'docs/README.md',
      'src',
      'src/a.ts',
      'src/deep/b.ts',
      '.env',
      'pkg/.env',
      'pkg/.env.local',
      '.github/workflows/ci.yml',
      '/tmp/x',
      '/tmp',
      '/etc/shadow',
      'docs/guide/index.md',
      'abc',
      'a/c',
      'b1.txt',
      'test/x',
      '!negated',
      'negated',
      'literal(1).txt',
      'x/secrets/key',
      'src/',
      '/tmp/'
    ]
    // file globs, and URL path globs (src/policy/url.ts)
    for (const options of [MATCH_OPTIONS, { dot: true, nonegate: true }]) {
      for (const glob of globs) {
        const ours = pathMatcher(glob, options)
        const theirs = picomatch(glob, options)
        for (const p of paths) expect([glob, p, ours(p)]).toEqual([glob, p, theirs(p)])
      }
    }
  })
})
