/**
 * The action's log: the one way the action writes lines to the runner. Every line goes through
 * neutralizeWorkflowCommands, so nothing the agent, a tool, a command, the CLI or a file said can
 * be taken by the runner as a workflow command (see src/text/workflow-commands.ts), whichever
 * module logs it and however it got there; and every line has the run's secrets redacted
 * (`addSecrets`), whatever module logs it.
 *
 * The action's own commands are not lines of the log: `core.setOutput`, `core.setSecret`,
 * `core.setFailed`, `core.summary` are called directly and keep working. `core.warning`,
 * `notice`, `error`, `debug` and `group` escape their text themselves (one line per command); it
 * is neutralized here too, so that a multi-line message the runner shows again line by line never
 * starts a line with `::` or `##[` either. `core.info` writes text as it is: only this module may
 * call it (eslint.config.js).
 */
import * as core from '@actions/core'
import { normalizeSecrets, redactDeepNormalized, redactNormalized } from './text/safe-text.js'
import type { Logger } from './session/log.js'
import { neutralizeWorkflowCommands } from './text/workflow-commands.js'

export interface ActionLog extends Logger {
  /** A warning annotation, on a file's line when `properties` say so. */
  warning(line: string, properties?: core.AnnotationProperties): void
  notice(line: string, properties?: core.AnnotationProperties): void
  error(line: string, properties?: core.AnnotationProperties): void
}

/** The run's secrets as given, and as redactNormalized looks for them (encoded forms too). */
let given: string[] = []
let secrets: readonly string[] = []

/**
 * Registers secret values for the rest of the run: masked by the runner (`::add-mask::`, which
 * also masks some encodings of them), and redacted here from every line, with their base64 and
 * percent-encoded forms at any offset, before the runner sees it (the runner masks what it was
 * told of; this log does not depend on it, nor on when the runner learnt of a value).
 */
export function addSecrets(values: readonly string[]): void {
  const fresh = values.filter((value) => value.length >= 4 && !given.includes(value))
  if (fresh.length === 0) return
  for (const value of fresh) core.setSecret(value)
  given = [...given, ...fresh]
  secrets = normalizeSecrets(given)
}

/** Text with the registered secrets redacted (for what the action writes besides the log). */
export function redactSecrets(text: string): string {
  return redactNormalized(text, secrets)
}

/** A JSON-like value with the registered secrets redacted from every string (keys too). */
export function redactSecretsDeep<T>(value: T): T {
  return redactDeepNormalized(value, secrets, { maxDepth: 64 })
}

/** The registered secrets, normalized (every encoding the redactor knows). */
export function knownSecrets(): readonly string[] {
  return secrets
}

const safe = (line: string): string => neutralizeWorkflowCommands(redactNormalized(line, secrets))

export const log: ActionLog = {
  info: (line) => core.info(safe(line)),
  warning: (line, properties) => core.warning(safe(line), properties),
  notice: (line, properties) => core.notice(safe(line), properties),
  error: (line, properties) => core.error(safe(line), properties),
  debug: (line) => core.debug(safe(line)),
  group: (name, work) => core.group(safe(name), work)
}
