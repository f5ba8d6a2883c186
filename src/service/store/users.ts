import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
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

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<User | undefined> {
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
