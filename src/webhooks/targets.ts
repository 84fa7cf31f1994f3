/**
 * Where a webhook may call (docs/guides/webhooks.md): `https://` URLs (or
 * `http://` where WEBHOOKS_ALLOW_HTTP is set) whose host resolves to addresses the internet
 * reaches only. Whether it does is the "Globally Reachable" column of IANA's IPv4 and IPv6
 * Special-Purpose Address Registries, by the ranges ipaddr.js knows (loopback, private, shared,
 * link-local, documentation, benchmarking, multicast, reserved, ...); an IPv6 spelling of an IPv4
 * address (`::ffff:10.0.0.1`, `::7f00:1`, NAT64, 6to4) is judged by that IPv4 address. A refused
 * address may still be called where it lies in WEBHOOKS_ALLOWED_NETWORKS: an endpoint must not
 * turn the service into a way to reach what sits beside it.
 *
 * The check runs when an endpoint is made or changed, and again on every connection a delivery
 * opens, on the addresses that connection is given (`guardedLookup`): a name that resolved to a
 * public address at creation and to a private one later (DNS rebinding) is refused at delivery.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { quoted } from '../words.ts';

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

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * What each range `range()` of ipaddr.js names is, by the "Globally Reachable" column of IANA's
 * IPv4 and IPv6 Special-Purpose Address Registries: null where the internet reaches it, else the
 * words of the refusal. A name missing here (a range a later ipaddr.js adds) is refused.
 */
const IPV4_RANGES: Record<string, string | null> = {
  unicast: null,
  as112: null,
  amt: null,
  unspecified: 'an unspecified ("this network") address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  private: 'a private address',
  // 192.0.0.0/24, the documentation networks, 198.18.0.0/15, the deprecated 6to4 relays, 240/4.
  reserved: 'an address reserved for documentation, benchmarking, protocol assignments or future use',
};

const IPV6_RANGES: Record<string, string | null> = {
  unicast: null,
  amt: null,
  as112v6: null,
  orchid2: null,
  droneRemoteIdProtocolEntityTags: null,
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  multicast: 'a multicast address',
  uniqueLocal: 'a private (unique local) address',
  deprecatedSiteLocal: 'a site-local address',
  discard: 'a discard-only address',
  teredo: 'a Teredo tunnel address',
  benchmarking: 'a benchmarking address',
  deprecatedOrchid: 'a deprecated ORCHID address',
  segmentRouting: 'a segment routing (SRv6) address',
  // IETF protocol assignments (2001::/23), documentation (2001:db8::/32, 3fff::/20).
  reserved: 'an address reserved for documentation or protocol assignments',
  // 64:ff9b:1::/48, local-use translation (64:ff9b::/96 is judged by the IPv4 address it embeds).
  rfc6052: 'a local-use IPv4/IPv6 translation address',
};

const cidr = (text: string) => ipaddr.parseCIDR(text);

/**
 * Entries the registries mark globally reachable inside blocks ipaddr.js names whole as
 * `reserved` (192.0.0.0/24, 2001::/23): the anycast addresses of PCP, TURN and DNS-SD SRP.
 */
const REACHABLE_INSIDE_RESERVED = [
  '192.0.0.9/32',
  '192.0.0.10/32',
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
].map(cidr);

/** IPv6 forms whose last 32 bits are an IPv4 address they lead to: mapped, translated, NAT64, IPv4-compatible. */
const ENDS_IN_IPV4 = ['::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96', '::/96'].map(cidr);
/** 6to4: the IPv4 address of the tunnel's end follows the prefix. */
const SIX_TO_FOUR = cidr('2002::/16');
/** The global unicast space (IANA's IPv6 Address Space registry): the rest is reserved by the IETF. */
const GLOBAL_UNICAST = cidr('2000::/3');

function within(address: Address, [network, prefix]: [Address, number]): boolean {
  return address.kind() === network.kind() && address.match(network, prefix);
}

/** The IPv4 address an IPv6 spelling leads to, if it embeds one (`::7f00:1` is 127.0.0.1). */
function embeddedIPv4(address: Address): ipaddr.IPv4 | undefined {
  if (address.kind() !== 'ipv6') return undefined;
  const parts = (address as ipaddr.IPv6).parts;
  const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
  // :: and ::1 are the IPv6 unspecified and loopback addresses, not IPv4-compatible ones.
  if (parts.slice(0, 7).every((part) => part === 0) && parts[7]! <= 1) return undefined;
  if (within(address, SIX_TO_FOUR)) return ipv4(parts[1]!, parts[2]!);
  if (ENDS_IN_IPV4.some((network) => within(address, network))) return ipv4(parts[6]!, parts[7]!);
  return undefined;
}

/** Why the internet cannot reach `address` (words of the refusal), or undefined when it can. */
function notGlobal(address: Address): string | undefined {
  if (REACHABLE_INSIDE_RESERVED.some((network) => within(address, network))) return undefined;
  const range = address.range();
  const ranges = address.kind() === 'ipv4' ? IPV4_RANGES : IPV6_RANGES;
  const what = range in ranges ? ranges[range] : 'a special-purpose address';
  if (what !== null) return what;
  if (address.kind() === 'ipv6' && !within(address, GLOBAL_UNICAST))
    return 'an address outside the global unicast space (2000::/3)';
  return undefined;
}

/** A CIDR as WEBHOOKS_ALLOWED_NETWORKS takes it, or undefined when it is not one. */
export function parseCidr(text: string): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [network, bits, extra] = text.trim().split('/');
  const version = isIP(network ?? '');
  if (!network || !version || extra !== undefined || bits === undefined || !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  return { network, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Why an address is refused: the words, and the IPv4 address it embeds when that is what is refused. */
interface Refusal {
  what: string;
  embeds?: string;
}

export class Targets {
  private readonly allowed: [Address, number][] = [];
  readonly resolve: Resolver;

  constructor(readonly policy: TargetPolicy) {
    for (const text of policy.allowedNetworks) {
      const parsed = parseCidr(text);
      if (parsed) this.allowed.push([ipaddr.parse(parsed.network), parsed.prefix]);
    }
    this.resolve = policy.resolve ?? systemResolver;
  }

  private isAllowed(address: Address): boolean {
    return this.allowed.some((network) => within(address, network));
  }

  /**
   * Why `address` may not be called, or undefined when it may: an IPv6 address that embeds an
   * IPv4 one (mapped, IPv4-compatible, NAT64, 6to4) is judged by that IPv4 address.
   */
  private refused(text: string): Refusal | undefined {
    if (!ipaddr.isValid(text)) return { what: 'not an IP address' };
    const address = ipaddr.parse(text);
    if (this.isAllowed(address)) return undefined;
    const embedded = embeddedIPv4(address);
    if (!embedded) {
      const what = notGlobal(address);
      return what === undefined ? undefined : { what };
    }
    if (this.isAllowed(embedded)) return undefined;
    const what = notGlobal(embedded);
    return what === undefined ? undefined : { what, embeds: embedded.toString() };
  }

  /** Why `address` may not be called (e.g. "a private address"), or undefined when it may. */
  refusal(address: string): string | undefined {
    const refused = this.refused(address);
    return refused && (refused.embeds ? `${refused.what} (it embeds ${refused.embeds})` : refused.what);
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
      return `must be an absolute URL (got ${quoted(text)})`;
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.policy.allowHttp))
      return this.policy.allowHttp
        ? 'must be an http:// or https:// URL'
        : 'must be an https:// URL (an operator may allow http:// too by setting WEBHOOKS_ALLOW_HTTP=true)';
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
      const refused = this.refused(address);
      if (!refused) continue;
      const place = `${host === address ? address : `${host} is ${address}`}${refused.embeds ? `, which embeds ${refused.embeds}` : ''}`;
      return `must not lead to ${refused.what} (${place}); an operator may allow its network in WEBHOOKS_ALLOWED_NETWORKS (CIDRs separated by commas, e.g. 10.20.0.0/16)`;
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
