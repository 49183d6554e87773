import type { GitHubClient } from '../../src/github/client.js'
import { createGitHubClient } from '../../src/github/client.js'
import type { FakeGitHub } from '../../test-support/github-api.js'

let throttleSeq = 0

/** A client for the fake API: one retry, no waits, no write spacing. */
export function fakeClient(api: FakeGitHub, token = 'installation-token'): GitHubClient {
  return createGitHubClient({
    token,
    apiUrl: api.url,
    retries: 1,
    retryDelayMs: 1,
    spaceWrites: false,
    throttleId: `github-tests-${process.pid}-${++throttleSeq}`
  })
}

export interface LogLines {
  lines: string[]
  log: { info(m: string): void; warning(m: string): void; debug(m: string): void }
}

export function captureLog(): LogLines {
  const lines: string[] = []
  return {
    lines,
    log: {
      info: (m) => lines.push(`info: ${m}`),
      warning: (m) => lines.push(`warning: ${m}`),
      debug: (m) => lines.push(`debug: ${m}`)
    }
  }
}

/** `expect.any(String)`, typed `unknown` instead of `any`. */
export const anyString = (): unknown => expect.any(String) as unknown

/** `expect.stringContaining(text)`, typed `unknown` instead of `any`. */
export const containing = (text: string): unknown => expect.stringContaining(text) as unknown
