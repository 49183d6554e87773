/**
 * The CLI's private HOME (wall/cli-wall.ts) is removed after the run: links in it removed, never
 * followed; directories made unwritable in it removed too.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { privateHomeOf, removePrivateHome } from '../../src/wall/cli-wall.js'

let base: string

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'private-home-'))
})

afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true })
})

it('removes the private HOME of the run, and nothing a link in it leads to', () => {
  const tempDir = path.join(base, 'run')
  const outside = path.join(base, 'outside')
  fs.mkdirSync(outside)
  fs.writeFileSync(path.join(outside, 'keep'), 'keep\n')
  const home = privateHomeOf(tempDir)
  expect(home).toBe(path.join(tempDir, 'home'))
  fs.mkdirSync(path.join(home, '.cache', 'copilot'), { recursive: true })
  fs.writeFileSync(path.join(home, '.bashrc'), 'x\n')
  fs.symlinkSync(outside, path.join(home, 'link'))
  fs.mkdirSync(path.join(home, 'locked', 'sub'), { recursive: true })
  fs.writeFileSync(path.join(home, 'locked', 'sub', 'f'), 'x\n')
  fs.chmodSync(path.join(home, 'locked', 'sub'), 0o500)
  fs.chmodSync(path.join(home, 'locked'), 0o500)
  fs.writeFileSync(path.join(tempDir, 'report.json'), '{}\n')

  expect(removePrivateHome(tempDir)).toBe(true)
  expect(fs.existsSync(home)).toBe(false)
  expect(fs.readFileSync(path.join(outside, 'keep'), 'utf8')).toBe('keep\n')
  // the run's other files stay
  expect(fs.existsSync(path.join(tempDir, 'report.json'))).toBe(true)
  // nothing there: nothing to do
  expect(removePrivateHome(tempDir)).toBe(false)
})
