/**
 * What an error may quote of a file or input it could not use: a short excerpt at the error's
 * position, never the content. Such messages reach the log, the report and the pull request
 * comment, and a file is not always what it seems (a policy that is really a credential file).
 */

/** The most characters of the file an error quotes. */
export const EXCERPT_MAX = 40

/**
 * A value from the file as an error quotes it: in double quotes, on one line (control characters
 * escaped), cut to EXCERPT_MAX characters with `…`.
 */
export function excerpt(value: string, max = EXCERPT_MAX): string {
  const chars = [...value]
  const cut = chars.length > max ? `${chars.slice(0, max).join('')}…` : value
  return JSON.stringify(cut)
}

/**
 * A parser's own message, which may quote what it found (a tag, a token): its first line, control
 * characters escaped, at most `max` characters.
 */
export function clipMessage(message: string, max = 2 * EXCERPT_MAX): string {
  const line = (message.split(/\r?\n/)[0] ?? '').replace(
    // eslint-disable-next-line no-control-regex -- control characters are what it escapes
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  )
  // `Unresolved tag: !…`, `Invalid escape sequence …`: what follows the colon is the file's
  const quoted = /^([^:]{1,60}): (.*)$/.exec(line)
  if (quoted?.[1] !== undefined && quoted[2] !== undefined) {
    return `${quoted[1]}: ${cut(quoted[2], EXCERPT_MAX)}`
  }
  return cut(line, max)
}

function cut(text: string, max: number): string {
  const chars = [...text]
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text
}
