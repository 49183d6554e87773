/** curl and wget: the URLs they fetch or send to, the files they write, the options that run code. */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  fileWrite,
  isAbsolute,
  joinPath,
  lit,
  network,
  runsCode,
  write,
  writesUnknown
} from './effects.js'
import { type OptionTable, has, parseOptions, unknownWords, values } from './options.js'

// ---------------------------------------------------------------------------------------------
// curl, wget

/** The options naming a file curl writes (beside the output). */
export const CURL_FILES = [
  'dump-header',
  'cookie-jar',
  'trace',
  'trace-ascii',
  'stderr',
  'libcurl',
  'etag-save',
  'hsts',
  'alt-svc',
  'ssl-sessions'
]
/** The options that send curl's traffic elsewhere than the URL's host. */
export const CURL_REDIRECTS = [
  'proxy',
  'preproxy',
  'socks4',
  'socks4a',
  'socks5',
  'socks5-hostname',
  'resolve',
  'connect-to',
  'doh-url',
  'unix-socket',
  'abstract-unix-socket'
]

export const CURL: OptionTable = {
  shortValue: 'AbcCdDeEFHKmoPQrtTuUwxXyYz',
  longValue: [
    'output',
    'output-dir',
    'url',
    'header',
    'data',
    'data-raw',
    'data-binary',
    'data-urlencode',
    'data-ascii',
    'json',
    'form',
    'form-string',
    'user',
    'user-agent',
    'referer',
    'request',
    'cookie',
    'config',
    'max-time',
    'connect-timeout',
    'proxy-user',
    'proxy-header',
    'write-out',
    'etag-compare',
    'upload-file',
    'range',
    'retry',
    'retry-delay',
    'retry-max-time',
    'max-filesize',
    'limit-rate',
    'cert',
    'key',
    'cacert',
    'capath',
    'ciphers',
    'interface',
    'dns-servers',
    'continue-at',
    'time-cond',
    'telnet-option',
    'quote',
    'ftp-port',
    'oauth2-bearer',
    'aws-sigv4',
    'variable',
    'noproxy',
    'url-query',
    'local-port',
    'max-redirs',
    'keepalive-time',
    'speed-limit',
    'speed-time',
    'mail-from',
    'mail-rcpt',
    'mail-auth',
    'login-options',
    'pass',
    'pubkey',
    'proto',
    'proto-redir',
    'proto-default',
    'netrc-file',
    'cert-type',
    'key-type',
    'expect100-timeout',
    'happy-eyeballs-timeout-ms',
    'parallel-max',
    'rate',
    'retry-connrefused-delay',
    'create-file-mode',
    'tls-max',
    'ip-tos',
    'vlan-priority',
    ...CURL_FILES,
    ...CURL_REDIRECTS
  ],
  flags: ['remote-name', 'remote-name-all', 'proxy-insecure', 'proxy-anyauth'],
  alias: {
    o: 'output',
    O: 'remote-name',
    J: 'remote-header-name',
    D: 'dump-header',
    c: 'cookie-jar',
    K: 'config',
    w: 'write-out',
    x: 'proxy',
    g: 'globoff',
    T: 'upload-file'
  },
  effectful: [
    'output',
    'output-dir',
    'remote-name',
    'remote-name-all',
    'remote-header-name',
    ...CURL_FILES,
    'config',
    'write-out',
    'url',
    ...CURL_REDIRECTS
  ],
  effectfulShort: 'oODcKwx'
}

/** Host name prefixes from which curl guesses another protocol than http. */
export const CURL_GUESSED = ['ftp.', 'dict.', 'ldap.', 'imap.', 'smtp.', 'pop3.']

/** A URL operand: a `url` effect for http(s), a network problem for other schemes. */
export function hasControl(t: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i)
    if (c < 0x20 || c === 0x7f) return true
  }
  return false
}

export function urlEffect(
  program: string,
  word: ShellWord,
  guessed: readonly string[]
): CommandEffect {
  const label = program
  if (!word.literal) {
    const p = word.prefix.toLowerCase()
    if (p.includes('://') && !p.startsWith('http://') && !p.startsWith('https://')) {
      return network(`${program} ${word.text} uses a protocol other than http(s)`)
    }
    return { kind: 'url', label, target: word }
  }
  const t = word.text
  // curl and wget read `http://a.com\@b/` as user info of b, a browser (the url rules) as a.com:
  // where the two parsers can disagree about the host, the policy cannot judge the URL
  const authority = t.slice(t.indexOf('://') < 0 ? 0 : t.indexOf('://') + 3).split(/[/?#]/)[0] ?? ''
  if (/[\\\s]/.test(t) || hasControl(t) || authority.includes('@') || authority.includes('%')) {
    return network(`${program} ${t}: curl and the url rules may read a different host out of it`)
  }
  const at = t.indexOf('://')
  if (at > 0) {
    const scheme = t.slice(0, at).toLowerCase()
    if (scheme === 'http' || scheme === 'https') return { kind: 'url', label, target: word }
    return network(`${program} ${t} uses ${scheme}://, which url rules do not cover`)
  }
  const lower = t.toLowerCase()
  if (guessed.some((g) => lower.startsWith(g))) {
    return network(`${program} reads ${t} as a ${lower.slice(0, lower.indexOf('.'))} URL`)
  }
  return { kind: 'url', label, target: lit(`http://${t}`) }
}

/** The file name `curl -O` / `wget` gives a download: the URL path's last segment. */
export function urlFileName(url: ShellWord): string | undefined {
  if (!url.literal) return undefined
  let t = url.text
  const cut = Math.min(...['?', '#'].map((c) => (t.includes(c) ? t.indexOf(c) : t.length)))
  t = t.slice(0, cut)
  const scheme = t.indexOf('://')
  const rest = scheme < 0 ? t : t.slice(scheme + 3)
  const slash = rest.indexOf('/')
  if (slash < 0) return undefined
  const name = rest.slice(rest.lastIndexOf('/') + 1)
  return name === '' || name === '.' || name === '..' ? undefined : name
}

export function curlEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  // curl 8.3+: --expand-X is X with {{variables}} expanded, --variable sets them: run-time values
  const expands = words.find((w) => w.literal && /^--(?:expand-|variable)/.test(w.text))
  if (expands !== undefined) {
    return [runsCode(`${name} ${expands.text} expands variables into its options at run time`)]
  }
  const parsed = parseOptions(words, CURL)
  const out = unknownWords(parsed, name, 'an option that writes a file (-o) or reads a config (-K)')
  if (has(parsed, 'config')) {
    out.push(
      runsCode(`${name} -K/--config reads options the policy cannot see (output files, URLs)`)
    )
  }
  for (const option of CURL_REDIRECTS) {
    if (has(parsed, option)) {
      out.push(network(`${name} --${option} sends the request through another host or socket`))
    }
  }
  const urls = [...values(parsed, 'url'), ...parsed.operands]
  const globoff = has(parsed, 'globoff')
  for (const u of urls) {
    if (!globoff && u.literal && (u.text.includes('{') || u.text.includes('['))) {
      out.push(
        network(`${name} expands {a,b} and [1-9] in "${u.text}" into other URLs (add -g/--globoff)`)
      )
      continue
    }
    out.push(urlEffect(name, u, CURL_GUESSED))
  }
  const dir = values(parsed, 'output-dir').at(-1)
  const inDir = (file: ShellWord): ShellWord =>
    dir === undefined || (file.literal && isAbsolute(file.text)) ? file : joinPath(dir, file.text)
  for (const file of values(parsed, 'output')) {
    if (!(file.literal && file.text === '-')) out.push(fileWrite(`${name} -o`, inDir(file)))
  }
  if (has(parsed, 'remote-header-name')) {
    out.push(write(`${name} -J (file named by the server)`, dir ?? lit('.'), true))
  } else if (has(parsed, 'remote-name', 'remote-name-all')) {
    for (const u of urls) {
      const file = urlFileName(u)
      out.push(
        file === undefined
          ? write(`${name} -O`, dir ?? lit('.'), true)
          : fileWrite(`${name} -O`, inDir(lit(file)))
      )
    }
  }
  for (const file of values(parsed, ...CURL_FILES)) {
    if (!(file.literal && (file.text === '-' || file.text === '%'))) {
      out.push(fileWrite(`${name} (file option)`, file))
    }
  }
  for (const format of values(parsed, 'write-out')) {
    if (!format.literal || format.text.startsWith('@') || format.text.includes('%output{')) {
      out.push(writesUnknown(`${name} -w %output{FILE} writes a file the policy cannot name`))
    }
  }
  return out
}

/** The wget options that take a value and write, read or run something with it. */
const WGET_EFFECTFUL_VALUES = [
  'output-file',
  'append-output',
  'execute',
  'config',
  'output-document',
  'directory-prefix',
  'input-file'
]

export const WGET: OptionTable = {
  shortValue: 'aABDeiIlnoOPQRtTUwXYC',
  longValue: [
    ...WGET_EFFECTFUL_VALUES,
    'base',
    'tries',
    'timeout',
    'wait',
    'waitretry',
    'user-agent',
    'header',
    'post-data',
    'post-file',
    'body-data',
    'body-file',
    'method',
    'user',
    'password',
    'http-user',
    'http-password',
    'ftp-user',
    'ftp-password',
    'proxy-user',
    'proxy-password',
    'load-cookies',
    'save-cookies',
    'warc-file',
    'rejected-log',
    'hsts-file',
    'level',
    'accept',
    'reject',
    'accept-regex',
    'reject-regex',
    'domains',
    'exclude-domains',
    'include-directories',
    'exclude-directories',
    'cut-dirs',
    'quota',
    'limit-rate',
    'bind-address',
    'dns-timeout',
    'connect-timeout',
    'read-timeout',
    'referer',
    'use-askpass',
    'ca-certificate',
    'ca-directory',
    'certificate',
    'private-key',
    'certificate-type',
    'private-key-type',
    'secure-protocol',
    'restrict-file-names',
    'default-page',
    'local-encoding',
    'remote-encoding',
    'progress',
    'max-redirect',
    'start-pos',
    'backups',
    'compression',
    'crl-file',
    'pinnedpubkey',
    'random-file',
    'egd-file',
    'ciphers',
    'retry-on-http-error',
    'warc-header',
    'warc-max-size',
    'warc-tempdir',
    'regex-type',
    'report-speed',
    'prefer-family'
  ],
  alias: {
    o: 'output-file',
    a: 'append-output',
    e: 'execute',
    O: 'output-document',
    P: 'directory-prefix',
    i: 'input-file',
    r: 'recursive',
    m: 'mirror',
    p: 'page-requisites',
    x: 'force-directories'
  },
  effectful: [
    ...WGET_EFFECTFUL_VALUES,
    'save-cookies',
    'warc-file',
    'rejected-log',
    'hsts-file',
    'use-askpass',
    'recursive',
    'mirror',
    'content-disposition',
    'trust-server-names'
  ],
  effectfulShort: 'oaeOPirmpx'
}

export const WGET_SAFE_EXECUTE = /^robots\s*=\s*(?:on|off)$/i

export function wgetEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const parsed = parseOptions(words, WGET)
  const out = unknownWords(parsed, name, 'an option that writes a file or runs a command (-O, -e)')
  for (const command of values(parsed, 'execute')) {
    if (!command.literal || !WGET_SAFE_EXECUTE.test(command.text)) {
      out.push(runsCode(`${name} -e runs a wgetrc command, which can set where it writes`))
    }
  }
  if (has(parsed, 'config'))
    out.push(runsCode(`${name} --config reads settings the policy cannot see`))
  if (has(parsed, 'use-askpass')) out.push(runsCode(`${name} --use-askpass runs that program`))
  if (has(parsed, 'input-file')) {
    out.push(network(`${name} -i reads the URLs it fetches from a file the policy cannot see`))
  }
  for (const u of parsed.operands) out.push(urlEffect(name, u, ['ftp.']))
  const prefix = values(parsed, 'directory-prefix').at(-1)
  for (const file of values(
    parsed,
    'output-file',
    'append-output',
    'save-cookies',
    'rejected-log',
    'hsts-file'
  )) {
    out.push(fileWrite(`${name} (file option)`, file))
  }
  for (const file of values(parsed, 'warc-file')) {
    out.push(
      write(`${name} --warc-file`, file.literal ? lit(`${file.text}.warc.gz`, file.tilde) : file)
    )
  }
  const documents = values(parsed, 'output-document')
  if (documents.length > 0) {
    for (const file of documents) {
      if (!(file.literal && file.text === '-')) out.push(fileWrite(`${name} -O`, file))
    }
    return out
  }
  const dir = prefix ?? lit('.')
  if (
    has(
      parsed,
      'recursive',
      'mirror',
      'page-requisites',
      'force-directories',
      'content-disposition',
      'trust-server-names'
    )
  ) {
    out.push(write(`${name} (downloads)`, dir, true))
    return out
  }
  for (const u of parsed.operands) {
    const file = urlFileName(u) ?? 'index.html'
    out.push(
      fileWrite(
        `${name} (download)`,
        dir.literal && dir.text === '.' ? lit(file) : joinPath(dir, file)
      )
    )
  }
  return out
}
