/** The OpenAI Responses API's protocol as one object (its client side stateless: gw's format adds the store). */
import type { Protocol } from 'gw/plugin/format';
import { OPENAI_ERRORS } from '../../lib/http/routes.ts';
import { responsesContent } from './content.ts';
import { responsesGenerate } from './generate.ts';
import { responsesRequestSchema } from './schema.ts';
import type { ResponsesStreamEvent } from './types.ts';
import { responsesVendor } from './vendor.ts';

/** OpenAI Responses (`openai-responses`). @see OpenAI API reference: Responses */
export const openaiResponses = {
  id: 'openai-responses',
  label: 'Responses',
  keyFrom: ['bearer'],
  errorBody: OPENAI_ERRORS.errorBody,
  schema: { request: responsesRequestSchema },
  content: responsesContent,
  client: { generate: responsesGenerate },
  vendor: responsesVendor,
} as const satisfies Protocol<ResponsesStreamEvent>;
