// Jest's global teardown: removes the run's temporary directory and the bundle of the action's
// sources (global-setup.mjs made them).
import fs from 'node:fs'

export default function globalTeardown() {
  for (const dir of [globalThis.__autopilotTestsTmp, globalThis.__autopilotTestsBundle]) {
    if (typeof dir === 'string') fs.rmSync(dir, { recursive: true, force: true })
  }
}
