/**
 * The Copilot CLI's environment is every agent command's too (the sandbox sets it again after
 * --clearenv): no input, runner token or secret value may reach it.
 */
import { cliEnvironment } from '../../src/cli/process.js'

describe('cliEnvironment', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/runner',
    CI: 'true',
    RUNNER_TEMP: '/home/runner/work/_temp',
    GITHUB_WORKSPACE: '/home/runner/work/repo/repo',
    'INPUT_GITHUB-TOKEN': 'ghs_input',
    'INPUT_PROVIDER-API-KEY': 'sk-provider-key',
    GITHUB_TOKEN: 'ghs_env',
    GH_TOKEN: 'gho_env',
    COPILOT_GITHUB_TOKEN: 'ghu_env',
    GITHUB_COPILOT_API_TOKEN: 'x',
    ACTIONS_RUNTIME_TOKEN: 'runtime',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc',
    ACTIONS_CACHE_URL: 'https://cache',
    ACTIONS_RESULTS_URL: 'https://results',
    MY_DEPLOY_KEY: 'ghs_input',
    WRAPPED: 'Bearer sk-provider-key;',
    SHORT: 'abc'
  }

  it('keeps ordinary variables and drops inputs, tokens and the runner internals', () => {
    expect(cliEnvironment(env, ['ghs_input', 'sk-provider-key', 'abc'])).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/runner',
      CI: 'true',
      RUNNER_TEMP: '/home/runner/work/_temp',
      GITHUB_WORKSPACE: '/home/runner/work/repo/repo',
      // a secret shorter than 4 characters is not a secret worth matching
      SHORT: 'abc'
    })
  })

  it('drops a variable holding a secret value under any name, only then', () => {
    expect(cliEnvironment({ MY_DEPLOY_KEY: 'ghs_input' }, [])).toEqual({
      MY_DEPLOY_KEY: 'ghs_input'
    })
    expect(cliEnvironment({ MY_DEPLOY_KEY: 'ghs_input' }, ['ghs_input'])).toEqual({})
  })
})
