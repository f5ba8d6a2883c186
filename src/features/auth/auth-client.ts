import { UserManager, type User } from 'oidc-client-ts';
import { idTokenClaimsSchema } from '../../contract/app-config';
import { paths } from '../../ui/paths';

export interface AuthSettings {
  /** OIDC issuer, `${authUrl}/oauth2/default`. */
  issuer: string;
  clientId: string;
  scopes: string;
  /** The app's own origin (for redirect URIs). */
  origin: string;
}

/** The signed-in person, from the ID token's claims. */
export interface CurrentUser {
  id: string;
  name: string;
  email: string | null;
  tenant: string | null;
  tenantName: string | null;
  roles: string[];
}

interface SignInState {
  returnTo: string;
}

export const callbackPath = paths.authCallback.href();

/** Accepts only same-origin app paths, so a crafted `state` can never send users elsewhere. */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  if (value.startsWith(callbackPath)) return '/';
  return value;
}

export function toCurrentUser(user: User): CurrentUser {
  const parsed = idTokenClaimsSchema.safeParse(user.profile);
  const claims = parsed.success ? parsed.data : { sub: user.profile.sub };
  return {
    id: claims.sub,
    name: claims.name ?? claims.email ?? claims.sub,
    email: claims.email ?? null,
    tenant: claims.tenant ?? null,
    tenantName: claims.tenant_name ?? null,
    roles: claims.roles ?? [],
  };
}

function currentPath(): string {
  return safeReturnPath(`${window.location.pathname}${window.location.search}${window.location.hash}`);
}

export interface Auth {
  readonly userManager: UserManager;
  /** A signed-in user whose access token has not expired, or null. */
  getUser(): Promise<User | null>;
  getAccessToken(): Promise<string | null>;
  /** One silent renewal with the refresh token (shared by concurrent callers); null if not possible. */
  renew(): Promise<string | null>;
  /** Starts sign-in at the provider; after it the app returns to `returnTo` (default: this page). */
  signIn(returnTo?: string): Promise<void>;
  /** Resolves a usable user, renewing silently if needed, else starts sign-in and never resolves. */
  requireUser(returnTo: string): Promise<User>;
  /** Finishes sign-in on /auth/callback; resolves the path to return to. */
  completeSignIn(url: string): Promise<string>;
  /** Ends the session here and at the provider. */
  signOut(): Promise<void>;
}

export function createAuth(settings: AuthSettings): Auth {
  const userManager = new UserManager({
    authority: settings.issuer,
    client_id: settings.clientId,
    redirect_uri: `${settings.origin}${callbackPath}`,
    post_logout_redirect_uri: `${settings.origin}/`,
    response_type: 'code',
    scope: settings.scopes,
    // Automatic renewal is ours (see accessTokenExpiring below): the library's would fall back to
    // an iframe (silent_redirect_uri defaults to redirect_uri) whenever there is no refresh token.
    automaticSilentRenew: false,
    monitorSession: false,
    loadUserInfo: false,
  });

  let renewing: Promise<string | null> | null = null;
  let signingIn: Promise<void> | null = null;
  const callbacks = new Map<string, Promise<string>>();

  // Renew a minute before the access token expires, with the refresh token only (never an iframe).
  userManager.events.addAccessTokenExpiring(() => {
    void renew();
  });

  async function getUser(): Promise<User | null> {
    const user = await userManager.getUser();
    return user && !user.expired ? user : null;
  }

  function renew(): Promise<string | null> {
    renewing ??= (async () => {
      try {
        const stored = await userManager.getUser();
        if (!stored?.refresh_token) return null;
        const user = await userManager.signinSilent();
        return user?.access_token ?? null;
      } catch {
        // Revoked or rotated-away refresh token: forget the stale session.
        await userManager.removeUser().catch(() => undefined);
        return null;
      } finally {
        renewing = null;
      }
    })();
    return renewing;
  }

  function signIn(returnTo: string = currentPath()): Promise<void> {
    const state: SignInState = { returnTo: safeReturnPath(returnTo) };
    signingIn ??= userManager.signinRedirect({ state }).catch((error: unknown) => {
      signingIn = null;
      throw error;
    });
    return signingIn;
  }

  return {
    userManager,
    getUser,
    async getAccessToken() {
      return (await getUser())?.access_token ?? null;
    },
    renew,
    signIn,
    async requireUser(returnTo) {
      const user = await getUser();
      if (user) return user;
      if (await renew()) {
        const renewed = await getUser();
        if (renewed) return renewed;
      }
      await signIn(returnTo);
      // The browser is leaving for the sign-in page; keep the navigation pending meanwhile.
      return new Promise<User>(() => undefined);
    },
    completeSignIn(url) {
      let pending = callbacks.get(url);
      if (!pending) {
        pending = (async () => {
          const params = new URL(url).searchParams;
          if (!params.has('code') && !params.has('error') && (await getUser())) return '/';
          const user = await userManager.signinCallback(url);
          return safeReturnPath((user?.state as Partial<SignInState> | undefined)?.returnTo);
        })();
        callbacks.set(url, pending);
      }
      return pending;
    },
    async signOut() {
      await userManager.signoutRedirect();
    },
  };
}
