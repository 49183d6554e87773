/**
 * End to end on the real CLI: configuration in the checked-out tree (the PR author's, on a pull
 * request) neither runs nor reaches the model unless `trusted-config: true`. The same bait tree is
 * run twice, untrusted (the default) and trusted: every check below has its positive twin, so a
 * bait the CLI no longer picks up fails the trusted case instead of passing silently.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { startModelServer, type ModelServer, type Turn } from '../../test-support/model-server.js'
import {
  EXAMPLE_POLICY,
  makeWorkspace,
  runAction,
  waitGone,
  type ActionResult,
  type Workspace
} from '../../test-support/action.js'

const MODEL = 'claude-sonnet-4.5'
const SKILL_BODY = 'SKILL-BODY-7f3a: run the release script'
const SKILL_DESCRIPTION = 'Bait skill from the pull request 7f3a'
const AGENT_DESCRIPTION = 'Bait agent from the pull request 9c1e'
const AGENTS_MD = 'AGENTS-MD-2b8d: use tabs'
const COPILOT_INSTRUCTIONS = 'COPILOT-INSTRUCTIONS-5e0c: answer in English'

/** Every place the tree can hold a hook, each writing its own marker. */
const HOOK_SOURCES = [
  'github-hooks', // .github/hooks/*.json
  'github-settings', // hooks in .github/copilot/settings.json
  'claude-settings', // hooks in .claude/settings.json
  'hook-directory' // a hookDirectories entry of .github/copilot/settings.json
] as const

interface Outcome {
  result: ActionResult
  /** Everything the model was sent, all requests. */
  seen: string
  toolResults: string[]
  markers: string[]
}

function baitTree(ws: Workspace): void {
  const marker = (name: string): string => path.join(ws.dir, '.markers', name)
  const touch = (name: string): string => `touch '${marker(name)}'`
  ws.write('.markers/.keep', '')
  // a repository that ignores the markers: what the hooks leave there is not the agent's change
  // to the workspace audit (which would put back anything the policy's write rules forbid)
  execFileSync('git', ['init', '-q', ws.dir])
  ws.write('.gitignore', '.markers/\n')
  ws.write('.github/copilot-policy.yml', EXAMPLE_POLICY)
  ws.write('src/index.ts', 'export const answer = 42\n')
  // Hooks.
  const hookFile = (name: string): string =>
    JSON.stringify({
      version: 1,
      hooks: {
        sessionStart: [{ type: 'command', bash: touch(name) }],
        preToolUse: [{ type: 'command', bash: touch(`${name}-pre-tool`) }]
      }
    })
  ws.write('.github/hooks/bait.json', hookFile('github-hooks'))
  ws.write('hooks-elsewhere/bait.json', hookFile('hook-directory'))
  ws.write(
    '.github/copilot/settings.json',
    JSON.stringify({
      hooks: { sessionStart: [{ type: 'command', bash: touch('github-settings') }] },
      hookDirectories: ['hooks-elsewhere'],
      skillDirectories: ['skills-elsewhere']
    })
  )
  ws.write(
    '.claude/settings.json',
    JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: touch('claude-settings') }] }] }
    })
  )
  // An MCP server and a language server whose start is the marker.
  ws.write(
    '.mcp.json',
    JSON.stringify({
      mcpServers: {
        bait: { type: 'local', command: 'sh', args: ['-c', touch('mcp')], tools: ['*'] }
      }
    })
  )
  ws.write(
    '.github/lsp.json',
    JSON.stringify({
      lspServers: {
        bait: { command: 'sh', args: ['-c', touch('lsp')], fileExtensions: { '.ts': 'typescript' } }
      }
    })
  )
  // A skill, a skill in a directory the repository's settings add, and a custom agent.
  ws.write(
    '.github/skills/bait/SKILL.md',
    `---\nname: bait\ndescription: ${SKILL_DESCRIPTION}\n---\n${SKILL_BODY}\n`
  )
  ws.write(
    'skills-elsewhere/bait-elsewhere/SKILL.md',
    `---\nname: bait-elsewhere\ndescription: Elsewhere ${SKILL_DESCRIPTION}\n---\n${SKILL_BODY}\n`
  )
  ws.write(
    '.github/agents/bait-agent.agent.md',
    `---\nname: bait-agent\ndescription: ${AGENT_DESCRIPTION}\n---\nAGENT-PROMPT-9c1e\n`
  )
  // Instructions: text, read either way.
  ws.write('AGENTS.md', `${AGENTS_MD}\n`)
  ws.write('.github/copilot-instructions.md', `${COPILOT_INSTRUCTIONS}\n`)
}

async function runBait(ws: Workspace, inputs: Record<string, string>): Promise<Outcome> {
  const lsp = (operation: string): Turn => ({
    toolCalls: [
      { name: 'lsp', arguments: { operation, file: path.join(ws.dir, 'src', 'index.ts') } }
    ]
  })
  const script: Turn[] = [
    { toolCalls: [{ name: 'skill', arguments: { skill: 'bait' } }] },
    // Twice: the CLI may still be setting its language-server clients up at the first call
    // ("LSP client factory is shutting down"), and start none.
    lsp('documentSymbol'),
    lsp('hover'),
    { toolCalls: [{ name: 'task_complete', arguments: { summary: 'done' } }] }
  ]
  const model: ModelServer = await startModelServer(script)
  try {
    const result = await runAction({
      workspace: ws,
      inputs: {
        prompt: 'Do the task.',
        model: MODEL,
        'provider-type': 'openai',
        'provider-base-url': model.url,
        'provider-api-key': 'sk-test-secret-value',
        'timeout-minutes': '2',
        ...inputs
      }
    })
    expect(await waitGone(result.cliPids)).toEqual([])
    // A server may still be starting when the run ends: give its marker a moment.
    await new Promise((resolve) => setTimeout(resolve, 500))
    return {
      result,
      seen: model.requests.map((r) => JSON.stringify(r.body)).join('\n'),
      toolResults: model.toolResults(),
      markers: fs.readdirSync(path.join(ws.dir, '.markers')).filter((f) => f !== '.keep')
    }
  } finally {
    await model.close()
  }
}

/**
 * The repository settings keys hookDirectories and skillDirectories are read by CLI 1.0.102 and
 * not by 1.0.85 (the oldest supported): their positive twins need a CLI that reads them.
 */
function readsDirectoryKeys(outcome: Outcome): boolean {
  const [major = 0, minor = 0, patch = 0] = (outcome.result.report?.cliVersion ?? '')
    .split(/[.-]/)
    .map(Number)
  return major * 1e6 + minor * 1e3 + patch >= 1_000_102
}

/** The agent types the `task` tool offers in the model's first request. */
function agentTypes(outcome: Outcome): string[] {
  const first = JSON.parse(outcome.seen.split('\n')[0] ?? '{}') as {
    tools?: {
      function?: {
        name?: string
        parameters?: { properties?: { agent_type?: { enum?: string[] } } }
      }
    }[]
  }
  const task = first.tools?.find((t) => t.function?.name === 'task')
  return task?.function?.parameters?.properties?.agent_type?.enum ?? []
}

describe('repository configuration from the checked-out tree', () => {
  let untrustedTree: Workspace
  let trustedTree: Workspace
  let untrusted: Outcome
  let trusted: Outcome

  beforeAll(async () => {
    untrustedTree = makeWorkspace()
    trustedTree = makeWorkspace()
    baitTree(untrustedTree)
    baitTree(trustedTree)
    // One after the other: the runners' two cores are shared.
    untrusted = await runBait(untrustedTree, {})
    trusted = await runBait(trustedTree, { 'trusted-config': 'true' })
    // CLI 1.0.85 (the oldest in the version matrix) sometimes panics in its own runtime with
    // repository hooks and servers loaded ("Unfold must not be polled after it returned"): the
    // action reports that as a failed run, as it should; run the trusted session once more on a
    // fresh tree so that the checks below judge the hooks, not that upstream crash
    if (/panicked at/.test(trusted.result.stdout)) {
      trustedTree.cleanup()
      trustedTree = makeWorkspace()
      baitTree(trustedTree)
      trusted = await runBait(trustedTree, { 'trusted-config': 'true' })
    }
  }, 360_000)

  afterAll(() => {
    untrustedTree?.cleanup()
    trustedTree?.cleanup()
  })

  it('runs both sessions to the end', () => {
    for (const outcome of [untrusted, trusted]) {
      // the reason and the audit's findings in the failure message, should a run not complete
      expect({
        exitCode: outcome.result.exitCode,
        status: outcome.result.outputs.status,
        error: outcome.result.report?.error,
        violations: outcome.result.report?.audit?.violations ?? []
      }).toEqual({ exitCode: 0, status: 'completed', error: undefined, violations: [] })
    }
    expect(untrusted.result.stdout).toContain(
      'Repository configuration in the working tree is not loaded'
    )
    expect(trusted.result.stdout).toContain('trusted-config: true')
  })

  it.each(HOOK_SOURCES)('runs no hook from %s unless trusted', (source) => {
    expect(untrusted.markers.filter((m) => m.startsWith(source))).toEqual([])
    if (source !== 'hook-directory' || readsDirectoryKeys(trusted)) {
      expect(trusted.markers).toContain(source)
    }
  })

  it('runs no preToolUse hook unless trusted', () => {
    expect(untrusted.markers.filter((m) => m.endsWith('-pre-tool'))).toEqual([])
    expect(trusted.markers).toContain('github-hooks-pre-tool')
  })

  it('starts no MCP server from .mcp.json unless trusted', () => {
    expect(untrusted.markers).not.toContain('mcp')
    expect(trusted.markers).toContain('mcp')
  })

  it('starts no language server from .github/lsp.json unless trusted (the lsp tool is not offered)', () => {
    expect(untrusted.markers).not.toContain('lsp')
    expect(untrusted.toolResults.slice(1, 3)).toEqual([
      expect.stringMatching(/Tool 'lsp' does not exist/),
      expect.stringMatching(/Tool 'lsp' does not exist/)
    ])
    // Trusted, the CLI starts it; with the OS sandbox engaged it starts it inside the sandbox,
    // which blocks this bait (hooks and MCP servers start outside it).
    const started =
      trusted.markers.includes('lsp') ||
      /sandbox is active and blocked/.test(trusted.toolResults.slice(1, 3).join('\n'))
    expect(started).toBe(true)
  })

  it('offers no repository skill unless trusted, not even when the agent names it', () => {
    expect(untrusted.seen).not.toContain(SKILL_DESCRIPTION)
    expect(untrusted.seen).not.toContain(SKILL_BODY)
    expect(untrusted.toolResults[0]).toMatch(/Tool 'skill' does not exist/)
    expect(trusted.seen).toContain(SKILL_DESCRIPTION)
    if (readsDirectoryKeys(trusted)) {
      expect(trusted.seen).toContain(`Elsewhere ${SKILL_DESCRIPTION}`) // skillDirectories
    }
    expect(trusted.toolResults[0]).toMatch(/Skill "bait" loaded/)
    expect(trusted.seen).toContain(SKILL_BODY) // the skill's text follows as context
  })

  it('offers no repository agent unless trusted', () => {
    expect(untrusted.seen).not.toContain(AGENT_DESCRIPTION)
    expect(agentTypes(untrusted)).not.toContain('bait-agent')
    expect(agentTypes(untrusted)).toContain('general-purpose') // the list itself was read
    expect(trusted.seen).toContain(AGENT_DESCRIPTION)
    expect(agentTypes(trusted)).toContain('bait-agent')
  })

  it('still gives the model the instruction files, trusted or not', () => {
    for (const outcome of [untrusted, trusted]) {
      expect(outcome.seen).toContain(AGENTS_MD)
      expect(outcome.seen).toContain(COPILOT_INSTRUCTIONS)
    }
  })
})
