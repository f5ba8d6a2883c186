import type { z } from 'zod';
import { apiErrorBodySchema, errorCodeForStatus, errorCodes } from '../contract/errors';

/** Every failed API call ends as one of these: the status, and the error code and message of the service's error body. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    /** HTTP status; 0 when the service could not be reached at all. */
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const clientErrorCodes = {
  network: 'network_error',
  invalidResponse: 'invalid_response',
  ...errorCodes,
} as const;

/** What the client needs from sign-in; the auth feature provides it at start-up. */
export interface ApiAuth {
  /** The current, unexpired access token, or null. */
  getAccessToken(): Promise<string | null>;
  /** Tries one silent renewal (refresh token); resolves the new access token or null. */
  renew(): Promise<string | null>;
  /** Starts interactive sign-in (navigates away), coming back to the current page. */
  signIn(): void;
}

export interface ApiClientOptions {
  /** Absolute base URL without a trailing slash. */
  baseUrl: string;
  auth: ApiAuth;
}

type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

export interface RequestOptions<S extends z.ZodType | undefined> {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Record<string, QueryValue>;
  /** JSON body. */
  body?: unknown;
  /** Response schema; omit for answers without a body (204). */
  schema?: S;
  /** Completes an answer before `schema` checks it (published-answers.ts: deployments that send only the published fields). */
  prepare?: (body: unknown) => unknown;
  /** The answer's body as text (a file such as a CSV export) instead of JSON checked by `schema`. */
  text?: boolean;
  signal?: AbortSignal;
}

type Result<S> = S extends z.ZodType ? z.output<S> : undefined;
type Answer<S, T> = T extends true ? string : Result<S>;

const statusMessages: Record<number, string> = {
  400: 'The service did not accept the request.',
  401: 'You are not signed in.',
  403: 'You are not allowed to do this.',
  404: 'This item does not exist (or is not visible to you).',
  409: 'This conflicts with the current state of the item.',
  413: 'This is too large for the service.',
  415: 'This type of file is not supported.',
  429: 'Too many requests. Wait a moment and try again.',
};

function codeForStatus(status: number): string {
  return errorCodeForStatus(status) ?? (status >= 500 ? errorCodes.internal : `http_${status}`);
}

/** Turns any non-2xx answer, JSON or not, into an ApiError. */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const parsed = apiErrorBodySchema.safeParse(body);
  if (parsed.success) {
    return new ApiError(response.status, parsed.data.error.code, parsed.data.error.message);
  }
  const status = response.status;
  // The published API's errors carry a message without a code.
  const published = apiErrorBodySchema.shape.error.pick({ message: true }).safeParse((body as { error?: unknown } | undefined)?.error);
  if (published.success) return new ApiError(status, codeForStatus(status), published.data.message);
  let message = statusMessages[status];
  if (!message) {
    message =
      status >= 500
        ? `The service had a problem (HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}). Try again in a moment.`
        : `The request failed (HTTP ${status}).`;
  }
  if (status === 429) {
    const retryAfter = response.headers.get('retry-after');
    if (retryAfter) message = `Too many requests. Try again in ${retryAfter} seconds.`;
  }
  return new ApiError(status, codeForStatus(status), message);
}

/** Joins the base URL and a path (`/v2/folders`) and appends query parameters. */
export function buildUrl(baseUrl: string, path: string, query?: Record<string, QueryValue>): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) url.searchParams.append(key, String(item));
    } else {
      url.searchParams.set(key, String(value));
    }
  }
  return url.href;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

export interface ApiClient {
  request<S extends z.ZodType | undefined = undefined, T extends boolean | undefined = undefined>(
    path: string,
    options?: RequestOptions<S> & { text?: T },
  ): Promise<Answer<S, T>>;
  /** The answer's body as a file (a PDF report), for the browser to save. */
  file(path: string, options?: Omit<RequestOptions<undefined>, 'schema' | 'prepare' | 'text'>): Promise<Blob>;
}

export function createApiClient({ baseUrl, auth }: ApiClientOptions): ApiClient {
  const signedOut = () => {
    auth.signIn();
    return new ApiError(401, errorCodes.unauthorized, 'Your session has ended. Taking you to sign-in…');
  };

  async function send(url: string, token: string, options: RequestOptions<z.ZodType | undefined>): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${token}` };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    try {
      // globalThis.fetch is read per call so tests (and polyfills) can replace it.
      return await globalThis.fetch(url, { method: options.method ?? 'GET', headers, body, signal: options.signal });
    } catch (error) {
      if (isAbort(error) || options.signal?.aborted) throw error;
      throw new ApiError(
        0,
        clientErrorCodes.network,
        `Could not reach the service at ${new URL(url).origin}. Check your connection and try again.`,
      );
    }
  }

  /** The answer of a request made with the user's token (renewed once on a 401); a refusal is thrown as an ApiError. */
  async function answered(path: string, options: RequestOptions<z.ZodType | undefined>): Promise<Response> {
    const url = buildUrl(baseUrl, path, options.query);

    let token = await auth.getAccessToken();
    let renewed = false;
    if (!token) {
      renewed = true;
      token = await auth.renew().catch(() => null);
      if (!token) throw signedOut();
    }

    let response = await send(url, token, options);
    if (response.status === 401 && !renewed) {
      // One renewal, one retry; a second 401 means the session is really over.
      const fresh = await auth.renew().catch(() => null);
      if (!fresh) throw signedOut();
      response = await send(url, fresh, options);
    }
    if (response.status === 401) throw signedOut();
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  async function request<S extends z.ZodType | undefined = undefined, T extends boolean | undefined = undefined>(
    path: string,
    options: RequestOptions<S> & { text?: T } = {},
  ): Promise<Answer<S, T>> {
    const response = await answered(path, options);
    if (options.text) return (await response.text()) as Answer<S, T>;
    if (!options.schema) return undefined as Answer<S, T>;
    let json: unknown;
    try {
      json = await response.json();
    } catch {
      throw new ApiError(response.status, clientErrorCodes.invalidResponse, 'The service sent an answer this app cannot read.');
    }
    const parsed = options.schema.safeParse(options.prepare ? await options.prepare(json) : json);
    if (!parsed.success) {
      console.error(`Unexpected answer from ${path}`, parsed.error.issues);
      throw new ApiError(response.status, clientErrorCodes.invalidResponse, 'The service sent an answer this app does not understand.');
    }
    return parsed.data as Answer<S, T>;
  }

  async function file(path: string, options: Omit<RequestOptions<undefined>, 'schema' | 'prepare' | 'text'> = {}): Promise<Blob> {
    return (await answered(path, options)).blob();
  }

  return { request, file };
}

let current: ApiClient | null = null;

/** Installs the app's one API client (called once at start-up, and by tests). */
export function configureApiClient(options: ApiClientOptions): ApiClient {
  current = createApiClient(options);
  return current;
}

export function apiClient(): ApiClient {
  if (!current) throw new Error('The API client is not configured yet.');
  return current;
}

/** A user-facing message for any error a query or mutation can end with. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong.';
}
