/** The bash analyzer: walks the tree-sitter parse and lists what a command line runs and writes. */
import path from 'node:path'
import type { Node, Parser } from 'web-tree-sitter'
import {
  commandEffects,
  ENV_OPTIONS,
  isWrapper,
  LOADS_CODE,
  runs,
  scanOptions,
  XARGS_OPTIONS,
  type CdTarget
} from '../programs/index.js'
import { literalWord, type ShellWord } from '../shell-word.js'
import { sensitiveWordReason, mayBeNetworkDevice } from '../sensitive.js'
import {
  ARITHMETIC_TEST_OPERATORS,
  expansionProblem,
  isInertArithmetic,
  isInertSubscript,
  variableProblem
} from '../evaluation.js'
import { packageRunnerCommands } from '../programs/package-runners.js'
import { bashParserSync } from '../wasm.js'
import { type ShellAnalysis, type ShellItem, type ShellProblemId } from './analysis.js'
import {
  RESERVED,
  HEREDOC_IN_SUBSTITUTION,
  MAX_REPAIRS,
  SPLIT_SUBSTITUTION,
  UNPARSED_TEXT,
  assignmentText,
  closingBackquote,
  hasLineContinuation,
  hasUnquotedMetacharacter,
  heredocDivergence,
  heredocInComplexSubstitution,
  insideDoubleQuotes,
  isAssignmentWord,
  lineSplits,
  loopValues,
  makeCommand,
  plainWords,
  unescapeBackticks
} from './lines.js'
import { evalWord, joinWords } from './words.js'

/** Wrapper nesting deeper than this (`sh -c "sh -c \"...\""`) is denied as too complex. */
export const MAX_DEPTH = 8

/**
 * Parses `text` and lists what it would run and write. Requires `initBashParser()` first.
 * `parseAll`: parse plain command lines too (the tests compare both ways).
 */
export function analyzeShell(
  text: string,
  parser: Parser = bashParserSync(),
  parseAll = false
): ShellAnalysis {
  const analyzer = new Analyzer(parser, parseAll)
  analyzer.script(text, 0, [])
  return { items: analyzer.items, cdTargets: analyzer.cdTargets }
}

export interface Context {
  /** The text being parsed (node indices point into it). */
  source: string
  depth: number
  via: string[]
  /** Variables of the `for` loops around, with the words they iterate over (ShellCommand). */
  loops?: Readonly<Record<string, string[]>>
}

export class Analyzer {
  readonly items: ShellItem[] = []
  readonly cdTargets: CdTarget[] = []

  constructor(
    private readonly parser: Parser,
    private readonly parseAll = false
  ) {}

  /**
   * Each argument of a builtin: one only known when it runs is a problem (`what` names it, `an
   * option of compgen`), a literal one goes to `check` with its index.
   */
  private literalArguments(
    text: string,
    args: readonly ShellWord[],
    what: string,
    check: (word: ShellWord, index: number) => void
  ): void {
    for (let i = 0; i < args.length; i++) {
      const w = args[i] as ShellWord
      if (!w.literal) this.problem('dynamic-argument', text, `${what} is only known when it runs`)
      else check(w, i)
    }
  }

  private problem(id: ShellProblemId, text: string, reason: string): void {
    this.items.push({ type: 'problem', id, text, reason })
  }

  script(text: string, depth: number, via: string[]): void {
    if (depth > MAX_DEPTH) {
      this.problem('too-complex', text, `commands nested more than ${MAX_DEPTH} levels deep`)
      return
    }
    if (SPLIT_SUBSTITUTION.test(text)) {
      // bash removes `\⏎` before it reads `$(`, `${`, `<(`: "$\⏎(cmd)" runs cmd
      this.problem('unparsable', text, 'a line continuation inside "$(", "${", "<(" or ">("')
      return
    }
    const plain = this.parseAll ? undefined : plainWords(text)
    if (plain !== undefined) {
      // one simple command of plain words (`git status`, `cat src/a.ts`): what tree-sitter
      // would give, without parsing (__tests__/policy/plain-words.test.ts holds them equal)
      this.effective(plain.map(literalWord), [], { source: text, depth, via })
      return
    }
    let source = text
    for (let repairs = 0; ; repairs++) {
      const tree = this.parser.parse(source)
      if (tree === null) {
        this.problem('unparsable', text, 'the command could not be parsed')
        return
      }
      try {
        const root = tree.rootNode
        if (root.hasError) {
          this.problem('unparsable', text, 'the command is not valid shell syntax')
          return
        }
        const splits = lineSplits(root, source)
        if (splits === 'bad' || (splits.length > 0 && repairs >= MAX_REPAIRS)) {
          this.problem('unparsable', text, 'the command is read differently by bash')
          return
        }
        if (splits.length > 0) {
          // tree-sitter read one command across a line break; bash ends it there: say so with `;`
          for (const at of splits.sort((a, b) => b - a)) {
            source = `${source.slice(0, at)};${source.slice(at)}`
          }
          continue
        }
        this.walk(root, { source, depth, via })
        return
      } finally {
        tree.delete()
      }
    }
  }

  private walkChildren(node: Node, ctx: Context): void {
    for (const child of node.children) this.walk(child, ctx)
  }

  private walk(node: Node, ctx: Context): void {
    switch (node.type) {
      case 'comment': {
        // bash starts a comment only after a blank (space, tab, an unescaped line break) or an
        // operator; tree-sitter also after \r, \v, \f and `\⏎`, where bash reads on
        const at = node.startIndex
        const before = ctx.source[at - 1]
        const escapedBreak =
          before === '\n' &&
          /(?:^|[^\\])(?:\\\\)*\\$/.test(ctx.source.slice(Math.max(0, at - 64), at - 1))
        if (at > 0 && (before === undefined || !' \t\n;&|()<>'.includes(before) || escapedBreak)) {
          this.problem(
            'unparsable',
            node.text,
            'a "#" bash reads as part of a word, not as a comment'
          )
        }
        return
      }
      case 'command':
        this.command(node, ctx)
        return
      case 'redirected_statement': {
        const trailing: Node[] = []
        for (const redirect of node.children) {
          if (redirect.type !== 'heredoc_redirect') continue
          for (let i = 0; i < redirect.childCount; i++) {
            const child = redirect.child(i)
            if (child !== null && redirect.fieldNameForChild(i) === 'argument') trailing.push(child)
          }
        }
        const body = node.childForFieldName('body')
        this.variableRedirect(node, body)
        if (trailing.length > 0) {
          if (body?.type !== 'command') {
            this.problem('unparsable', node.text, 'words after a heredoc of a compound command')
            return
          }
          // the heredoc's own walk skips them (see heredoc_redirect)
          this.command(body, ctx, trailing)
          for (const child of node.children) if (!child.equals(body)) this.walk(child, ctx)
          return
        }
        this.walkChildren(node, ctx)
        return
      }
      case 'declaration_command':
      case 'unset_command':
        this.declaration(node, ctx)
        return
      case 'variable_assignments':
        this.assignmentOnly(
          node.children.filter((c) => c.type === 'variable_assignment'),
          ctx
        )
        return
      case 'variable_assignment':
        // a lone assignment statement (`x=1`); assignments inside commands are handled there
        this.assignmentOnly([node], ctx)
        return
      case 'file_redirect':
        this.redirect(node, ctx)
        return
      case 'expansion': {
        if (
          insideDoubleQuotes(node) &&
          node.descendantsOfType(['raw_string', 'ansi_c_string']).length > 0
        ) {
          // in "${x:-'...'}" the quotes are plain characters to bash and $(...) in them runs
          this.problem(
            'unparsable',
            node.text,
            `quotes inside the double-quoted ${node.text.slice(0, 2)}...} are read differently by bash`
          )
          return
        }
        const problem = expansionProblem(node.text)
        if (problem !== undefined) this.problem(problem.id, node.text, problem.reason)
        this.walkChildren(node, ctx)
        return
      }
      case 'arithmetic_expansion': {
        // $(( expr )) and $[ expr ]
        const inner = node.text.startsWith('$((') ? node.text.slice(3, -2) : node.text.slice(2, -1)
        this.arithmetic(inner, node.text)
        this.walkChildren(node, ctx)
        return
      }
      case 'compound_statement':
        if (node.firstChild?.type === '((') this.arithmetic(node.text.slice(2, -2), node.text)
        this.walkChildren(node, ctx)
        return
      case 'c_style_for_statement':
        this.problem(
          'evaluates-code',
          node.text,
          'a for (( ... )) loop evaluates variables as arithmetic, which can run commands'
        )
        return
      case 'for_statement': {
        // `for NAME in ...` and `select NAME in ...` set NAME
        const variable = node.childForFieldName('variable')
        const keyword = node.firstChild?.type ?? 'for'
        if (variable !== null)
          this.setsVariable(literalWord(variable.text), `${keyword} ${variable.text} in`)
        const values = variable === null ? undefined : loopValues(node, variable.text, ctx.source)
        this.walkChildren(
          node,
          values === undefined || variable === null
            ? ctx
            : { ...ctx, loops: { ...ctx.loops, [variable.text]: values } }
        )
        return
      }
      case 'test_command':
        this.testCommand(node)
        this.walkChildren(node, ctx)
        return
      case 'function_definition': {
        // `f() { ...; } > file` keeps the redirection with the function and opens it, target
        // expanded, at every call: walk it like the body
        const body = node.childForFieldName('body')
        const name = node.childForFieldName('name')
        for (const child of node.namedChildren) {
          if (name === null || !child.equals(name)) this.walk(child, ctx)
        }
        if (body === null) this.problem('unparsable', node.text, 'a function without a body')
        return
      }
      case 'process_substitution':
        if (heredocInComplexSubstitution(node)) {
          this.problem('unparsable', node.text, HEREDOC_IN_SUBSTITUTION)
          return
        }
        this.walkChildren(node, ctx)
        return
      case 'command_substitution': {
        if (node.text.startsWith('$((')) {
          // bash reads `$((` as arithmetic first (tree-sitter reads `$( (...) )` in heredocs)
          this.arithmetic(node.text.slice(3, -2), node.text)
        }
        if (node.text.startsWith('$(') && heredocInComplexSubstitution(node)) {
          this.problem('unparsable', node.text, HEREDOC_IN_SUBSTITUTION)
          return
        }
        // Inside backquotes bash removes the backslash of \$ \` \\ (and \" within "..."),
        // then parses the text: `echo \`id\`` runs id. tree-sitter does not; parse it here.
        const inDoubleQuotes = node.parent?.type === 'string'
        const inner = node.text.slice(1, -1)
        if (node.text.startsWith('`') && closingBackquote(node.text) !== node.text.length - 1) {
          // bash ends `...` at the first unescaped backquote, quotes or not; tree-sitter did not
          this.problem('unparsable', node.text, 'the command is read differently by bash')
          return
        }
        if (node.text.startsWith('`') && (inDoubleQuotes ? /\\[$`\\"]/ : /\\[$`\\]/).test(inner)) {
          this.script(unescapeBackticks(inner, inDoubleQuotes), ctx.depth + 1, ctx.via)
        } else {
          this.walkChildren(node, ctx)
        }
        return
      }
      case 'heredoc_redirect': {
        const divergence = heredocDivergence(node, ctx.source)
        if (divergence !== undefined) {
          this.problem('unparsable', node.text, divergence)
          return
        }
        // a quoted delimiter (<<'EOF', <<"EOF", <<\EOF) makes the body literal
        const start = node.children.find((c) => c.type === 'heredoc_start')
        const quoted = start !== undefined && /['"\\]/.test(start.text)
        const body = node.children.find((c) => c.type === 'heredoc_body')
        if (!quoted && body !== undefined && hasLineContinuation(body.text)) {
          // bash joins the lines before it looks for substitutions (`$\⏎(cmd)` runs cmd)
          this.problem(
            'unparsable',
            node.text,
            'a line continuation (\\ at the end of a line) in a heredoc: quote the delimiter ' +
              "(<<'EOF') for literal text"
          )
          return
        }
        for (let i = 0; i < node.childCount; i++) {
          const child = node.child(i)
          if (child === null || (child.type === 'heredoc_body' && quoted)) continue
          if (
            node.fieldNameForChild(i) === 'argument' &&
            node.parent?.type === 'redirected_statement'
          ) {
            continue
          }
          this.walk(child, ctx)
        }
        return
      }
      default:
        if (node.childCount === 0 && node.type === 'word' && hasUnquotedMetacharacter(node.text)) {
          // bash ends a word at these; tree-sitter put them inside one (`npm test\n\\git push`)
          this.problem('unparsable', node.text, 'the command is read differently by bash')
        } else if (node.childCount === 0 && UNPARSED_TEXT.has(node.type)) {
          this.unparsedText(node, ctx)
        } else {
          this.walkChildren(node, ctx)
        }
    }
  }

  /**
   * Text tree-sitter left unparsed where bash still expands command substitutions: backticks in
   * heredoc bodies and in `${x:-...}` words. Backticks are parsed here; `$(` and `<(` are denied.
   */
  private unparsedText(node: Node, ctx: Context): void {
    const text = node.text
    if (!/[`$<>]/.test(text)) return
    let i = 0
    while (i < text.length) {
      const c = text[i] as string
      if (c === '\\') {
        i += 2
        continue
      }
      if (c === '`') {
        let j = i + 1
        while (j < text.length && text[j] !== '`') j += text[j] === '\\' ? 2 : 1
        if (j >= text.length) {
          this.problem('unparsable', text, 'an unterminated backquote')
          return
        }
        this.script(unescapeBackticks(text.slice(i + 1, j)), ctx.depth + 1, ctx.via)
        i = j + 1
        continue
      }
      if ((c === '$' || c === '<' || c === '>') && text[i + 1] === '(') {
        this.problem(
          'unparsable',
          text,
          `"${text}" contains a substitution the policy's parser does not follow`
        )
        return
      }
      i++
    }
  }

  private assignmentOnly(nodes: Node[], ctx: Context): void {
    const assignments = nodes.map((n) => assignmentText(n))
    for (const n of nodes) this.assignmentNode(n, 'the assignment')
    for (const n of nodes) this.walkChildren(n, ctx)
    if (assignments.length > 0) {
      this.items.push({ type: 'assignment', text: assignments.join(' '), assignments })
    }
  }

  private command(node: Node, ctx: Context, trailing: Node[] = []): void {
    const assignments: string[] = []
    const parts: Array<{ node: Node; word: ShellWord }> = []
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)
      if (child === null) continue
      const field = node.fieldNameForChild(i)
      if (child.type === 'variable_assignment' && parts.length === 0) {
        assignments.push(assignmentText(child))
        this.assignmentNode(child, 'a variable assignment', false)
        this.walkChildren(child, ctx)
      } else if (child.type === 'command_name') {
        const inner = child.firstChild
        parts.push({ node: child, word: inner === null ? literalWord('') : evalWord(inner) })
        this.walk(child, ctx)
      } else if (field === 'argument') {
        parts.push({ node: child, word: evalWord(child) })
        this.walk(child, ctx)
      } else {
        this.walk(child, ctx)
      }
    }
    // words after a heredoc operator (`cmd <<EOF arg`), which tree-sitter files under it
    for (const extra of trailing) {
      parts.push({ node: extra, word: evalWord(extra) })
      this.walk(extra, ctx)
    }
    // tree-sitter treats `\<newline>` as blank space, bash joins the two sides into one word
    const source = ctx.source
    const words: ShellWord[] = []
    let previous: Node | undefined
    for (const part of parts) {
      const gap =
        previous === undefined ? '' : source.slice(previous.endIndex, part.node.startIndex)
      const last = words[words.length - 1]
      // adjacent pieces are one word to bash (`''\\a` is `a`), tree-sitter may split them
      if (last !== undefined && previous !== undefined && /^(?:\\\r?\n)*$/.test(gap)) {
        words[words.length - 1] = joinWords([last, part.word])
      } else {
        words.push(part.word)
      }
      previous = part.node
    }
    if (words.length === 0) {
      if (assignments.length > 0) {
        this.items.push({ type: 'assignment', text: assignments.join(' '), assignments })
      }
      return
    }
    this.effective(words, assignments, ctx)
  }

  private declaration(node: Node, ctx: Context): void {
    const words: ShellWord[] = []
    const assignments: string[] = []
    const keyword = node.firstChild?.type ?? 'declare'
    for (const child of node.children) {
      if (!child.isNamed) {
        words.push(literalWord(child.type))
      } else if (child.type === 'variable_assignment') {
        const word = evalWord(child)
        assignments.push(word.text)
        words.push(word)
        this.assignmentNode(child, keyword)
        if (child.childForFieldName('value')?.type !== 'array')
          this.compoundValue(keyword, word, words)
      } else if (child.type === 'variable_name') {
        words.push(literalWord(child.text))
        if (keyword !== 'unset' || !words.some((w) => /^-[a-z]*f/.test(w.text))) {
          this.setsVariable(literalWord(child.text), keyword)
        }
      } else if (child.type !== 'comment') {
        const word = evalWord(child)
        words.push(word)
        this.declarationWord(keyword, word, words)
      }
      this.walk(child, ctx)
    }
    if (words.length > 0) {
      this.items.push({ type: 'command', command: makeCommand(words, assignments, ctx.via) })
    }
  }

  /**
   * One word of `declare`/`typeset`/`local`/`export`/`readonly`/`unset` that tree-sitter did not
   * read as a name or an assignment: an option, or a name it could not see (`"$x"`, `'a[x]'`).
   */
  private declarationWord(keyword: string, word: ShellWord, seen: ShellWord[]): void {
    if (word.literal && /^[-+]/.test(word.text)) {
      // -i makes later assignments arithmetic, -n makes a name a reference: both evaluate
      if (keyword !== 'export' && keyword !== 'unset' && /^[-+][A-Za-z]*[in]/.test(word.text)) {
        this.problem(
          'evaluates-code',
          `${keyword} ${word.text}`,
          `${keyword} ${word.text} makes bash evaluate variables (integer or reference), which can run commands`
        )
      }
      return
    }
    if (keyword === 'unset' && seen.some((w) => w.literal && /^-[a-z]*f/.test(w.text))) return
    this.setsVariable(word, keyword)
    this.compoundValue(keyword, word, seen)
  }

  /**
   * `declare 'a=($(cmd))'`: bash parses a quoted or escaped `(...)` value again as a compound
   * assignment and expands it; a value only known at run time may be one (`declare -a "a=$x"`).
   */
  private compoundValue(keyword: string, word: ShellWord, flags: ShellWord[]): void {
    const known = word.literal ? word.text : word.prefix
    const arrays =
      keyword !== 'export' || flags.some((f) => f.literal && /^-[A-Za-z]*[aA]/.test(f.text))
    if (
      /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=\(/.test(known) ||
      (!word.literal && arrays && /=$/.test(known))
    ) {
      this.problem(
        'evaluates-code',
        `${keyword} ${word.text}`,
        `${keyword} may parse the value of ${word.text} as an array and expand it again, which can run commands`
      )
    }
  }

  /** Checks a `NAME=value` node: the name (when `checkName`), its subscript, array subscripts. */
  private assignmentNode(node: Node, how: string, checkName = true): void {
    const name = node.childForFieldName('name') ?? node.firstNamedChild
    if (name === null) return
    if (name.type === 'subscript') {
      const index = name.childForFieldName('index')
      const base = name.childForFieldName('name')?.text ?? ''
      if (checkName) this.setsVariable(literalWord(base), how)
      if (index === null || !isInertSubscript(index.text)) {
        this.problem(
          'evaluates-code',
          node.text,
          `the subscript "[${index?.text ?? ''}]" of ${base} is evaluated as arithmetic, which can run commands`
        )
      }
    } else if (checkName) {
      this.setsVariable(literalWord(name.text), how)
    }
    const value = node.childForFieldName('value')
    if (value?.type === 'array') {
      for (const element of value.namedChildren) {
        const m = /^\[([^\]]*)\]\+?=/.exec(element.text)
        if (element.text.startsWith('[') && (m === null || !isInertSubscript(m[1] as string))) {
          this.problem(
            'evaluates-code',
            element.text,
            `the array subscript in "${element.text}" is evaluated as arithmetic, which can run commands`
          )
        }
      }
    }
  }

  /** A command or construct sets the variable `word` names: deny protected and non-literal names. */
  private setsVariable(word: ShellWord, how: string): void {
    const problem = variableProblem(word, how)
    if (problem !== undefined) this.problem(problem.id, `${how} ${word.text}`, problem.reason)
  }

  /** `exec {fd}>file` stores the descriptor in the variable `fd` (a subscript there is evaluated). */
  private variableRedirect(node: Node, body: Node | null): void {
    if (body?.type !== 'command') return
    const redirect = node.children.find((c) => !c.equals(body))
    const last = body.lastChild
    if (redirect === undefined || last === null || last.endIndex !== redirect.startIndex) return
    const m = /^\{(.*)\}$/s.exec(last.text)
    if (m !== null)
      this.setsVariable(literalWord(m[1] as string), `a {${m[1] as string}} redirection`)
  }

  /** Arithmetic bash evaluates: only literal numbers and operators are inert. */
  private arithmetic(expression: string, text: string): void {
    if (isInertArithmetic(expression)) return
    this.problem(
      'evaluates-code',
      text,
      `bash evaluates "${expression.trim()}" as arithmetic: a variable in it is read and its value evaluated in turn, which can run commands; use literal numbers`
    )
  }

  /** `[[ ... ]]` and `[ ... ]`: arithmetic comparisons and `-v`/`-R` evaluate their operands. */
  private testCommand(node: Node): void {
    const doubleBracket = node.firstChild?.type === '[['
    const stack: Node[] = [...node.namedChildren]
    while (stack.length > 0) {
      const n = stack.pop() as Node
      const operator = n.children.find((c) => c.type === 'test_operator')?.text
      if (n.type === 'binary_expression' && doubleBracket && operator !== undefined) {
        if (ARITHMETIC_TEST_OPERATORS.has(operator)) {
          for (const side of [n.childForFieldName('left'), n.childForFieldName('right')]) {
            if (side !== null && !isInertArithmetic(side.text)) this.arithmetic(side.text, n.text)
          }
        }
      } else if (n.type === 'unary_expression' && (operator === '-v' || operator === '-R')) {
        const operand = n.namedChildren.find((c) => c.type !== 'test_operator')
        if (operand === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(operand.text)) {
          this.problem(
            'evaluates-code',
            n.text,
            `${operator} evaluates the subscript of the variable it names, which can run commands`
          )
        }
      }
      stack.push(...n.namedChildren)
    }
  }

  private redirect(node: Node, ctx: Context): void {
    let operator = ''
    let descriptor = ''
    for (const child of node.children) {
      if (!child.isNamed) operator += child.type
      else if (child.type === 'file_descriptor') descriptor = child.text
      this.walk(child, ctx)
    }
    const destination = node.childForFieldName('destination')
    if (destination === null) {
      this.problem('unparsable', node.text, 'a redirection without a target')
      return
    }
    if (destination.type === 'process_substitution') return // reads or writes a checked command
    const duplicates = operator === '>&' || operator === '<&'
    if (duplicates && (destination.type === 'number' || destination.text === '-')) return
    const target = evalWord(destination)
    if (mayBeNetworkDevice(target)) {
      this.problem(
        'network-redirect',
        node.text,
        `"${target.text}" may be bash's /dev/tcp or /dev/udp, which opens a network connection`
      )
      return
    }
    const why = sensitiveWordReason(target)
    if (why !== undefined) this.problem('sensitive-path', node.text, why)
    const text = `${descriptor}${operator} ${target.text}`
    // `<>` opens the file for reading and writing
    if (['<', '<&', '<>'].includes(operator)) this.items.push({ type: 'read', text, target })
    if (['>', '>>', '>|', '&>', '&>>', '>&', '<>'].includes(operator)) this.write(text, target)
  }

  private write(text: string, target: ShellWord): void {
    this.items.push({ type: 'write', text, target })
  }

  /** A simple command after assignments: record it, then follow what it runs and writes. */
  private effective(allWords: ShellWord[], leading: string[], ctx: Context): void {
    // `sudo FOO=1 cmd`: leading NAME=value words of a wrapped command are assignments too
    let skip = 0
    while (skip < allWords.length - 1 && isAssignmentWord(allWords[skip] as ShellWord)) skip++
    const words = allWords.slice(skip)
    const assignments = [...leading, ...allWords.slice(0, skip).map((w) => w.text)]
    const command = makeCommand(words, assignments, ctx.via)
    if (ctx.loops !== undefined) command.loops = ctx.loops
    const name = words[0] as ShellWord
    if (!name.literal) {
      this.problem(
        'dynamic-command',
        command.text,
        `the command name "${name.text}" is only known when the command runs`
      )
      return
    }
    if (RESERVED.has(name.text)) {
      this.problem('unparsable', command.text, `unsupported shell construct "${name.text}"`)
      return
    }
    this.items.push({ type: 'command', command })
    this.evaluation(words, assignments, command.text, ctx)
    for (const effect of commandEffects(words)) {
      if (effect.kind === 'problem') this.problem(effect.id, command.text, effect.reason)
      else if (effect.kind === 'read') {
        this.items.push({
          type: 'read',
          text: `${effect.label}: ${effect.target.text}`,
          target: effect.target
        })
      } else if (effect.kind === 'url') {
        this.items.push({
          type: 'url',
          text: `${effect.label}: ${effect.target.text}`,
          target: effect.target
        })
      } else {
        this.items.push({
          type: 'write',
          text: `${effect.label}: ${effect.target.text}`,
          target: effect.target,
          ...(effect.subtree === true ? { subtree: true } : {}),
          ...(effect.removes === true ? { removes: true } : {}),
          ...(effect.from !== undefined ? { from: effect.from } : {})
        })
      }
    }
    if (ctx.depth >= MAX_DEPTH && isWrapper(name.text)) {
      this.problem(
        'too-complex',
        command.text,
        `commands nested more than ${MAX_DEPTH} levels deep`
      )
      return
    }
    const inner: Context = {
      source: ctx.source,
      depth: ctx.depth + 1,
      via: [...ctx.via, path.basename(name.text)]
    }
    // what a package runner starts (`npx sh -c …`, `pnpm exec tee F`, `npx env X=1 jest`): a
    // shell, a wrapper or a writer it runs is followed as when run directly (the program itself
    // needs no rule of its own: its effects are counted by commandEffects)
    const started = packageRunnerCommands(words, path.basename(name.text)).flatMap((inner) =>
      inner.length > 0 && (inner[0] as ShellWord).literal ? runs(inner, this) : []
    )
    for (const run of [...runs(words, this), ...started]) {
      if (run.kind === 'words') {
        if (run.words.length > 0) this.effective(run.words, run.assignments ?? [], inner)
        // `env HOME=x` with no command still sets (and prints) them: check them all the same
        else
          for (const a of run.assignments ?? []) this.setsVariable(literalWord(a), `${name.text}`)
      } else if (run.kind === 'script') {
        if (run.script.literal) {
          this.script(run.script.text, inner.depth, inner.via)
        } else {
          this.problem(
            'dynamic-command',
            command.text,
            `the command string "${run.script.text}" is only known when the command runs`
          )
        }
      } else {
        this.problem('dynamic-command', command.text, run.reason)
      }
    }
  }

  /**
   * What bash itself evaluates for this command beyond running it: the variables it sets (its
   * prefix assignments, `read`/`printf -v`/`getopts`/... targets), arithmetic (`let`), `-v`
   * tests, shell options that change how later words are read, and paths no command may touch.
   */
  private evaluation(words: ShellWord[], assignments: string[], text: string, ctx: Context): void {
    const program = path.basename((words[0] as ShellWord).text)
    for (const assignment of assignments) {
      // `IFS= read -r line`: IFS set for read alone only changes how read splits its input
      if (program === 'read' && /^IFS=/.test(assignment)) continue
      this.setsVariable(
        { text: assignment, literal: true, prefix: assignment, tilde: false },
        'a variable assignment'
      )
    }
    for (const word of words.slice(1)) {
      const why = sensitiveWordReason(word)
      if (why !== undefined) this.problem('sensitive-path', text, why)
    }
    const args = words.slice(1)
    const option = (i: number) => {
      const w = args[i]
      return w !== undefined && w.literal && /^-[A-Za-z]+$/.test(w.text) ? w.text : undefined
    }
    switch (program) {
      case 'read':
      case 'mapfile':
      case 'readarray':
      case 'getopts':
      case 'printf':
      case 'wait': {
        const valued = {
          read: 'adinNptu',
          mapfile: 'dnOsuCc',
          readarray: 'dnOsuCc',
          printf: 'v',
          wait: 'p',
          getopts: ''
        }[program]
        const setters = {
          read: 'a',
          mapfile: '',
          readarray: '',
          printf: 'v',
          wait: 'p',
          getopts: ''
        }[program]
        let i = 0
        for (; i < args.length; i++) {
          const flags = option(i)
          if (flags === undefined) break
          const at = [...flags.slice(1)].findIndex((c) => valued.includes(c))
          if (at < 0) continue
          const letter = flags[at + 1] as string
          const inline = flags.slice(at + 2)
          const value = inline !== '' ? literalWord(inline) : args[++i]
          if (setters.includes(letter) && value !== undefined)
            this.setsVariable(value, `${program} -${letter}`)
        }
        if (args[i]?.literal === true && args[i]?.text === '--') i++
        const operands = args.slice(i)
        if (program === 'read') for (const w of operands) this.setsVariable(w, 'read')
        if ((program === 'mapfile' || program === 'readarray') && operands.length > 0) {
          this.setsVariable(operands[operands.length - 1] as ShellWord, program)
        }
        if (program === 'getopts' && operands[1] !== undefined)
          this.setsVariable(operands[1], 'getopts')
        if (
          (program === 'mapfile' || program === 'readarray') &&
          words.some((w) => !w.literal && w.prefix.startsWith('-'))
        ) {
          this.problem(
            'dynamic-argument',
            text,
            `an option of ${program} is only known when it runs`
          )
        }
        return
      }
      case 'let':
        for (const w of args) this.arithmetic(w.text, `let ${w.text}`)
        return
      case 'declare':
      case 'typeset':
      case 'local':
      case 'export':
      case 'readonly':
      case 'unset':
        // reached through `builtin export ...`, `command declare ...`, `eval 'export ...'`
        for (let i = 0; i < args.length; i++)
          this.declarationWord(program, args[i] as ShellWord, args.slice(0, i))
        return
      case 'test':
      case '[':
        for (let i = 0; i < args.length; i++) {
          const w = args[i] as ShellWord
          if (!w.literal || (w.text !== '-v' && w.text !== '-R')) continue
          const operand = args[i + 1]
          if (
            operand === undefined ||
            !operand.literal ||
            !/^[A-Za-z_][A-Za-z0-9_]*$/.test(operand.text)
          ) {
            this.problem(
              'evaluates-code',
              text,
              `${w.text} evaluates the subscript of the variable it names, which can run commands`
            )
          }
        }
        return
      case 'set':
        this.literalArguments(text, args, 'a shell option of set', (w, i) => {
          if (
            /^[-+][A-Za-z]*k/.test(w.text) ||
            (/^[-+]o$/.test(w.text) && args[i + 1]?.text === 'keyword')
          ) {
            this.problem(
              'evaluates-code',
              text,
              'set -k passes every NAME=value word to the command as a variable (`git diff HOME=src`)'
            )
          }
        })
        return
      case 'shopt':
        this.literalArguments(text, args, 'a shell option of shopt', (w) => {
          if (/^(?:cdable_vars|expand_aliases|extdebug|sourcepath|xpg_echo)$/.test(w.text)) {
            this.problem(
              'evaluates-code',
              text,
              `shopt ${w.text} changes what later words run or where they lead`
            )
          }
        })
        return
      case 'hash':
      case 'enable': {
        // `hash -p /tmp/x git` makes the name git run /tmp/x; `enable -f` loads a library
        const [letter, reason] = LOADS_CODE[program] as [string, string]
        const flag = new RegExp(`^-[A-Za-z]*${letter}`)
        if (args.some((w) => !w.literal || flag.test(w.text)))
          this.problem('runs-code', text, reason)
        return
      }
      case 'compgen':
      case 'complete':
        // -C runs a command for the completions; -F a function (judged where it is defined)
        this.literalArguments(text, args, `an option of ${program}`, (w, i) => {
          if (/^-[A-Za-z]*W/.test(w.text)) {
            // the word list is expanded: $(...) and backquotes in it run
            const list = /^-[A-Za-z]*W$/.test(w.text)
              ? args[i + 1]
              : literalWord(w.text.slice(w.text.indexOf('W') + 1))
            if (list === undefined || !list.literal || /[$`]/.test(list.text)) {
              this.problem(
                'evaluates-code',
                text,
                `${program} -W expands its word list, which can run commands`
              )
            }
          } else if (/^-[A-Za-z]*C$/.test(w.text)) {
            const script = args[i + 1]
            if (script !== undefined && script.literal) {
              this.script(script.text, ctx.depth + 1, [...ctx.via, program])
            } else {
              this.problem(
                'dynamic-command',
                text,
                `the command ${program} -C runs is only known when it runs`
              )
            }
          } else if (/^-[A-Za-z]*C./.test(w.text)) {
            this.script(w.text.slice(w.text.indexOf('C') + 1), ctx.depth + 1, [...ctx.via, program])
          }
        })
        return
      case 'alias':
        for (const w of args) {
          const eq = w.text.indexOf('=')
          if (!w.literal)
            this.problem(
              'dynamic-command',
              text,
              `the alias "${w.text}" is only known when it runs`
            )
          else if (eq > 0) this.script(w.text.slice(eq + 1), ctx.depth + 1, [...ctx.via, 'alias'])
        }
        return
      case 'env': {
        const scan = scanOptions(words, ENV_OPTIONS)
        for (const [option, value] of scan.options) {
          if (option === 'u' || option === 'unset') {
            if (value !== undefined) this.setsVariable(value, 'env -u')
          } else if (option === 'P') {
            // BSD env -P DIR looks the program up in DIR: PATH for this command
            this.setsVariable(literalWord('PATH'), 'env -P')
          }
        }
        return
      }
      case 'xargs':
        // xargs --process-slot-var=NAME sets NAME for every command it runs
        for (const [option, value] of scanOptions(words, XARGS_OPTIONS).options) {
          if (option === 'process-slot-var') {
            this.setsVariable(value ?? literalWord(''), 'xargs --process-slot-var')
          }
        }
        return
      case 'make':
      case 'gmake':
        // `make NAME=value` sets NAME for the recipes (make exports command-line variables)
        for (const w of args) {
          if (w.literal && w.text === '--') continue
          if (isAssignmentWord(w)) {
            const name = (w.literal ? w.text : w.prefix).split(/\+?=/)[0] as string
            this.setsVariable(literalWord(name), `${program} ${name}=`)
          }
        }
        return
      default:
        return
    }
  }

  /** Called by `runs` for the side effects of the commands it understands. */
  recordWrite(command: string, target: ShellWord): void {
    this.write(`${command}: ${target.text}`, target)
  }

  recordCd(target: CdTarget): void {
    this.cdTargets.push(target)
  }
}
