/**
 * The result schema gw asks upstream answers with: any JSON-RPC result, passed on as it came.
 * The SDK's own schemas would parse every result again (the costliest step of a call) and drop
 * fields a newer server adds; a gateway relays, it does not reshape.
 */
export const AS_IS = Object.freeze({ '~standard': { version: 1 as const, vendor: 'gw', validate: (value: unknown) => ({ value }) } });
