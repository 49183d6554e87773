/**
 * The `session.create` options, built once from the settings and what the run found out before
 * the session (the sandbox, the token registration, the tools it offers). main.ts builds them and
 * hands them to `SessionRun`, which sends them as they are; cli/session-api.ts maps them to the
 * wire. Pure: every input is an argument.
 */
import type { CreateSessionOptions, ExternalToolDefinition } from '../cli/session-api.js'
import type { Settings } from '../settings.js'
import { repositoryConfigOptions } from './repository-config.js'
import type { SessionInputs } from './session-inputs.js'

/** The settings the session is configured from, with the `mcp-servers` and `agent` inputs read. */
export type SessionSettings = SessionInputs &
  Pick<
    Settings,
    | 'model'
    | 'reasoningEffort'
    | 'mcpSandbox'
    | 'maxAiCredits'
    | 'workingDirectory'
    | 'maxAutopilotContinues'
    | 'planFirst'
    | 'trustedConfig'
    | 'provider'
  >

/** What the run knows before the session that is not a setting. */
export interface SessionContext {
  /** The OS sandbox for the agent's shell commands, when the run uses it. */
  sandbox?: CreateSessionOptions['sandboxConfig']
  /** Registration id of the GitHub token provider (none with a BYOK provider). */
  tokenRegistration?: string
  /** Tools the action gives the agent; none offered when empty. */
  tools?: readonly ExternalToolDefinition[]
  /** Continue this session (restored from a checkpoint) instead of creating one. */
  resumeSessionId?: string
}

export function sessionOptions(
  settings: SessionSettings,
  context: SessionContext = {}
): CreateSessionOptions {
  const { agent, provider } = settings
  const { sandbox } = context
  const mcpServers = settings.mcpServers?.servers
  return {
    ...(context.resumeSessionId === undefined ? {} : { resumeSessionId: context.resumeSessionId }),
    ...(settings.model ? { model: settings.model } : {}),
    ...(mcpServers ? { mcpServers } : {}),
    ...(context.tools && context.tools.length > 0 ? { tools: [...context.tools] } : {}),
    ...(agent
      ? {
          agent: {
            name: agent.name,
            description: agent.description,
            prompt: agent.prompt,
            ...(agent.tools ? { tools: agent.tools } : {})
          }
        }
      : {}),
    ...(settings.reasoningEffort ? { reasoningEffort: settings.reasoningEffort } : {}),
    ...(settings.maxAiCredits === undefined ? {} : { maxAiCredits: settings.maxAiCredits }),
    workingDirectory: settings.workingDirectory,
    maxAutopilotContinues: settings.maxAutopilotContinues,
    requestExitPlanMode: settings.planFirst,
    // The `mcp-servers` run outside the OS sandbox unless `mcp-sandbox: true`: most servers need
    // the network or files the sandbox keeps from the agent's commands.
    ...(sandbox
      ? {
          sandboxConfig:
            mcpServers && !settings.mcpSandbox
              ? { ...sandbox, sandboxMcpServers: false as const }
              : sandbox
        }
      : {}),
    repositoryConfig: repositoryConfigOptions(settings.trustedConfig),
    ...(provider ? { provider } : {}),
    ...(context.tokenRegistration ? { gitHubTokenRegistration: context.tokenRegistration } : {})
  }
}
