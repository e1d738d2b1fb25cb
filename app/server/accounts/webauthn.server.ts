// The WebAuthn library as the passkey ceremonies use it, loaded on first use (decision 107), and
// the shop's one rule on attestation (decision 115).
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";
import type { RegistrationResponseJSON } from "@simplewebauthn/server";

export {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";

/** The formats whose statement rests on a certificate chain (always, or in packed's case when it has `x5c`). */
const CHAINED_FORMATS = new Set(["fido-u2f", "android-key", "android-safetynet", "apple", "tpm"]);

/**
 * The registration with an attestation statement that rests on a certificate chain replaced by
 * "none". The shop asks for no attestation, and a browser that honours that sends "none" itself;
 * a chain that still arrives would only tell which authenticator model made the key, which the
 * shop does not use, so it is kept as a passkey with no attestation, the same trust as every other.
 * A self-signed "packed" statement is still checked, and an unknown format still refused.
 */
export function statementAsNone(response: RegistrationResponseJSON): RegistrationResponseJSON {
  let attestation: unknown;
  try {
    attestation = isoCBOR.decodeFirst(isoBase64URL.toBuffer(response.response.attestationObject));
  } catch {
    return response; // The library refuses what it cannot read, with its own reason.
  }
  if (!(attestation instanceof Map)) return response;
  const fmt: unknown = attestation.get("fmt");
  const statement: unknown = attestation.get("attStmt");
  const chained = fmt === "packed" ? statement instanceof Map && statement.has("x5c") : CHAINED_FORMATS.has(fmt as string);
  if (!chained) return response;
  const none = new Map<string, unknown>([
    ["fmt", "none"],
    ["attStmt", new Map()],
    ["authData", attestation.get("authData")],
  ]);
  const attestationObject = isoBase64URL.fromBuffer(isoCBOR.encode(none as Parameters<typeof isoCBOR.encode>[0]));
  return { ...response, response: { ...response.response, attestationObject } };
}
