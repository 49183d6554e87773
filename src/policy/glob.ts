/**
 * The glob used for shell commands, MCP server/tool names, custom tool names and URL hosts.
 *
 * Only `*` is special: it matches any run of characters, spaces and slashes included (so
 * `git push*` matches `git push --force origin main`). `\*` is a literal star and `\\` a
 * literal backslash. Matching is case-sensitive and anchored at both ends.
 */
export interface Glob {
  readonly source: string
  /** The literal pieces between stars; a pattern without stars has exactly one piece. */
  readonly parts: readonly string[]
  readonly hasStar: boolean
}

export function compileGlob(source: string): Glob {
  const parts: string[] = ['']
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string
    if (c === '\\' && i + 1 < source.length) {
      parts[parts.length - 1] += source[i + 1] as string
      i++
    } else if (c === '*') {
      // consecutive stars are one star
      if (!(parts.length > 1 && parts[parts.length - 1] === '' && source[i - 1] === '*')) {
        parts.push('')
      }
    } else {
      parts[parts.length - 1] += c
    }
  }
  return { source, parts, hasStar: parts.length > 1 }
}

/** True when the whole of `text` matches the glob. */
export function globMatches(glob: Glob, text: string): boolean {
  const { parts } = glob
  const first = parts[0] as string
  if (!glob.hasStar) return text === first
  const last = parts[parts.length - 1] as string
  if (text.length < first.length + last.length) return false
  if (!text.startsWith(first) || !text.endsWith(last)) return false
  let at = first.length
  const end = text.length - last.length
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] as string
    const found = text.indexOf(part, at)
    if (found < 0 || found + part.length > end) return false
    at = found + part.length
  }
  return true
}

/**
 * True when some continuation of `prefix` (possibly empty) matches the glob: used for commands
 * with parts only known at run time (`git $X`), where a deny rule must win if it could match.
 */
export function globMayMatchPrefix(glob: Glob, prefix: string): boolean {
  const first = glob.parts[0] as string
  if (first.startsWith(prefix)) return true
  return glob.hasStar && prefix.startsWith(first)
}

/** The glob's meaning as a literal string (escapes removed), when it has no star. */
export function literalOf(glob: Glob): string | undefined {
  return glob.hasStar ? undefined : glob.parts[0]
}

/**
 * True when every string matched by `narrow` is also matched by `broad` (sound but not
 * complete: it may answer false for some true cases). Used by `check` to find shadowed rules.
 */
export function globCovers(broad: Glob, narrow: Glob): boolean {
  if (!narrow.hasStar) return globMatches(broad, narrow.parts[0] as string)
  if (!broad.hasStar) return false
  // `broad` = A*...*Z covers `narrow` = a*...*z when narrow's fixed prefix starts with A, its
  // fixed suffix ends with Z, and broad has no middle parts (a common, decidable case).
  const bFirst = broad.parts[0] as string
  const bLast = broad.parts[broad.parts.length - 1] as string
  const nFirst = narrow.parts[0] as string
  const nLast = narrow.parts[narrow.parts.length - 1] as string
  if (!nFirst.startsWith(bFirst) || !nLast.endsWith(bLast)) return false
  if (broad.parts.length === 2) return true
  return broad.source === narrow.source
}
