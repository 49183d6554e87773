/**
 * A `read` glob that covers a whole tree (`**`, `src/**`) also covers the tree's directory: a
 * read of the working directory itself (the agent viewing or listing it) is allowed by
 * `read: ["**"]`, and a deny such as `secrets/**` also denies reading `secrets`.
 * `write` rules keep matching files only.
 */
import { mkdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import type { CompiledPolicy } from '../../src/policy/index.js'
import { compilePolicy, presetText } from '../../src/policy/index.js'
import {
  compilePathGlob,
  pathGlobMatchesTreeRoot,
  subjectPath,
  type PathGlob
} from '../../src/policy/paths.js'
import { compile, read, tempWorkspace, write, writeFiles } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
let outside: ReturnType<typeof tempWorkspace>

beforeAll(() => {
  ws = tempWorkspace()
  outside = tempWorkspace('policy-outside-')
  writeFiles(ws.dir, {
    'src/a.ts': '',
    'secrets/key.pem': '',
    docs: 'a file named docs, not a directory',
    'x/y/z.txt': ''
  })
  mkdirSync(path.join(outside.dir, 'data'))
  // safe -> secrets: the real path is what a read opens
  symlinkSync('secrets', path.join(ws.dir, 'safe'))
})
afterAll(() => {
  ws.cleanup()
  outside.cleanup()
})

describe('read: ["**"] and the working directory itself', () => {
  let policy: CompiledPolicy
  let open: CompiledPolicy
  beforeAll(async () => {
    open = await compile(
      'version: 1\nrules:\n  - { id: read-all, decision: allow, read: ["**"] }\n',
      ws.dir
    )
    policy = await compile(
      [
        'version: 1',
        'rules:',
        '  - { id: read-all, decision: allow, read: ["**"] }',
        '  - { id: write-all, decision: allow, write: ["**"] }',
        '  - { id: no-secrets, decision: deny, read: ["secrets/**"] }'
      ].join('\n'),
      ws.dir
    )
  })

  it.each([
    ['the absolute path', () => ws.dir],
    ['the absolute path with a slash', () => `${ws.dir}/`],
    ['.', () => '.'],
    ['./', () => './'],
    ['src/..', () => 'src/..']
  ])('allows reading the root as %s', (_, p) => {
    expect(open.decide(read(p()))).toMatchObject({ decision: 'allow', rule: 'read-all' })
  })

  it('denies reading a directory a denied tree lies below (a grep of it reads the tree)', () => {
    for (const p of ['.', ws.dir, `${ws.dir}/`, 'src/..']) {
      expect(policy.decide(read(p))).toMatchObject({ decision: 'deny', rule: 'no-secrets' })
    }
  })

  it('allows reading a directory inside, as before', () => {
    expect(policy.decide(read('src'))).toMatchObject({ decision: 'allow', rule: 'read-all' })
    expect(policy.decide(read('src/'))).toMatchObject({ decision: 'allow', rule: 'read-all' })
  })

  it.each(['secrets', 'secrets/', `./secrets`, 'SECRETS', 'src/../secrets', 'safe'])(
    'denies reading the directory %s of a denied tree',
    (p) => {
      expect(policy.decide(read(p))).toMatchObject({ decision: 'deny', rule: 'no-secrets' })
    }
  )

  it('denies the absolute path of a denied directory', () => {
    expect(policy.decide(read(path.join(ws.dir, 'secrets')))).toMatchObject({
      decision: 'deny',
      rule: 'no-secrets'
    })
  })

  it('still denies the files below it, and not its neighbours', () => {
    expect(policy.decide(read('secrets/key.pem')).rule).toBe('no-secrets')
    expect(policy.decide(read('secrets-public')).decision).toBe('allow')
  })

  it('keeps write rules to files: writing the root itself is not allowed by write: ["**"]', () => {
    expect(policy.decide(write(ws.dir))).toMatchObject({ decision: 'deny', rule: 'default' })
    expect(policy.decide(write('.'))).toMatchObject({ decision: 'deny', rule: 'default' })
  })
})

describe('the built-in read-only preset', () => {
  it('allows reading the working directory itself', async () => {
    const policy = await compilePolicy(presetText('read-only'), 'built-in:read-only', ws.dir)
    for (const p of [ws.dir, `${ws.dir}/`, '.']) {
      expect(policy.decide(read(p))).toMatchObject({ decision: 'allow', rule: 'read-workspace' })
    }
  })
})

describe('other globs over a tree', () => {
  it('allows reading dir for dir/** only when it is a directory', async () => {
    const policy = await compile(
      'version: 1\nrules:\n  - { id: r, decision: allow, read: ["src/**", "docs/**", "x/**/*"] }\n',
      ws.dir
    )
    expect(policy.decide(read('src')).decision).toBe('allow')
    expect(policy.decide(read('x')).decision).toBe('allow')
    // a file named docs is not below docs/: the glob does not grant it
    expect(policy.decide(read('docs'))).toMatchObject({ decision: 'deny', rule: 'default' })
    // a directory that does not exist is not read either
    expect(policy.decide(read('src/missing-dir'))).toMatchObject({ decision: 'allow' })
    expect(policy.decide(read('nothing'))).toMatchObject({ decision: 'deny', rule: 'default' })
    // the root is not below src/
    expect(policy.decide(read('.'))).toMatchObject({ decision: 'deny', rule: 'default' })
  })

  it('denies reading a denied directory whatever it is (deny beats allow)', async () => {
    const policy = await compile(
      [
        'version: 1',
        'rules:',
        '  - { id: all, decision: allow, read: ["**"] }',
        '  - { id: no-docs, decision: deny, read: ["docs/**"] }',
        '  - { id: no-deep, decision: deny, read: ["**/y/**"] }'
      ].join('\n'),
      ws.dir
    )
    expect(policy.decide(read('docs')).rule).toBe('no-docs')
    expect(policy.decide(read('x/y')).rule).toBe('no-deep')
    // x holds y: reading x (a grep, a glob) may read what no-deep refuses
    expect(policy.decide(read('x')).rule).toBe('no-deep')
    // a glob that may match anywhere below (its base is the root) refuses every directory read
    expect(policy.decide(read('src')).rule).toBe('no-deep')
  })

  it('does not give the root to a glob over some of its directories', async () => {
    const policy = await compile(
      'version: 1\nrules:\n  - { id: r, decision: allow, read: ["?/**", "*/**"] }\n',
      ws.dir
    )
    expect(policy.decide(read('.'))).toMatchObject({ decision: 'deny', rule: 'default' })
    expect(policy.decide(read('x')).decision).toBe('allow')
  })

  it('covers an absolute directory outside the working directory', async () => {
    const policy = await compile(
      `version: 1\nrules:\n  - { id: data, decision: allow, read: ["${outside.dir}/data/**"] }\n`,
      ws.dir
    )
    expect(policy.decide(read(path.join(outside.dir, 'data')))).toMatchObject({
      decision: 'allow',
      rule: 'data'
    })
    expect(policy.decide(read(outside.dir)).decision).toBe('deny')
  })

  it('denies reading a directory above a denied one, also through a symlink', async () => {
    mkdirSync(path.join(outside.dir, 'data', 'secret'), { recursive: true })
    symlinkSync(path.join(outside.dir, 'data'), path.join(ws.dir, 'datalink'))
    const policy = await compile(
      [
        'version: 1',
        'rules:',
        `  - { id: data, decision: allow, read: ["${outside.dir}/data/**"] }`,
        `  - { id: no-secret, decision: deny, read: ["${outside.dir}/data/secret/**"] }`
      ].join('\n'),
      ws.dir
    )
    for (const p of [
      path.join(outside.dir, 'data'),
      path.join(outside.dir, 'data', 'secret'),
      'datalink',
      path.join(ws.dir, 'datalink')
    ]) {
      expect(policy.decide(read(p))).toMatchObject({ decision: 'deny', rule: 'no-secret' })
    }
  })
})

describe('pathGlobMatchesTreeRoot', () => {
  const root = '/ws'
  const at = (p: string) => subjectPath(p, root)
  const matches = (glob: PathGlob, p: string) => pathGlobMatchesTreeRoot(glob, at(p))

  it.each([
    ['**', '/ws', true],
    ['**/*', '/ws', true],
    ['./**', '/ws', true],
    ['**/**', '/ws', true],
    ['**', '/ws/src', false],
    ['src/**', '/ws/src', true],
    ['src/**/*', '/ws/src', true],
    ['src/**', '/ws', false],
    ['src/**', '/ws/src2', false],
    ['src/*', '/ws/src', false],
    ['src/**/**', '/ws/src', true],
    ['*/**', '/ws/a', true],
    ['*/**', '/ws', false],
    ['?/**', '/ws', false],
    ['**/gen/**', '/ws/a/gen', true],
    ['/tmp/**', '/tmp', true],
    ['/**', '/', true],
    ['/tmp/**', '/ws', false],
    ['src/**', '/elsewhere/src', false]
  ])('%s covers the directory %s: %s', (glob, p, expected) => {
    expect(matches(compilePathGlob(glob), p)).toBe(expected)
  })

  it('ignores letter case for deny globs only', () => {
    expect(matches(compilePathGlob('Secrets/**', true), '/ws/secrets')).toBe(true)
    expect(matches(compilePathGlob('Secrets/**', false), '/ws/secrets')).toBe(false)
  })
})
