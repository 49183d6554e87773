/**
 * End to end: untrusted text never reaches the runner's command channel. The real Copilot CLI,
 * offline, with a scripted model whose shell command and `task_complete` summary hold workflow
 * commands, and setup and verify commands that print some: the action's stdout and stderr, read
 * as the runner reads them (test-support/runner-commands.ts), hold no command but the action's
 * own, and the forged lines are still in the log, visibly neutralized.
 */
import { startModelServer, type ModelServer } from '../../test-support/model-server.js'
import {
  EXAMPLE_POLICY,
  makeWorkspace,
  runAction,
  scriptedInputs,
  waitGone,
  type Workspace
} from '../../test-support/action.js'
import { runnerCommands, type ParsedCommand } from '../../test-support/runner-commands.js'
import {
  CREDENTIALS_STATE,
  INSTRUCTIONS_STATE,
  RUN_DIR_STATE,
  RUN_MARK_STATE
} from '../../src/post-run.js'

const SECRET = 'sk-test-secret-value'

let workspace: Workspace
let model: ModelServer | undefined

afterEach(async () => {
  await model?.close()
  model = undefined
  workspace.cleanup()
})

const SUMMARY = [
  'Done.',
  '::error file=README.md,line=1::FORGED annotation',
  '::stop-commands::FORGEDTOKEN',
  '::set-output name=status::hacked',
  '::add-mask::FORGED-mask',
  '   ::warning::FORGED indented',
  '\t::notice::FORGED after a tab',
  'progress\r::notice::FORGED after a carriage return',
  '\u200B::error::FORGED after a zero-width space',
  ':\u200B:error::FORGED split by a zero-width space',
  '##[set-output name=status;]hacked-legacy',
  'text ##[error]FORGED legacy in a line',
  'a\u2028::error::FORGED after a line separator',
  '::FORGEDTOKEN::'
].join('\n')

/** The commands `@actions/core` writes for the action itself, at the start of a line. */
const OWN = new Set(['add-mask', 'debug', 'group', 'endgroup', 'warning', 'notice', 'error'])
/** The state the main step saves for its post step (as a command: the harness sets no GITHUB_STATE). */
const OWN_STATE = new Set([RUN_DIR_STATE, RUN_MARK_STATE, CREDENTIALS_STATE, INSTRUCTIONS_STATE])

function isOwn(command: ParsedCommand): boolean {
  if (command.syntax !== 'v2') return false
  if (!command.line.startsWith(`::${command.name}`)) return false // core writes at column 0
  if (command.name === 'save-state') {
    const { name, ...rest } = command.properties
    return name !== undefined && OWN_STATE.has(name) && Object.keys(rest).length === 0
  }
  if (!OWN.has(command.name)) return false
  if (command.name === 'add-mask') return command.data === SECRET
  return Object.keys(command.properties).length === 0 // no annotation on a file here
}

it('prints the agent summary, a denied command and setup/verify output with no workflow command in them', async () => {
  workspace = makeWorkspace({
    '.github/copilot-policy.yml': EXAMPLE_POLICY,
    'README.md': '# demo\n'
  })
  model = await startModelServer([
    {
      toolCalls: [
        {
          name: 'bash',
          arguments: {
            command: 'true\n::error file=README.md,line=2::FORGED permission',
            description: 'run'
          }
        }
      ]
    },
    { toolCalls: [{ name: 'task_complete', arguments: { summary: SUMMARY } }] }
  ])
  const result = await runAction({
    workspace,
    inputs: scriptedInputs(model.url, {
      'provider-api-key': SECRET,
      'setup-commands':
        "printf '::set-output name=status::FORGED-setup\\n##[error]FORGED-setup-legacy\\n  ::stop-commands::SETUPTOKEN\\n'",
      'verify-commands': "printf 'ok\\r::error file=README.md,line=1::FORGED-verify\\n'"
    })
  })
  expect(await waitGone(result.cliPids)).toEqual([])
  expect(result.outputs.status).toBe('completed')
  expect(result.report?.summary).toContain('::stop-commands::FORGEDTOKEN')

  const commands = runnerCommands(`${result.stdout}\n${result.stderr}`)
  // Nothing but the action's own commands, and the runner never stops processing commands.
  expect(commands.filter((command) => !isOwn(command))).toEqual([])
  expect(commands.map((command) => command.name)).toContain('add-mask')
  expect(commands.some((command) => command.name === 'group')).toBe(true)
  // The untrusted text is in the log, where a person can read it, with its marker.
  expect(result.stdout).toContain('\\::error file=README.md,line=1::FORGED annotation')
  expect(result.stdout).toContain('\\::stop-commands::FORGEDTOKEN')
  expect(result.stdout).toContain('\\::set-output name=status::hacked')
  expect(result.stdout).toContain('##\\[set-output name=status;]hacked-legacy')
  // setup and verify output, line by line
  expect(result.stdout).toContain('\\::set-output name=status::FORGED-setup')
  expect(result.stdout).toContain('##\\[error]FORGED-setup-legacy')
  expect(result.stdout).toContain('  \\::stop-commands::SETUPTOKEN')
  expect(result.stdout).toContain('\\::error file=README.md,line=1::FORGED-verify')
  // the command the agent proposed, in the decision log (on one line there)
  expect(result.stdout).toMatch(
    /^Permission DENIED .*::error file=README\.md,line=2::FORGED permission$/m
  )
})
