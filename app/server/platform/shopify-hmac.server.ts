// Shopify signs each webhook body with HMAC-SHA256 under the app's webhook secret and sends the
// base64 digest in X-Shopify-Hmac-Sha256.
import { constantTimeEqual, fromBase64, toBase64 } from "./tokens.server";

// The key is imported once per isolate (and again only if the secret changes).
let imported: { secret: string; key: Promise<CryptoKey> } | undefined;

function hmacKey(secret: string): Promise<CryptoKey> {
  if (imported?.secret !== secret) {
    imported = {
      secret,
      key: crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]),
    };
  }
  return imported.key;
}

export async function signWebhookBody(body: string, secret: string): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(secret), new TextEncoder().encode(body));
  return toBase64(new Uint8Array(signature));
}

/** True only for a well-formed signature of exactly these bytes under `secret`. */
export async function verifyWebhookSignature(body: ArrayBuffer, header: string | null, secret: string): Promise<boolean> {
  if (!header || !secret || !/^[A-Za-z0-9+/]{43}=$/.test(header)) return false;
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), body));
  return constantTimeEqual(expected, fromBase64(header));
}
