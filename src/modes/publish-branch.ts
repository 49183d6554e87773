/**
 * Where the publish step may push (issue 29). `push-to: pr-branch` pushes only to a review
 * branch: the head of an open pull request from this repository (asked of the API, not read from
 * the event), never a branch long-lived by name (the built-in list, which `protected-branches`
 * extends and never shrinks) and never one with branch protection or a ruleset (asked of the
 * API). A question the API does not answer refuses the push: what is not known to be a review
 * branch is not one.
 */
import { z } from 'zod'
import type { GitHubClient } from '../github/client.js'
import { clip } from '../text/safe-text.js'

/** Branches long-lived by name, besides the default and the base branch (`**`: any depth). */
export const LONG_LIVED_BRANCHES: readonly string[] = [
  'main',
  'master',
  'develop',
  'release/**',
  'hotfix/**',
  'gh-pages',
  'production',
  'staging'
]

/**
 * Whether `branch` matches a branch pattern: `**` any run of characters, `*` any run without a
 * `/`, compared case-insensitively (so `Main` is main too); `release/**` also matches `release`.
 */
export function branchMatches(pattern: string, branch: string): boolean {
  let source = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? ''
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^/]*'
    else source += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  }
  const re = new RegExp(`^${source}$`, 'i')
  if (re.test(branch)) return true
  return pattern.endsWith('/**') && branch.toLowerCase() === pattern.slice(0, -3).toLowerCase()
}

/** Why `branch` is long-lived by name, or undefined. */
export function longLivedReason(
  branch: string,
  context: { defaultBranch?: string; baseBranch?: string; extra: readonly string[] }
): string | undefined {
  if (context.defaultBranch !== undefined && branch === context.defaultBranch) {
    return 'is the default branch'
  }
  if (context.baseBranch !== undefined && branch === context.baseBranch) {
    return "is the pull request's base branch"
  }
  const builtIn = LONG_LIVED_BRANCHES.find((p) => branchMatches(p, branch))
  if (builtIn !== undefined) return `is a long-lived branch (${builtIn})`
  const extra = context.extra.find((p) => branchMatches(p, branch))
  if (extra !== undefined) return `is a long-lived branch (${extra}, input 'protected-branches')`
  return undefined
}

export interface RepoApi {
  client: GitHubClient
  owner: string
  repo: string
}

const PullRequest = z.looseObject({
  state: z.string(),
  head: z.looseObject({
    ref: z.string(),
    repo: z.looseObject({ full_name: z.string() }).nullable().optional()
  })
})
const Branch = z.looseObject({ protected: z.boolean() })
const Rules = z.array(z.looseObject({ type: z.string() }))

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status === 'number' ? status : undefined
}

function messageOf(error: unknown): string {
  return clip(error instanceof Error ? error.message : String(error), 200)
}

/**
 * Why the patch may not go to pull request `number`'s head `branch`, or undefined when it is a
 * review branch. Asks the API: the pull request (open, head this branch of this repository), the
 * branch (no branch protection), the rules that apply to it (no ruleset).
 */
export async function reviewBranchRefusal(
  api: RepoApi,
  pr: { number: number; branch: string; baseBranch: string; defaultBranch: string },
  extra: readonly string[]
): Promise<string | undefined> {
  const shown = clip(pr.branch, 100)
  const byName = longLivedReason(pr.branch, {
    defaultBranch: pr.defaultBranch,
    baseBranch: pr.baseBranch,
    extra
  })
  if (byName !== undefined) {
    return `pull request #${pr.number}'s head branch ${shown} ${byName}, which push-to: pr-branch never pushes to`
  }
  const { client, owner, repo } = api
  try {
    const found = await client.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner,
      repo,
      pull_number: pr.number
    })
    const parsed = PullRequest.safeParse(found.data)
    if (!parsed.success) return `GitHub's answer about pull request #${pr.number} was not readable`
    const { state, head } = parsed.data
    if (state !== 'open') return `pull request #${pr.number} is ${clip(state, 20)}, not open`
    if (head.ref !== pr.branch) {
      return `pull request #${pr.number}'s head is now ${clip(head.ref, 100)}, not ${shown}`
    }
    if ((head.repo?.full_name ?? '').toLowerCase() !== `${owner}/${repo}`.toLowerCase()) {
      return `pull request #${pr.number} comes from another repository`
    }
  } catch (error) {
    return `GitHub did not say whether pull request #${pr.number} is open (${messageOf(error)})`
  }
  try {
    const branch = await client.request('GET /repos/{owner}/{repo}/branches/{branch}', {
      owner,
      repo,
      branch: pr.branch
    })
    const parsed = Branch.safeParse(branch.data)
    if (!parsed.success) return `GitHub's answer about branch ${shown} was not readable`
    if (parsed.data.protected) return `branch ${shown} has branch protection`
  } catch (error) {
    return statusOf(error) === 404
      ? `branch ${shown} does not exist`
      : `GitHub did not say whether branch ${shown} is protected (${messageOf(error)})`
  }
  try {
    const rules = await client.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', {
      owner,
      repo,
      branch: pr.branch
    })
    const parsed = Rules.safeParse(rules.data)
    if (!parsed.success) return `GitHub's answer about the rulesets of ${shown} was not readable`
    if (parsed.data.length > 0) {
      const types = [...new Set(parsed.data.map((r) => clip(r.type, 40)))].join(', ')
      return `branch ${shown} has a ruleset (${types})`
    }
  } catch (error) {
    return `GitHub did not say whether a ruleset applies to ${shown} (${messageOf(error)})`
  }
  return undefined
}
