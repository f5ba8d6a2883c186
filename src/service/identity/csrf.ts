import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Double-submit CSRF protection for the sign-in form: a random value in an HttpOnly cookie, and in
 * the form an HMAC of that value bound to the interaction uid. A cross-site page can neither read
 * the cookie nor compute the HMAC, and a token from one interaction is useless for another.
 */
export class SignInCsrf {
  static readonly cookieName = 'gsw_signin_csrf';

  private readonly key: Buffer;

  /** `secret` is a persisted service key; a purpose-bound key is derived so it is never reused as is. */
  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('gsw sign-in csrf v1').digest();
  }

  newCookieValue(): string {
    return randomBytes(24).toString('base64url');
  }

  tokenFor(uid: string, cookieValue: string): string {
    return createHmac('sha256', this.key).update(`signin:${uid}:${cookieValue}`).digest('base64url');
  }

  verify(uid: string, cookieValue: string | undefined, token: unknown): boolean {
    if (!cookieValue || typeof token !== 'string') return false;
    const expected = Buffer.from(this.tokenFor(uid, cookieValue));
    const actual = Buffer.from(token);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
