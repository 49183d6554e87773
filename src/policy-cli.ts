#!/usr/bin/env node
/**
 * copilot-policy: check, explain, test and replay a permission policy from the command line.
 * The logic is in src/policy/tool.ts; this file only connects it to the process.
 */
import { runPolicyTool } from './policy/tool.js'

try {
  const result = await runPolicyTool(process.argv.slice(2), process.cwd())
  if (result.output !== '') {
    const stream = result.exitCode === 2 ? process.stderr : process.stdout
    stream.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`)
  }
  process.exitCode = result.exitCode
} catch (error) {
  process.stderr.write(
    `copilot-policy: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
  )
  process.exitCode = 2
}
