// Where the shop may send webhooks: public HTTPS addresses only, so an endpoint can never make the
// Worker call into a private network, the machine it runs on or a cloud's metadata service. Checked
// when staff register an endpoint, and again before every delivery, after resolving the name.

/**
 * Only the development server may deliver to its own machine over plain HTTP (its local receiver,
 * /dev/webhooks); tests and production builds follow the production rule.
 */
export const LOCAL_RECEIVERS_ALLOWED = import.meta.env.MODE === "development";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);
// Names that only ever mean something inside a private network.
const PRIVATE_SUFFIXES = [".localhost", ".local", ".internal", ".intranet", ".lan", ".home.arpa", ".corp"];

/** IPv4 ranges that are not the public internet: [network, prefix length]. */
const PRIVATE_V4: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

function v4Number(address: string): number | null {
  const parts = address.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return null;
  return parts.reduce((n, part) => n * 256 + Number(part), 0);
}

function privateV4(value: number): boolean {
  return PRIVATE_V4.some(([base, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(v4Number(base)! / 2 ** (32 - bits)));
}

/** The eight 16-bit groups of an IPv6 address, or null when it is none. */
function v6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  // An IPv4 tail (::ffff:1.2.3.4) becomes its two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const value = v4Number(tail[1]!);
    if (value === null) return null;
    text = `${text.slice(0, -tail[1]!.length)}${Math.floor(value / 65536).toString(16)}:${(value % 65536).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const read = (half: string) =>
    half === "" ? [] : half.split(":").map((group) => (/^[0-9a-f]{1,4}$/.test(group) ? parseInt(group, 16) : NaN));
  const head = read(halves[0]!);
  const rest = halves.length === 2 ? read(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest];
  return groups.some(Number.isNaN) ? null : groups;
}

function privateV6(groups: number[]): boolean {
  const [a = 0, b = 0] = groups;
  const embeddedV4 = groups[6]! * 65536 + groups[7]!;
  if (groups.slice(0, 7).every((group) => group === 0)) return true; // :: and ::1
  if (groups.slice(0, 6).every((group) => group === 0)) return true; // IPv4-compatible (deprecated): never a real endpoint
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) return privateV4(embeddedV4); // IPv4-mapped
  if (groups.slice(0, 4).every((group) => group === 0) && groups[4] === 0xffff && groups[5] === 0) return privateV4(embeddedV4); // IPv4-translated
  if (a === 0x2002) return privateV4(b * 65536 + groups[2]!); // 6to4 carries its IPv4 address in the next two groups
  if (a === 0x64 && b === 0xff9b) return privateV4(embeddedV4); // NAT64
  if ((a & 0xfe00) === 0xfc00) return true; // unique local
  if ((a & 0xffc0) === 0xfe80) return true; // link-local
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x2001 && b === 0x0db8) return true; // documentation
  return a === 0x0100 && groups.slice(1, 4).every((group) => group === 0); // discard
}

/** Whether an address (IPv4 dotted, or IPv6 with or without brackets) is outside the public internet. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const v4 = v4Number(bare);
  if (v4 !== null) return privateV4(v4);
  const v6 = v6Groups(bare);
  return v6 === null ? false : privateV6(v6);
}

const isIpLiteral = (hostname: string) => v4Number(hostname) !== null || hostname.startsWith("[");

/**
 * Why the shop will not send to `raw`, or null when it may. The URL parser has already turned
 * tricks such as `http://2130706433/` or `http://0x7f.1/` into the dotted address they stand for.
 */
export function endpointAddressProblem(raw: string, allowLocal = LOCAL_RECEIVERS_ALLOWED): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Enter a full URL, e.g. https://hooks.example.com/shop";
  }
  if (url.username || url.password) return "The URL may not carry a user name or password";
  // A name's trailing dot (the DNS root) names the same host: `localhost.` is `localhost`.
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (allowLocal && LOOPBACK_NAMES.has(host) && (url.protocol === "http:" || url.protocol === "https:")) return null;
  if (url.protocol !== "https:") return "Webhooks are sent over HTTPS only: the URL must start with https://";
  if (isIpLiteral(host)) return isPrivateAddress(host) ? "Private, loopback and link-local addresses are refused" : null;
  if (!host.includes(".") || LOOPBACK_NAMES.has(host) || PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix)))
    return "The host must be a public name: private, loopback and local names are refused";
  return null;
}

/** Whether delivering to `raw` needs its name resolved first (a public name, not an address or the dev server's own). */
export function needsResolving(raw: string, allowLocal = LOCAL_RECEIVERS_ALLOWED): boolean {
  const host = new URL(raw).hostname.toLowerCase();
  return !isIpLiteral(host) && !(allowLocal && LOOPBACK_NAMES.has(host));
}

interface DnsAnswer {
  Answer?: { type: number; data: string }[];
}

/**
 * The addresses `host` resolves to, asked of a DNS-over-HTTPS resolver (A and AAAA records). The
 * Worker cannot pin the address its own fetch then uses, so this narrows the door rather than
 * closing it: a name that points inside a network now is refused now.
 */
export async function resolveHost(resolver: string, host: string, fetcher: typeof fetch): Promise<string[]> {
  const answers = await Promise.all(
    ["A", "AAAA"].map(async (type) => {
      const url = new URL(resolver);
      url.searchParams.set("name", host);
      url.searchParams.set("type", type);
      const response = await fetcher(url, { headers: { accept: "application/dns-json" }, signal: AbortSignal.timeout(5000) });
      if (!response.ok) throw new Error(`The DNS resolver answered ${response.status}`);
      const json = (await response.json()) as DnsAnswer;
      return (json.Answer ?? []).filter((answer) => answer.type === 1 || answer.type === 28).map((answer) => answer.data);
    }),
  );
  return answers.flat();
}
