/**
 * `npm run record-examples`: runs every example scenario through the action on the real Copilot
 * CLI (scripted model on 127.0.0.1, a calc library in a temporary git checkout, the OS sandbox)
 * and writes each normalized report to test-support/fixtures/reports/<scenario>.json, from which
 * `npm run preview` renders docs/examples/. Needs bubblewrap (bwrap on PATH).
 *
 *   npm run record-examples               every scenario
 *   npm run record-examples -- completed  only the named ones
 */
import fs from 'node:fs'
import path from 'node:path'
import prettier from 'prettier'
import { FIXTURES_DIR } from './preview.js'
import { SCENARIOS, record } from '../test-support/record-examples.js'
import { sandboxTools } from '../test-support/sandbox-tools.mjs'

if (!sandboxTools().bwrap) {
  // Every scenario's policy requires the OS sandbox, and policy-violation needs its audit: without
  // bubblewrap the runs would record something else than the examples show.
  console.error(
    'npm run record-examples needs bubblewrap (bwrap on PATH; Debian/Ubuntu: apt-get install bubblewrap).'
  )
  process.exit(1)
}

const wanted = process.argv.slice(2)
const unknown = wanted.filter((name) => !SCENARIOS.some((s) => s.name === name))
if (unknown.length > 0) {
  console.error(
    `Unknown scenario ${unknown.join(', ')}; the scenarios are ${SCENARIOS.map((s) => s.name).join(', ')}.`
  )
  process.exit(2)
}
const scenarios = wanted.length > 0 ? SCENARIOS.filter((s) => wanted.includes(s.name)) : SCENARIOS
fs.mkdirSync(FIXTURES_DIR, { recursive: true })
let failed = 0
for (const scenario of scenarios) {
  const started = Date.now()
  try {
    const { report } = await record(scenario)
    const file = path.join(FIXTURES_DIR, `${scenario.name}.json`)
    // as `prettier --check` (npm run lint) wants the file
    const json = await prettier.format(JSON.stringify(report), {
      ...(await prettier.resolveConfig(file)),
      filepath: file
    })
    fs.writeFileSync(file, json)
    console.log(
      `${scenario.name}: ${report.status} in ${((Date.now() - started) / 1000).toFixed(1)} s → ${path.relative(process.cwd(), file)}`
    )
  } catch (error) {
    failed++
    console.error(
      `${scenario.name}: FAILED: ${error instanceof Error ? error.message : String(error)}`
    )
  }
}
if (failed > 0) {
  console.error(
    `${failed} of ${scenarios.length} scenarios failed; their fixtures were not written.`
  )
  process.exit(1)
}
console.log('Now run `npm run preview` to render docs/examples/.')
