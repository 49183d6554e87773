#!/usr/bin/env node
/**
 * copilot-policy: check, explain, test and replay a permission policy from the command line.
 * The logic is in src/policy/tool.ts; this file only connects it to the process.
 */
import { runPolicyTool } from './policy/index.js'
import { neutralizeWorkflowCommands } from './text/workflow-commands.js'

// Run in a workflow step, its output is read by the runner: policy excerpts and the commands of
// a replayed session are untrusted text, and none of their lines may be a workflow command.
const write = (stream: NodeJS.WriteStream, text: string): void => {
  stream.write(neutralizeWorkflowCommands(text.endsWith('\n') ? text : `${text}\n`))
}

try {
  const result = await runPolicyTool(process.argv.slice(2), process.cwd())
  if (result.output !== '') {
    write(result.exitCode === 2 ? process.stderr : process.stdout, result.output)
  }
  process.exitCode = result.exitCode
} catch (error) {
  write(
    process.stderr,
    `copilot-policy: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
  )
  process.exitCode = 2
}
