/**
 * One run of the action, reading like the pipeline:
 * settings → policy (while the CLI boots, see index.ts) → sandbox → CLI handshake → session run
 * → report → publish, always cleaning up. Whatever goes wrong becomes the run's ending in its one
 * state (session/recorder.ts), so the report says it; this is the only place that calls
 * core.setFailed.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as core from '@actions/core'
import { cliHome, commandScratch, readInputs, type EarlyStart } from './cli/early.js'
import { CliStarter, type StartedCli } from './cli/start.js'
import { UserError, messageOf } from './errors.js'
import { addSecrets, log, redactSecrets } from './log.js'
import {
  PolicyError,
  loadPolicy,
  policyAnnotations,
  runPolicyTests,
  type CompiledPolicy,
  type PolicyIssue
} from './policy/index.js'
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- not exported by policy/index.ts yet (issue 24)
import { checkPolicy, testPolicy } from './policy/tool.js'
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- not exported by policy/index.ts yet (issue 24)
import { homeCaches, protectedNames, sandboxConfigFor, sandboxNetwork } from './policy/sandbox.js'
import { HomeCaches } from './session/home-caches.js'
import { toReport } from './reporting/report.js'
import { writeRedactedEvents } from './reporting/events-file.js'
import { renderWorking } from './reporting/render.js'
import { commentPublisher, commentTarget, publish, runUrl } from './reporting/publish.js'
import { LiveComment, renderProgress } from './reporting/progress.js'
import type { Target } from './reporting/target.js'
import { checkActor, gateSubject, isListed } from './github/actor-gate.js'
import { createApprovals } from './github/approvals.js'
import { createGitHubClient, defaultApiUrl, type GitHubClient } from './github/client.js'
import { readEvent, runnerRepository, type RunnerEvent } from './github/event.js'
import type { Asker } from './session/permission-requests.js'
import { normalizeSecrets, redact, redactNormalized } from './text/safe-text.js'
import { neutralizeWorkflowCommands } from './text/workflow-commands.js'
import type { Report } from './reporting/types.js'
import { hasCredential, type Settings } from './settings.js'
import type { Ending } from './session/fold.js'
import { StateRecorder } from './session/recorder.js'
import { AUDIT_INCOMPLETE, WorkspaceAudit, type AuditReport } from './session/audit.js'
import { SessionRun } from './session/run.js'
import { restoreCredentials, stashCredentials, type StashRecord } from './session/credentials.js'
import { CREDENTIALS_STATE, INSTRUCTIONS_STATE } from './post-run.js'
import { restoreInstructionFiles, stashInstructionFiles } from './session/instruction-files.js'
import { resolveSessionInputs } from './session/session-inputs.js'
import {
  planSandbox,
  probeSandbox,
  SANDBOX_FIX,
  type SandboxPlan
} from './session/sandbox-probe.js'
import { setUpSandbox } from './session/sandbox-setup.js'

/** The step fails with `message`, neutralized like every line of the log (src/log.ts). */
function failStep(message: string): void {
  core.setFailed(neutralizeWorkflowCommands(redactSecrets(message)))
}

export interface RunResult {
  report: Report | null
  outputs: Record<string, string>
}

const NO_CREDENTIAL =
  "No credential for Copilot: set 'copilot-token' (a fine-grained PAT with the \"Copilot Requests\" permission, or a GitHub App token with copilot_requests: write), or leave 'github-token' at its default and grant the workflow 'permissions: copilot-requests: write' (the organization policy must allow Copilot CLI), or configure a BYOK provider."

/**
 * Runs the action. Returns what it reported (for tests); sets the step's failure itself. `early`
 * is the CLI process the entry started before loading this module (src/index.ts).
 */
export async function run(
  env: NodeJS.ProcessEnv = process.env,
  early?: EarlyStart
): Promise<RunResult> {
  const cancel = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => {
    log.warning(`Received ${signal}: cancelling the run`)
    cancel.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  early?.cli?.adopt()
  try {
    const inputs = early?.inputs ?? readInputs(env)
    if ('error' in inputs) {
      failStep(messageOf(inputs.error))
      return { report: null, outputs: {} }
    }
    let { settings } = inputs
    try {
      settings = resolveSessionInputs(settings)
    } catch (error) {
      await early?.cli?.process.kill()
      failStep(messageOf(error))
      return { report: null, outputs: {} }
    }
    addSecrets(settings.secrets)
    if (settings.mode === 'check-policy') return await checkPolicyOnly(settings, env)
    const event = readEvent(env)
    if (event.problem) log.warning(event.problem)
    const refusal = await refuseActor(settings, env, event)
    if (refusal !== undefined) {
      // Nobody the repository trusts asked for this run: no CLI, no comment, no failure.
      await early?.cli?.process.kill()
      log.notice(refusal)
      core.setOutput('status', 'skipped')
      return { report: null, outputs: { status: 'skipped' } }
    }
    return await runAgent(settings, env, event, cancel.signal, early)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

async function runAgent(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  event: RunnerEvent,
  signal: AbortSignal,
  early: EarlyStart | undefined
): Promise<RunResult> {
  const startedAt = new Date().toISOString()
  // normalized once: clean() runs for every line of command output
  const secrets = normalizeSecrets(settings.secrets)
  const clean = (text: string): string => redactNormalized(text, secrets)
  const link = runUrl(env)
  const target = commentTarget(settings, env, event)
  const comments = commentPublisher(settings, env, target)
  // Posted while the policy loads and the CLI starts; the final comment waits for it.
  const working = comments
    ?.publish(
      renderWorking({ startedAt, runUrl: link, prompt: settings.prompt, secrets: settings.secrets })
    )
    .then((result) => {
      if (result.fallback) log.warning(result.fallback)
    })
  const recorder = new StateRecorder({
    startedAt,
    model: settings.model ?? null,
    policySource: settings.policyPath,
    workingDirectory: settings.workingDirectory,
    secrets: settings.secrets,
    maxAutopilotContinues: settings.maxAutopilotContinues,
    commandTimeoutMs: settings.commandTimeoutMs,
    ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens })
  })
  // The sticky comment follows the run: todos, phase, questions out, denials so far.
  const live = comments
    ? new LiveComment({
        publish: async (body) => {
          const result = await comments.publish(body)
          if (result.fallback) throw new Error(result.fallback)
        },
        render: () => renderProgress(progressOf(recorder, startedAt, link), settings.secrets),
        log
      })
    : undefined
  const showProgress = recorder.onChange((input) => {
    if (input.type === 'todos' || input.type === 'phase' || input.type === 'ask') live?.changed()
    if (input.type === 'decision' && input.approval) live?.changed()
  })
  const { asker, noAskerReason } = askerFor(settings, env, target, clean)

  // The CLI boots (~0.4 s) while the policy loads; no session exists before the policy has
  // loaded and passed its own tests. No credential: the entry started no CLI either.
  let cli = hasCredential(settings)
    ? new CliStarter({ settings, early: early?.cli, env, log: (line) => log.info(line), signal })
    : undefined
  let stopped: Promise<void> | undefined
  let audit: WorkspaceAudit | undefined
  let homeCacheGuard: HomeCaches | undefined
  let credentialsStash: string | undefined
  let instructionsStash: string | undefined
  try {
    if (!cli) throw new UserError(NO_CREDENTIAL)
    // Whether the OS sandbox works here (one bwrap spawn) is found out while the policy loads.
    const sandboxProbe = probeSandbox(env)
    const policy = await log.group('Policy', () => loadCheckedPolicy(settings, env, recorder))
    // On a GitHub-hosted Linux runner, what the probe found missing is set up through sudo.
    const setup = await setUpSandbox({
      mode: policy.sandboxMode,
      probe: await sandboxProbe,
      networkNeeded: sandboxNetwork(policy).allowOutbound,
      env,
      log
    })
    // Before the session (and before the audit's snapshot, which then holds the config without
    // it): nothing the agent runs can read the checkout's token.
    credentialsStash = stashCheckoutCredentials(settings, env, recorder)
    // Instruction files the CLI would read by itself from outside the tree: kept from it (before
    // the audit's snapshot too, so that their absence is not the agent's change).
    if (!settings.trustedConfig) instructionsStash = stashUnsafeInstructions(settings, recorder)
    // What the agent's work is checked against afterwards, and what the sandbox keeps read-only.
    const started = WorkspaceAudit.start({
      root: settings.workingDirectory,
      storeDir: path.join(settings.tempDir, 'audit'),
      protection: {
        names: protectedNames(policy),
        decide: (file) => policy.decide({ kind: 'write', fileName: file })
      },
      report: (result) => reportAudit(result, recorder),
      evidence: () => recorder.state
    })
    audit = started.audit
    // `required` without a working sandbox (or its network) fails here, before any session.
    const sandbox = planSandbox(
      policy.sandboxMode,
      setup.probe,
      () =>
        sandboxConfigFor(policy, {
          ...sandboxContext(settings, env),
          protectedPaths: started.readOnly
        }),
      setup
    )
    // The CLI looks for bwrap and the network's programs once, when it starts (measured, CLI
    // 1.0.102): after the setup installed some, a fresh CLI (~0.4 s) is the one that sees them.
    if (setup.provisioned.length > 0 && sandbox.config) {
      cli = await restartCli(cli, settings, env, signal)
    }
    recorder.record({
      type: 'sandbox',
      record: sandbox.record,
      required: sandbox.mode === 'required'
    })
    if (sandbox.config) {
      recorder.record({ type: 'read-only', paths: started.readOnly })
      homeCacheGuard = HomeCaches.before(homeCaches(sandboxContext(settings, env)))
    }
    logSandbox(sandbox)
    const connected = await cli.started
    if (connected.version) recorder.record({ type: 'cli', version: connected.version })
    log.info(
      `Connected to Copilot CLI ${connected.version ?? '(version not reported)'} (protocol ${connected.protocolVersion})`
    )
    await new SessionRun({
      api: connected.api,
      policy,
      recorder,
      log,
      prompt: settings.prompt,
      workingDirectory: settings.workingDirectory,
      model: settings.model,
      ...(settings.mcpServers ? { mcpServers: settings.mcpServers.servers } : {}),
      mcpSandbox: settings.mcpSandbox,
      ...(settings.agent ? { agent: settings.agent } : {}),
      ...(settings.reasoningEffort ? { reasoningEffort: settings.reasoningEffort } : {}),
      verifyRetries: settings.verifyRetries,
      ...(settings.maxAiCredits === undefined ? {} : { maxAiCredits: settings.maxAiCredits }),
      provider: settings.provider,
      // copilotToken is unset with a BYOK provider
      tokenRegistration: settings.copilotToken
        ? connected.api.provideGitHubToken(settings.copilotToken)
        : undefined,
      planFirst: settings.planFirst,
      sandbox: sandbox.config,
      audit,
      trustedConfig: settings.trustedConfig,
      maxAutopilotContinues: settings.maxAutopilotContinues,
      timeoutMs: settings.timeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
      signal,
      cliExited: cliExit(connected, clean),
      setupCommands: settings.setupCommands,
      verifyCommands: settings.verifyCommands,
      commandTimeoutMs: settings.commandTimeoutMs,
      scratchDir: path.join(settings.tempDir, 'commands'),
      protectedGroups: [connected.process.pid ?? -1, process.pid],
      redact: clean,
      ...(asker ? { asker } : {}),
      ...(noAskerReason ? { noAskerReason } : {})
    }).execute()
  } catch (error) {
    recorder.record({ type: 'ended', ending: crash(error, signal, settings, cli, clean) })
  } finally {
    // Any session is shut down by now (its metrics are in): the CLI exits (~40 ms after
    // SIGTERM) while the report is written and published.
    stopped = cli?.stop()
    if (audit !== undefined || credentialsStash !== undefined) {
      // The CLI, and every process the agent started in its sandbox with it, is gone: what was
      // written after the last audit is audited too, then the credentials go back.
      await stopped?.catch(() => undefined)
      await lateAudit(audit, recorder)
      sweepHomeCaches(homeCacheGuard)
      if (credentialsStash !== undefined) {
        restoreCheckoutCredentials(credentialsStash, env, recorder)
      }
    }
    if (instructionsStash !== undefined) {
      await stopped?.catch(() => undefined)
      restoreUnsafeInstructions(instructionsStash, recorder)
    }
  }
  showProgress()
  if (settings.maxTokens !== undefined && recorder.state.eventModels.size === 0) {
    if (recorder.state.sessionId !== null) {
      log.warning(
        'max-tokens was set, but the Copilot CLI reported no token usage for this run, so the budget could not be enforced.'
      )
    }
  }
  try {
    await working
    await live?.stop()
    const report = toReport(recorder.state, { endedAt: new Date().toISOString() })
    const sessionId = recorder.state.sessionId
    const events = sessionId
      ? path.join(cliHome(settings), 'session-state', sessionId, 'events.jsonl')
      : undefined
    // The CLI's own file holds raw secrets when any reached the session: the output points at a
    // redacted copy, written once the CLI is gone (it writes events until it exits).
    await stopped?.catch(() => undefined)
    const eventsPath =
      events && fs.existsSync(events) ? await redactedEvents(events, settings, secrets) : undefined
    const outputs = await publish(report, {
      settings,
      comments,
      runUrl: link,
      eventsPath
    })
    conclude(report, clean)
    return { report, outputs }
  } finally {
    await stopped
  }
}

/** Records an audit's result and says each violation in the log. */
function reportAudit(result: AuditReport, recorder: StateRecorder): void {
  recorder.record({ type: 'audit', result })
  for (const v of result.violations) {
    log.warning(
      `Workspace audit: ${v.path} was ${v.change}, which ${v.rule === 'default' ? 'no write rule allows' : `rule ${v.rule} forbids`}${v.command ? ` (the command: ${v.command})` : ''}; ${v.reverted ? 'put back' : `NOT put back: ${v.note ?? 'unknown reason'}`}`
    )
  }
}

/** HOME's caches the CLI made for the session go with it (session/home-caches.ts). */
function sweepHomeCaches(guard: HomeCaches | undefined): void {
  if (guard === undefined) return
  try {
    const removed = guard.sweep()
    if (removed.length > 0) {
      log.info(
        `Removed the caches the sandbox made under HOME for the session: ${removed.join(', ')}`
      )
    }
  } catch (error) {
    log.warning(`Could not remove the caches the sandbox made under HOME: ${messageOf(error)}`)
  }
}

/** The audit once the CLI is gone (late writes), then its store removed; a failure fails the run. */
async function lateAudit(
  audit: WorkspaceAudit | undefined,
  recorder: StateRecorder
): Promise<void> {
  if (audit === undefined) return
  try {
    await audit.lateCheck()
  } catch (error) {
    // unchecked is not clean: the run fails as a policy violation that names the failure
    reportAudit(
      {
        changed: 0,
        complete: false,
        violations: [
          {
            path: '.',
            change: 'changed',
            rule: AUDIT_INCOMPLETE,
            reason: `the workspace audit after the session failed: ${messageOf(error)}`,
            reverted: false,
            note: 'not checked'
          }
        ]
      },
      recorder
    )
  } finally {
    audit.discard()
  }
}

/**
 * A redacted copy of the session's events.jsonl in the run's temp directory, or undefined (with a
 * warning) when it cannot be written: the output then points at nothing, never at the raw file.
 */
async function redactedEvents(
  events: string,
  settings: Settings,
  secrets: readonly string[]
): Promise<string | undefined> {
  try {
    return await writeRedactedEvents(events, path.join(settings.tempDir, 'events.jsonl'), secrets)
  } catch (error) {
    log.warning(
      `Could not write the redacted copy of the session's events (${messageOf(error)}): the output events-path is empty.`
    )
    return undefined
  }
}

/**
 * Takes the checkout's credentials out of the workspace's git config for the session
 * (session/credentials.ts); the post step finds the stash through the saved state should the run
 * not get to put them back. Returns the stash directory.
 */
function stashCheckoutCredentials(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  recorder: StateRecorder
): string {
  const stashDir = path.join(settings.tempDir, 'credentials')
  let record: StashRecord
  try {
    record = stashCredentials(settings.raw.workspace, stashDir, {
      directories: [settings.workingDirectory],
      env,
      onSecret: (secret) => addSecrets([secret]),
      beforeChange: () => core.saveState(CREDENTIALS_STATE, stashDir)
    })
  } catch (error) {
    // Whatever was taken out so far goes back; the session does not start with a half-done job.
    try {
      restoreCredentials(stashDir, { env })
    } catch {
      // the post step tries again
    }
    throw new Error(
      `Could not take the checkout credentials out of the workspace's git config: ${messageOf(error)}`,
      { cause: error }
    )
  }
  if (record.removed.length > 0) {
    recorder.record({ type: 'credentials', record: { removed: record.removed, restored: false } })
    log.info(
      `Took the checkout credentials out of ${record.files.join(', ')} for the session: ${record.removed.join(', ')}`
    )
  }
  return stashDir
}

/**
 * Moves aside the instruction files the CLI would read from an untrusted tree although they lead
 * out of the workspace or are not regular files (session/instruction-files.ts); the post step
 * finds the stash through the saved state should the run not get to put them back. Returns the
 * stash directory, or undefined when nothing was moved.
 */
function stashUnsafeInstructions(settings: Settings, recorder: StateRecorder): string | undefined {
  const stashDir = path.join(settings.tempDir, 'instruction-files')
  let kept: ReturnType<typeof stashInstructionFiles>
  try {
    kept = stashInstructionFiles(settings.raw.workspace, settings.workingDirectory, stashDir, {
      beforeChange: () => core.saveState(INSTRUCTIONS_STATE, stashDir)
    })
  } catch (error) {
    try {
      restoreInstructionFiles(stashDir)
    } catch {
      // the post step tries again
    }
    throw new Error(
      `Could not keep the instruction files that lead out of the workspace from the Copilot CLI: ${messageOf(error)}`,
      { cause: error }
    )
  }
  if (kept.length === 0) return undefined
  recorder.record({ type: 'instruction-files', record: { kept, restored: false } })
  log.warning(
    `Kept from the Copilot CLI for the session (they lead out of the workspace or are not regular files, and the CLI reads instruction files by itself): ${kept.map((file) => `${file.path} (${file.reason})`).join(', ')}`
  )
  return stashDir
}

/** Puts the instruction files back after the session; a failure is left to the post step. */
function restoreUnsafeInstructions(stashDir: string, recorder: StateRecorder): void {
  const kept = recorder.state.instructionFiles?.kept ?? []
  let error: string | undefined
  try {
    const record = restoreInstructionFiles(stashDir)
    if (record.failed.length > 0) error = record.failed.join('; ')
    if (record.restored.length > 0) {
      log.info(`Put the instruction files back: ${record.restored.join(', ')}`)
    }
  } catch (caught) {
    error = messageOf(caught)
  }
  if (error !== undefined) {
    log.warning(`Could not put the instruction files back (the post step tries again): ${error}`)
  }
  recorder.record({
    type: 'instruction-files',
    record: { kept, restored: error === undefined, ...(error === undefined ? {} : { error }) }
  })
}

/** Puts the credentials back after the session; a failure is reported, and left to the post step. */
function restoreCheckoutCredentials(
  stashDir: string,
  env: NodeJS.ProcessEnv,
  recorder: StateRecorder
): void {
  const removed = recorder.state.credentials?.removed ?? []
  let error: string | undefined
  try {
    const record = restoreCredentials(stashDir, { env })
    if (!record.found) return
    if (record.failed.length > 0) error = record.failed.join('; ')
    if (record.restored.length > 0) {
      log.info(`Put the checkout credentials back into ${record.restored.join(', ')}`)
    }
    if (record.merged.length > 0) {
      log.warning(
        `${record.merged.join(', ')} changed during the session: the checkout credentials were added back to it entry by entry.`
      )
    }
  } catch (caught) {
    error = messageOf(caught)
  }
  if (error !== undefined) {
    log.warning(`Could not put the checkout credentials back (the post step tries again): ${error}`)
  }
  recorder.record({
    type: 'credentials',
    record: { removed, restored: error === undefined, ...(error === undefined ? {} : { error }) }
  })
}

/** A new CLI process in place of `cli`, once `cli` has started (an install is not wasted). */
async function restartCli(
  cli: CliStarter,
  settings: Settings,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal
): Promise<CliStarter> {
  await cli.started
  await cli.stop()
  log.info('Restarting the Copilot CLI, so that it finds what the sandbox setup installed')
  return new CliStarter({ settings, env, log: (line) => log.info(line), signal })
}

/** What the progress comment shows, from the run's state. */
function progressOf(recorder: StateRecorder, startedAt: string, runUrl: string | undefined) {
  const { state } = recorder
  let denied = 0
  for (const counts of state.permissionCounts.values()) denied += counts.deny
  return {
    startedAt,
    now: Date.now(),
    phase: state.runPhase,
    ...(state.intent ? { intent: state.intent } : {}),
    todos: state.todos,
    asks: [...state.asks.values()],
    denied,
    ...(runUrl ? { runUrl } : {})
  }
}

/**
 * The trusted-actor gate: on events anyone may trigger (comments, issues, pull requests), the
 * actors (who triggered the run, the sender, a comment's or review's author) must have write
 * access or be listed in allowed-actors, and a comment or review event must be a new one
 * (github/actor-gate.ts). Returns why the run is refused, or undefined to go on.
 */
async function refuseActor(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  event: RunnerEvent
): Promise<string | undefined> {
  const repo = runnerRepository(env)
  const subject = gateSubject({ eventName: event.name, payload: event.payload, env })
  if (!subject.gated) return undefined
  // An edited or deleted comment is nobody's new task, whoever is behind it (allow-any-actor too).
  if (subject.refusal !== undefined) return subject.refusal
  const who = subject.actors.join(' and ') || 'whoever triggered this'
  if (settings.allowAnyActor) {
    log.warning(
      `allow-any-actor is true: the agent runs for ${who} without checking their access; anyone who can trigger ${event.name} can make it run.`
    )
    return undefined
  }
  const listed = subject.actors.filter((login) => isListed(login, settings.allowedActors))
  if (subject.actors.length > 0 && listed.length === subject.actors.length) {
    log.info(`${who}: listed in allowed-actors.`)
    return undefined
  }
  if (!settings.githubToken || !repo) {
    return `The agent runs on ${event.name} events only for people with write access, and the access of ${who} cannot be checked (${repo ? "the input 'github-token' is empty" : 'GITHUB_REPOSITORY is not set'}). List them in allowed-actors, or provide github-token.`
  }
  const client = githubClient(settings.githubToken, env)
  const check = await checkActor({
    eventName: event.name,
    payload: event.payload,
    env,
    allowedActors: settings.allowedActors,
    allowAnyActor: false,
    client,
    repo
  })
  if (check.run) {
    log.info(check.reason)
    return undefined
  }
  return check.reason
}

function githubClient(token: string, env: NodeJS.ProcessEnv): GitHubClient {
  return createGitHubClient({
    token,
    apiUrl: defaultApiUrl(env),
    log
  })
}

/** Who answers the policy's ask rules: the maintainers of the PR or issue, when there is one. */
function askerFor(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  target: Target,
  clean: (text: string) => string
): { asker?: Asker; noAskerReason?: string } {
  if (target.kind === 'none') return { noAskerReason: `there is nowhere to ask: ${target.reason}` }
  if (!settings.githubToken) {
    return { noAskerReason: "there is nowhere to ask: the input 'github-token' is empty" }
  }
  const approvals = createApprovals({
    client: githubClient(settings.githubToken, env),
    target: { owner: target.owner, repo: target.repo, number: target.number },
    timeoutMs: settings.approvalTimeoutMs,
    pollMs: settings.approvalPollMs,
    log
  })
  return {
    asker: {
      ask: async (question, signal) => {
        // The question is posted on the PR for anyone to read: never a secret in it.
        const answer = await approvals.ask(
          {
            id: question.id,
            kind: clean(question.kind),
            subject: clean(question.subject),
            rule: clean(question.rule),
            ...(question.reason === undefined ? {} : { reason: clean(question.reason) })
          },
          signal
        )
        const url = 'commentUrl' in answer ? (answer.commentUrl ?? answer.askUrl) : undefined
        return {
          verdict: answer.verdict,
          askedAt: answer.askedAt,
          at: answer.at,
          ...('by' in answer ? { by: answer.by } : {}),
          ...('reason' in answer && answer.reason !== undefined ? { reason: answer.reason } : {}),
          ...(url ? { url } : 'askUrl' in answer && answer.askUrl ? { url: answer.askUrl } : {})
        }
      }
    }
  }
}

/** Load the policy and run its own tests; a bad policy is annotated on its file and recorded. */
async function loadCheckedPolicy(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  recorder: StateRecorder
): Promise<CompiledPolicy> {
  let policy: CompiledPolicy
  try {
    policy = await loadPolicy({
      path: settings.policyPath,
      workingDirectory: settings.workingDirectory,
      workspace: settings.raw.workspace,
      what: "input 'policy'"
    })
  } catch (error) {
    if (error instanceof PolicyError) {
      // the messages quote at most a short excerpt of the file (policy/errors.ts), and no secret
      const issues = error.issues.map((issue) => ({
        ...issue,
        message: redact(issue.message, settings.secrets),
        fix: redact(issue.fix, settings.secrets)
      }))
      annotate(issues, settings, env)
      recorder.record({
        type: 'policy',
        source: settings.policyPath,
        builtIn: false,
        issues: issues.filter((issue) => issue.severity === 'error')
      })
    }
    throw error
  }
  recorder.record({ type: 'policy', source: policy.source, builtIn: policy.builtIn })
  const failures = runPolicyTests(policy)
  if (failures.length > 0) {
    throw new UserError(
      `The policy's own tests fail, so the run does not start (fix the policy or its tests):\n${failures.map((f) => `- ${f.message}`).join('\n')}`
    )
  }
  if (policy.tests.length > 0) log.info(`Policy tests: ${policy.tests.length} passed`)
  if (policy.builtIn) {
    log.notice(
      `No policy file at ${path.relative(settings.workingDirectory, settings.policyPath) || settings.policyPath}: the built-in read-only policy applies.`
    )
  } else {
    log.info(`Policy: ${policy.source}`)
  }
  return policy
}

/** Each policy error as an annotation on the file, line and column (`::error file=…,line=…`). */
function annotate(
  issues: readonly PolicyIssue[],
  settings: Settings,
  env: NodeJS.ProcessEnv
): void {
  const annotations = policyAnnotations(issues, {
    workspace: env.GITHUB_WORKSPACE,
    workingDirectory: settings.workingDirectory
  })
  for (const annotation of annotations) {
    if (annotation.level === 'error') log.error(annotation.message, annotation.properties)
    else log.warning(annotation.message, annotation.properties)
  }
}

/** What ended a run that could not go on: a cancellation, bad configuration, or a bug/outage. */
function crash(
  error: unknown,
  signal: AbortSignal,
  settings: Settings,
  cli: CliStarter | undefined,
  clean: (text: string) => string
): Ending {
  if (signal.aborted) return { kind: 'cancelled', during: 'agent' }
  let message = messageOf(error)
  const process_ = cli?.process
  if (process_?.hasExited && !(error instanceof UserError)) {
    message += `\nLast stderr lines of the Copilot CLI:\n${process_.lastStderr(15).join('\n')}`
    if (settings.cliPath && !cli?.connected) {
      message += `\nThe executable at 'cli-path' (${settings.cliPath}) did not run as the Copilot CLI: fix 'cli-path', or remove it to let the action install 'cli-version'.`
    }
  }
  if (!(error instanceof UserError))
    log.debug(clean(error instanceof Error ? (error.stack ?? message) : message))
  return {
    kind: 'crashed',
    message: clean(message),
    type: error instanceof UserError ? 'configuration' : 'error'
  }
}

/** The step's result, in agreement with the report's status (the `status` output). */
function conclude(report: Report, clean: (text: string) => string): void {
  if (report.status === 'completed') {
    log.info(`Completed: ${clean(report.summary ?? '')}`)
    return
  }
  failStep(clean(`Copilot run ${report.status}${report.error ? `: ${report.error.message}` : ''}`))
}

/** Resolves with a description when the CLI exits during the run. */
function cliExit(started: StartedCli, clean: (text: string) => string): Promise<string> {
  const cli = started.process
  return cli.exited.then(
    (exit) =>
      `The Copilot CLI exited during the run (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'}). Last stderr lines:\n${clean(cli.lastStderr(15).join('\n'))}`
  )
}

function sandboxContext(
  settings: Settings,
  env: NodeJS.ProcessEnv
): Parameters<typeof sandboxConfigFor>[1] {
  const scratch = commandScratch(settings)
  return {
    workingDirectory: settings.workingDirectory,
    env,
    actionDir: path.dirname(fileURLToPath(import.meta.url)),
    copilotHome: cliHome(settings),
    ...(scratch === undefined ? {} : { scratchDir: scratch }),
    ...runnerInstallation(process.execPath),
    exists: (p) => fs.existsSync(p),
    children: (dir) => {
      try {
        return fs.readdirSync(dir)
      } catch {
        return []
      }
    }
  }
}

/**
 * The runner's installation when the action runs on the runner's own Node
 * (`<runner>/externals/node24/bin/node`): its credentials and logs are kept from the commands.
 */
function runnerInstallation(execPath: string): { runnerDir?: string } {
  const at = execPath.split(path.sep).lastIndexOf('externals')
  if (at <= 0) return {}
  return { runnerDir: execPath.split(path.sep).slice(0, at).join(path.sep) }
}

function logSandbox(sandbox: SandboxPlan): void {
  const { record } = sandbox
  if (record.state === 'enforced' && record.networkOff) {
    log.warning(
      `OS sandbox: ${record.backend ?? 'enforced'} (sandbox.mode: ${sandbox.mode}) WITHOUT network: the agent's shell commands cannot reach ${record.networkOff.hosts.join(', ')}, which the policy's url rules allow, because ${record.networkOff.reason}`
    )
  } else if (record.state === 'enforced') {
    log.info(
      `OS sandbox: ${record.backend ?? 'enforced'} (sandbox.mode: ${sandbox.mode}); the agent's shell commands cannot write outside the workspace or reach the network beyond the policy's hosts`
    )
  } else if (record.state === 'unavailable') {
    log.warning(
      `The OS sandbox is unavailable (${record.reason ?? 'unknown reason'}): the agent's shell commands run without it, judged by the policy alone, and a program an allowed command runs can write outside the workspace and reach the network. ${SANDBOX_FIX} Or set sandbox.mode: off in the policy to say it is intended.`
    )
  } else {
    log.notice(
      "The OS sandbox is off (sandbox.mode: off): the agent's shell commands are judged by the policy alone."
    )
  }
}

/** `mode: check-policy`: validate, lint and test the policy file; never start the CLI. */
async function checkPolicyOnly(settings: Settings, env: NodeJS.ProcessEnv): Promise<RunResult> {
  const options = {
    workingDirectory: settings.workingDirectory,
    workspace: settings.raw.workspace
  }
  const relative =
    path.relative(settings.workingDirectory, settings.policyPath) || settings.policyPath
  const check = await log.group('copilot-policy check', async () => {
    const result = await checkPolicy(relative, options)
    log.info(result.output)
    return result
  })
  if (check.issues) annotate(check.issues, settings, env)
  const tests =
    check.exitCode === 0
      ? await log.group('copilot-policy test', async () => {
          const result = await testPolicy(relative, options)
          log.info(result.output)
          return result
        })
      : undefined
  const ok = check.exitCode === 0 && tests?.exitCode === 0
  core.setOutput('status', ok ? 'completed' : 'failed')
  await core.summary
    .addHeading(`${ok ? '✅' : '❌'} Policy ${relative}`, 3)
    .addCodeBlock([check.output, tests?.output ?? ''].join('\n').trim())
    .write()
    .catch((error: unknown) => log.warning(`Could not write the job summary: ${messageOf(error)}`))
  if (!ok) failStep(`The policy ${relative} has errors or failing tests (see the log).`)
  return { report: null, outputs: { status: ok ? 'completed' : 'failed' } }
}
