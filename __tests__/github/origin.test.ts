/**
 * The repository a checkout belongs to (issue 32): its `origin` remote parsed to owner/name, and
 * the report naming that repository, not the workflow's, with the run's link.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { checkoutOriginUrl, parseRemoteUrl, parseRepositoryName } from '../../src/github/origin.js'
import { withRunContext } from '../../src/reporting/publish.js'
import { sampleReport } from '../reporting/sample-reports.js'

describe('parseRemoteUrl', () => {
  it.each([
    ['https://github.com/acme/widgets', 'github.com', 'acme', 'widgets'],
    ['https://github.com/acme/widgets.git', 'github.com', 'acme', 'widgets'],
    [
      'https://x-access-token:ghs_secret@github.com/acme/widgets.git/',
      'github.com',
      'acme',
      'widgets'
    ],
    ['git@github.com:acme/widgets.git', 'github.com', 'acme', 'widgets'],
    ['ssh://git@GHE.example.com:2222/Acme/my.repo.git', 'ghe.example.com', 'Acme', 'my.repo']
  ])('%s → %s %s/%s', (url, host, owner, name) => {
    expect(parseRemoteUrl(url)).toEqual({ host, owner, name })
  })

  it.each([
    '/tmp/origin.git',
    'file:///tmp/acme/widgets.git',
    'https://github.com/acme',
    'https://github.com/acme/widgets/extra',
    'https://github.com/acme/..',
    'https://github.com/-acme/widgets',
    'https://github.com/acme/wid%gets',
    ''
  ])('refuses %j', (url) => {
    expect(parseRemoteUrl(url)).toBeUndefined()
  })

  it('parses owner/name strictly', () => {
    expect(parseRepositoryName(' acme/widgets ')).toEqual({ owner: 'acme', name: 'widgets' })
    expect(parseRepositoryName('acme/widgets#1')).toBeUndefined()
    expect(parseRepositoryName('acme widgets/x')).toBeUndefined()
    expect(parseRepositoryName('acme/wid/gets')).toBeUndefined()
  })
})

describe('checkoutOriginUrl', () => {
  let dir: string
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'origin-'))
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('reads the origin of the checkout at or above the directory, and nothing without one', () => {
    expect(checkoutOriginUrl(dir)).toBeUndefined()
    execFileSync('git', ['init', '-q', dir])
    expect(checkoutOriginUrl(dir)).toBeUndefined()
    execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', 'https://github.com/acme/widgets'])
    fs.mkdirSync(path.join(dir, 'packages', 'app'), { recursive: true })
    expect(checkoutOriginUrl(path.join(dir, 'packages', 'app'))).toBe(
      'https://github.com/acme/widgets'
    )
  })
})

describe('withRunContext', () => {
  const env = {
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/fleet-control',
    GITHUB_RUN_ID: '77',
    GITHUB_RUN_ATTEMPT: '2',
    GITHUB_JOB: 'agent'
  }

  it('names the checkout’s origin as the repository, not the workflow’s, and links the run', () => {
    const report = withRunContext(
      sampleReport('completed'),
      env,
      'https://x-access-token:ghs_abc@github.com/acme/widgets.git'
    )
    expect(report.checkout).toEqual({ repository: 'acme/widgets', from: 'origin' })
    expect(report.repository).toBe('https://github.com/acme/widgets')
    expect(report.run).toEqual({
      url: 'https://github.com/acme/fleet-control/actions/runs/77/attempts/2',
      id: '77',
      attempt: 2,
      job: 'agent'
    })
    expect(JSON.stringify(report)).not.toContain('ghs_abc')
  })

  it('falls back to the workflow’s repository for a remote on another server or a local path', () => {
    for (const origin of ['https://gitlab.com/acme/widgets', '/tmp/origin.git', undefined]) {
      expect(withRunContext(sampleReport('completed'), env, origin).checkout).toEqual({
        repository: 'acme/fleet-control',
        from: 'workflow'
      })
    }
    expect(withRunContext(sampleReport('completed'), {}, undefined)).not.toHaveProperty('checkout')
  })
})
