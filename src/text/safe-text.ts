/**
 * Pure text helpers for everything the action stores or prints: secret redaction, making
 * untrusted text safe to embed in GitHub markdown, code blocks and truncation.
 *
 * "Untrusted" is anything that came from the model, a tool, the repository or the CLI. Such text
 * must never ping anyone, link or cross-reference issues, inject raw HTML, forge the hidden
 * marker comment the action uses to find its sticky comment, or break out of the block it is in.
 */
import { MIN_SECRET_LENGTH } from './url-credentials.js'

/** What a redacted secret is replaced with. */
export const REDACTED = '***'

/**
 * Encoded forms shorter than this are not redacted: a few characters of base64 could be anywhere.
 */
const MIN_ENCODED_LENGTH = 6

/**
 * What to look for to redact a list of secrets, longest first (so a secret containing another is
 * replaced whole): each secret as it is, and the forms it takes when something encodes it.
 * Multi-line secrets are also redacted line by line, as GitHub Actions masks them. The forms:
 * - base64, standard and URL-safe, at each of the 3 byte offsets a secret can start at inside a
 *   longer blob (`Authorization: Basic …`, a docker `auth`, a JWT, a data: URL): the characters
 *   that encode the secret's bytes alone, without the ones its neighbours share;
 * - percent-encoding (`encodeURIComponent`, `encodeURI`, upper and lower case hex, `+` for a
 *   space), as a URL, a query string or a form body carries it.
 *
 * Normalize once and pass the list to `redactNormalized` / `redactDeepNormalized` on hot paths;
 * never normalize a normalized list again (the encoded forms would be encoded once more).
 */
export function normalizeSecrets(secrets: readonly string[]): string[] {
  const plain = new Set<string>()
  for (const secret of secrets) {
    if (typeof secret !== 'string') continue
    if (secret.length >= MIN_SECRET_LENGTH) plain.add(secret)
    if (secret.includes('\n')) {
      for (const line of secret.split(/\r?\n/)) {
        const trimmed = line.trim()
        if (trimmed.length >= MIN_SECRET_LENGTH) plain.add(trimmed)
      }
    }
  }
  const out = new Set(plain)
  for (const secret of plain) {
    for (const form of encodedForms(secret)) if (form.length >= MIN_ENCODED_LENGTH) out.add(form)
  }
  return [...out].sort((a, b) => b.length - a.length)
}

/** The base64 and percent-encoded forms of one secret (see normalizeSecrets). */
export function encodedForms(secret: string): string[] {
  const forms: string[] = []
  const bytes = Buffer.from(secret, 'utf8')
  for (let offset = 0; offset < 3; offset++) {
    // Behind `offset` bytes, the secret's first whole character is the ceil(offset·4/3)th; the
    // last one that holds its bits only ends at floor((offset + n)·4/3).
    const base64 = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64')
    const form = base64.slice(
      Math.ceil((offset * 4) / 3),
      Math.floor(((offset + bytes.length) * 4) / 3)
    )
    forms.push(form, form.replace(/\+/g, '-').replace(/\//g, '_'))
  }
  for (const encode of [encodeURIComponent, encodeURI]) {
    let encoded: string
    try {
      encoded = encode(secret)
    } catch {
      continue // a lone surrogate: no URL can carry it
    }
    if (encoded === secret) continue
    forms.push(
      encoded,
      encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())
    )
    if (encoded.includes('%20')) forms.push(encoded.replace(/%20/g, '+'))
  }
  return forms.filter((form) => form !== secret)
}

/** Replace every occurrence of every secret (≥ 4 characters) with `***`, longest first. */
export function redact(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text.length < MIN_SECRET_LENGTH) return text
  return redactNormalized(text, normalizeSecrets(secrets))
}

export interface RedactDeepOptions {
  /** Strings longer than this are cut (with a note of how much). Default: no limit. */
  maxString?: number
  /** Arrays longer than this keep their first items only. Default: no limit. */
  maxArray?: number
  /** Objects nested deeper than this are replaced by a placeholder string. Default: 32. */
  maxDepth?: number
}

/**
 * A copy of a JSON-like value with every string (object keys included) redacted. Non-JSON
 * values (functions, symbols) are dropped; cycles are cut.
 */
export function redactDeep<T>(value: T, secrets: readonly string[], options?: RedactDeepOptions): T
export function redactDeep(
  value: unknown,
  secrets: readonly string[],
  options: RedactDeepOptions = {}
): unknown {
  return redactDeepNormalized(value, normalizeSecrets(secrets), options)
}

/** `redactDeep` for a list already passed through `normalizeSecrets` (hot paths). */
export function redactDeepNormalized<T>(
  value: T,
  normalized: readonly string[],
  options?: RedactDeepOptions
): T
export function redactDeepNormalized(
  value: unknown,
  normalized: readonly string[],
  options: RedactDeepOptions = {}
): unknown {
  const maxString = options.maxString ?? Infinity
  const maxArray = options.maxArray ?? Infinity
  const maxDepth = options.maxDepth ?? 32
  const seen = new WeakSet<object>()
  const text = (s: string): string => {
    const r = redactNormalized(s, normalized)
    return r.length > maxString ? truncate(r, maxString) : r
  }
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return text(v)
    if (v === null || typeof v !== 'object') {
      return typeof v === 'function' || typeof v === 'symbol' ? undefined : v
    }
    if (seen.has(v)) return '[circular]'
    if (depth >= maxDepth) return '[nested too deep]'
    seen.add(v)
    try {
      if (Array.isArray(v)) {
        const items = v.slice(0, maxArray).map((item: unknown) => walk(item, depth + 1))
        if (v.length > maxArray) items.push(`[${v.length - maxArray} more items]`)
        return items
      }
      // Entries, then fromEntries: a `__proto__` key stays a plain own key.
      const entries: [string, unknown][] = []
      for (const [key, item] of Object.entries(v)) {
        const mapped = walk(item, depth + 1)
        if (mapped !== undefined) entries.push([text(key), mapped])
      }
      return Object.fromEntries(entries)
    } finally {
      seen.delete(v)
    }
  }
  return walk(value, 0)
}

/** `redact` for a list already passed through `normalizeSecrets` (hot paths). */
export function redactNormalized(text: string, normalized: readonly string[]): string {
  if (normalized.length === 0 || text.length < MIN_SECRET_LENGTH) return text
  let out = text
  for (const secret of normalized) {
    // A secret longer than the text cannot be in it: a line of output skips the long ones (the
    // JWTs and their encoded forms) without a search.
    if (secret.length > out.length) continue
    if (out.includes(secret)) out = out.split(secret).join(REDACTED)
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Markdown safety

const ZWSP = '\u200B'
const ZWJ = '\u200D'

/**
 * C0/C1 control characters (except tab and newline), and the bidirectional overrides and
 * isolates that can make text render differently from what it says ("Trojan Source").
 */
const UNSAFE_CHARS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g

/** Drop control and bidi-override characters; normalize CRLF. Safe inside code blocks too. */
export function stripUnsafeChars(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(UNSAFE_CHARS, '')
}

/** Remove HTML comments, including an unterminated one that runs to the end of the text. */
export function stripHtmlComments(text: string): string {
  return text.replace(/<!--[\s\S]*?(?:--!?>|$)/g, '')
}

/**
 * Make untrusted markdown safe to place in GitHub markdown (a comment or job summary), keeping it
 * readable and keeping its formatting (emphasis, lists, code). Outside code:
 * - HTML comments are removed entirely, so the text cannot forge a hidden marker;
 * - character references (`&#64;`, `&commat;`) are escaped: none can spell a mention or a control;
 * - `<` and `>` are escaped, so no raw HTML (`</details>`, `<img>`, `<script>`) gets through;
 * - `@user` and `@org/team` mentions get a zero-width joiner after the `@`: nobody is pinged;
 * - `#123`, `owner/repo#123`, `GH-123` and GitHub issue / pull request / discussion URLs get a
 *   zero-width space, so they read the same but neither link nor cross-reference anything;
 * - `](` and `]:` are escaped: no inline link, image or link definition (whose destination or
 *   title could swallow a backtick and shift where code spans start);
 * - a backtick that does not open a code span is escaped, so none can pair with another later.
 *
 * Code stays literal: inside a code span (one line, as GitHub will see it) or a fenced code block
 * nothing links, pings or renders as HTML, so `a < b` and `@user` are left as they are. Fenced
 * blocks are written again at column 0 with a fence longer than any backtick run inside and are
 * always closed, so an unterminated fence cannot swallow what follows. Everywhere, control and
 * bidi-override characters are dropped and `<!--` is broken.
 */
export function neutralizeMarkdown(text: string): string {
  const lines = stripUnsafeChars(text).split('\n')
  const out: string[] = []
  let prose: string[] = []
  const flush = (): void => {
    if (prose.length > 0) out.push(neutralizeLines(prose))
    prose = []
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string
    const open = FENCE_OPEN.exec(line)
    if (open === null || (open[2]?.startsWith('`') && open[3]?.includes('`'))) {
      prose.push(line)
      continue
    }
    flush()
    const indent = (open[1] as string).length
    const marker = open[2] as string
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length; j++) {
      const close = FENCE_CLOSE.exec(lines[j] as string)
      const run = close?.[1]
      if (run !== undefined && run[0] === marker[0] && run.length >= marker.length) break
      body.push(dedent(lines[j] as string, indent))
    }
    out.push(codeBlock(body.join('\n'), (open[3] ?? '').trim().split(/\s/)[0] ?? ''))
    i = j // the closing fence (or the end) is consumed
  }
  flush()
  return out.join('\n')
}

/** An opening code fence: up to 3 spaces, 3+ backticks or tildes, an info string. */
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/
/** A closing code fence (same character, at least as long as the opener: checked by the caller). */
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/

/** Remove up to `n` leading spaces, as CommonMark does for the lines of an indented fence. */
function dedent(line: string, n: number): string {
  let k = 0
  while (k < n && line[k] === ' ') k++
  return line.slice(k)
}

/** A piece of untrusted markdown outside fenced code: prose, or a code span to keep. */
interface Segment {
  code: boolean
  text: string
}

/**
 * Lines of untrusted markdown outside fenced code: code spans kept literal, HTML comments removed
 * (also across lines and code spans), the rest neutralized.
 */
function neutralizeLines(lines: string[]): string {
  const segments: Segment[] = []
  lines.forEach((line, n) => {
    if (n > 0) segments.push({ code: false, text: '\n' })
    segments.push(...lineSegments(line))
  })
  const kept = stripCommentsAcross(segments)
  let out = ''
  kept.forEach((segment, n) => {
    if (segment.code) {
      out += segment.text
      return
    }
    let text = neutralizeProse(segment.text)
    // A backslash left last before a code span would escape its opening backtick.
    if (kept[n + 1]?.code === true && /(?<!\\)(?:\\\\)*\\$/.test(text)) text += '\\'
    out += text
  })
  return out
}

/**
 * One line, split into prose and code spans as GitHub pairs them: a run of N backticks with the
 * next run of exactly N on the line. A run is only taken as a code span when GitHub is sure to
 * see one: not escaped, not glued to a URL (an autolink would swallow it), and without `|` inside
 * (a table row would be split there first). Every other backtick is escaped in the prose, so it
 * cannot pair with another one later, on this line or the next.
 */
function lineSegments(line: string): Segment[] {
  const segments: Segment[] = []
  let prose = ''
  let i = 0
  while (i < line.length) {
    const ch = line[i] as string
    if (ch === '\\' && i + 1 < line.length && ASCII_PUNCT.has(line[i + 1] as string)) {
      const next = line[i + 1] as string
      // `\<` shows `<`: keep the `<` alone, escaped as an entity later (not `\&lt;`).
      prose += next === '<' || next === '>' ? next : line.slice(i, i + 2)
      i += 2
      continue
    }
    if (ch !== '`') {
      prose += ch
      i++
      continue
    }
    const n = runLength(line, i, '`')
    const close = findRun(line, i + n, n)
    const content = close < 0 ? '' : line.slice(i + n, close)
    if (close >= 0 && !content.includes('|') && !gluedToLink(line, i)) {
      if (prose !== '') segments.push({ code: false, text: prose })
      prose = ''
      const fence = '`'.repeat(n)
      segments.push({ code: true, text: `${fence}${breakCommentOpeners(content)}${fence}` })
      i = close + n
    } else {
      prose += '\\`'.repeat(n)
      i += n
    }
  }
  if (prose !== '') segments.push({ code: false, text: prose })
  return segments
}

/**
 * HTML comments in the prose removed whole, code spans inside them too; one left open runs to
 * the end. (A comment opener inside a code span is not one, and stays, broken.)
 */
function stripCommentsAcross(segments: Segment[]): Segment[] {
  const out: Segment[] = []
  let inComment = false
  for (const segment of segments) {
    if (segment.code) {
      if (!inComment) out.push({ ...segment })
      continue
    }
    let text = segment.text
    let kept = ''
    while (text !== '') {
      if (inComment) {
        const end = /--!?>/.exec(text)
        if (end === null) break
        text = text.slice(end.index + end[0].length)
        inComment = false
      } else {
        const start = text.indexOf('<!--')
        if (start < 0) {
          kept += text
          break
        }
        kept += text.slice(0, start)
        text = text.slice(start + 4)
        inComment = true
      }
    }
    if (kept === '') continue
    // Prose either side of what was cut is one text again (`@` + `user` must be seen whole).
    const last = out[out.length - 1]
    if (last !== undefined && !last.code) last.text += kept
    else out.push({ code: false, text: kept })
  }
  return out
}

/** What a backslash escapes in CommonMark. */
const ASCII_PUNCT = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')

function runLength(text: string, start: number, ch: string): number {
  let n = 0
  while (text[start + n] === ch) n++
  return n
}

/** Where the next run of exactly `n` backticks starts at or after `from`, or -1. */
function findRun(text: string, from: number, n: number): number {
  for (let i = text.indexOf('`', from); i >= 0;) {
    const len = runLength(text, i, '`')
    if (len === n) return i
    i = text.indexOf('`', i + len)
  }
  return -1
}

/** The word before position `i` could be an autolink (or math) that takes the backtick in. */
function gluedToLink(line: string, i: number): boolean {
  const word = /\S*$/.exec(line.slice(0, i))?.[0] ?? ''
  return /www\.|:|\$/i.test(word)
}

/**
 * `neutralizeMarkdown` for text with no code in it (every backtick is taken as text by the
 * caller, or escaped already): the prose rules only.
 */
export function neutralizeProse(text: string): string {
  let out = stripHtmlComments(stripUnsafeChars(text))
  // No character reference: `&#64;user` and `&commat;user` render as a mention that notifies,
  // `&#x202E;` as a bidi override. Shown as written instead.
  out = out.replace(/&(?=#[0-9]{1,8};|#[xX][0-9a-fA-F]{1,8};|[A-Za-z][A-Za-z0-9]{1,31};)/g, '&amp;')
  out = out.replace(/</g, '&lt;').replace(/>/g, '&gt;')
  // No link, image or link definition: `](` and `]:` with an unescaped `]`.
  out = out.replace(/(?<!\\)((?:\\\\)*)\](?=[(:])/g, '$1\\]')
  // Issue / pull request / discussion URLs on github.com: break the autolink (scheme, domain).
  out = out.replace(
    /\b(?:(https?):\/\/)?((?:www\.)?github)\.com(?=\/[\w.-]+\/[\w.-]+\/(?:issues|pulls?|discussions)\b)/gi,
    (_m, scheme: string | undefined, host: string) =>
      `${scheme === undefined ? '' : `${scheme}:${ZWSP}//`}${host}${ZWSP}.com`
  )
  // @mentions and @org/team (not e-mail addresses: a mention never follows a letter or digit).
  out = out.replace(/(^|[^A-Za-z0-9])@(?=[A-Za-z0-9])/g, `$1@${ZWJ}`)
  // #123, owner/repo#123, GH-123.
  out = out.replace(/#(?=\d)/g, `#${ZWSP}`)
  out = out.replace(/\b(GH)-(?=\d)/gi, `$1-${ZWSP}`)
  return out
}

/**
 * Untrusted markdown on one line (a policy message, a note): whitespace collapsed, cut to `max`,
 * code spans kept literal and the rest neutralized as by `neutralizeMarkdown`. Nothing in it can
 * start a block: put it after some text of ours on the line. In a table cell, pass it through
 * `tableCell`.
 */
export function inlineMarkdown(text: string, max = 200): string {
  return neutralizeLines([clip(stripUnsafeChars(text).replace(/\s+/g, ' ').trim(), max)])
}

/**
 * Untrusted text on one line (a list item, a table cell): neutralized, newlines and runs of
 * whitespace collapsed, backticks escaped (no code span or fence can start in it), cut to `max`
 * characters. In a table cell, pass it through `tableCell`.
 */
export function inlineText(text: string, max = 200): string {
  const oneLine = stripUnsafeChars(text).replace(/\s+/g, ' ').trim()
  // Backslashes too: `\`` must not become an escaped backslash before a live backtick.
  return neutralizeProse(clip(oneLine, max).replace(/[\\`]/g, '\\$&'))
}

/**
 * Untrusted text as an inline code span on one line, with a backtick fence longer than any run
 * inside. Inside a code span nothing links, pings or renders as HTML. In a table cell, pass the
 * result through `tableCell`.
 */
export function codeSpan(text: string, max = 200): string {
  const oneLine = clip(breakCommentOpeners(stripUnsafeChars(text)).replace(/\s+/g, ' ').trim(), max)
  if (oneLine === '') return '` `'
  const fence = '`'.repeat(longestRun(oneLine, '`') + 1)
  const pad = oneLine.startsWith('`') || oneLine.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${oneLine}${pad}${fence}`
}

/** Escape table pipes (GFM honours `\|` even inside a code span in a table cell). */
export function tableCell(markdown: string): string {
  return markdown.replace(/\|/g, '\\|')
}

/**
 * `<!--` inside code shows as text but is still in the raw body, where a hidden marker is looked
 * for: a zero-width space keeps it looking the same without being one.
 */
function breakCommentOpeners(text: string): string {
  return text.replace(/<!--/g, '<\u200B!--')
}

/**
 * A fenced code block whose fence is longer than any backtick run in the text, so the text can
 * never close it early. `lang` is an info string chosen by us (letters, digits, `-` only).
 */
export function codeBlock(text: string, lang = ''): string {
  const body = breakCommentOpeners(stripUnsafeChars(text)).replace(/\n+$/, '')
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1))
  const info = lang.replace(/[^A-Za-z0-9_+-]/g, '')
  return `${fence}${info}\n${body}\n${fence}`
}

function longestRun(text: string, ch: string): number {
  let best = 0
  let run = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ch) {
      run++
      if (run > best) best = run
    } else {
      run = 0
    }
  }
  return best
}

// ---------------------------------------------------------------------------------------------
// Truncation

/** Cut to at most `max` characters with an ellipsis, never splitting a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text
  if (max <= 1) return max === 1 ? '…' : ''
  return `${safeSlice(text, 0, max - 1)}…`
}

function safeSlice(text: string, start: number, end: number): string {
  let s = start
  let e = end
  // Do not start on a low surrogate or end right after a high surrogate.
  if (s > 0 && isLowSurrogate(text.charCodeAt(s))) s++
  if (e < text.length && e > 0 && isHighSurrogate(text.charCodeAt(e - 1))) e--
  return text.slice(s, Math.max(s, e))
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

export interface TruncateOptions {
  /** Keep the beginning (default) or the end (an output tail). */
  keep?: 'head' | 'tail'
}

/**
 * Cut `text` to at most `max` characters, at a line boundary when one is reasonably close, and
 * say how much was cut (`… 1,234 more characters (56 lines) cut`). The result, note included,
 * is never longer than `max`.
 */
export function truncate(text: string, max: number, options: TruncateOptions = {}): string {
  if (text.length <= max) return text
  const keepTail = options.keep === 'tail'
  // The note's length depends on the numbers in it; reserve generously, then fill.
  const reserve = 64
  if (max <= reserve)
    return keepTail ? safeSlice(text, text.length - max, text.length) : clip(text, max)
  const budget = max - reserve
  let kept: string
  if (keepTail) {
    kept = safeSlice(text, text.length - budget, text.length)
    const nl = kept.indexOf('\n')
    if (nl >= 0 && nl < budget / 2) kept = kept.slice(nl + 1)
  } else {
    kept = safeSlice(text, 0, budget)
    const nl = kept.lastIndexOf('\n')
    if (nl >= budget / 2) kept = kept.slice(0, nl)
  }
  const cut = keepTail ? text.slice(0, text.length - kept.length) : text.slice(kept.length)
  const lines = countLines(cut)
  const note = `… ${formatInt(cut.length)} characters${lines > 1 ? ` (${formatInt(lines)} lines)` : ''} cut`
  return keepTail ? `${note}\n${kept}` : `${kept}\n${note}`
}

function countLines(text: string): number {
  let n = 1
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++
  return n
}

/** `1234567` → `1,234,567`. */
export function formatInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n)
}

/**
 * The end of a command's output: its last `lines` lines, then as many of them as fit in `max`
 * characters (whole lines, unless the last one alone is too long), led by a note of what was cut.
 * The result is never longer than `max`.
 */
export function tailLines(text: string, lines: number, max: number): string {
  const all = stripUnsafeChars(text).replace(/\n+$/, '').split('\n')
  let start = Math.max(0, all.length - Math.max(0, lines))
  const noteFor = (cut: number): string =>
    cut > 0 ? `… ${formatInt(cut)} earlier ${cut === 1 ? 'line' : 'lines'} cut\n` : ''
  const size = (from: number): number =>
    noteFor(from).length + all.slice(from).reduce((n, line) => n + line.length + 1, 0) - 1
  while (start < all.length - 1 && size(start) > max) start++
  const body = all.slice(start).join('\n')
  const note = noteFor(start)
  if (note.length + body.length <= max) return note + body
  // One line longer than the room: keep its end.
  const room = max - note.length - 1
  if (room <= 0) return clip(note.trimEnd(), max)
  return `${note}…${safeSlice(body, body.length - room + 1, body.length)}`
}

// ---------------------------------------------------------------------------------------------
// Durations

/** `850 ms`, `12.3 s`, `3 m 12 s`, `1 h 02 m`: how long something took. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`
  const totalSeconds = Math.floor(ms / 1000)
  const hours = Math.floor(totalSeconds / 3600)
  const minutes = Math.floor((totalSeconds % 3600) / 60)
  const seconds = totalSeconds % 60
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} m`
  return `${minutes} m ${String(seconds).padStart(2, '0')} s`
}

/**
 * A limit as people state it (a timeout, an idle time): `500 ms`, `30 s`, `1.5 min`, `2 min`,
 * `1 min 40 s`. Never rounded to a figure it is not: 30 seconds is not "1 min".
 */
export function formatMinutes(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—'
  if (ms < 1000) return `${Math.round(ms)} ms`
  const tenths = Math.round(ms / 100)
  if (tenths < 600) return `${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)} s`
  const seconds = Math.round(ms / 1000)
  if (seconds % 60 === 0) return `${formatInt(seconds / 60)} min`
  if (seconds % 6 === 0) return `${(seconds / 60).toFixed(1)} min`
  return `${formatInt(Math.floor(seconds / 60))} min ${seconds % 60} s`
}
