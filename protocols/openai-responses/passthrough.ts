/** What a native Responses stream's events say without parsing them: their type, and which end the stream. */

/** Events that end a Responses stream for good. */
export function isTerminal(type: string | undefined): boolean {
  return type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed';
}

/**
 * An event's `type` read from its data without parsing it, for upstreams that send no
 * `event:` line: OpenAI serializes `type` first (`{"type":"response.created",…`).
 */
export function typeOf(data: string): string | undefined {
  if (!data.startsWith('{"type":"')) return undefined;
  const end = data.indexOf('"', 9);
  return end > 9 ? data.slice(9, end) : undefined;
}
