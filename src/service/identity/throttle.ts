import { CompiledQuery, type Kysely } from 'kysely';
import { RateLimiterPostgres, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../store/schema';

/**
 * Brute-force protection for sign-in and token requests: rate-limiter-flexible's "login
 * endpoint" pattern (check before the secret is verified, count failures, forget them on
 * success), kept in the service's database (migration 0006), so API processes share counts.
 */
export interface BruteForceGuard {
  /** Seconds to wait before any of `keys` may try again; 0 when none is blocked. */
  blockedFor(keys: GuardKeys): Promise<number>;
  failed(keys: GuardKeys): Promise<void>;
  /** A right secret: the account's (or client's) count starts again; the address's does not. */
  succeeded(keys: GuardKeys): Promise<void>;
}

/** Who is trying (an account or client id) and from where (the client address). */
export interface GuardKeys {
  subject?: string | undefined;
  address: string;
}

export interface GuardLimits {
  /** Failures per subject per `subjectWindowSeconds`. */
  perSubject: number;
  subjectWindowSeconds: number;
  /** Failures per client address per `addressWindowSeconds`, over all subjects. */
  perAddress: number;
  addressWindowSeconds: number;
}

/** rate-limiter-flexible runs its SQL through the service's own Kysely pool (PGlite or PostgreSQL). */
function kyselyClient(db: Kysely<Database>) {
  return {
    async query(q: { text: string; values?: unknown[] }) {
      const result = await db.executeQuery(CompiledQuery.raw(q.text, q.values ?? []));
      return { rows: result.rows, rowCount: result.rows.length || Number(result.numAffectedRows ?? 0) };
    },
  };
}

export function createBruteForceGuard(db: Kysely<Database>, name: string, limits: GuardLimits): BruteForceGuard {
  const limiter = (scope: string, points: number, duration: number) =>
    new RateLimiterPostgres({
      storeClient: kyselyClient(db),
      storeType: 'client',
      tableName: 'throttle',
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: `${name}-${scope}`,
      points,
      duration,
    });
  const bySubject = limiter('subject', limits.perSubject, limits.subjectWindowSeconds);
  const byAddress = limiter('address', limits.perAddress, limits.addressWindowSeconds);
  const pairs = (keys: GuardKeys) =>
    [
      [byAddress, keys.address],
      [bySubject, keys.subject?.toLowerCase()],
    ].filter((p): p is [RateLimiterPostgres, string] => typeof p[1] === 'string' && p[1] !== '');

  return {
    async blockedFor(keys) {
      let wait = 0;
      for (const [l, key] of pairs(keys)) {
        const res: RateLimiterRes | null = await l.get(key);
        if (res && res.consumedPoints >= l.points) wait = Math.max(wait, Math.ceil(res.msBeforeNext / 1000));
      }
      return wait;
    },
    async failed(keys) {
      for (const [l, key] of pairs(keys)) {
        // consume() rejects (with the counts) once past its points: that is the point of it here.
        await l.consume(key).catch((rejection: unknown) => {
          if (rejection instanceof Error) throw rejection;
        });
      }
    },
    async succeeded(keys) {
      if (keys.subject) await bySubject.delete(keys.subject.toLowerCase());
    },
  };
}

/** Counters whose window ended an hour ago (rows live in the database until removed). */
export async function pruneThrottle(db: Kysely<Database>): Promise<void> {
  await db
    .deleteFrom('throttle')
    .where('expire', '<', Date.now() - 3_600_000)
    .execute();
}
