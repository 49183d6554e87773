import {
  canWrite,
  clearPermissionCache,
  levelOf,
  PERMISSION_LEVELS,
  repositoryPermission
} from '../../src/github/repo-permissions.js'
import type { FakeGitHub } from '../../test-support/github-api.js'
import { startFakeGitHub } from '../../test-support/github-api.js'
import { fakeClient } from './helpers.js'

const REPO = { owner: 'acme', repo: 'widgets' }
let api: FakeGitHub

beforeEach(async () => {
  api = await startFakeGitHub()
})

afterEach(async () => {
  await api.close()
})

const permissionCalls = () => api.requests.filter((r) => r.path.endsWith('/permission'))

describe('canWrite', () => {
  it('is true for admin, maintain and write only', () => {
    expect(PERMISSION_LEVELS.filter(canWrite)).toEqual(['admin', 'maintain', 'write'])
  })
})

describe('levelOf', () => {
  it('prefers a known role_name over the collapsed permission', () => {
    expect(levelOf({ permission: 'write', role_name: 'maintain' })).toBe('maintain')
    expect(levelOf({ permission: 'read', role_name: 'triage' })).toBe('triage')
    expect(levelOf({ permission: 'admin', role_name: 'admin', user: { login: 'a' } })).toBe('admin')
  })

  it('falls back to permission for custom roles and a missing role_name', () => {
    expect(levelOf({ permission: 'write', role_name: 'release-manager' })).toBe('write')
    expect(levelOf({ permission: 'read' })).toBe('read')
    expect(levelOf({ permission: 'read', role_name: null })).toBe('read')
  })

  it('grants nothing for values it does not know, and rejects malformed responses', () => {
    expect(levelOf({ permission: 'superuser', role_name: 'root' })).toBe('none')
    expect(levelOf({ permission: 'none', role_name: 'none' })).toBe('none')
    expect(() => levelOf({ role_name: 'admin' })).toThrow(/unexpected collaborator permission/)
    expect(() => levelOf('admin')).toThrow(/unexpected/)
  })
})

describe('repositoryPermission', () => {
  it('reads the precise role over HTTP, and 404 is none', async () => {
    api.setPermission('Max', 'maintain')
    api.setPermission('tia', 'triage')
    api.setPermission('cus', { role_name: 'ci-admin', permission: 'admin' })
    const client = fakeClient(api)
    await expect(repositoryPermission(client, REPO, 'max')).resolves.toBe('maintain')
    await expect(repositoryPermission(client, REPO, 'tia')).resolves.toBe('triage')
    await expect(repositoryPermission(client, REPO, 'cus')).resolves.toBe('admin')
    await expect(repositoryPermission(client, REPO, 'stranger')).resolves.toBe('none')
    expect(permissionCalls().map((r) => [r.path, r.status])).toEqual([
      ['/repos/acme/widgets/collaborators/max/permission', 200],
      ['/repos/acme/widgets/collaborators/tia/permission', 200],
      ['/repos/acme/widgets/collaborators/cus/permission', 200],
      ['/repos/acme/widgets/collaborators/stranger/permission', 404]
    ])
  })

  it('encodes bot logins in the path', async () => {
    api.setPermission('renovate[bot]', 'write')
    await expect(repositoryPermission(fakeClient(api), REPO, 'renovate[bot]')).resolves.toBe(
      'write'
    )
  })

  it('caches per client and login (any case), per repository', async () => {
    api.setPermission('ada', 'admin')
    const client = fakeClient(api)
    const [a, b] = await Promise.all([
      repositoryPermission(client, REPO, 'ada'),
      repositoryPermission(client, REPO, 'ADA')
    ])
    expect([a, b]).toEqual(['admin', 'admin'])
    await repositoryPermission(client, REPO, 'ada')
    expect(permissionCalls()).toHaveLength(1)
    await repositoryPermission(client, { owner: 'acme', repo: 'other' }, 'ada')
    expect(permissionCalls()).toHaveLength(2)
    await repositoryPermission(fakeClient(api), REPO, 'ada')
    expect(permissionCalls()).toHaveLength(3)
    clearPermissionCache(client)
    api.setPermission('ada', 'read')
    await expect(repositoryPermission(client, REPO, 'ada')).resolves.toBe('read')
  })

  it('throws on failures other than 404, and does not cache them', async () => {
    api.setPermission('ada', 'admin')
    const client = fakeClient(api)
    api.failNext({
      status: 403,
      path: /\/permission$/,
      body: { message: 'Resource not accessible by integration' }
    })
    await expect(repositoryPermission(client, REPO, 'ada')).rejects.toMatchObject({ status: 403 })
    await expect(repositoryPermission(client, REPO, 'ada')).resolves.toBe('admin')
  })

  it('throws on a malformed response', async () => {
    api.failNext({ status: 200, path: /\/permission$/, body: { role: 'admin' } })
    await expect(repositoryPermission(fakeClient(api), REPO, 'ada')).rejects.toThrow(
      /unexpected collaborator permission response/
    )
  })
})
