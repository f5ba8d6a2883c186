// The one place this feature reads the signed-in user: roles come from the auth feature's hook
// (auth is the shell's session rather than a sibling task).
import { useCurrentUser } from '../auth/auth-context';

/** editor and admin may change folders, models and metadata (api-contract.md, Identity). */
export function canEdit(roles: readonly string[] | undefined): boolean {
  return !!roles && (roles.includes('editor') || roles.includes('admin'));
}

/** Whether the signed-in user may make changes; false while the session is still being read. */
export function useCanEdit(): boolean {
  return canEdit(useCurrentUser()?.roles);
}
