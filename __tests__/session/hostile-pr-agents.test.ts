/**
 * `agent:` as the author of a hostile pull request: `.github/agents` a symlink to a directory
 * outside the workspace. Asserts the SECURE outcome: a failing test is a confirmed finding.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { readCustomAgent } from '../../src/session/custom-agent.js'

it('a .github/agents symlink out of the workspace: the error lists nothing of the directory it leads to', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-agents-'))
  try {
    const ws = path.join(base, 'workspace')
    const outside = path.join(base, 'home', '.config', 'private-notes')
    fs.mkdirSync(path.join(ws, '.github'), { recursive: true })
    fs.mkdirSync(outside, { recursive: true })
    fs.writeFileSync(path.join(outside, 'acquisition-of-initech-2025.md'), 'x')
    fs.symlinkSync(outside, path.join(ws, '.github', 'agents'))
    let message = ''
    try {
      readCustomAgent('reviewer', ws, ws)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).not.toBe('')
    expect(message).not.toContain('acquisition-of-initech-2025')
  } finally {
    fs.rmSync(base, { recursive: true, force: true })
  }
})
