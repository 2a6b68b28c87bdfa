/** The Anthropic Messages protocol as one object, assembled from the kit's files. */
import type { Protocol } from 'gw/plugin/format';
import { messagesContent } from './content.ts';
import { messagesCountTokens } from './count-tokens.ts';
import { messagesErrorBody } from './errors.ts';
import { messagesGenerate } from './generate.ts';
import { messagesModel, messagesModelPage } from './models.ts';
import { messagesErrorSchema, messagesRequestSchema } from './schema.ts';
import type { MessagesStreamEvent } from './types.ts';
import { messagesVendor } from './vendor.ts';

/** Anthropic Messages (`anthropic-messages`). @see Anthropic API: Messages */
export const anthropicMessages = {
  id: 'anthropic-messages',
  label: 'Messages',
  keyFrom: ['x-api-key', 'bearer'],
  errorBody: messagesErrorBody,
  schema: { request: messagesRequestSchema, error: messagesErrorSchema },
  content: messagesContent,
  client: {
    generate: messagesGenerate,
    countTokens: messagesCountTokens,
    models: { list: (models, _query) => messagesModelPage(models), one: messagesModel },
  },
  vendor: messagesVendor,
} as const satisfies Protocol<MessagesStreamEvent>;
