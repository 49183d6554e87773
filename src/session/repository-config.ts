/**
 * What the Copilot CLI may load from the checked-out tree. On a pull request that tree is the PR
 * author's, so by default nothing in it that runs code or widens what the agent can do is loaded;
 * `trusted-config: true` (the workflow says the tree is trusted) gives the CLI its own discovery
 * back. Instruction files (AGENTS.md, .github/copilot-instructions.md, .github/instructions/,
 * CLAUDE.md, GEMINI.md, .claude/rules/) stay on either way: they are text, and the policy judges
 * every act; but one that leads out of the workspace or is not a regular file is moved aside for
 * the session (instruction-files.ts), since the CLI reads them by itself, unsandboxed.
 *
 * Measured on CLI 1.0.102 headless (__tests__/e2e/untrusted-config.test.ts), what the tree can
 * bring and what keeps it out:
 * - hooks (.github/hooks/*.json; `hooks` in .github/copilot/settings.json and
 *   .claude/settings.json; the settings' hookDirectories) run as commands, unasked, unless
 *   `enableFileHooks: false`.
 * - language servers in .github/lsp.json start, unasked, when the agent calls the `lsp` tool,
 *   whatever the discovery options: only removing the tool keeps them out.
 * - skills (.github/skills, .agents/skills, .claude/skills, the settings' skillDirectories) and
 *   custom agents (.github/agents, .claude/agents, agentDirectories) load with
 *   `enableConfigDiscovery: true`.
 * - MCP servers in .mcp.json start with discovery on and the folder trusted.
 * - plugins from a marketplace the repository settings name (extraKnownMarketplaces, even a
 *   directory in the tree, plus enabledPlugins) are installed and their hooks and MCP servers run
 *   with discovery on, whatever enableFileHooks says.
 * - extensions (.github/extensions/NAME/extension.mjs) run with `requestExtensions: true`.
 */

import type { RepositoryConfigOptions } from '../cli/session-api.js'
export type { RepositoryConfigOptions } from '../cli/session-api.js'

/** The CLI tool that starts language servers configured in the tree (.github/lsp.json). */
export const LSP_TOOL = 'lsp'

export function repositoryConfigOptions(trusted: boolean): RepositoryConfigOptions {
  if (trusted) {
    // The CLI's own discovery. Workspace MCP servers (.mcp.json) also need the folder trusted;
    // 'session' trusts it for this session only ('user' would persist it in COPILOT_HOME).
    return { enableConfigDiscovery: true, enableFileHooks: true, trustWorkingDirectory: 'session' }
  }
  return {
    enableConfigDiscovery: false,
    enableFileHooks: false,
    requestExtensions: false,
    // nested AGENTS.md and the like, surfaced after a file view (off by default headless on
    // 1.0.102, said here): the action checks only the ones read at the start (instruction-files.ts)
    enableOnDemandInstructionDiscovery: false,
    excludedTools: [LSP_TOOL]
  }
}

/** One line for the log: what the run loads from the tree. */
export function describeRepositoryConfig(config: RepositoryConfigOptions): string {
  return config.enableConfigDiscovery
    ? 'trusted-config: true: the CLI loads the repository configuration in the working tree (hooks, MCP servers in .mcp.json, skills, custom agents, language servers).'
    : 'Repository configuration in the working tree is not loaded (hooks, MCP servers, skills, custom agents, language servers; instruction files still are). Set trusted-config: true when the tree is trusted.'
}
