/**
 * One run of the action, reading like the pipeline:
 * settings → policy (while the CLI boots, see index.ts) → sandbox → CLI handshake → session run
 * → report → publish, always cleaning up. Whatever goes wrong becomes the run's ending in its one
 * state (session/recorder.ts), so the report says it. Each step's workings are in pipeline/, the
 * modes other than `run` in modes/; the step fails only through pipeline/outcome.ts failStep.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { cliHome, readInputs, type EarlyStart } from './cli/early.js'
import { continuationPrompt, continueCommand, freshStart } from './checkpoint/continuation.js'
import { resumeFromCheckpoint, type ResumeOutcome } from './checkpoint/resume.js'
import { defaultApiUrl } from './github/client.js'
import { CliStarter } from './cli/start.js'
import { UserError, messageOf } from './errors.js'
import { readEvent, type RunnerEvent } from './github/event.js'
import { addSecrets, log } from './log.js'
import { checkPolicyOnly } from './modes/check-policy.js'
import { askerFor } from './pipeline/asker.js'
import { endNothingToContinue } from './pipeline/nothing-to-continue.js'
import { commandConfinement, sweepAfterSession } from './pipeline/command-confinement.js'
import { finishRun } from './pipeline/finish.js'
import { loadCheckedPolicy } from './pipeline/load-policy.js'
import { followProgress } from './pipeline/live-progress.js'
import {
  cliWallOf,
  cliWallRequest,
  confineCli,
  logSandbox,
  mcpServerFiles,
  sandboxContext,
  wallExtras
} from './pipeline/os-sandbox.js'
import { cliExit, crash, failStep, type RunResult } from './pipeline/outcome.js'
import { refuseActor } from './pipeline/trigger-gate.js'
import {
  releaseGuards,
  reportAudit,
  stashCheckoutCredentials,
  stashUnsafeInstructions,
  type Guards
} from './pipeline/workspace-guards.js'
import {
  codeExecutionRule,
  homeCaches,
  protectedNames,
  sandboxConfigFor,
  sandboxNetwork
} from './policy/index.js'
import { commentPublisher, commentTarget, runUrl } from './reporting/publish.js'
import { setOutputs } from './reporting/redacted-writes.js'
import { renderWorking } from './reporting/render.js'
import { auditStoreDir, WorkspaceAudit } from './session/audit.js'
import { HomeCaches } from './session/home-caches.js'
import { StateRecorder } from './session/recorder.js'
import { SessionRun } from './session/run.js'
import { planSandbox, probeSandbox } from './session/sandbox-probe.js'
import { resolveSessionInputs, type SessionInputs } from './session/session-inputs.js'
import { sessionOptions } from './session/session-options.js'
import { setUpSandbox } from './session/sandbox-setup.js'
import { WriteBack } from './session/write-back.js'
import { rememberRun } from './post-run.js'
import { hasCredential, type Settings } from './settings.js'
import { normalizeSecrets, redactNormalized } from './text/safe-text.js'
import { describeEnvironment } from './wall/environment.js'
import { commandFiles, removePrivateHome } from './wall/cli-wall.js'

export type { RunResult } from './pipeline/outcome.js'

/** Where the action's own files are (the sandbox keeps them readable). */
const ACTION_DIR = path.dirname(fileURLToPath(import.meta.url))

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
    let resolved: ReturnType<typeof resolveSessionInputs>
    try {
      resolved = resolveSessionInputs(inputs.settings)
    } catch (error) {
      await dropEarlyCli(early, inputs.settings.tempDir)
      failStep(messageOf(error))
      return { report: null, outputs: {} }
    }
    const { settings, session: sessionInputs } = resolved
    addSecrets(settings.secrets)
    // The modes other than `run` (src/modes/, one line each here): none starts an agent.
    if (settings.mode === 'check-policy') return await checkPolicyOnly(settings, env)
    if (settings.mode === 'publish') {
      const { publishMode } = await import('./modes/publish.js')
      const published = await publishMode(settings, env)
      if (published.failure !== undefined) failStep(published.failure)
      return { report: null, outputs: published.outputs }
    }
    if (settings.mode === 'rollup') {
      const { rollupMode } = await import('./modes/rollup.js')
      try {
        const rolled = await rollupMode(settings, env)
        if (rolled.failure !== undefined) failStep(rolled.failure)
        return { report: null, outputs: rolled.outputs }
      } catch (error) {
        failStep(messageOf(error))
        return { report: null, outputs: {} }
      }
    }
    const event = readEvent(env)
    if (event.problem) log.warning(event.problem)
    const refusal = await refuseActor(settings, env, event)
    if (refusal !== undefined) {
      // Nobody the repository trusts asked for this run: no CLI, no comment, no failure.
      await dropEarlyCli(early, settings.tempDir)
      log.notice(refusal)
      setOutputs({ status: 'skipped' })
      return { report: null, outputs: { status: 'skipped' } }
    }
    return await runAgent(settings, sessionInputs, env, event, cancel.signal, early)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

/** The entry's CLI, unused: killed, and the private HOME it had behind its wall removed. */
async function dropEarlyCli(early: EarlyStart | undefined, tempDir: string): Promise<void> {
  if (early?.cli === undefined) return
  await early.cli.process.kill()
  try {
    removePrivateHome(tempDir)
  } catch (error) {
    log.warning(`Could not remove the Copilot CLI's private HOME of the run: ${messageOf(error)}`)
  }
}

async function runAgent(
  settings: Settings,
  sessionInputs: SessionInputs,
  env: NodeJS.ProcessEnv,
  event: RunnerEvent,
  signal: AbortSignal,
  early: EarlyStart | undefined
): Promise<RunResult> {
  // for the post step, should this run be killed before it cleans up itself
  rememberRun(settings.tempDir)
  const startedAt = new Date().toISOString()
  // normalized once: clean() runs for every line of command output
  const secrets = normalizeSecrets(settings.secrets)
  const clean = (text: string): string => redactNormalized(text, secrets)
  const link = runUrl(env)
  const target = commentTarget(settings, env, event)
  const command = continueCommand(settings.prompt, event.payload)
  // Resume (issue 31): found and checked before the first comment of this run, which replaces
  // the last one's body and the checkpoint digest in it; put back before any session.
  let resume: ResumeOutcome
  try {
    resume = await resumeFromCheckpoint({
      mode: settings.resume,
      target,
      workspace: settings.workingDirectory,
      cliHome: cliHome(settings),
      repository: env.GITHUB_REPOSITORY,
      token: settings.githubToken,
      apiUrl: defaultApiUrl(env),
      // `/continue` picks up only a run that stopped; a follow-up task continues any session
      continuation: command !== undefined,
      log
    })
  } catch (error) {
    await dropEarlyCli(early, settings.tempDir)
    failStep(messageOf(error))
    return { report: null, outputs: {} }
  }
  const resumed = resume.kind === 'resumed' ? resume.resumed : undefined
  const comments = commentPublisher(settings, env, target)
  let prompt: string
  if (resume.kind === 'resumed') {
    prompt = continuationPrompt(settings.prompt, resume.resumed.chain.at(-1))
  } else {
    // A `/continue` that resumed nothing gives a fresh session only its instructions; a bare one
    // starts none (checkpoint/continuation.ts).
    const fresh = freshStart(settings.prompt, command)
    if (fresh.kind === 'nothing-to-continue') {
      await early?.cli?.process.kill()
      return await endNothingToContinue({
        resume,
        target,
        comments,
        runUrl: link,
        secrets: settings.secrets
      })
    }
    prompt = fresh.prompt
    if (resume.kind === 'refused') log.info('This run starts a fresh session.')
  }
  // Posted while the policy loads and the CLI starts; the final comment waits for it.
  const working = comments
    ?.publish(renderWorking({ startedAt, runUrl: link, prompt, secrets: settings.secrets }))
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
    ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
    ...(settings.maxAiCredits === undefined ? {} : { maxAiCredits: settings.maxAiCredits }),
    byok: settings.provider !== undefined
  })
  const { live, unsubscribe: stopFollowing } = followProgress(
    comments,
    recorder,
    startedAt,
    link,
    settings.secrets
  )
  const { asker, noAskerReason } = askerFor(settings, env, target, clean)
  // the patch of the agent's changes and the proposal tools (issue 23)
  const writeBack = new WriteBack(settings, log)

  // The CLI boots (~0.4 s) while the policy loads; no session exists before the policy has
  // loaded and passed its own tests. No credential: the entry started no CLI either.
  let cli = hasCredential(settings)
    ? new CliStarter({
        settings,
        early: early?.cli,
        env,
        log: (line) => log.info(line),
        signal,
        wall: { extras: { readonly: mcpServerFiles(sessionInputs) } }
      })
    : undefined
  let stopped: Promise<void> | undefined
  // nothing the run's commands start outlives the session (pipeline/command-confinement.ts)
  const guards: Guards = {
    sweep: () => sweepAfterSession(settings, recorder, clean),
    // the CLI's private HOME, wherever a CLI of the run had one (the entry's early one included)
    privateHomeIn: settings.tempDir
  }
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
    guards.credentialsStash = stashCheckoutCredentials(settings, env, recorder)
    // Instruction files the CLI would read by itself from outside the tree: kept from it (before
    // the audit's snapshot too, so that their absence is not the agent's change).
    if (!settings.trustedConfig) {
      guards.instructionsStash = stashUnsafeInstructions(settings, recorder)
    }
    // What the agent's work is checked against afterwards, and what the sandbox keeps read-only.
    const started = await WorkspaceAudit.start({
      root: settings.workingDirectory,
      storeDir: auditStoreDir(settings.tempDir),
      protection: {
        names: protectedNames(policy),
        decide: (file) => policy.decide({ kind: 'write', fileName: file }),
        // whether the agent may commit: its commit on the current branch is then a note
        decideCommand: (command) => policy.decide({ kind: 'shell', fullCommandText: command })
      },
      report: (result) => reportAudit(result, recorder),
      evidence: () => recorder.state
    })
    guards.audit = started.audit
    // The CLI itself runs behind the sandbox's outer wall wherever the sandbox runs on bubblewrap
    // (wall/cli-sandbox.ts); it looks for bwrap and the network's programs once, when it starts
    // (measured, CLI 1.0.102): after the setup installed some, a fresh CLI is the one that sees them.
    cli = await confineCli(
      cli,
      cliWallRequest(policy.sandboxMode, setup.probe, () =>
        wallExtras(policy, settings, env, ACTION_DIR, sessionInputs)
      ),
      setup.provisioned.length > 0,
      settings,
      env,
      signal
    )
    const cliWall = await cliWallOf(cli)
    // `required` without a working sandbox (or its network) fails here, before any session.
    const sandbox = planSandbox(
      policy.sandboxMode,
      setup.probe,
      () =>
        sandboxConfigFor(policy, {
          ...sandboxContext(settings, env, ACTION_DIR, cliWall),
          protectedPaths: started.readOnly
        }),
      setup,
      codeExecutionRule(policy.rules)
    )
    recorder.record({
      type: 'sandbox',
      record: {
        ...sandbox.record,
        ...(sandbox.config && cliWall ? { cliConfined: true } : {})
      },
      required: sandbox.mode === 'required'
    })
    if (sandbox.config) {
      recorder.record({ type: 'read-only', paths: started.readOnly })
      guards.homeCaches = HomeCaches.before(homeCaches(sandboxContext(settings, env, ACTION_DIR)))
    }
    logSandbox(sandbox, cliWall !== undefined)
    const connected = await cli.started
    if (connected.version) recorder.record({ type: 'cli', version: connected.version })
    // the CLI's environment is an allowlist (wall/environment.ts): what it kept out, by name
    const environment = connected.process.environment
    recorder.record({ type: 'environment', record: environment })
    log.info(describeEnvironment(environment))
    log.info(
      `Connected to Copilot CLI ${connected.version ?? '(version not reported)'} (protocol ${connected.protocolVersion})`
    )
    const runExtras = writeBack.runOptions(guards.audit)
    await new SessionRun({
      api: connected.api,
      policy,
      recorder,
      log,
      prompt,
      session: sessionOptions(
        { ...settings, ...sessionInputs },
        {
          ...(resumed ? { resumeSessionId: resumed.sessionId } : {}),
          ...(sandbox.config ? { sandbox: sandbox.config } : {}),
          // copilotToken is unset with a BYOK provider
          ...(settings.copilotToken
            ? { tokenRegistration: connected.api.provideGitHubToken(settings.copilotToken) }
            : {}),
          ...(runExtras.externalTools ? { tools: runExtras.externalTools.definitions } : {})
        }
      ),
      ...(sessionInputs.agent ? { agentFile: sessionInputs.agent.file } : {}),
      verifyRetries: settings.verifyRetries,
      ...(settings.fleet ? { fleet: true } : {}),
      ...(settings.copilotToken ? { gitHubToken: settings.copilotToken } : {}),
      audit: guards.audit,
      timeoutMs: settings.timeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
      signal,
      cliExited: cliExit(connected, clean),
      setupCommands: settings.setupCommands,
      verifyCommands: settings.verifyCommands,
      commandTimeoutMs: settings.commandTimeoutMs,
      scratchDir: commandFiles(settings.tempDir),
      protectedGroups: [connected.process.pid ?? -1, process.pid],
      commandConfinement: commandConfinement(settings, env, sandbox, policy),
      redact: clean,
      ...(asker ? { asker } : {}),
      ...(noAskerReason ? { noAskerReason } : {}),
      ...runExtras
    }).execute()
  } catch (error) {
    recorder.record({ type: 'ended', ending: crash(error, signal, settings, cli, clean) })
  } finally {
    // Any session is shut down by now (its metrics are in): the CLI exits (~40 ms after
    // SIGTERM) while the report is written and published.
    stopped = cli?.stop()
    await releaseGuards(guards, stopped, env, recorder, () => writeBack.finish(recorder.state))
  }
  stopFollowing()
  return await finishRun({
    settings,
    recorder,
    working,
    live,
    cliStopped: stopped,
    comments,
    runUrl: link,
    secrets,
    clean,
    writeBack,
    target,
    decorate: (report) => ({
      ...report,
      ...(resumed ? { continuedFrom: resumed.chain } : {}),
      ...(resume.kind === 'refused' ? { resumeRefused: resume.reason } : {})
    })
  })
}
