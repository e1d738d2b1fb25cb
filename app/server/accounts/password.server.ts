// Password hashing: PBKDF2-SHA256 with a random 16-byte salt.
// 100,000 iterations is the most the production Workers runtime accepts (it rejects more),
// so the count is pinned here and in a test rather than tuned upward.
import { constantTimeEqual, fromBase64, randomBytes, toBase64 } from "../platform/tokens.server";

export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const KEY_BITS = 256;
const PREFIX = "pbkdf2_sha256";

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, KEY_BITS);
  return new Uint8Array(bits);
}

/** Returns `pbkdf2_sha256$<iterations>$<salt b64>$<hash b64>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return [PREFIX, PBKDF2_ITERATIONS, toBase64(salt), toBase64(hash)].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [prefix, iterations, salt, hash] = stored.split("$");
  if (prefix !== PREFIX || !iterations || !salt || !hash) return false;
  const count = Number(iterations);
  if (!Number.isInteger(count) || count < 1 || count > PBKDF2_ITERATIONS) return false;
  const expected = fromBase64(hash);
  const actual = await derive(password, fromBase64(salt), count);
  return constantTimeEqual(actual, expected);
}

// A fixed hash to verify against when no account matches, so a miss costs the same
// PBKDF2 work as a wrong password and the two cannot be told apart by timing.
const DECOY_HASH = `${PREFIX}$${PBKDF2_ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;

export async function burnPasswordCheck(password: string): Promise<void> {
  await verifyPassword(password, DECOY_HASH);
}
