/**
 * What a run leaves for the publish step (issue 23), in one place for main.ts: the agent's
 * changes as a patch (always, once the agent started) and the proposals of the safe-output tools.
 * main.ts creates one `WriteBack` per run, passes `runOptions` to the Run, calls `finish` once the
 * CLI is gone (and the late audit done), and `decorate` / `outputs` on the report.
 */
import path from 'node:path'
import * as core from '@actions/core'
import type { Report } from '../reporting/types.js'
import type { Settings } from '../settings.js'
import type { RunState } from './fold.js'
import { AgentChanges, changesMetrics } from './changes.js'
import type { ExternalTools } from './run.js'
import { SafeOutputs } from './safe-outputs.js'
import type { ChangesRecord } from '../reporting/types.js'

/** RUNNER_TEMP (the parent of the run's private directory), where the files for the next job go. */
function runnerTemp(settings: Settings): string {
  return path.dirname(settings.tempDir)
}

export class WriteBack {
  private readonly changes: AgentChanges
  private readonly safeOutputs: SafeOutputs | undefined
  private record: ChangesRecord | undefined

  constructor(
    settings: Settings,
    private readonly log: { info(line: string): void; warning(line: string): void }
  ) {
    const name = path.basename(settings.tempDir)
    this.changes = new AgentChanges({
      root: settings.workingDirectory,
      storeDir: path.join(settings.tempDir, 'changes'),
      patchPath: path.join(runnerTemp(settings), `${name}.patch`),
      // never the agent's change: the policy, the report, the action's own files
      excluded: [settings.policyPath, settings.reportPath, settings.tempDir]
    })
    this.safeOutputs =
      settings.safeOutputs.length > 0
        ? new SafeOutputs(
            settings.safeOutputs,
            path.join(runnerTemp(settings), `${name}.safe-outputs.json`)
          )
        : undefined
  }

  /** The Run's options for the patch's start and the proposal tools. */
  runOptions(): { onAgentStart: () => Promise<void>; externalTools?: ExternalTools } {
    const tools = this.safeOutputs
    return {
      onAgentStart: () => this.changes.start(),
      ...(tools
        ? {
            externalTools: {
              definitions: tools.definitions,
              call: (name: string, args: unknown) => tools.call(name, args)
            }
          }
        : {})
    }
  }

  /** The agent's changes, once nothing runs in the workspace any more; the audit's violations left out. */
  async finish(state: RunState): Promise<void> {
    // the proposals as the tools recorded them, whatever was written to the file since
    try {
      this.safeOutputs?.write()
    } catch (error) {
      this.log.warning(
        `The proposals could not be written again: ${error instanceof Error ? error.message : String(error)}`
      )
    }
    const violations = (state.audit?.violations ?? []).map((v) => v.path)
    try {
      this.record = await this.changes.finish(violations)
    } catch (error) {
      this.record = {
        base: '',
        files: [],
        error: error instanceof Error ? error.message : String(error)
      }
    }
    const record = this.record
    if (record?.error !== undefined) {
      this.log.warning(`The agent's changes could not be recorded as a patch: ${record.error}`)
    } else if (record?.patchPath !== undefined) {
      const { linesAdded, linesRemoved } = changesMetrics(record)
      this.log.info(
        `The agent's changes: ${record.files.length} file${record.files.length === 1 ? '' : 's'} (+${linesAdded} −${linesRemoved}); patch at ${record.patchPath}`
      )
    }
  }

  /** The report with the changes (and the line counts from them) and the proposals. */
  decorate(report: Report): Report {
    const changes = this.record
    const safeOutputs = this.safeOutputs?.record()
    return {
      ...report,
      ...(changes ? { changes } : {}),
      ...(changes && changes.error === undefined
        ? { metrics: { ...report.metrics, ...changesMetrics(changes) } }
        : {}),
      ...(safeOutputs ? { safeOutputs } : {})
    }
  }

  /** The outputs `patch-path` and `safe-outputs-path` (set on the step too). */
  outputs(): Record<string, string> {
    const outputs = {
      'patch-path': this.record?.patchPath ?? '',
      'safe-outputs-path': this.safeOutputs?.record().path ?? ''
    }
    for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value)
    return outputs
  }
}
