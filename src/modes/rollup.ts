/**
 * `mode: rollup` (issue 32): one task across many repositories, rolled up. No agent and no CLI:
 * it reads the report files the fleet's agent legs uploaded (a glob), validates each
 * (reporting/report-file.ts: a missing, broken or newer one is a row that says so), and writes
 * one tracking issue's body through the REST API: below a hidden marker, keeping what a person
 * wrote above it; a re-run updates that body, never a second issue or a comment. The full table
 * goes to the job summary; the outputs count each kind of ending and name the issue.
 */
import fs from 'node:fs'
import path from 'node:path'
import picomatch from 'picomatch'
import { UserError, messageOf } from '../errors.js'
import { createGitHubClient, defaultApiUrl, type GitHubClient } from '../github/client.js'
import { runnerRepository } from '../github/event.js'
import { log } from '../log.js'
import { GITHUB_COMMENT_LIMIT, SUMMARY_MAX_LENGTH } from '../reporting/limits.js'
import { readReportFile, type ReportReading } from '../reporting/report-file.js'
import type { ROLLUP_OUTPUT_NAMES } from '../reporting/outputs.js'
import { runUrl } from '../reporting/publish.js'
import { setOutputs, writeJobSummary } from '../reporting/redacted-writes.js'
import {
  PublishRecordSchema,
  buildRollup,
  issueBody,
  jobRepository,
  renderRollup,
  rollupMarker,
  roomFor,
  type PublishRecord,
  type Rollup
} from '../reporting/rollup.js'
import type { TrackingIssue } from '../rollup-inputs.js'
import type { Settings } from '../settings.js'

type RollupOutputName = (typeof ROLLUP_OUTPUT_NAMES)[number]

/** The most files a glob may match, and entries it may walk, before it is refused. */
const MAX_FILES = 5_000
const MAX_ENTRIES = 200_000

/** Room left in the issue body for GitHub's own additions and a person's later edits. */
const ISSUE_MAX_LENGTH = GITHUB_COMMENT_LIMIT - 536

export interface RollupResult {
  outputs: Record<string, string>
  rollup: Rollup
  /** Why the step fails (main.ts fails it), when it does. */
  failure?: string
}

export async function rollupMode(
  settings: Settings,
  env: NodeJS.ProcessEnv = process.env
): Promise<RollupResult> {
  const options = settings.rollup
  if (options === undefined) throw new Error('mode: rollup without its settings')
  const files = findFiles(options.reports, 'reports')
  const readings: ReportReading[] = files.map((file) => {
    const reading = readReportFile(file)
    return { ...reading, file: shown(file, settings.raw.workspace) }
  })
  if (readings.length === 0 && options.repositories.length === 0) {
    throw new UserError(
      `Input 'reports' ('${path.relative(settings.raw.workspace, options.reports) || options.reports}') matched no file, and 'repositories' is empty: there is nothing to roll up. Download the agent jobs' artifacts first (actions/download-artifact) and point 'reports' at their report.json files.`
    )
  }
  for (const reading of readings) {
    if (reading.kind === 'problem') log.warning(`Report ${reading.file}: ${reading.reason}`)
  }
  const publish =
    options.publishResults === undefined ? [] : readPublishRecords(options.publishResults)
  const server = (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, '')
  const client = settings.githubToken
    ? createGitHubClient({ token: settings.githubToken, apiUrl: defaultApiUrl(env), log })
    : undefined
  const jobUrls = client === undefined ? undefined : await agentJobUrls(client, env, readings)
  const rollup = buildRollup({
    readings,
    repositories: options.repositories,
    publish,
    serverUrl: server,
    ...(jobUrls === undefined ? {} : { jobUrls })
  })
  const link = runUrl(env)
  const counts = JSON.stringify(rollup.counts)
  log.info(`Roll-up: ${counts}`)

  const outputs: Record<RollupOutputName, string> = {
    'rollup-counts': counts,
    'tracking-issue': '',
    'tracking-issue-url': ''
  }
  let failure: string | undefined
  try {
    const issue = await writeIssue(client, settings, env, rollup, link)
    outputs['tracking-issue'] = `${issue.owner}/${issue.repo}#${issue.number}`
    outputs['tracking-issue-url'] = issue.url
    log.info(`Roll-up written to ${issue.url}`)
  } catch (error) {
    if (error instanceof UserError) throw error
    failure = `The roll-up could not be written to the tracking issue: ${messageOf(error)}`
  }
  const note = failure === undefined ? '' : `> [!WARNING]\n> ${failure.replace(/\n/g, ' ')}\n\n`
  try {
    await writeJobSummary(
      note + renderRollup(rollup, { maxLength: SUMMARY_MAX_LENGTH - note.length })
    )
  } catch (error) {
    log.warning(`Could not write the job summary: ${messageOf(error)}`)
  }
  setOutputs(outputs)
  return { outputs, rollup, ...(failure === undefined ? {} : { failure }) }
}

interface WrittenIssue {
  owner: string
  repo: string
  number: number
  url: string
}

/**
 * Updates the tracking issue's body (the `tracking-issue` input, else `issue-number` in this
 * repository), or opens one: first looking for the issue an earlier attempt of this workflow
 * run opened (its marker names the run), so a re-run never opens a second.
 */
async function writeIssue(
  client: GitHubClient | undefined,
  settings: Settings,
  env: NodeJS.ProcessEnv,
  rollup: Rollup,
  link: string | undefined
): Promise<WrittenIssue> {
  const target = issueTarget(settings, env)
  if (client === undefined) {
    throw new UserError(
      "With 'mode: rollup', the input 'github-token' must be a token that can write issues in the tracking issue's repository (permissions: issues: write)."
    )
  }
  const self = runnerRepository(env)
  const runKey =
    self !== undefined && env.GITHUB_RUN_ID
      ? `${self.owner}/${self.repo}/${env.GITHUB_RUN_ID}`
      : undefined
  const marker = rollupMarker(runKey)
  const number = target.number ?? (await issueOfThisRun(client, target, marker))
  const render = (existing: string | null | undefined): string =>
    issueBody(
      existing,
      marker,
      renderRollup(rollup, {
        maxLength: roomFor(existing, marker, ISSUE_MAX_LENGTH),
        ...(link === undefined ? {} : { runUrl: link })
      })
    )
  if (number !== undefined) {
    const { data: current } = await client.rest.issues.get({
      owner: target.owner,
      repo: target.repo,
      issue_number: number
    })
    const { data } = await client.rest.issues.update({
      owner: target.owner,
      repo: target.repo,
      issue_number: number,
      body: render(current.body)
    })
    return { owner: target.owner, repo: target.repo, number, url: data.html_url }
  }
  const { data } = await client.rest.issues.create({
    owner: target.owner,
    repo: target.repo,
    title: `Copilot: one task across ${rollup.counts.total} repositories${env.GITHUB_RUN_ID ? ` (run ${env.GITHUB_RUN_ID})` : ''}`,
    body: render(undefined)
  })
  return { owner: target.owner, repo: target.repo, number: data.number, url: data.html_url }
}

function issueTarget(settings: Settings, env: NodeJS.ProcessEnv): TrackingIssue {
  const tracking = settings.rollup?.trackingIssue
  if (tracking !== undefined) return tracking
  const repo = runnerRepository(env)
  if (repo === undefined) {
    throw new UserError(
      "With 'mode: rollup' outside a workflow run (GITHUB_REPOSITORY is not set), set the input 'tracking-issue' (owner/name#number, or owner/name to open one there)."
    )
  }
  return {
    owner: repo.owner,
    repo: repo.repo,
    ...(settings.issueNumber === undefined ? {} : { number: settings.issueNumber })
  }
}

/** The open issue whose body holds this run's marker (an earlier attempt opened it), if any. */
async function issueOfThisRun(
  client: GitHubClient,
  target: TrackingIssue,
  marker: string
): Promise<number | undefined> {
  if (!/ run=/.test(marker)) return undefined
  const { data } = await client.rest.issues.listForRepo({
    owner: target.owner,
    repo: target.repo,
    state: 'open',
    sort: 'created',
    direction: 'desc',
    per_page: 100
  })
  return data.find((issue) => issue.pull_request == null && (issue.body ?? '').includes(marker))
    ?.number
}

/** The most workflow runs whose agent jobs the roll-up looks up. */
const MAX_RUNS_LOOKED_UP = 5

/**
 * Each repository's agent job page, from the jobs of the workflow runs the reports name (runs of
 * this repository only): a report knows its run and its job id, not the job's page. Needs
 * `actions: read`; without it (or on any error) the rows link the run instead.
 */
async function agentJobUrls(
  client: GitHubClient,
  env: NodeJS.ProcessEnv,
  readings: readonly ReportReading[]
): Promise<Map<string, string>> {
  const urls = new Map<string, string>()
  const self = runnerRepository(env)
  if (self === undefined) return urls
  const server = (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, '')
  const prefix = `${server}/${self.owner}/${self.repo}/actions/runs/`
  const runs = new Map<string, { id: number; attempt?: number; job: string }>()
  for (const reading of readings) {
    const run = reading.kind === 'report' ? reading.report.run : undefined
    const id = Number(run?.id)
    if (run?.job === undefined || !run.url.startsWith(prefix) || !Number.isSafeInteger(id)) continue
    runs.set(`${id}/${run.attempt ?? ''}/${run.job}`, {
      id,
      job: run.job,
      ...(run.attempt === undefined ? {} : { attempt: run.attempt })
    })
  }
  for (const run of [...runs.values()].slice(0, MAX_RUNS_LOOKED_UP)) {
    try {
      const jobs =
        run.attempt === undefined
          ? await client.paginate(client.rest.actions.listJobsForWorkflowRun, {
              owner: self.owner,
              repo: self.repo,
              run_id: run.id,
              per_page: 100
            })
          : await client.paginate(client.rest.actions.listJobsForWorkflowRunAttempt, {
              owner: self.owner,
              repo: self.repo,
              run_id: run.id,
              attempt_number: run.attempt,
              per_page: 100
            })
      for (const job of jobs) {
        const repository = jobRepository(job.name, run.job)
        if (repository !== undefined && job.html_url) urls.set(repository, job.html_url)
      }
    } catch (error) {
      log.warning(
        `Could not look up the agent jobs of run ${run.id} (the rows link the run instead; the roll-up's token needs actions: read): ${messageOf(error)}`
      )
    }
  }
  return urls
}

function readPublishRecords(glob: string): PublishRecord[] {
  const records: PublishRecord[] = []
  for (const file of findFiles(glob, 'publish-results')) {
    try {
      const parsed = PublishRecordSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')))
      if (parsed.success) records.push(parsed.data)
      else log.warning(`Publish record ${file} is not one: ignored.`)
    } catch (error) {
      log.warning(`Publish record ${file} could not be read: ${messageOf(error)}`)
    }
  }
  return records
}

/**
 * The regular files a glob matches, sorted: the walk starts at the glob's fixed leading
 * directories and follows no symbolic link.
 */
export function findFiles(pattern: string, input: string): string[] {
  const normalized = pattern.split(path.sep).join('/')
  const parts = normalized.split('/')
  const fixed: string[] = []
  for (const part of parts) {
    if (picomatch.scan(part).isGlob) break
    fixed.push(part)
  }
  if (fixed.length === parts.length) {
    // no glob at all: the one file
    return isRegularFile(pattern) ? [pattern] : []
  }
  const base = fixed.join('/') || '/'
  const matches = picomatch(normalized, { dot: true })
  const found: string[] = []
  let walked = 0
  const walk = (dir: string): void => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (++walked > MAX_ENTRIES) {
        throw new UserError(
          `Input '${input}' ('${pattern}') walks more than ${MAX_ENTRIES} entries: make its fixed part (before the first *) name the download directory.`
        )
      }
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && matches(full.split(path.sep).join('/'))) {
        found.push(full)
        if (found.length > MAX_FILES) {
          throw new UserError(
            `Input '${input}' ('${pattern}') matches more than ${MAX_FILES} files: a roll-up covers at most that many.`
          )
        }
      }
    }
  }
  walk(base)
  return found.sort()
}

function isRegularFile(file: string): boolean {
  try {
    return fs.lstatSync(file).isFile()
  } catch {
    return false
  }
}

/** A file as the roll-up names it: relative to the workspace when inside it. */
function shown(file: string, workspace: string): string {
  const relative = path.relative(workspace, file)
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
    ? relative
    : file
}
