import { describe, expect, it } from 'vitest';
import { shellQuote, tokenRequestCurl } from './curl';

describe('tokenRequestCurl', () => {
  it('builds the documented token request with the client id filled in', () => {
    const command = tokenRequestCurl({ tokenUrl: 'https://auth.example.com/oauth2/default/v1/token', clientId: 'cc_123' });
    expect(command).toContain("CLIENT_ID='cc_123'");
    expect(command).toContain("CLIENT_SECRET='YOUR_CLIENT_SECRET'");
    expect(command).toContain("curl --request POST 'https://auth.example.com/oauth2/default/v1/token'");
    expect(command).toContain("--header 'accept: application/json'");
    expect(command).toContain('authorization: Basic $(printf \'%s:%s\' "$CLIENT_ID" "$CLIENT_SECRET" | base64');
    expect(command).toContain("--header 'cache-control: no-cache'");
    expect(command).toContain("--header 'content-type: application/x-www-form-urlencoded'");
    expect(command).toContain("--data 'grant_type=client_credentials&scope=tenantApp%20roles'");
  });

  it('fills in a just-created secret and uses placeholders otherwise', () => {
    expect(tokenRequestCurl({ tokenUrl: 'http://x/t', clientId: 'a', clientSecret: 's' })).toContain("CLIENT_SECRET='s'");
    expect(tokenRequestCurl({ tokenUrl: 'http://x/t', clientId: null })).toContain("CLIENT_ID='YOUR_CLIENT_ID'");
  });

  it('quotes values safely for the shell', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
