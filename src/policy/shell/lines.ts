/** The shell analyzer's checks on the text itself: line splits, heredocs, plain command lines, loops. */
import { homeDirectory } from '../readable.js'
import type { Node } from 'web-tree-sitter'
import { type ShellWord } from '../shell-word.js'
import { type ShellCommand } from './analysis.js'
import { evalWord } from './words.js'

/** Reserved words: as a command name they mean tree-sitter misread the command. */
export const RESERVED = new Set([
  '!',
  '{',
  '}',
  '[[',
  ']]',
  'case',
  'coproc',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'function',
  'if',
  'in',
  'select',
  'then',
  'until',
  'while'
])

/** How often a command tree-sitter reads across line breaks is repaired and parsed again. */
export const MAX_REPAIRS = 4

/** Nodes whose children are the words of one simple command (or one redirection). */
export const ONE_LINE = new Set([
  'command',
  'declaration_command',
  'unset_command',
  'file_redirect'
])

/** Nodes whose children do not cover their text (quoted strings, heredoc bodies). */
export const TEXT_NODES = new Set([
  'string',
  'heredoc_body',
  'heredoc_redirect',
  'translated_string'
])
/** A backslash, or whitespace other than a space or a tab (see lineSplits). */
export const BEYOND_BLANKS = /[\\]|[^\S \t]/

/**
 * Where tree-sitter read one simple command across an unescaped line break (it does, e.g. for
 * `a | b | c⏎d > f`): the offsets of those line breaks, or `bad` for other stray text between
 * the words of a command.
 */
export function lineSplits(root: Node, source: string): number[] | 'bad' {
  // Gaps between nodes hold what tree-sitter skipped: whitespace, `\⏎` and escaped blanks. With
  // no backslash and no whitespace but spaces and tabs anywhere, every gap is spaces and tabs:
  // nothing to find (most commands; this spares a second walk of the tree).
  if (!BEYOND_BLANKS.test(source)) return []
  const splits: number[] = []
  const stack: Node[] = [root]
  while (stack.length > 0) {
    const node = stack.pop() as Node
    const children = node.children
    if (!TEXT_NODES.has(node.type)) {
      // between the parts of anything else bash sees blanks, line breaks and comments only:
      // an escaped tab (`cmd \<tab>`) that tree-sitter skipped is an argument to bash
      for (let i = 1; i < children.length; i++) {
        const gap = source.slice(
          (children[i - 1] as Node).endIndex,
          (children[i] as Node).startIndex
        )
        if (/\\(?!\r?\n)/.test(gap)) return 'bad'
      }
    }
    if (ONE_LINE.has(node.type)) {
      for (let i = 1; i < children.length; i++) {
        const start = (children[i - 1] as Node).endIndex
        const gap = source.slice(start, (children[i] as Node).startIndex)
        const stray = /[^ \t]/.exec(gap.replace(/\\\r?\n/g, (m) => ' '.repeat(m.length)))
        if (stray === null) continue
        if (stray[0] !== '\n' && stray[0] !== '\r') return 'bad'
        splits.push(start + stray.index)
      }
    }
    stack.push(...children)
  }
  return [...new Set(splits)]
}

/**
 * Why bash would end this heredoc on another line than tree-sitter did, if it would. bash ends a
 * heredoc at the first line that is exactly the delimiter (after leading tabs for `<<-`);
 * tree-sitter also ends it at a line that only starts with it (`EOF ; cmd '$(x)'`), which would
 * hide commands bash runs.
 */
export function heredocDivergence(node: Node, source: string): string | undefined {
  const children = node.children
  const start = children.find((c) => c.type === 'heredoc_start')
  const end = children.find((c) => c.type === 'heredoc_end')
  if (start === undefined || end === undefined) return 'a heredoc without its end line'
  const stripTabs = children.some((c) => !c.isNamed && c.type === '<<-')
  const delimiter = start.text.replace(/\\(.)|['"]/g, '$1')
  const lineStart = source.lastIndexOf('\n', end.startIndex - 1) + 1
  const lineEnd = source.indexOf('\n', end.endIndex)
  let endLine = source.slice(lineStart, lineEnd < 0 ? source.length : lineEnd)
  if (stripTabs) endLine = endLine.replace(/^\t+/, '')
  if (end.text !== delimiter || endLine !== delimiter) {
    return `bash would not end the heredoc at "${endLine.replace(/\r/g, '\\r')}"`
  }
  const body = children.find((c) => c.type === 'heredoc_body')
  const bodyText = body === undefined ? '' : source.slice(body.startIndex, lineStart)
  for (const line of bodyText.split('\n')) {
    if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) {
      return `bash would end the heredoc earlier, at "${delimiter}"`
    }
  }
  return undefined
}

/** Leaf node types whose text bash may still expand (see `unparsedText`). */
export const UNPARSED_TEXT = new Set([
  'word',
  'regex',
  'extglob_pattern',
  'string_content',
  'heredoc_content',
  'heredoc_body'
])

export const HEREDOC_IN_SUBSTITUTION =
  'bash 5.2 misreads heredocs inside $(...) and <(...) unless the substitution is one command ' +
  '(it drops a following ";" and runs other commands)'

/**
 * A heredoc in a substitution that is more than one simple command. bash 5.2 reprints such a
 * substitution before running it and gets it wrong: `$(a <<E ... ⏎ b | c ; d)` runs `c d`.
 * `"$(cat <<'EOF' ... EOF)"` stays fine.
 */
export function heredocInComplexSubstitution(node: Node): boolean {
  let heredoc = false
  const stack = [...node.children]
  while (stack.length > 0 && !heredoc) {
    const n = stack.pop() as Node
    if (n.type === 'heredoc_redirect') heredoc = true
    stack.push(...n.children)
  }
  if (!heredoc) return false
  // one statement, also inside { } or ( ): `$( { cat <<EOF ... } )`
  let scope: Node = node
  for (;;) {
    const statements = scope.namedChildren.filter((c) => c.type !== 'comment')
    const only = statements[0]
    if (statements.length !== 1 || only === undefined) return true
    if (only.type === 'compound_statement' || only.type === 'subshell') {
      scope = only
      continue
    }
    if (only.type === 'command') return false
    if (only.type !== 'redirected_statement') return true
    return only.childForFieldName('body')?.type !== 'command'
  }
}

/** `$`, `<` or `>` and the bracket after it split by line continuations. */
export const SPLIT_SUBSTITUTION = /[$<>](?:\\\r?\n)+[({[]/

/**
 * A command line of plain words only: letters, digits and `_ . / : + , -`, separated by
 * spaces or tabs, on one line. Bash reads such a line as one simple command whose words are the
 * text as written: no quoting, expansion, glob, tilde, assignment, redirection, operator or
 * comment can be in it. The declaration builtins are left to the parser, which reads their words
 * as names (tree-sitter's `declaration_command`), and so are reserved words.
 */
export const PLAIN_LINE = /^[ \t]*[A-Za-z0-9_./:+,-]+(?:[ \t]+[A-Za-z0-9_./:+,-]+)*[ \t]*$/
export const NOT_PLAIN = new Set([
  'declare',
  'typeset',
  'export',
  'local',
  'readonly',
  'unset',
  ...RESERVED
])

/** The words of a plain command line (PLAIN_LINE), or undefined. */
export function plainWords(text: string): string[] | undefined {
  if (text.length > 4096 || !PLAIN_LINE.test(text)) return undefined
  const words = text.trim().split(/[ \t]+/)
  if (NOT_PLAIN.has(words[0] as string)) return undefined
  return words
}

/** A backslash-newline that is not itself escaped. */
export function hasLineContinuation(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '\\') continue
    if (text[i + 1] === '\n' || (text[i + 1] === '\r' && text[i + 2] === '\n')) return true
    i++
  }
  return false
}

/** The index of the backquote that ends the one at index 0, as bash finds it; -1 if none. */
export function closingBackquote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === '`') return i
  }
  return -1
}

/** Inside backquotes, a backslash escapes only $, ` and \\ (and " within double quotes). */
export function unescapeBackticks(text: string, inDoubleQuotes = false): string {
  return text.replace(inDoubleQuotes ? /\\([$`\\"])/g : /\\([$`\\])/g, '$1')
}

/**
 * An unescaped blank or operator character: bash never has one inside an unquoted word.
 * Backquoted text (which tree-sitter leaves inside words such as `${x:-`a b`}`) is skipped.
 */
export function hasUnquotedMetacharacter(raw: string): boolean {
  let backquoted = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string
    if (c === '\\') i++
    else if (c === '`') backquoted = !backquoted
    else if (!backquoted && ' \t\n;&|<>()'.includes(c)) return true
  }
  return false
}

export function isAssignmentWord(word: ShellWord): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word.literal ? word.text : word.prefix)
}

export function insideDoubleQuotes(node: Node): boolean {
  for (let p = node.parent; p !== null; p = p.parent) {
    if (p.type === 'string' || p.type === 'heredoc_body') return true
    if (p.type === 'command_substitution' || p.type === 'command' || p.type === 'program')
      return false
  }
  return false
}

/**
 * The words a `for NAME in WORDS` loop gives NAME, when they are literal paths or plain globs
 * and nothing in the request may set NAME another way (an assignment, `read`, `printf -v`,
 * `declare`, `eval`, a function, a sourced file); else undefined.
 */
export function loopValues(node: Node, name: string, source: string): string[] | undefined {
  if (node.firstChild?.type !== 'for') return undefined
  const values: string[] = []
  let inList = false
  for (const child of node.children) {
    if (child.type === 'in') {
      inList = true
      continue
    }
    if (child.type === 'do_group' || child.type === ';') inList = false
    if (!inList || !child.isNamed) continue
    const word = evalWord(child)
    if (/[$`{(\\]/.test(word.text) || /(?:^|\/)\.\.(?:\/|$)/.test(word.text)) return undefined
    values.push(
      word.tilde && word.text.startsWith('~/')
        ? `${homeDirectory()}${word.text.slice(1)}`
        : word.text
    )
  }
  if (values.length === 0 || values.length > 64) return undefined
  const setter = new RegExp(
    `\\b${name}\\+?=|\\b(?:read|printf|mapfile|readarray|getopts|declare|typeset|local|export|readonly|unset|eval|source|wait|let)\\b|(?:^|[;&|\\s])\\.\\s|\\(\\s*\\)|\\bfunction\\b|\\bfor\\s+${name}\\b[\\s\\S]*\\bfor\\s+${name}\\b`
  )
  return setter.test(source) ? undefined : values
}

export function makeCommand(
  words: ShellWord[],
  assignments: string[],
  via: string[]
): ShellCommand {
  return { words, assignments, text: words.map((w) => w.text).join(' '), via }
}

export function assignmentText(node: Node): string {
  return evalWord(node).text
}
