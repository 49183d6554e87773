/**
 * `mode: publish`: the second job, with the write token and without an agent (the CLI is never
 * started). It takes the agent job's patch (`patch-path`) and proposals (`safe-outputs-path`),
 * checks the patch again against the policy's write rules (the policy file of the checked-out
 * base), commits it on a branch of its own (or the pull request's head branch with
 * `push-to: pr-branch`), pushes it to the checkout's `origin`, opens or updates the proposed pull
 * request, and adds the labels, the comment and the issue. Untrusted text (titles, bodies) is
 * neutralized first. The job summary says what was applied and what was refused.
 *
 * Git runs in the checkout (the publish job's own, which no agent touched) without the machine's
 * or the user's config and with hooks and fsmonitor off; the patch itself can never reach `.git`
 * (a path under it refuses the whole patch).
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { z } from 'zod'
import { UserError, messageOf } from '../errors.js'
import { addSecrets, log, redactSecrets } from '../log.js'
import { loadPolicy, type CompiledPolicy } from '../policy/index.js'
import { createGitHubClient, defaultApiUrl, type GitHubClient } from '../github/client.js'
import { readEvent, runnerRepository } from '../github/event.js'
import {
  clip,
  codeSpan,
  inlineText,
  neutralizeMarkdown,
  normalizeSecrets
} from '../text/safe-text.js'
import type { SafeOutputProposal } from '../reporting/types.js'
import { LIMITS, MAX_PROPOSALS_BYTES, readProposals } from '../session/safe-outputs.js'
import type { Settings } from '../settings.js'
import { findCredential } from '../text/credential-formats.js'
import { judgeProposals } from './publish-judge.js'
import { reviewBranchRefusal } from './publish-branch.js'
import { takeBoundFile } from './publish-files.js'
import { setOutputs, writeJobSummary } from '../reporting/redacted-writes.js'
import { GIT_TIMEOUT_MS } from '../git/process.js'

export interface PublishResult {
  outputs: Record<string, string>
  /** Why the step fails (main.ts fails it), when it does. */
  failure?: string
  applied: string[]
  refused: string[]
}

/** A path the patch touches, and why it may not be written (undefined: allowed). */
export interface PatchPath {
  path: string
  refusal?: string
}

interface GitResult {
  code: number
  stdout: string
  stderr: string
}

/** The environment of git without the machine's or the user's config, hooks or fsmonitor. */
function gitEnv(config: ReadonlyArray<readonly [string, string]>): NodeJS.ProcessEnv {
  const pairs: Array<readonly [string, string]> = [
    ['core.hooksPath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    ['advice.detachedHead', 'false'],
    ...config
  ]
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_'))),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_COUNT: String(pairs.length)
  }
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key
    env[`GIT_CONFIG_VALUE_${i}`] = value
  })
  return env
}

/** Git without the machine's or the user's config, hooks or fsmonitor; `config` as `-c` pairs. */
function git(
  cwd: string,
  args: string[],
  config: ReadonlyArray<readonly [string, string]> = [],
  extraEnv: Record<string, string> = {}
): Promise<GitResult> {
  const env: NodeJS.ProcessEnv = { ...gitEnv(config), ...extraEnv }
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd,
        env,
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'utf8',
        timeout: GIT_TIMEOUT_MS,
        killSignal: 'SIGKILL'
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, stdout, stderr })
      }
    )
  })
}

/**
 * Mode lines that make a symlink or a submodule: never applied from an agent's patch. Git reads a
 * mode with strtoul (base 8): `0120000`, `  120000`, `120000 ` are the same mode. The patch's text
 * is only the first look; `appliedEntries` checks what git really stages.
 */
const SPECIAL_MODE =
  /^(?:new file mode|new mode|old mode|index [0-9a-f]+\.\.[0-9a-f]+)[ \t]+0*1[26]0000\b/m

/** The largest patch the publish step reads (a bigger one is refused whole, unread). */
export const MAX_PATCH_BYTES = 100 * 1024 * 1024

/** The modes a patch may leave an entry with: a regular file, an executable one, or none (deleted). */
const PLAIN_MODES = new Set(['100644', '100755', '000000'])

/**
 * What the patch really changes, as git stages it: applied to a scratch index of HEAD (neither the
 * work tree nor the checkout's index is touched), then compared with HEAD. Every path git would
 * commit, whatever the patch's headers said, each checked like the patch's own paths, and any
 * entry that would be a symlink or a submodule; or git's error when the patch does not apply.
 */
export async function appliedEntries(
  root: string,
  patchFile: string,
  decide: (absolutePath: string) => { decision: string; rule: string; reason?: string },
  /** Why a staged file may not go out (its name and content as git would commit them), or undefined. */
  scan?: (name: string, content: Buffer) => string | undefined
): Promise<{ refusals: string[] } | { error: string }> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'autopilot-index-'))
  const env = { GIT_INDEX_FILE: path.join(scratch, 'index') }
  try {
    const read = await git(root, ['read-tree', 'HEAD'], [], env)
    if (read.code !== 0) return { error: clip(read.stderr.trim(), 300) }
    const apply = await git(
      root,
      ['apply', '--cached', '--binary', '--whitespace=nowarn', '--', patchFile],
      [],
      env
    )
    if (apply.code !== 0) return { error: clip(apply.stderr.trim(), 500) }
    const diff = await git(
      root,
      ['diff-index', '--cached', '--raw', '-z', '--no-renames', '--no-ext-diff', 'HEAD'],
      [],
      env
    )
    if (diff.code !== 0) return { error: clip(diff.stderr.trim(), 300) }
    const refusals: string[] = []
    const fields = diff.stdout.split('\0')
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const meta = /^:(\d{6}) (\d{6}) [0-9a-f]+ ([0-9a-f]+) /.exec(fields[i] ?? '')
      const name = fields[i + 1] ?? ''
      if (!meta) {
        // never skipped: what cannot be read is not known to be safe
        refusals.push(`git's record of the change could not be read (${clip(fields[i] ?? '', 80)})`)
        break
      }
      const checked = checkPath(name, root, decide)
      if (checked.refusal !== undefined) refusals.push(`${name} (${checked.refusal})`)
      else if (!PLAIN_MODES.has(meta[2] ?? '')) {
        refusals.push(`${name} (would be a symlink or submodule entry, mode ${meta[2] ?? ''})`)
      } else if (scan !== undefined) {
        const blob = meta[3] ?? ''
        const content = /^0+$/.test(blob) ? Buffer.alloc(0) : await gitBlob(root, blob, env)
        if (content === undefined) refusals.push(`${name} (its content could not be read back)`)
        else {
          const why = scan(name, content)
          if (why !== undefined) refusals.push(why)
        }
      }
    }
    return { refusals }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** A blob's bytes, as git stored it (`cat-file blob`), or undefined. */
function gitBlob(
  root: string,
  blob: string,
  env: Record<string, string>
): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['cat-file', 'blob', blob],
      {
        cwd: root,
        env: { ...gitEnv([]), ...env },
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'buffer'
      },
      (error, stdout) => resolve(error ? undefined : stdout)
    )
  })
}

/**
 * The paths a patch touches (`git apply --numstat -z`, read outside any repository), each
 * checked: under `.git`, outside the tree, or not allowed by the policy's write rules.
 */
export async function patchPaths(
  patchFile: string,
  root: string,
  decide: (absolutePath: string) => { decision: string; rule: string; reason?: string }
): Promise<PatchPath[]> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'autopilot-patch-'))
  try {
    const result = await git(scratch, ['apply', '--numstat', '-z', '--', patchFile])
    if (result.code !== 0) {
      throw new UserError(
        `The patch '${patchFile}' (input 'patch-path') cannot be read as a git patch: ${clip(result.stderr.trim(), 300)}. Pass the file the agent job's output 'patch-path' named.`
      )
    }
    const names = new Set<string>()
    const fields = result.stdout.split('\0')
    for (let i = 0; i < fields.length; i++) {
      const match = /^(?:-|\d+)\t(?:-|\d+)\t(.*)$/s.exec(fields[i] ?? '')
      if (!match) continue
      if (match[1] === '') {
        // a rename or copy: the old and the new path follow
        names.add(fields[i + 1] ?? '')
        names.add(fields[i + 2] ?? '')
        i += 2
      } else names.add(match[1] ?? '')
    }
    // a rename's or copy's source: numstat names only where it goes, but a rename deletes it
    const text = fs.readFileSync(patchFile, 'utf8')
    for (const m of text.matchAll(/^(?:rename|copy) from (.+)$/gm)) names.add(unquote(m[1] ?? ''))
    return [...names].filter((n) => n !== '').map((name) => checkPath(name, root, decide))
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** A path as git writes it in a patch header: C-quoted when it holds special characters. */
function unquote(name: string): string {
  if (!name.startsWith('"') || !name.endsWith('"')) return name
  const bytes: number[] = []
  const body = name.slice(1, -1)
  const simple: Record<string, number> = {
    n: 10,
    t: 9,
    '"': 34,
    '\\': 92,
    a: 7,
    b: 8,
    f: 12,
    r: 13,
    v: 11
  }
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? ''
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'))
      continue
    }
    const next = body[i + 1] ?? ''
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1))
    if (octal) {
      bytes.push(parseInt(octal[0], 8))
      i += 3
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0))
      i += 1
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

/** Whether the patch may write `name` (relative to `root`). */
export function checkPath(
  name: string,
  root: string,
  decide: (absolutePath: string) => { decision: string; rule: string; reason?: string }
): PatchPath {
  const parts = name.split('/')
  if (path.isAbsolute(name) || parts.includes('..') || parts.includes('')) {
    return { path: name, refusal: 'leads out of the repository' }
  }
  // `.git` in any case, and names git or a file system may take for it (`.git.`, `.git `, `git~1`)
  if (parts.some((p) => /^\.git[. ]*$/i.test(p) || /^git~\d+$/i.test(p))) {
    return { path: name, refusal: "is git's own directory" }
  }
  const decision = decide(path.join(root, name))
  if (decision.decision !== 'allow') {
    return {
      path: name,
      refusal: `the policy's write rules do not allow it (rule ${decision.rule}${decision.reason ? `: ${decision.reason}` : ''})`
    }
  }
  return { path: name }
}

/** A proposed title, made safe: one line, no mention, HTML or link, at most the title limit. */
export function safeTitle(text: string): string {
  return fitted(text, LIMITS.title, (t) => inlineText(t, LIMITS.title))
}

/**
 * `make(text)` at most `max` characters long: the raw text is cut first, then made safe (cutting
 * safe text could cut a code span's closing backticks and set what was inside free), shorter
 * until what neutralizing added fits.
 */
function fitted(text: string, max: number, make: (text: string) => string): string {
  let n = Math.min(max, text.length)
  for (;;) {
    const out = make(clip(text, n))
    if (out.length <= max || n <= 1) return out
    n = Math.max(1, Math.min(n - 1, Math.floor((n * max) / out.length)))
  }
}

/** A proposed body, made safe: no notifying mention, raw HTML or link; length-limited. */
export function safeBody(text: string, runUrl?: string): string {
  const note = `\n\n---\n_Proposed by the Copilot agent${runUrl ? ` in [this run](${runUrl})` : ''}; applied by the publish step._`
  return fitted(text, LIMITS.body, neutralizeMarkdown) + note
}

const PullRequestEvent = z.looseObject({
  pull_request: z
    .looseObject({
      number: z.number(),
      head: z.looseObject({
        ref: z.string(),
        repo: z.looseObject({ full_name: z.string() }).nullable().optional()
      }),
      base: z.looseObject({ ref: z.string() })
    })
    .optional(),
  // on issue_comment, `issue.pull_request` is there when the issue is a pull request
  issue: z.looseObject({ number: z.number(), pull_request: z.unknown().optional() }).optional(),
  repository: z.looseObject({ default_branch: z.string().optional() }).optional()
})

const PullRequest = z.looseObject({ number: z.number(), html_url: z.string() })

/** The identity the publish step commits as. */
const BOT_EMAIL = '41898282+github-actions[bot]@users.noreply.github.com'

/** `mode: publish`. Never throws what the user must fix: returns it as `failure`. */
export async function publishMode(
  settings: Settings,
  env: NodeJS.ProcessEnv
): Promise<PublishResult> {
  const applied: string[] = []
  const refused: string[] = []
  const outputs: Record<string, string> = { 'pull-request-url': '' }
  let failure: string | undefined
  try {
    failure = await publishAll(settings, env, { applied, refused, outputs })
  } catch (error) {
    failure = messageOf(error)
  }
  outputs.status = failure === undefined ? 'completed' : 'failed'
  const set = setOutputs(outputs)
  await writeSummary(applied, refused, failure)
  return {
    outputs: set,
    applied,
    refused,
    ...(failure === undefined ? {} : { failure: redactSecrets(failure) })
  }
}

interface Progress {
  applied: string[]
  refused: string[]
  outputs: Record<string, string>
}

/**
 * On a pull request's event, `actions/checkout` checks out its merge commit (refs/pull/N/merge) by
 * default: a tree and a policy file holding the pull request's unreviewed commits. The publish step
 * reads its policy from the checkout and applies the patch to it, so it refuses that checkout.
 */
async function refuseMergeCheckout(root: string, env: NodeJS.ProcessEnv): Promise<void> {
  const ref = env.GITHUB_REF ?? ''
  const sha = env.GITHUB_SHA ?? ''
  if (!/^refs\/pull\/\d+\/merge$/.test(ref) || !/^[0-9a-f]{40,64}$/i.test(sha)) return
  const head = await git(root, ['rev-parse', '--verify', '-q', 'HEAD'])
  if (head.code === 0 && head.stdout.trim().toLowerCase() === sha.toLowerCase()) {
    throw new UserError(
      `The publish job checked out the pull request's merge commit (${ref}): its tree and its policy file hold the pull request's unreviewed commits. Check out the base branch instead: give actions/checkout \`ref: \${{ github.event.pull_request.base.sha }}\`.`
    )
  }
}

async function publishAll(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  progress: Progress
): Promise<string | undefined> {
  const root = settings.workingDirectory
  const repo = runnerRepository(env)
  const token = settings.githubToken
  if (!repo)
    throw new UserError('GITHUB_REPOSITORY is not set: the publish step runs in a GitHub workflow.')
  if (!token) {
    throw new UserError(
      "The publish step needs the input 'github-token' (the job's GITHUB_TOKEN with contents: write and pull-requests: write)."
    )
  }
  addSecrets([token])
  const secrets = normalizeSecrets(settings.secrets)
  await refuseMergeCheckout(root, env)
  const policy: CompiledPolicy = await loadPolicy({
    path: settings.policyPath,
    workingDirectory: root,
    workspace: settings.raw.workspace,
    what: "input 'policy'"
  })
  // the agent job's files, each taken once into a private copy and only if its digest matches
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'autopilot-publish-'))
  try {
    const patchFile = settings.patchPath
      ? takeBoundFile(
          {
            pathInput: 'patch-path',
            digestInput: 'patch-sha256',
            file: settings.patchPath,
            digest: settings.patchSha256,
            maxBytes: MAX_PATCH_BYTES
          },
          scratch
        )
      : undefined
    if (settings.patchPath && patchFile === undefined) {
      throw new UserError(
        `Input 'patch-path' names '${settings.patchPath}', which does not exist. Download the agent job's artifact first and pass the path of its patch.`
      )
    }
    const proposalsFile = settings.safeOutputsPath
      ? takeBoundFile(
          {
            pathInput: 'safe-outputs-path',
            digestInput: 'safe-outputs-sha256',
            file: settings.safeOutputsPath,
            digest: settings.safeOutputsSha256,
            maxBytes: MAX_PROPOSALS_BYTES
          },
          scratch
        )
      : undefined
    if (settings.safeOutputsPath && proposalsFile === undefined) {
      throw new UserError(
        `Input 'safe-outputs-path' names '${settings.safeOutputsPath}', which does not exist. Download the agent job's artifact first and pass the path of its proposals file.`
      )
    }
    const proposals: SafeOutputProposal[] = proposalsFile
      ? readProposals(proposalsFile).proposals
      : []
    return await publishFiles(settings, env, policy, progress, {
      repo,
      token,
      secrets,
      patchFile,
      proposals
    })
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

async function publishFiles(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  policy: CompiledPolicy,
  progress: Progress,
  files: {
    repo: { owner: string; repo: string }
    token: string
    secrets: readonly string[]
    patchFile: string | undefined
    proposals: readonly SafeOutputProposal[]
  }
): Promise<string | undefined> {
  const { applied, refused, outputs } = progress
  const { repo, token, secrets, patchFile } = files
  const event = PullRequestEvent.safeParse(readEvent(env).payload)
  const payload = event.success ? event.data : {}
  const runId = env.GITHUB_RUN_ID ?? 'local'
  const runUrl =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
      : undefined
  const client = createGitHubClient({ token, apiUrl: defaultApiUrl(env), log })
  const api = { client, owner: repo.owner, repo: repo.repo }
  // a comment on a pull request (issue_comment): its head branch, as the API says it is now
  const commentedPr =
    settings.pushTo === 'pr-branch' &&
    payload.pull_request === undefined &&
    payload.issue?.pull_request !== undefined &&
    payload.issue.pull_request !== null
      ? await commentedPullRequest(api, payload.issue.number)
      : undefined
  const pr = payload.pull_request ?? commentedPr

  // --- every proposal judged again, with this job's inputs and this checkout's policy
  const judged = await judgeProposals(files.proposals, {
    enabled: settings.safeOutputs,
    decideTool: (toolName) => policy.decide({ kind: 'custom-tool', toolName }),
    allowedLabels: settings.allowedLabels,
    labelExists: (name) => labelExists(api, name),
    secrets
  })
  refused.push(...judged.refused)
  const proposals = judged.accepted
  const proposedPr = proposals.find(
    (p): p is Extract<SafeOutputProposal, { kind: 'pull-request' }> => p.kind === 'pull-request'
  )

  // --- the patch: checked, committed, pushed
  let branch: string | undefined
  let patchFailure: string | undefined
  if (patchFile !== undefined) {
    if (fs.statSync(patchFile).size === 0) {
      applied.push('The patch is empty: the agent changed nothing, so nothing was pushed.')
    } else {
      const result = await pushPatch(settings, env, policy, {
        patchFile,
        api,
        secrets,
        pr,
        // the branch a pull request's head must never be (push-to: pr-branch)
        defaultBranch:
          settings.pushTo === 'pr-branch' && pr
            ? (payload.repository?.default_branch ?? (await defaultBranch(api)))
            : undefined,
        runId,
        title: proposedPr
          ? safeTitle(proposedPr.title)
          : `Changes proposed by Copilot (run ${runId})`
      })
      if ('refused' in result) {
        refused.push(result.refused)
        patchFailure = result.refused
      } else {
        branch = result.branch
        applied.push(`Pushed the patch as one commit to ${codeSpan(result.branch, 300)}.`)
      }
    }
  }

  // A refused patch refuses the run's proposals too: they describe the work that was refused.
  if (patchFailure !== undefined) {
    if (proposals.length > 0) {
      refused.push(
        `The proposals (${proposals.map((p) => p.kind).join(', ')}) were not applied: the patch they go with was refused.`
      )
    }
    return patchFailure
  }

  // --- the pull request
  let prNumber: number | undefined
  if (proposedPr) {
    if (branch === undefined) {
      refused.push(
        `The proposed pull request "${safeTitle(proposedPr.title)}" was not opened: there is no patch to open it with.`
      )
    } else if (settings.pushTo === 'pr-branch' && pr) {
      prNumber = pr.number
      applied.push(
        `The changes went to pull request #${pr.number}'s branch; its title and description were left as they are.`
      )
    } else {
      const base = pr?.base.ref ?? payload.repository?.default_branch ?? (await defaultBranch(api))
      const opened = await openOrUpdatePullRequest(api, {
        head: branch,
        base,
        title: safeTitle(proposedPr.title),
        body: safeBody(proposedPr.body, runUrl),
        draft: proposedPr.draft
      })
      prNumber = opened.number
      outputs['pull-request-url'] = opened.url
      applied.push(`${opened.updated ? 'Updated' : 'Opened'} pull request ${opened.url}.`)
    }
  }

  // --- labels, comments, issues
  const target = prNumber ?? pr?.number ?? payload.issue?.number
  const notPosted: string[] = []
  for (const proposal of proposals) {
    try {
      if (proposal.kind === 'labels') {
        if (target === undefined) {
          refused.push(
            `Labels ${inlineText(proposal.labels.join(', '), 1000)}: no pull request or issue to add them to.`
          )
          continue
        }
        await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
          owner: api.owner,
          repo: api.repo,
          issue_number: target,
          labels: proposal.labels
        })
        applied.push(
          `Added the labels ${inlineText(proposal.labels.join(', '), 1000)} to #${target}.`
        )
      } else if (proposal.kind === 'comment') {
        const on = pr?.number ?? payload.issue?.number ?? prNumber
        if (on === undefined) {
          refused.push('A comment: no pull request or issue to post it on.')
          continue
        }
        await client.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          owner: api.owner,
          repo: api.repo,
          issue_number: on,
          body: safeBody(proposal.body, runUrl)
        })
        applied.push(`Posted a comment on #${on}.`)
      } else if (proposal.kind === 'issue') {
        const created = await client.request('POST /repos/{owner}/{repo}/issues', {
          owner: api.owner,
          repo: api.repo,
          title: safeTitle(proposal.title),
          body: safeBody(proposal.body, runUrl),
          ...(proposal.labels.length > 0 ? { labels: proposal.labels } : {})
        })
        const issue = PullRequest.safeParse(created.data)
        applied.push(`Opened issue ${issue.success ? issue.data.html_url : ''}.`)
      }
    } catch (error) {
      refused.push(`${proposal.kind}: GitHub refused it (${messageOf(error)}).`)
      notPosted.push(proposal.kind)
    }
  }
  // never silently unposted: what GitHub refused, or this step refused, fails the step
  if (notPosted.length > 0) {
    return `GitHub refused some proposals (${notPosted.join(', ')}): see the job summary.`
  }
  return judged.refused.length > 0
    ? `The publish step refused ${judged.refused.length === 1 ? 'a proposal' : `${judged.refused.length} proposals or labels`}: see the job summary.`
    : undefined
}

/** The pull request an issue_comment event's issue is, as the API has it. */
async function commentedPullRequest(
  api: { client: GitHubClient; owner: string; repo: string },
  number: number
): Promise<z.infer<typeof PullRequestEvent>['pull_request']> {
  const response = await api.client.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
    owner: api.owner,
    repo: api.repo,
    pull_number: number
  })
  const parsed = PullRequestEvent.shape.pull_request.safeParse(response.data)
  if (!parsed.success || parsed.data === undefined) {
    throw new Error(`GitHub's answer about pull request #${number} was not readable`)
  }
  return parsed.data
}

/** Whether the repository has a label of this name (404: it has not; anything else throws). */
async function labelExists(
  api: { client: GitHubClient; owner: string; repo: string },
  name: string
): Promise<boolean> {
  try {
    await api.client.request('GET /repos/{owner}/{repo}/labels/{name}', {
      owner: api.owner,
      repo: api.repo,
      name
    })
    return true
  } catch (error) {
    if ((error as { status?: unknown } | null)?.status === 404) return false
    throw error
  }
}

async function defaultBranch(api: {
  client: GitHubClient
  owner: string
  repo: string
}): Promise<string> {
  const response = await api.client.request('GET /repos/{owner}/{repo}', {
    owner: api.owner,
    repo: api.repo
  })
  const parsed = z.looseObject({ default_branch: z.string() }).safeParse(response.data)
  if (!parsed.success) throw new Error('GitHub did not say which branch is the default one')
  return parsed.data.default_branch
}

/** Opens the pull request from `head`, or updates the open one this step opened before from it. */
async function openOrUpdatePullRequest(
  api: { client: GitHubClient; owner: string; repo: string },
  pr: { head: string; base: string; title: string; body: string; draft: boolean }
): Promise<{ number: number; url: string; updated: boolean }> {
  const { client, owner, repo } = api
  const existing = await client.request('GET /repos/{owner}/{repo}/pulls', {
    owner,
    repo,
    head: `${owner}:${pr.head}`,
    state: 'open'
  })
  const found = z.array(PullRequest).safeParse(existing.data)
  const open = found.success ? found.data[0] : undefined
  if (open) {
    await client.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner,
      repo,
      pull_number: open.number,
      title: pr.title,
      body: pr.body
    })
    return { number: open.number, url: open.html_url, updated: true }
  }
  const created = await client.request('POST /repos/{owner}/{repo}/pulls', {
    owner,
    repo,
    head: pr.head,
    base: pr.base,
    title: pr.title,
    body: pr.body,
    draft: pr.draft
  })
  const parsed = PullRequest.parse(created.data)
  return { number: parsed.number, url: parsed.html_url, updated: false }
}

/** Checks the patch, commits it on its branch and pushes it; or says why not (nothing pushed). */
async function pushPatch(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  policy: CompiledPolicy,
  context: {
    /** The private copy of the patch, its digest checked. */
    patchFile: string
    api: { client: GitHubClient; owner: string; repo: string }
    /** The secrets this job knows, normalized. */
    secrets: readonly string[]
    pr: z.infer<typeof PullRequestEvent>['pull_request']
    defaultBranch: string | undefined
    runId: string
    title: string
  }
): Promise<{ branch: string } | { refused: string }> {
  const root = settings.workingDirectory
  const patchFile = context.patchFile
  const size = fs.statSync(patchFile).size
  if (size > MAX_PATCH_BYTES) {
    return {
      refused: `The patch was refused whole, nothing was pushed: it is ${size} bytes, more than the ${MAX_PATCH_BYTES} the publish step reads.`
    }
  }
  // the policy's write rules, and never the policy file this step checks with (whatever they
  // say), by its name and by its real path (a symlink's target is the file the policy is read from)
  const isPolicyFile = policyFileMatcher(root, settings.policyPath)
  const decide = (file: string): { decision: string; rule: string; reason?: string } =>
    isPolicyFile(file)
      ? { decision: 'deny', rule: 'policy-file', reason: 'the policy this step checks with' }
      : policy.decide({ kind: 'write', fileName: file })
  const paths = await patchPaths(patchFile, root, decide)
  const bad = paths.filter((p) => p.refusal !== undefined)
  const special = SPECIAL_MODE.test(fs.readFileSync(patchFile, 'utf8'))
  if (bad.length > 0 || special) {
    const list = bad.map((p) => `${p.path} (${p.refusal ?? ''})`)
    if (special) list.push('a symlink or submodule entry (never applied from a patch)')
    return { refused: `The patch was refused whole, nothing was pushed: ${list.join('; ')}.` }
  }
  if (!fs.existsSync(path.join(root, '.git'))) {
    throw new UserError(
      `The working directory '${root}' is not a git checkout: check the repository out (actions/checkout) before the publish step.`
    )
  }
  let branch: string
  let forceLease: string | undefined
  if (settings.pushTo === 'pr-branch') {
    const pr = context.pr
    if (!pr) {
      throw new UserError(
        "'push-to: pr-branch' needs a pull_request event, or an issue_comment on a pull request (the branch to push to); use 'push-to: new-branch' here."
      )
    }
    if (pr.head.repo?.full_name !== env.GITHUB_REPOSITORY) {
      return {
        refused: `The patch was not pushed: pull request #${pr.number} comes from another repository (${pr.head.repo?.full_name ?? 'deleted'}), whose branch this job cannot push to.`
      }
    }
    branch = pr.head.ref
    // a ref name git takes as a branch, and never as an option or a refspec
    const format = await git(root, ['check-ref-format', `refs/heads/${branch}`])
    if (format.code !== 0 || branch.startsWith('-') || /[:\s]/.test(branch)) {
      return {
        refused: `The patch was not pushed: pull request #${pr.number}'s head branch ${clip(branch, 100)} is not a branch name this step pushes to.`
      }
    }
    const credential = findCredential(branch, context.secrets)
    if (credential !== undefined) {
      return {
        refused: `The patch was not pushed: pull request #${pr.number}'s head branch name holds ${credential.what}.`
      }
    }
    // Only a review branch: anyone may open a pull request between two branches of the
    // repository (head: main, release/1.0, gh-pages), and the agent's commit would land there.
    const notReview = await reviewBranchRefusal(
      context.api,
      {
        number: pr.number,
        branch,
        baseBranch: pr.base.ref,
        defaultBranch: context.defaultBranch ?? pr.base.ref
      },
      settings.protectedBranches
    )
    if (notReview !== undefined) {
      return { refused: `The patch was not pushed: ${notReview}.` }
    }
    const fetched = await git(
      root,
      ['fetch', '--no-tags', 'origin', `refs/heads/${branch}`],
      originAuth(settings)
    )
    if (fetched.code !== 0)
      return { refused: `Could not fetch ${branch}: ${clip(fetched.stderr.trim(), 300)}` }
    const checkout = await git(root, ['checkout', '-B', branch, 'FETCH_HEAD'])
    if (checkout.code !== 0)
      return { refused: `Could not check out ${branch}: ${clip(checkout.stderr.trim(), 300)}` }
  } else {
    branch = `copilot/${context.runId}`
    // never over a branch this step did not make: only its own commit of this run is replaced
    const lease = await ownBranchLease(root, branch, context.runId, originAuth(settings))
    if ('refused' in lease) return { refused: `The patch was not pushed: ${lease.refused}.` }
    forceLease = lease.lease
    const checkout = await git(root, ['checkout', '-B', branch])
    if (checkout.code !== 0)
      return { refused: `Could not make branch ${branch}: ${clip(checkout.stderr.trim(), 300)}` }
  }
  // what git would really stage, checked before the work tree is touched
  const staged = await appliedEntries(root, patchFile, decide, (name, content) => {
    const found =
      findCredential(name, context.secrets) ??
      findCredential(content.toString('latin1'), context.secrets)
    return found === undefined
      ? undefined
      : `a changed file (${credentialInName(name, context.secrets) ? 'its name' : `${inlineText(name, 200)}, line ${found.line}`}) holds ${found.what}`
  })
  if ('error' in staged) {
    return {
      refused: `The patch was refused whole, nothing was pushed: it does not apply to ${branch} (${staged.error}).`
    }
  }
  if (staged.refusals.length > 0) {
    return {
      refused: `The patch was refused whole, nothing was pushed: ${staged.refusals.join('; ')}.`
    }
  }
  const apply = await git(root, [
    'apply',
    '--index',
    '--binary',
    '--whitespace=nowarn',
    '--',
    patchFile
  ])
  if (apply.code !== 0) {
    return {
      refused: `The patch was refused whole, nothing was pushed: it does not apply to ${branch} (${clip(apply.stderr.trim(), 500)}).`
    }
  }
  const commit = await git(
    root,
    [
      'commit',
      '--no-verify',
      '--no-gpg-sign',
      '-q',
      '-m',
      context.title,
      '-m',
      `Applied by the publish step of run ${context.runId}.`
    ],
    [
      ['user.name', 'github-actions[bot]'],
      ['user.email', BOT_EMAIL]
    ]
  )
  if (commit.code !== 0)
    return { refused: `Could not commit the patch: ${clip(commit.stderr.trim(), 300)}` }
  const push = await git(
    root,
    [
      'push',
      ...(forceLease === undefined
        ? []
        : [`--force-with-lease=refs/heads/${branch}:${forceLease}`]),
      'origin',
      `HEAD:refs/heads/${branch}`
    ],
    originAuth(settings)
  )
  if (push.code !== 0) {
    throw new Error(`git push to origin failed: ${clip(push.stderr.trim(), 500)}`)
  }
  return { branch }
}

/**
 * The job's token as git's HTTP header for origin, in place of any header the checkout persisted
 * (the recipes' publish checkouts persist none: fetching a private repository's branch needs it).
 */
function originAuth(settings: Settings): Array<readonly [string, string]> {
  const auth = Buffer.from(`x-access-token:${settings.githubToken ?? ''}`).toString('base64')
  addSecrets([auth])
  return [
    ['http.extraheader', ''],
    ['http.extraheader', `AUTHORIZATION: basic ${auth}`]
  ]
}

/** Whether a file name holds a credential (then the refusal does not show the name). */
function credentialInName(name: string, secrets: readonly string[]): boolean {
  return findCredential(name, secrets) !== undefined
}

/**
 * Whether an absolute path is the policy file: by its name (case-insensitively) and by its real
 * path, so a patch that edits the file a symlinked policy file points at is refused as well.
 */
export function policyFileMatcher(root: string, policyPath: string): (file: string) => boolean {
  const named = path.resolve(root, policyPath)
  const targets = new Set([named.toLowerCase()])
  try {
    targets.add(fs.realpathSync(named).toLowerCase())
  } catch {
    // no such file: its name is all there is
  }
  let realRoot = root
  try {
    realRoot = fs.realpathSync(root)
  } catch {
    // the root as given
  }
  return (file) => {
    const resolved = path.resolve(file)
    if (targets.has(resolved.toLowerCase())) return true
    // the same file reached through the real root, or through a symlinked directory on the way
    const inReal = path.join(realRoot, path.relative(root, resolved))
    return targets.has(inReal.toLowerCase()) || targets.has(realPathOf(resolved).toLowerCase())
  }
}

/** The real path of `file`: its deepest existing ancestor resolved, the rest appended. */
function realPathOf(file: string): string {
  let head = file
  const tail: string[] = []
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...tail.reverse())
    } catch {
      const parent = path.dirname(head)
      if (parent === head) return file
      tail.push(path.basename(head))
      head = parent
    }
  }
}

/**
 * Whether `branch` (`copilot/<run id>`) may be pushed: it does not exist on origin (then no force),
 * or its tip is the publish step's own commit of this run (a re-run: forced, with a lease on that
 * commit); anything else is a branch this step did not make.
 */
async function ownBranchLease(
  root: string,
  branch: string,
  runId: string,
  auth: ReadonlyArray<readonly [string, string]>
): Promise<{ lease: string | undefined } | { refused: string }> {
  const remote = await git(root, ['ls-remote', '--heads', 'origin', `refs/heads/${branch}`], auth)
  if (remote.code !== 0) {
    return { refused: `could not ask origin about ${branch} (${clip(remote.stderr.trim(), 200)})` }
  }
  const tip = /^([0-9a-f]{40,64})\s/m.exec(remote.stdout)?.[1]
  if (tip === undefined) return { lease: undefined }
  const fetched = await git(root, ['fetch', '--no-tags', 'origin', `refs/heads/${branch}`], auth)
  if (fetched.code !== 0) {
    return { refused: `could not fetch ${branch} (${clip(fetched.stderr.trim(), 200)})` }
  }
  const show = await git(root, ['log', '-1', '--format=%H%x00%ae%x00%B', tip])
  const [sha = '', email = '', message = ''] = show.stdout.split('\0')
  const ours =
    sha.trim() === tip &&
    email === BOT_EMAIL &&
    message.includes(`Applied by the publish step of run ${runId}.`)
  return ours
    ? { lease: tip }
    : {
        refused: `branch ${branch} already exists and its last commit is not this publish step's of run ${runId}; it is never overwritten`
      }
}

async function writeSummary(
  applied: readonly string[],
  refused: readonly string[],
  failure: string | undefined
): Promise<void> {
  const lines = [
    `### ${failure === undefined ? '✅' : '❌'} Publish`,
    '',
    ...(applied.length > 0 ? ['**Applied**', '', ...applied.map((a) => `- ${a}`), ''] : []),
    ...(refused.length > 0
      ? ['**Refused**', '', ...refused.map((r) => `- ${inlineText(r, 2000)}`), '']
      : []),
    ...(applied.length + refused.length === 0 ? ['Nothing to publish.', ''] : []),
    ...(failure !== undefined && !refused.includes(failure)
      ? [`**Failed:** ${inlineText(failure, 2000)}`]
      : [])
  ]
  try {
    await writeJobSummary(lines.join('\n'))
  } catch (error) {
    log.warning(`Could not write the job summary: ${messageOf(error)}`)
  }
}
