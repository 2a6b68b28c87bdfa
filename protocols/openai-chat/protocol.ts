/** The OpenAI chat completions protocol as one object: gw's common format, served to its clients as it is. */
import type { ChatCompletionChunk } from 'gw/plugin';
import type { Protocol } from 'gw/plugin/format';
import { OPENAI_ERRORS } from '../../lib/http/routes.ts';
import { OPENAI_CHAT } from './chat-frames.ts';
import { chatContent } from './content.ts';
import { chatEmbeddings } from './embeddings.ts';
import { chatGenerate } from './generate.ts';
import { modelList } from './models.ts';
import { chatRequestSchema } from './schema.ts';
import { chatVendor } from './vendor.ts';

/** Chat completions (`openai-chat`). @see OpenAI API reference: Chat Completions */
export const openaiChat = {
  id: OPENAI_CHAT,
  label: 'chat',
  keyFrom: ['bearer'],
  errorBody: OPENAI_ERRORS.errorBody,
  schema: { request: chatRequestSchema },
  content: chatContent,
  client: {
    generate: chatGenerate,
    embeddings: chatEmbeddings,
    models: { list: (models, _query) => modelList(models), one: (model) => model },
  },
  vendor: chatVendor,
} as const satisfies Protocol<ChatCompletionChunk>;
