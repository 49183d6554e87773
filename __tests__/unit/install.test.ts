import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as tc from '@actions/tool-cache'
import { findCli } from '../../src/cli/install.js'

let root: string
const saved = { cache: process.env.RUNNER_TOOL_CACHE, temp: process.env.RUNNER_TEMP }
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-cache-'))
  process.env.RUNNER_TOOL_CACHE = path.join(root, 'cache')
  process.env.RUNNER_TEMP = path.join(root, 'temp')
})
afterEach(() => {
  for (const [name, value] of [
    ['RUNNER_TOOL_CACHE', saved.cache],
    ['RUNNER_TEMP', saved.temp]
  ] as const) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  fs.rmSync(root, { recursive: true, force: true })
})

describe('findCli', () => {
  it('finds what tc.cacheDir cached, the way tc.find does, without loading tool-cache', async () => {
    const prefix = path.join(root, 'prefix')
    const bin = path.join(prefix, 'node_modules', '.bin')
    fs.mkdirSync(bin, { recursive: true })
    fs.writeFileSync(path.join(bin, 'copilot'), '#!/bin/sh\n', { mode: 0o755 })
    expect(findCli({ cliVersion: '1.2.3' })).toBeUndefined()
    const dir = await tc.cacheDir(prefix, 'copilot-cli', '1.2.3')
    expect(tc.find('copilot-cli', '1.2.3')).toBe(dir)
    expect(findCli({ cliVersion: '1.2.3' })).toEqual({
      path: path.join(dir, 'node_modules', '.bin', 'copilot'),
      version: '1.2.3',
      source: 'tool-cache'
    })
    expect(findCli({ cliVersion: '1.2.4' })).toBeUndefined()
  })

  it('ignores a cache entry without its .complete marker (an interrupted install)', async () => {
    const prefix = path.join(root, 'prefix')
    fs.mkdirSync(path.join(prefix, 'node_modules', '.bin'), { recursive: true })
    fs.writeFileSync(path.join(prefix, 'node_modules', '.bin', 'copilot'), '')
    const dir = await tc.cacheDir(prefix, 'copilot-cli', '1.2.3')
    fs.rmSync(`${dir}.complete`)
    expect(findCli({ cliVersion: '1.2.3' })).toBeUndefined()
  })

  it('prefers cli-path, unchecked until it is started', () => {
    expect(findCli({ cliPath: '/opt/copilot', cliVersion: '1.2.3' })).toEqual({
      path: '/opt/copilot',
      version: null,
      source: 'cli-path'
    })
  })
})
