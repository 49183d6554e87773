/** Shared helpers for the policy tests. */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { PermissionRequest } from '../../src/cli/protocol.js'
import { compilePolicy, type CompiledPolicy } from '../../src/policy/index.js'

/** The example policy from the policy file documentation. */
export const EXAMPLE_POLICY = `version: 1
default: deny
rules:
  - id: no-push
    decision: deny
    reason: pushing is the workflow's job
    shell: ["git push*"]
  - { id: tests, decision: allow, shell: ["npm test*", "npm run *", "git status", "git diff*"] }
  - { id: sources, decision: allow, write: ["src/**", "*.md"] }
  - { id: workflows, decision: deny, write: [".github/**"] }
  - { id: read-all, decision: allow, read: ["**"] }
  - { id: docs, decision: allow, url: ["docs.github.com", "https://*.npmjs.com/**"] }
  - { id: gh-read, decision: allow, mcp: ["github/get_*", "github/list_*"] }
  - { id: no-memory, decision: deny, memory: true }
  - { id: my-tool, decision: allow, tool: ["my_tool"] }
`

/** A fresh real directory (symlinks in its path resolved), removed by `cleanup`. */
export function tempWorkspace(prefix = 'policy-ws-'): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name)
    mkdirSync(path.dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
}

export function compile(text: string, workingDirectory: string): Promise<CompiledPolicy> {
  return compilePolicy(text, 'policy.yml', workingDirectory)
}

export const shell = (fullCommandText: string): PermissionRequest => ({
  kind: 'shell',
  fullCommandText
})
export const write = (fileName: string): PermissionRequest => ({ kind: 'write', fileName })
export const read = (p: string): PermissionRequest => ({ kind: 'read', path: p })
export const url = (u: string): PermissionRequest => ({ kind: 'url', url: u })
export const mcp = (serverName: string, toolName: string): PermissionRequest => ({
  kind: 'mcp',
  serverName,
  toolName
})
export const tool = (toolName: string): PermissionRequest => ({ kind: 'custom-tool', toolName })
