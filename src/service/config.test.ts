import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('service configuration', () => {
  it('has the documented defaults on loopback, demo login included', () => {
    const c = loadConfig({}, '/repo');
    expect(c).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/repo/.data',
      databaseUrl: undefined,
      publicUrl: 'http://localhost:8080',
      demo: { email: 'demo@example.com', password: 'demo-password' },
    });
  });

  it('makes no demo user on other hosts unless a password is given', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }, '/repo').demo).toBeUndefined();
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }, '/repo').publicUrl).toBe('http://localhost:9000');
    expect(loadConfig({ HOST: '10.0.0.5', DEMO_USER: 'a@b.co', DEMO_PASSWORD: 'long-enough' }, '/repo')).toMatchObject({
      publicUrl: 'http://10.0.0.5:8080',
      demo: { email: 'a@b.co', password: 'long-enough' },
    });
  });

  it('takes PUBLIC_URL, DATA_DIR and DATABASE_URL, and refuses bad values by name', () => {
    const c = loadConfig({ PUBLIC_URL: 'https://cad.example.com/', DATA_DIR: '/var/gsw', DATABASE_URL: 'postgres://u:p@db/gsw' }, '/repo');
    expect(c).toMatchObject({ publicUrl: 'https://cad.example.com', dataDir: '/var/gsw', databaseUrl: 'postgres://u:p@db/gsw' });
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DEMO_PASSWORD: 'short' })).toThrow(/DEMO_PASSWORD/);
  });
});
