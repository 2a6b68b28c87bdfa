/**
 * Tool-call ids for Gemini function calls, carrying the part's `thoughtSignature` (Gemini 3
 * answers 400 without it next turn): clients echo ids verbatim, so gw keeps no state. Format
 * and reasons: the README's "tool-call ids and thought signatures". Follows Gemini's "Thought signatures".
 *
 *   call_gw_<nonce>[_ts_<base64url bytes> | _tx_<base64url UTF-8 text>]
 */
import { randomBytes } from 'node:crypto';

/** Returns a fresh alphanumeric nonce; injectable so tests get stable ids. */
export type IdSource = () => string;

const PREFIX = 'call_gw_';
const ID_RE = /^call_gw_([A-Za-z0-9]+)(?:_(ts|tx)_([A-Za-z0-9_-]+))?$/;
const NONCE_RE = /^[A-Za-z0-9]+$/;

/** 24 random hex characters. */
export const randomIdSource: IdSource = () => randomBytes(12).toString('hex');

/** Deterministic nonces `<prefix>0`, `<prefix>1`, … for tests and reproducible fixtures. */
export function counterIdSource(prefix = 'n'): IdSource {
  let i = 0;
  return () => `${prefix}${i++}`;
}

/** A tool-call id for one Gemini functionCall part, with its `thoughtSignature` encoded. */
export function mintToolCallId(signature: string | undefined, nextId: IdSource = randomIdSource): string {
  const nonce = nextId();
  if (!NONCE_RE.test(nonce)) throw new Error(`tool-call id nonce must be alphanumeric, got ${JSON.stringify(nonce)}`);
  if (signature === undefined || signature === '') return PREFIX + nonce;
  const bytes = Buffer.from(signature, 'base64');
  // Buffer's decoder skips junk silently; only a signature that re-encodes to itself is stored as bytes
  if (bytes.toString('base64') === signature) return `${PREFIX}${nonce}_ts_${bytes.toString('base64url')}`;
  return `${PREFIX}${nonce}_tx_${Buffer.from(signature, 'utf8').toString('base64url')}`;
}

/** What a tool-call id says: whether gw minted it, and the signature it carries. */
export interface ParsedToolCallId {
  minted: boolean;
  signature: string | undefined;
}

/** Decodes an id from `mintToolCallId`; any other id is `{minted: false}` with no signature. */
export function parseToolCallId(id: string): ParsedToolCallId {
  const m = ID_RE.exec(id);
  if (m === null) return { minted: false, signature: undefined };
  const [, , kind, payload] = m;
  if (kind === undefined || payload === undefined) return { minted: true, signature: undefined };
  const bytes = Buffer.from(payload, 'base64url');
  return { minted: true, signature: kind === 'ts' ? bytes.toString('base64') : bytes.toString('utf8') };
}
