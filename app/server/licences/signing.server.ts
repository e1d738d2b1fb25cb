// Signing licence answers with Ed25519 (decision 030). The private key is the LICENCE_SIGNING_KEY
// secret: a PKCS#8 private key, base64 of its DER bytes, as `openssl genpkey -algorithm ed25519
// -outform DER | base64 -w0` writes it. Loaders hold only the public key, so nothing extracted
// from a loader can forge an answer. Both keys are imported once per isolate. The setup script (run
// by Node) checks a key with `signingKeySchema` too, so this file names its imports with their
// extension.
import * as v from "valibot";
import { fail, ok, type Result } from "../../lib/result.ts";
import { fromBase64, fromBase64Url, toBase64 } from "../platform/tokens.server.ts";
import type { DeactivationAnswer } from "./licences.server";
import type { LicenceAnswer } from "./validation.server";

export interface LicenceSigner {
  /** The 32 raw bytes of the public key, base64. */
  publicKey: string;
  /** The base64 Ed25519 signature of `bytes`. */
  sign(bytes: Uint8Array<ArrayBuffer>): Promise<string>;
  /** Whether `signature` (base64) is this key's signature of `bytes`. */
  verify(bytes: Uint8Array<ArrayBuffer>, signature: Uint8Array<ArrayBuffer>): Promise<boolean>;
}

const ED25519 = { name: "Ed25519" };

async function importSigner(secret: string): Promise<LicenceSigner> {
  const privateKey = await crypto.subtle.importKey("pkcs8", fromBase64(secret.trim()), ED25519, true, ["sign"]);
  // The public half is part of the private key's JWK form ("x", base64url).
  const { x } = (await crypto.subtle.exportKey("jwk", privateKey)) as JsonWebKey;
  if (!x) throw new Error("No public key in LICENCE_SIGNING_KEY");
  const publicKey = await crypto.subtle.importKey("raw", fromBase64Url(x), ED25519, false, ["verify"]);
  return {
    publicKey: toBase64(fromBase64Url(x)),
    sign: async (bytes) => toBase64(new Uint8Array(await crypto.subtle.sign(ED25519, privateKey, bytes))),
    verify: (bytes, signature) => crypto.subtle.verify(ED25519, publicKey, signature, bytes),
  };
}

/**
 * An answer as the API sends it: its exact JSON bytes and their signature. The conformance vectors
 * are made by this same function, so every SDK is tested against what the server really signs.
 */
export async function signAnswer(
  signer: LicenceSigner,
  answer: LicenceAnswer | DeactivationAnswer,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; signature: string }> {
  const bytes = new TextEncoder().encode(JSON.stringify(answer));
  return { bytes, signature: await signer.sign(bytes) };
}

export const SIGNING_KEY_MISSING = "LICENCE_SIGNING_KEY is not set: the licence API answers 503 UNAVAILABLE until it is";
export const SIGNING_KEY_INVALID = "LICENCE_SIGNING_KEY is not a base64 PKCS#8 Ed25519 private key";

/** A licence signing key, checked the way the API uses it: imported, and its public half derived. */
export const signingKeySchema = v.pipeAsync(
  v.string(),
  v.trim(),
  v.nonEmpty(SIGNING_KEY_MISSING),
  v.checkAsync(async (secret) => {
    try {
      await importSigner(secret);
      return true;
    } catch {
      return false;
    }
  }, SIGNING_KEY_INVALID),
);

let loaded: { secret: string; signer: Promise<LicenceSigner> } | undefined;

/** The signer for `secret`; `unavailable` when the secret is missing or is not an Ed25519 key. */
export async function licenceSigner(secret: string | undefined): Promise<Result<LicenceSigner>> {
  if (!secret?.trim()) {
    // The caller only sees 503: the log says which setting is missing.
    console.error(`${SIGNING_KEY_MISSING} (see docs/configuration.md)`);
    return fail("unavailable", "Licence signing is not configured");
  }
  if (loaded?.secret !== secret) loaded = { secret, signer: importSigner(secret) };
  try {
    return ok(await loaded.signer);
  } catch (error) {
    console.error(SIGNING_KEY_INVALID, error);
    return fail("unavailable", "Licence signing is not configured");
  }
}
