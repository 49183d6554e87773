import { compile, shell, write, tempWorkspace, writeFiles, url, mcp } from '../policy/helpers.js'
let ws: ReturnType<typeof tempWorkspace>
beforeAll(() => { ws = tempWorkspace(); writeFiles(ws.dir, { 'src/a.ts': '' }) })
afterAll(() => ws.cleanup())
it('probe', async () => {
  const p = await compile(`version: 1
default: deny
rules:
  - { id: ask-push, decision: ask, shell: ["git push *", "npm publish*"] }
  - { id: git, decision: allow, shell: ["git *", "npm *", "echo *", "env *", "command *", "xargs *", "timeout *", "nice *"] }
  - { id: ask-wf, decision: ask, write: [".github/workflows/**"] }
  - { id: w, decision: allow, write: ["**"] }
  - { id: ask-url, decision: ask, url: ["https://api.example.com/**"] }
  - { id: u, decision: allow, url: ["https://*"] }
  - { id: ask-mcp, decision: ask, mcp: ["github/create_*"] }
  - { id: m, decision: allow, mcp: ["github/*"] }
`, ws.dir)
  const out: string[] = []
  for (const c of ['git push origin main', 'git -C . push origin main', 'git -c x=y push origin', 'git --git-dir=.git push o',
    'command git push o', 'env git push o', '\\git push o', '"git" push o', 'g""it push o', 'git pu""sh o', 'git pus\\h o',
    'timeout 5 git push o', 'nice git push o', 'echo o | xargs git push', 'git push', 'git push\torigin', 'git  push o',
    'npm publish', 'npm  publish', 'npm --registry=x publish', 'git remote add x y && git push x', 'git -c alias.p=push p o',
    'echo hi\ngit push o', 'git push o # comment', 'GIT_DIR=. git push o', 'npm pub', 'git commit -m x && git push o',
    'echo "$(git push o)"', 'git send-pack o', 'git push --mirror o'])
    { const d = p.decide(shell(c)); out.push(`${JSON.stringify(c)} -> ${d.decision} ${d.rule} | subject=${JSON.stringify(d.subject)}`) }
  for (const f of ['.github/workflows/a.yml', '.GitHub/Workflows/a.yml', './.github/workflows/../workflows/a.yml', '.github/workflows', 'src/../.github/workflows/x.yml'])
    { const d = p.decide(write(f)); out.push(`write ${f} -> ${d.decision} ${d.rule}`) }
  for (const u of ['https://api.example.com/x', 'https://API.example.com/x', 'https://api.example.com./x', 'https://api.example.com:443/x', 'https://u@api.example.com/x'])
    { const d = p.decide(url(u)); out.push(`url ${u} -> ${d.decision} ${d.rule}`) }
  for (const t of ['create_issue', 'Create_issue', 'create_pull_request'])
    { const d = p.decide(mcp('github', t)); out.push(`mcp ${t} -> ${d.decision} ${d.rule} subj=${d.subject}`) }
  console.log(out.join('\n'))
})
