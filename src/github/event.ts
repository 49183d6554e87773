/** The triggering event, as the runner describes it (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH). */
import fs from 'node:fs'
import { messageOf } from '../errors.js'

export interface RunnerEvent {
  name: string
  /** The event payload (unknown shape: read with zod where used); `{}` when there is none. */
  payload: unknown
  /** Why the payload could not be read, when it could not. */
  problem?: string
}

export function readEvent(env: NodeJS.ProcessEnv): RunnerEvent {
  const name = env.GITHUB_EVENT_NAME ?? ''
  const file = env.GITHUB_EVENT_PATH
  if (!file || !fs.existsSync(file)) return { name, payload: {} }
  try {
    return { name, payload: JSON.parse(fs.readFileSync(file, 'utf8')) as unknown }
  } catch (error) {
    return {
      name,
      payload: {},
      problem: `Could not read the event payload ${file}: ${messageOf(error)}`
    }
  }
}

/** The owner and name of the repository the run is in (GITHUB_REPOSITORY), when known. */
export function runnerRepository(
  env: NodeJS.ProcessEnv
): { owner: string; repo: string } | undefined {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  return owner && repo ? { owner, repo } : undefined
}
