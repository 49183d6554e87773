/**
 * `npm run try-repo -- <git repository> [verify command] [setup command]`: the action on a real
 * repository, offline but for the setup command's package registry. The repository (a local path
 * or anything `git clone` takes) is cloned into GitHub's runner layout (HOME holding
 * work/REPO/REPO, _temp, _actions), and the action (its TypeScript sources) runs against it with
 * the real Copilot CLI and a scripted model that does what agents do first: `glob`, `grep`,
 * `view`, then the repository's own tests through `bash`, then `task_complete`. The setup and
 * verify commands run behind the sandbox like the agent's (defaults: `npm install --no-audit
 * --no-fund`, `npm test`).
 *
 * Prints each tool call's outcome as the model received it, the run's status, the sandbox record
 * and the verify evidence; exits non-zero when a tool failed or the run did not complete. What the
 * built-in ci-fix preset allows, and the npm registry, is what the agent may use (sandbox: auto).
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { makeRunnerWorkspace, runAction } from '../test-support/action.js'
import { startModelServer, type Turn } from '../test-support/model-server.js'

const [source, verify = 'npm test', setup = 'npm install --no-audit --no-fund'] =
  process.argv.slice(2)
if (!source) {
  console.error('usage: npm run try-repo -- <git repository> [verify command] [setup command]')
  process.exit(2)
}

const workspace = makeRunnerWorkspace()
fs.rmSync(workspace.dir, { recursive: true, force: true })
execFileSync('git', ['clone', '-q', source, workspace.dir], { stdio: 'inherit' })
// The policy: the built-in ci-fix preset (read, edit, run the project's checks) and the npm
// registry (the setup command installs from it: behind the sandbox's wall a command gets network
// only when a url rule allows a host), committed as a workflow's repository would hold it.
fs.mkdirSync(path.join(workspace.dir, '.github'), { recursive: true })
fs.writeFileSync(
  path.join(workspace.dir, '.github', 'copilot-policy.yml'),
  [
    'version: 1',
    'extends: ci-fix',
    'rules:',
    "  - { id: registry, decision: allow, url: ['registry.npmjs.org'] }",
    ''
  ].join('\n')
)
for (const args of [
  ['add', '.github/copilot-policy.yml'],
  ['-c', 'user.name=try', '-c', 'user.email=try@example.com', 'commit', '-q', '-m', 'policy']
])
  execFileSync('git', args, { cwd: workspace.dir, stdio: 'ignore' })
const readme = fs.readdirSync(workspace.dir).find((name) => /^readme/i.test(name))

const steps: Turn[] = [
  {
    content: 'Which files are there?',
    toolCalls: [{ name: 'glob', arguments: { pattern: '**/*.js' } }]
  },
  {
    content: 'Where are the functions?',
    toolCalls: [
      { name: 'grep', arguments: { pattern: 'function', output_mode: 'files_with_matches' } }
    ]
  },
  ...(readme
    ? [{ toolCalls: [{ name: 'view', arguments: { path: path.join(workspace.dir, readme) } }] }]
    : []),
  {
    toolCalls: [
      {
        name: 'bash',
        arguments: { command: verify, description: 'Run the tests' }
      }
    ]
  },
  { toolCalls: [{ name: 'task_complete', arguments: { summary: 'Looked around; tests run.' } }] }
]
const model = await startModelServer(steps)

try {
  console.log(`Workspace: ${workspace.dir}`)
  const result = await runAction({
    workspace,
    env: workspace.env,
    inputs: {
      prompt: 'Look around the repository and run its tests.',
      model: 'claude-sonnet-4.5',
      'provider-type': 'openai',
      'provider-base-url': model.url,
      'provider-api-key': 'try-repo-key',
      'setup-commands': setup,
      'verify-commands': verify,
      'command-timeout-seconds': '300',
      'timeout-minutes': '10'
    }
  })
  // What each tool call returned, as the model saw it.
  let failed = false
  for (const text of model.toolResults()) {
    if (/not found|denied|cannot|error/i.test(text.slice(0, 300))) failed = true
    console.log(`--- tool result ---\n${text.slice(0, 800)}`)
  }
  const report = result.report
  console.log('\n--- run ---')
  console.log(`status: ${result.outputs.status ?? '(none)'}; exit ${result.exitCode}`)
  console.log(`sandbox: ${JSON.stringify(report?.sandbox ?? null)}`)
  for (const command of report?.commands ?? [])
    console.log(`${command.phase}: ${command.command} → exit ${command.exitCode}`)
  // the setup and verify commands' own output, as the action logged it
  for (const group of result.stdout.matchAll(
    /::group::((?:setup|verify): [^\n]*)\n([\s\S]*?)::endgroup::/g
  ))
    console.log(`--- ${group[1]} ---\n${(group[2] ?? '').trim().slice(-3000)}`)
  if (result.outputs.status !== 'completed') {
    console.log(result.stdout.slice(-4000))
    failed = true
  }
  process.exitCode = failed ? 1 : 0
} finally {
  await model.close()
}
