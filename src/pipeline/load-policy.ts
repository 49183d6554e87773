/** The run's policy: loaded, its own tests run, its errors annotated on the file and recorded. */
import path from 'node:path'
import { UserError } from '../errors.js'
import { log } from '../log.js'
import {
  PolicyError,
  loadPolicy,
  policyAnnotations,
  runPolicyTests,
  type CompiledPolicy,
  type PolicyIssue
} from '../policy/index.js'
import type { StateRecorder } from '../session/recorder.js'
import type { Settings } from '../settings.js'
import { redact } from '../text/safe-text.js'

/** Load the policy and run its own tests; a bad policy is annotated on its file and recorded. */
export async function loadCheckedPolicy(
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
export function annotate(
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
