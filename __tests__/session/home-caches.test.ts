/** HOME's caches the CLI makes for the session are removed once it is gone (src/session/home-caches.ts). */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { HomeCaches } from '../../src/session/home-caches.js'

let home: string
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'home-caches-'))
})
afterEach(() => fs.rmSync(home, { recursive: true, force: true }))

it('removes what did not exist before the session, keeps what did', () => {
  fs.mkdirSync(path.join(home, '.cache', 'pip'), { recursive: true })
  fs.writeFileSync(path.join(home, '.cache', 'pip', 'keep'), 'x')
  const caches = ['.cache', '.cache/pip', '.cache/node/corepack', '.npm', '.node-gyp'].map((c) =>
    path.join(home, c)
  )
  const guard = HomeCaches.before(caches)
  // what the session left: a planted pnpm, an npx cache, a link in place of a cache
  fs.mkdirSync(path.join(home, '.cache', 'node', 'corepack', 'pnpm'), { recursive: true })
  fs.writeFileSync(path.join(home, '.cache', 'node', 'corepack', 'pnpm', 'pnpm.cjs'), 'evil')
  fs.mkdirSync(path.join(home, '.npm', '_npx'), { recursive: true })
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'home-caches-target-'))
  fs.writeFileSync(path.join(outside, 'kept'), 'x')
  fs.symlinkSync(outside, path.join(home, '.node-gyp'))
  try {
    expect(
      guard
        .sweep()
        .map((p) => path.relative(home, p))
        .sort()
    ).toEqual(['.cache/node/corepack', '.node-gyp', '.npm'].sort())
    expect(fs.existsSync(path.join(home, '.cache', 'node', 'corepack'))).toBe(false)
    expect(fs.existsSync(path.join(home, '.npm'))).toBe(false)
    expect(fs.readFileSync(path.join(home, '.cache', 'pip', 'keep'), 'utf8')).toBe('x')
    // the link went, not what it pointed to
    expect(fs.existsSync(path.join(home, '.node-gyp'))).toBe(false)
    expect(fs.readFileSync(path.join(outside, 'kept'), 'utf8')).toBe('x')
    expect(guard.sweep()).toEqual([])
  } finally {
    fs.rmSync(outside, { recursive: true, force: true })
  }
})
