import { escapeHtml, page } from './html';

export interface SignInPageInput {
  uid: string;
  csrfToken: string;
  email?: string;
  failed?: boolean;
}

/** The sign-in form; ids, labels and texts are fixed by shared decisions (e2e relies on them). */
export function renderSignInPage({ uid, csrfToken, email = '', failed = false }: SignInPageInput): string {
  const alert = failed ? '<p role="alert">Wrong email or password.</p>\n' : '';
  return page(
    'Sign in',
    `<h1>Sign in</h1>
${alert}<form method="post" action="/signin/${encodeURIComponent(uid)}" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(csrfToken)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}"${failed ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${failed ? ' autofocus' : ''}>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function renderMessagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}
