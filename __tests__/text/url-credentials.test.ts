import {
  readsAsName,
  redactUrl,
  runnerSecrets,
  urlSecrets
} from '../../src/text/url-credentials.js'

describe('urlSecrets and redactUrl', () => {
  it.each([
    // [url, shown, secrets]
    [
      'https://gw.example.com/v1/sk-gw-7Hq2LmX9pQ/chat',
      'https://gw.example.com/v1/***/chat',
      ['sk-gw-7Hq2LmX9pQ']
    ],
    [
      'https://gw.example.com/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-02-15-preview',
      'https://gw.example.com/openai/deployments/gpt-4o-mini/chat/completions?api-version=***',
      []
    ],
    [
      'https://mcp.example.com/sse?t=tok_8f3a9c2e71&mode=fast',
      'https://mcp.example.com/sse?t=***&mode=***',
      ['tok_8f3a9c2e71']
    ],
    [
      'https://alice:p%40ss-w0rd!@gw.example.com:8443/v2/',
      'https://***@gw.example.com:8443/v2/',
      ['p%40ss-w0rd!', 'p@ss-w0rd!']
    ],
    ['https://ghp_abcdEFGH1234@host.example/x', 'https://***@host.example/x', ['ghp_abcdEFGH1234']],
    [
      'http://127.0.0.1:9/keys/0a1b2c3d4e5f60718293a4b5c6d7e8f9#frag-Xy7Q2',
      'http://127.0.0.1:9/keys/***#***',
      ['0a1b2c3d4e5f60718293a4b5c6d7e8f9', 'frag-Xy7Q2']
    ],
    ['https://api.openai.com/v1', 'https://api.openai.com/v1', []],
    ['https://h.example/?QWxhZGRpbjpvcGVu', 'https://h.example/?***', ['QWxhZGRpbjpvcGVu']]
  ])('%s shows as %s', (url, shown, secrets) => {
    expect(redactUrl(url)).toBe(shown)
    expect(urlSecrets(url).sort()).toEqual([...secrets].sort())
    for (const secret of secrets) expect(redactUrl(url)).not.toContain(secret)
  })

  it('quotes nothing of a string that is not a URL', () => {
    expect(redactUrl('gw.example.com/v1/sk-123456789')).toBe('(not a URL)')
    expect(urlSecrets('not a url')).toEqual([])
  })

  it('tells names (kept, not registered) from credentials', () => {
    for (const name of [
      'v1',
      'v1beta',
      'chat',
      'completions',
      'gpt-4o',
      'claude-3-5-sonnet',
      '2024-02-15-preview',
      'Anthropic',
      'true',
      '443'
    ])
      expect(readsAsName(name)).toBe(true)
    for (const key of [
      'sk-Qx7ZpLm',
      'AKIAIOSFODNN7EXAMPLE',
      'abcd1234',
      'QxZpLmWq',
      'eyJhbGciOiJI',
      '0123456789abcdef'
    ])
      expect(readsAsName(key)).toBe(false)
  })
})

describe('runnerSecrets', () => {
  it('takes the runtime and OIDC request tokens and the results URL signature, when present', () => {
    expect(
      runnerSecrets({
        ACTIONS_RUNTIME_TOKEN: 'eyJ0eXAi.runtime.token',
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: ' eyJ0eXAi.oidc.token ',
        ACTIONS_RESULTS_URL: 'https://results.example/twirp?sig=Zm9vYmFyMTIz&api-version=2'
      })
    ).toEqual(['eyJ0eXAi.runtime.token', 'eyJ0eXAi.oidc.token', 'Zm9vYmFyMTIz'])
    expect(runnerSecrets({ ACTIONS_RESULTS_URL: 'https://results.example/' })).toEqual([])
    expect(runnerSecrets({})).toEqual([])
  })
})
