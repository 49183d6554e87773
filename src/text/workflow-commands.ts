/**
 * Text of untrusted origin made inert for the runner's command channel: whatever the agent, a
 * tool, a command or a file said, no line of it written to the log can be a workflow command.
 *
 * How the runner reads a step's stdout (actions/runner, src/Runner.Sdk/ProcessInvoker.cs,
 * src/Runner.Worker/Handlers/OutputManager.cs, src/Runner.Common/ActionCommand.cs,
 * src/Runner.Worker/ActionCommandManager.cs):
 * - lines come from `StreamReader.ReadLine()`, which ends a line at `\n`, `\r` or `\r\n`;
 * - `ActionCommand.TryParseV2`: `line.TrimStart().StartsWith("::")`, then a registered command
 *   name up to the next `::` (`::error file=…::`, `::stop-commands::`, `::add-mask::`, …);
 * - `ActionCommand.TryParse` (legacy): `line.IndexOf("##[")` ANYWHERE in the line, then a
 *   registered name before `]` (`##[set-output name=x;]v`, `##[error]…`).
 * Both comparisons are .NET's culture-sensitive ones (no `StringComparison.Ordinal`), and the
 * runner runs with ICU. ICU skips "ignorable" code points when comparing: controls, U+200B,
 * U+FEFF, U+00AD and ~960 others. So `:\u200B:error::x` starts with `::` for the runner, and
 * `#\u00AD#[` contains `##[`: a zero-width character inside the marker does not defeat it, and a
 * check that looks for a literal `::` misses a line that starts with U+200B `::`.
 *
 * What does: every code point TrimStart removes or ICU ignores lies outside printable ASCII
 * (U+0021–U+007E), no other code point compares equal to `:`, `#` or `[`, and no printable ASCII
 * character is ignorable (checked against ICU 78 for all of Unicode in the tests). Looking only at
 * the printable ASCII characters of the text:
 * - a line whose first two are `::` gets a backslash before the first: `\::error …`;
 * - a `[` whose two before it are `##` gets a backslash before it: `##\[error]…`.
 * After that no line starts with `::` and no line contains `##[`, however ICU compares. The
 * backslash is visible (a reader sees the text was not a command; the runner marks its own
 * `##[start-action` the same way) and is never taken away by the runner. Lines start after
 * `\n`, `\r`, and also after `\v`, `\f`, NEL (U+0085), U+2028 and U+2029, which some viewers
 * break at (the runner does not): more line starts only means more lines checked. The result is
 * the same when applied again, text with nothing to neutralize is returned as it is, and only
 * backslashes are added, so a secret the runner masks stays whole unless it spans the start of a
 * `::` line or a `##[` (redact before, as the action does).
 *
 * The commands `@actions/core` writes itself (`core.warning`, `error`, `notice`, `debug`,
 * `group`, `setOutput` without GITHUB_OUTPUT, `setSecret`) put their text after the command's
 * own `::` with `%`, `\r` and `\n` escaped, and properties with `:` and `,` also escaped: one
 * line, parsed as that command, whatever the text. `core.info` and `process.stdout.write` write
 * text as it is: untrusted text goes through this function first (src/log.ts does it for every
 * line the action logs).
 */

/** Printable ASCII: the only characters that neither TrimStart removes nor ICU ignores. */
function isPrintableAscii(code: number): boolean {
  return code >= 0x21 && code <= 0x7e
}

/** Where a line may start: after `\n`, `\r`, `\v`, `\f`, NEL, LINE and PARAGRAPH SEPARATOR. */
function isLineBreak(code: number): boolean {
  return (
    code === 0x0a ||
    code === 0x0d ||
    code === 0x0b ||
    code === 0x0c ||
    code === 0x85 ||
    code === 0x2028 ||
    code === 0x2029
  )
}

/** What is put before a `::` that starts a line and before the `[` of a `##[`. */
export const COMMAND_MARKER = '\\'

/**
 * `text` with no line the runner could parse as a workflow command: a backslash before a `::`
 * that starts a line (after whitespace or invisible characters too) and before the `[` of every
 * `##[`. Everything else is kept as it is.
 */
export function neutralizeWorkflowCommands(text: string): string {
  let out = ''
  let from = 0
  let changed = false
  let lineHasPrintable = false
  // The last two printable ASCII characters, across lines (more `##[` found is only safer).
  let before1 = ''
  let before2 = ''
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (isLineBreak(code)) {
      lineHasPrintable = false
      continue
    }
    if (!isPrintableAscii(code)) continue
    const ch = text[i] as string
    const startsLine = !lineHasPrintable
    lineHasPrintable = true
    const opensCommand = startsLine && ch === ':' && nextPrintableAscii(text, i + 1) === ':'
    const opensLegacy = ch === '[' && before1 === '#' && before2 === '#'
    if (opensCommand || opensLegacy) {
      out += text.slice(from, i) + COMMAND_MARKER
      from = i
      changed = true
      before1 = COMMAND_MARKER
    }
    before2 = before1
    before1 = ch
  }
  return changed ? out + text.slice(from) : text
}

/** The next printable ASCII character at or after `from` (across line breaks), or ''. */
function nextPrintableAscii(text: string, from: number): string {
  for (let i = from; i < text.length; i++) {
    if (isPrintableAscii(text.charCodeAt(i))) return text[i] as string
  }
  return ''
}
