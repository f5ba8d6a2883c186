// Webhook addresses a tenant may use: public (unicast) addresses only, unless the deployment
// allows private ones explicitly (WEBHOOKS_ALLOW_PRIVATE). Checked when an endpoint is registered
// and again at every connection (the name may resolve elsewhere by then), on every address the
// name resolves to.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The range an address is in when a webhook may not reach it ("loopback", "private", …); null for a public one. */
export function refusedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    // The deprecated IPv4-compatible form (::a.b.c.d) reaches the IPv4 address on some stacks.
    else if (v6.parts.slice(0, 6).every((p) => p === 0) && v6.parts[6] !== 0) return 'ipv4Compatible';
  }
  const range = ip.range();
  return range === 'unicast' ? null : range;
}

const refusal = (host: string, address: string, range: string) =>
  `${host} is ${address === host ? 'an address' : `at ${address}`} in the ${range} range, which webhooks may not reach on this deployment`;

/** Why `url` may not receive webhooks (its name does not resolve, or resolves to a refused range); null when it may. */
export async function addressProblem(url: string, allowPrivate: boolean): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate) return null;
  const addresses = isIP(host)
    ? [host]
    : await new Promise<string[] | Error>((resolve) =>
        dnsLookup(host, { all: true }, (error, found) => resolve(error ?? found.map((a) => a.address))),
      );
  if (addresses instanceof Error) return `${host} could not be resolved (${addresses.message})`;
  for (const address of addresses) {
    const range = refusedRange(address);
    if (range) return refusal(host, address, range);
  }
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that refuses names resolving to a refused range at connection time
 * (so a name cannot pass the check and then point inside). Literal addresses never reach a lookup:
 * the caller checks them with refusedRange.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, []);
      const bad = allowPrivate ? undefined : found.find((a) => refusedRange(a.address));
      if (bad)
        return callback(Object.assign(new Error(refusal(hostname, bad.address, refusedRange(bad.address)!)), { code: 'EREFUSED' }), []);
      if ((options as LookupAllOptions).all) return callback(null, found);
      return callback(null, found[0]!.address, found[0]!.family);
    });
  };
}
