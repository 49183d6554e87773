/** `mode: check-policy`: the policy checked in CI, never an agent run. */
import path from 'node:path'
import { messageOf } from '../errors.js'
import { log } from '../log.js'
import { checkPolicy, testPolicy } from '../policy/index.js'
import { annotate } from '../pipeline/load-policy.js'
import { failStep, type RunResult } from '../pipeline/outcome.js'
import type { Settings } from '../settings.js'
import { setOutputs, writeJobSummary } from '../reporting/redacted-writes.js'
import { codeBlock, codeSpan } from '../text/safe-text.js'

/** `mode: check-policy`: validate, lint and test the policy file; never start the CLI. */
export async function checkPolicyOnly(
  settings: Settings,
  env: NodeJS.ProcessEnv
): Promise<RunResult> {
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
  setOutputs({ status: ok ? 'completed' : 'failed' })
  await writeJobSummary(
    `### ${ok ? '✅' : '❌'} Policy ${codeSpan(relative, 300)}\n\n${codeBlock([check.output, tests?.output ?? ''].join('\n').trim())}\n`
  ).catch((error: unknown) => log.warning(`Could not write the job summary: ${messageOf(error)}`))
  if (!ok) failStep(`The policy ${relative} has errors or failing tests (see the log).`)
  return { report: null, outputs: { status: ok ? 'completed' : 'failed' } }
}
