/**
 * The inputs that configure the session itself and need the JSON and YAML checkers:
 * `mcp-servers` and `agent`. settings.ts keeps them raw, so that the bundle's entry chunk (which
 * reads the settings and may start the CLI early) stays small; main.ts resolves them here first,
 * before any CLI is started: the entry does not start one early when either is set.
 */
import type { Settings } from '../settings.js'
import { readCustomAgent, type CustomAgent } from './custom-agent.js'
import { readMcpServers, type McpServersInput } from './mcp-servers.js'

/** The `mcp-servers` and `agent` inputs, read and checked. */
export interface SessionInputs {
  /** mcp-servers: MCP servers the CLI starts for the session (checked, secrets collected). */
  mcpServers?: McpServersInput
  /** agent: the custom agent from .github/agents the session runs as. */
  agent?: CustomAgent
}

/** Reads `settings.raw`: the session inputs, and the settings with their secrets added. */
export function resolveSessionInputs(settings: Settings): {
  settings: Settings
  session: SessionInputs
} {
  const { raw } = settings
  const mcpServers = readMcpServers(
    raw.mcpServers,
    raw.workspace,
    settings.workingDirectory,
    settings.trustedConfig
  )
  const agent =
    raw.agent === ''
      ? undefined
      : readCustomAgent(raw.agent, settings.workingDirectory, raw.workspace)
  return {
    settings: { ...settings, secrets: [...settings.secrets, ...(mcpServers?.secrets ?? [])] },
    session: { ...(mcpServers ? { mcpServers } : {}), ...(agent ? { agent } : {}) }
  }
}
