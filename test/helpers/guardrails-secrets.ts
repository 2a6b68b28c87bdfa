/**
 * Credentials in their vendors' real formats, made up at run time (none is a live key, and
 * none sits in the repository for a secret scanner to flag): what the guardrails tests hide
 * in prompts, answers, tool calls and streams.
 */
import { generateKeyPairSync } from 'node:crypto';

/** `n` characters cycling through `alphabet` from `seed`: fixed, not random, and not a run of one character. */
function fill(n: number, alphabet: string, seed: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[(seed + i * 7 + ((i * i) % 5)) % alphabet.length];
  return out;
}

const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const TOKEN = `${ALNUM}-_`;

const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString().trim();

/** Each secret kind the issue names, with the entity a `secrets` check reports it as. */
export const SECRETS: ReadonlyArray<{ readonly kind: string; readonly value: string; readonly entity: string }> = [
  { kind: 'AWS access key id', value: `AKIA${fill(16, UPPER_DIGITS, 3)}`, entity: 'aws-access-key' },
  { kind: 'Anthropic API key', value: `sk-ant-api03-${fill(93, TOKEN, 5)}AA`, entity: 'anthropic-key' },
  { kind: 'GitHub token', value: `ghp_${fill(36, ALNUM, 11)}`, entity: 'github-token' },
  { kind: 'PEM private key', value: pem, entity: 'private-key' },
];

/** An AWS secret access key as a `.env` line writes it, and the 40 characters that are the secret. */
export const AWS_SECRET = fill(40, `${ALNUM}/+`, 17);
