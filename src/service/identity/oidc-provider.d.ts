// oidc-provider ships no types; this declares only the surface the service uses (checked
// against node_modules/oidc-provider/lib for 9.13).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type AdapterPayload = Record<string, unknown> & {
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: number;
  };

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface KoaContextWithOIDC {
    host: string;
    status: number;
    body: unknown;
    type: string;
    method: string;
    path: string;
    url: string;
    req: IncomingMessage & { originalUrl?: string };
    query: Record<string, string | string[] | undefined>;
    secure: boolean;
    set(field: string, value: string): void;
    get(field: string): string;
    oidc: {
      route?: string;
      client?: Client;
      params?: Record<string, unknown>;
      session?: { accountId?: string };
    };
  }

  export interface Client {
    clientId: string;
    clientName?: string;
    grantTypeAllowed(type: string): boolean;
    compareClientSecret(actual: string): Promise<boolean> | boolean;
  }

  export interface BaseToken {
    kind: string;
    clientId?: string;
    accountId?: string;
    scope?: string;
    extra?: Record<string, unknown>;
    scopes: Set<string>;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: unknown, rejected: string[]): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface Interaction {
    uid: string;
    returnTo: string;
    params: Record<string, unknown> & { client_id?: string; scope?: string };
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    session?: { accountId?: string; uid?: string };
    grantId?: string;
    lastSubmission?: Record<string, unknown>;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export type Configuration = Record<string, unknown>;

  export interface InteractionResults {
    login?: { accountId: string; remember?: boolean };
    consent?: { grantId?: string };
    error?: string;
    error_description?: string;
  }

  export type KoaMiddleware = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>;

  export class Provider {
    constructor(issuer: string, configuration: Configuration);
    readonly issuer: string;
    proxy: boolean;
    Interaction: { find(uid: string): Promise<Interaction | undefined> };
    Client: { prototype: Client; find(id: string): Promise<Client | undefined> };
    Grant: {
      new (init: { accountId?: string; clientId?: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: KoaMiddleware): void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
  }

  export const errors: {
    SessionNotFound: new (...args: unknown[]) => Error;
    InvalidClient: new (...args: unknown[]) => Error;
    InvalidTarget: new (...args: unknown[]) => Error;
  };

  export default Provider;
}
