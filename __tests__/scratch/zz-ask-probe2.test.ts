import { compile, shell, write, tempWorkspace, writeFiles, mcp } from '../policy/helpers.js'
let ws: ReturnType<typeof tempWorkspace>
beforeAll(() => { ws = tempWorkspace(); writeFiles(ws.dir, { 'src/a.ts': '' }) })
afterAll(() => ws.cleanup())
it('probe deny equivalents', async () => {
  const mk = (d: string) => compile(`version: 1
default: deny
rules:
  - { id: g1, decision: ${d}, shell: ["npm publish*", "gh pr merge*"] }
  - { id: g2, decision: ${d}, mcp: ["github/create_*"] }
  - { id: g3, decision: ${d}, write: [".github/workflows/**"] }
  - { id: a1, decision: allow, shell: ["npm *", "gh *"] }
  - { id: a2, decision: allow, mcp: ["github/*"] }
  - { id: a3, decision: allow, write: ["**"] }
`, ws.dir)
  const out: string[] = []
  for (const d of ['deny', 'ask']) {
    const p = await mk(d)
    for (const c of ['npm --registry=x publish', 'npm -w x publish', 'gh pr merge 1', 'gh -R o/r pr merge 1', 'gh pr  merge 1', 'npm publish'])
      { const r = p.decide(shell(c)); out.push(`${d}: ${c} -> ${r.decision} ${r.rule}`) }
    for (const t of ['Create_issue', 'CREATE_ISSUE'])
      { const r = p.decide(mcp('github', t)); out.push(`${d}: mcp ${t} -> ${r.decision} ${r.rule}`) }
    for (const f of ['.github/workflows', '.github'])
      { const r = p.decide(write(f)); out.push(`${d}: write ${f} -> ${r.decision} ${r.rule}`) }
  }
  console.log(out.join('\n'))
})
