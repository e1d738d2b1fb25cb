// Passkeys (WebAuthn credentials, decision 028): a signed-in member adds, renames and removes them.
// A new passkey is discoverable (it can sign in without a username) and verifies the user (two
// factors on its own); signing in with one is passkey-sign-in.server's job.
import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/server";
import { and, asc, eq } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { PasskeyRegistration } from "~/lib/schemas/passkeys";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { passkeys } from "../platform/db/schema.server";
import { toBase64Url } from "../platform/tokens.server";
import {
  type CeremonyStart,
  openCeremony,
  PROMPT_TIMEOUT_MS,
  refusal,
  type RelyingParty,
  takeCeremony,
  transportsOf,
  webAuthn,
} from "./passkey-ceremonies.server";
import type { Caller } from "../platform/caller.server";

/** Enough for every device a member owns, few enough that an account's list stays a list. */
export const MAX_PASSKEYS = 20;

export interface PasskeySummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  /** Synced by a password manager or platform account (it survives losing the device). */
  backedUp: boolean;
}

const summary = {
  id: passkeys.id,
  name: passkeys.name,
  createdAt: passkeys.createdAt,
  lastUsedAt: passkeys.lastUsedAt,
  backedUp: passkeys.backedUp,
};

export async function listPasskeys(db: Db, userId: string): Promise<PasskeySummary[]> {
  return db.select(summary).from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt), asc(passkeys.id));
}

export async function hasPasskeys(db: Db, userId: string): Promise<boolean> {
  return (await db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1).get()) !== undefined;
}

/**
 * Names of well-known passkey providers by AAGUID (the model number an authenticator states when
 * it makes a credential), so a new passkey reads "iCloud Keychain" rather than "Passkey 3".
 */
const PROVIDERS: Record<string, string> = {
  "fbfc3007-154e-4ecc-8c0b-6e020557d7bd": "iCloud Keychain",
  "dd4ec289-e01d-41c9-bb89-70fa845d4bf2": "iCloud Keychain",
  "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4": "Google Password Manager",
  "adce0002-35bc-c60a-648b-0b25f1f05503": "Chrome on Mac",
  "08987058-cadc-4b81-b6e1-30de50dcbe96": "Windows Hello",
  "9ddd1817-af5a-4672-a2b9-3e3dd95000a9": "Windows Hello",
  "6028b017-b1d4-4c02-b4b3-afcdafc96bb2": "Windows Hello",
  "bada5566-a7aa-401f-bd96-45619a55120d": "1Password",
  "d548826e-79b4-db40-a3d8-11116f7e8349": "Bitwarden",
};

/** The provider's name, or "Passkey N"; numbered on when the member already uses that name. */
function defaultName(aaguid: string, taken: string[]): string {
  const provider = PROVIDERS[aaguid];
  if (provider && !taken.includes(provider)) return provider;
  const base = provider ?? "Passkey";
  for (let n = provider ? 2 : taken.length + 1; ; n++) {
    if (!taken.includes(`${base} ${n}`)) return `${base} ${n}`;
  }
}

/**
 * Options for adding a passkey to the signed-in member: a discoverable credential (so it can sign
 * in without a username) with user verification (so it is two factors on its own), never one the
 * authenticator already holds for this account.
 */
export async function registrationOptions(
  db: Db,
  rp: RelyingParty,
  viewer: Viewer,
  caller: Caller,
  now = Date.now(),
): CeremonyStart<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db
    .select({ id: passkeys.id, transports: passkeys.transports })
    .from(passkeys)
    .where(eq(passkeys.userId, viewer.id));
  if (existing.length >= MAX_PASSKEYS)
    return fail("conflict", `You already have ${MAX_PASSKEYS} passkeys. Remove one before adding another.`);
  const { generateRegistrationOptions } = await webAuthn();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: new TextEncoder().encode(viewer.id),
    userName: viewer.email,
    userDisplayName: viewer.username,
    timeout: PROMPT_TIMEOUT_MS,
    attestationType: "none",
    excludeCredentials: existing.map((c) => ({ id: c.id, transports: transportsOf(c.transports) })),
    authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
  });
  return ok({ options, token: await openCeremony(db, caller, "register", viewer.id, options.challenge, now) });
}

const SETUP_GONE = "Adding the passkey took too long or was already finished. Please try again.";

/** Checks the browser's answer to `registrationOptions` and keeps the new passkey. */
export async function registerPasskey(
  db: Db,
  rp: RelyingParty,
  viewer: Viewer,
  caller: Caller,
  input: { name: string; response: PasskeyRegistration },
  now = Date.now(),
): Promise<Result<PasskeySummary>> {
  const ceremony = await takeCeremony(db, caller, "register", now);
  if (!ceremony || ceremony.userId !== viewer.id) return fail("unauthenticated", SETUP_GONE);
  let info;
  try {
    const { statementAsNone, verifyRegistrationResponse } = await webAuthn();
    const verification = await verifyRegistrationResponse({
      response: statementAsNone({ ...input.response, clientExtensionResults: {} }),
      expectedChallenge: ceremony.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
    if (!verification.verified) throw new Error("not verified");
    info = verification.registrationInfo;
  } catch (error) {
    refusal("registration", error);
    return fail("invalid", "This passkey could not be verified, so it was not added. Please try again.", { field: "response" });
  }
  const taken = (await listPasskeys(db, viewer.id)).map((p) => p.name);
  if (taken.length >= MAX_PASSKEYS) return fail("conflict", `You already have ${MAX_PASSKEYS} passkeys. Remove one before adding another.`);
  const { credential } = info;
  const row = {
    id: credential.id,
    userId: viewer.id,
    name: input.name || defaultName(info.aaguid, taken),
    publicKey: toBase64Url(credential.publicKey),
    counter: credential.counter,
    transports: credential.transports?.length ? JSON.stringify(credential.transports) : null,
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
    createdAt: now,
  };
  // A credential ID belongs to one account for good; the same authenticator answering twice is refused.
  const added = await db.insert(passkeys).values(row).onConflictDoNothing().returning(summary);
  if (added.length === 0) return fail("conflict", "This passkey is already registered.");
  await audit(db, viewer.id, "passkey.add", viewer.id, { passkey: row.id, name: row.name }, caller.ip);
  return ok(added[0]!);
}

const NOT_YOURS = "That passkey is not on your account.";

export async function renamePasskey(db: Db, viewer: Viewer, caller: Caller, id: string, name: string): Promise<Result<PasskeySummary>> {
  const before = await db
    .select({ name: passkeys.name })
    .from(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, viewer.id)))
    .get();
  // Another member's passkey and one that does not exist answer alike.
  const [renamed] = before
    ? await db
        .update(passkeys)
        .set({ name })
        .where(and(eq(passkeys.id, id), eq(passkeys.userId, viewer.id)))
        .returning(summary)
    : [];
  if (!before || !renamed) return fail("not-found", NOT_YOURS, { field: "id" });
  await audit(db, viewer.id, "passkey.rename", viewer.id, { passkey: id, from: before.name, to: name }, caller.ip);
  return ok(renamed);
}

export async function removePasskey(db: Db, viewer: Viewer, caller: Caller, id: string): Promise<Result<{ name: string }>> {
  const [removed] = await db
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, viewer.id)))
    .returning({ name: passkeys.name });
  if (!removed) return fail("not-found", NOT_YOURS, { field: "id" });
  await audit(db, viewer.id, "passkey.remove", viewer.id, { passkey: id, name: removed.name }, caller.ip);
  return ok(removed);
}
