/**
 * What a run leaves for the publish step (issue 23), in one place for main.ts: the agent's
 * changes as a patch (always, once the agent started) and the proposals of the safe-output tools.
 * main.ts creates one `WriteBack` per run, passes `runOptions` to the Run, calls `finish` once the
 * CLI is gone (and the late audit done), and `decorate` / `outputs` on the report.
 */
import fs from 'node:fs'
import path from 'node:path'
import { setOutputs } from '../reporting/redacted-writes.js'
import type { Report } from '../reporting/types.js'
import { knownSecret } from '../text/credential-formats.js'
import { normalizeSecrets, redactNormalized } from '../text/safe-text.js'
import { sha256File } from './file-digest.js'
import type { Settings } from '../settings.js'
import type { RunState } from './fold.js'
import { auditStoreDir, type WorkspaceAudit } from './audit.js'
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
  /** The run's secrets, normalized: neither file may hold one (issue 29). */
  private readonly secrets: readonly string[]
  private digests: { patch?: string; proposals?: string } = {}
  /** Why the proposals file was not handed on, when it was not. */
  private proposalsRefused: string | undefined

  constructor(
    settings: Settings,
    private readonly log: { info(line: string): void; warning(line: string): void }
  ) {
    const name = path.basename(settings.tempDir)
    this.secrets = normalizeSecrets(settings.secrets)
    this.changes = new AgentChanges({
      root: settings.workingDirectory,
      storeDir: path.join(settings.tempDir, 'changes'),
      patchPath: path.join(runnerTemp(settings), `${name}.patch`),
      // the audit's store (main.ts), kept until the changes are recorded (pipeline/workspace-guards.ts)
      seedStore: auditStoreDir(settings.tempDir),
      // never the agent's change: the policy, the report, the action's own files
      excluded: [
        settings.policyPath,
        // the policy file by its real path too: a symlink's target is the file the policy is
        ...realPath(path.resolve(settings.workingDirectory, settings.policyPath)),
        settings.reportPath,
        settings.tempDir
      ]
    })
    this.safeOutputs =
      settings.safeOutputs.length > 0
        ? new SafeOutputs(
            settings.safeOutputs,
            path.join(runnerTemp(settings), `${name}.safe-outputs.json`),
            this.secrets
          )
        : undefined
  }

  /**
   * The Run's options for the patch's start and the proposal tools; the patch starts from the
   * audit's tree of the start while the workspace is still that (`audit`, when the run has one).
   */
  runOptions(audit?: WorkspaceAudit): {
    onAgentStart: () => Promise<void>
    externalTools?: ExternalTools
  } {
    const tools = this.safeOutputs
    return {
      onAgentStart: async () => this.changes.start(await audit?.startTree()),
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
    this.refuseSecrets()
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

  /**
   * Neither file goes on holding a secret this run knows, in any encoding the redactor knows
   * (issue 29): such a file is removed and not named in the outputs, and the log says which file
   * and line, never the value. The digests of what is handed on are taken here, once nothing
   * writes the files any more.
   */
  private refuseSecrets(): void {
    const patch = this.record?.patchPath
    if (this.record && patch !== undefined) {
      const found = secretInPatch(patch, this.secrets)
      if (found !== undefined) {
        fs.rmSync(patch, { force: true })
        const { patchPath: _dropped, ...rest } = this.record
        this.record = {
          ...rest,
          error: `the patch was not handed on: ${redactNormalized(found, this.secrets)} holds a secret this run knows (its value is not shown)`
        }
      } else {
        this.digests.patch = sha256File(patch)
      }
    }
    const proposals = this.safeOutputs?.record().path
    if (proposals !== undefined && fs.existsSync(proposals)) {
      const found = knownSecret(fs.readFileSync(proposals, 'utf8'), this.secrets)
      if (found !== undefined) {
        fs.rmSync(proposals, { force: true })
        this.proposalsRefused = `The proposals file was not handed on: its line ${found.line} holds a secret this run knows (its value is not shown).`
        this.log.warning(this.proposalsRefused)
      } else {
        this.digests.proposals = sha256File(proposals)
      }
    }
  }

  /**
   * The outputs `patch-path`, `safe-outputs-path` and their SHA-256 digests `patch-sha256`,
   * `safe-outputs-sha256` (set on the step too, through the one door).
   */
  outputs(): Record<string, string> {
    const handedOn = this.proposalsRefused === undefined
    return setOutputs({
      'patch-path': this.record?.patchPath ?? '',
      'safe-outputs-path': handedOn ? (this.safeOutputs?.record().path ?? '') : '',
      'patch-sha256': this.record?.patchPath !== undefined ? (this.digests.patch ?? '') : '',
      'safe-outputs-sha256': handedOn ? (this.digests.proposals ?? '') : ''
    })
  }
}

/** The real path of an existing file, as a list of zero or one. */
function realPath(file: string): string[] {
  try {
    const real = fs.realpathSync(file)
    return real === file ? [] : [real]
  } catch {
    return []
  }
}

/**
 * Where in a patch a known secret is, as "the changes to <file>, line N of the patch", or
 * undefined when the patch holds none.
 */
export function secretInPatch(patchFile: string, secrets: readonly string[]): string | undefined {
  const text = fs.readFileSync(patchFile, 'utf8')
  const found = knownSecret(text, secrets)
  if (found === undefined) return undefined
  const lines = text.split('\n')
  let file = 'the patch'
  for (let i = found.line - 1; i >= 0; i--) {
    const header = /^diff --git a\/.* b\/(.*)$/.exec(lines[i] ?? '')
    if (header) {
      file = `the changes to ${header[1] ?? ''}`
      break
    }
  }
  return `${file} (line ${found.line} of the patch)`
}
