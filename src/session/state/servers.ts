/** The MCP servers slice (`mcpServers`). */
import type { McpServerRecord } from '../../reporting/types.js'
import type { RunState } from './run-state.js'
import { clean } from './run-state.js'
import { clip } from '../../text/safe-text.js'
/** Most MCP servers a run lists; more than any workflow configures. */
export const MAX_MCP_SERVERS = 50

/** The server `name`, added (as `type`, not yet reported) when new; undefined past the limit. */
export function mcpServer(
  state: RunState,
  name: string,
  type = 'unknown'
): McpServerRecord | undefined {
  const key = clip(clean(state, name), 100)
  let server = state.mcpServers.get(key)
  if (server === undefined) {
    if (state.mcpServers.size >= MAX_MCP_SERVERS) return undefined
    server = { name: key, type, status: 'not-reported', calls: 0, denied: 0 }
    state.mcpServers.set(key, server)
  }
  return server
}
