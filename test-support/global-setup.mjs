// Jest's global setup: says once, loudly, when the OS sandbox's suites cannot run here. They need
// bubblewrap (and, for the network sandbox, slirp4netns and iptables): without them those suites
// are skipped on a developer's machine, and fail the run under CI=true (.ci/run installs them).
import { sandboxTools } from './sandbox-tools.mjs'

export default function globalSetup() {
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
    `\n${line}\n${what}:\nthose suites are SKIPPED and did not run. Install them (Debian/Ubuntu: sudo apt-get install -y bubblewrap slirp4netns iptables)\nand run npm test again to run them; CI=true makes their absence a failure.\n${line}\n\n`
  )
}
