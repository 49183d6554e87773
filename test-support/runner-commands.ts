/**
 * A model of how the GitHub Actions runner finds workflow commands in a step's stdout
 * (actions/runner: ProcessInvoker reads lines with StreamReader.ReadLine; OutputManager hands
 * each line to ActionCommandManager.TryProcessCommand, which tries ActionCommand.TryParseV2 and
 * then the legacy ActionCommand.TryParse).
 *
 * The runner compares with .NET's culture-sensitive StartsWith/IndexOf on ICU, which skip
 * ignorable code points (U+200B, U+FEFF, controls, …). The model removes every code point that
 * Node's ICU collator ignores before matching, so it finds at least what the runner finds: a line
 * it does not flag, the runner does not parse.
 */

/** The commands the runner registers (ExtensionManager, ActionCommandManager). */
export const REGISTERED_COMMANDS = [
  'stop-commands',
  'set-env',
  'set-output',
  'save-state',
  'add-path',
  'add-mask',
  'add-matcher',
  'remove-matcher',
  'warning',
  'error',
  'notice',
  'debug',
  'group',
  'endgroup',
  'echo'
] as const

export interface ParsedCommand {
  /** The line as the runner read it. */
  line: string
  /** The command's name, lower case. */
  name: string
  /** `::name …::data` (v2) or `##[name …]data` (legacy). */
  syntax: 'v2' | 'legacy'
  properties: Record<string, string>
  data: string
}

const collator = new Intl.Collator('en', { sensitivity: 'variant' })
const ignorableCache = new Map<number, boolean>()

/** Whether ICU ignores the code point when comparing (as .NET's culture-sensitive APIs do). */
export function isIgnorable(codePoint: number): boolean {
  let known = ignorableCache.get(codePoint)
  if (known === undefined) {
    known = collator.compare(`a${String.fromCodePoint(codePoint)}b`, 'ab') === 0
    ignorableCache.set(codePoint, known)
  }
  return known
}

/** .NET's char.IsWhiteSpace: what String.TrimStart removes. */
const DOTNET_WHITESPACE =
  /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*/

function withoutIgnorables(text: string): string {
  let out = ''
  for (const ch of text) if (!isIgnorable(ch.codePointAt(0) as number)) out += ch
  return out
}

/** The lines the runner reads from `stdout` (ReadLine: `\n`, `\r`, `\r\n`). */
export function runnerLines(stdout: string): string[] {
  const lines = stdout.split(/\r\n|\r|\n/)
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/** The command the runner would parse from one line, if any. */
export function parseCommand(
  line: string,
  registered: ReadonlySet<string> = new Set(REGISTERED_COMMANDS)
): ParsedCommand | undefined {
  // TryParseV2: TrimStart, then StartsWith("::") and IndexOf("::", 2), culture-sensitive.
  const v2 = withoutIgnorables(withoutIgnorables(line).replace(DOTNET_WHITESPACE, ''))
  if (v2.startsWith('::')) {
    const end = v2.indexOf('::', 2)
    if (end >= 0) {
      const info = v2.slice(2, end)
      const space = info.indexOf(' ')
      const name = (space < 0 ? info : info.slice(0, space)).toLowerCase()
      if (registered.has(name)) {
        return {
          line,
          name,
          syntax: 'v2',
          properties: properties(space < 0 ? '' : info.slice(space + 1), ','),
          data: v2.slice(end + 2)
        }
      }
    }
  }
  // TryParse (legacy): IndexOf("##[") anywhere in the line, then the name before `]`.
  const legacy = withoutIgnorables(line)
  const prefix = legacy.indexOf('##[')
  if (prefix >= 0) {
    const close = legacy.indexOf(']', prefix)
    if (close >= 0) {
      const info = legacy.slice(prefix + 3, close)
      const space = info.indexOf(' ')
      const name = (space < 0 ? info : info.slice(0, space)).toLowerCase()
      if (registered.has(name)) {
        return {
          line,
          name,
          syntax: 'legacy',
          properties: properties(space < 0 ? '' : info.slice(space + 1), ';'),
          data: legacy.slice(close + 1)
        }
      }
    }
  }
  return undefined
}

function properties(text: string, separator: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const pair of text.trim().split(separator)) {
    const eq = pair.indexOf('=')
    if (eq > 0) out[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  return out
}

/** Every command the runner could parse from a step's stdout, in order. */
export function runnerCommands(stdout: string): ParsedCommand[] {
  return runnerLines(stdout)
    .map((line) => parseCommand(line))
    .filter((command): command is ParsedCommand => command !== undefined)
}
