/** The log levels gw knows, most severe first (`LOG_LEVEL`, an extension's `level` setting). */
export const LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;
