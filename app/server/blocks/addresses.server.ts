// Client addresses as the blocklist compares them: every IPv4 or IPv6 address (or range) becomes
// 32 hex digits, IPv4 mapped into IPv6 (::ffff:a.b.c.d), so a range is its first and last address
// and "is this address blocked?" is one indexed string comparison.

const V4_PREFIX = "00000000000000000000ffff";

function v4Hex(address: string): string | null {
  const parts = address.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return V4_PREFIX + parts.map((p) => Number(p).toString(16).padStart(2, "0")).join("");
}

function v6Hex(address: string): string | null {
  if (!/^[0-9a-f:.]+$/i.test(address) || address.split("::").length > 2) return null;
  const [head = "", tail] = address.split("::");
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":"));
  let left = groupsOf(head);
  let right = tail === undefined ? [] : groupsOf(tail);
  // An IPv4 address written at the end (::ffff:203.0.113.7) is its last two groups.
  const last = (tail === undefined ? left : right).at(-1);
  if (last?.includes(".")) {
    const v4 = v4Hex(last);
    if (!v4) return null;
    const groups = [v4.slice(24, 28), v4.slice(28, 32)];
    if (tail === undefined) left = [...left.slice(0, -1), ...groups];
    else right = [...right.slice(0, -1), ...groups];
  }
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...right];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return groups.map((g) => g.toLowerCase().padStart(4, "0")).join("");
}

/** An address as 32 hex digits, or null for anything that is not one ("local" in tests). */
export function addressHex(address: string): string | null {
  return address.includes(":") ? v6Hex(address) : v4Hex(address);
}

/** A range's first and last address, from "a.b.c.d", "a.b.c.d/n", an IPv6 address or "…/n". */
export function addressRange(text: string): { start: string; end: string; canonical: string } | null {
  const [address = "", bits, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const hex = addressHex(address);
  if (!hex) return null;
  const v4 = !address.includes(":");
  const width = v4 ? 32 : 128;
  const prefix = bits === undefined ? width : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
  if (!(prefix >= (v4 ? 8 : 16) && prefix <= width)) return null;
  // Bits of the whole 128-bit value that the prefix fixes.
  const fixed = (v4 ? 96 : 0) + prefix;
  let start = "";
  let end = "";
  for (let i = 0; i < 32; i++) {
    const nibble = Number.parseInt(hex[i]!, 16);
    const keep = Math.max(0, Math.min(4, fixed - i * 4));
    const mask = (0xf << (4 - keep)) & 0xf;
    start += (nibble & mask).toString(16);
    end += ((nibble & mask) | (~mask & 0xf)).toString(16);
  }
  return { start, end, canonical: bits === undefined ? address.toLowerCase() : `${address.toLowerCase()}/${prefix}` };
}
