// What the Worker build puts in place of the WebAuthn library's certificate code (decision 115).
// The shop asks browsers for no attestation and keeps a statement that carries a certificate chain
// as one with none (`statementAsNone` in webauthn.server.ts), so the parsers of X.509 chains, the
// formats built on them and the metadata service are never reached: here each one refuses, and
// their ASN.1 libraries stay out of the upload. The one piece of them every passkey needs, reading
// an ECDSA signature's DER, is written out below.

function refuse(): never {
  throw new Error("Attestation certificate chains are not verified on this site");
}

export const validateCertificatePath = refuse;
export const getCertificateInfo = refuse;
export const validateExtFIDOGenCEAAGUID = refuse;
export const convertX509PublicKeyToCOSE = refuse;
export const verifyAttestationFIDOU2F = refuse;
export const verifyAttestationAndroidKey = refuse;
export const verifyAttestationAndroidSafetyNet = refuse;
export const verifyAttestationApple = refuse;
export const verifyAttestationTPM = refuse;
export const verifyMDSBlob = refuse;

// The roots those chains would be checked against: the library keeps them for the refused formats.
export const Google_Hardware_Attestation_Root_1 = "";
export const Google_Hardware_Attestation_Root_2 = "";
export const Google_Hardware_Attestation_Root_3 = "";
export const Google_Hardware_Attestation_Root_4 = "";
export const GlobalSign_Root_CA = "";
export const GlobalSign_Root_CA_R3 = "";
export const GlobalSign_Root_R46 = "";
export const Apple_WebAuthn_Root_CA = "";

/** The length of r and of s that WebCrypto takes for each COSE curve (P-256, P-384, P-521). */
const COMPONENT_LENGTH = new Map([
  [1, 32],
  [2, 48],
  [3, 66],
]);

/** One DER element of `tag` at `offset`: its contents and where the next element starts. */
function element(der: Uint8Array, offset: number, tag: number): { body: Uint8Array; end: number } {
  if (der[offset] !== tag) throw new Error("Signature is not a DER ECDSA signature");
  let length = der[offset + 1] ?? 0;
  let start = offset + 2;
  // P-521 signatures run past 127 bytes: their sequence's length takes a second byte.
  if (length === 0x81) {
    length = der[offset + 2] ?? 0;
    start += 1;
  } else if (length > 0x80) {
    throw new Error("Signature is not a DER ECDSA signature");
  }
  const end = start + length;
  if (end > der.length) throw new Error("Signature is not a DER ECDSA signature");
  return { body: der.subarray(start, end), end };
}

/** An unsigned big-endian INTEGER as exactly `size` bytes: left-padded, or without its sign byte. */
function component(bytes: Uint8Array, size: number): Uint8Array {
  if (bytes.length < size) {
    const padded = new Uint8Array(size);
    padded.set(bytes, size - bytes.length);
    return padded;
  }
  if (bytes.length === size) return bytes;
  if (bytes.length === size + 1 && bytes[0] === 0 && (bytes[1]! & 0x80) === 0x80) return bytes.subarray(1);
  throw new Error(`Invalid signature component length ${bytes.length}, expected ${size}`);
}

/**
 * An authenticator's ECDSA signature (a DER SEQUENCE of the INTEGERs r and s) as the r‖s WebCrypto
 * verifies, with the library's own rules for each component's length.
 */
export function unwrapEC2Signature(signature: Uint8Array, crv: number): Uint8Array {
  const sequence = element(signature, 0, 0x30);
  if (sequence.end !== signature.length) throw new Error("Signature is not a DER ECDSA signature");
  const r = element(sequence.body, 0, 0x02);
  const s = element(sequence.body, r.end, 0x02);
  if (s.end !== sequence.body.length) throw new Error("Signature is not a DER ECDSA signature");
  const size = COMPONENT_LENGTH.get(crv);
  if (!size) throw new Error(`Unexpected COSE crv value of ${crv} (EC2)`);
  const out = new Uint8Array(size * 2);
  out.set(component(r.body, size));
  out.set(component(s.body, size), size);
  return out;
}
