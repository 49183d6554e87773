/**
 * readTreeFile: a file named inside the workspace stays inside it physically, only regular files
 * are read, and at most the limit; what a refused link points to is never opened.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { readTreeFile, TreeFileError, TREE_FILE_MAX_BYTES } from '../../src/tree-file.js'

let base: string
let ws: string
let outside: string

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tree-file-')))
  ws = path.join(base, 'ws')
  outside = path.join(base, 'outside')
  fs.mkdirSync(path.join(ws, 'sub'), { recursive: true })
  fs.mkdirSync(outside)
  fs.writeFileSync(path.join(ws, 'task.md'), 'the task\n')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET-VALUE-31f2\n')
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

const read = (name: string, maxBytes?: number) =>
  readTreeFile({
    what: "input 'prompt-file'",
    name,
    base: ws,
    workspace: ws,
    ...(maxBytes === undefined ? {} : { maxBytes })
  })

function refusal(name: string, maxBytes?: number): TreeFileError {
  try {
    read(name, maxBytes)
  } catch (error) {
    if (error instanceof TreeFileError) return error
    throw error
  }
  throw new Error(`${name} was read`)
}

describe('readTreeFile', () => {
  it('reads a regular file of the tree', () => {
    expect(read('task.md')).toEqual({
      file: path.join(ws, 'task.md'),
      realPath: path.join(ws, 'task.md'),
      text: 'the task\n'
    })
  })

  it('refuses a symlink out of the workspace, naming the input, the path and where it leads', () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link.md'))
    const error = refusal('link.md')
    expect(error.problem).toBe('outside')
    expect(error.message).toContain("Input 'prompt-file'")
    expect(error.message).toContain(path.join(ws, 'link.md'))
    expect(error.message).toContain(`leads to '${path.join(outside, 'secret.txt')}'`)
    expect(error.message).not.toContain('SECRET-VALUE')
  })

  it('refuses a symlink chain that ends outside, and a directory link that leads out', () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'sub', 'b.md'))
    fs.symlinkSync('sub/b.md', path.join(ws, 'a.md'))
    expect(refusal('a.md').problem).toBe('outside')
    fs.symlinkSync(outside, path.join(ws, 'dir'))
    expect(refusal('dir/secret.txt').problem).toBe('outside')
    // relative `..` out of the tree through a link is the same
    fs.symlinkSync('../outside/secret.txt', path.join(ws, 'rel.md'))
    expect(refusal('rel.md').problem).toBe('outside')
  })

  it('reads a symlink that stays in the workspace', () => {
    fs.symlinkSync('../task.md', path.join(ws, 'sub', 'alias.md'))
    fs.symlinkSync('sub/alias.md', path.join(ws, 'chain.md'))
    expect(read('chain.md')).toMatchObject({
      realPath: path.join(ws, 'task.md'),
      text: 'the task\n'
    })
  })

  it('refuses /proc/self/environ through a link, and named directly', () => {
    fs.symlinkSync('/proc/self/environ', path.join(ws, 'env.md'))
    const error = refusal('env.md')
    expect(error.problem).toBe('outside')
    expect(error.message).toMatch(/leads to '\/proc\/\d+\/environ'/)
    // named outside the workspace by the workflow itself: still not a regular file
    const direct = refusal('/proc/self/environ')
    expect(direct.problem).toBe('not-regular')
    expect(direct.message).toContain("kernel's proc filesystem")
  })

  it('refuses a FIFO without hanging on it', () => {
    execFileSync('mkfifo', [path.join(ws, 'pipe.md')])
    const started = Date.now()
    const error = refusal('pipe.md')
    expect(error.problem).toBe('not-regular')
    expect(error.message).toContain('a FIFO')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it("refuses a hard link in the tree (an outside file's data under an inside name), unread", () => {
    fs.linkSync(path.join(outside, 'secret.txt'), path.join(ws, 'linked.md'))
    const error = refusal('linked.md')
    expect(error.problem).toBe('hard-link')
    expect(error.message).toContain("Input 'prompt-file'")
    expect(error.message).toContain('a file with 2 names (a hard link)')
    expect(error.message).toContain('cp --remove-destination')
    expect(error.message).not.toContain('SECRET-VALUE')
    // through a symlink inside the tree too
    fs.symlinkSync('linked.md', path.join(ws, 'via-link.md'))
    expect(refusal('via-link.md').problem).toBe('hard-link')
    // the workflow's own file outside the workspace is its choice
    expect(read(path.join(outside, 'secret.txt')).text).toBe('SECRET-VALUE-31f2\n')
  })

  it('refuses a directory', () => {
    const error = refusal('sub')
    expect(error.problem).toBe('not-regular')
    expect(error.kind).toBe('a directory')
  })

  it('refuses a file over the limit, naming the limit', () => {
    fs.writeFileSync(path.join(ws, 'big.md'), Buffer.alloc(TREE_FILE_MAX_BYTES + 1, 'a'))
    const error = refusal('big.md')
    expect(error.problem).toBe('too-large')
    expect(error.message).toContain('at most 1 MiB')
    expect(refusal('task.md', 4).message).toContain('at most 4 bytes')
    expect(read('task.md', 9).text).toBe('the task\n')
  })

  it('says a missing file, or a link to nothing, is missing', () => {
    expect(refusal('nope.md').problem).toBe('missing')
    expect(refusal('nope/deeper.md').problem).toBe('missing')
    fs.symlinkSync('gone.md', path.join(ws, 'dangling.md'))
    const error = refusal('dangling.md')
    expect(error.problem).toBe('missing')
    expect(error.message).toContain('which does not exist')
    // a link to nothing outside is still a link out
    fs.symlinkSync(path.join(outside, 'gone.txt'), path.join(ws, 'dangling-out.md'))
    expect(refusal('dangling-out.md').problem).toBe('outside')
  })

  it('reads a file the workflow names outside the workspace', () => {
    expect(read(path.join(outside, 'secret.txt')).text).toBe('SECRET-VALUE-31f2\n')
  })

  it('judges the workspace by where it physically is', () => {
    fs.symlinkSync(ws, path.join(base, 'ws-link'))
    const viaLink = readTreeFile({
      what: 'the policy',
      name: 'task.md',
      base: path.join(base, 'ws-link'),
      workspace: path.join(base, 'ws-link')
    })
    expect(viaLink.text).toBe('the task\n')
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link.md'))
    expect(() =>
      readTreeFile({
        what: 'the policy',
        name: 'link.md',
        base: path.join(base, 'ws-link'),
        workspace: path.join(base, 'ws-link')
      })
    ).toThrow(/outside the workspace/)
  })
})
