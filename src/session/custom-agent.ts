/**
 * The `agent` input: run the session as a custom agent defined in the repository,
 * `.github/agents/NAME.agent.md` (or `NAME.md`): YAML front matter with a `description` (and
 * optionally `tools`), then the agent's instructions as Markdown.
 *
 * The action reads the file itself and hands the CLI exactly that one agent
 * (`session.create {customAgents: [agent], agent: NAME}`): the CLI's own discovery of the tree's
 * configuration stays off unless `trusted-config: true` (see repository-config.ts), and the
 * headless `--agent` flag has no effect (measured on CLI 1.0.102).
 *
 * On a pull request the file is the author's. Its instructions are text the model reads, like
 * AGENTS.md; they change what the agent tries, not what it may do: the policy decides every
 * request. Its `tools` list can only narrow the agent's tools. Other front matter keys
 * (`mcp-servers`, `model`, ...) are not used: servers come only from the workflow's
 * `mcp-servers` input, the model from `model`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { LineCounter, parseDocument } from 'yaml'
import { z } from 'zod'
import type { CustomAgentConfig } from '../cli/session-config.js'
import { UserError } from '../errors.js'
import { clipMessage } from '../text/excerpt.js'
import { isInside, readTreeFile, workspaceRoots } from '../tree-file.js'

export const AGENTS_DIRECTORY = '.github/agents'

/** One agent as `session.create {customAgents}` takes it, and the file it was read from. */
export interface CustomAgent extends CustomAgentConfig {
  /** The file, relative to the working directory (for the log and the report). */
  file: string
}

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

const FrontMatter = z.looseObject({
  name: z.string().optional(),
  description: z.string().trim().min(1),
  tools: z
    .union([z.array(z.string().trim().min(1)), z.string()])
    .optional()
    .transform((t) =>
      typeof t === 'string'
        ? t
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== '')
        : t
    )
})

/** The agents in `.github/agents` of the working directory, by name. */
export function listAgents(
  workingDirectory: string,
  workspace: string = workingDirectory
): string[] {
  const dir = path.join(workingDirectory, AGENTS_DIRECTORY)
  let real: string
  try {
    real = fs.realpathSync(dir)
  } catch {
    return []
  }
  // a directory leading out of the tree lists nothing of where it leads
  if (!isInside(workspaceRoots(workspace).physical, real)) return []
  if (!fs.statSync(real).isDirectory()) return []
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => f.replace(/(\.agent)?\.md$/, ''))
    .filter((n) => AGENT_NAME.test(n))
    .sort()
}

/**
 * Reads and checks the agent `name`; fails naming the agents there are. The file is read as a
 * file of the checked-out tree (src/tree-file.ts): one leading out of `workspace` (the working
 * directory when not given), or not a regular file, is refused unread.
 */
export function readCustomAgent(
  name: string,
  workingDirectory: string,
  workspace: string = workingDirectory
): CustomAgent {
  const found = listAgents(workingDirectory, workspace)
  const available =
    found.length === 0
      ? `There is no agent in ${AGENTS_DIRECTORY}/ of the working directory.`
      : `The agents in ${AGENTS_DIRECTORY}/ are: ${found.join(', ')}.`
  if (!AGENT_NAME.test(name)) {
    throw new UserError(
      `Input 'agent' must be the name of a file ${AGENTS_DIRECTORY}/NAME.agent.md, got '${name}'. ${available}`
    )
  }
  const candidates = [`${name}.agent.md`, `${name}.md`].map((f) => `${AGENTS_DIRECTORY}/${f}`)
  // the first name there is (a link too: readTreeFile judges where it leads)
  const file = candidates.find((f) => {
    try {
      fs.lstatSync(path.join(workingDirectory, f))
      return true
    } catch {
      return false
    }
  })
  if (file === undefined) {
    throw new UserError(
      `Input 'agent' is '${name}', but ${candidates[0] ?? ''} does not exist. ${available}`
    )
  }
  const { text } = readTreeFile({
    what: `input 'agent' (${file})`,
    name: file,
    base: workingDirectory,
    workspace
  })
  return parseAgentFile(name, file, text)
}

/** Parses an agent file's text: front matter between `---` lines, then the instructions. */
export function parseAgentFile(name: string, file: string, text: string): CustomAgent {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text.replace(/^\uFEFF/, ''))
  if (match === null) {
    throw new UserError(
      `${file}:1: an agent file starts with YAML front matter between two '---' lines, with at least a description:\n---\ndescription: What the agent does\n---\nThe agent's instructions.`
    )
  }
  const lines = new LineCounter()
  const document = parseDocument(match[1] as string, { lineCounter: lines, prettyErrors: false })
  const syntax = document.errors[0]
  if (syntax !== undefined) {
    const at = lines.linePos(syntax.pos[0])
    throw new UserError(
      `${file}:${at.line + 1}:${at.col}: the front matter is not valid YAML: ${clipMessage(syntax.message)}`
    )
  }
  const parsed = FrontMatter.safeParse(document.toJS() ?? {})
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const key = issue?.path.map(String).join('.') ?? ''
    const node = key === '' ? undefined : document.getIn(issue?.path ?? [], true)
    const line =
      node !== undefined && node !== null && typeof node === 'object' && 'range' in node
        ? lines.linePos((node as { range: [number] }).range[0]).line + 1
        : 2
    throw new UserError(
      key === 'description' && node === undefined
        ? `${file}:2: the front matter has no description. Add one: description: What the agent does`
        : `${file}:${line}: '${key}' ${key === 'tools' ? 'must be a list of tool names' : `is invalid: ${clipMessage(issue?.message ?? '')}`}`
    )
  }
  const prompt = text.slice((match.index ?? 0) + match[0].length).trim()
  if (prompt === '') {
    throw new UserError(
      `${file}: the agent has no instructions. Write them below the front matter.`
    )
  }
  return {
    name,
    description: parsed.data.description,
    prompt,
    ...(parsed.data.tools === undefined ? {} : { tools: parsed.data.tools }),
    file
  }
}
