// Standard Webhooks signing: each endpoint's secret is `whsec_` and base64 of random bytes; a
// delivery is signed with HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}` with those
// bytes, and the signature header lists `v1,` and base64 of each valid secret's signature,
// separated by spaces (two while a rotated secret's old one still counts).
import { fromBase64, randomBytes, randomString, toBase64 } from "../platform/tokens.server";

export const SECRET_PREFIX = "whsec_";

/** A new endpoint secret: 24 random bytes, as the published Standard Webhooks libraries make them. */
export function newSecret(): string {
  return `${SECRET_PREFIX}${toBase64(randomBytes(24))}`;
}

/** Ids for endpoints and messages: a prefix and 24 letters and digits. */
export const newId = (prefix: "ep" | "msg") => `${prefix}_${randomString(24)}`;

async function signOne(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(secret.slice(SECRET_PREFIX.length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(content));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** The three Standard Webhooks headers for one attempt at a message, signed with every secret given. */
export async function signedHeaders(
  secrets: string[],
  message: { id: string; body: string },
  timestampSeconds: number,
): Promise<Record<string, string>> {
  const content = `${message.id}.${timestampSeconds}.${message.body}`;
  const signatures = await Promise.all(secrets.map((secret) => signOne(secret, content)));
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signatures.join(" "),
  };
}

/** How far a receiver lets a timestamp stray from its own clock, as the published libraries do. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/**
 * Whether `headers` prove `body` came from a holder of one of `secrets`, within the tolerance of
 * `nowSeconds`: what a receiver does, and what the development server's receiver page shows.
 */
export async function verifySignature(
  secrets: string[],
  headers: Record<string, string | undefined>,
  body: string,
  nowSeconds: number,
): Promise<"verified" | "bad-signature" | "too-old" | "missing-headers"> {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signature = headers["webhook-signature"];
  if (!id || !timestamp || !signature) return "missing-headers";
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return "too-old";
  const given = new Set(signature.split(" "));
  for (const secret of secrets) {
    if (given.has(await signOne(secret, `${id}.${timestamp}.${body}`))) return "verified";
  }
  return "bad-signature";
}
