import { escapeHtml, page } from './html';

export interface SignInPageInput {
  uid: string;
  csrfToken: string;
  email?: string;
  failed?: boolean;
  /** Seconds before another attempt is accepted (too many failures). */
  retryAfterSeconds?: number;
}

/** The sign-in form; ids, labels and texts are fixed by shared decisions (e2e relies on them). */
export function renderSignInPage({ uid, csrfToken, email = '', failed = false, retryAfterSeconds }: SignInPageInput): string {
  const alert = retryAfterSeconds
    ? `<p role="alert">Too many failed sign-ins. Wait ${waitText(retryAfterSeconds)}, then try again.</p>\n`
    : failed
      ? '<p role="alert">Wrong email or password.</p>\n'
      : '';
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

function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

export function renderMessagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}
