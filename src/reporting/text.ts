/**
 * Pure text helpers for everything the action stores or prints: secret redaction, making
 * untrusted text safe to embed in GitHub markdown, code blocks and truncation.
 *
 * "Untrusted" is anything that came from the model, a tool, the repository or the CLI. Such text
 * must never ping anyone, link or cross-reference issues, inject raw HTML, forge the hidden
 * marker comment the action uses to find its sticky comment, or break out of the block it is in.
 */

/** What a redacted secret is replaced with. */
export const REDACTED = '***'

/** Secrets shorter than this are ignored: redacting `a` or `the` would destroy the text. */
export const MIN_SECRET_LENGTH = 4

/**
 * The secret values worth redacting, longest first (so a secret containing another is replaced
 * whole). Multi-line secrets are also redacted line by line, as GitHub Actions masks them.
 */
export function normalizeSecrets(secrets: readonly string[]): string[] {
  const out = new Set<string>()
  for (const secret of secrets) {
    if (typeof secret !== 'string') continue
    if (secret.length >= MIN_SECRET_LENGTH) out.add(secret)
    if (secret.includes('\n')) {
      for (const line of secret.split(/\r?\n/)) {
        const trimmed = line.trim()
        if (trimmed.length >= MIN_SECRET_LENGTH) out.add(trimmed)
      }
    }
  }
  return [...out].sort((a, b) => b.length - a.length)
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
  const normalized = normalizeSecrets(secrets)
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
 * Make untrusted text safe to place in GitHub markdown (a comment or job summary), keeping it
 * readable and keeping its markdown formatting (emphasis, lists, inline code):
 * - HTML comments are removed entirely, so the text cannot forge a hidden marker;
 * - `<` and `>` are escaped, so no raw HTML (`</details>`, `<img>`, `<script>`) gets through;
 * - `@user` and `@org/team` mentions get a zero-width joiner after the `@`: nobody is pinged;
 * - `#123`, `owner/repo#123`, `GH-123` and GitHub issue / pull request / discussion URLs get a
 *   zero-width space, so they read the same but neither link nor cross-reference anything;
 * - control characters and bidi overrides are dropped.
 */
export function neutralizeMarkdown(text: string): string {
  let out = stripHtmlComments(stripUnsafeChars(text))
  out = out.replace(/</g, '&lt;').replace(/>/g, '&gt;')
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
 * Untrusted text on one line (a list item, a table cell): neutralized, newlines and runs of
 * whitespace collapsed, backticks escaped (no code span or fence can start in it), cut to `max`
 * characters. In a table cell, pass it through `tableCell`.
 */
export function inlineText(text: string, max = 200): string {
  const oneLine = stripUnsafeChars(text).replace(/\s+/g, ' ').trim()
  return neutralizeMarkdown(clip(oneLine, max)).replace(/`/g, '\\`')
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
