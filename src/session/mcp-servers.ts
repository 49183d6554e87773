/**
 * The `mcp-servers` input: MCP servers the CLI starts for the session (`session.create
 * {mcpServers}`), in the CLI's own format, inline or from a JSON file:
 *
 *   {"NAME": {"type": "local", "command": "node", "args": ["server.js"], "env": {...},
 *             "tools": ["*"]},
 *    "OTHER": {"type": "http", "url": "https://…", "headers": {...}}}
 *
 * also accepted wrapped as `{"mcpServers": {...}}` (the format of .mcp.json and the CLI's
 * mcp-config.json). Everything is checked before the CLI starts: bad JSON and unknown fields fail
 * the step with the input (or file), line and column. Env and header values, and the credentials
 * in a server's URL (user, password, key-like path segments, query values), are secrets: they go
 * to the CLI and nowhere else (registered for masking, never logged, never in the report).
 *
 * The servers are the workflow author's configuration, like the setup commands: the policy
 * decides every call the agent makes to their tools (`mcp` rules), not what a server does.
 */
import fs from 'node:fs'
import { z } from 'zod'
import type { McpServerConfig } from '../cli/session-config.js'
import { UserError } from '../errors.js'
import { excerpt } from '../text/excerpt.js'
import { isInside, readTreeFile, TreeFileError, type TreeFile } from '../tree-file.js'
import { JsonSyntaxError, parseJson, type JsonPath } from './json.js'
import { redactUrl, urlSecrets } from '../text/url-credentials.js'

/** A server name: the CLI shows its tools to the model as `NAME-TOOL`, and rules as `NAME/TOOL`. */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/

const Strings = z.record(z.string(), z.string())
const Tools = z.array(z.string().min(1)).default(['*'])
const Timeout = z.number().int().positive().optional()

const LocalServer = z.strictObject({
  type: z.enum(['local', 'stdio']).default('local'),
  command: z.string().trim().min(1),
  args: z.array(z.string()).default([]),
  env: Strings.optional(),
  cwd: z.string().min(1).optional(),
  tools: Tools,
  timeout: Timeout
})

const RemoteServer = z.strictObject({
  type: z.enum(['http', 'sse']),
  url: z.url({ protocol: /^https?$/ }),
  headers: Strings.optional(),
  tools: Tools,
  timeout: Timeout
})

/** Server name → configuration, as `session.create {mcpServers}` takes it (checked here). */
export type McpServers = Record<string, McpServerConfig>

export interface McpServersInput {
  servers: McpServers
  /** Where the configuration came from: `input 'mcp-servers'` or the file's path. */
  source: string
  /**
   * Env and header values, credentials in URLs: masked in the log, kept out of everything the
   * action writes.
   */
  secrets: string[]
}

/**
 * An MCP server's env and header values are settings and credentials alike, none declared secret:
 * shorter values than this are taken for settings (`true`, `debug`, `8080`), not credentials, and
 * are not masked (masking `true` would garble the log). Longer than MIN_SECRET_LENGTH, the floor
 * for values known to be secret (a token, a key), which the redactor applies to every secret.
 */
const MIN_CREDENTIAL_LIKE_LENGTH = 8

/**
 * Reads the `mcp-servers` input: inline JSON (starts with `{`) or a path to a JSON file,
 * relative to the workspace. `trustedTree`: whether a file in the working directory may be
 * used; on a pull request the tree is the author's, and a server there is a command they chose.
 */
export function readMcpServers(
  raw: string,
  workspace: string,
  workingDirectory: string,
  trustedTree: boolean
): McpServersInput | undefined {
  if (raw === '') return undefined
  let text = raw
  let source = "input 'mcp-servers'"
  if (!raw.startsWith('{')) {
    let read: TreeFile
    try {
      read = readTreeFile({ what: "input 'mcp-servers'", name: raw, base: workspace, workspace })
    } catch (error) {
      if (error instanceof TreeFileError && error.problem === 'missing') {
        throw new UserError(
          `Input 'mcp-servers' names '${error.file}', which is not a file. Give the servers as JSON ({"NAME": {"command": …}}) or the path of a JSON file.`
        )
      }
      throw error
    }
    source = read.file
    if (!trustedTree && isInside(fs.realpathSync(workingDirectory), read.realPath)) {
      throw new UserError(
        `Input 'mcp-servers' names '${read.file}', which is in the checked-out tree: on a pull request that file is the author's, and each server in it is a command the CLI would run. Give the servers inline in the workflow, or set 'trusted-config: true' when the tree is trusted.`
      )
    }
    text = read.text
  }
  return parseMcpServers(text, source)
}

/** Parses and checks MCP server configuration text; `source` names it in errors. */
export function parseMcpServers(text: string, source: string): McpServersInput {
  let json: ReturnType<typeof parseJson>
  try {
    json = parseJson(text)
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error
    throw new UserError(`${source} is not valid JSON: ${error.message}.`)
  }
  const at = (where: JsonPath) => {
    const p = json.locate(where)
    return `${source} (line ${p.line}, column ${p.column})`
  }

  let root = json.value
  let prefix: string[] = []
  if (isObject(root) && Object.keys(root).length === 1 && 'mcpServers' in root) {
    root = root.mcpServers
    prefix = ['mcpServers']
  }
  if (!isObject(root)) {
    throw new UserError(
      `${at(prefix)}: expected an object of servers, {"NAME": {"command": …}} or {"mcpServers": {…}}.`
    )
  }
  const names = Object.keys(root)
  if (names.length === 0) {
    throw new UserError(`${at(prefix)}: no server is configured. Leave the input empty instead.`)
  }

  const servers: McpServers = {}
  const secrets: string[] = []
  for (const name of names) {
    const where = [...prefix, name]
    if (!SERVER_NAME.test(name)) {
      throw new UserError(
        `${at(where)}: the server name ${excerpt(name)} may hold only letters, digits, "_" and "-" (policy rules name a tool "NAME/TOOL").`
      )
    }
    const config = root[name]
    const type = isObject(config) ? config.type : undefined
    const schema = type === 'http' || type === 'sse' ? RemoteServer : LocalServer
    const parsed = schema.safeParse(config)
    if (!parsed.success) {
      // a misspelt field (`comand`) is the likely cause of a missing one: name it first
      const issues = parsed.error.issues
      const issue = (issues.find((i) => i.code === 'unrecognized_keys') ??
        issues[0]) as z.core.$ZodIssue
      const fields = Object.keys(schema.shape).join(', ')
      throw new UserError(`${at([...where, ...issueKeyPath(issue)])}: ${describe(issue, fields)}`)
    }
    const server: McpServerConfig = parsed.data
    servers[name] = server
    const values = 'url' in server ? server.headers : server.env
    for (const value of Object.values(values ?? {})) {
      if (value.length >= MIN_CREDENTIAL_LIKE_LENGTH) secrets.push(value)
    }
    // a token in the URL (`?t=…`, a key in the path): the CLI's errors quote the URL
    if ('url' in server) secrets.push(...urlSecrets(server.url))
  }
  return { servers, source, secrets }
}

/** The issue's path, down to the unknown key itself for an unrecognized key. */
function issueKeyPath(issue: z.core.$ZodIssue): Array<string | number> {
  const keys = issue.code === 'unrecognized_keys' ? [issue.keys[0] ?? ''] : []
  return [...issue.path, ...keys].filter((k): k is string | number => typeof k !== 'symbol')
}

function describe(issue: z.core.$ZodIssue, fields: string): string {
  const field = issue.path.map(String).join('.')
  if (issue.code === 'unrecognized_keys') {
    return `unknown field ${issue.keys.map((k) => excerpt(k)).join(', ')}; a server of this type has the fields ${fields}.`
  }
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
    return `the field "${field}" is missing.`
  }
  if (issue.code === 'invalid_value' && field === 'type') {
    return `"type" must be "local" or "stdio" (a command) or "http" or "sse" (a URL).`
  }
  return `${field === '' ? 'the server' : `"${field}"`}: ${issue.message}.`
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One line per server for the log: name, type and what it runs, never env or header values. */
export function describeMcpServers(servers: McpServers): string[] {
  return Object.entries(servers).map(([name, s]) => {
    // arguments and URLs may carry a token: the command, and the URL's shape only
    const what =
      'url' in s
        ? redactUrl(s.url)
        : `${s.command}${s.args.length > 0 ? ` (${s.args.length} arguments)` : ''}`
    return `${name} (${s.type}): ${what}; tools ${s.tools.join(', ')}`
  })
}
