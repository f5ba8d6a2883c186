import { pino } from 'pino';

/**
 * The service's one logger: JSON lines on stdout at LOG_LEVEL (default info). Fastify logs
 * through it too (main.ts). The CLI's own words to its user (the start banner, `users` output,
 * usage errors) are not logs and stay plain text.
 */
export const log = pino({ level: process.env.LOG_LEVEL ?? 'info' });
