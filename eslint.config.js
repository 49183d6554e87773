import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      '.tmp/**',
      '**/*.mjs',
      'dist/**',
      'build/**',
      'node_modules/**',
      'coverage/**',
      '*.js',
      '*.cjs'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }
      ],
      '@typescript-eslint/consistent-type-imports': 'error'
    }
  },
  {
    // Untrusted text never reaches the runner's command channel: lines are written through
    // src/log.ts, which neutralizes workflow commands (src/text/workflow-commands.ts).
    files: ['src/**/*.ts'],
    ignores: ['src/log.ts', 'src/policy-cli.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        {
          object: 'core',
          property: 'info',
          message: 'Log through src/log.ts (log.info): it neutralizes workflow commands.'
        },
        {
          object: 'process',
          property: 'stdout',
          message: 'Log through src/log.ts: it neutralizes workflow commands.'
        },
        {
          object: 'process',
          property: 'stderr',
          message: 'Log through src/log.ts: it neutralizes workflow commands.'
        }
      ]
    }
  },
  {
    // One door for what the action writes besides its log (issue 29): step outputs and the job
    // summary only through src/reporting/redacted-writes.ts, which redacts them once complete.
    // (The list repeats the one above: a later block's options replace an earlier one's.)
    files: ['src/**/*.ts'],
    ignores: ['src/log.ts', 'src/policy-cli.ts', 'src/reporting/redacted-writes.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'core', property: 'info', message: 'Log through src/log.ts (log.info).' },
        { object: 'process', property: 'stdout', message: 'Log through src/log.ts.' },
        { object: 'process', property: 'stderr', message: 'Log through src/log.ts.' },
        {
          object: 'core',
          property: 'setOutput',
          message: 'Set outputs through src/reporting/redacted-writes.ts (it redacts them).'
        },
        {
          object: 'core',
          property: 'summary',
          message: 'Write the job summary through src/reporting/redacted-writes.ts (it redacts it).'
        }
      ]
    }
  },
  {
    // policy/index.ts is the only way into src/policy from the rest of the action.
    files: ['src/**/*.ts'],
    ignores: ['src/policy/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/policy/*', '!**/policy/index.js'],
              message:
                'Import the policy through src/policy/index.js (export what is missing there).'
            }
          ]
        }
      ]
    }
  }
)
