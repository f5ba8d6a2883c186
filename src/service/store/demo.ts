import type { Kysely } from 'kysely';
import type { Database } from './schema';
import { createUser, ensureTenant, findUserByEmail } from './users';

export const demoTenant = { key: 'demo', name: 'Demo Tenant' } as const;

/** First start: the demo tenant and user. Idempotent. */
export async function ensureDemoAccount(db: Kysely<Database>, demo: { email: string; password: string }): Promise<boolean> {
  if (await findUserByEmail(db, demo.email)) return false;
  const tenant = await ensureTenant(db, demoTenant.key, demoTenant.name);
  try {
    await createUser(db, {
      tenantId: tenant.id,
      email: demo.email,
      name: 'Demo Designer',
      password: demo.password,
      roles: ['viewer', 'editor', 'admin'],
    });
  } catch (error) {
    // Two processes starting on one database at once: the other one made the user.
    if (await findUserByEmail(db, demo.email)) return false;
    throw error;
  }
  return true;
}
