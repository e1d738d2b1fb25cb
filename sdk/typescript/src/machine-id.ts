// The default hardware id, the same on a PC whichever SDK derives it (sdk/vectors/machine-id-vectors.json):
// the machine's identity source ("smbios:<firmware UUID>", else the installation's own id) keyed
// into HMAC-SHA256 with the program's salt, so the shop never sees it raw and two programs on one
// PC send unrelated ids. Reading the sources is the Node entry's job (./node.ts); this part runs anywhere.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** The salt every SDK uses unless the program names its own. */
export const DEFAULT_HWID_SALT = "vertex-licence";

// What firmware writes when it has no UUID to give: every PC of a kind would share it.
const PLACEHOLDER_UUIDS = new Set(["03000200-0400-0500-0006-000700080009", "00020003-0004-0005-0006-000700080009"]);

/** The firmware's UUID as a source ("smbios:" and the lowercase UUID), or null for none or a placeholder. */
export function firmwareSource(uuid: string): string | null {
  const id = uuid.replace(/[ \t\r\n]/g, "").toLowerCase();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) return null;
  const digits = id.replaceAll("-", "");
  if (/^0+$/.test(digits) || /^f+$/.test(digits) || PLACEHOLDER_UUIDS.has(id)) return null;
  return `smbios:${id}`;
}

/** The hardware id sent for `source`: HMAC-SHA256 of its UTF-8 bytes keyed with `salt`'s, in lowercase hex. */
export function hardwareId(salt: string, source: string): string {
  const encode = (text: string) => new TextEncoder().encode(text);
  return bytesToHex(hmac(sha256, encode(salt), encode(source)));
}
