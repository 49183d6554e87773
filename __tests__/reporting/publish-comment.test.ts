import type { CommentPublisherOptions } from '../../src/reporting/publish-comment.js'
import { createCommentPublisher, markerFor } from '../../src/reporting/publish-comment.js'
import { GITHUB_COMMENT_LIMIT } from '../../src/reporting/limits.js'
import type { CommentTarget } from '../../src/reporting/target.js'
import type { FakeGitHub } from '../../test-support/github-api.js'
import { startFakeGitHub } from '../../test-support/github-api.js'

const OWNER = 'acme'
const REPO = 'widgets'
const pr: CommentTarget = { kind: 'pr', number: 7, owner: OWNER, repo: REPO, source: 'event' }
const issue: CommentTarget = { kind: 'issue', number: 9, owner: OWNER, repo: REPO, source: 'event' }

let api: FakeGitHub
let logLines: string[]
let throttleSeq = 0

beforeEach(async () => {
  api = await startFakeGitHub()
  logLines = []
})

afterEach(async () => {
  await api.close()
})

function publisher(overrides: Partial<CommentPublisherOptions> = {}) {
  return createCommentPublisher({
    token: 'user-token',
    apiUrl: api.url,
    target: pr,
    mode: 'update',
    retryDelayMs: 1,
    throttleId: `test-${++throttleSeq}`,
    spaceWrites: false,
    log: {
      debug: (m) => logLines.push(`debug: ${m}`),
      warning: (m) => logLines.push(`warning: ${m}`)
    },
    ...overrides
  })
}

const writes = () => api.requests.filter((r) => r.method !== 'GET')

describe('markerFor', () => {
  it('is a hidden HTML comment with the key, default `default`', () => {
    expect(markerFor()).toBe('<!-- copilot-autopilot:default -->')
    expect(markerFor('nightly')).toBe('<!-- copilot-autopilot:nightly -->')
    expect(markerFor('')).toBe(markerFor('default'))
  })

  it('cannot be broken out of by the key', () => {
    expect(markerFor('a --> <b>')).toBe('<!-- copilot-autopilot:a------b- -->')
  })
})

describe('createCommentPublisher', () => {
  it('creates the comment, and a later run updates the same one', async () => {
    const first = await publisher().publish('Working…')
    expect(first.fallback).toBeUndefined()
    expect(first.id).toEqual(expect.any(Number))
    expect(first.url).toContain('#issuecomment-')

    const second = await publisher().publish('Done: all green')
    expect(second).toEqual({ id: first.id, url: first.url })

    const comments = api.comments(OWNER, REPO, 7)
    expect(comments).toHaveLength(1)
    expect(comments[0]?.body).toBe(`${markerFor()}\nDone: all green`)
    expect(writes().map((r) => r.method)).toEqual(['POST', 'PATCH'])
  })

  it('updates what the first publish created by id, without listing again', async () => {
    const p = publisher()
    const working = await p.publish('Working…')
    api.resetLog()
    const final = await p.publish('Finished')
    expect(final.id).toBe(working.id)
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PATCH /repos/${OWNER}/${REPO}/issues/comments/${working.id}`
    ])
    expect(api.comments(OWNER, REPO, 7)[0]?.body).toContain('Finished')
  })

  it('runs overlapping publishes one after the other', async () => {
    const p = publisher()
    const [a, b] = await Promise.all([p.publish('one'), p.publish('two')])
    expect(b.id).toBe(a.id)
    expect(api.comments(OWNER, REPO, 7).map((c) => c.body)).toEqual([`${markerFor()}\ntwo`])
  })

  it('leaves a comment by someone else that quotes the marker alone', async () => {
    const quoted = api.addComment(OWNER, REPO, 7, `look: ${markerFor()} in my comment`, 'mallory')
    const result = await publisher().publish('report')
    expect(result.id).toEqual(expect.any(Number))
    expect(result.id).not.toBe(quoted.id)
    expect(quoted.body).toBe(`look: ${markerFor()} in my comment`)
    expect(api.comments(OWNER, REPO, 7)).toHaveLength(2)
    expect(writes().map((r) => r.method)).toEqual(['POST'])
  })

  it('keeps one comment per key', async () => {
    const a = await publisher({ key: 'lint' }).publish('lint v1')
    const b = await publisher({ key: 'tests' }).publish('tests v1')
    await publisher({ key: 'lint' }).publish('lint v2')
    expect(a.id).not.toBe(b.id)
    const bodies = api.comments(OWNER, REPO, 7).map((c) => c.body)
    expect(bodies).toEqual([`${markerFor('lint')}\nlint v2`, `${markerFor('tests')}\ntests v1`])
  })

  it('finds its comment on the third page of comments', async () => {
    const ours = await publisher().publish('old report')
    // Push ours back: 250 comments before it would be pages 1-3 at 100 per page.
    const list = api.comments(OWNER, REPO, 7)
    const mine = list.pop()
    for (let i = 0; i < 250; i++) api.addComment(OWNER, REPO, 7, `chatter ${i}`, 'someone')
    if (mine) list.push(mine)
    api.resetLog()

    const result = await publisher().publish('new report')
    expect(result.id).toBe(ours.id)
    const pages = api.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/comments'))
    expect(pages.map((r) => r.query.page ?? '1')).toEqual(['1', '2', '3'])
    expect(list).toHaveLength(251)
    expect(list.at(-1)?.body).toContain('new report')
  })

  it('creates another comment in mode `new`', async () => {
    const first = await publisher().publish('run 1')
    const second = await publisher({ mode: 'new' }).publish('run 2')
    expect(second.id).not.toBe(first.id)
    expect(api.comments(OWNER, REPO, 7)).toHaveLength(2)
    expect(api.requests.filter((r) => r.method === 'GET')).toHaveLength(1) // only run 1 listed
  })

  it('works with GitHub’s default write spacing', async () => {
    const result = await publisher({ spaceWrites: undefined }).publish('report')
    expect(result.id).toEqual(expect.any(Number))
  })

  it('makes no request in mode `off`', async () => {
    const result = await publisher({ mode: 'off' }).publish('report')
    expect(result).toEqual({ skipped: 'comment-mode is off' })
    expect(api.requests).toHaveLength(0)
  })

  it('makes no request without a target and passes the reason on', async () => {
    const result = await publisher({ target: { kind: 'none', reason: 'schedule event' } }).publish(
      'x'
    )
    expect(result).toEqual({ skipped: 'schedule event' })
    expect(api.requests).toHaveLength(0)
  })

  describe('with an installation token (GITHUB_TOKEN, 403 on /user)', () => {
    it('treats github-actions[bot] as itself and updates its comment', async () => {
      const first = await publisher({ token: 'installation-token' }).publish('v1')
      const second = await publisher({ token: 'installation-token' }).publish('v2')
      expect(second.id).toBe(first.id)
      const user = api.requests.filter((r) => r.path === '/user')
      expect(user.map((r) => r.status)).toEqual([403])
    })

    it('does not adopt a person’s comment that quotes the marker', async () => {
      const quoted = api.addComment(OWNER, REPO, 7, `${markerFor()}\nfake`, 'mallory')
      const result = await publisher({ token: 'installation-token' }).publish('real')
      expect(result.id).toEqual(expect.any(Number))
      expect(result.id).not.toBe(quoted.id)
      expect(quoted.body).toBe(`${markerFor()}\nfake`)
      expect(writes().map((r) => r.method)).toEqual(['POST'])
    })

    it('recognises the comment of its own GitHub App bot', async () => {
      const first = await publisher({ token: 'app-token' }).publish('v1')
      const second = await publisher({ token: 'app-token' }).publish('v2')
      expect(second.id).toBe(first.id)
      expect(api.comments(OWNER, REPO, 7)[0]?.user.login).toBe('autopilot-app[bot]')
      expect(api.comments(OWNER, REPO, 7)[0]?.body).toContain('v2')
    })
  })

  it('returns a fallback naming `pull-requests: write` for a read-only token on a PR', async () => {
    const result = await publisher({ token: 'read-only-token' }).publish('report')
    expect(result.id).toBeUndefined()
    expect(result.fallback).toContain('`pull-requests: write`')
    expect(result.fallback).toContain("workflow's `permissions:` block")
    expect(result.fallback).toContain('HTTP 403')
    expect(result.fallback).toContain('pull request #7 in acme/widgets')
    expect(api.comments(OWNER, REPO, 7)).toHaveLength(0)
    // 403 is not retried.
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1)
  })

  it('names `issues: write` for an issue, and handles a 403 on the listing', async () => {
    api.failNext({ status: 403, body: { message: 'Resource not accessible by integration' } })
    const result = await publisher({ target: issue }).publish('report')
    expect(result.fallback).toContain('`issues: write`')
    expect(result.fallback).toContain('issue #9')
  })

  it('names both permissions when the issue-number input chose the target', async () => {
    api.failNext({ status: 404, body: { message: 'Not Found' } })
    const result = await publisher({ target: { ...issue, source: 'input' } }).publish('report')
    expect(result.fallback).toContain('HTTP 404')
    expect(result.fallback).toContain('`issues: write`')
    expect(result.fallback).toContain('`pull-requests: write`')
  })

  it('retries a 502 once and succeeds', async () => {
    api.failNext({ status: 502, method: 'POST' })
    const result = await publisher().publish('report')
    expect(result.fallback).toBeUndefined()
    expect(api.requests.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([502, 201])
    expect(api.comments(OWNER, REPO, 7)).toHaveLength(1)
  })

  it('gives up on a lasting 503 with a fallback carrying the status', async () => {
    api.failNext({ status: 503, body: { message: 'Service Unavailable' } }, 10)
    const result = await publisher({ retries: 2 }).publish('report')
    expect(result.fallback).toContain('HTTP 503')
    expect(api.requests).toHaveLength(3)
  })

  it('waits out a secondary rate limit, a bounded number of times', async () => {
    const limited = {
      status: 403,
      method: 'POST',
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' },
      headers: { 'retry-after': '1' }
    }
    api.failNext(limited)
    expect((await publisher().publish('report')).fallback).toBeUndefined()
    expect(api.requests.filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([403, 201])

    api.resetLog()
    api.failNext(limited, 10)
    const result = await publisher({ mode: 'new' }).publish('again')
    expect(result.fallback).toContain('rate-limited')
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(3) // 1 + 2 retries
    expect(logLines.some((l) => l.startsWith('warning: GitHub secondary rate limit'))).toBe(true)
  })

  it('reports a rejected token without throwing or logging it', async () => {
    const result = await publisher({ token: 'ghp_notAValidToken123' }).publish('report')
    expect(result.fallback).toContain('HTTP 401')
    expect(result.fallback).toContain('token was rejected')
    expect(JSON.stringify([result, logLines])).not.toContain('ghp_notAValidToken123')
  })

  it('falls back when the API is unreachable', async () => {
    const result = await publisher({ apiUrl: 'http://127.0.0.1:9', retries: 0 }).publish('x')
    expect(result.fallback).toMatch(/Could not post the run comment on pull request #7/)
  })

  it('creates a new comment when the one it wrote was deleted', async () => {
    const p = publisher()
    const first = await p.publish('v1')
    api.comments(OWNER, REPO, 7).length = 0
    const second = await p.publish('v2')
    expect(second.id).not.toBe(first.id)
    expect(api.comments(OWNER, REPO, 7).map((c) => c.body)).toEqual([`${markerFor()}\nv2`])
  })

  it('skips the write when the comment already says the same', async () => {
    await publisher().publish('same')
    api.resetLog()
    const again = await publisher().publish('same')
    expect(again.id).toEqual(expect.any(Number))
    expect(writes()).toHaveLength(0)
  })

  it('does not repeat a marker the body already carries', async () => {
    await publisher().publish(`report\n${markerFor()}`)
    expect(api.comments(OWNER, REPO, 7)[0]?.body).toBe(`${markerFor()}\nreport\n`)
  })

  it('truncates bodies over GitHub’s limit, keeping the marker', async () => {
    const result = await publisher().publish('x'.repeat(GITHUB_COMMENT_LIMIT + 10))
    expect(result.fallback).toBeUndefined()
    const body = api.comments(OWNER, REPO, 7)[0]?.body ?? ''
    expect(body.length).toBe(GITHUB_COMMENT_LIMIT)
    expect(body.startsWith(markerFor())).toBe(true)
    expect(body).toContain('truncated')
  })
})
