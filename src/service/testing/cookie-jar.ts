/**
 * A cookie jar just big enough for driving the sign-in flow with fetch: it honours Path and
 * expiry, and ignores Domain (everything in a test is one origin).
 */
export class CookieJar {
  private cookies = new Map<string, { value: string; path: string; expires: number }>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq);
      let path = '/';
      let expires = Infinity;
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        const k = key.toLowerCase();
        if (k === 'path') path = val;
        else if (k === 'max-age') expires = Date.now() + Number(val) * 1000;
        else if (k === 'expires' && expires === Infinity) expires = Date.parse(val);
      }
      const key = `${name}\u0000${path}`;
      if (expires <= Date.now()) this.cookies.delete(key);
      else this.cookies.set(key, { value: pair.slice(eq + 1), path, expires });
    }
  }

  /** The Cookie header for a request to `url`, most specific path first (as browsers do). */
  header(url: string): string {
    const path = new URL(url).pathname;
    const now = Date.now();
    return [...this.cookies.entries()]
      .filter(([, c]) => c.expires > now && (path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .sort(([, a], [, b]) => b.path.length - a.path.length)
      .map(([key, c]) => `${key.split('\u0000')[0]}=${c.value}`)
      .join('; ');
  }

  delete(name: string): void {
    for (const key of [...this.cookies.keys()]) if (key.startsWith(`${name}\u0000`)) this.cookies.delete(key);
  }

  /** fetch with this jar's cookies, never following redirects (tests look at each hop). */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.header(url);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.store(response);
    return response;
  }
}
