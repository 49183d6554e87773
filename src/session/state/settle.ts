/**
 * How the run ended, decided from its state: whether the driver stops (`stopReason`) and the
 * final status with its summary (`settle`).
 */
import type { Ending } from './inputs.js'
import type { RunState } from './run-state.js'
import type { RunStatus } from '../../reporting/types.js'
import { formatMinutes } from '../../text/safe-text.js'
import { aiCreditsOf, formatCredits } from '../../reporting/credits.js'
import { nanoAiuUsed } from './metrics.js'
import { networkHint } from '../../wall/command-network.js'
/**
 * Whether the run should stop waiting for the agent, and why: it went idle, the session
 * reported an error, or the sandbox the run passed to the CLI did not engage (in any mode: the
 * CLI then fails every shell command closed, so the agent cannot do its work). Undefined while
 * the agent works.
 */
export function stopReason(
  state: RunState
): Extract<Ending, { kind: 'idle' | 'session-error' | 'sandbox-failed' | 'budget' }> | undefined {
  if ((state.sandboxRequired || state.sandboxPlanned) && state.sandboxFailure !== undefined) {
    return { kind: 'sandbox-failed' }
  }
  const limit = state.options.maxTokens
  if (limit !== undefined && state.phase === 'working') {
    const used = tokensUsed(state)
    if (used >= limit) return { kind: 'budget', used, limit }
  }
  // The CLI's own limit (sessionLimits.maxAiCredits) only asks the agent to wrap up, then waits
  // for an answer: the action stops the session at the limit itself, with the patch kept.
  const credits = state.options.maxAiCredits
  if (credits !== undefined && state.phase === 'working') {
    const used = aiCreditsOf(nanoAiuUsed(state))
    if (used >= credits || state.creditLimitReached !== undefined) {
      return {
        kind: 'budget',
        used: Math.max(used, state.creditLimitReached?.used ?? 0),
        limit: credits,
        input: 'max-ai-credits'
      }
    }
  }
  // The CLI has already retried; some versions let autopilot prompt again and again after an
  // error. The run ends at the first one, the same way on every version.
  if (state.sessionErrorWhileWorking && state.phase === 'working') return { kind: 'session-error' }
  if (state.phase === 'idle') return { kind: 'idle' }
  return undefined
}

/** Input + output tokens so far, over all models, from the usage events. */
export function tokensUsed(state: RunState): number {
  let total = 0
  for (const usage of state.eventModels.values()) total += usage.inputTokens + usage.outputTokens
  return total
}

/** Whether the agent's task_complete stands (called, and not refused by the CLI). */
export function completed(state: RunState): boolean {
  return state.completion?.state === 'accepted'
}

/** Whether any verify command ran, and whether all passed. */
export function verifyResult(state: RunState): boolean | undefined {
  if (state.verify.ran === 0) return undefined
  return state.verify.failed === 0
}

export interface Settled {
  status: RunStatus
  error?: { message: string; type?: string }
}

/**
 * The run's status and error, from how it ended and what the session said. The one place a
 * status is decided: `completed` only for a task_complete the CLI accepted, followed by verify
 * commands that all passed.
 */
export function settle(state: RunState): Settled {
  const violation = violationOf(state)
  if (violation !== undefined) return violation
  const ending = state.ending ?? { kind: 'crashed', message: 'the run ended early', type: 'error' }
  const minutes = (ms: number): string => formatMinutes(ms)
  switch (ending.kind) {
    case 'crashed':
      return { status: 'failed', error: { message: ending.message, type: ending.type } }
    case 'cli-exit':
      return { status: 'failed', error: { message: ending.message, type: 'cli-exit' } }
    case 'cancelled':
      return {
        status: 'cancelled',
        error: {
          message:
            ending.during === 'setup'
              ? 'The workflow run was cancelled during the setup commands.'
              : ending.during === 'verify'
                ? 'The workflow run was cancelled during the verify commands.'
                : 'The workflow run was cancelled.',
          type: 'cancelled'
        }
      }
    case 'timeout':
      return {
        status: 'timed-out',
        error: {
          message: `The agent did not finish within ${minutes(ending.limitMs)} (timeout-minutes).`,
          type: 'timeout'
        }
      }
    case 'hang':
      return {
        status: 'timed-out',
        error: {
          message: `The agent went silent: no event for ${minutes(ending.quietMs)} while it was working (idle-timeout-minutes). The model endpoint may be hanging.`,
          type: 'hang'
        }
      }
    case 'budget':
      if (ending.input === 'max-ai-credits') {
        return {
          status: 'budget-exceeded',
          error: {
            message: `The agent used ${formatCredits(ending.used)} AI credits, reaching max-ai-credits (${formatCredits(ending.limit)}): the session was stopped.`,
            type: 'max-ai-credits'
          }
        }
      }
      return {
        status: 'budget-exceeded',
        error: {
          message: `The agent used ${ending.used.toLocaleString('en-US')} tokens (input + output, all models), reaching max-tokens (${ending.limit.toLocaleString('en-US')}): the session was stopped.`,
          type: 'max-tokens'
        }
      }
    case 'sandbox-failed':
      return {
        status: 'failed',
        error: {
          message: state.sandboxRequired
            ? `${state.sandboxFailure ?? 'The OS sandbox did not engage.'} The policy requires the sandbox (sandbox.mode: required): the run is stopped.`
            : `${state.sandboxFailure ?? 'The OS sandbox did not engage.'} The sandbox worked when the action probed it before the session (sandbox.mode: auto), so the session was started with it, and the agent cannot run shell commands: the run is stopped.`,
          type: 'sandbox'
        }
      }
    case 'session-error':
      return {
        status: 'failed',
        ...(state.sessionError ? { error: { ...state.sessionError } } : {})
      }
    case 'setup-failed': {
      const failed = state.commands.find((c) => c.phase === 'setup' && c.exitCode !== 0)
      const what = failed
        ? `Setup command \`${failed.command}\` ${failed.timedOut ? `timed out after ${minutes(state.options.commandTimeoutMs ?? failed.durationMs)}` : `failed with exit code ${failed.exitCode ?? 'none'}`}`
        : 'A setup command failed'
      const network = failed === undefined ? undefined : networkHint(failed)
      const hint = network === undefined ? '' : ` ${network.text}`
      return {
        status: 'failed',
        error: { message: `${what}; the agent was not started.${hint}`, type: 'setup-command' }
      }
    }
    case 'idle': {
      if (completed(state)) {
        if (verifyResult(state) === false) {
          const failed = state.commands.filter(
            (c) =>
              c.phase === 'verify' &&
              (c.attempt ?? 0) === state.repairs.length &&
              (c.exitCode !== 0 || c.timedOut)
          )
          const names = failed.map((c) => `\`${c.command}\``).join(', ')
          // without network, else refused hosts: the first failed command that says either
          const hints = failed.flatMap((c) => networkHint(c) ?? [])
          const network = hints.find((h) => h.kind === 'offline') ?? hints[0]
          const hint = network === undefined ? '' : ` ${network.text}`
          return {
            status: 'verify-failed',
            error: {
              message: `The agent said it completed the task, but ${failed.length === 1 ? 'the verify command' : 'verify commands'} ${names} failed.${hint}`,
              type: 'verify'
            }
          }
        }
        return { status: 'completed' }
      }
      if (state.sessionError) return { status: 'failed', error: { ...state.sessionError } }
      if (state.completion?.state === 'rejected') {
        return {
          status: 'incomplete',
          error: {
            message: `The agent called task_complete, but the Copilot CLI refused it${state.completion.reason ? ` (${state.completion.reason})` : ''}, and the agent stopped without completing.`,
            type: 'task-complete-rejected'
          }
        }
      }
      const cap = state.stopReason === 'cap_reached'
      if (state.mode === 'plan') {
        return {
          status: 'incomplete',
          error: {
            message:
              'The agent stopped in plan mode: it never asked to leave plan mode and start the work.',
            type: 'plan-mode'
          }
        }
      }
      return {
        status: 'incomplete',
        error: {
          message: cap
            ? `The agent stopped without calling task_complete after the maximum number of autopilot continues (${state.options.maxAutopilotContinues ?? '?'}).`
            : `The agent stopped without calling task_complete${state.stopReason ? ` (autopilot stopped: ${state.stopReason})` : ''}.`,
          type: state.stopReason ?? 'stopped'
        }
      }
    }
  }
}

/**
 * A path the write rules forbid changed while the agent worked: whatever else happened, the run
 * is a policy violation (the paths are reverted; the message names them and their rules).
 */
export function violationOf(state: RunState): Settled | undefined {
  const violations = state.audit?.violations ?? []
  if (violations.length === 0) return undefined
  const shown = violations
    .slice(0, 3)
    .map(
      (v) =>
        `\`${v.path}\` (${v.change}, ${v.rule === 'default' ? 'no rule allows it' : `rule \`${v.rule}\``})`
    )
  const more = violations.length > 3 ? ` and ${violations.length - 3} more` : ''
  const kept = violations.filter((v) => !v.reverted).length
  return {
    status: 'policy-violation',
    error: {
      message: `The workspace audit found ${violations.length === 1 ? 'a path' : `${violations.length} paths`} changed that the policy's write rules forbid: ${shown.join(', ')}${more}. ${kept === 0 ? 'Each was put back as it was before the agent started.' : `${kept} could not be put back: check them before using this workspace.`}`,
      type: 'policy-violation'
    }
  }
}
