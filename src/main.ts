/**
 * One run of the action, reading like the pipeline:
 * settings → policy → CLI → session run → report → publish → outputs, always cleaning up.
 * This is the only place that calls core.setFailed.
 */
import fs from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { locateCli } from './cli/install.js'
import { CliProcess } from './cli/process.js'
import { Connection } from './cli/connection.js'
import { UserError, messageOf } from './errors.js'
import { loadPolicy } from './policy/index.js'
import { ReportBuilder } from './reporting/report.js'
import { renderSummary } from './reporting/render.js'
import { actionOutputs } from './reporting/outputs.js'
import { redact } from './reporting/text.js'
import type { Report, RunStatus } from './reporting/types.js'
import { envInputReader, readSettings, type Settings } from './settings.js'
import { Run, type Logger, type RunOutcome } from './session/run.js'

export interface RunResult {
  report: Report | null
  outputs: Record<string, string>
}

const log: Logger = {
  info: (line) => core.info(line),
  warning: (line) => core.warning(line),
  debug: (line) => core.debug(line)
}

/** Runs the action. Returns what it reported (for tests); sets the step's failure itself. */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  const cancel = new AbortController()
  const onSignal = (signal: NodeJS.Signals): void => {
    core.warning(`Received ${signal}: cancelling the run`)
    cancel.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    return await runWith(env, cancel.signal)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

async function runWith(env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<RunResult> {
  const startedAt = new Date()
  let settings: Settings
  try {
    settings = readSettings(envInputReader(env), env)
  } catch (error) {
    core.setFailed(messageOf(error))
    return { report: null, outputs: {} }
  }
  for (const secret of settings.secrets) core.setSecret(secret)
  const clean = (text: string): string => redact(text, settings.secrets)

  let builder: ReportBuilder | undefined
  let outcome: RunOutcome = { status: 'failed', sessionId: null, summary: null }
  let cli: CliProcess | undefined
  let connection: Connection | undefined
  try {
    const policy = await core.group('Policy', async () => {
      const loaded = await loadPolicy({ path: settings.policyPath, workingDirectory: settings.workingDirectory })
      if (loaded.builtIn) {
        core.notice(`No policy file at ${path.relative(settings.workingDirectory, settings.policyPath) || settings.policyPath}: the built-in read-only policy applies.`)
      } else {
        core.info(`Policy: ${loaded.source}`)
      }
      return loaded
    })
    builder = new ReportBuilder({
      startedAt: startedAt.toISOString(),
      model: settings.model ?? null,
      policy: { source: policy.source, builtIn: policy.builtIn },
      secrets: settings.secrets
    })
    const report = builder

    if (!settings.provider && !settings.copilotToken) {
      throw new UserError(
        "No credential for Copilot: set 'copilot-token' (a fine-grained PAT with the \"Copilot Requests\" permission, or a GitHub App token with copilot_requests: write), or leave 'github-token' at its default and grant the workflow 'permissions: copilot-requests: write' (the organization policy must allow Copilot CLI), or configure a BYOK provider."
      )
    }

    const executable = await core.group('Copilot CLI', () =>
      locateCli({ cliPath: settings.cliPath, cliVersion: settings.cliVersion, log: (line) => core.info(line) })
    )
    report.setCliVersion(executable.version)
    cli = new CliProcess({
      executable: executable.path,
      home: path.join(settings.tempDir, 'copilot-home'),
      token: settings.copilotToken,
      args: core.isDebug() ? ['--log-level', 'debug'] : []
    })
    const process_ = cli
    connection = new Connection(cli)
    const hello = await connection.handshake()
    if (hello.version) report.setCliVersion(hello.version)
    core.info(`Connected to Copilot CLI ${hello.version ?? executable.version} (protocol ${hello.protocolVersion})`)

    const cliExited = process_.exited.then(
      (exit) =>
        `The Copilot CLI exited during the run (code ${exit.code ?? 'none'}, signal ${exit.signal ?? 'none'}). Last stderr lines:\n${clean(process_.lastStderr(15).join('\n'))}`
    )
    const session = new Run({
      connection,
      policy,
      observer: report,
      log,
      prompt: settings.prompt,
      workingDirectory: settings.workingDirectory,
      model: settings.model,
      provider: settings.provider,
      checkAuth: !settings.provider,
      maxAutopilotContinues: settings.maxAutopilotContinues,
      timeoutMs: settings.timeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
      signal,
      cliExited
    })
    outcome = await core.group('Agent run', () => session.execute())
  } catch (error) {
    const status: RunStatus = signal.aborted ? 'cancelled' : 'failed'
    let message = messageOf(error)
    if (cli && cli.hasExited && !(error instanceof UserError)) {
      message += `\nLast stderr lines of the Copilot CLI:\n${cli.lastStderr(15).join('\n')}`
    }
    outcome = { ...outcome, status, error: { message: clean(message), type: error instanceof UserError ? 'configuration' : 'error' } }
    if (!(error instanceof UserError)) core.debug(clean(error instanceof Error ? (error.stack ?? message) : message))
  } finally {
    connection?.dispose()
    await cli?.kill()
  }

  const endedAt = new Date()
  const report =
    builder?.finish({ status: outcome.status, endedAt: endedAt.toISOString(), summary: outcome.summary, error: outcome.error }) ?? null
  let outputs: Record<string, string> = {}
  if (report) {
    fs.mkdirSync(path.dirname(settings.reportPath), { recursive: true })
    fs.writeFileSync(settings.reportPath, JSON.stringify(report, null, 2) + '\n')
    outputs = actionOutputs(report, settings.reportPath)
    for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value)
    try {
      await core.summary.addRaw(renderSummary(report, { runUrl: runUrl(env) }), true).write()
    } catch (error) {
      core.warning(`Could not write the job summary: ${messageOf(error)}`)
    }
  } else {
    core.setOutput('status', outcome.status)
  }

  if (outcome.status !== 'completed') {
    core.setFailed(clean(`Copilot run ${outcome.status}${outcome.error ? `: ${outcome.error.message}` : ''}`))
  } else {
    core.info(`Completed: ${clean(outcome.summary ?? '')}`)
  }
  return { report, outputs }
}

function runUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_RUN_ID: id } = env
  return server && repo && id ? `${server}/${repo}/actions/runs/${id}` : undefined
}
