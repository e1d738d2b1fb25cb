// What the Worker build puts in place of the WebAuthn library's certificate code (decision 115).
// The shop asks browsers for no attestation and keeps a statement that carries a certificate chain
// as one with none (`statementAsNone` in webauthn.server.ts), so the parsers of X.509 chains, the
// formats built on them and the metadata service are never reached: here each one refuses, and
// their ASN.1 libraries stay out of the upload. The one piece of them every passkey needs, reading
// an ECDSA signature's DER, is read below with the curve library.

import { p256, p384, p521 } from "@noble/curves/nist.js";

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

const CURVES = new Map([
  [1, p256],
  [2, p384],
  [3, p521],
]);

/**
 * An authenticator's ECDSA signature (DER, as COSE keys sign) as the r‖s WebCrypto verifies, each
 * half as long as its curve's order, read by the audited curve library.
 */
export function unwrapEC2Signature(signature: Uint8Array, crv: number): Uint8Array {
  const curve = CURVES.get(crv);
  if (!curve) throw new Error(`Unexpected COSE crv value of ${crv} (EC2)`);
  return curve.Signature.fromBytes(signature, "der").toBytes("compact");
}
