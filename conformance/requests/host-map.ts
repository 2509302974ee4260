// Host names that DNS does not resolve (e.g. `acme.api.localhost`, which Node does not map to
// loopback), mapped to addresses by the target file's `hosts`: `{"*.localhost": "127.0.0.1"}`.
// `*.suffix` matches every name below `suffix`, at any depth; an exact name matches itself.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

export type HostMap = Readonly<Record<string, string>>;

export function mappedAddress(hostname: string, hosts: HostMap): string | undefined {
  const name = hostname.toLowerCase();
  if (hosts[name] !== undefined) return hosts[name];
  let best: { suffix: string; address: string } | undefined;
  for (const [pattern, address] of Object.entries(hosts)) {
    if (!pattern.startsWith('*.')) continue;
    const suffix = pattern.slice(1).toLowerCase();
    if (name.endsWith(suffix) && (!best || suffix.length > best.suffix.length)) best = { suffix, address };
  }
  return best?.address;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for node:net/tls/http that answers mapped names itself and asks DNS for the rest. */
export function lookupWith(hosts: HostMap) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    const address = mappedAddress(hostname, hosts);
    if (address === undefined) {
      dnsLookup(hostname, { all: options.all === true }, callback);
      return;
    }
    const family = isIP(address) || 4;
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
