/**
 * The inputs of `mode: rollup` (issue 32: one task across many repositories), read by
 * settings.ts: the report files, the tracking issue, the plan's repositories and the publish
 * legs' records.
 */
import path from 'node:path'
import { UserError } from './errors.js'
import { parseRepositoryName } from './github/origin.js'

/** The issue the roll-up goes to: an existing one (`number`), or a new one in `owner/repo`. */
export interface TrackingIssue {
  owner: string
  repo: string
  number?: number
}

export interface RollupSettings {
  /** A glob of report files (`reports/**\/report.json`), absolute or relative to the workspace. */
  reports: string
  /** `tracking-issue`: `owner/name#number`, or `owner/name` to open one there. */
  trackingIssue?: TrackingIssue
  /** `repositories`: the plan's `owner/name`s; one without a report is a row that says so. */
  repositories: string[]
  /** `publish-results`: a glob of the publish legs' records (pull request, outcome). */
  publishResults?: string
}

/** `owner/name#number` or `owner/name`; a UserError naming the input otherwise. */
export function parseTrackingIssue(raw: string): TrackingIssue | undefined {
  if (raw === '') return undefined
  const match = /^([^#\s]+)(?:#(\d+))?$/.exec(raw.trim())
  const name = match?.[1] === undefined ? undefined : parseRepositoryName(match[1])
  const number = match?.[2] === undefined ? undefined : Number(match[2])
  if (
    name === undefined ||
    (number !== undefined && (!Number.isSafeInteger(number) || number <= 0))
  ) {
    throw new UserError(
      `Input 'tracking-issue' must be an issue such as acme/fleet#12 (or acme/fleet to open one there), got '${raw}'. Fix the 'with:' block of the step.`
    )
  }
  return { owner: name.owner, repo: name.name, ...(number === undefined ? {} : { number }) }
}

/**
 * A list of repositories: a JSON array of `owner/name` strings, or one per line (commas too,
 * `#` comments). Each must be a valid name and appear once (case-insensitive), else a UserError
 * that names it.
 */
export function parseRepositoryList(raw: string, input = 'repositories'): string[] {
  const text = raw.trim()
  if (text === '') return []
  let items: string[]
  if (text.startsWith('[')) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      throw new UserError(
        `Input '${input}' starts with '[' but is not a JSON list: give a JSON list of "owner/name" strings, or one repository per line.`
      )
    }
    if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
      throw new UserError(
        `Input '${input}' must be a JSON list of "owner/name" strings, or one repository per line.`
      )
    }
    items = value.map((v) => v.trim())
  } else {
    items = text
      .split(/[\r\n,]+/)
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('#'))
  }
  const seen = new Map<string, string>()
  const out: string[] = []
  items.forEach((item, index) => {
    const name = parseRepositoryName(item)
    if (name === undefined) {
      throw new UserError(
        `Input '${input}', item ${index + 1}: '${item.slice(0, 140)}' is not a repository such as acme/widgets (owner/name). Fix or remove it.`
      )
    }
    const full = `${name.owner}/${name.name}`
    const before = seen.get(full.toLowerCase())
    if (before !== undefined) {
      throw new UserError(
        `Input '${input}', item ${index + 1}: '${full}' is listed twice (also as '${before}'). Remove one.`
      )
    }
    seen.set(full.toLowerCase(), full)
    out.push(full)
  })
  return out
}

/** The rollup's settings, when `mode` is rollup (the `reports` input is then required). */
export function rollupInputs(
  input: (name: string) => string,
  workspace: string,
  mode: string
): { rollup?: RollupSettings } {
  if (mode !== 'rollup') return {}
  const reports = input('reports')
  if (reports === '') {
    throw new UserError(
      "With 'mode: rollup', set the input 'reports' to a glob of the downloaded report files, such as reports/**/report.json."
    )
  }
  const publishResults = input('publish-results')
  return {
    rollup: {
      reports: path.isAbsolute(reports) ? reports : path.join(workspace, reports),
      ...optional('trackingIssue', parseTrackingIssue(input('tracking-issue'))),
      repositories: parseRepositoryList(input('repositories')),
      ...(publishResults === ''
        ? {}
        : {
            publishResults: path.isAbsolute(publishResults)
              ? publishResults
              : path.join(workspace, publishResults)
          })
    }
  }
}

function optional<K extends string, V>(name: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [name]: value } as Partial<Record<K, V>>)
}
