// Passkey ceremonies through the Worker, the way the browser runs them: adding one on the
// Security page, signing in with one from /auth.
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { call, cookieFrom, ORIGIN, unique } from "../helpers";
import type { Ceremony, SoftwareAuthenticator } from "./webauthn-authenticator";

export const CEREMONY = "__Host-webauthn";

export interface Answer<T = unknown> {
  ok: boolean;
  toast: { title: string; description?: string };
  value?: T;
  problem?: { code: string; message: string; field?: string };
}

export const cookies = (...pairs: (string | null | undefined)[]) => pairs.filter(Boolean).join("; ");

/** Asks the Security page for registration options: the options and the ceremony's cookie. */
export async function registrationStart(session: string, ip = unique("ip")) {
  const response = await call("/dashboard/security/passkeys", { form: { intent: "options" }, cookie: session, ip });
  const body = (await response.json()) as Answer<PublicKeyCredentialCreationOptionsJSON>;
  return { response, body, options: body.value!, ceremony: cookieFrom(response, CEREMONY) };
}

/** Adds a passkey through the Security page, the way the browser does it. */
export async function addPasskey(
  session: string,
  authenticator: SoftwareAuthenticator,
  ceremony: Partial<Ceremony> & { name?: string } = {},
) {
  const start = await registrationStart(session);
  const credential = await authenticator.register(start.options, { origin: ORIGIN, ...ceremony });
  const response = await call("/dashboard/security/passkeys", {
    form: { intent: "register", name: ceremony.name ?? "", response: JSON.stringify(credential) },
    cookie: cookies(session, start.ceremony),
  });
  return { response, body: (await response.json()) as Answer<{ id: string; name: string }>, credential, options: start.options };
}

/** A passkey sign-in from /auth: options, the authenticator's answer, and the answer sent back. */
export async function passkeySignIn(
  authenticator: SoftwareAuthenticator,
  ceremony: Partial<Ceremony> & { credentialId?: string; counter?: number } = {},
  ip = unique("ip"),
) {
  const start = await call("/auth/passkey", { form: { intent: "options" }, ip });
  const options = ((await start.json()) as Answer<PublicKeyCredentialRequestOptionsJSON>).value!;
  const ceremonyCookie = cookieFrom(start, CEREMONY);
  const assertion = await authenticator.authenticate(options, { origin: ORIGIN, ...ceremony });
  const form = { intent: "verify", response: JSON.stringify(assertion) };
  const response = await call("/auth/passkey", { form, cookie: ceremonyCookie!, ip });
  return { response, options, assertion, form, ceremonyCookie, ip };
}
