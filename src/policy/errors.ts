/**
 * Errors and warnings about a policy file, each with its position and how to fix it.
 *
 * An error never quotes the file beyond a short excerpt at its position (`excerpt`): the message
 * goes to the log, the report and the pull request comment, and a file that is not what it
 * seems must not be printed through them. (Files outside the tree are not read at all:
 * src/tree-file.ts.)
 */
import { UserError } from '../errors.js'

export { clipMessage, excerpt, EXCERPT_MAX } from '../text/excerpt.js'

export interface PolicyIssue {
  severity: 'error' | 'warning'
  /** The policy file (as given) or `built-in:<name>`. */
  file: string
  /** 1-based. */
  line: number
  /** 1-based. */
  column: number
  message: string
  /** What to change. */
  fix: string
}

export function formatIssue(issue: PolicyIssue): string {
  const where = `${issue.file}:${issue.line}:${issue.column}`
  const label = issue.severity === 'warning' ? 'warning: ' : ''
  return `${where}: ${label}${issue.message}. Fix: ${issue.fix}`
}

/**
 * A policy that cannot be used: the user must fix the file. `issues` lists every error found,
 * in file order; `file`, `line`, `column` and `fix` are the first one's.
 */
export class PolicyError extends UserError {
  readonly issues: PolicyIssue[]
  readonly file: string
  readonly line: number
  readonly column: number
  readonly fix: string

  constructor(issues: PolicyIssue[]) {
    const first = issues[0]
    if (first === undefined) throw new Error('PolicyError needs at least one issue')
    super(issues.map(formatIssue).join('\n'))
    this.issues = issues
    this.file = first.file
    this.line = first.line
    this.column = first.column
    this.fix = first.fix
  }
}

/** Orders issues as they stand in the file. */
export function byPosition(a: PolicyIssue, b: PolicyIssue): number {
  return a.line - b.line || a.column - b.column
}
