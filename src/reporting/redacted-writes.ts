/**
 * The one door for what the action writes besides its log (issue 29): step outputs, the job
 * summary, the JSON report and every comment body pass one redaction step here, once they are
 * complete, with every secret the run registered (log.ts addSecrets: the settings' secrets, the
 * publish job's token), in every encoding the redactor knows. A field added to a report late, or
 * a line added to a summary after it was rendered, cannot skip it. The log has its own door
 * (log.ts); the events copy is redacted line by line as it is written (events-file.ts), and so
 * must anything else that writes a file for people to read: through `writeJsonFile` here.
 * eslint.config.js keeps `core.setOutput` and `core.summary` to this module.
 */
import fs from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import { redactSecrets, redactSecretsDeep } from '../log.js'

/** Sets each output, redacted; returns what was set. */
export function setOutputs(outputs: Readonly<Record<string, string>>): Record<string, string> {
  const set: Record<string, string> = {}
  for (const [name, value] of Object.entries(outputs)) {
    set[name] = redactSecrets(value)
    core.setOutput(name, set[name])
  }
  return set
}

/** Appends markdown to the job summary, redacted. Throws what the runner's file throws. */
export async function writeJobSummary(markdown: string): Promise<void> {
  await core.summary.addRaw(redactSecrets(markdown), true).write()
}

/** Writes a JSON file (2-space indented, one newline at the end) of the value, redacted. */
export function writeJsonFile(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify(redactSecretsDeep(value), null, 2) + '\n')
}

/** A comment's body, redacted (publish-comment.ts posts nothing else). */
export function redactedBody(body: string): string {
  return redactSecrets(body)
}
