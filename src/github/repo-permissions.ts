/**
 * A user's permission on a repository, from `GET /repos/{owner}/{repo}/collaborators/{username}/permission`.
 *
 * The response has two fields: `permission` (the legacy one: `admin`, `write`, `read` or `none`;
 * `maintain` is reported as `write` and `triage` as `read`) and `role_name` (the precise role:
 * `admin`, `maintain`, `write`, `triage`, `read`, or the name of a custom role). `role_name` wins
 * when it is one of the known levels; a custom role falls back to `permission`, which GitHub
 * derives from the custom role's base role. A 404 (not a collaborator, no such user) is `none`.
 *
 * Answers are cached per client for a minute: the trusted-actor gate and every approval poll ask
 * about the same few people.
 */
import { z } from 'zod'
import type { GitHubClient } from './client.js'

export type PermissionLevel = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'

/** Most to least privileged. */
export const PERMISSION_LEVELS: readonly PermissionLevel[] = [
  'admin',
  'maintain',
  'write',
  'triage',
  'read',
  'none'
]

export interface RepoRef {
  owner: string
  repo: string
}

/** Whether `level` may push: `admin`, `maintain` or `write`. */
export function canWrite(level: PermissionLevel): boolean {
  return level === 'admin' || level === 'maintain' || level === 'write'
}

function isLevel(value: string): value is PermissionLevel {
  return (PERMISSION_LEVELS as readonly string[]).includes(value)
}

/** The response, extra fields tolerated. */
const PermissionResponse = z.object({
  permission: z.string(),
  role_name: z.string().nullish()
})

/** The level a response grants: `role_name` when known, else `permission`, else `none`. */
export function levelOf(response: unknown): PermissionLevel {
  const parsed = PermissionResponse.safeParse(response)
  if (!parsed.success) {
    throw new Error(`unexpected collaborator permission response: ${parsed.error.message}`)
  }
  const role = parsed.data.role_name?.trim().toLowerCase() ?? ''
  // `role_name: none` is not a thing GitHub sends; it would not add anything over `permission`.
  if (isLevel(role) && role !== 'none') return role
  const permission = parsed.data.permission.trim().toLowerCase()
  // An unknown value grants nothing: fail closed.
  return isLevel(permission) ? permission : 'none'
}

/** The HTTP status of an Octokit error, if it is one. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined
  return typeof error.status === 'number' ? error.status : undefined
}

/** How long a cached answer is used (ms). */
export const PERMISSION_CACHE_MS = 60_000

interface CacheEntry {
  at: number
  level: Promise<PermissionLevel>
}

const caches = new WeakMap<object, Map<string, CacheEntry>>()

function cacheFor(client: GitHubClient): Map<string, CacheEntry> {
  let cache = caches.get(client)
  if (!cache) caches.set(client, (cache = new Map<string, CacheEntry>()))
  return cache
}

/** Forget every cached permission of `client`. */
export function clearPermissionCache(client: GitHubClient): void {
  caches.delete(client)
}

/**
 * `login`'s permission on `repo`. Throws on API failures other than 404 (after the client's
 * retries) and on a malformed response; callers decide how to fail closed. Logins compare
 * case-insensitively, as on GitHub. Concurrent calls for the same user share one request; a failed
 * request is not cached.
 */
export function repositoryPermission(
  client: GitHubClient,
  repo: RepoRef,
  login: string
): Promise<PermissionLevel> {
  const key = `${repo.owner}/${repo.repo}\n${login}`.toLowerCase()
  const cache = cacheFor(client)
  const hit = cache.get(key)
  const now = Date.now()
  if (hit && now - hit.at < PERMISSION_CACHE_MS) return hit.level
  const level = fetchPermission(client, repo, login)
  const entry: CacheEntry = { at: now, level }
  cache.set(key, entry)
  level.catch(() => {
    if (cache.get(key) === entry) cache.delete(key)
  })
  return level
}

async function fetchPermission(
  client: GitHubClient,
  repo: RepoRef,
  login: string
): Promise<PermissionLevel> {
  try {
    const { data } = await client.rest.repos.getCollaboratorPermissionLevel({
      owner: repo.owner,
      repo: repo.repo,
      username: login
    })
    return levelOf(data)
  } catch (error) {
    if (statusOf(error) === 404) return 'none'
    throw error
  }
}
