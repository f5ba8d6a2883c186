import { redirect, useRouteError, type LoaderFunctionArgs } from 'react-router';
import { useState } from 'react';
import type { Auth } from './auth-client';
import { useAuth } from './auth-context';
import { FullPageWait } from '../../ui/full-page-wait';
import { paths } from '../../ui/paths';

/** Loader of /auth/callback: exchanges the code, then goes back to the page the user asked for. */
export function createCallbackLoader(auth: Auth) {
  return async ({ request }: LoaderFunctionArgs) => redirect(await auth.completeSignIn(request.url));
}

export function SigningInScreen() {
  return (
    <FullPageWait>
      <h1>Signing you in…</h1>
    </FullPageWait>
  );
}

function describe(error: unknown): string {
  if (error && typeof error === 'object') {
    const {
      error: code,
      error_description: description,
      message,
    } = error as {
      error?: unknown;
      error_description?: unknown;
      message?: unknown;
    };
    if (code === 'access_denied') return 'Sign-in was cancelled or not allowed.';
    if (typeof description === 'string' && description) return description;
    if (typeof message === 'string' && /state/i.test(message)) {
      return 'This sign-in link has already been used or has expired (for example after going back in the browser).';
    }
    if (typeof message === 'string' && message) return message;
  }
  return 'The identity provider did not complete the sign-in.';
}

export function SignInErrorScreen() {
  const error = useRouteError();
  const { auth } = useAuth();
  const [pending, setPending] = useState(false);
  const [retryError, setRetryError] = useState<string | null>(null);

  const retry = () => {
    setPending(true);
    setRetryError(null);
    auth.signIn(paths.home.href()).catch((e: unknown) => {
      setPending(false);
      setRetryError(e instanceof Error ? e.message : 'Could not reach the sign-in service.');
    });
  };

  return (
    <main className="full-page">
      <div className="full-page__card" role="alert">
        <h1>Sign-in did not finish</h1>
        <p>{describe(error)}</p>
        <p className="muted">Your work is safe. Start the sign-in again to continue.</p>
        {retryError && <p className="form-error">{retryError}</p>}
        <div className="actions">
          <button type="button" className="button button--primary" onClick={retry} disabled={pending}>
            {pending ? 'Opening sign-in…' : 'Try again'}
          </button>
        </div>
      </div>
    </main>
  );
}
