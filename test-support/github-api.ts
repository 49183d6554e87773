/**
 * A fake GitHub REST API on 127.0.0.1, for the comment publisher's tests, the demo and the action's
 * end-to-end tests (point `GITHUB_API_URL` / the publisher's `apiUrl` at `url`).
 *
 * Routes: `GET /user`, `GET|POST /repos/:owner/:repo/issues/:number/comments` (real pagination:
 * `per_page`, `page`, `Link`; `since`: only comments with `updated_at >= since`, an ISO time, 422
 * when unparsable), `PATCH /repos/:owner/:repo/issues/comments/:id`,
 * `POST /repos/:owner/:repo/issues/comments/:id/reactions` (201; assert on `requests`),
 * `GET /repos/:owner/:repo/collaborators/:user/permission` (from `setPermission`, the same for every
 * repository; `{permission, role_name, user}` with `maintain` → `write` and `triage` → `read` in
 * `permission`, like the real API; 404 for a login never set). Comments live in memory; their
 * timestamps come from a fake clock (2024-01-01, one second more per write). `addComment` seeds
 * comments by anyone, bots too (`{login, type: 'Bot'}`); `onComment` listeners see every comment
 * created through the API (not seeded ones), right after the response is sent, so a test can answer
 * a comment as soon as it is posted. Identity comes from the `Authorization` token: a user token
 * gets its login on `/user`; an installation token (GITHUB_TOKEN, GitHub App) gets 403 there, like
 * the real API, and writes as `<app>[bot]` with `performed_via_github_app`; a read-only token gets
 * 403 on writes (fork PRs).
 * Publish (issue 29): `GET /repos/:owner/:repo/pulls/:number` (opened or seeded with
 * `seedPullRequest`), `GET /repos/:owner/:repo/branches/:branch` (every branch exists;
 * `protected` after `protectBranch`), `GET /repos/:owner/:repo/rules/branches/:branch` (the rules of
 * the rulesets `addRuleset` made whose pattern matches: `*` within a segment, `**` any depth),
 * `GET /repos/:owner/:repo/labels/:name` (GitHub's default labels and those of `addLabel`, compared
 * case-insensitively; 404 for others).
 * Issues: `POST /repos/:owner/:repo/issues` (kept, body at most 65,536 characters like the
 * real API), `GET /repos/:owner/:repo/issues` (newest first, `state`, `per_page`),
 * `GET|PATCH /repos/:owner/:repo/issues/:number`; `addIssue` seeds one. A workflow run's jobs:
 * `GET /repos/:owner/:repo/actions/runs/:id(/attempts/:n)/jobs`, seeded by `setRunJobs`.
 * Workflow artifacts (resume): `GET /repos/:owner/:repo/actions/artifacts?name=` (newest first)
 * and `GET …/actions/artifacts/:id/zip` (302 to a blob URL serving the zip), seeded by
 * `addArtifact`.
 * Faults: `failNext` makes the next matching requests answer with a given status. Every request is
 * logged (method, path, query, status, who) for assertions; tokens are never logged.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Identity {
  login: string
  /** GITHUB_TOKEN / GitHub App installation token: 403 on GET /user, author is a Bot. */
  installation?: boolean
  /** The app's slug for installation identities (default `github-actions`). */
  appSlug?: string
  /** `read` makes every write answer 403 "Resource not accessible by integration". */
  access?: 'read' | 'write'
  /** The author's `user.type`; default `Bot` for installations, else `User`. */
  type?: 'User' | 'Bot'
}

/** A repository role, as `role_name` reports it. */
export type FakeRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read'

/** The permission response for a custom role: both fields as given. */
export interface FakeCustomRole {
  role_name: string
  permission: 'admin' | 'write' | 'read' | 'none'
}

/** Where a comment was created. */
export interface CommentPlace {
  owner: string
  repo: string
  number: number
}

export interface FakeUser {
  login: string
  id: number
  type: 'User' | 'Bot'
}

export interface FakeComment {
  id: number
  node_id: string
  url: string
  html_url: string
  issue_url: string
  body: string
  user: FakeUser
  created_at: string
  updated_at: string
  author_association: string
  performed_via_github_app: { id: number; slug: string; name: string } | null
}

/** A pull request opened through `POST /repos/:owner/:repo/pulls`. */
export interface FakePullRequest {
  number: number
  html_url: string
  title: string
  body: string
  head: string
  base: string
  draft: boolean
  state: 'open' | 'closed'
  labels: string[]
  /** The head's repository (`owner/repo`); the repository it was opened in when absent. */
  headRepo?: string
}

/** An issue opened through the API (`POST /repos/:o/:r/issues`), or seeded with `addIssue`. */
export interface FakeIssue {
  owner: string
  repo: string
  number: number
  html_url: string
  title: string
  body: string | null
  labels: string[]
  state: 'open' | 'closed'
  /** How many times its body or title was changed through the API. */
  edits: number
}

export interface LoggedRequest {
  method: string
  /** Path without the query string, e.g. `/repos/o/r/issues/1/comments`. */
  path: string
  query: Record<string, string>
  status: number
  /** The identity's login, `null` without (or with an unknown) token. */
  login: string | null
  /** The parsed JSON body of writes. */
  body?: unknown
}

export interface Fault {
  status: number
  /** Response body (JSON-encoded when not a string); default `{message: "fault <status>"}`. */
  body?: unknown
  headers?: Record<string, string>
  /** Only requests with this method count (case-insensitive). */
  method?: string
  /** Only requests whose path matches count. */
  path?: RegExp | string
}

export interface FakeGitHubOptions {
  /** token → identity. Defaults to {@link DEFAULT_IDENTITIES}. */
  identities?: Record<string, Identity>
  /** Page size when the client sends no `per_page` (GitHub: 30). */
  defaultPerPage?: number
}

export interface FakeGitHub {
  /** Base URL, e.g. `http://127.0.0.1:41234`, for `GITHUB_API_URL`. */
  url: string
  requests: LoggedRequest[]
  /** Pull requests opened through the API (live objects; labels added to them too). */
  pulls: FakePullRequest[]
  /** Issues opened through the API or seeded (live objects), in order. */
  issues: FakeIssue[]
  /**
   * The jobs `GET /repos/:o/:r/actions/runs/:id(/attempts/:n)/jobs` lists for a run id (any
   * repository, any attempt; one page).
   */
  setRunJobs(runId: number, jobs: Array<{ name: string; html_url: string }>): void
  /** Seed an issue in `owner/repo` with `body`; returns it (its number is the next free one). */
  addIssue(owner: string, repo: string, title: string, body: string | null): FakeIssue
  /** The comments of one issue or PR, oldest first (live objects). */
  comments(owner: string, repo: string, number: number): FakeComment[]
  /**
   * Seed a comment as `author` (default `someone`; need not be a known identity): a login, or an
   * identity such as `{login: 'renovate[bot]', type: 'Bot'}`. Not seen by `onComment` listeners.
   */
  addComment(
    owner: string,
    repo: string,
    number: number,
    body: string,
    author?: string | Identity
  ): FakeComment
  /**
   * Call `listener` for every comment created through the API (POST), after its response is sent.
   * Returns a function that removes the listener. A listener that throws fails the test run.
   */
  onComment(listener: (comment: FakeComment, place: CommentPlace) => void): () => void
  /**
   * `login`'s role on every repository (case-insensitive login); `undefined` forgets it (then the
   * permission route answers 404, as for a non-collaborator).
   */
  setPermission(login: string, role: FakeRole | FakeCustomRole | undefined): void
  /** The next `times` (default 1) matching requests answer `fault.status`. */
  failNext(fault: Fault, times?: number): void
  /** A pull request that exists already (not opened through the API): number, head and base. */
  seedPullRequest(pr: {
    number: number
    head: string
    base: string
    headRepo?: string
    state?: 'open' | 'closed'
  }): FakePullRequest
  /** The branch has branch protection (`protected: true` on GET branches/:branch). */
  protectBranch(name: string): void
  /** A ruleset whose rule (`type`, default `pull_request`) applies to branches matching `pattern`. */
  addRuleset(pattern: string, type?: string): void
  /** A label the repository has, besides GitHub's defaults. */
  addLabel(name: string): void
  /**
   * An artifact of a workflow run (`GET /repos/:owner/:repo/actions/artifacts?name=`, newest first;
   * `GET …/artifacts/:id/zip` answers 302 to a blob URL that serves `zip`, as GitHub does).
   * Returns its id.
   */
  addArtifact(
    owner: string,
    repo: string,
    artifact: { name: string; zip: Buffer; createdAt?: string; expired?: boolean; runId?: number }
  ): number
  /** Clear the request log (not the comments). */
  resetLog(): void
  close(): Promise<void>
}

export const DEFAULT_IDENTITIES: Record<string, Identity> = {
  'user-token': { login: 'octocat' },
  'other-user-token': { login: 'mallory' },
  'installation-token': { login: 'github-actions[bot]', installation: true },
  'app-token': { login: 'autopilot-app[bot]', installation: true, appSlug: 'autopilot-app' },
  'read-only-token': { login: 'github-actions[bot]', installation: true, access: 'read' }
}

const MAX_BODY = 65536

interface PendingFault extends Fault {
  remaining: number
}

export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const identities = options.identities ?? DEFAULT_IDENTITIES
  const defaultPerPage = options.defaultPerPage ?? 30
  const store = new Map<string, FakeComment[]>()
  const userIds = new Map<string, number>()
  const requests: LoggedRequest[] = []
  const faults: PendingFault[] = []
  const permissions = new Map<string, FakeRole | FakeCustomRole>()
  const commentListeners = new Set<(comment: FakeComment, place: CommentPlace) => void>()
  let nextCommentId = 1000
  const pulls: FakePullRequest[] = []
  const protectedBranches = new Set<string>()
  const rulesets: Array<{ pattern: string; type: string }> = []
  const labelNames = new Set(
    [
      'bug',
      'documentation',
      'duplicate',
      'enhancement',
      'good first issue',
      'help wanted',
      'invalid',
      'question',
      'wontfix'
    ].map((l) => l.toLowerCase())
  )
  const branchPattern = (pattern: string): RegExp =>
    new RegExp(
      `^${pattern
        .split('**')
        .map((part) =>
          part
            .split('*')
            .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]*')
        )
        .join('.*')}$`
    )
  const issues: FakeIssue[] = []
  const runJobs = new Map<number, Array<{ name: string; html_url: string }>>()
  const makeIssue = (
    owner: string,
    repo: string,
    title: string,
    body: string | null,
    labels: string[]
  ): FakeIssue => {
    const number = ++nextIssueNumber
    const issue: FakeIssue = {
      owner,
      repo,
      number,
      html_url: `https://github.com/${owner}/${repo}/issues/${number}`,
      title,
      body,
      labels,
      state: 'open',
      edits: 0
    }
    issues.push(issue)
    return issue
  }
  const issueView = (issue: FakeIssue): Record<string, unknown> => ({
    number: issue.number,
    html_url: issue.html_url,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    labels: issue.labels.map((name) => ({ name }))
  })
  let nextIssueNumber = 100
  const artifacts: {
    id: number
    repo: string
    name: string
    zip: Buffer
    createdAt: string
    expired: boolean
    runId: number
  }[] = []
  let clock = Date.parse('2024-01-01T00:00:00Z')
  let baseUrl = ''

  const now = (): string => new Date((clock += 1000)).toISOString()
  const issueKey = (owner: string, repo: string, n: number): string =>
    `${owner.toLowerCase()}/${repo.toLowerCase()}#${n}`
  const issueComments = (owner: string, repo: string, n: number): FakeComment[] => {
    const key = issueKey(owner, repo, n)
    let list = store.get(key)
    if (!list) store.set(key, (list = []))
    return list
  }
  const userFor = (identity: Identity): FakeUser => {
    let id = userIds.get(identity.login)
    if (id === undefined) userIds.set(identity.login, (id = 100 + userIds.size))
    return {
      login: identity.login,
      id,
      type: identity.type ?? (identity.installation ? 'Bot' : 'User')
    }
  }
  const appFor = (identity: Identity): FakeComment['performed_via_github_app'] =>
    identity.installation
      ? {
          id: 15368,
          slug: identity.appSlug ?? 'github-actions',
          name: identity.appSlug ?? 'GitHub Actions'
        }
      : null

  const newComment = (
    owner: string,
    repo: string,
    n: number,
    body: string,
    identity: Identity
  ): FakeComment => {
    const id = ++nextCommentId
    const at = now()
    const comment: FakeComment = {
      id,
      node_id: `IC_${id}`,
      url: `${baseUrl}/repos/${owner}/${repo}/issues/comments/${id}`,
      html_url: `https://github.com/${owner}/${repo}/issues/${n}#issuecomment-${id}`,
      issue_url: `${baseUrl}/repos/${owner}/${repo}/issues/${n}`,
      body,
      user: userFor(identity),
      created_at: at,
      updated_at: at,
      author_association: identity.installation ? 'NONE' : 'OWNER',
      performed_via_github_app: appFor(identity)
    }
    issueComments(owner, repo, n).push(comment)
    return comment
  }

  const findComment = (owner: string, repo: string, id: number): FakeComment | undefined => {
    const prefix = `${owner.toLowerCase()}/${repo.toLowerCase()}#`
    for (const [key, list] of store) {
      if (!key.startsWith(prefix)) continue
      const found = list.find((c) => c.id === id)
      if (found) return found
    }
    return undefined
  }

  const takeFault = (method: string, path: string): PendingFault | undefined => {
    const index = faults.findIndex(
      (f) =>
        (f.method === undefined || f.method.toUpperCase() === method) &&
        (f.path === undefined || (typeof f.path === 'string' ? path === f.path : f.path.test(path)))
    )
    const fault = faults[index]
    if (!fault) return undefined
    if (--fault.remaining <= 0) faults.splice(index, 1)
    return fault
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const method = (req.method ?? 'GET').toUpperCase()
      const parsed = new URL(req.url ?? '/', 'http://fake.invalid')
      const path = parsed.pathname.replace(/\/+$/, '') || '/'
      const query = Object.fromEntries(parsed.searchParams)
      const auth = req.headers.authorization ?? ''
      const token = /^(?:token|bearer)\s+(.+)$/i.exec(auth)?.[1]?.trim()
      const identity = token !== undefined ? identities[token] : undefined
      const entry: LoggedRequest = {
        method,
        path,
        query,
        status: 0,
        login: identity?.login ?? null
      }
      requests.push(entry)

      const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
        entry.status = status
        const text = typeof body === 'string' ? body : JSON.stringify(body)
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'x-github-media-type': 'github.v3',
          ...headers
        })
        res.end(text)
      }
      const error = (status: number, message: string, headers?: Record<string, string>): void =>
        send(
          status,
          { message, documentation_url: 'https://docs.github.com/rest', status: String(status) },
          headers
        )

      let body: unknown
      if (method !== 'GET' && method !== 'HEAD' && chunks.length > 0) {
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
          entry.body = body
        } catch {
          error(400, 'Problems parsing JSON')
          return
        }
      }

      const fault = takeFault(method, path)
      if (fault) {
        send(fault.status, fault.body ?? { message: `fault ${fault.status}` }, fault.headers)
        return
      }

      // The artifact's zip, where the API's 302 points (no token needed: the URL is the key).
      const blob = /^\/_blobs\/artifacts\/(\d+)\.zip$/.exec(path)
      if (blob && method === 'GET') {
        const artifact = artifacts.find((a) => a.id === Number(blob[1]))
        if (!artifact) {
          error(404, 'Not Found')
          return
        }
        entry.status = 200
        res.writeHead(200, { 'content-type': 'application/zip' })
        res.end(artifact.zip)
        return
      }

      if (!identity) {
        error(401, 'Bad credentials')
        return
      }

      if (method === 'GET' && path === '/user') {
        if (identity.installation) {
          error(403, 'Resource not accessible by integration')
          return
        }
        send(200, { ...userFor(identity), name: identity.login })
        return
      }

      const list = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(path)
      if (list) {
        const [, owner = '', repo = '', num = ''] = list
        const n = Number(num)
        if (method === 'GET') {
          const perPage = Math.min(Math.max(Number(query.per_page ?? defaultPerPage) || 30, 1), 100)
          const page = Math.max(Number(query.page ?? 1) || 1, 1)
          let all = issueComments(owner, repo, n)
          if (query.since !== undefined) {
            const since = Date.parse(query.since)
            if (Number.isNaN(since)) {
              error(422, 'Validation Failed: since is not a valid ISO 8601 time')
              return
            }
            all = all.filter((c) => Date.parse(c.updated_at) >= since)
          }
          const last = Math.max(Math.ceil(all.length / perPage), 1)
          const link = (p: number, rel: string): string => {
            const u = new URL(`${baseUrl}${path}`)
            for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v)
            u.searchParams.set('per_page', String(perPage))
            u.searchParams.set('page', String(p))
            return `<${u.toString()}>; rel="${rel}"`
          }
          const links: string[] = []
          if (page > 1) links.push(link(page - 1, 'prev'))
          if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
          if (page > 1) links.push(link(1, 'first'))
          send(
            200,
            all.slice((page - 1) * perPage, page * perPage),
            links.length > 0 ? { link: links.join(', ') } : {}
          )
          return
        }
        if (method === 'POST') {
          if (identity.access === 'read') {
            error(403, 'Resource not accessible by integration')
            return
          }
          const text = (body as { body?: unknown } | undefined)?.body
          if (typeof text !== 'string' || text.length === 0) {
            error(422, 'Validation Failed')
            return
          }
          if (text.length > MAX_BODY) {
            error(422, 'Validation Failed: body is too long (maximum is 65536 characters)')
            return
          }
          const created = newComment(owner, repo, n, text, identity)
          send(201, created)
          for (const listener of [...commentListeners]) {
            listener(created, { owner, repo, number: n })
          }
          return
        }
      }

      const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(path)
      if (one && method === 'PATCH') {
        const [, owner = '', repo = '', id = ''] = one
        const comment = findComment(owner, repo, Number(id))
        if (!comment) {
          error(404, 'Not Found')
          return
        }
        if (identity.access === 'read') {
          error(403, 'Resource not accessible by integration')
          return
        }
        if (comment.user.login !== identity.login) {
          // The real API lets maintainers edit others' comments; the publisher must never do it.
          error(403, 'Must have admin rights to Repository.')
          return
        }
        const text = (body as { body?: unknown } | undefined)?.body
        if (typeof text !== 'string' || text.length === 0 || text.length > MAX_BODY) {
          error(422, 'Validation Failed')
          return
        }
        comment.body = text
        comment.updated_at = now()
        send(200, comment)
        return
      }

      const reaction = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)\/reactions$/.exec(path)
      if (reaction && method === 'POST') {
        const [, owner = '', repo = '', id = ''] = reaction
        const comment = findComment(owner, repo, Number(id))
        if (!comment) {
          error(404, 'Not Found')
          return
        }
        if (identity.access === 'read') {
          error(403, 'Resource not accessible by integration')
          return
        }
        const content = (body as { content?: unknown } | undefined)?.content
        const allowed = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes']
        if (typeof content !== 'string' || !allowed.includes(content)) {
          error(422, 'Validation Failed')
          return
        }
        send(201, { id: ++nextCommentId, content, user: userFor(identity), created_at: now() })
        return
      }

      const permission = /^\/repos\/([^/]+)\/([^/]+)\/collaborators\/([^/]+)\/permission$/.exec(
        path
      )
      if (permission && method === 'GET') {
        let login: string
        try {
          login = decodeURIComponent(permission[3] ?? '')
        } catch {
          error(400, 'Bad login')
          return
        }
        const role = permissions.get(login.toLowerCase())
        if (role === undefined) {
          error(404, `${login} is not a user`)
          return
        }
        const legacy = {
          admin: 'admin',
          maintain: 'write',
          write: 'write',
          triage: 'read',
          read: 'read'
        }
        const fields =
          typeof role === 'string' ? { permission: legacy[role], role_name: role } : role
        send(200, { ...fields, user: { ...userFor({ login }), permissions: {} } })
        return
      }

      // --- workflow artifacts (resume, issue 31)
      const artifactList = /^\/repos\/([^/]+)\/([^/]+)\/actions\/artifacts$/.exec(path)
      if (artifactList && method === 'GET') {
        const full = `${artifactList[1]}/${artifactList[2]}`
        const found = artifacts
          .filter((a) => a.repo === full && (query.name === undefined || a.name === query.name))
          .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)
        send(200, {
          total_count: found.length,
          artifacts: found.map((a) => ({
            id: a.id,
            node_id: `A_${a.id}`,
            name: a.name,
            size_in_bytes: a.zip.length,
            url: `${baseUrl}/repos/${full}/actions/artifacts/${a.id}`,
            archive_download_url: `${baseUrl}/repos/${full}/actions/artifacts/${a.id}/zip`,
            expired: a.expired,
            created_at: a.createdAt,
            updated_at: a.createdAt,
            expires_at: '2099-01-01T00:00:00Z',
            workflow_run: { id: a.runId, head_branch: 'main' }
          }))
        })
        return
      }
      const artifactZip = /^\/repos\/([^/]+)\/([^/]+)\/actions\/artifacts\/(\d+)\/zip$/.exec(path)
      if (artifactZip && method === 'GET') {
        const full = `${artifactZip[1]}/${artifactZip[2]}`
        const artifact = artifacts.find((a) => a.id === Number(artifactZip[3]) && a.repo === full)
        if (!artifact || artifact.expired) {
          error(artifact ? 410 : 404, artifact ? 'Artifact has expired' : 'Not Found')
          return
        }
        entry.status = 302
        res.writeHead(302, { location: `${baseUrl}/_blobs/artifacts/${artifact.id}.zip` })
        res.end()
        return
      }

      // --- pull requests, issues and labels (the publish step, issue 23)
      const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path)
      if (repoPath) {
        const [, owner = '', repo = '', rest = ''] = repoPath
        const writes = method !== 'GET'
        if (writes && identity.access === 'read') {
          error(403, 'Resource not accessible by integration')
          return
        }
        const fields = (body ?? {}) as Record<string, unknown>
        if (method === 'GET' && rest === '') {
          send(200, { full_name: `${owner}/${repo}`, default_branch: 'main' })
          return
        }
        if (rest === '/pulls' && method === 'GET') {
          const head = query.head
          send(
            200,
            pulls.filter(
              (p) =>
                p.state === (query.state ?? 'open') &&
                (head === undefined || `${owner}:${p.head}` === head)
            )
          )
          return
        }
        if (rest === '/pulls' && method === 'POST') {
          if (typeof fields.title !== 'string' || typeof fields.head !== 'string') {
            error(422, 'Validation Failed')
            return
          }
          const number = ++nextIssueNumber
          const pr: FakePullRequest = {
            number,
            html_url: `https://github.com/${owner}/${repo}/pull/${number}`,
            title: fields.title,
            body: typeof fields.body === 'string' ? fields.body : '',
            head: fields.head,
            base: typeof fields.base === 'string' ? fields.base : '',
            draft: fields.draft === true,
            state: 'open',
            labels: []
          }
          pulls.push(pr)
          send(201, pr)
          return
        }
        const onePull = /^\/pulls\/(\d+)$/.exec(rest)
        if (onePull && method === 'GET') {
          const pr = pulls.find((p) => p.number === Number(onePull[1]))
          if (!pr) {
            error(404, 'Not Found')
            return
          }
          send(200, {
            number: pr.number,
            html_url: pr.html_url,
            state: pr.state,
            title: pr.title,
            draft: pr.draft,
            head: { ref: pr.head, repo: { full_name: pr.headRepo ?? `${owner}/${repo}` } },
            base: { ref: pr.base, repo: { full_name: `${owner}/${repo}` } }
          })
          return
        }
        const oneBranch = /^\/branches\/(.+)$/.exec(rest)
        if (oneBranch && method === 'GET') {
          const name = decodeURIComponent(oneBranch[1] ?? '')
          send(200, { name, protected: protectedBranches.has(name) })
          return
        }
        const branchRules = /^\/rules\/branches\/(.+)$/.exec(rest)
        if (branchRules && method === 'GET') {
          const name = decodeURIComponent(branchRules[1] ?? '')
          send(
            200,
            rulesets
              .filter((r) => branchPattern(r.pattern).test(name))
              .map((r, i) => ({
                type: r.type,
                ruleset_source_type: 'Repository',
                ruleset_id: i + 1
              }))
          )
          return
        }
        const oneLabel = /^\/labels\/(.+)$/.exec(rest)
        if (oneLabel && method === 'GET') {
          const name = decodeURIComponent(oneLabel[1] ?? '')
          if (!labelNames.has(name.toLowerCase())) {
            error(404, 'Not Found')
            return
          }
          send(200, { name, color: 'ededed' })
          return
        }
        if (onePull && method === 'PATCH') {
          const pr = pulls.find((p) => p.number === Number(onePull[1]))
          if (!pr) {
            error(404, 'Not Found')
            return
          }
          if (typeof fields.title === 'string') pr.title = fields.title
          if (typeof fields.body === 'string') pr.body = fields.body
          send(200, pr)
          return
        }
        if (rest === '/issues' && method === 'POST') {
          if (typeof fields.title !== 'string') {
            error(422, 'Validation Failed')
            return
          }
          if (typeof fields.body === 'string' && fields.body.length > MAX_BODY) {
            error(422, 'Validation Failed: body is too long (maximum is 65536 characters)')
            return
          }
          const issue = makeIssue(
            owner,
            repo,
            fields.title,
            typeof fields.body === 'string' ? fields.body : null,
            Array.isArray(fields.labels) ? fields.labels.map(String) : []
          )
          send(201, issueView(issue))
          return
        }
        const jobs = /^\/actions\/runs\/(\d+)(?:\/attempts\/\d+)?\/jobs$/.exec(rest)
        if (jobs && method === 'GET') {
          const list = runJobs.get(Number(jobs[1])) ?? []
          send(200, {
            total_count: list.length,
            jobs: list.map((job, i) => ({ id: 7000 + i, status: 'completed', ...job }))
          })
          return
        }
        if (rest === '/issues' && method === 'GET') {
          const state = query.state ?? 'open'
          const perPage = Math.min(Math.max(Number(query.per_page ?? defaultPerPage) || 30, 1), 100)
          const found = issues
            .filter(
              (i) =>
                i.owner.toLowerCase() === owner.toLowerCase() &&
                i.repo.toLowerCase() === repo.toLowerCase() &&
                (state === 'all' || i.state === state)
            )
            .reverse()
            .slice(0, perPage)
          send(200, found.map(issueView))
          return
        }
        const oneIssue = /^\/issues\/(\d+)$/.exec(rest)
        if (oneIssue) {
          const issue = issues.find(
            (i) =>
              i.owner.toLowerCase() === owner.toLowerCase() &&
              i.repo.toLowerCase() === repo.toLowerCase() &&
              i.number === Number(oneIssue[1])
          )
          if (!issue) {
            error(404, 'Not Found')
            return
          }
          if (method === 'GET') {
            send(200, issueView(issue))
            return
          }
          if (method === 'PATCH') {
            if (typeof fields.body === 'string' && fields.body.length > MAX_BODY) {
              error(422, 'Validation Failed: body is too long (maximum is 65536 characters)')
              return
            }
            if (typeof fields.body === 'string') issue.body = fields.body
            if (typeof fields.title === 'string') issue.title = fields.title
            issue.edits++
            send(200, issueView(issue))
            return
          }
        }
        const labels = /^\/issues\/(\d+)\/labels$/.exec(rest)
        if (labels && method === 'POST') {
          const pr = pulls.find((p) => p.number === Number(labels[1]))
          const names = Array.isArray(fields.labels) ? fields.labels.map(String) : []
          if (pr) pr.labels.push(...names)
          send(
            200,
            names.map((name) => ({ name }))
          )
          return
        }
      }

      error(404, `Not Found: ${method} ${path}`)
    })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  baseUrl = `http://127.0.0.1:${port}`

  return {
    url: baseUrl,
    requests,
    comments: (owner, repo, number) => issueComments(owner, repo, number),
    pulls,
    issues,
    addIssue: (owner, repo, title, body) => makeIssue(owner, repo, title, body, []),
    setRunJobs: (runId, jobs) => {
      runJobs.set(runId, jobs)
    },
    addComment: (owner, repo, number, body, author = 'someone') =>
      newComment(
        owner,
        repo,
        number,
        body,
        typeof author === 'string' ? { login: author } : author
      ),
    onComment: (listener) => {
      commentListeners.add(listener)
      return () => {
        commentListeners.delete(listener)
      }
    },
    setPermission: (login, role) => {
      if (role === undefined) permissions.delete(login.toLowerCase())
      else permissions.set(login.toLowerCase(), role)
    },
    failNext: (fault, times = 1) => {
      faults.push({ ...fault, remaining: times })
    },
    seedPullRequest: (seed) => {
      const pr: FakePullRequest = {
        number: seed.number,
        html_url: `https://github.com/octo/repo/pull/${seed.number}`,
        title: `Pull request ${seed.number}`,
        body: '',
        head: seed.head,
        base: seed.base,
        draft: false,
        state: seed.state ?? 'open',
        labels: [],
        ...(seed.headRepo === undefined ? {} : { headRepo: seed.headRepo })
      }
      const same = pulls.findIndex((p) => p.number === seed.number)
      if (same >= 0) pulls.splice(same, 1)
      pulls.push(pr)
      return pr
    },
    protectBranch: (name) => {
      protectedBranches.add(name)
    },
    addRuleset: (pattern, type = 'pull_request') => {
      rulesets.push({ pattern, type })
    },
    addLabel: (name) => {
      labelNames.add(name.toLowerCase())
    },
    addArtifact: (owner, repo, artifact) => {
      const id = 9000 + artifacts.length + 1
      artifacts.push({
        id,
        repo: `${owner}/${repo}`,
        name: artifact.name,
        zip: artifact.zip,
        createdAt: artifact.createdAt ?? new Date(Date.UTC(2024, 0, 1, 0, 0, id)).toISOString(),
        expired: artifact.expired ?? false,
        runId: artifact.runId ?? id
      })
      return id
    },
    resetLog: () => {
      requests.length = 0
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
