// Passkey forms: signing in with one, using one as the second factor, and adding, renaming and
// removing them on the Security page. A browser's WebAuthn answer travels as one JSON text field
// (`response`); its shape is checked here, its signature and everything else by the server.
import * as v from "valibot";

export const PASSKEY_NAME_MAX = 50;

// A missing field reads as empty, so it gets the same message as a blank one.
const text = () => v.optional(v.string(), "");

const UNREADABLE = "The passkey's answer could not be read. Please try again.";
// Credential IDs are at most 1023 bytes (WebAuthn §5.8.3): 1364 base64url characters.
const CREDENTIAL_ID_MAX = 1364;
// Far above any real answer ("none" attestation, a few hundred bytes), far below the form cap.
const RESPONSE_MAX = 64 * 1024;

const base64url = (max = RESPONSE_MAX) =>
  v.pipe(v.string(UNREADABLE), v.regex(/^[A-Za-z0-9_-]+$/, UNREADABLE), v.maxLength(max, UNREADABLE));

const credentialFields = {
  id: base64url(CREDENTIAL_ID_MAX),
  rawId: base64url(CREDENTIAL_ID_MAX),
  type: v.literal("public-key", UNREADABLE),
  authenticatorAttachment: v.optional(v.picklist(["platform", "cross-platform"], UNREADABLE)),
};

/** A JSON text field holding `entries`; anything else is the same plain message. */
function jsonField<E extends v.ObjectEntries>(entries: E) {
  return v.pipe(
    text(),
    v.nonEmpty(UNREADABLE),
    v.maxLength(RESPONSE_MAX, UNREADABLE),
    v.parseJson(undefined, UNREADABLE),
    v.object(entries, UNREADABLE),
  );
}

const registrationResponse = jsonField({
  ...credentialFields,
  response: v.object(
    {
      clientDataJSON: base64url(),
      attestationObject: base64url(),
      transports: v.optional(
        v.pipe(v.array(v.pipe(v.string(UNREADABLE), v.maxLength(32, UNREADABLE)), UNREADABLE), v.maxLength(10, UNREADABLE)),
      ),
    },
    UNREADABLE,
  ),
});

const authenticationResponse = jsonField({
  ...credentialFields,
  response: v.object(
    {
      clientDataJSON: base64url(),
      authenticatorData: base64url(),
      signature: base64url(),
      userHandle: v.optional(base64url(256)),
    },
    UNREADABLE,
  ),
});

const optionalName = v.pipe(
  text(),
  v.trim(),
  v.maxLength(PASSKEY_NAME_MAX, `A passkey's name can be at most ${PASSKEY_NAME_MAX} characters`),
);
const passkeyName = v.pipe(optionalName, v.minLength(1, "Give the passkey a name"));

const passkeyId = v.pipe(text(), v.regex(/^[A-Za-z0-9_-]+$/, "Unknown passkey"), v.maxLength(CREDENTIAL_ID_MAX, "Unknown passkey"));

/** Signing in with a passkey alone, or with one as the second factor: ask for options, then answer them. */
export const passkeySignInSchema = v.variant(
  "intent",
  [v.object({ intent: v.literal("options") }), v.object({ intent: v.literal("verify"), response: authenticationResponse })],
  "Unknown request",
);

/** The Security page's passkey forms. A blank name on a new passkey means "name it for me". */
export const passkeySettingsSchema = v.variant(
  "intent",
  [
    v.object({ intent: v.literal("options") }),
    v.object({
      intent: v.literal("register"),
      name: optionalName,
      response: registrationResponse,
    }),
    v.object({ intent: v.literal("rename"), id: passkeyId, name: passkeyName }),
    v.object({ intent: v.literal("remove"), id: passkeyId }),
  ],
  "Unknown request",
);

/** The add form as the browser checks it before the prompt opens (the answer comes after). */
export const newPasskeySchema = v.object({ name: optionalName });

export type PasskeyRegistration = v.InferOutput<typeof registrationResponse>;
export type PasskeyAssertion = v.InferOutput<typeof authenticationResponse>;
