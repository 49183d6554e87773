/** The policy module: load a policy, decide permission requests, explain decisions. */
export type * from './types.js'
export { PolicyError, formatIssue, type PolicyIssue } from './errors.js'
export {
  compilePolicy,
  loadPolicy,
  parsePolicyText,
  resolvePolicyText,
  FALLBACK_PRESET,
  type CompiledPolicy,
  type ResolvedPolicy,
  type CompileOptions,
  type ParsedPolicy
} from './load.js'
export { feedbackFor, PolicyEngine, type CompiledRule } from './engine.js'
export { codeExecutionRule } from './code-execution.js'
export { PRESET_NAMES, presetText, type PresetName } from './presets.js'
export { runPolicyTests, type PolicyTestCase, type PolicyTestFailure } from './testing.js'
export { initBashParser, locateWasm } from './wasm.js'
export {
  annotationFile,
  displayFile,
  policyAnnotations,
  policyIssueSummary,
  type PolicyAnnotation,
  type PolicyAnnotationOptions,
  type PolicyAnnotationProperties
} from './annotations.js'
export {
  adviseOnDenial,
  BUILT_IN_CHECK_IDS,
  suggestRule,
  type Advice,
  type DenialInput,
  type RuleSuggestion,
  type SuggestOptions
} from './suggest.js'
export {
  homeCaches,
  protectedNames,
  sandboxConfigFor,
  sandboxNetwork,
  type SandboxConfig,
  type SandboxFilesystem,
  type SandboxNetwork,
  type SandboxPolicy
} from './sandbox.js'
export {
  commandNetwork,
  decideConnection,
  type CommandNetwork,
  type ConnectionDecision,
  type ConnectionRequest,
  type NetworkRule
} from './network.js'
export type { SandboxMode } from './schema.js'
export { checkPolicy, runPolicyTool, testPolicy } from './tool.js'
export { inScratchArea } from './scratch-areas.js'
