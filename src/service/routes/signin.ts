import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Interaction, Provider } from 'oidc-provider';
import cookie from '@fastify/cookie';
import type { Database } from '../store/schema';
import { authenticate } from '../store/users';
import { SignInCsrf } from '../identity/csrf';
import type { BruteForceGuard } from '../identity/throttle';
import { pageCsp } from '../identity/html';
import { appClientId } from '../identity/provider';
import { renderMessagePage, renderSignInPage } from '../identity/signin-page';

export interface SignInRoutesOptions {
  db: Kysely<Database>;
  provider: Provider;
  csrfKey: string;
  secureCookies: boolean;
  /** Wrong passwords per account and per client address (identity/throttle.ts). */
  guard: BruteForceGuard;
}

/** Clients whose consent is implied: the workbench's own app (shared decisions, OIDC). */
const firstPartyClients = new Set<string>([appClientId]);

/** The server-rendered sign-in page at oidc-provider's interaction url, `/signin/:uid`. */
export async function signInRoutes(parent: FastifyInstance, { db, provider, csrfKey, secureCookies, guard }: SignInRoutesOptions) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const csrf = new SignInCsrf(csrfKey);
  // The CSRF cookie of the sign-in form; oidc-provider reads and writes its own cookies itself.
  await app.register(cookie);

  // Only this plugin reads HTML forms; the API keeps answering 415 to them.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', pageCsp());
    reply.header('cache-control', 'no-store');
  });

  async function interactionFor(uid: string, raw: { req: IncomingMessage; res: ServerResponse }) {
    try {
      const interaction = await provider.interactionDetails(raw.req, raw.res);
      return interaction.uid === uid ? interaction : undefined;
    } catch {
      return undefined; // no or expired interaction cookie
    }
  }

  function expired(reply: FastifyReply) {
    return reply
      .status(400)
      .type('text/html; charset=utf-8')
      .send(renderMessagePage('Sign-in expired', 'This sign-in page has expired. Go back to the workbench and sign in again.'));
  }

  function showForm(
    reply: FastifyReply,
    uid: string,
    cookieValue: string,
    extra: { email?: string; failed?: boolean; retryAfterSeconds?: number } = {},
  ) {
    reply.setCookie(SignInCsrf.cookieName, cookieValue, {
      path: '/signin',
      httpOnly: true,
      secure: secureCookies,
      sameSite: 'lax',
      maxAge: 60 * 60,
    });
    if (extra.retryAfterSeconds) reply.header('retry-after', String(extra.retryAfterSeconds));
    return reply
      .status(extra.retryAfterSeconds ? 429 : extra.failed ? 401 : 200)
      .type('text/html; charset=utf-8')
      .send(renderSignInPage({ uid, csrfToken: csrf.tokenFor(uid, cookieValue), ...extra }));
  }

  app.get<{ Params: { uid: string } }>('/signin/:uid', async (request, reply) => {
    const { uid } = request.params;
    const interaction = await interactionFor(uid, { req: request.raw, res: reply.raw });
    if (!interaction) {
      // Without its cookie the form is still shown for a live interaction (a page reload in a
      // browser that dropped the cookie, a probe); the POST needs the cookie and says so.
      const stored = await provider.Interaction.find(uid).catch(() => undefined);
      if (stored?.prompt.name !== 'login') return expired(reply);
      const cookieValue = request.cookies[SignInCsrf.cookieName] ?? csrf.newCookieValue();
      return showForm(reply, uid, cookieValue);
    }

    if (interaction.prompt.name === 'consent') {
      if (!firstPartyClients.has(String(interaction.params.client_id))) {
        return reply
          .status(403)
          .type('text/html; charset=utf-8')
          .send(renderMessagePage('Not allowed', 'This application cannot sign in here.'));
      }
      const grantId = await grantRequestedAccess(provider, interaction);
      const returnTo = await provider.interactionResult(
        request.raw,
        reply.raw,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
      return reply.redirect(returnTo, 303);
    }
    if (interaction.prompt.name !== 'login') return expired(reply);

    const cookieValue = request.cookies[SignInCsrf.cookieName] ?? csrf.newCookieValue();
    return showForm(reply, uid, cookieValue);
  });

  app.post<{ Params: { uid: string }; Body: Record<string, string> | undefined }>('/signin/:uid', async (request, reply) => {
    const { uid } = request.params;
    const form = request.body && typeof request.body === 'object' ? request.body : {};
    const cookieValue = request.cookies[SignInCsrf.cookieName];
    if (!csrf.verify(uid, cookieValue, form.csrf)) {
      return reply
        .status(403)
        .type('text/html; charset=utf-8')
        .send(renderMessagePage('Sign-in refused', 'The sign-in form was not sent from this page. Reload the page and try again.'));
    }
    const interaction = await interactionFor(uid, { req: request.raw, res: reply.raw });
    if (!interaction || interaction.prompt.name !== 'login') return expired(reply);

    const email = typeof form.email === 'string' ? form.email.slice(0, 320) : '';
    const password = typeof form.password === 'string' ? form.password.slice(0, 1024) : '';
    // Checked before the password is: a blocked attacker costs no hash and learns nothing.
    const keys = { subject: email ? `account:${email.trim()}` : undefined, address: request.ip };
    const wait = await guard.blockedFor(keys);
    if (wait > 0) {
      request.log.warn({ address: request.ip }, 'sign-in throttled');
      return showForm(reply, uid, cookieValue as string, { email, retryAfterSeconds: wait });
    }
    const user = email && password ? await authenticate(db, email, password) : undefined;
    if (!user) {
      await guard.failed(keys);
      return showForm(reply, uid, cookieValue as string, { email, failed: true });
    }
    await guard.succeeded(keys);

    request.log.info({ userId: user.id }, 'signed in');
    const returnTo = await provider.interactionResult(
      request.raw,
      reply.raw,
      { login: { accountId: user.id } },
      { mergeWithLastSubmission: false },
    );
    return reply.redirect(returnTo, 303);
  });
}

/** First-party consent: grant exactly what this authorization request asked for and lacks. */
async function grantRequestedAccess(provider: Provider, interaction: Interaction): Promise<string> {
  const details = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  const existing = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const grant =
    existing ?? new provider.Grant({ accountId: interaction.session?.accountId, clientId: String(interaction.params.client_id) });
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}
