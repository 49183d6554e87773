/**
 * What the entry decides before the policy is loaded, so that the CLI boots once:
 * - the wall it starts the CLI behind, guessed from the policy file's text (cli/early-wall.ts);
 * - whether the CLI behind the wall may read the host's compile cache (wall/cli-wall.ts).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { policyTurnsSandboxOff, turnsSandboxOff } from '../../src/cli/early-wall.js'
import { trustedCompileCache } from '../../src/wall/cli-wall.js'

describe('turnsSandboxOff', () => {
  it.each([
    'version: 1\nsandbox:\n  mode: off\n',
    'version: 1\nsandbox:\n    mode: "off"   # on macOS runners\nrules: []\n',
    "sandbox:\n\n  mode: 'off'\n",
    'sandbox: { mode: off }\n',
    'sandbox: {mode: "off"} # comment\n',
    'version: 1\r\nsandbox:\r\n  mode: off\r\n'
  ])('reads off in %j', (text) => {
    expect(turnsSandboxOff(text)).toBe(true)
  })

  it.each([
    'version: 1\n',
    'version: 1\nsandbox:\n  mode: auto\n',
    'sandbox:\n  mode: required\n',
    'sandbox: { mode: auto }\n',
    // a comment, another key's value, a nested or later key
    'version: 1\n# sandbox:\n#   mode: off\n',
    'version: 1\nsandbox:\n  mode: auto\nrules:\n  - id: x\n    mode: off\n',
    'rules:\n  - sandbox:\n      mode: off\n',
    'sandbox:\n  mode: auto\nother:\n  mode: off\n',
    'sandbox:\nmode: off\n',
    'sandbox:\n  mode: offline\n',
    // YAML the guess does not follow: read as not off (the loaded policy decides)
    'sandbox: &s\n  mode: auto\n'
  ])('does not read off in %j', (text) => {
    expect(turnsSandboxOff(text)).toBe(false)
  })
})

describe('policyTurnsSandboxOff', () => {
  let workspace: string
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'early-wall-'))
    fs.mkdirSync(path.join(workspace, '.github'))
  })
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }))

  const policy = (): string => path.join(workspace, '.github', 'copilot-policy.yml')

  it('reads the policy file as the loader does', () => {
    fs.writeFileSync(policy(), 'version: 1\nsandbox:\n  mode: off\n')
    expect(policyTurnsSandboxOff(policy(), workspace, workspace)).toBe(true)
    fs.writeFileSync(policy(), 'version: 1\n')
    expect(policyTurnsSandboxOff(policy(), workspace, workspace)).toBe(false)
  })

  it('guesses nothing from a file the loader would refuse: missing, a link out, a FIFO', () => {
    expect(policyTurnsSandboxOff(policy(), workspace, workspace)).toBe(false)
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'early-wall-out-'))
    try {
      fs.writeFileSync(path.join(outside, 'p.yml'), 'sandbox:\n  mode: off\n')
      fs.symlinkSync(path.join(outside, 'p.yml'), policy())
      expect(policyTurnsSandboxOff(policy(), workspace, workspace)).toBe(false)
      fs.rmSync(policy())
      fs.linkSync(path.join(outside, 'p.yml'), policy())
      expect(policyTurnsSandboxOff(policy(), workspace, workspace)).toBe(false)
    } finally {
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })
})

describe('trustedCompileCache', () => {
  let base: string
  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'compile-cache-'))
  })
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

  it("is a directory of this user's that no one else can write into", () => {
    const cache = path.join(base, 'node-compile-cache')
    fs.mkdirSync(path.join(cache, 'v24.20.0-x64-e0ecef1d-0'), { recursive: true, mode: 0o755 })
    fs.chmodSync(cache, 0o755)
    expect(trustedCompileCache(cache)).toBe(cache)
  })

  it('is none where others can write into it or a version directory in it, or it is a link', () => {
    const cache = path.join(base, 'node-compile-cache')
    expect(trustedCompileCache(cache)).toBeUndefined() // missing
    fs.mkdirSync(cache, { mode: 0o700 })
    const version = path.join(cache, 'v24.20.0-x64-e0ecef1d-0')
    fs.mkdirSync(version, { mode: 0o700 })
    fs.chmodSync(version, 0o777)
    expect(trustedCompileCache(cache)).toBeUndefined()
    fs.chmodSync(version, 0o700)
    fs.chmodSync(cache, 0o775)
    expect(trustedCompileCache(cache)).toBeUndefined()
    fs.chmodSync(cache, 0o700)
    expect(trustedCompileCache(cache)).toBe(cache)
    const link = path.join(base, 'link')
    fs.symlinkSync(cache, link)
    expect(trustedCompileCache(link)).toBeUndefined()
  })
})
