/**
 * Which environment variables the Copilot CLI turns into a writable root of its sandbox (the
 * measurement behind WRITABLE_ROOTS in src/wall/environment.ts). Each variable named on the
 * command line points at a directory of its own under a fresh HOME in GitHub's runner layout
 * (with the subdirectories given by --subs); the real CLI runs one sandboxed command that writes a
 * file into each; a file that lands on the host is a writable root.
 *
 * The run names the variables in `env-passthrough`, and the action drops the writable roots it
 * knows: so this shows what still gets through. To measure the CLI itself, pass --raw: the CLI
 * is then started through a wrapper script that sets the variables again, around the allowlist.
 *
 *   npx tsx scripts/measure-writable-roots.ts --raw TMPDIR GOCACHE CARGO_HOME --subs registry,git
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer } from '../test-support/model-server.js'
import {
  cliBinary,
  makeRunnerWorkspace,
  runAction,
  scriptedInputs
} from '../test-support/action.js'

const args = process.argv.slice(2)
const raw = args.includes('--raw')
const subsAt = args.indexOf('--subs')
const subs = subsAt >= 0 ? (args[subsAt + 1] ?? '').split(',').filter(Boolean) : []
const names = args.filter((arg, i) => !arg.startsWith('--') && !(subsAt >= 0 && i === subsAt + 1))
if (names.length === 0) {
  console.error('usage: measure-writable-roots.ts [--raw] NAME... [--subs a,b]')
  process.exit(2)
}

const ws = makeRunnerWorkspace({
  '.github/copilot-policy.yml':
    'version: 1\nextends: ci-fix\nsandbox:\n  mode: required\nrules:\n  - { id: probe, decision: allow, shell: ["node probe.js"] }\n',
  // the CLI grants tool caches by the project's kind
  'package.json': '{"name":"x"}\n',
  'go.mod': 'module x\n',
  'Cargo.toml': '[package]\nname = "x"\n',
  'pyproject.toml': '[project]\nname = "x"\n',
  'build.gradle': ''
})
const dirOf = (name: string): string => path.join(ws.home, 'probe', name)
const vars: Record<string, string> = {}
for (const name of names) {
  fs.mkdirSync(dirOf(name), { recursive: true })
  for (const sub of subs) fs.mkdirSync(path.join(dirOf(name), sub), { recursive: true })
  vars[name] = dirOf(name)
}
ws.write(
  'probe.js',
  `const fs = require('fs'), path = require('path')
for (const name of ${JSON.stringify(names)}) {
  const dir = process.env[name]
  if (!dir) continue
  for (const sub of ['', ...${JSON.stringify(subs)}]) {
    try { fs.writeFileSync(path.join(dir, sub, 'probe'), 'x') } catch {}
  }
}
console.log('probed')
`
)
execFileSync('git', ['init', '-q', ws.dir])
let cliPath = cliBinary()
if (raw) {
  // the CLI started with the variables set again, whatever the action passed it
  cliPath = path.join(ws.home, 'cli-with-env.sh')
  const exports = Object.entries(vars)
    .map(([name, value]) => `export ${name}=${JSON.stringify(value)}`)
    .join('\n')
  fs.writeFileSync(cliPath, `#!/bin/sh\n${exports}\nexec ${JSON.stringify(cliBinary())} "$@"\n`, {
    mode: 0o755
  })
}
const model = await startModelServer([
  { toolCalls: [{ name: 'bash', arguments: { command: 'node probe.js', description: 'probe' } }] },
  { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
])
try {
  const result = await runAction({
    workspace: ws,
    inputs: {
      ...scriptedInputs(model.url),
      'provider-api-key': 'measure-key',
      'cli-path': cliPath,
      comment: 'off',
      'env-passthrough': names.join('\n')
    },
    env: { ...ws.env, ...vars }
  })
  console.log(`run: ${result.outputs.status ?? 'no status'}`)
  for (const name of names) {
    const landed = ['', ...subs].filter((sub) =>
      fs.existsSync(path.join(dirOf(name), sub, 'probe'))
    )
    console.log(
      `${name}: ${landed.length === 0 ? 'not writable on the host' : `WRITABLE on the host (${landed.map((s) => s || '.').join(', ')})`}`
    )
  }
} finally {
  await model.close()
  ws.cleanup()
}
