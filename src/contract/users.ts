import { z } from 'zod';
import { roles } from './app-config';

/** The published API's role names for ours. */
export const publishedRoleNames = { admin: 'Administrators', editor: 'Authors', viewer: 'Viewers' } as const;

/**
 * `GET /v2/users/me`: the published fields, and ours beside them (the display name, the tenant's
 * key and name, and the workbench's own role names). Optional where another deployment may not say.
 */
export const currentUserResponseSchema = z.object({
  id: z.string(),
  externalId: z.string().optional(),
  email: z.string(),
  department: z.string().optional(),
  acceptedLicenseAgreement: z.boolean().optional(),
  status: z.string().optional(),
  roles: z.array(z.string()),
  tenants: z.array(z.string()),
  name: z.string().optional(),
  tenant: z.object({ key: z.string(), name: z.string() }).optional(),
  workbenchRoles: z.array(z.enum(roles)).optional(),
});
export type CurrentUser = z.infer<typeof currentUserResponseSchema>;
