/**
 * Credentials a workflow puts in a URL: the user and password, path segments (model gateways
 * take a key as a segment: `https://gw.example.com/v1/KEY/chat`), query values (`?key=…`,
 * `?sig=…`) and the fragment. `urlSecrets` lists them, to register as the run's secrets;
 * `redactUrl` is the URL to show: scheme, host, port and the path's shape, every part that may be
 * a credential `***`.
 *
 * What is kept of a path is what reads as a name: words, numbers, versions and dates (`v1`,
 * `openai`, `chat`, `2024-02-15-preview`, `gpt-4o-mini`); anything else (`sk-…`, a hex or base64
 * key) is `***`, and is a secret. A query value or a password is always `***` in what is shown,
 * and a secret unless it reads as a name (`api-version=2024-02-15`): registering `true` or `1`
 * would garble every log line. Pure; no dependencies (the entry chunk imports it).
 */

/** What a hidden part of a URL shows as. */
const HIDDEN = '***'

/**
 * Secrets shorter than this are neither registered nor redacted (the redactor, safe-text.ts,
 * ignores them too): redacting `a` or `the` would destroy the text.
 */
export const MIN_SECRET_LENGTH = 4

/** One piece of a name, between `-`, `_`, `.` or `~`. */
function isNamePiece(piece: string): boolean {
  if (piece === '') return true
  if (/^\d{1,8}$/.test(piece)) return true // 1, 443, 20241022
  if (/^v\d{1,3}(?:[a-z]{1,8}\d{0,3})?$/i.test(piece)) return true // v1, v1beta, v2alpha1
  if (/^[a-z0-9]{1,3}$/i.test(piece)) return true // 4o, gpt, 3p5
  // a word: one case, or capitalized; never a mixed-case run (which is how keys look)
  return /^(?:[a-z]{1,16}|[A-Z][a-z]{1,15}|[A-Z]{1,16})$/.test(piece)
}

/** A path segment or value that reads as a name, not as a credential. */
export function readsAsName(value: string): boolean {
  return value.length <= 64 && value.split(/[-_.~]/).every(isNamePiece)
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '))
  } catch {
    return part
  }
}

/** A part as written and as decoded, when long enough to register. */
function forms(part: string): string[] {
  const values = new Set([part, decoded(part)])
  return [...values].filter((v) => v.length >= MIN_SECRET_LENGTH)
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * The credentials in a URL: user and password, path segments that do not read as names, query
 * values and a fragment that do not. A string that is not a URL: none (the caller decides).
 */
export function urlSecrets(url: string): string[] {
  const parsed = parse(url)
  if (parsed === undefined) return []
  const out = new Set<string>()
  const add = (part: string, always: boolean): void => {
    if (part === '' || (!always && readsAsName(decoded(part)))) return
    for (const form of forms(part)) out.add(form)
  }
  add(parsed.password, true)
  add(parsed.username, parsed.password === '')
  for (const segment of parsed.pathname.split('/')) add(segment, false)
  for (const pair of parsed.search.replace(/^\?/, '').split('&')) {
    const eq = pair.indexOf('=')
    // `?TOKEN` alone is a value too
    add(eq < 0 ? pair : pair.slice(eq + 1), false)
  }
  add(parsed.hash.replace(/^#/, ''), false)
  return [...out]
}

/**
 * The URL to show: scheme, host and port, the path's name segments (the others `***`), query
 * names with their values `***`, no user, password or fragment. Not a URL: a placeholder that
 * quotes nothing of it.
 */
export function redactUrl(url: string): string {
  const parsed = parse(url)
  if (parsed === undefined) return '(not a URL)'
  const user = parsed.username !== '' || parsed.password !== '' ? `${HIDDEN}@` : ''
  const path = parsed.pathname
    .split('/')
    .map((segment) => (segment === '' || readsAsName(decoded(segment)) ? segment : HIDDEN))
    .join('/')
  const query = parsed.search
    .replace(/^\?/, '')
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=')
      if (eq < 0) return HIDDEN
      const name = pair.slice(0, eq)
      return `${readsAsName(decoded(name)) ? name : HIDDEN}=${HIDDEN}`
    })
    .join('&')
  return `${parsed.protocol}//${user}${parsed.host}${path}${query === '' ? '' : `?${query}`}${parsed.hash === '' ? '' : `#${HIDDEN}`}`
}

/**
 * The runner's own credentials in the step's environment: the runtime token (artifacts, cache),
 * the OIDC request token, and the signature of the results service URL when it has one. The CLI
 * never sees them (cli/process.ts strips ACTIONS_*); registered so that nothing the action writes
 * can carry one, whatever put it in a file the action reads.
 */
export function runnerSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  const out: string[] = []
  for (const name of ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN']) {
    const value = env[name]?.trim()
    if (value && value.length >= MIN_SECRET_LENGTH) out.push(value)
  }
  const results = env.ACTIONS_RESULTS_URL?.trim()
  const parsed = results ? parse(results) : undefined
  if (parsed !== undefined) {
    for (const [, value] of parsed.searchParams) {
      if (value.length >= MIN_SECRET_LENGTH && !readsAsName(value)) out.push(value)
    }
  }
  return out
}
