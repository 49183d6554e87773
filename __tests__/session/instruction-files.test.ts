/**
 * Instruction files the CLI reads by itself: those that lead out of the workspace or are not
 * regular files are moved aside for the session (the link itself) and put back after it.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  findUnsafeInstructionFiles,
  restoreInstructionFiles,
  stashInstructionFiles
} from '../../src/session/instruction-files.js'

let base: string
let ws: string
let home: string
let stash: string
let credential: string

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'instruction-files-')))
  ws = path.join(base, 'ws')
  home = path.join(base, 'home')
  stash = path.join(base, 'temp', 'instruction-files')
  fs.mkdirSync(path.join(ws, '.github', 'instructions', 'deep'), { recursive: true })
  fs.mkdirSync(path.join(home, '.docker'), { recursive: true })
  credential = path.join(home, '.docker', 'config.json')
  fs.writeFileSync(credential, '{"auths": {"x": "CRED"}}')
  fs.writeFileSync(path.join(ws, 'README.md'), 'readme\n')
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

const link = (target: string, at: string): void => {
  fs.mkdirSync(path.dirname(path.join(ws, at)), { recursive: true })
  fs.symlinkSync(target, path.join(ws, at))
}
const relative = (entries: Array<{ entry: string }>): string[] =>
  entries.map((e) => path.relative(ws, e.entry))

describe('findUnsafeInstructionFiles', () => {
  it('finds the instruction files that lead out of the workspace, and only those', () => {
    link(credential, 'AGENTS.md')
    link(credential, '.github/copilot-instructions.md')
    link(credential, '.github/instructions/deep/x.instructions.md')
    link(path.join(home, '.docker'), '.claude/rules')
    link('README.md', 'CLAUDE.md') // inside: fine
    link(credential, 'notes.md') // not an instruction file
    link(credential, '.github/instructions/other.txt') // a name the CLI does not read
    fs.writeFileSync(path.join(ws, 'GEMINI.md'), 'plain file\n')
    const found = findUnsafeInstructionFiles(ws, ws)
    expect(relative(found)).toEqual([
      '.claude/rules',
      '.github/copilot-instructions.md',
      '.github/instructions/deep/x.instructions.md',
      'AGENTS.md'
    ])
    expect(found[3]?.reason).toBe(`a symlink to ${credential}, outside the workspace`)
  })

  it('moves the directory link when a directory on the way leads out', () => {
    fs.rmSync(path.join(ws, '.github'), { recursive: true })
    fs.mkdirSync(path.join(home, 'gh'))
    fs.writeFileSync(path.join(home, 'gh', 'copilot-instructions.md'), 'outside\n')
    link(path.join(home, 'gh'), '.github')
    expect(relative(findUnsafeInstructionFiles(ws, ws))).toEqual(['.github'])
  })

  it('finds a FIFO, looks in the parents up to the workspace, and follows links inside it', () => {
    execFileSync('mkfifo', [path.join(ws, 'AGENTS.md')])
    fs.mkdirSync(path.join(ws, 'sub'))
    link(credential, 'sub/CLAUDE.md')
    link('deep', '.github/instructions/alias')
    link(credential, '.github/instructions/deep/y.instructions.md')
    const found = findUnsafeInstructionFiles(ws, path.join(ws, 'sub'))
    expect(relative(found)).toEqual([
      '.github/instructions/deep/y.instructions.md',
      'AGENTS.md',
      'sub/CLAUDE.md'
    ])
    expect(found[1]?.reason).toBe('a FIFO (named pipe), not a regular file')
  })

  it("finds a hard link (an outside file's data under an instruction file's name)", () => {
    fs.linkSync(credential, path.join(ws, 'AGENTS.md'))
    fs.linkSync(credential, path.join(ws, '.github', 'instructions', 'deep', 'h.instructions.md'))
    fs.writeFileSync(path.join(ws, 'CLAUDE.md'), 'plain file\n')
    const found = findUnsafeInstructionFiles(ws, ws)
    expect(relative(found)).toEqual(['.github/instructions/deep/h.instructions.md', 'AGENTS.md'])
    expect(found[1]?.reason).toBe(
      'a hard link (3 names), whose data may be a file outside the workspace'
    )
  })

  it('finds nothing in a tree without instruction files', () => {
    expect(findUnsafeInstructionFiles(ws, ws)).toEqual([])
  })
})

describe('stashInstructionFiles and restoreInstructionFiles', () => {
  it('moves the links aside and puts them back as links', () => {
    link(credential, 'AGENTS.md')
    link(credential, '.github/copilot-instructions.md')
    let saved = 0
    const kept = stashInstructionFiles(ws, ws, stash, { beforeChange: () => saved++ })
    expect(saved).toBe(1)
    expect(kept.map((k) => k.path)).toEqual(['.github/copilot-instructions.md', 'AGENTS.md'])
    expect(fs.existsSync(path.join(ws, 'AGENTS.md'))).toBe(false)
    expect(
      fs.lstatSync(path.join(ws, '.github/copilot-instructions.md'), { throwIfNoEntry: false })
    ).toBeUndefined()
    // what the links point to is untouched
    expect(fs.readFileSync(credential, 'utf8')).toContain('CRED')
    expect((fs.statSync(stash).mode & 0o777).toString(8)).toBe('700')

    const record = restoreInstructionFiles(stash)
    expect(record).toEqual({
      found: true,
      restored: ['.github/copilot-instructions.md', 'AGENTS.md'],
      failed: []
    })
    expect(fs.readlinkSync(path.join(ws, 'AGENTS.md'))).toBe(credential)
    expect(fs.readlinkSync(path.join(ws, '.github/copilot-instructions.md'))).toBe(credential)
    expect(fs.existsSync(stash)).toBe(false)
    // a second restore (the post step after a run that put them back) finds nothing
    expect(restoreInstructionFiles(stash).found).toBe(false)
  })

  it('moves nothing and saves no state when every file is safe', () => {
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), 'fine\n')
    let saved = 0
    expect(stashInstructionFiles(ws, ws, stash, { beforeChange: () => saved++ })).toEqual([])
    expect(saved).toBe(0)
    expect(fs.existsSync(stash)).toBe(false)
  })

  it('leaves a place the session filled alone, keeping the stash for the post step', () => {
    link(credential, 'AGENTS.md')
    stashInstructionFiles(ws, ws, stash)
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), 'the agent wrote this\n')
    const record = restoreInstructionFiles(stash)
    expect(record.failed).toEqual(['AGENTS.md: the session put something else there'])
    expect(fs.readFileSync(path.join(ws, 'AGENTS.md'), 'utf8')).toBe('the agent wrote this\n')
    fs.rmSync(path.join(ws, 'AGENTS.md'))
    expect(restoreInstructionFiles(stash).restored).toEqual(['AGENTS.md'])
    expect(fs.readlinkSync(path.join(ws, 'AGENTS.md'))).toBe(credential)
  })

  it('never writes into a directory that now leads out of the workspace', () => {
    link(credential, '.github/copilot-instructions.md')
    stashInstructionFiles(ws, ws, stash)
    fs.rmSync(path.join(ws, '.github'), { recursive: true })
    fs.mkdirSync(path.join(home, 'elsewhere'))
    link(path.join(home, 'elsewhere'), '.github')
    const record = restoreInstructionFiles(stash)
    expect(record.failed).toEqual([
      '.github/copilot-instructions.md: its directory now leads out of the workspace'
    ])
    expect(fs.readdirSync(path.join(home, 'elsewhere'))).toEqual([])
  })
})
