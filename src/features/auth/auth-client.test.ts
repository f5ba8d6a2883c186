import { describe, expect, it } from 'vitest';
import { User } from 'oidc-client-ts';
import { safeReturnPath, toCurrentUser } from './auth-client';

describe('safeReturnPath', () => {
  it('keeps app paths with query and hash', () => {
    expect(safeReturnPath('/folders/12?search=bolt#top')).toBe('/folders/12?search=bolt#top');
  });
  it('refuses other origins, protocol-relative URLs and the callback itself', () => {
    expect(safeReturnPath('https://evil.example.com/')).toBe('/');
    expect(safeReturnPath('//evil.example.com/')).toBe('/');
    expect(safeReturnPath('/\\evil.example.com')).toBe('/');
    expect(safeReturnPath('/auth/callback?code=x')).toBe('/');
    expect(safeReturnPath(undefined)).toBe('/');
  });
});

describe('toCurrentUser', () => {
  it('reads name, email, tenant and roles from the ID token profile', () => {
    const user = new User({
      access_token: 'a',
      token_type: 'Bearer',
      profile: {
        sub: 'u1',
        iss: 'i',
        aud: 'workbench-app',
        exp: 0,
        iat: 0,
        name: 'Demo Designer',
        email: 'demo@example.com',
        tenant: 'demo',
        tenant_name: 'Demo Tenant',
        roles: ['viewer', 'editor'],
      },
    });
    expect(toCurrentUser(user)).toEqual({
      id: 'u1',
      name: 'Demo Designer',
      email: 'demo@example.com',
      tenant: 'demo',
      tenantName: 'Demo Tenant',
      roles: ['viewer', 'editor'],
    });
  });
});

import { afterEach, vi } from 'vitest';
import { createAuth } from './auth-client';

function makeUser(overrides: Partial<ConstructorParameters<typeof User>[0]> = {}) {
  return new User({
    access_token: 'access-1',
    token_type: 'Bearer',
    profile: { sub: 'u1', iss: 'i', aud: 'a', exp: 0, iat: 0 },
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  });
}

describe('createAuth', () => {
  const settings = {
    issuer: 'http://localhost:8080/oauth2/default',
    clientId: 'workbench-app',
    scopes: 'openid offline_access',
    origin: 'http://localhost:8080',
  };
  afterEach(() => vi.restoreAllMocks());

  it('configures the user manager for code + PKCE with refresh-token renewal', () => {
    const auth = createAuth(settings);
    const s = auth.userManager.settings;
    expect(s.authority).toBe(settings.issuer);
    expect(s.client_id).toBe('workbench-app');
    expect(s.redirect_uri).toBe('http://localhost:8080/auth/callback');
    expect(s.post_logout_redirect_uri).toBe('http://localhost:8080/');
    expect(s.response_type).toBe('code');
    expect(s.scope).toBe('openid offline_access');
    // Renewal is driven by accessTokenExpiring -> renew(), which only uses refresh tokens.
    expect(s.automaticSilentRenew).toBe(false);
  });

  it('renews automatically, with the refresh token, when the access token is about to expire', async () => {
    const auth = createAuth(settings);
    vi.spyOn(auth.userManager, 'getUser').mockResolvedValue(makeUser({ refresh_token: 'r1' }));
    const silent = vi.spyOn(auth.userManager, 'signinSilent').mockResolvedValue(makeUser({ access_token: 'access-2' }));
    await auth.userManager.events.load(makeUser({ expires_at: Math.floor(Date.now() / 1000) + 30, refresh_token: 'r1' }));
    await vi.waitFor(() => expect(silent).toHaveBeenCalledTimes(1), { timeout: 4000 });
    await auth.userManager.events.unload();
  });

  it('requireUser starts sign-in with the return path in state when nobody is signed in', async () => {
    const auth = createAuth(settings);
    vi.spyOn(auth.userManager, 'getUser').mockResolvedValue(null);
    const redirect = vi.spyOn(auth.userManager, 'signinRedirect').mockResolvedValue(undefined);
    const silent = vi.spyOn(auth.userManager, 'signinSilent');
    void auth.requireUser('/folders/3?search=bolt');
    await vi.waitFor(() => expect(redirect).toHaveBeenCalledWith({ state: { returnTo: '/folders/3?search=bolt' } }));
    expect(silent).not.toHaveBeenCalled();
  });

  it('requireUser renews an expired session with the refresh token instead of redirecting', async () => {
    const auth = createAuth(settings);
    const expired = makeUser({ expires_at: 1, refresh_token: 'r1' });
    const fresh = makeUser({ access_token: 'access-2', refresh_token: 'r2' });
    const getUser = vi.spyOn(auth.userManager, 'getUser').mockResolvedValue(expired);
    vi.spyOn(auth.userManager, 'signinSilent').mockImplementation(async () => {
      getUser.mockResolvedValue(fresh);
      return fresh;
    });
    const redirect = vi.spyOn(auth.userManager, 'signinRedirect');
    await expect(auth.requireUser('/upload')).resolves.toBe(fresh);
    expect(redirect).not.toHaveBeenCalled();
  });

  it('shares one renewal between concurrent callers and reports failure as null', async () => {
    const auth = createAuth(settings);
    vi.spyOn(auth.userManager, 'getUser').mockResolvedValue(makeUser({ refresh_token: 'r1' }));
    const silent = vi.spyOn(auth.userManager, 'signinSilent').mockRejectedValue(new Error('invalid_grant'));
    const remove = vi.spyOn(auth.userManager, 'removeUser').mockResolvedValue(undefined);
    const results = await Promise.all([auth.renew(), auth.renew(), auth.renew()]);
    expect(results).toEqual([null, null, null]);
    expect(silent).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalled();
  });

  it('completeSignIn returns the stored return path, once per callback URL', async () => {
    const auth = createAuth(settings);
    const callback = vi.spyOn(auth.userManager, 'signinCallback').mockResolvedValue(makeUser({ userState: { returnTo: '/credentials' } }));
    const url = 'http://localhost:8080/auth/callback?code=c&state=s';
    await expect(auth.completeSignIn(url)).resolves.toBe('/credentials');
    await expect(auth.completeSignIn(url)).resolves.toBe('/credentials');
    expect(callback).toHaveBeenCalledTimes(1);
  });
});
