/**
 * The session's events as evidence (the `events-path` output): the CLI's events.jsonl holds every
 * event of the session as the CLI saw it, raw secrets included when any reached the session (a
 * tool's output, an error quoting a URL). The output points at a redacted copy in the run's temp
 * directory: each line's JSON with every string redacted as the report is (encoded forms too), a
 * line that is not JSON redacted as text.
 */
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { once } from 'node:events'
import { redactDeepNormalized, redactNormalized } from '../text/safe-text.js'

/** One line of events.jsonl with the secrets redacted; the JSON stays one line. */
export function redactEventLine(line: string, normalized: readonly string[]): string {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return redactNormalized(line, normalized)
  }
  return JSON.stringify(redactDeepNormalized(value, normalized, { maxDepth: 64 }))
}

/**
 * Writes the redacted copy of `source` to `target` (created with mode 0600, replaced if there);
 * resolves with `target`. Throws when either file cannot be read or written: the caller points at
 * nothing then.
 */
export async function writeRedactedEvents(
  source: string,
  target: string,
  normalized: readonly string[]
): Promise<string> {
  // opened first: a missing or unreadable source fails here, before anything is written
  const fd = fs.openSync(source, 'r')
  fs.mkdirSync(path.dirname(target), { recursive: true })
  fs.rmSync(target, { force: true })
  const input = fs.createReadStream('', { fd, encoding: 'utf8' })
  const output = fs.createWriteStream(target, { flags: 'wx', mode: 0o600 })
  const failed = new Promise<never>((_, reject) => {
    input.once('error', reject)
    output.once('error', reject)
  })
  failed.catch(() => undefined)
  try {
    await Promise.race([once(output, 'open'), failed])
    const lines = readline.createInterface({ input, crlfDelay: Infinity })
    for await (const line of lines) {
      if (!output.write(`${redactEventLine(line, normalized)}\n`)) {
        await Promise.race([once(output, 'drain'), failed])
      }
    }
    output.end()
    await Promise.race([once(output, 'finish'), failed])
  } catch (error) {
    input.destroy()
    output.destroy()
    fs.rmSync(target, { force: true })
    throw error
  }
  return target
}
