/**
 * The agent job's files, taken by the publish step only as the agent step wrote them (issue 29):
 * each is copied into the step's private directory once, the copy's SHA-256 compared with the
 * digest the agent step output, and from then on only the copy is read (nothing can change the
 * file between the check and its use). A file given without its digest, or with another, is
 * refused.
 */
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from '../errors.js'
import { sha256 } from '../session/file-digest.js'

export interface BoundFile {
  /** Which file: the inputs that name it and its digest. */
  pathInput: 'patch-path' | 'safe-outputs-path'
  digestInput: 'patch-sha256' | 'safe-outputs-sha256'
  file: string
  digest: string | undefined
  /** The most this file may be (a bigger one is refused unread). */
  maxBytes: number
}

/**
 * The private copy of `bound.file` (in `dir`, made here), after its digest matched; a UserError
 * saying which input to fix otherwise. Returns undefined for a file that does not exist, so the
 * caller says so in its own words.
 */
export function takeBoundFile(bound: BoundFile, dir: string): string | undefined {
  const { pathInput, digestInput, file, digest } = bound
  if (digest === undefined) {
    throw new UserError(
      `Input '${pathInput}' is set but '${digestInput}' is not: the publish step takes the agent job's file only with the digest its step output. Pass the agent step's output '${digestInput}' through the agent job's outputs ('${digestInput}: \${{ steps.<agent step>.outputs.${digestInput} }}') to this step's input '${digestInput}'.`
    )
  }
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
  } catch {
    return undefined
  }
  if (!stat.isFile()) {
    throw new UserError(`Input '${pathInput}' names '${file}', which is not a regular file.`)
  }
  if (stat.size > bound.maxBytes) {
    throw new UserError(
      `The file of input '${pathInput}' was refused unread: it is ${stat.size} bytes, more than the ${bound.maxBytes} the publish step reads.`
    )
  }
  const data = fs.readFileSync(file)
  const actual = sha256(data)
  if (actual !== digest) {
    throw new UserError(
      `The file of input '${pathInput}' was refused: its SHA-256 is ${actual}, not the ${digest} of input '${digestInput}'. It is not the file the agent step wrote (changed after the step, or from another run); nothing was published. Pass the agent job's own artifact and output.`
    )
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const copy = path.join(dir, path.basename(pathInput))
  fs.writeFileSync(copy, data, { mode: 0o600, flag: 'wx' })
  return copy
}
