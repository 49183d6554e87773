/**
 * The inputs that configure the session itself and need the JSON and YAML checkers:
 * `mcp-servers` and `agent`. settings.ts keeps them raw, so that the bundle's entry chunk (which
 * reads the settings and may start the CLI early) stays small; main.ts resolves them here first,
 * before any CLI is started: the entry does not start one early when either is set.
 */
import type { Settings } from '../settings.js'
import { readCustomAgent } from './custom-agent.js'
import { readMcpServers } from './mcp-servers.js'

/** The settings with `mcpServers` and `agent` read and checked; their secrets added. */
export function resolveSessionInputs(settings: Settings): Settings {
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
    ...settings,
    ...(mcpServers ? { mcpServers } : {}),
    ...(agent ? { agent } : {}),
    secrets: [...settings.secrets, ...(mcpServers?.secrets ?? [])]
  }
}
