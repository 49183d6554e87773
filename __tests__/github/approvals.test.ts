import type { AskAnswer, AskRequest, ApprovalsOptions } from '../../src/github/approvals.js'
import {
  askMarker,
  createApprovals,
  newAskId,
  parseAnswer,
  renderAsk,
  renderMissingId
} from '../../src/github/approvals.js'
import type {
  CommentPlace,
  FakeComment,
  FakeGitHub,
  Identity
} from '../../test-support/github-api.js'
import { startFakeGitHub } from '../../test-support/github-api.js'
import type { LogLines } from './helpers.js'
import { anyString, captureLog, containing, fakeClient } from './helpers.js'

const OWNER = 'acme'
const REPO = 'widgets'
const NUMBER = 7
const TIMEOUT_MS = 600
const POLL_MS = 20

let api: FakeGitHub
let logs: LogLines

beforeEach(async () => {
  api = await startFakeGitHub()
  logs = captureLog()
  api.setPermission('ada', 'admin')
  api.setPermission('max', 'maintain')
  api.setPermission('wendy', 'write')
  api.setPermission('rita', 'read')
  api.setPermission('tia', 'triage')
})

afterEach(async () => {
  await api.close()
})

function approvals(overrides: Partial<ApprovalsOptions> = {}) {
  return createApprovals({
    client: fakeClient(api),
    target: { owner: OWNER, repo: REPO, number: NUMBER },
    timeoutMs: TIMEOUT_MS,
    pollMs: POLL_MS,
    log: logs.log,
    ...overrides
  })
}

function request(overrides: Partial<AskRequest> = {}): AskRequest {
  return {
    id: newAskId(),
    kind: 'shell',
    subject: 'git push origin main',
    rule: 'ask-push',
    reason: 'Pushing needs a human',
    ...overrides
  }
}

const isAsk = (c: FakeComment): boolean => c.body.includes('<!-- copilot-autopilot:ask:')
const comments = () => api.comments(OWNER, REPO, NUMBER)
const reply = (body: string, author: string | Identity) =>
  api.addComment(OWNER, REPO, NUMBER, body, author)

/** Answer every ask comment as soon as it is posted, with `replies(ask)`. */
function answerAsks(replies: (ask: FakeComment) => [string, string | Identity][]): () => void {
  return api.onComment((comment: FakeComment, place: CommentPlace) => {
    if (place.number !== NUMBER || !isAsk(comment)) return
    for (const [body, author] of replies(comment)) reply(body, author)
  })
}

function idOf(ask: FakeComment): string {
  return /copilot-autopilot:ask:([0-9a-f]+)/.exec(ask.body)?.[1] ?? 'none'
}

const signal = () => new AbortController().signal
const listRequests = () =>
  api.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/issues/${NUMBER}/comments`))

describe('newAskId / askMarker', () => {
  it('makes 6 hex digits, different each time', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newAskId()))
    expect(ids.size).toBeGreaterThan(45)
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{6}$/)
  })

  it('keeps the marker a single hidden comment', () => {
    expect(askMarker('a1b2c3')).toBe('<!-- copilot-autopilot:ask:a1b2c3 -->')
    expect(askMarker('x --> <b>')).toBe('<!-- copilot-autopilot:ask:x------b- -->')
  })
})

describe('parseAnswer', () => {
  it('reads the verdict, the id and the reason from the first line', () => {
    expect(parseAnswer('/approve')).toEqual({ verdict: 'approved' })
    expect(parseAnswer('/APPROVE a1b2c3')).toEqual({ verdict: 'approved', id: 'a1b2c3' })
    expect(parseAnswer('  /deny A1B2C3   too risky, use a PR  \nmore')).toEqual({
      verdict: 'denied',
      id: 'A1B2C3',
      reason: 'too risky, use a PR'
    })
    expect(parseAnswer('/Deny because X')).toEqual({ verdict: 'denied', reason: 'because X' })
    expect(parseAnswer('\n\n/approve looks fine\r\n')).toEqual({
      verdict: 'approved',
      reason: 'looks fine'
    })
    expect(parseAnswer('`/approve a1b2c3`')).toEqual({ verdict: 'approved', id: 'a1b2c3' })
  })

  it('takes its own id in any shape, and 6 hex digits as an id', () => {
    expect(parseAnswer('/deny req-42 nope', 'req-42')).toEqual({
      verdict: 'denied',
      id: 'req-42',
      reason: 'nope'
    })
    expect(parseAnswer('/deny ffffff nope', 'a1b2c3')).toEqual({
      verdict: 'denied',
      id: 'ffffff',
      reason: 'nope'
    })
    expect(parseAnswer('/deny fffff nope')).toEqual({ verdict: 'denied', reason: 'fffff nope' })
  })

  it('skips quoted lines (a quote reply) but nothing else', () => {
    expect(parseAnswer('> 🙋 Copilot asks for approval\n> /deny x\n\n/approve a1b2c3')).toEqual({
      verdict: 'approved',
      id: 'a1b2c3'
    })
    expect(parseAnswer('> /approve a1b2c3')).toBeUndefined()
    expect(parseAnswer('thanks!\n/approve')).toBeUndefined()
  })

  it('is not fooled by lookalikes', () => {
    for (const body of [
      '/approved',
      '/approve-all',
      'approve',
      ' / approve',
      '/denyall',
      '',
      'x /deny'
    ]) {
      expect(parseAnswer(body)).toBeUndefined()
    }
  })

  it('clips the reason to 500 characters', () => {
    const answer = parseAnswer(`/deny a1b2c3 ${'x'.repeat(800)}`)
    expect(answer?.reason).toHaveLength(500)
  })
})

describe('createApprovals', () => {
  it('approves once on a writer’s /approve, and appends the outcome to the ask comment', async () => {
    answerAsks((ask) => [[`/approve ${idOf(ask)}`, 'wendy']])
    const req = request()
    const answer = await approvals().ask(req, signal())

    expect(answer).toEqual({
      verdict: 'approved',
      by: 'wendy',
      at: anyString(),
      commentUrl: containing('#issuecomment-'),
      askUrl: containing('#issuecomment-'),
      askedAt: anyString()
    })
    if (answer.verdict !== 'approved') throw new Error('unreachable')
    expect(Date.parse(answer.at)).toBeGreaterThanOrEqual(Date.parse(answer.askedAt))

    const [ask, yes] = comments()
    expect(ask?.body.startsWith(`${askMarker(req.id)}\n### 🙋 Copilot asks for approval`)).toBe(
      true
    )
    expect(ask?.html_url).toBe(answer.askUrl)
    expect(yes?.html_url).toBe(answer.commentUrl)
    expect(ask?.body).toContain('- **Kind:** `shell`')
    expect(ask?.body).toContain('- **Request:** `git push origin main`')
    expect(ask?.body).toContain('- **Rule:** `ask-push` — Pushing needs a human')
    expect(ask?.body).toContain(`- **Request id:** \`${req.id}\``)
    expect(ask?.body).toContain(`\`/approve ${req.id}\``)
    expect(ask?.body).toContain(`\`/deny ${req.id} <reason>\``)
    expect(ask?.body).toContain('write, maintain or admin')
    expect(ask?.body).toContain('Without an answer within 600 ms, the request is denied.')
    expect(ask?.body).toMatch(
      /\n---\n\n\*\*✅ Approved\*\* by `wendy` at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\[reply\]\(https:\/\/github\.com\/acme\/widgets\/issues\/7#issuecomment-\d+\)\)\. Copilot may do this once\.$/
    )

    // Polling asked only for what changed since the ask comment.
    const lists = listRequests()
    expect(lists.length).toBeGreaterThan(0)
    for (const r of lists)
      expect(r.query).toMatchObject({ since: ask?.created_at, per_page: '100' })
    expect(api.requests.filter((r) => r.method === 'PATCH').map((r) => r.path)).toEqual([
      `/repos/${OWNER}/${REPO}/issues/comments/${ask?.id}`
    ])
    expect(
      logs.lines.some((l) => l.startsWith('info: Asked for approval of shell git push origin main'))
    ).toBe(true)
  })

  it('counts maintainers and admins', async () => {
    answerAsks((ask) => [[`/approve ${idOf(ask)}`, 'max']])
    await expect(approvals().ask(request(), signal())).resolves.toMatchObject({
      verdict: 'approved',
      by: 'max'
    })
  })

  it('ignores an answer that names no request id, or a slightly different one', async () => {
    answerAsks((ask) => [
      ['/approve', 'ada'],
      ['/approve looks fine', 'ada'],
      [`/approve ${idOf(ask).slice(0, 5)}`, 'ada']
    ])
    const answer = await approvals().ask(request(), signal())
    expect(answer.verdict).toBe('timeout')
    expect(logs.lines.filter((l) => l.includes('names no request id'))).toHaveLength(3)
  })

  it('answers a writer’s bare /approve at once: a reaction and a reply naming the id, once per comment', async () => {
    const req = request({ id: 'a1b2c3' })
    let bare: FakeComment | undefined
    answerAsks(() => {
      bare = reply('/approve', 'wendy')
      return []
    })
    // long enough for several polls after the reply, on a loaded machine too
    const answer = await approvals({ timeoutMs: 1500 }).ask(req, signal())
    // Requiring the id stays: the bare /approve approved nothing.
    expect(answer.verdict).toBe('timeout')
    const reactions = api.requests.filter((r) => r.path.endsWith('/reactions'))
    expect(reactions).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: `/repos/${OWNER}/${REPO}/issues/comments/${bare?.id}/reactions`,
        status: 201,
        body: { content: 'confused' }
      })
    ])
    const [ask, , told, ...rest] = comments()
    expect(rest).toEqual([])
    expect(told?.user.login).toBe('github-actions[bot]')
    expect(told?.body).toContain('names no request id, so it was not counted')
    expect(told?.body).toContain('`/approve a1b2c3`')
    expect(told?.body).toContain(`Waiting for an answer: \`a1b2c3\``)
    expect(told?.body).toContain(`[the request](${ask?.html_url})`)
    // The reply is not an answer itself, and polling went on after it (once per comment).
    expect(parseAnswer(told?.body ?? '')).toBeUndefined()
    const replied = api.requests.findIndex(
      (r) => r.method === 'POST' && JSON.stringify(r.body ?? '').includes('names no request id')
    )
    expect(replied).toBeGreaterThan(0)
    const after = api.requests.slice(replied + 1)
    expect(after.filter((r) => listRequests().includes(r)).length).toBeGreaterThan(0)
  })

  it('names /deny <id> <reason> for a bare /deny, and tells nobody without write access', async () => {
    const req = request({ id: 'd4e5f6' })
    answerAsks(() => [
      ['/deny too risky', 'rita'],
      ['/approve', 'renovate[bot]'],
      ['/deny too risky', 'max']
    ])
    api.setPermission('renovate[bot]', 'admin')
    const answer = await approvals({ timeoutMs: 300 }).ask(req, signal())
    expect(answer.verdict).toBe('timeout')
    const told = comments().filter((c) => c.body.includes('names no request id'))
    expect(told).toHaveLength(1)
    expect(told[0]?.body).toContain('This `/deny` names no request id')
    expect(told[0]?.body).toContain('`/deny d4e5f6 <reason>`')
    const maxComment = comments().find((c) => c.user.login === 'max')
    expect(api.requests.filter((r) => r.path.endsWith('/reactions')).map((r) => r.path)).toEqual([
      `/repos/${OWNER}/${REPO}/issues/comments/${maxComment?.id}/reactions`
    ])
  })

  it('does not tell a comment twice, across asks or after an edit', async () => {
    const first = request({ id: 'aaaaaa' })
    const second = request({ id: 'bbbbbb' })
    let bare: FakeComment | undefined
    const stop = answerAsks((ask) => {
      if (idOf(ask) !== 'aaaaaa') return []
      bare = reply('/approve', 'ada')
      return []
    })
    const a = approvals({ timeoutMs: 150 })
    expect((await a.ask(first, signal())).verdict).toBe('timeout')
    stop()
    // Edited after the reply, still without an id.
    if (bare) {
      bare.body = '/approve please'
      bare.updated_at = new Date(Date.parse(bare.updated_at) + 60_000).toISOString()
    }
    expect((await a.ask(second, signal())).verdict).toBe('timeout')
    expect(comments().filter((c) => c.body.includes('names no request id'))).toHaveLength(1)
    expect(api.requests.filter((r) => r.path.endsWith('/reactions'))).toHaveLength(1)
  })

  it('still counts the answer with the id after a bare one was told', async () => {
    answerAsks((ask) => [
      ['/approve', 'ada'],
      [`/approve ${idOf(ask)}`, 'ada']
    ])
    const answer = await approvals().ask(request(), signal())
    expect(answer).toMatchObject({ verdict: 'approved', by: 'ada' })
    expect(comments().filter((c) => c.body.includes('names no request id'))).toHaveLength(1)
  })

  it('takes #id and id followed by punctuation as the id', async () => {
    answerAsks((ask) => [[`/approve #${idOf(ask)}, thanks`, 'ada']])
    await expect(approvals().ask(request(), signal())).resolves.toMatchObject({
      verdict: 'approved',
      reason: 'thanks'
    })
  })

  it('ignores readers, triagers and strangers until the timeout: denied', async () => {
    answerAsks((ask) => [
      [`/approve ${idOf(ask)}`, 'rita'],
      [`/approve ${idOf(ask)}`, 'tia'],
      [`/approve ${idOf(ask)}`, 'stranger']
    ])
    const started = Date.now()
    const answer = await approvals().ask(request(), signal())
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
    expect(answer).toEqual({
      verdict: 'timeout',
      at: anyString(),
      askUrl: anyString(),
      askedAt: anyString()
    })
    const ignored = logs.lines.filter((l) => l.startsWith('info: Ignored'))
    expect(ignored).toHaveLength(3)
    expect(ignored[0]).toContain('/approve by rita')
    expect(ignored[0]).toContain(
      'read permission on acme/widgets; write, maintain or admin is needed'
    )
    expect(ignored[1]).toContain('triage permission')
    expect(ignored[2]).toContain('stranger')
    expect(ignored[2]).toContain('none permission')
    expect(comments()[0]?.body).toMatch(/\n\*\*⌛ No answer within 600 ms:\*\* denied at .* UTC\.$/)
  })

  it('keeps the reason of a /deny', async () => {
    answerAsks((ask) => [[`/deny ${idOf(ask)} because X breaks @org/team builds`, 'ada']])
    const answer = await approvals().ask(request(), signal())
    expect(answer).toMatchObject({
      verdict: 'denied',
      by: 'ada',
      reason: 'because X breaks @org/team builds'
    })
    const body = comments()[0]?.body ?? ''
    expect(body).toContain('**❌ Denied** by `ada` at ')
    // The reason is shown, and pings nobody.
    expect(body).toContain(': because X breaks @\u200Dorg/team builds ([reply](')
    expect(body).toContain('Copilot was told it was refused, and why.')
  })

  it('ignores bots, even with write access, then takes a person’s answer', async () => {
    api.setPermission('renovate[bot]', 'admin')
    api.setPermission('helper', 'admin')
    answerAsks((ask) => [
      [`/approve ${idOf(ask)}`, 'renovate[bot]'],
      [`/approve ${idOf(ask)}`, { login: 'helper', type: 'Bot' }],
      [`/deny ${idOf(ask)} no`, 'wendy']
    ])
    const answer = await approvals().ask(request(), signal())
    expect(answer).toMatchObject({ verdict: 'denied', by: 'wendy', reason: 'no' })
    const ignored = logs.lines.filter((l) => l.startsWith('info: Ignored'))
    expect(ignored).toEqual([
      containing('/approve by renovate[bot]'),
      containing('/approve by helper')
    ])
    for (const line of ignored) expect(line).toContain('bots cannot answer')
    // No permission was looked up for them.
    expect(api.requests.filter((r) => r.path.endsWith('/permission')).map((r) => r.path)).toEqual([
      `/repos/${OWNER}/${REPO}/collaborators/wendy/permission`
    ])
  })

  it('ignores an answer naming another request', async () => {
    const req = request({ id: 'a1b2c3' })
    answerAsks(() => [
      ['/approve ffffff', 'ada'],
      ['/deny a1b2c3 wrong branch', 'wendy']
    ])
    const answer = await approvals().ask(req, signal())
    expect(answer).toMatchObject({ verdict: 'denied', by: 'wendy', reason: 'wrong branch' })
    expect(logs.lines).toContainEqual(containing('names request ffffff, not a1b2c3'))
  })

  it('ignores the action’s own comments', async () => {
    api.setPermission('octocat', 'admin')
    answerAsks((ask) => [[`/approve ${idOf(ask)}`, 'octocat']])
    const answer = await approvals({ client: fakeClient(api, 'user-token'), timeoutMs: 300 }).ask(
      request(),
      signal()
    )
    expect(answer.verdict).toBe('timeout')
    expect(comments()[0]?.user.login).toBe('octocat')
    expect(logs.lines).toContainEqual(containing("written by the action's own identity"))
  })

  it('ignores answers written before the ask', async () => {
    reply('/approve', 'ada')
    const answer = await approvals({ timeoutMs: 200 }).ask(request(), signal())
    expect(answer.verdict).toBe('timeout')
  })

  it('ignores a comment written before the ask, even when edited after it', async () => {
    const earlier = reply('will look', 'ada')
    api.onComment((comment) => {
      if (!isAsk(comment)) return
      earlier.body = '/approve'
      earlier.updated_at = '2030-01-01T00:00:00.000Z'
    })
    const answer = await approvals({ timeoutMs: 200 }).ask(request(), signal())
    expect(answer.verdict).toBe('timeout')
    // It was listed (updated since the ask), and still not taken.
    expect(listRequests().length).toBeGreaterThan(0)
  })

  it('reads every page of new comments', async () => {
    answerAsks((ask) => [
      ...Array.from({ length: 130 }, (_, i): [string, string] => [`chatter ${i}`, 'someone']),
      [`/approve ${idOf(ask)}`, 'wendy']
    ])
    await expect(approvals().ask(request(), signal())).resolves.toMatchObject({
      verdict: 'approved',
      by: 'wendy'
    })
    const pages = listRequests().map((r) => r.query)
    expect(pages).toContainEqual(expect.objectContaining({ page: '2', since: anyString() }))
  })

  it('takes the first valid answer', async () => {
    answerAsks((ask) => [
      ['lgtm', 'ada'],
      [`/deny ${idOf(ask)} first`, 'wendy'],
      [`/approve ${idOf(ask)} second`, 'ada']
    ])
    await expect(approvals().ask(request(), signal())).resolves.toMatchObject({
      verdict: 'denied',
      by: 'wendy',
      reason: 'first'
    })
  })

  it('counts a comment edited into an answer', async () => {
    api.onComment((comment) => {
      if (!isAsk(comment)) return
      const later = reply('will look', 'ada')
      setTimeout(() => {
        later.body = `/approve ${idOf(comment)} after all`
        later.updated_at = '2030-01-01T00:00:00.000Z'
      }, 100)
    })
    await expect(approvals().ask(request(), signal())).resolves.toMatchObject({
      verdict: 'approved',
      by: 'ada',
      reason: 'after all'
    })
  })

  it('serves asks one at a time, each with its own timeout', async () => {
    const order: string[] = []
    api.onComment((comment) => {
      if (!isAsk(comment)) return
      const id = idOf(comment)
      order.push(`ask ${id}`)
      // Each answer comes 500 ms after its ask; the timeout is 900 ms.
      setTimeout(() => {
        order.push(`answer ${id}`)
        reply(id === 'aaaaaa' ? '/approve aaaaaa' : '/deny bbbbbb later', 'wendy')
      }, 500)
    })
    const a = approvals({ timeoutMs: 900 })
    const first = a.ask(request({ id: 'aaaaaa' }), signal())
    const second = a.ask(request({ id: 'bbbbbb' }), signal())
    const [one, two] = await Promise.all([first, second])
    expect(one).toMatchObject({ verdict: 'approved', by: 'wendy' })
    // Asked at about 0 ms, answered at about 1000 ms: its timeout started when it was posted.
    expect(two).toMatchObject({ verdict: 'denied', by: 'wendy', reason: 'later' })
    expect(order).toEqual(['ask aaaaaa', 'answer aaaaaa', 'ask bbbbbb', 'answer bbbbbb'])
    const asks = comments().filter(isAsk)
    expect(asks.map(idOf)).toEqual(['aaaaaa', 'bbbbbb'])
    expect(asks[0]?.body).toContain('✅ Approved')
    expect(asks[1]?.body).toContain('❌ Denied')
  })

  it('keeps polling through API failures', async () => {
    // Two failing answers per poll (one retry): three polls fail.
    api.failNext({ status: 500, method: 'GET', path: /\/issues\/7\/comments$/ }, 6)
    answerAsks((ask) => [[`/approve ${idOf(ask)}`, 'ada']])
    await expect(approvals().ask(request(), signal())).resolves.toMatchObject({
      verdict: 'approved',
      by: 'ada'
    })
    const warnings = logs.lines.filter((l) => l.startsWith('warning:'))
    expect(warnings).toEqual([containing('Could not read the comments of acme/widgets#7')])
    expect(logs.lines).toContainEqual('info: Reading the comments of acme/widgets#7 works again')
  })

  it('does not let a later answer overtake one whose author could not be checked', async () => {
    api.failNext({ status: 500, path: /\/collaborators\/rita\/permission$/ }, 2)
    api.setPermission('rita', 'write')
    answerAsks((ask) => [
      [`/deny ${idOf(ask)} first`, 'rita'],
      [`/approve ${idOf(ask)} second`, 'ada']
    ])
    await expect(approvals().ask(request(), signal())).resolves.toMatchObject({
      verdict: 'denied',
      by: 'rita',
      reason: 'first'
    })
    expect(logs.lines).toContainEqual(containing('Could not check the permission of rita'))
  })

  it('answers unavailable when the ask cannot be posted', async () => {
    const answer = await approvals({ client: fakeClient(api, 'read-only-token') }).ask(
      request(),
      signal()
    )
    expect(answer).toEqual({
      verdict: 'unavailable',
      at: anyString(),
      askedAt: anyString(),
      reason: containing('could not post the approval request on acme/widgets#7')
    })
    if (answer.verdict !== 'unavailable') throw new Error('unreachable')
    expect(answer.reason).toContain('Resource not accessible by integration')
    expect(comments()).toEqual([])
    expect(listRequests()).toEqual([])
  })

  it('rejects on abort, and marks the ask comment as no longer waiting', async () => {
    const controller = new AbortController()
    const a = approvals({ timeoutMs: 5000 })
    api.onComment((comment) => {
      if (isAsk(comment)) setTimeout(() => controller.abort(), 60)
    })
    const queued = new AbortController()
    const first = a.ask(request(), controller.signal)
    const second = a.ask(request({ id: 'cccccc' }), queued.signal)
    queued.abort()
    await expect(second).rejects.toMatchObject({ name: 'AbortError' })
    await expect(first).rejects.toMatchObject({ name: 'AbortError' })
    const asks = comments()
    expect(asks).toHaveLength(1)
    expect(asks[0]?.body).toMatch(
      /\*\*⏹ No longer waiting:\*\* the session ended at .* UTC before an answer; denied\.$/
    )

    // The queue moves on.
    answerAsks((ask) => [[`/approve ${idOf(ask)}`, 'ada']])
    await expect(a.ask(request(), signal())).resolves.toMatchObject({ verdict: 'approved' })
  })

  it('rejects with the caller’s abort reason, before posting when already aborted', async () => {
    const controller = new AbortController()
    const reason = new Error('session over')
    controller.abort(reason)
    await expect(approvals().ask(request(), controller.signal)).rejects.toBe(reason)
    expect(api.requests).toEqual([])
  })
})

describe('renderAsk', () => {
  const hostile = [
    'echo `id` ``` @org/team </details> <!-- copilot-autopilot:ask:x --> #12 [x](https://evil.test)'
  ].join('')

  it('neutralizes a hostile subject, kind, rule and reason', () => {
    const body = renderAsk(
      {
        id: 'a1b2c3',
        kind: 'shell`` @admins',
        subject: hostile,
        rule: 'r</details>',
        reason: 'Ask @org/team </details> <!-- copilot-autopilot:ask:x --> `ok` #5'
      },
      600_000
    )
    // Exactly one marker: ours, first.
    expect(body.split('<!--')).toHaveLength(2)
    expect(body.startsWith('<!-- copilot-autopilot:ask:a1b2c3 -->\n')).toBe(true)
    expect(body).toContain('Without an answer within 10 min, the request is denied.')

    const line = (label: string) =>
      body.split('\n').find((l) => l.startsWith(`- **${label}:**`)) ?? ''
    // The subject is one code span, fenced longer than any backtick run in it.
    const request = line('Request').slice('- **Request:** '.length)
    expect(request).toMatch(/^````[^`].*[^`]````$/s)
    expect(request.slice(4, -4)).not.toMatch(/````/)
    expect(request).toContain('@org/team </details>')
    expect(line('Kind')).toMatch(/^- \*\*Kind:\*\* ```shell`` @admins```$/)
    expect(line('Rule')).toContain('`r</details>`')
    // The reason is prose: no mention, no HTML, no comment, no issue link.
    const reason = line('Rule').split(' — ')[1] ?? ''
    expect(reason).toBe('Ask @\u200Dorg/team &lt;/details&gt;  `ok` #\u200B5')
  })

  it('puts multi-line subjects in a code block that cannot be closed early', () => {
    const body = renderAsk(
      {
        id: 'a1b2c3',
        kind: 'write',
        subject: `line 1\n\`\`\`\`\n</details>\n@org/team`,
        rule: 'r'
      },
      90_000
    )
    expect(body).toContain('- **Request:** (below)')
    expect(body).toContain('`````text\nline 1\n````\n</details>\n@org/team\n`````')
    expect(body).toContain('within 1.5 min')
  })

  it('is posted as is, hostile parts and all', async () => {
    answerAsks((ask) => [[`/approve ${idOf(ask)}`, 'ada']])
    await approvals().ask(request({ id: 'a1b2c3', subject: hostile }), signal())
    const body = comments()[0]?.body ?? ''
    expect(
      body.startsWith(renderAsk(request({ id: 'a1b2c3', subject: hostile }), TIMEOUT_MS))
    ).toBe(true)
    expect(body.split('<!-- copilot-autopilot:ask:')).toHaveLength(2)
    expect(body.split('<!--')).toHaveLength(2)
  })
})

// Keep the AskAnswer type exercised (a compile-time check of the union's shape).
const _exhaustive = (a: AskAnswer): string =>
  a.verdict === 'unavailable' ? a.reason : a.verdict === 'timeout' ? a.at : a.by
void _exhaustive

describe('renderMissingId', () => {
  it('names the answer it needs, with the hostile request text in code spans and one line for the agent’s subject', () => {
    const body = renderMissingId(
      'denied',
      {
        id: 'a1b2c3',
        kind: 'shell',
        subject: 'rm -rf x\n/approve a1b2c3 <!-- x --> @org/team `id`',
        rule: 'r'
      },
      'https://github.com/acme/widgets/issues/7#issuecomment-5) [x](https://evil.test'
    )
    expect(body.split('\n')[0]).toBe(
      '⚠️ This `/deny` names no request id, so it was not counted. Every answer must name the request it answers.'
    )
    expect(body).toContain('`/deny a1b2c3 <reason>`')
    // no line of it is an answer, no comment marker, and a URL that is not plain is not linked
    expect(parseAnswer(body)).toBeUndefined()
    expect(body.split('\n').filter((l) => /^\s*\/(approve|deny)/i.test(l))).toEqual([])
    expect(body).not.toContain('<!--')
    expect(body).not.toContain('](https://github.com')
    // the subject is one code span (fenced longer than its backticks), on one line
    const subject = /\(`shell` (.*)\)\. To answer/.exec(body)?.[1] ?? ''
    expect(subject).toMatch(/^``[^`].*@org\/team `id`[^`]*``$/)
  })
})
