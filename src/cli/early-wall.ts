/**
 * Which wall the entry starts the Copilot CLI behind, before the policy is loaded: a prediction
 * from the policy file's text, so that the CLI boots once. The policy decides later
 * (pipeline/os-sandbox.ts `confineCli`): a CLI started otherwise than the loaded policy wants is
 * stopped and started again, so a wrong guess costs a second boot (~1 s), never a weaker wall.
 *
 * The one guess made: a policy that turns the OS sandbox off (`sandbox: { mode: off }`) gets a
 * CLI without its outer wall, as the policy will want. Everything else starts behind it.
 *
 * A leaf module: the entry (cli/early.ts) loads it before the rest of the action.
 */
import { readTreeFile } from '../tree-file.js'

/** A YAML line without its comment (a `#` at the start or after whitespace, outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quote !== undefined) {
      if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") quote = c
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) return line.slice(0, i)
  }
  return line
}

const OFF = String.raw`(?:off|"off"|'off')`
const BLOCK_MODE = new RegExp(String.raw`^\s+mode\s*:\s*${OFF}\s*$`)
const FLOW_MODE = new RegExp(String.raw`^\{\s*mode\s*:\s*${OFF}\s*\}$`)

/**
 * Whether a policy file's text turns the OS sandbox off: a top-level `sandbox:` mapping whose
 * `mode` is `off`, in block or flow style. Only a guess from the text (no YAML parser is loaded
 * this early): anchors, aliases and the like read as "not off".
 */
export function turnsSandboxOff(text: string): boolean {
  const lines = text.split(/\r?\n/).map(withoutComment)
  for (let i = 0; i < lines.length; i++) {
    const match = /^sandbox\s*:\s*(.*?)\s*$/.exec(lines[i] ?? '')
    if (match === null) continue
    const rest = match[1] ?? ''
    if (rest !== '') return FLOW_MODE.test(rest)
    for (let j = i + 1; j < lines.length; j++) {
      const line = lines[j] ?? ''
      if (line.trim() === '') continue
      if (!/^\s/.test(line)) return false // the next top-level key: the block has ended
      if (BLOCK_MODE.test(line)) return true
    }
    return false
  }
  return false
}

/**
 * Whether the policy at `policyPath` (as the policy loader would read it: inside the tree,
 * a regular file) turns the OS sandbox off. Anything unreadable: no (the loader reports it).
 */
export function policyTurnsSandboxOff(
  policyPath: string,
  workingDirectory: string,
  workspace: string
): boolean {
  try {
    const { text } = readTreeFile({
      what: 'the policy',
      name: policyPath,
      base: workingDirectory,
      workspace
    })
    return turnsSandboxOff(text)
  } catch {
    return false
  }
}
