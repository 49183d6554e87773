// Jest's global setup: the run's temporary directory, the bundle of the action's sources and the
// CLI's unpacked runtime for the end-to-end suites; and says once, loudly, when the OS sandbox's
// suites cannot run here. They need bubblewrap (and, for the network sandbox, slirp4netns and
// iptables): without them those suites are skipped on a developer's machine, and fail the run
// under CI=true (.ci/run installs them).
import fs from 'node:fs'
import path from 'node:path'
import { BUNDLE_VARIABLE, bundleAction } from './action-bundle.mjs'
import { ensureCliRuntime } from './cli-runtime.mjs'
import { sandboxTools } from './sandbox-tools.mjs'

export default function globalSetup() {
  // Every test's temporary files in one directory of /tmp for the run (the workers inherit
  // TMPDIR): a session whose workspace is under /tmp sees /tmp's entries stay as they were when it
  // started (the sandbox denies each one; one removed mid-session fails it closed), while the
  // other worker makes and removes its temporary directories.
  if (process.env.TMPDIR === undefined || !process.env.TMPDIR.includes('autopilot-tests-')) {
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'autopilot-tests-'))
    process.env.TMPDIR = dir
    globalThis.__autopilotTestsTmp = dir
  }
  // The action's sources bundled once, for the end-to-end suites' runs (action-bundle.mjs)
  const bundle = bundleAction()
  process.env[BUNDLE_VARIABLE] = bundle
  globalThis.__autopilotTestsBundle = bundle
  // The CLI's runtime unpacked once in HOME, where every run's wall finds it (cli-runtime.mjs)
  ensureCliRuntime()
  const missing = sandboxTools().missing
  if (missing.length === 0) return
  const what = `The OS sandbox suites need ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not on PATH`
  if (process.env.CI === 'true') {
    throw new Error(
      `${what}. CI installs them (.ci/run); install them here: sudo apt-get install -y bubblewrap slirp4netns iptables`
    )
  }
  const line = '='.repeat(100)
  process.stderr.write(
    `\n${line}\n${what}:\nthose suites are SKIPPED and did not run${missing.includes('bwrap') ? ', and the other end-to-end suites run their policies with sandbox: off (as npm run demo does)' : ''}. Install them (Debian/Ubuntu: sudo apt-get install -y bubblewrap slirp4netns iptables)\nand run npm test again to run them; CI=true makes their absence a failure.\n${line}\n\n`
  )
}
