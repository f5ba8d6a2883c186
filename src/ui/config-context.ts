import { createContext, useContext } from 'react';

/** The runtime config with every URL made absolute (no trailing slash). */
export interface ResolvedConfig {
  /** Origin the app runs on, e.g. `http://localhost:8080`. */
  origin: string;
  /** Serves `/v2/...` and `/client-credentials`. */
  baseUrl: string;
  /** Serves the identity provider under `/oauth2/default`. */
  authUrl: string;
  /** OIDC issuer the app signs in at: the config's `issuer`, else `${authUrl}/oauth2/default`. */
  issuer: string;
  /** Token endpoint used by the client credentials grant. */
  tokenUrl: string;
  clientId: string;
  scopes: string;
  /** Largest model file the service takes, so the upload page refuses bigger ones before sending. */
  uploadMaxBytes: number;
}

export const ConfigContext = createContext<ResolvedConfig | null>(null);

/** The resolved runtime config (available everywhere below the app root). */
export function useAppConfig(): ResolvedConfig {
  const config = useContext(ConfigContext);
  if (!config) throw new Error('useAppConfig must be used inside <ConfigContext>');
  return config;
}
