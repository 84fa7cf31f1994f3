/**
 * Where a webhook may call (README, "Being called when data changes"): `https://` URLs (or
 * `http://` where WEBHOOKS_ALLOW_HTTP is set) whose host resolves to public addresses only. A
 * loopback, private, link-local, shared, multicast or cloud metadata address is refused unless it
 * lies in WEBHOOKS_ALLOWED_NETWORKS: an endpoint must not turn the service into a way to reach
 * what sits beside it.
 *
 * The check runs when an endpoint is made or changed, and again on every connection a delivery
 * opens, on the addresses that connection is given (`guardedLookup`): a name that resolved to a
 * public address at creation and to a private one later (DNS rebinding) is refused at delivery.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** How names are resolved: node:dns's lookup with `all: true` (tests hand in their own to rebind a name). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

export interface TargetPolicy {
  allowHttp: boolean;
  /** Networks (CIDRs) allowed although they are not public: an ERP on 10.20.0.0/16. */
  allowedNetworks: readonly string[];
  resolve?: Resolver;
}

/** The networks that are not the public internet, each with what to call an address in it. */
const NOT_PUBLIC: [network: string, prefix: number, what: string][] = [
  ['169.254.169.254', 32, 'a cloud metadata address'],
  ['100.100.100.200', 32, 'a cloud metadata address'],
  ['fd00:ec2::254', 128, 'a cloud metadata address'],
  ['0.0.0.0', 8, 'an unspecified address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['10.0.0.0', 8, 'a private address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.168.0.0', 16, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['192.0.0.0', 24, 'a reserved address'],
  ['198.18.0.0', 15, 'a reserved address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
  ['::', 128, 'an unspecified address'],
  ['::1', 128, 'a loopback address'],
  ['fc00::', 7, 'a private address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  // IPv4 addresses inside IPv6 (NAT64, 6to4): they may lead to any of the above.
  ['64:ff9b::', 96, 'an IPv4-translated address'],
  ['2002::', 16, 'a 6to4 address'],
  ['ff00::', 8, 'a multicast address'],
];

const NETWORKS = NOT_PUBLIC.map(([network, prefix, what]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  return { list, what };
});

/** A CIDR as WEBHOOKS_ALLOWED_NETWORKS takes it, or undefined when it is not one. */
export function parseCidr(text: string): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [network, bits, extra] = text.trim().split('/');
  const version = isIP(network ?? '');
  if (!network || !version || extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  return { network, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** `::ffff:10.0.0.1` is 10.0.0.1: checked as the IPv4 address it reaches. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

export class Targets {
  private readonly allowed = new BlockList();
  readonly resolve: Resolver;

  constructor(readonly policy: TargetPolicy) {
    for (const cidr of policy.allowedNetworks) {
      const parsed = parseCidr(cidr);
      if (parsed) this.allowed.addSubnet(parsed.network, parsed.prefix, parsed.family);
    }
    this.resolve = policy.resolve ?? systemResolver;
  }

  /** Why `address` may not be called (e.g. "a private address"), or undefined when it may. */
  refusal(address: string): string | undefined {
    const { address: plain, family } = unmapped(address);
    if (this.allowed.check(plain, family)) return undefined;
    return NETWORKS.find(({ list }) => list.check(plain, family))?.what;
  }

  /**
   * Why `text` may not be an endpoint's URL, or undefined when it may: its form, its scheme, and
   * every address its host resolves to now.
   */
  async problemWith(text: string): Promise<string | undefined> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return `must be an absolute URL (got ${JSON.stringify(text)})`;
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.policy.allowHttp))
      return this.policy.allowHttp ? 'must be an http:// or https:// URL' : 'must be an https:// URL';
    if (url.username || url.password) return 'must not carry a user name or password';
    if (url.hash) return 'must not have a fragment (#...)';
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await this.resolve(host)).map((a) => a.address);
      } catch {
        return `names a host that does not resolve (${host})`;
      }
    }
    for (const address of addresses) {
      const why = this.refusal(address);
      if (why)
        return `must not lead to ${why} (${host} is ${address}); an operator may allow its network in WEBHOOKS_ALLOWED_NETWORKS`;
    }
    return undefined;
  }

  /**
   * The `lookup` of a delivery's connection: resolves as `resolve` does and refuses the
   * connection when an address it would use is not allowed. Node calls it for names only: an
   * address in the URL itself is checked before the request (`refusal`).
   */
  guardedLookup() {
    return (
      hostname: string,
      options: { all?: boolean },
      callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      this.resolve(hostname).then(
        (addresses) => {
          const refused = addresses.find((a) => this.refusal(a.address));
          if (refused || addresses.length === 0) {
            const error: NodeJS.ErrnoException = new Error(
              refused
                ? `${hostname} resolves to ${refused.address}, ${this.refusal(refused.address)}: not called`
                : `${hostname} does not resolve`,
            );
            error.code = refused ? 'EWEBHOOKTARGET' : 'ENOTFOUND';
            callback(error, '');
            return;
          }
          if (options.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, ''),
      );
    };
  }
}
