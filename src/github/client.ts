/**
 * The action's Octokit: @actions/github's client (proxy-aware fetch, Actions user agent) plus the
 * retry and throttling plugins. Transient errors (5xx, network) are retried with a quadratic
 * backoff; secondary rate limits are retried a bounded number of times when GitHub asks for a
 * short enough wait; primary rate limits only when they reset within that wait.
 */
import { getOctokit } from '@actions/github'
import { retry } from '@octokit/plugin-retry'
import type { ThrottlingOptions } from '@octokit/plugin-throttling'
import { throttling } from '@octokit/plugin-throttling'

export type GitHubClient = ReturnType<typeof getOctokit>

export interface ClientLog {
  debug(message: string): void
  warning(message: string): void
}

export interface ClientOptions {
  token: string
  /** REST API base URL; default `GITHUB_API_URL`, then https://api.github.com. */
  apiUrl?: string
  log?: ClientLog
  /** Retries of transient failures (default 3). */
  retries?: number
  /**
   * Unit of the backoff and rate-limit waits in ms (default 1000: waits of 1 s, 4 s, 9 s; and
   * Retry-After seconds). Tests pass 1.
   */
  retryDelayMs?: number
  /** How many times to wait out a rate limit (default 2). */
  rateLimitRetries?: number
  /** Longest rate-limit wait to accept, in seconds (default 60); longer ones fail the request. */
  maxRateLimitWaitSeconds?: number
  /**
   * Throttling group id. Requests sharing an id are spaced as GitHub recommends (writes 1 s apart,
   * notification-triggering writes such as new comments 3 s apart). Default `copilot-autopilot`.
   */
  throttleId?: string
  /**
   * Space writes as GitHub recommends (default true). Tests turn it off: with it, every write waits
   * up to 3 s after the previous one.
   */
  spaceWrites?: boolean
}

type ThrottleGroup = NonNullable<ThrottlingOptions['write']>

/**
 * A throttling group that never waits. The plugin only calls `group.key(id).schedule(options, fn)`
 * (Bottleneck's Group and limiter API) on it; this runs `fn` at once.
 */
function unspacedGroup(): ThrottleGroup {
  const limiter = {
    // schedule([options,] fn, ...args), as in Bottleneck.
    schedule: (...args: unknown[]): Promise<unknown> => {
      const at = typeof args[0] === 'function' ? 0 : 1
      const fn = args[at] as (...a: unknown[]) => unknown
      return Promise.resolve().then(() => fn(...args.slice(at + 1)))
    }
  }
  return { key: () => limiter } as unknown as ThrottleGroup
}

export const noopLog: ClientLog = { debug: () => undefined, warning: () => undefined }

export function defaultApiUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.GITHUB_API_URL?.trim() || 'https://api.github.com'
}

export function createGitHubClient(options: ClientOptions): GitHubClient {
  const log = options.log ?? noopLog
  const delayMs = options.retryDelayMs ?? 1000
  const rateLimitRetries = options.rateLimitRetries ?? 2
  const maxWait = options.maxRateLimitWaitSeconds ?? 60
  const route = (o: { method: string; url: string }): string => `${o.method} ${o.url}`
  return getOctokit(
    options.token,
    {
      baseUrl: (options.apiUrl ?? defaultApiUrl()).replace(/\/+$/, ''),
      log: {
        debug: (m: string) => log.debug(m),
        info: (m: string) => log.debug(m),
        warn: (m: string) => log.warning(m),
        error: (m: string) => log.warning(m)
      },
      retry: { retries: options.retries ?? 3, retryAfterBaseValue: delayMs },
      throttle: {
        id: options.throttleId ?? 'copilot-autopilot',
        ...(options.spaceWrites === false
          ? { write: unspacedGroup(), notifications: unspacedGroup() }
          : {}),
        retryAfterBaseValue: delayMs,
        onSecondaryRateLimit: (retryAfter, o, _octokit, retryCount) => {
          const retrying = retryCount < rateLimitRetries && retryAfter <= maxWait
          log.warning(
            `GitHub secondary rate limit on ${route(o)}: ${retrying ? `retrying after ${retryAfter}s` : 'giving up'}`
          )
          return retrying
        },
        onRateLimit: (retryAfter, o, _octokit, retryCount) => {
          const retrying = retryCount < rateLimitRetries && retryAfter <= maxWait
          log.warning(
            `GitHub rate limit exhausted on ${route(o)}: ${retrying ? `retrying after ${retryAfter}s` : `giving up (resets in ${retryAfter}s)`}`
          )
          return retrying
        }
      }
    },
    retry,
    throttling
  )
}
