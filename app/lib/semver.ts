// Semantic versions (semver.org 2.0.0): what a release's version must look like, and their order,
// so that "latest" is the highest version and 1.10.0 comes after 1.9.0.

const SEMVER =
  /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

export const isSemver = (version: string) => version.length <= 64 && SEMVER.test(version);

const parts = (version: string) => {
  const match = SEMVER.exec(version);
  if (!match) return null;
  return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4]?.split(".") ?? [] };
};

function comparePre(a: string[], b: string[]): number {
  // A release version outranks any of its pre-releases (1.0.0 > 1.0.0-beta).
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x === y) continue;
    const [xn, yn] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (xn && yn) return Number(x) - Number(y);
    // Numeric identifiers rank below alphanumeric ones; alphanumeric ones compare in ASCII order.
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Negative, zero or positive as `a` precedes, equals or follows `b`; unparsable versions sort first. */
export function compareSemver(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  if (!x || !y) return (x ? 1 : 0) - (y ? 1 : 0);
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i]! - y.core[i]!;
  return Math.sign(comparePre(x.pre, y.pre));
}
