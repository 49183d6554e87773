/**
 * `npm run demo`: a full offline run of the action. The real Copilot CLI (the pinned
 * devDependency) talks to an embedded scripted model on 127.0.0.1 (BYOK), the committed bundle
 * `dist/index.js` runs as the runner would start it, and the policy answers every request.
 * Prints the job summary and where the JSON report is.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer } from '../test-support/model-server.js'
import { EXAMPLE_POLICY, makeWorkspace, runAction } from '../test-support/action.js'
import { probeSandbox } from '../src/session/sandbox-probe.js'

// The example policy runs the project's tests, which needs the OS sandbox under `sandbox: auto`.
// On a machine where it cannot run (no bubblewrap, user namespaces refused), the demo says
// `sandbox: off` in its policy, and says so here: its scripted agent runs nothing harmful.
const probe = await probeSandbox(process.env)
const policy = probe.available
  ? EXAMPLE_POLICY
  : EXAMPLE_POLICY.replace(
      'default: deny\n',
      'default: deny\nsandbox: { mode: off } # the demo machine has no OS sandbox\n'
    )
if (!probe.available) {
  console.log(
    `No OS sandbox here (${probe.reason}): the demo's policy says sandbox: off, so its commands run unguarded (the policy still judges each one). A real run of a policy that runs code stops instead, naming the fix.\n`
  )
}

const workspace = makeWorkspace({
  '.github/copilot-policy.yml': policy,
  'README.md': '# Demo repository\n',
  'src/math.ts': 'export const add = (a: number, b: number) => a - b\n'
})
// a checkout, as actions/checkout leaves it: the agent's changes are kept as a patch against it
for (const args of [
  ['init', '-q', '-b', 'main'],
  ['add', '-A'],
  ['-c', 'user.name=demo', '-c', 'user.email=demo@example.com', 'commit', '-q', '-m', 'Demo']
]) {
  execFileSync('git', args, { cwd: workspace.dir, stdio: 'ignore' })
}
const file = path.join(workspace.dir, 'src', 'math.ts')
const model = await startModelServer([
  { content: 'Let me look at the code.', toolCalls: [{ name: 'view', arguments: { path: file } }] },
  {
    content: 'The add function subtracts. Fixing it.',
    toolCalls: [{ name: 'edit', arguments: { path: file, old_str: 'a - b', new_str: 'a + b' } }]
  },
  {
    toolCalls: [
      { name: 'bash', arguments: { command: 'git push origin main', description: 'Push the fix' } }
    ]
  },
  {
    toolCalls: [
      { name: 'bash', arguments: { command: 'cat src/math.ts', description: 'Show the fix' } }
    ]
  },
  {
    toolCalls: [
      {
        name: 'task_complete',
        arguments: { summary: 'Fixed add() in src/math.ts (it subtracted).' }
      }
    ]
  }
])

try {
  console.log(`Workspace: ${workspace.dir}`)
  console.log(`Scripted model: ${model.url}\n`)
  const result = await runAction({
    workspace,
    entry: 'dist',
    inputs: {
      prompt: 'Fix the bug in src/math.ts',
      model: 'claude-sonnet-4.5',
      'provider-type': 'openai',
      'provider-base-url': model.url,
      'provider-api-key': 'demo-key',
      'timeout-minutes': '5'
    }
  })
  console.log('--- action log ---')
  console.log(result.stdout.trim())
  console.log('\n--- job summary (markdown) ---')
  console.log(result.summary.trim())
  console.log('\n--- outputs ---')
  for (const [name, value] of Object.entries(result.outputs)) console.log(`${name}: ${value}`)
  console.log(`\nsrc/math.ts now: ${workspace.read('src/math.ts')?.trim()}`)
  const patch = result.outputs['patch-path']
  if (patch)
    console.log(`\n--- the patch (output patch-path) ---\n${fs.readFileSync(patch, 'utf8')}`)
  process.exitCode = result.exitCode ?? 1
} finally {
  await model.close()
}
