/**
 * Suites that need the OS sandbox (bubblewrap) run where it is installed and under CI=true
 * (where test-support/global-setup.mjs fails the run if it is not); on a developer's machine
 * without it they are skipped, and the global setup says so once, loudly.
 */
import { sandboxTools } from './sandbox-tools.mjs'

const tools = sandboxTools()

/** `describe` where bubblewrap is on PATH (or under CI), `describe.skip` elsewhere. */
export const describeWithSandbox: jest.Describe =
  tools.bwrap || process.env.CI === 'true' ? describe : describe.skip

/** The same for the network sandbox (slirp4netns and iptables besides bubblewrap). */
export const describeWithSandboxNetwork: jest.Describe =
  tools.network || process.env.CI === 'true' ? describe : describe.skip

/** `it` where bubblewrap is on PATH (or under CI), `it.skip` elsewhere. */
export const itWithSandbox: jest.It = tools.bwrap || process.env.CI === 'true' ? it : it.skip

/** The same for the network sandbox. */
export const itWithSandboxNetwork: jest.It =
  tools.network || process.env.CI === 'true' ? it : it.skip
