/**
 * Built-in policies, as policy YAML compiled by the same code as policy files.
 * `policy/README.md` documents them.
 */

/**
 * Variables that make an allowed command run other code (a different program on PATH, a
 * preloaded library, a shell startup file, an interpreter option, a git or npm hook program).
 * Presets deny setting them, before a command (`X=1 cmd`), alone (`X=1`), or with env/export.
 */
const HIJACK_VARIABLES = `
  - id: env-hijack
    decision: deny
    reason: setting this variable can make an allowed command run other programs
    shell:
      - "PATH=*"
      - "LD_*=*"
      - "DYLD_*=*"
      - "BASH_ENV=*"
      - "ENV=*"
      - "SHELLOPTS=*"
      - "BASHOPTS=*"
      - "PS4=*"
      - "PROMPT_COMMAND=*"
      - "CDPATH=*"
      - "HOME=*"
      - "XDG_CONFIG_HOME=*"
      - "GIT_*=*"
      - "PAGER=*"
      - "EDITOR=*"
      - "VISUAL=*"
      - "MANPAGER=*"
      - "LESSOPEN=*"
      - "LESSCLOSE=*"
      - "NODE_OPTIONS=*"
      - "NODE_PATH=*"
      - "PYTHONPATH=*"
      - "PYTHONSTARTUP=*"
      - "PYTHONHOME=*"
      - "PERL5OPT=*"
      - "PERL5LIB=*"
      - "RUBYOPT=*"
      - "RUBYLIB=*"
      - "JAVA_TOOL_OPTIONS=*"
      - "_JAVA_OPTIONS=*"
      - "npm_config_*=*"
      - "NPM_CONFIG_*=*"`

const READ_ONLY = `# Built-in policy "read-only": look, do not touch.
version: 1
default: deny
rules:${HIJACK_VARIABLES}
  - id: find-actions
    decision: deny
    reason: find may only search; -exec, -ok, -delete and -fprint run commands or change files
    shell: ["find *-exec*", "find *-ok*", "find *-delete*", "find *-fprint*", "find *-fls*"]
  - id: rg-preprocessor
    decision: deny
    reason: rg --pre runs a program on every file it searches
    shell: ["rg *--pre*"]
  - id: git-output
    decision: deny
    reason: git --output writes a file
    shell: ["git *--output*"]
  - id: read-only-shell
    decision: allow
    shell:
      - "ls"
      - "ls *"
      - "cat"
      - "cat *"
      - "head"
      - "head *"
      - "tail"
      - "tail *"
      - "wc"
      - "wc *"
      - "grep *"
      - "egrep *"
      - "fgrep *"
      - "rg *"
      - "find *"
      - "pwd"
      - "echo"
      - "echo *"
      - "cd"
      - "cd *"
      - "basename *"
      - "dirname *"
      - "realpath *"
      - "stat *"
      - "file *"
      - "du *"
      - "diff *"
      - "cut *"
      - "tr *"
      - "true"
      - "false"
      - "git status"
      - "git status *"
      - "git diff"
      - "git diff *"
      - "git log"
      - "git log *"
      - "git show"
      - "git show *"
      - "git branch --show-current"
      - "git rev-parse *"
      - "git ls-files"
      - "git ls-files *"
      - "git blame *"
  - id: read-workspace
    decision: allow
    read: ["**"]
  - id: no-memory
    decision: deny
    reason: the read-only policy does not let the agent store memories
    memory: true
`

export const PRESETS = {
  'read-only': READ_ONLY
} as const satisfies Record<string, string>

export type PresetName = keyof typeof PRESETS

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[]

export function presetText(name: PresetName): string {
  return PRESETS[name]
}
