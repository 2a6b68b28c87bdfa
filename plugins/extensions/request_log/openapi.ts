/** The OpenAPI operation of GET /v1/requests: its filters (query.ts parses them) and answers. */
import { errorResponses } from 'gw/plugin/format';

const TIME = 'RFC 3339 (2026-01-31T10:00:00Z), a date (2026-01-31, UTC midnight) or epoch ms; a real calendar date';

const param = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

export const REQUESTS_OPENAPI: Record<string, unknown> = {
  summary: 'The request log, newest first (admin)',
  description:
    'Every gateway request once it is over, failed ones included. Filters combine (AND); a parameter not listed here, given twice, or with a bad value is a 400 naming it (`error.param`).',
  parameters: [
    param('limit', 'Entries to answer (default 100)', { type: 'integer', minimum: 1, maximum: 1000 }),
    param('key', 'Key name; `(unauthenticated)`: requests no key was accepted for', { type: 'string', maxLength: 256 }),
    param('model', 'The requested or the served model', { type: 'string', maxLength: 256 }),
    param('provider', 'The provider that answered (or failed last)', { type: 'string', maxLength: 256 }),
    param('route', '`chat`, `embeddings`, `messages`, …', { type: 'string', maxLength: 256 }),
    param('status', 'A status (`502`), a class (`4xx`, `5xx`), `error` (4xx and 5xx) or `ok`'),
    param('error_code', "gw's error code as the entry carries it (`rate_limit_exceeded`; `http_<status>` for a failure without one)", {
      type: 'string',
      pattern: '^[A-Za-z0-9_.-]{1,64}$',
    }),
    param('tag', '`<name>:<value>`: requests of keys with that tag now (`team:search`); `<name>:`: of keys without it, and of no key', {
      type: 'string',
    }),
    param('request_id', 'Part of a request id, any case', { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' }),
    param('since', `Requests that ended at or after this time: ${TIME}`),
    param('until', `Requests that ended before this time (after \`since\`): ${TIME}`),
  ],
  responses: {
    200: {
      description: 'Log entries, newest first (docs/console.md lists every field)',
      content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } } },
    },
    ...errorResponses([400, 401, 403]),
  },
};
