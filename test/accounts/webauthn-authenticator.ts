// A software authenticator for tests: it answers registration and sign-in options the way a
// browser and a platform authenticator would (ES256 key pair from WebCrypto, "none" attestation,
// CBOR-encoded attestation object), so the server's checks run against real signatures. Test code
// only: it keeps its private keys in memory and does whatever the test tells it, including lying
// about the origin, the RP ID or its signature counter.
import { type CBORType, encodeCBOR } from "@levischuck/tiny-cbor";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { toBase64Url } from "~/server/platform/tokens.server";

const encoder = new TextEncoder();

// Authenticator data flags (WebAuthn §6.1).
const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;
const ATTESTED_CREDENTIAL = 0x40;

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function uint32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/** One positive DER INTEGER from a big-endian unsigned value. */
function derInteger(value: Uint8Array): Uint8Array {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const trimmed = value.subarray(start);
  const body = trimmed[0]! & 0x80 ? concat(new Uint8Array([0]), trimmed) : trimmed;
  return concat(new Uint8Array([0x02, body.length]), body);
}

/** WebCrypto signs ECDSA as r‖s; WebAuthn carries the signature as a DER SEQUENCE of two INTEGERs. */
function derSignature(raw: Uint8Array): Uint8Array {
  const body = concat(derInteger(raw.subarray(0, 32)), derInteger(raw.subarray(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

/** A PublicKeyCredential as the browser library turns it into JSON. */
function credentialJson<R>(id: string, response: R) {
  return { id, rawId: id, type: "public-key" as const, authenticatorAttachment: "platform" as const, clientExtensionResults: {}, response };
}

export interface Ceremony {
  /** The origin the browser would put in clientDataJSON. */
  origin: string;
  /** The RP ID whose hash the authenticator signs; the options' RP ID when left out. */
  rpId?: string;
  /** Sign with user verification (a PIN, a fingerprint). */
  userVerified?: boolean;
}

interface Credential {
  id: string;
  userHandle: string;
  rpId: string;
  keys: CryptoKeyPair;
  counter: number;
}

export class SoftwareAuthenticator {
  readonly credentials: Credential[] = [];
  /** 0 like the synced passkeys of phones and password managers; set it to count like a security key. */
  counterStep = 0;
  aaguid = new Uint8Array(16);
  /**
   * The attestation statement it sends: "none" as browsers send when the site asks for none;
   * "self" signs it with the new key ("packed" without certificates); "certificate-chain" sends a
   * "packed" or "fido-u2f" statement carrying `x5c`, as a client that passes the authenticator's
   * own attestation on would (the certificate is opaque bytes, the signature the new key's).
   */
  attestation: "none" | "self" | "self-bad-signature" | { format: "packed" | "fido-u2f"; certificate: Uint8Array } = "none";

  /** What navigator.credentials.create() answers for these options, after the user agreed. */
  async register(options: PublicKeyCredentialCreationOptionsJSON, ceremony: Ceremony): Promise<RegistrationResponseJSON> {
    const rpId = ceremony.rpId ?? options.rp.id!;
    const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const rawId = crypto.getRandomValues(new Uint8Array(32));
    const credential: Credential = { id: toBase64Url(rawId), userHandle: options.user.id, rpId, keys, counter: this.counterStep };
    this.credentials.push(credential);

    const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
    const coseKey = encodeCBOR(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, publicKey.slice(1, 33)],
        [-3, publicKey.slice(33, 65)],
      ]),
    );
    const flags = USER_PRESENT | ATTESTED_CREDENTIAL | (ceremony.userVerified === false ? 0 : USER_VERIFIED);
    const authData = concat(
      await sha256(encoder.encode(rpId)),
      new Uint8Array([flags]),
      uint32(credential.counter),
      this.aaguid,
      new Uint8Array([0, rawId.length]),
      rawId,
      coseKey,
    );
    const clientData = { type: "webauthn.create", challenge: options.challenge, origin: ceremony.origin, crossOrigin: false };
    const clientDataJSON = encoder.encode(JSON.stringify(clientData));
    const [fmt, attStmt] = await this.statement(keys.privateKey, authData, clientDataJSON);
    const attestationObject = encodeCBOR(
      new Map<string, CBORType>([
        ["fmt", fmt],
        ["attStmt", attStmt],
        ["authData", authData],
      ]),
    );
    return credentialJson(credential.id, {
      clientDataJSON: toBase64Url(clientDataJSON),
      attestationObject: toBase64Url(attestationObject),
      transports: ["internal"],
    });
  }

  private async statement(
    privateKey: CryptoKey,
    authData: Uint8Array<ArrayBuffer>,
    clientDataJSON: Uint8Array<ArrayBuffer>,
  ): Promise<[string, Map<string, CBORType>]> {
    const attestation = this.attestation;
    if (attestation === "none") return ["none", new Map()];
    const signed = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, concat(authData, await sha256(clientDataJSON))),
    );
    if (attestation === "self-bad-signature") signed[5]! ^= 0xff;
    const sig = derSignature(signed);
    if (attestation === "self" || attestation === "self-bad-signature") {
      return [
        "packed",
        new Map<string, CBORType>([
          ["alg", -7],
          ["sig", sig],
        ]),
      ];
    }
    const x5c = [attestation.certificate];
    if (attestation.format === "fido-u2f")
      return [
        "fido-u2f",
        new Map<string, CBORType>([
          ["sig", sig],
          ["x5c", x5c],
        ]),
      ];
    return [
      "packed",
      new Map<string, CBORType>([
        ["alg", -7],
        ["sig", sig],
        ["x5c", x5c],
      ]),
    ];
  }

  /**
   * What navigator.credentials.get() answers: with an allow list, the first of its credentials this
   * authenticator holds; without one (a discoverable sign-in), `credentialId` or its newest.
   */
  async authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    ceremony: Ceremony & { credentialId?: string; counter?: number },
  ): Promise<AuthenticationResponseJSON> {
    const allowed = options.allowCredentials?.map((c) => c.id);
    const candidates = this.credentials.filter((c) =>
      ceremony.credentialId ? c.id === ceremony.credentialId : !allowed?.length || allowed.includes(c.id),
    );
    const credential = candidates.at(-1);
    if (!credential) throw new Error("NotAllowedError: no credential for these options");
    credential.counter = ceremony.counter ?? credential.counter + this.counterStep;
    const rpId = ceremony.rpId ?? options.rpId ?? credential.rpId;
    const flags = USER_PRESENT | (ceremony.userVerified === false ? 0 : USER_VERIFIED);
    const authData = concat(await sha256(encoder.encode(rpId)), new Uint8Array([flags]), uint32(credential.counter));
    const clientDataJSON = encoder.encode(
      JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin: ceremony.origin, crossOrigin: false }),
    );
    const signed = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        credential.keys.privateKey,
        concat(authData, await sha256(clientDataJSON)),
      ),
    );
    return credentialJson(credential.id, {
      clientDataJSON: toBase64Url(clientDataJSON),
      authenticatorData: toBase64Url(authData),
      signature: toBase64Url(derSignature(signed)),
      userHandle: credential.userHandle,
    });
  }
}
