/**
 * Resume (issue 31, point 2): find the checkpoint of the last run on this pull request or issue,
 * check it, and put it back: its patch into the workspace, its session state into this run's
 * COPILOT_HOME, so that `session.resume` continues the conversation. The session is then
 * configured by this run's options alone (sandbox, tools, MCP servers, model, policy): nothing in
 * the checkpoint configures it, only its conversation, plan and todos come back.
 *
 * The checks, each a refusal with its reason (`auto` then starts fresh and says why at the top of
 * the comment; `required` fails before any session):
 * - the artifact is looked up by its exact name for this number, `copilot-checkpoint-<number>`
 *   (the newest one that has not expired), and the checkpoint inside names the same repository
 *   and number: another number's checkpoint is never taken;
 * - its SHA-256 equals the digest in the hidden last line of a comment the action's own account
 *   wrote on that pull request (an artifact uploaded by a fork's workflow, or changed after its
 *   run, has no such comment); for a `resume: <path>` the workflow vouches for the file instead;
 * - it parses (checkpoint/format.ts: paths inside the session folder only, sizes capped) and the
 *   zip it came in holds that one regular file (checkpoint/zip.ts);
 * - its starting commit is the checkout's commit or an ancestor of it; its patch applies (or is
 *   already in the checkout);
 * - for a continuation (`/continue`), the run it holds ended with a status a continuation picks up
 *   (checkpoint/continuation.ts): it is the last run's, the one the action's sticky comment vouches
 *   for. A follow-up task resumes whatever the last run's ending.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { UserError, messageOf } from '../errors.js'
import { createGitHubClient, type GitHubClient } from '../github/client.js'
import { isOwnComment } from '../reporting/publish-comment.js'
import type { Target } from '../reporting/target.js'
import type { Settings } from '../settings.js'
import { continuationRefusal } from './continuation.js'
import { CHECKPOINT_LIMITS, Checkpoint, markedDigest, sha256, type ChainLink } from './format.js'
import { singleZipEntry } from './zip.js'

/** The `resume` input. */
export type ResumeMode = Settings['resume']

/** The artifact name the recipes upload a checkpoint as, for a pull request or issue number. */
export function artifactName(number: number): string {
  return `copilot-checkpoint-${number}`
}

export interface ResumeOptions {
  mode: ResumeMode
  target: Target
  workspace: string
  /** This run's COPILOT_HOME (the session state goes under its session-state/). */
  cliHome: string
  /** The repository (`owner/repo`) the run is in. */
  repository: string | undefined
  token: string | undefined
  apiUrl: string
  /**
   * This run was asked for as a continuation (`/continue`, checkpoint/continuation.ts): it resumes
   * only a run that stopped before it was done.
   */
  continuation: boolean
  log: { info(line: string): void; warning(line: string): void; debug(line: string): void }
}

/** A checkpoint put back: the session to resume and the chain it continues. */
export interface Resumed {
  sessionId: string
  /** The runs continued, oldest first; the last is the one this run resumes. */
  chain: ChainLink[]
  /** Where it came from: the artifact (name and id) or the file. */
  source: string
}

export type ResumeOutcome =
  | { kind: 'fresh' }
  | { kind: 'resumed'; resumed: Resumed }
  /**
   * `auto`: the run resumes nothing, and says why (`reason`, the fix at its end when there is
   * one: `fix`). `vouched`: the checkpoint the action's own comment vouched for (its marker), when
   * the refusal came after that check: a run that ends without a checkpoint of its own keeps it
   * in its comment, so that a later run can still resume it.
   */
  | { kind: 'refused'; reason: string; fix?: string; vouched?: VouchedCheckpoint }

/** A checkpoint's marker in the action's own comment: the run that wrote it, its SHA-256. */
export interface VouchedCheckpoint {
  runId: string
  digest: string
}

/** Why a checkpoint is not resumed; `fix` is what to do instead, when `auto` would not help. */
class Refusal extends Error {
  constructor(
    message: string,
    readonly fix?: string
  ) {
    super(message)
  }
}

/** Finds, checks and puts back the checkpoint, as the `resume` input says. */
export async function resumeFromCheckpoint(options: ResumeOptions): Promise<ResumeOutcome> {
  const { mode } = options
  if (mode.kind === 'never') return { kind: 'fresh' }
  const found: { vouched?: VouchedCheckpoint } = {}
  try {
    const resumed = await findAndRestore(options, found)
    options.log.info(
      `Resuming session ${resumed.sessionId} from ${resumed.source} (run ${resumed.chain.at(-1)?.runId ?? '?'})`
    )
    return { kind: 'resumed', resumed }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error
    const reason = error.fix === undefined ? error.message : `${error.message} ${error.fix}`
    if (mode.kind === 'auto') {
      options.log.warning(`Not resuming: ${reason}`)
      return {
        kind: 'refused',
        reason,
        ...(error.fix === undefined ? {} : { fix: error.fix }),
        ...(found.vouched === undefined ? {} : { vouched: found.vouched })
      }
    }
    throw new UserError(
      `Could not resume (resume: ${mode.kind === 'path' ? mode.path : mode.kind}): ${error.message} ${error.fix ?? "Set 'resume' to 'auto' to start a fresh session instead."}`
    )
  }
}

/** `found.vouched` is set once the action's own comment vouched for the checkpoint. */
async function findAndRestore(
  options: ResumeOptions,
  found: { vouched?: VouchedCheckpoint }
): Promise<Resumed> {
  const { mode, target } = options
  let bytes: Buffer
  let source: string
  if (mode.kind === 'path') {
    const file = path.resolve(options.workspace, mode.path)
    let stat: fs.Stats
    try {
      stat = fs.lstatSync(file)
    } catch {
      throw new Refusal(`the checkpoint file ${file} does not exist.`)
    }
    if (!stat.isFile()) throw new Refusal(`${file} is not a regular file.`)
    if (stat.size > CHECKPOINT_LIMITS.checkpointBytes) {
      throw new Refusal(`${file} is larger than the cap of a checkpoint.`)
    }
    bytes = fs.readFileSync(file)
    source = file
  } else {
    if (target.kind === 'none') {
      throw new Refusal(
        `there is no pull request or issue to find a checkpoint for (${target.reason})`
      )
    }
    if (!options.token) throw new Refusal("the input 'github-token' is empty.")
    const client = createGitHubClient({ token: options.token, apiUrl: options.apiUrl })
    const downloaded = await download(client, target.owner, target.repo, target.number)
    bytes = downloaded.bytes
    source = downloaded.source
    const digest = sha256(bytes)
    const runId = await checkDigest(client, target.owner, target.repo, target.number, digest)
    found.vouched = { runId, digest }
  }
  const checkpoint = parse(bytes)
  if (target.kind !== 'none') {
    if (checkpoint.target !== null && checkpoint.target.number !== target.number) {
      throw new Refusal(
        `the checkpoint is of #${checkpoint.target.number}, not of #${target.number}.`
      )
    }
    const repository = `${target.owner}/${target.repo}`
    if (checkpoint.repository !== '' && checkpoint.repository !== repository) {
      throw new Refusal(`the checkpoint is of ${checkpoint.repository}, not of ${repository}.`)
    }
  }
  if (options.continuation) {
    // The checkpoint is the last run's (the action's own comment vouches for it): how it ended.
    const refusal = continuationRefusal(
      checkpoint.run,
      target.kind === 'none' ? undefined : target.number
    )
    if (refusal !== undefined) throw new Refusal(refusal.reason, refusal.fix)
  }
  if (checkpoint.files.every((f) => f.path !== 'events.jsonl')) {
    throw new Refusal(
      "the checkpoint holds no events.jsonl (it was cut): the session can't be resumed."
    )
  }
  applyPatch(options.workspace, checkpoint.startCommit, checkpoint.patch)
  restoreState(options.cliHome, checkpoint)
  return { sessionId: checkpoint.sessionId, chain: [...checkpoint.chain, checkpoint.run], source }
}

/** The newest unexpired artifact `copilot-checkpoint-<number>`, and the one file of its zip. */
async function download(
  client: GitHubClient,
  owner: string,
  repo: string,
  number: number
): Promise<{ bytes: Buffer; source: string }> {
  const name = artifactName(number)
  let listed: { id: number; name: string; expired: boolean; created_at?: string | null }[]
  try {
    const { data } = await client.rest.actions.listArtifactsForRepo({
      owner,
      repo,
      name,
      per_page: 100
    })
    listed = data.artifacts
  } catch (error) {
    throw new Refusal(
      `the artifacts of ${owner}/${repo} could not be listed (${messageOf(error)}); the job needs 'permissions: actions: read'.`
    )
  }
  const artifact = listed
    .filter((a) => a.name === name && !a.expired)
    .sort((a, b) => (b.created_at ?? '').localeCompare(a.created_at ?? '') || b.id - a.id)[0]
  if (!artifact)
    throw new Refusal(`no artifact named ${name} (no earlier run uploaded a checkpoint).`)
  let zip: Buffer
  try {
    const { data } = await client.rest.actions.downloadArtifact({
      owner,
      repo,
      artifact_id: artifact.id,
      archive_format: 'zip'
    })
    zip = Buffer.from(data as ArrayBuffer)
  } catch (error) {
    throw new Refusal(
      `the artifact ${name} (id ${artifact.id}) could not be downloaded: ${messageOf(error)}`
    )
  }
  try {
    const entry = singleZipEntry(zip, CHECKPOINT_LIMITS.checkpointBytes)
    return { bytes: entry.bytes, source: `artifact ${name} (id ${artifact.id})` }
  } catch (error) {
    throw new Refusal(`${messageOf(error)}.`)
  }
}

/**
 * The digest must be the one in the last line of a comment by the account the action posts as.
 * Returns the run id that marker names.
 */
async function checkDigest(
  client: GitHubClient,
  owner: string,
  repo: string,
  number: number,
  digest: string
): Promise<string> {
  let identity: { kind: 'user'; login: string } | { kind: 'installation' }
  try {
    const { data } = await client.rest.users.getAuthenticated()
    identity = { kind: 'user', login: data.login }
  } catch (error) {
    const status = (error as { status?: unknown }).status
    if (status !== 403 && status !== 404) {
      throw new Refusal(`the token's account could not be read: ${messageOf(error)}`)
    }
    identity = { kind: 'installation' }
  }
  let comments: Awaited<ReturnType<typeof client.rest.issues.listComments>>['data']
  try {
    comments = await client.paginate(client.rest.issues.listComments, {
      owner,
      repo,
      issue_number: number,
      per_page: 100
    })
  } catch (error) {
    throw new Refusal(`the comments of #${number} could not be read: ${messageOf(error)}`)
  }
  const vouched = comments
    .filter((c) => isOwnComment(c, identity))
    .map((c) => markedDigest(c.body ?? ''))
    .find((marked) => marked?.digest === digest)
  if (vouched === undefined) {
    throw new Refusal(
      `the checkpoint's SHA-256 (${digest.slice(0, 12)}…) is in no comment of the action's on #${number}: it was not written by a run of this workflow, or it was changed since.`
    )
  }
  return vouched.runId
}

function parse(bytes: Buffer): Checkpoint {
  let json: unknown
  try {
    json = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new Refusal('the checkpoint is not JSON.')
  }
  const parsed = Checkpoint.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Refusal(
      `the checkpoint does not have the expected format (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'}).`
    )
  }
  return parsed.data
}

/** git without the repository's hooks, filters or pager. */
function git(workspace: string, args: string[], input?: string): string {
  return execFileSync(
    'git',
    ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args],
    {
      cwd: workspace,
      encoding: 'utf8',
      ...(input === undefined ? {} : { input }),
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 60_000,
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' }
    }
  )
}

function applyPatch(workspace: string, startCommit: string, patch: string): void {
  try {
    git(workspace, ['merge-base', '--is-ancestor', startCommit, 'HEAD'])
  } catch {
    throw new Refusal(
      `its starting commit ${startCommit.slice(0, 12)} is not the checkout's commit nor an ancestor of it.`
    )
  }
  if (patch === '') return
  try {
    git(workspace, ['apply', '--check', '--binary', '-'], patch)
  } catch (error) {
    try {
      // the checkout already has these changes (a later commit of the branch): nothing to apply
      git(workspace, ['apply', '--check', '--reverse', '--binary', '-'], patch)
      return
    } catch {
      throw new Refusal(
        `its patch does not apply to the checkout: ${messageOf(error).split('\n')[0] ?? ''}`
      )
    }
  }
  git(workspace, ['apply', '--binary', '-'], patch)
}

/** The state folder, written fresh: files only, inside it, under the caps. */
function restoreState(cliHome: string, checkpoint: Checkpoint): void {
  const root = path.join(cliHome, 'session-state', checkpoint.sessionId)
  if (fs.existsSync(root)) throw new Refusal(`the session folder ${root} exists already.`)
  fs.mkdirSync(root, { recursive: true, mode: 0o700 })
  let total = 0
  for (const file of checkpoint.files) {
    const bytes = Buffer.from(file.content, 'base64')
    total += bytes.length
    if (bytes.length > CHECKPOINT_LIMITS.fileBytes || total > CHECKPOINT_LIMITS.totalBytes) {
      throw new Refusal(`the checkpoint's files are larger than its caps (at ${file.path}).`)
    }
    const target = path.join(root, ...file.path.split('/'))
    // the schema allows no "..": check anyway, the folder is written on the runner
    if (!target.startsWith(root + path.sep))
      throw new Refusal(`${file.path} is outside the folder.`)
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 })
    fs.writeFileSync(target, bytes, { flag: 'wx', mode: 0o600 })
  }
}
