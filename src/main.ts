/**
 * One run of the action, reading like the pipeline:
 * settings → policy (while the CLI boots, see index.ts) → CLI handshake → session run → report →
 * publish → outputs, always cleaning up.
 * This is the only place that calls core.setFailed.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as core from '@actions/core'
import { cliHome, readInputs, type EarlyStart } from './cli/early.js'
import { CliStarter } from './cli/start.js'
import { UserError, messageOf } from './errors.js'
import { loadPolicy, runPolicyTests } from './policy/index.js'
import { checkPolicy, testPolicy } from './policy/tool.js'
import { ReportBuilder } from './reporting/report.js'
import { renderComment, renderSummary, renderWorking } from './reporting/render.js'
import { defaultApiUrl } from './github/client.js'
import { createCommentPublisher, type CommentPublisher } from './reporting/publish-comment.js'
import { resolveTarget, type Target } from './reporting/target.js'
import { actionOutputs } from './reporting/outputs.js'
import { normalizeSecrets, redactNormalized } from './reporting/text.js'
import type { Report, RunStatus } from './reporting/types.js'
import { hasCredential, type Settings } from './settings.js'
import { Run, type Logger, type RunOutcome } from './session/run.js'
import { sandboxConfigFor } from './policy/sandbox.js'
import { planSandbox, probeSandbox, SANDBOX_FIX, type SandboxPlan } from './session/sandbox.js'

export interface RunResult {
  report: Report | null
  outputs: Record<string, string>
}

const log: Logger = {
  info: (line) => core.info(line),
  warning: (line) => core.warning(line),
  debug: (line) => core.debug(line),
  group: (name, work) => core.group(name, work)
}

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
    core.warning(`Received ${signal}: cancelling the run`)
    cancel.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  early?.cli?.adopt()
  try {
    return await runWith(env, cancel.signal, early)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

async function runWith(
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
  early: EarlyStart | undefined
): Promise<RunResult> {
  const startedAt = new Date()
  const inputs = early?.inputs ?? readInputs(env)
  if ('error' in inputs) {
    core.setFailed(messageOf(inputs.error))
    return { report: null, outputs: {} }
  }
  const { settings } = inputs
  for (const secret of settings.secrets) core.setSecret(secret)
  if (settings.mode === 'check-policy') return checkPolicyOnly(settings)
  // normalized once: clean() runs for every line of command output
  const secrets = normalizeSecrets(settings.secrets)
  const clean = (text: string): string => redactNormalized(text, secrets)
  const link = runUrl(env)
  const comments = commentPublisher(settings, env)
  // Posted while the policy loads and the CLI starts; the final comment waits for it.
  const working = comments
    ?.publish(
      renderWorking({
        startedAt: startedAt.toISOString(),
        runUrl: link,
        prompt: settings.prompt,
        secrets: settings.secrets
      })
    )
    .then((result) => {
      if (result.fallback) core.warning(result.fallback)
    })

  const report = new ReportBuilder({
    startedAt: startedAt.toISOString(),
    model: settings.model ?? null,
    policy: { source: settings.policyPath, builtIn: false },
    workingDirectory: settings.workingDirectory,
    secrets: settings.secrets
  })
  let outcome: RunOutcome
  let cli: CliStarter | undefined
  let session: Run | undefined
  let stopped: Promise<unknown> | undefined
  try {
    if (!hasCredential(settings)) {
      throw new UserError(
        "No credential for Copilot: set 'copilot-token' (a fine-grained PAT with the \"Copilot Requests\" permission, or a GitHub App token with copilot_requests: write), or leave 'github-token' at its default and grant the workflow 'permissions: copilot-requests: write' (the organization policy must allow Copilot CLI), or configure a BYOK provider."
      )
    }
    // The CLI boots (~0.4 s) while the policy loads; no session exists before the policy has
    // loaded and passed its own tests.
    cli = new CliStarter({
      settings,
      early: early?.cli,
      env,
      log: (line) => core.info(line),
      signal
    })
    // Whether the OS sandbox works here (one bwrap spawn) is found out while the policy loads.
    const sandboxProbe = probeSandbox(env)
    const policy = await core.group('Policy', async () => {
      const loaded = await loadPolicy({
        path: settings.policyPath,
        workingDirectory: settings.workingDirectory
      })
      const failures = runPolicyTests(loaded)
      if (failures.length > 0) {
        throw new UserError(
          `The policy's own tests fail, so the run does not start (fix the policy or its tests):\n${failures.map((f) => `- ${f.message}`).join('\n')}`
        )
      }
      if (loaded.tests.length > 0) core.info(`Policy tests: ${loaded.tests.length} passed`)
      if (loaded.builtIn) {
        core.notice(
          `No policy file at ${path.relative(settings.workingDirectory, settings.policyPath) || settings.policyPath}: the built-in read-only policy applies.`
        )
      } else {
        core.info(`Policy: ${loaded.source}`)
      }
      return loaded
    })
    report.setPolicy({ source: policy.source, builtIn: policy.builtIn })
    // `required` without a working sandbox fails here, before any session exists.
    const sandbox = planSandbox(policy.sandboxMode, await sandboxProbe, () =>
      sandboxConfigFor(policy, {
        workingDirectory: settings.workingDirectory,
        env,
        actionDir: path.dirname(fileURLToPath(import.meta.url)),
        copilotHome: cliHome(settings),
        exists: (p) => fs.existsSync(p),
        children: (dir) => {
          try {
            return fs.readdirSync(dir)
          } catch {
            return []
          }
        }
      })
    )
    report.setSandbox(sandbox.record)
    logSandbox(sandbox)

    const started = await cli.started
    if (started.version) report.setCliVersion(started.version)
    core.info(
      `Connected to Copilot CLI ${started.version ?? '(version not reported)'} (protocol ${started.protocolVersion})`
    )
    const { process: process_, connection } = started
    const cliExited = process_.exited.then(
      (exit) =>
        `The Copilot CLI exited during the run (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'}). Last stderr lines:\n${clean(process_.lastStderr(15).join('\n'))}`
    )
    session = new Run({
      connection,
      policy,
      observer: report,
      log,
      prompt: settings.prompt,
      workingDirectory: settings.workingDirectory,
      model: settings.model,
      provider: settings.provider,
      // copilotToken is unset with a BYOK provider
      tokenRegistration: settings.copilotToken
        ? connection.provideGitHubToken(settings.copilotToken)
        : undefined,
      planFirst: settings.planFirst,
      sandbox: sandbox.config
        ? { config: sandbox.config, required: sandbox.mode === 'required' }
        : undefined,
      trustedConfig: settings.trustedConfig,
      maxAutopilotContinues: settings.maxAutopilotContinues,
      timeoutMs: settings.timeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
      signal,
      cliExited,
      setupCommands: settings.setupCommands,
      verifyCommands: settings.verifyCommands,
      commandTimeoutMs: settings.commandTimeoutMs,
      scratchDir: path.join(settings.tempDir, 'commands'),
      protectedGroups: [process_.pid ?? -1, process.pid],
      redact: clean
    })
    outcome = await session.execute()
  } catch (error) {
    const status: RunStatus = signal.aborted ? 'cancelled' : 'failed'
    let message = messageOf(error)
    const process_ = cli?.process
    if (process_?.hasExited && !(error instanceof UserError)) {
      message += `\nLast stderr lines of the Copilot CLI:\n${process_.lastStderr(15).join('\n')}`
      if (settings.cliPath && !cli?.connected) {
        message += `\nThe executable at 'cli-path' (${settings.cliPath}) did not run as the Copilot CLI: fix 'cli-path', or remove it to let the action install 'cli-version'.`
      }
    }
    outcome = {
      // a session created before the failure still names its events file
      sessionId: session?.createdSessionId ?? null,
      summary: null,
      status,
      error: {
        message: clean(message),
        type: error instanceof UserError ? 'configuration' : 'error'
      }
    }
    if (!(error instanceof UserError))
      core.debug(clean(error instanceof Error ? (error.stack ?? message) : message))
  } finally {
    // Any session is shut down by now (its metrics are in): the CLI exits (~40 ms after
    // SIGTERM) while the report is written and published.
    // (no CliStarter: no credential, and then the entry started no CLI either)
    stopped = cli?.stop()
  }
  try {
    await working
    return await finish(report, outcome, settings, comments, link, clean)
  } finally {
    await stopped
  }
}

function logSandbox(sandbox: SandboxPlan): void {
  const { record } = sandbox
  if (record.state === 'enforced') {
    core.info(
      `OS sandbox: ${record.backend ?? 'enforced'} (sandbox.mode: ${sandbox.mode}); the agent's shell commands cannot write outside the workspace or reach the network beyond the policy's hosts`
    )
  } else if (record.state === 'unavailable') {
    core.warning(
      `The OS sandbox is unavailable (${record.reason ?? 'unknown reason'}): the agent's shell commands run without it, judged by the policy alone, and a program an allowed command runs can write outside the workspace and reach the network. ${SANDBOX_FIX} Or set sandbox.mode: off in the policy to say it is intended.`
    )
  } else {
    core.notice(
      "The OS sandbox is off (sandbox.mode: off): the agent's shell commands are judged by the policy alone."
    )
  }
}

async function finish(
  report: ReportBuilder,
  outcome: RunOutcome,
  settings: Settings,
  comments: CommentPublisher | undefined,
  link: string | undefined,
  clean: (text: string) => string
): Promise<RunResult> {
  const final = report.finish({
    status: outcome.status,
    endedAt: new Date().toISOString(),
    summary: outcome.summary,
    error: outcome.error
  })
  const outputs = await publish(final, outcome, settings, comments, link)
  if (outcome.status !== 'completed') {
    core.setFailed(
      clean(`Copilot run ${outcome.status}${outcome.error ? `: ${outcome.error.message}` : ''}`)
    )
  } else if (outcome.verifyPassed === false) {
    core.setFailed('The agent completed, but a verify command failed (see the report).')
  } else {
    core.info(`Completed: ${clean(outcome.summary ?? '')}`)
  }
  return { report: final, outputs }
}

/** `mode: check-policy`: validate, lint and test the policy file; never start the CLI. */
async function checkPolicyOnly(settings: Settings): Promise<RunResult> {
  const options = { workingDirectory: settings.workingDirectory }
  const relative =
    path.relative(settings.workingDirectory, settings.policyPath) || settings.policyPath
  const check = await core.group('copilot-policy check', async () => {
    const result = await checkPolicy(relative, options)
    core.info(result.output)
    return result
  })
  const tests =
    check.exitCode === 0
      ? await core.group('copilot-policy test', async () => {
          const result = await testPolicy(relative, options)
          core.info(result.output)
          return result
        })
      : undefined
  const ok = check.exitCode === 0 && tests?.exitCode === 0
  core.setOutput('status', ok ? 'completed' : 'failed')
  await core.summary
    .addHeading(`${ok ? '✅' : '❌'} Policy ${relative}`, 3)
    .addCodeBlock([check.output, tests?.output ?? ''].join('\n').trim())
    .write()
    .catch((error: unknown) => core.warning(`Could not write the job summary: ${messageOf(error)}`))
  if (!ok) core.setFailed(`The policy ${relative} has errors or failing tests (see the log).`)
  return { report: null, outputs: { status: ok ? 'completed' : 'failed' } }
}

/** Everything the run leaves behind: the JSON report, outputs, the comment and the job summary. */
async function publish(
  report: Report,
  outcome: RunOutcome,
  settings: Settings,
  comments: CommentPublisher | undefined,
  link: string | undefined
): Promise<Record<string, string>> {
  const outputs: Record<string, string> = actionOutputs(report, settings.reportPath)
  try {
    fs.mkdirSync(path.dirname(settings.reportPath), { recursive: true })
    fs.writeFileSync(settings.reportPath, JSON.stringify(report, null, 2) + '\n')
  } catch (error) {
    core.warning(`Could not write the report to ${settings.reportPath}: ${messageOf(error)}`)
    outputs['report-path'] = ''
  }
  if (outcome.verifyPassed !== undefined) outputs['verify-passed'] = String(outcome.verifyPassed)
  if (outcome.sessionId) {
    const events = path.join(cliHome(settings), 'session-state', outcome.sessionId, 'events.jsonl')
    if (fs.existsSync(events)) outputs['events-path'] = events
  }
  let summaryNote = ''
  if (comments) {
    const published = await comments.publish(
      renderComment(report, { marker: comments.marker, runUrl: link })
    )
    if (published.url) outputs['comment-url'] = published.url
    if (published.fallback) {
      core.warning(published.fallback)
      summaryNote = `> [!WARNING]\n> The PR comment could not be written: ${published.fallback.replace(/\n/g, ' ')}\n\n`
    }
  }
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value)
  try {
    await core.summary.addRaw(summaryNote + renderSummary(report, { runUrl: link }), true).write()
  } catch (error) {
    core.warning(`Could not write the job summary: ${messageOf(error)}`)
  }
  return outputs
}

/** The sticky comment's publisher, or undefined (with a notice) when there is nothing to comment on. */
function commentPublisher(
  settings: Settings,
  env: NodeJS.ProcessEnv
): CommentPublisher | undefined {
  if (settings.comment === 'off') return undefined
  const target = commentTarget(settings, env)
  if (target.kind === 'none') {
    core.notice(`No PR comment: ${target.reason} The report is in the job summary.`)
    return undefined
  }
  if (!settings.githubToken) {
    core.warning(
      "No PR comment: the input 'github-token' is empty. The report is in the job summary."
    )
    return undefined
  }
  return createCommentPublisher({
    token: settings.githubToken,
    apiUrl: defaultApiUrl(env),
    target,
    key: settings.commentKey,
    mode: settings.comment,
    log: { debug: (line) => core.debug(line), warning: (line) => core.warning(line) }
  })
}

function commentTarget(settings: Settings, env: NodeJS.ProcessEnv): Target {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  if (!owner || !repo)
    return { kind: 'none', reason: 'GITHUB_REPOSITORY is not set (not running on a runner).' }
  let payload: unknown = {}
  if (env.GITHUB_EVENT_PATH && fs.existsSync(env.GITHUB_EVENT_PATH)) {
    try {
      payload = JSON.parse(fs.readFileSync(env.GITHUB_EVENT_PATH, 'utf8'))
    } catch (error) {
      core.warning(`Could not read the event payload ${env.GITHUB_EVENT_PATH}: ${messageOf(error)}`)
    }
  }
  return resolveTarget({
    eventName: env.GITHUB_EVENT_NAME ?? '',
    payload,
    issueNumberInput: settings.issueNumber ?? null,
    repo: { owner, repo }
  })
}

function runUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: id } = env
  return server && repo && id ? `${server}/${repo}/actions/runs/${id}` : undefined
}
