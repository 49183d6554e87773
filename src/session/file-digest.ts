/**
 * The SHA-256 of a file as lowercase hex: what binds the files between the agent job and the
 * publish job to the run that wrote them (outputs `patch-sha256`, `safe-outputs-sha256`; issue 29).
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'

export function sha256File(file: string): string {
  return sha256(fs.readFileSync(file))
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}
