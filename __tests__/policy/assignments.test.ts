/**
 * Variables set for a command are part of what an allow rule must match: `git diff` allowed does
 * not allow `GIT_EXTERNAL_DIFF=<cmd> git diff`, which runs <cmd>. Deny rules still match the
 * command with or without them.
 */
import { compile, shell, tempWorkspace } from './helpers.js'

const POLICY = `version: 1
rules:
  - { id: git-read, decision: allow, shell: ["git diff", "git status", "npm test"] }
  - { id: ci-tests, decision: allow, shell: ["CI=1 npm test"] }
  - { id: no-push, decision: deny, shell: ["git push*"] }
`

describe('environment assignments in shell commands', () => {
  const ws = tempWorkspace()
  afterAll(() => ws.cleanup())

  it.each([
    ['GIT_EXTERNAL_DIFF="sh -c id" git diff', 'deny'],
    ['GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=id git status', 'deny'],
    ['NODE_OPTIONS=--require=./x.js npm test', 'deny'],
    ['env GIT_PAGER=id git diff', 'deny'],
    ['git diff', 'allow'],
    ['npm test', 'allow'],
    ['CI=1 npm test', 'allow'],
    ['CI=2 npm test', 'deny']
  ])('%s → %s', async (command, expected) => {
    const policy = await compile(POLICY, ws.dir)
    expect(policy.decide(shell(command)).decision).toBe(expected)
  })

  it('a deny rule still matches the command behind assignments', async () => {
    const policy = await compile(
      POLICY + '  - { id: any-push, decision: allow, shell: ["FOO=1 git push*"] }\n',
      ws.dir
    )
    const decision = policy.decide(shell('FOO=1 git push origin main'))
    expect(decision).toMatchObject({ decision: 'deny', rule: 'no-push' })
  })
})
