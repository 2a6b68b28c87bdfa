/**
 * A minimal chat completion a mock upstream answers with: one choice of `content`, stop, and
 * `usage` (default 3 prompt and 1 completion tokens; the total is their sum).
 */
export function chatCompletion(content: string, model = 'm', usage = { prompt_tokens: 3, completion_tokens: 1 }) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}
