import { createContext, useContext } from 'react';
import type { ResolvedConfig } from '../app/config';

export const ConfigContext = createContext<ResolvedConfig | null>(null);

/** The resolved runtime config (available everywhere below the app root). */
export function useAppConfig(): ResolvedConfig {
  const config = useContext(ConfigContext);
  if (!config) throw new Error('useAppConfig must be used inside <ConfigContext>');
  return config;
}
