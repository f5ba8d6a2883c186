export const clientIdPlaceholder = 'YOUR_CLIENT_ID';
export const clientSecretPlaceholder = 'YOUR_CLIENT_SECRET';

/** Quotes a value for a POSIX shell (single quotes; embedded ones escaped). */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The client credentials token request, as the published API documents it, as a curl command:
 * POST {auth_url}/oauth2/default/v1/token with accept, Basic authorization of
 * base64(CLIENT_ID:CLIENT_SECRET), cache-control and content-type headers, and the
 * form body grant_type=client_credentials&scope=tenantApp%20roles. The Basic value is
 * computed by the shell so the command works as pasted once the secret is filled in.
 */
export function tokenRequestCurl({
  tokenUrl,
  clientId,
  clientSecret,
}: {
  tokenUrl: string;
  clientId?: string | null;
  clientSecret?: string | null;
}): string {
  return [
    `CLIENT_ID=${shellQuote(clientId || clientIdPlaceholder)}`,
    `CLIENT_SECRET=${shellQuote(clientSecret || clientSecretPlaceholder)}`,
    '',
    `curl --request POST ${shellQuote(tokenUrl)} \\`,
    `  --header 'accept: application/json' \\`,
    `  --header "authorization: Basic $(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | base64 | tr -d '\\n')" \\`,
    `  --header 'cache-control: no-cache' \\`,
    `  --header 'content-type: application/x-www-form-urlencoded' \\`,
    `  --data 'grant_type=client_credentials&scope=tenantApp%20roles'`,
  ].join('\n');
}
