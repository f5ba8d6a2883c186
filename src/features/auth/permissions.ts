// What the signed-in user's roles allow, for every feature (auth is the shell's session, the one
// feature the others may import).
import { useCurrentUser } from './auth-context';

/** editor and admin may change folders, models and metadata; viewer only reads (the service refuses the rest with 403). */
export function canEdit(roles: readonly string[] | undefined): boolean {
  return !!roles && (roles.includes('editor') || roles.includes('admin'));
}

/** Whether the signed-in user may make changes; false while the session is still being read. */
export function useCanEdit(): boolean {
  return canEdit(useCurrentUser()?.roles);
}
