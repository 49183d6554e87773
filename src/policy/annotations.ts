/**
 * Policy errors and warnings as GitHub annotations (`core.error(a.message, a.properties)` gives
 * `::error file=<f>,line=<L>,col=<C>,title=...::message`), and as a short plain-text list for a
 * pull request comment.
 *
 * GitHub attaches an annotation to a file only when `file` is the path inside the repository,
 * so the policy file's path is made relative to GITHUB_WORKSPACE.
 */
import path from 'node:path'
import type { PolicyIssue } from './errors.js'

/** The fields of @actions/core's AnnotationProperties an annotation of a policy issue sets. */
export interface PolicyAnnotationProperties {
  title: string
  /** The policy file relative to the workspace; absent for built-in policies and outside it. */
  file?: string
  startLine: number
  startColumn: number
}

export interface PolicyAnnotation {
  level: 'error' | 'warning'
  message: string
  properties: PolicyAnnotationProperties
}

export interface PolicyAnnotationOptions {
  /**
   * The repository checkout (GITHUB_WORKSPACE): annotations attach only to paths inside it.
   * Without it, the working directory is taken for the repository's root.
   */
  workspace?: string
  /** The directory relative policy paths are relative to. */
  workingDirectory: string
}

const BUILT_IN = 'built-in:'

/** Forward slashes, whatever the platform. */
function posix(p: string): string {
  return p.split(path.sep).join('/')
}

/** `rel` when it names a path inside the directory it is relative to, else undefined. */
function insideRelative(rel: string): string | undefined {
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    return undefined
  }
  return posix(rel)
}

/**
 * The path an annotation names the policy file by: relative to `workspace` (forward slashes, no
 * leading `./`) when the file is inside it; without a workspace, relative to the working
 * directory. Undefined for a built-in policy and for a file outside (an annotation naming it
 * would attach to nothing).
 */
export function annotationFile(file: string, options: PolicyAnnotationOptions): string | undefined {
  if (file.startsWith(BUILT_IN) || file === '') return undefined
  const absolute = path.resolve(options.workingDirectory, file)
  const root = path.resolve(options.workspace ?? options.workingDirectory)
  return insideRelative(path.relative(root, absolute))
}

/**
 * How a summary names the policy file: as annotationFile, else relative to the working directory
 * when inside it, else as given (`built-in:<name>`, an absolute path).
 */
export function displayFile(file: string, options: PolicyAnnotationOptions): string {
  if (file.startsWith(BUILT_IN)) return file
  const inWorkspace = annotationFile(file, options)
  if (inWorkspace !== undefined) return inWorkspace
  const absolute = path.resolve(options.workingDirectory, file)
  return insideRelative(path.relative(path.resolve(options.workingDirectory), absolute)) ?? absolute
}

/** Text on one line (a YAML error's message can span several). */
function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, ' ').trim()
}

/**
 * One annotation per issue, in the order given. The message is `<message>. Fix: <fix>`; when
 * the annotation cannot name the file (a built-in policy, a file outside the workspace) the
 * message starts with `<file>:<line>:<column>: ` instead, so the position is not lost.
 */
export function policyAnnotations(
  issues: readonly PolicyIssue[],
  options: PolicyAnnotationOptions
): PolicyAnnotation[] {
  return issues.map((issue) => {
    const file = annotationFile(issue.file, options)
    const text = `${oneLine(issue.message)}. Fix: ${oneLine(issue.fix)}`
    const where = `${displayFile(issue.file, options)}:${issue.line}:${issue.column}`
    const properties: PolicyAnnotationProperties = {
      title: issue.severity === 'error' ? 'Copilot policy error' : 'Copilot policy warning',
      startLine: issue.line,
      startColumn: issue.column
    }
    if (file !== undefined) properties.file = file
    return {
      level: issue.severity,
      message: file !== undefined ? text : `${where}: ${text}`,
      properties
    }
  })
}

/** How many issues policyIssueSummary lists before `… N more`. */
export const SUMMARY_LIMIT = 20

/**
 * The issues as plain text, one line each: `file:line:col: message` (`warning: ` before a
 * warning's message), at most SUMMARY_LIMIT lines and then `… N more`. `relativeFile` maps an
 * issue's file to the name shown (e.g. `(f) => displayFile(f, options)`); by default as given.
 */
export function policyIssueSummary(
  issues: readonly PolicyIssue[],
  relativeFile: (file: string) => string = (file) => file
): string {
  const shown = issues.slice(0, SUMMARY_LIMIT).map((issue) => {
    const label = issue.severity === 'warning' ? 'warning: ' : ''
    return `${relativeFile(issue.file)}:${issue.line}:${issue.column}: ${label}${oneLine(issue.message)}`
  })
  const rest = issues.length - shown.length
  if (rest > 0) shown.push(`… ${rest} more`)
  return shown.join('\n')
}
