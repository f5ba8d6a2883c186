import { createHash, randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { isUniqueViolation } from './pg-errors';
import type { Role } from '../../contract/app-config';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords';
import type { Database, Tenant, User } from './schema';

export async function findTenantByKey(db: Kysely<Database>, key: string): Promise<Tenant | undefined> {
  return db.selectFrom('tenants').selectAll().where('key', '=', key).executeTakeFirst();
}

/** Returns the tenant with this key, creating it (with `name`, else the key) if missing. */
export async function ensureTenant(db: Kysely<Database>, key: string, name?: string): Promise<Tenant> {
  await db
    .insertInto('tenants')
    .values({ key, name: name ?? key })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const tenant = await findTenantByKey(db, key);
  if (!tenant) throw new Error(`tenant ${key} vanished while being created`);
  return tenant;
}

export interface CreateUserInput {
  tenantId: number;
  email: string;
  name: string;
  password: string;
  roles: readonly Role[];
}

export async function createUser(db: Kysely<Database>, input: CreateUserInput): Promise<User> {
  return db
    .insertInto('users')
    .values({
      id: randomUUID(),
      tenant_id: input.tenantId,
      email: input.email.trim(),
      name: input.name,
      password_hash: await hashPassword(input.password),
      roles: [...input.roles],
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findUserByEmail(db: Kysely<Database> | Transaction<Database>, email: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst();
}

export async function findUserById(db: Kysely<Database>, id: string): Promise<User | undefined> {
  if (!isUuid(id)) return undefined;
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A user with their tenant, the shape tokens and sessions need. */
export interface Account {
  user: User;
  tenant: Tenant;
}

export async function findAccount(db: Kysely<Database>, userId: string): Promise<Account | undefined> {
  const user = await findUserById(db, userId);
  if (!user) return undefined;
  const tenant = await db.selectFrom('tenants').selectAll().where('id', '=', user.tenant_id).executeTakeFirst();
  return tenant ? { user, tenant } : undefined;
}

/** The user for these credentials, or undefined; takes the same time whether or not the email exists. */
export async function authenticate(db: Kysely<Database>, email: string, password: string): Promise<User | undefined> {
  const user = await findUserByEmail(db, email);
  if (!user) {
    await burnPasswordCheck(password);
    return undefined;
  }
  return (await verifyPassword(password, user.password_hash)) ? user : undefined;
}

export async function listUsers(db: Kysely<Database>) {
  return db
    .selectFrom('users')
    .innerJoin('tenants', 'tenants.id', 'users.tenant_id')
    .select(['users.id', 'users.email', 'users.name', 'users.roles', 'users.created_at', 'tenants.key as tenant_key'])
    .orderBy('tenants.key')
    .orderBy('users.email')
    .execute();
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/** Marks a user who signs in elsewhere: no password matches it (verifyPassword wants `scrypt$…`). */
const NO_PASSWORD = '!external';

/**
 * The local user of another provider's subject, made on first sight in `tenantKey` (the tenant is
 * made too). The email is the token's when no other user has it, else one naming the subject.
 */
export async function externalUser(
  db: Kysely<Database>,
  identity: {
    issuer: string;
    subject: string;
    tenantKey: string;
    roles: readonly Role[];
    email?: string | undefined;
    name?: string | undefined;
  },
): Promise<{ userId: string; tenantId: number }> {
  const find = () =>
    db
      .selectFrom('external_identities as e')
      .innerJoin('users as u', 'u.id', 'e.user_id')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id as userId', 't.id as tenantId', 't.key as tenantKey', 'u.roles'])
      .where('e.issuer', '=', identity.issuer)
      .where('e.subject', '=', identity.subject)
      .executeTakeFirst();
  const known = await find();
  if (known && known.tenantKey === identity.tenantKey) {
    // The roles of the latest token are kept: the user's client credentials get tokens with them.
    if (known.roles.join(' ') !== identity.roles.join(' '))
      await db
        .updateTable('users')
        .set({ roles: [...identity.roles] })
        .where('id', '=', known.userId)
        .execute();
    return { userId: known.userId, tenantId: known.tenantId };
  }
  const tenant = await ensureTenant(db, identity.tenantKey);
  try {
    return await db.transaction().execute(async (trx) => {
      // A subject moved to another tenant at its provider starts afresh there: nothing follows it across tenants.
      if (known)
        await trx.deleteFrom('external_identities').where('issuer', '=', identity.issuer).where('subject', '=', identity.subject).execute();
      const synthetic = `${createHash('sha256').update(`${identity.issuer}\n${identity.subject}\n${identity.tenantKey}`).digest('hex').slice(0, 24)}@external.invalid`;
      const wanted = identity.email?.trim();
      const free = wanted && !(await findUserByEmail(trx, wanted));
      const user = await trx
        .insertInto('users')
        .values({
          id: randomUUID(),
          tenant_id: tenant.id,
          email: free ? wanted : synthetic,
          name: identity.name ?? wanted ?? identity.subject,
          password_hash: NO_PASSWORD,
          roles: [...identity.roles],
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('external_identities')
        .values({ issuer: identity.issuer, subject: identity.subject, user_id: user.id })
        .execute();
      return { userId: user.id, tenantId: tenant.id };
    });
  } catch (error) {
    // Two first requests at once: the other one made the user.
    const made = isUniqueViolation(error) ? await find() : undefined;
    if (made && made.tenantKey === identity.tenantKey) return { userId: made.userId, tenantId: made.tenantId };
    throw error;
  }
}
