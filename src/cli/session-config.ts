/**
 * The wire shapes of `session.create`'s configuration fields: what the Copilot CLI takes for a
 * model provider (BYOK), an MCP server and a custom agent. A leaf module: settings.ts and
 * session/ build these values, cli/session-api.ts sends them.
 */

/** A BYOK model provider as `session.create {provider}` takes it. */
export interface Provider {
  type: 'openai' | 'azure' | 'anthropic'
  baseUrl: string
  apiKey?: string
}

/** One MCP server as `session.create {mcpServers}` takes it. */
export type McpServerConfig =
  | {
      type: 'local' | 'stdio'
      command: string
      args: string[]
      env?: Record<string, string>
      cwd?: string
      tools: string[]
      timeout?: number
    }
  | {
      type: 'http' | 'sse'
      url: string
      headers?: Record<string, string>
      tools: string[]
      timeout?: number
    }

/** One custom agent as `session.create {customAgents}` takes it. */
export interface CustomAgentConfig {
  name: string
  description: string
  prompt: string
  /** Tool names the agent may use; all when undefined. */
  tools?: string[]
}
