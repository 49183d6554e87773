// Jest's global teardown: removes the run's temporary directory (global-setup.mjs made it).
import fs from 'node:fs'

export default function globalTeardown() {
  const dir = globalThis.__autopilotTestsTmp
  if (typeof dir === 'string') fs.rmSync(dir, { recursive: true, force: true })
}
