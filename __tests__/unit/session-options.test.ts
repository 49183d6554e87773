/**
 * The `session.create` options, built once from the settings and the run's context
 * (src/session/session-options.ts): each input to its field, the MCP servers' sandbox rule, and
 * the two credentials (a BYOK provider, or the GitHub token's registration).
 */
import type { CreateSessionOptions } from '../../src/cli/session-api.js'
import type { McpServerConfig } from '../../src/cli/session-config.js'
import { repositoryConfigOptions } from '../../src/session/repository-config.js'
import { sessionOptions, type SessionSettings } from '../../src/session/session-options.js'

const BASE: SessionSettings = {
  workingDirectory: '/work/repo',
  planFirst: false,
  trustedConfig: false,
  maxAutopilotContinues: 7,
  mcpSandbox: false
}

const SANDBOX: NonNullable<CreateSessionOptions['sandboxConfig']> = {
  enabled: true,
  allowBypass: false,
  addCurrentWorkingDirectory: true,
  userPolicy: {
    network: { allowOutbound: false, allowLocalNetwork: false, allowedHosts: [], blockedHosts: [] },
    filesystem: { readwritePaths: ['/work/repo'], readonlyPaths: [], deniedPaths: ['/root'] }
  }
}

const SERVER: McpServerConfig = {
  type: 'local',
  command: 'node',
  args: ['server.js'],
  tools: ['*']
}
const MCP = { servers: { docs: SERVER }, source: "input 'mcp-servers'", secrets: [] }

describe('sessionOptions', () => {
  it('the bare settings give only the fields the CLI always needs', () => {
    expect(sessionOptions(BASE)).toEqual({
      workingDirectory: '/work/repo',
      maxAutopilotContinues: 7,
      requestExitPlanMode: false,
      repositoryConfig: repositoryConfigOptions(false)
    })
  })

  it('each setting goes to its field', () => {
    const options = sessionOptions({
      ...BASE,
      model: 'gpt-5',
      reasoningEffort: 'high',
      maxAiCredits: 40,
      planFirst: true,
      trustedConfig: true,
      mcpServers: MCP,
      agent: {
        name: 'fixer',
        description: 'Fixes tests',
        prompt: 'You fix tests.',
        tools: ['shell'],
        file: '.github/agents/fixer.agent.md'
      }
    })
    expect(options).toEqual({
      model: 'gpt-5',
      reasoningEffort: 'high',
      maxAiCredits: 40,
      workingDirectory: '/work/repo',
      maxAutopilotContinues: 7,
      requestExitPlanMode: true,
      repositoryConfig: repositoryConfigOptions(true),
      mcpServers: { docs: SERVER },
      // the agent as the CLI takes it: its file is the report's, not the CLI's
      agent: {
        name: 'fixer',
        description: 'Fixes tests',
        prompt: 'You fix tests.',
        tools: ['shell']
      }
    })
  })

  it('an agent without a tools list has none (all tools)', () => {
    const { agent } = sessionOptions({
      ...BASE,
      agent: { name: 'a', description: 'd', prompt: 'p', file: 'a.agent.md' }
    })
    expect(agent).toEqual({ name: 'a', description: 'd', prompt: 'p' })
  })

  it('zero AI credits is a limit, not an absent one', () => {
    expect(sessionOptions({ ...BASE, maxAiCredits: 0 }).maxAiCredits).toBe(0)
  })

  it('the tools the action offers, only when there are some', () => {
    const tool = { name: 'create_issue', description: 'Proposes an issue', parameters: {} }
    expect(sessionOptions(BASE, { tools: [tool] }).tools).toEqual([tool])
    expect(sessionOptions(BASE, { tools: [] })).not.toHaveProperty('tools')
  })

  describe('the sandbox and the MCP servers', () => {
    it('without MCP servers the sandbox goes as planned', () => {
      expect(sessionOptions(BASE, { sandbox: SANDBOX }).sandboxConfig).toEqual(SANDBOX)
    })

    it('the mcp-servers run outside the sandbox by default', () => {
      const options = sessionOptions({ ...BASE, mcpServers: MCP }, { sandbox: SANDBOX })
      expect(options.sandboxConfig).toEqual({ ...SANDBOX, sandboxMcpServers: false })
      // the planned config itself is left as it was
      expect(SANDBOX).not.toHaveProperty('sandboxMcpServers')
    })

    it('mcp-sandbox: true runs them inside it', () => {
      const options = sessionOptions(
        { ...BASE, mcpServers: MCP, mcpSandbox: true },
        { sandbox: SANDBOX }
      )
      expect(options.sandboxConfig).toEqual(SANDBOX)
    })

    it('no sandbox, no sandboxConfig, whatever the MCP servers', () => {
      expect(sessionOptions({ ...BASE, mcpServers: MCP })).not.toHaveProperty('sandboxConfig')
    })
  })

  describe('the credential', () => {
    it('a BYOK provider goes as the provider, with no token registration', () => {
      const provider = { type: 'azure' as const, baseUrl: 'https://models.example/v1', apiKey: 'k' }
      const options = sessionOptions({ ...BASE, provider, model: 'm' })
      expect(options.provider).toEqual(provider)
      expect(options).not.toHaveProperty('gitHubTokenRegistration')
    })

    it('the GitHub token goes by its registration id, with no provider', () => {
      const options = sessionOptions(BASE, { tokenRegistration: 'reg-1' })
      expect(options.gitHubTokenRegistration).toBe('reg-1')
      expect(options).not.toHaveProperty('provider')
    })
  })
})
