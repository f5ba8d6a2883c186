import type { ResolvedConfig } from '../ui/config-context';
import { appConfigSchema, DEFAULT_UPLOAD_MAX_BYTES, type AppConfig } from '../contract/app-config';

export type { ResolvedConfig };

export type ConfigProblem =
  | { kind: 'config-unreachable'; url: string; detail: string }
  | { kind: 'config-invalid'; url: string; issues: string[] }
  | { kind: 'identity-unreachable'; url: string; detail: string }
  | { kind: 'app-unavailable'; detail: string };

export type StartupResult = { ok: true; config: ResolvedConfig } | { ok: false; problem: ConfigProblem };

/**
 * Resolves a config URL (absolute, or relative like "/") against the app's origin.
 * Returns the URL without a trailing slash so paths can be appended with `${url}/path`.
 */
export function resolveUrl(value: string, origin: string): string {
  const url = new URL(value, `${origin}/`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`must be an http(s) URL, got "${value}"`);
  }
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/** Validates raw `/config.json` content and resolves its URLs. */
export function parseConfig(raw: unknown, origin: string): { ok: true; config: ResolvedConfig } | { ok: false; issues: string[] } {
  const parsed = appConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => {
        const field = issue.path.length > 0 ? issue.path.join('.') : '(whole file)';
        return `${field}: ${issue.message}`;
      }),
    };
  }
  return resolveConfig(parsed.data, origin);
}

export function resolveConfig(config: AppConfig, origin: string): { ok: true; config: ResolvedConfig } | { ok: false; issues: string[] } {
  const issues: string[] = [];
  const resolve = (field: 'baseUrl' | 'authUrl' | 'issuer'): string => {
    try {
      return resolveUrl(config[field] ?? '', origin);
    } catch (error) {
      issues.push(`${field}: ${error instanceof Error ? error.message : String(error)}`);
      return '';
    }
  };
  const baseUrl = resolve('baseUrl');
  const authUrl = resolve('authUrl');
  const external = config.issuer ? resolve('issuer') : undefined;
  if (issues.length > 0) return { ok: false, issues };
  const embeddedIssuer = `${authUrl}/oauth2/default`;
  const issuer = external ?? embeddedIssuer;
  return {
    ok: true,
    config: {
      origin,
      baseUrl,
      authUrl,
      issuer,
      tokenUrl: `${embeddedIssuer}/v1/token`,
      clientId: config.clientId.trim(),
      scopes: config.scopes.trim(),
      uploadMaxBytes: config.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES,
    },
  };
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return String(error);
}

/**
 * Loads `/config.json`, validates it, and checks that the identity provider answers its
 * discovery document. Never throws: every failure becomes a problem the start screen explains.
 */
export async function loadStartup(origin: string, fetchImpl: typeof fetch = fetch): Promise<StartupResult> {
  const configUrl = `${origin}/config.json`;
  let response: Response;
  try {
    response = await fetchImpl(configUrl, { headers: { accept: 'application/json' }, cache: 'no-store' });
  } catch (error) {
    return { ok: false, problem: { kind: 'config-unreachable', url: configUrl, detail: describeFailure(error) } };
  }
  if (!response.ok) {
    return {
      ok: false,
      problem: {
        kind: 'config-unreachable',
        url: configUrl,
        detail: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      },
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(await response.text());
  } catch {
    return { ok: false, problem: { kind: 'config-invalid', url: configUrl, issues: ['The file is not valid JSON.'] } };
  }
  const parsed = parseConfig(raw, origin);
  if (!parsed.ok) return { ok: false, problem: { kind: 'config-invalid', url: configUrl, issues: parsed.issues } };

  const discoveryUrl = `${parsed.config.issuer}/.well-known/openid-configuration`;
  try {
    const discovery = await fetchImpl(discoveryUrl, { headers: { accept: 'application/json' } });
    if (!discovery.ok) {
      return { ok: false, problem: { kind: 'identity-unreachable', url: discoveryUrl, detail: `HTTP ${discovery.status}` } };
    }
    const doc: unknown = await discovery.json().catch(() => null);
    if (!doc || typeof doc !== 'object' || typeof (doc as { issuer?: unknown }).issuer !== 'string') {
      return {
        ok: false,
        problem: { kind: 'identity-unreachable', url: discoveryUrl, detail: 'The answer is not an OpenID Connect discovery document.' },
      };
    }
  } catch (error) {
    return { ok: false, problem: { kind: 'identity-unreachable', url: discoveryUrl, detail: describeFailure(error) } };
  }
  return parsed;
}
