/** A minimal chat completion a mock upstream answers with: one choice of `content`, stop, small usage. */
export function chatCompletion(content: string, model = 'm') {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  };
}
