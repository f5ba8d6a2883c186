import { parseArgs } from 'node:util';
import { z } from 'zod';
import { roles, type Role } from '../../contract/app-config';
import type { Store } from '../store/database';
import { createUser, ensureTenant, findUserByEmail, listUsers } from '../store/users';

/** A mistake of the person at the terminal: shown as a message, without a stack. */
export class CliError extends Error {
  override name = 'CliError';
}

const addArgsSchema = z.object({
  email: z.email(),
  password: z.string().min(8, 'at least 8 characters'),
  name: z.string().trim().min(1).max(200).optional(),
  tenant: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes')
    .default('demo'),
  roles: z
    .string()
    .default('viewer')
    .transform((s) =>
      s
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(roles)).min(1)),
});

function readOptions(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        name: { type: 'string' },
        tenant: { type: 'string' },
        roles: { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

/** `users add --email E --password P [--name N] [--tenant KEY] [--roles viewer,editor]` */
export async function usersAdd(store: Store, argv: string[]): Promise<string> {
  const parsed = addArgsSchema.safeParse(readOptions(argv));
  if (!parsed.success) {
    throw new CliError(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n'));
  }
  const input = parsed.data;
  if (await findUserByEmail(store.db, input.email)) throw new CliError(`A user with email ${input.email} already exists.`);
  const tenant = await ensureTenant(store.db, input.tenant);
  const user = await createUser(store.db, {
    tenantId: tenant.id,
    email: input.email,
    name: input.name ?? input.email.split('@')[0] ?? input.email,
    password: input.password,
    roles: input.roles as Role[],
  });
  return `Created user ${user.email} (${user.id}) in tenant ${tenant.key} with roles ${user.roles.join(', ')}.`;
}

export async function usersList(store: Store): Promise<string> {
  const rows = await listUsers(store.db);
  if (rows.length === 0) return 'No users.';
  return rows.map((u) => `${u.tenant_key}\t${u.email}\t${u.name}\t${u.roles.join(',')}\t${u.id}`).join('\n');
}
