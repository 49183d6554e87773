/**
 * The checkout's credentials out of the workspace's git config during the session, and back
 * afterwards: real repositories in temporary directories, configured the way actions/checkout
 * configures them.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { STASH_FILE, restoreCredentials, stashCredentials } from '../../src/session/credentials.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const TOKEN = 'ghs_FakeCheckoutToken1234567890abcdef'
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64')
const HEADER = `AUTHORIZATION: basic ${BASIC}`
const UUID = '0d4c7b1e-5f3a-4a8e-9c2d-6b1a2f3e4d5c'

let base: string
let workspace: string
let runnerTemp: string
let stashDir: string

const env: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com'
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: 'pipe' })
}

function read(file: string): Buffer {
  return fs.readFileSync(path.join(workspace, file))
}

/** Every file of the tree under `dir` (relative path → bytes), `.git` included. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>()
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      if (entry.isDirectory()) walk(full)
      else files.set(path.relative(dir, full), fs.readFileSync(full).toString('base64'))
    }
  }
  walk(dir)
  return files
}

/** What git in the workspace sees, includes followed (as the agent's `git config --list`). */
function seen(cwd: string = workspace): string {
  const result = spawnSync('git', ['config', '--list', '--show-origin'], {
    cwd,
    env,
    encoding: 'utf8'
  })
  return result.stdout + result.stderr
}

beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'credentials-'))
  workspace = path.join(base, 'workspace')
  runnerTemp = path.join(base, 'runner-temp')
  stashDir = path.join(runnerTemp, 'autopilot', 'credentials')
  fs.mkdirSync(workspace)
  fs.mkdirSync(runnerTemp)
  git(workspace, 'init', '-q', '-b', 'main')
  fs.writeFileSync(path.join(workspace, 'README.md'), '# r\n')
  git(workspace, 'add', '.')
  git(workspace, 'commit', '-q', '-m', 'init')
  git(workspace, 'remote', 'add', 'origin', 'https://github.com/octo/repo')
})

afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true })
})

const stash = (options: { directories?: string[] } = {}) => {
  const secrets: string[] = []
  const record = stashCredentials(workspace, stashDir, {
    runnerTemp,
    env,
    onSecret: (secret) => secrets.push(secret),
    ...options
  })
  return { record, secrets }
}

/** As actions/checkout v4 and v5 write it: the header in .git/config. */
function checkoutV4(): void {
  git(workspace, 'config', '--local', 'http.https://github.com/.extraheader', HEADER)
}

/** As actions/checkout v6+ writes it: a credentials file in RUNNER_TEMP, included by gitdir. */
function checkoutV6(): string {
  const credentials = path.join(runnerTemp, `git-credentials-${UUID}.config`)
  git(runnerTemp, 'config', '--file', credentials, 'http.https://github.com/.extraheader', HEADER)
  const gitDir = path.join(workspace, '.git')
  git(workspace, 'config', `includeIf.gitdir:${gitDir}.path`, credentials)
  git(workspace, 'config', `includeIf.gitdir:${gitDir}/worktrees/*.path`, credentials)
  const container = `/github/runner_temp/git-credentials-${UUID}.config`
  git(workspace, 'config', 'includeIf.gitdir:/github/workspace/.git.path', container)
  git(workspace, 'config', 'includeIf.gitdir:/github/workspace/.git/worktrees/*.path', container)
  return credentials
}

describe('stashCredentials and restoreCredentials', () => {
  it('takes out the extraheader actions/checkout v4/v5 writes and puts it back byte for byte', () => {
    checkoutV4()
    git(workspace, 'config', 'user.name', 'octocat')
    const before = read('.git/config')
    expect(seen()).toContain(BASIC)

    const { record, secrets } = stash()
    expect(record.removed).toEqual(['.git/config: http.https://github.com/.extraheader'])
    expect(record.files).toEqual(['.git/config'])
    expect(JSON.stringify(record)).not.toContain(BASIC)
    // masked: the header, its base64, the decoded pair and the token
    expect(secrets).toEqual(expect.arrayContaining([HEADER, BASIC, TOKEN]))
    const during = read('.git/config').toString()
    expect(during).not.toContain(BASIC)
    expect(seen()).not.toContain(BASIC)
    // everything else is kept
    expect(during).toContain('name = octocat')
    expect(during).toContain('url = https://github.com/octo/repo')

    // the stash is private and outside the workspace
    const stashFile = path.join(stashDir, STASH_FILE)
    expect(fs.statSync(stashFile).mode & 0o777).toBe(0o600)
    expect(fs.statSync(stashDir).mode & 0o777).toBe(0o700)

    const restored = restoreCredentials(stashDir, { env })
    expect(restored).toMatchObject({
      found: true,
      restored: ['.git/config'],
      merged: [],
      failed: []
    })
    expect(read('.git/config').equals(before)).toBe(true)
    expect(fs.existsSync(stashFile)).toBe(false)
  })

  it('removes the includeIf entries of checkout v6+ that point at its credentials file in RUNNER_TEMP', () => {
    const credentials = checkoutV6()
    const before = read('.git/config')
    const credentialsBefore = fs.readFileSync(credentials)
    expect(seen()).toContain(BASIC)

    const { record, secrets } = stash()
    expect(record.removed.sort()).toEqual(
      [
        `.git/config: includeif.gitdir:${path.join(workspace, '.git')}.path`,
        `.git/config: includeif.gitdir:${path.join(workspace, '.git')}/worktrees/*.path`,
        '.git/config: includeif.gitdir:/github/workspace/.git.path',
        '.git/config: includeif.gitdir:/github/workspace/.git/worktrees/*.path'
      ].sort()
    )
    expect(secrets).toEqual(expect.arrayContaining([BASIC, TOKEN]))
    expect(read('.git/config').toString()).not.toContain('git-credentials-')
    expect(seen()).not.toContain(BASIC)
    // the credentials file itself is checkout's (its post step deletes it): not touched
    expect(fs.readFileSync(credentials).equals(credentialsBefore)).toBe(true)

    restoreCredentials(stashDir, { env })
    expect(read('.git/config').equals(before)).toBe(true)
    expect(seen()).toContain(BASIC)
  })

  it('drops a token from remote URLs and keeps the remotes', () => {
    git(
      workspace,
      'remote',
      'set-url',
      'origin',
      `https://x-access-token:${TOKEN}@github.com/octo/repo`
    )
    git(workspace, 'remote', 'add', 'mirror', 'https://user:p%40ssw0rd@git.example.com/r.git')
    git(workspace, 'remote', 'add', 'ssh', 'git@github.com:octo/repo.git')
    git(
      workspace,
      'config',
      `url.https://oauth2:${TOKEN}@gitlab.example.com/.insteadOf`,
      'https://gitlab.example.com/'
    )
    const before = read('.git/config')

    const { record, secrets } = stash()
    expect(record.removed.sort()).toEqual(
      [
        '.git/config: remote.origin.url',
        '.git/config: remote.mirror.url',
        '.git/config: url.https://***@gitlab.example.com/.insteadof'
      ].sort()
    )
    expect(secrets).toEqual(expect.arrayContaining([TOKEN, 'p%40ssw0rd', 'p@ssw0rd']))
    expect(git(workspace, 'remote', 'get-url', 'origin').trim()).toBe(
      'https://github.com/octo/repo'
    )
    expect(git(workspace, 'remote', 'get-url', 'mirror').trim()).toBe(
      'https://git.example.com/r.git'
    )
    expect(git(workspace, 'remote', 'get-url', 'ssh').trim()).toBe('git@github.com:octo/repo.git')
    const during = read('.git/config').toString()
    expect(during).not.toContain(TOKEN)
    expect(during).not.toContain('ssw0rd')

    restoreCredentials(stashDir, { env })
    expect(read('.git/config').equals(before)).toBe(true)
  })

  it("takes the credentials out of submodules' configs too", () => {
    const upstream = path.join(base, 'upstream')
    fs.mkdirSync(upstream)
    git(upstream, 'init', '-q', '-b', 'main')
    fs.writeFileSync(path.join(upstream, 'lib.js'), 'module.exports = 1\n')
    git(upstream, 'add', '.')
    git(upstream, 'commit', '-q', '-m', 'lib')
    git(
      workspace,
      '-c',
      'protocol.file.allow=always',
      'submodule',
      'add',
      '-q',
      upstream,
      'libs/lib'
    )
    // as checkout v4 configures submodules: the header and the SSH insteadOf in each
    const sub = path.join(workspace, 'libs', 'lib')
    git(sub, 'config', '--local', 'http.https://github.com/.extraheader', HEADER)
    git(sub, 'config', '--local', '--add', 'url.https://github.com/.insteadOf', 'git@github.com:')
    checkoutV4()
    const before = snapshot(path.join(workspace, '.git'))

    const { record } = stash()
    expect(record.removed.sort()).toEqual([
      '.git/config: http.https://github.com/.extraheader',
      '.git/modules/libs/lib/config: http.https://github.com/.extraheader'
    ])
    expect(seen(sub)).not.toContain(BASIC)
    // checkout's insteadOf is no credential: kept
    expect(seen(sub)).toContain('url.https://github.com/.insteadof=git@github.com:')

    restoreCredentials(stashDir, { env })
    expect(snapshot(path.join(workspace, '.git'))).toEqual(before)
  })

  it('takes the credentials out of a config file the repository includes from the workspace', () => {
    const extra = path.join(workspace, '.git', 'extra.config')
    git(workspace, 'config', '--file', extra, 'http.extraheader', `Authorization: bearer ${TOKEN}`)
    git(workspace, 'config', 'include.path', 'extra.config')
    const before = read('.git/config')
    const { record, secrets } = stash()
    expect(record.removed).toEqual(['.git/extra.config: http.extraheader'])
    expect(secrets).toContain(TOKEN)
    expect(seen()).not.toContain(TOKEN)
    expect(read('.git/config').equals(before)).toBe(true)
    restoreCredentials(stashDir, { env })
    expect(seen()).toContain(TOKEN)
  })

  it("finds a repository checked out into a subfolder (checkout's path:) and a working directory's", () => {
    const nested = path.join(workspace, 'tools', 'repo')
    fs.mkdirSync(nested, { recursive: true })
    git(nested, 'init', '-q')
    git(nested, 'config', 'http.https://github.com/.extraheader', HEADER)
    const { record } = stash({ directories: [path.join(nested, 'src')] })
    expect(record.removed).toEqual(['tools/repo/.git/config: http.https://github.com/.extraheader'])
    restoreCredentials(stashDir, { env })
    expect(seen(nested)).toContain(BASIC)
  })

  it('changes nothing, byte for byte, where there is no credential, and writes no stash', () => {
    git(workspace, 'config', 'url.https://github.com/.insteadOf', 'git@github.com:')
    git(workspace, 'config', 'core.sshCommand', 'ssh -o StrictHostKeyChecking=yes')
    const before = snapshot(workspace)
    const { record, secrets } = stash()
    expect(record).toEqual({ removed: [], files: [] })
    expect(secrets).toEqual([])
    expect(snapshot(workspace)).toEqual(before)
    expect(fs.existsSync(stashDir)).toBe(false)
    expect(restoreCredentials(stashDir, { env })).toMatchObject({ found: false, restored: [] })
  })

  it('is safe to run twice: a second stash keeps the first, a second restore does nothing', () => {
    checkoutV4()
    checkoutV6()
    const before = read('.git/config')
    stash()
    const second = stash()
    // the first stash was put back, then stashed again: the same entries, the same stash
    expect(second.record.removed).toHaveLength(5)
    expect(read('.git/config').toString()).not.toContain(BASIC)

    expect(restoreCredentials(stashDir, { env }).restored).toEqual(['.git/config'])
    expect(read('.git/config').equals(before)).toBe(true)
    expect(restoreCredentials(stashDir, { env })).toMatchObject({ found: false, restored: [] })
    expect(read('.git/config').equals(before)).toBe(true)
  })

  it('adds the credentials back to a config changed during the session', () => {
    checkoutV4()
    git(
      workspace,
      'remote',
      'set-url',
      'origin',
      `https://x-access-token:${TOKEN}@github.com/octo/repo`
    )
    stash()
    git(workspace, 'config', 'branch.fix.remote', 'origin')
    const restored = restoreCredentials(stashDir, { env })
    expect(restored.merged).toEqual(['.git/config'])
    expect(git(workspace, 'config', 'branch.fix.remote').trim()).toBe('origin')
    expect(git(workspace, 'config', 'http.https://github.com/.extraheader').trim()).toBe(HEADER)
    expect(git(workspace, 'remote', 'get-url', 'origin').trim()).toBe(
      `https://x-access-token:${TOKEN}@github.com/octo/repo`
    )
  })

  it('does not carry the token through a link planted in place of .git/config', () => {
    checkoutV4()
    const before = read('.git/config')
    stash()
    // the agent swaps .git/config for a symlink to, and then a hard link of, a workspace file
    const leak = path.join(workspace, 'leak.txt')
    fs.writeFileSync(leak, '')
    const config = path.join(workspace, '.git', 'config')
    const sanitized = fs.readFileSync(config)
    fs.rmSync(config)
    fs.symlinkSync(leak, config)
    restoreCredentials(stashDir, { env })
    expect(fs.readFileSync(leak, 'utf8')).toBe('')
    expect(fs.lstatSync(config).isFile()).toBe(true)
    expect(read('.git/config').equals(before)).toBe(true)

    stash()
    fs.rmSync(config)
    fs.writeFileSync(leak, sanitized)
    fs.linkSync(leak, config)
    restoreCredentials(stashDir, { env })
    expect(fs.readFileSync(leak).equals(sanitized)).toBe(true)
    expect(read('.git/config').equals(before)).toBe(true)
  })

  it('keeps the stash when .git now leads elsewhere', () => {
    checkoutV4()
    stash()
    const elsewhere = path.join(base, 'elsewhere')
    fs.renameSync(path.join(workspace, '.git'), elsewhere)
    fs.symlinkSync(elsewhere, path.join(workspace, '.git'))
    const restored = restoreCredentials(stashDir, { env })
    expect(restored.failed).toHaveLength(1)
    expect(fs.readFileSync(path.join(elsewhere, 'config'), 'utf8')).not.toContain(BASIC)
    expect(fs.existsSync(path.join(stashDir, STASH_FILE))).toBe(true)
  })

  it('refuses a stash it did not write, without quoting it', () => {
    checkoutV4()
    stash()
    const stashFile = path.join(stashDir, STASH_FILE)
    const text = fs.readFileSync(stashFile, 'utf8')
    fs.writeFileSync(stashFile, text.replace('"version":1', `"version":2,"x":"${TOKEN}`))
    expect(() => restoreCredentials(stashDir, { env })).toThrow(/is not one this action wrote$/)
    fs.writeFileSync(stashFile, text.replace(/"path":"[^"]*"/, '"path":"relative/config"'))
    expect(() => restoreCredentials(stashDir, { env })).toThrow(/is not one this action wrote$/)
    fs.writeFileSync(stashFile, text)
    expect(restoreCredentials(stashDir, { env }).restored).toEqual(['.git/config'])
  })

  it('is put back by the post step after the main step crashed (the stash named in the state)', () => {
    checkoutV4()
    checkoutV6()
    const before = read('.git/config')
    stash() // … and the main step dies before restoring
    expect(read('.git/config').toString()).not.toContain('extraheader')
    const post = spawnSync(
      process.execPath,
      [
        '--import',
        pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
        path.join(ROOT, 'src', 'post.ts')
      ],
      { env: { ...env, 'STATE_credentials-stash': stashDir }, encoding: 'utf8' }
    )
    expect(post.status).toBe(0)
    expect(post.stdout).toContain('Put the checkout credentials back into .git/config')
    expect(post.stdout).not.toContain(BASIC)
    expect(read('.git/config').equals(before)).toBe(true)
    expect(fs.existsSync(path.join(stashDir, STASH_FILE))).toBe(false)

    // a run that restored by itself leaves nothing for the post step
    const again = spawnSync(
      process.execPath,
      [
        '--import',
        pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
        path.join(ROOT, 'src', 'post.ts')
      ],
      { env: { ...env, 'STATE_credentials-stash': stashDir }, encoding: 'utf8' }
    )
    expect(again.status).toBe(0)
    expect(again.stdout).toBe('')
    expect(read('.git/config').equals(before)).toBe(true)
  })
})
