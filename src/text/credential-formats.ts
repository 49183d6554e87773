/**
 * Credentials known by their format, and secrets known by their value: what must never leave a
 * run in a patch, a proposal, a label or a branch name (issue 29). A finding names the format (or
 * "a secret this job knows") and the line, never the value.
 *
 * The formats, a short list on purpose (each one a prefix or a block no prose holds by chance):
 * - GitHub tokens: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and 36 or more letters and digits;
 *   `github_pat_` and 22 or more word characters (fine-grained personal access tokens);
 * - private keys: a `-----BEGIN … PRIVATE KEY-----` line (RSA, EC, DSA, OpenSSH, PGP, PKCS #8);
 * - AWS access key ids: `AKIA` or `ASIA` and 16 capital letters or digits;
 * - Google API keys: `AIza` and 35 letters, digits, `-` or `_`;
 * - Slack tokens: `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-` and digits, letters and dashes;
 * - npm tokens: `npm_` and 36 letters or digits.
 */
import { redactNormalized } from './safe-text.js'

/** A format: its name as the refusal says it, and the pattern (never anchored to a line). */
export const CREDENTIAL_FORMATS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'a GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}/ },
  { name: 'a GitHub fine-grained token', pattern: /\bgithub_pat_\w{22,}/ },
  {
    name: 'a private key',
    pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/
  },
  { name: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/ },
  { name: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  { name: 'a Slack token', pattern: /\bxox[bpars]-[0-9A-Za-z-]{10,}/ },
  { name: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36,}/ }
]

export interface CredentialFinding {
  /** What was found: a format's name, or "a secret this job knows". */
  what: string
  /** 1-based line of the text it is on. */
  line: number
}

/** The first credential by format in `text`, or undefined. */
export function credentialByFormat(text: string): CredentialFinding | undefined {
  for (const { name, pattern } of CREDENTIAL_FORMATS) {
    const match = pattern.exec(text)
    if (match) return { what: name, line: lineAt(text, match.index) }
  }
  return undefined
}

/**
 * The first line of `text` holding one of the secrets (normalized: text/safe-text.ts
 * normalizeSecrets, so every encoding the redactor knows counts), or undefined.
 */
export function knownSecret(
  text: string,
  normalized: readonly string[]
): CredentialFinding | undefined {
  if (normalized.length === 0 || redactNormalized(text, normalized) === text) return undefined
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    if (redactNormalized(line, normalized) !== line) {
      return { what: 'a secret this job knows', line: i + 1 }
    }
  }
  // spread over lines (a multi-line secret): the first line it starts on is not known; say 1
  return { what: 'a secret this job knows', line: 1 }
}

/** A credential by format or a known secret in `text`, whichever comes first in that order. */
export function findCredential(
  text: string,
  normalized: readonly string[]
): CredentialFinding | undefined {
  return knownSecret(text, normalized) ?? credentialByFormat(text)
}

function lineAt(text: string, index: number): number {
  let line = 1
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++
  return line
}
