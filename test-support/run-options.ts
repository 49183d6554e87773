/**
 * `RunOptions` for tests that drive `SessionRun`: no commands, short time limits, and a session
 * built by the real `sessionOptions` from settings a test gives over a BYOK session in `dir`.
 */
import path from 'node:path'
import type { RunOptions } from '../src/session/run.js'
import {
  sessionOptions,
  type SessionContext,
  type SessionSettings
} from '../src/session/session-options.js'

/** A BYOK provider nothing listens on: the session never checks a GitHub sign-in. */
export const TEST_PROVIDER = { type: 'openai', baseUrl: 'http://127.0.0.1:1/v1' } as const

/** The settings and the context of the session, over the defaults. */
export type TestSession = Partial<SessionSettings> & SessionContext

export type TestRunOptions = Pick<RunOptions, 'api' | 'policy' | 'recorder' | 'log'> &
  Partial<Omit<RunOptions, 'session'>> & {
    /** The working directory (and where the scratch directory goes). */
    dir: string
    session?: TestSession
  }

export function testRunOptions(options: TestRunOptions): RunOptions {
  const { dir, session = {}, ...rest } = options
  return {
    prompt: 'Fix the tests',
    timeoutMs: 10_000,
    idleTimeoutMs: 5_000,
    signal: new AbortController().signal,
    cliExited: new Promise<string>(() => undefined),
    setupCommands: [],
    verifyCommands: [],
    commandTimeoutMs: 5_000,
    scratchDir: path.join(dir, 'scratch'),
    protectedGroups: [process.pid],
    redact: (text) => text,
    ...rest,
    session: sessionOptions(
      {
        workingDirectory: dir,
        provider: TEST_PROVIDER,
        planFirst: false,
        trustedConfig: false,
        maxAutopilotContinues: 5,
        mcpSandbox: false,
        ...session
      },
      session
    )
  }
}
