import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { User } from 'oidc-client-ts';
import { toCurrentUser, type Auth, type CurrentUser } from './auth-client';

interface AuthContextValue {
  auth: Auth;
  /** undefined while the stored session is being read. */
  user: CurrentUser | null | undefined;
}

const AuthContext = createContext<AuthContextValue | null>(null);

export function AuthProvider({ auth, children }: { auth: Auth; children: ReactNode }) {
  const [user, setUser] = useState<CurrentUser | null | undefined>(undefined);

  useEffect(() => {
    let active = true;
    const loaded = (u: User) => {
      if (active) setUser(toCurrentUser(u));
    };
    const unloaded = () => {
      if (active) setUser(null);
    };
    const events = auth.userManager.events;
    events.addUserLoaded(loaded);
    events.addUserUnloaded(unloaded);
    events.addUserSignedOut(unloaded);
    void auth.userManager.getUser().then((u) => {
      if (active) setUser(u ? toCurrentUser(u) : null);
    });
    return () => {
      active = false;
      events.removeUserLoaded(loaded);
      events.removeUserUnloaded(unloaded);
      events.removeUserSignedOut(unloaded);
    };
  }, [auth]);

  const value = useMemo(() => ({ auth, user }), [auth, user]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <AuthProvider>');
  return value;
}

/** The signed-in user (name, email, tenant, roles), or null / undefined while loading. */
export function useCurrentUser(): CurrentUser | null | undefined {
  return useAuth().user;
}
