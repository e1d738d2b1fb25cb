// Passkeys (WebAuthn credentials): a signed-in member adds, renames and removes them; anyone signs
// in with one alone (a discoverable credential says whose it is); a member half-way through a
// two-factor sign-in may use one instead of a code. Every ceremony's challenge is used once, for
// five minutes at most, for one purpose (and account, where known), and lives in the database
// under the SHA-256 of a token that only the browser's cookie holds. Decision 028 gives the rules.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { and, asc, eq, lt, lte } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { fail, ok, type Result } from "~/lib/result";
import type { PasskeyAssertion, PasskeyRegistration } from "~/lib/schemas/passkeys";
import type { Viewer } from "~/lib/viewer";
import { audit } from "../platform/audit.server";
import { clearCookie, readCookie, serializeCookie } from "../platform/cookies.server";
import type { Db } from "../platform/db/client.server";
import { loginChallenges, passkeys, users, webauthnChallenges } from "../platform/db/schema.server";
import { fromBase64Url, randomToken, sha256Hex, toBase64Url, tokenHash } from "../platform/tokens.server";
import { challengedAccount, completeChallengeWith } from "./login-challenge.server";
import { openSession, type SignInCookie } from "./admission.server";
import { attemptSucceeded, clientAddress, reserveAttempt, throttled, throttleKeys } from "./throttle.server";

export const CEREMONY_COOKIE = "__Host-webauthn";
export const CEREMONY_TTL_MS = 5 * 60 * 1000;
/** How long the browser keeps its prompt open; the ceremony outlives it, so a late answer still fits. */
const PROMPT_TIMEOUT_MS = 2 * 60 * 1000;
/** Enough for every device a member owns, few enough that an account's list stays a list. */
export const MAX_PASSKEYS = 20;

type Purpose = (typeof webauthnChallenges.$inferSelect)["purpose"];

/** A ceremony about to run in the browser: the options for its prompt and the cookie that names it. */
type CeremonyStart<Options> = Promise<Result<{ options: Options; cookie: string }>>;

// ---------------------------------------------------------------------------------------------
// The relying party: who the browser is asked to make and check passkeys for.

/** The settings that name the site passkeys belong to (wrangler.toml [vars]). */
export interface RelyingPartySettings {
  WEBAUTHN_RP_ID?: string;
  WEBAUTHN_ORIGIN?: string;
}

export interface RelyingParty {
  /** The domain passkeys are bound to ("example.com"); they work on it and its subdomains. */
  id: string;
  /** The one origin whose pages may use them ("https://example.com"). */
  origin: string;
  name: string;
}

const NOT_SET_UP = "Passkeys are not set up on this site yet.";

/**
 * The relying party from the settings. Either setting alone is enough: the RP ID is the origin's
 * host, the origin is https on the RP ID. With neither, development (and tests) use the request's
 * own origin, so any local port works; production refuses instead of guessing, because a passkey
 * made for a hostname someone happened to use (a preview URL) is bound to it for good.
 */
export function relyingParty(settings: RelyingPartySettings, request: Request, production = import.meta.env.MODE === "production"): Result<RelyingParty> {
  const configuredId = settings.WEBAUTHN_RP_ID?.trim().toLowerCase() ?? "";
  const configuredOrigin = settings.WEBAUTHN_ORIGIN?.trim() ?? "";
  if (!configuredId && !configuredOrigin) {
    if (production) return fail("unavailable", NOT_SET_UP);
    const url = new URL(request.url);
    return ok({ id: url.hostname, origin: url.origin, name: BRAND });
  }
  let origin: URL;
  try {
    origin = new URL(configuredOrigin || `https://${configuredId}`);
  } catch {
    return fail("unavailable", NOT_SET_UP);
  }
  const id = configuredId || origin.hostname;
  // The browser refuses an RP ID that is not the page's host or a parent domain of it.
  if (origin.hostname !== id && !origin.hostname.endsWith(`.${id}`)) return fail("unavailable", NOT_SET_UP);
  return ok({ id, origin: origin.origin, name: BRAND });
}

// ---------------------------------------------------------------------------------------------
// Ceremonies: one challenge per browser at a time, taken (deleted) by the answer that uses it.

function ceremonyIdFrom(request: Request): Promise<string | null> {
  return tokenHash(readCookie(request, CEREMONY_COOKIE));
}

/** Stores a ceremony's challenge and returns the cookie that names it. A browser's previous ceremony ends. */
async function openCeremony(db: Db, request: Request, purpose: Purpose, userId: string | null, challenge: string, now: number): Promise<string> {
  const previous = await ceremonyIdFrom(request);
  if (previous) await db.delete(webauthnChallenges).where(eq(webauthnChallenges.id, previous));
  const token = randomToken();
  await db.insert(webauthnChallenges).values({ id: await sha256Hex(token), purpose, userId, challenge, expiresAt: now + CEREMONY_TTL_MS });
  return serializeCookie(CEREMONY_COOKIE, token, CEREMONY_TTL_MS / 1000);
}

/**
 * The browser's ceremony, if it is open and for `purpose`. Taking it deletes it in the same
 * statement, so an answer (or a copy of it sent twice at once) is checked against it only once.
 */
async function takeCeremony(db: Db, request: Request, purpose: Purpose, now: number) {
  const id = await ceremonyIdFrom(request);
  if (!id) return null;
  const [row] = await db.delete(webauthnChallenges).where(eq(webauthnChallenges.id, id)).returning();
  if (!row || row.purpose !== purpose || row.expiresAt <= now) return null;
  return row;
}

/** Ends the ceremony in the browser once its answer has been used. */
export function clearCeremonyCookie(): string {
  return clearCookie(CEREMONY_COOKIE);
}

/** Housekeeping for the cron trigger: ceremonies nobody finished. */
export async function deleteExpiredCeremonies(db: Db, now = Date.now()): Promise<void> {
  await db.delete(webauthnChallenges).where(lte(webauthnChallenges.expiresAt, now));
}

// ---------------------------------------------------------------------------------------------
// The member's passkeys.

export interface PasskeySummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  /** Synced by a password manager or platform account (it survives losing the device). */
  backedUp: boolean;
}

const summary = { id: passkeys.id, name: passkeys.name, createdAt: passkeys.createdAt, lastUsedAt: passkeys.lastUsedAt, backedUp: passkeys.backedUp };

export async function listPasskeys(db: Db, userId: string): Promise<PasskeySummary[]> {
  return db.select(summary).from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt), asc(passkeys.id));
}

export async function hasPasskeys(db: Db, userId: string): Promise<boolean> {
  return (await db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, userId)).limit(1).get()) !== undefined;
}

/** The user handle an account's passkeys carry: its id, which says nothing about the member. */
const userHandleOf = (userId: string) => toBase64Url(new TextEncoder().encode(userId));

const transportsOf = (stored: string | null): string[] | undefined => (stored ? (JSON.parse(stored) as string[]) : undefined);

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

/** Why the library refused an answer, for whoever reads the logs (a misconfigured origin shows here). */
function refusal(step: string, error: unknown): void {
  console.warn(`passkey ${step} refused: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * Options for adding a passkey to the signed-in member: a discoverable credential (so it can sign
 * in without a username) with user verification (so it is two factors on its own), never one the
 * authenticator already holds for this account.
 */
export async function registrationOptions(db: Db, rp: RelyingParty, viewer: Viewer, request: Request, now = Date.now()): CeremonyStart<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db.select({ id: passkeys.id, transports: passkeys.transports }).from(passkeys).where(eq(passkeys.userId, viewer.id));
  if (existing.length >= MAX_PASSKEYS) return fail("conflict", `You already have ${MAX_PASSKEYS} passkeys. Remove one before adding another.`);
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
  return ok({ options, cookie: await openCeremony(db, request, "register", viewer.id, options.challenge, now) });
}

const SETUP_GONE = "Adding the passkey took too long or was already finished. Please try again.";

/** Checks the browser's answer to `registrationOptions` and keeps the new passkey. */
export async function registerPasskey(
  db: Db,
  rp: RelyingParty,
  viewer: Viewer,
  request: Request,
  input: { name: string; response: PasskeyRegistration },
  now = Date.now(),
): Promise<Result<PasskeySummary>> {
  const ceremony = await takeCeremony(db, request, "register", now);
  if (!ceremony || ceremony.userId !== viewer.id) return fail("unauthenticated", SETUP_GONE);
  let info;
  try {
    const verification = await verifyRegistrationResponse({
      response: { ...input.response, clientExtensionResults: {} },
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
  await audit(db, viewer.id, "passkey.add", viewer.id, { passkey: row.id, name: row.name }, clientAddress(request));
  return ok(added[0]!);
}

const NOT_YOURS = "That passkey is not on your account.";

export async function renamePasskey(db: Db, viewer: Viewer, request: Request, id: string, name: string): Promise<Result<PasskeySummary>> {
  const before = await db.select({ name: passkeys.name }).from(passkeys).where(and(eq(passkeys.id, id), eq(passkeys.userId, viewer.id))).get();
  // Another member's passkey and one that does not exist answer alike.
  const [renamed] = before
    ? await db.update(passkeys).set({ name }).where(and(eq(passkeys.id, id), eq(passkeys.userId, viewer.id))).returning(summary)
    : [];
  if (!before || !renamed) return fail("not-found", NOT_YOURS, { field: "id" });
  await audit(db, viewer.id, "passkey.rename", viewer.id, { passkey: id, from: before.name, to: name }, clientAddress(request));
  return ok(renamed);
}

export async function removePasskey(db: Db, viewer: Viewer, request: Request, id: string): Promise<Result<{ name: string }>> {
  const [removed] = await db
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, viewer.id)))
    .returning({ name: passkeys.name });
  if (!removed) return fail("not-found", NOT_YOURS, { field: "id" });
  await audit(db, viewer.id, "passkey.remove", viewer.id, { passkey: id, name: removed.name }, clientAddress(request));
  return ok(removed);
}

// ---------------------------------------------------------------------------------------------
// Signing in.

const NOT_VERIFIED = "This passkey could not be verified. Please try again.";
const CLONED =
  "This passkey was refused: its use counter went backwards, which happens when an authenticator has been copied. Sign in another way and check your passkeys.";

/**
 * Checks an assertion against a stored passkey, then records its use. The signature counter must
 * grow, unless it is 0 on both sides (synced passkeys do not count); a counter that stands still or
 * goes back means a second copy of the key. The check and the update are one conditional
 * statement, so two answers racing with the same counter cannot both pass.
 */
async function verifyAssertion(
  db: Db,
  rp: RelyingParty,
  passkey: typeof passkeys.$inferSelect,
  response: PasskeyAssertion,
  challenge: string,
  requireUserVerification: boolean,
  request: Request,
  now: number,
): Promise<Result> {
  let info;
  try {
    const verification = await verifyAuthenticationResponse({
      response: { ...response, clientExtensionResults: {} },
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      // The library would refuse a bad counter before it looks at the signature; with 0 here it
      // leaves the counter to the statement below, so a refused counter always means a real key.
      credential: { id: passkey.id, publicKey: fromBase64Url(passkey.publicKey), counter: 0, transports: transportsOf(passkey.transports) },
      requireUserVerification,
    });
    if (!verification.verified) throw new Error("signature did not verify");
    info = verification.authenticationInfo;
  } catch (error) {
    refusal("sign-in", error);
    return fail("unauthenticated", NOT_VERIFIED);
  }
  const counter = info.newCounter;
  const used = await db
    .update(passkeys)
    .set({ counter, lastUsedAt: now, backedUp: info.credentialBackedUp })
    .where(and(eq(passkeys.id, passkey.id), counter === 0 ? eq(passkeys.counter, 0) : lt(passkeys.counter, counter)))
    .returning({ id: passkeys.id });
  if (used.length === 0) {
    await audit(db, passkey.userId, "passkey.counter-refused", passkey.userId, { passkey: passkey.id, counter, stored: passkey.counter }, clientAddress(request));
    return fail("unauthenticated", CLONED);
  }
  return ok();
}

/** Options for signing in with a passkey alone: no allow list, the authenticator offers what it holds for this site. */
export async function signInOptions(db: Db, rp: RelyingParty, request: Request, now = Date.now()): CeremonyStart<PublicKeyCredentialRequestOptionsJSON> {
  const ip = clientAddress(request);
  // Each start stores a challenge for someone not yet known, so starts are limited per client too.
  const reservation = await reserveAttempt(db, [{ policy: "passkeyCeremonyFromClient", key: `passkey:${ip}` }], now);
  if (!reservation.ok) return throttled(reservation.waitMs, "passkey sign-in attempts");
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "required", timeout: PROMPT_TIMEOUT_MS });
  return ok({ options, cookie: await openCeremony(db, request, "sign-in", null, options.challenge, now) });
}

const SIGN_IN_GONE = "The passkey sign-in took too long or was already used. Please try again.";
const UNKNOWN_PASSKEY = "This passkey is not registered here. It may have been removed from its account; sign in another way.";

/**
 * Signs in with a passkey alone. The passkey names the account; it must have verified the user (a
 * PIN, a fingerprint), which makes it two factors, so no second step follows. Failures count
 * against the client like failed password sign-ins.
 */
export async function signInWithPasskey(db: Db, rp: RelyingParty, request: Request, response: PasskeyAssertion, now = Date.now()): Promise<Result<SignInCookie>> {
  const reservation = await reserveAttempt(db, throttleKeys(clientAddress(request)), now);
  if (!reservation.ok) return throttled(reservation.waitMs, "failed sign-in attempts");
  const ceremony = await takeCeremony(db, request, "sign-in", now);
  if (!ceremony) return fail("unauthenticated", SIGN_IN_GONE);
  const passkey = await db.select().from(passkeys).where(eq(passkeys.id, response.id)).get();
  // The authenticator also says whose passkey it thinks this is; both must agree.
  if (!passkey || (response.response.userHandle !== undefined && response.response.userHandle !== userHandleOf(passkey.userId))) {
    return fail("unauthenticated", UNKNOWN_PASSKEY);
  }
  const verified = await verifyAssertion(db, rp, passkey, response, ceremony.challenge, true, request, now);
  if (!verified.ok) return verified;
  const account = await db.select({ verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, passkey.userId)).get();
  if (!account?.verifiedAt) return fail("forbidden", "Please verify your email before logging in. Check your inbox for the link.");
  await attemptSucceeded(db, reservation, now);
  // A password sign-in left waiting for its second factor is over: this one is complete.
  await db.delete(loginChallenges).where(eq(loginChallenges.userId, passkey.userId));
  const opened = await openSession(db, passkey.userId, request, now);
  if (!opened.ok) return opened;
  await audit(db, passkey.userId, "passkey.sign-in", passkey.userId, { passkey: passkey.id }, clientAddress(request));
  return opened;
}

const CHALLENGE_GONE = "Your sign-in timed out. Please log in again.";

/** Options for the second step of a password sign-in: only the challenged account's passkeys will do. */
export async function secondFactorOptions(db: Db, rp: RelyingParty, request: Request, now = Date.now()): CeremonyStart<PublicKeyCredentialRequestOptionsJSON> {
  const userId = await challengedAccount(db, request, now);
  if (!userId) return fail("unauthenticated", CHALLENGE_GONE);
  const own = await db.select({ id: passkeys.id, transports: passkeys.transports }).from(passkeys).where(eq(passkeys.userId, userId));
  if (own.length === 0) return fail("not-found", "Your account has no passkeys. Enter a code from your authenticator app instead.");
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: own.map((c) => ({ id: c.id, transports: transportsOf(c.transports) })),
    // The password was the first factor; the passkey only has to be there.
    userVerification: "preferred",
    timeout: PROMPT_TIMEOUT_MS,
  });
  return ok({ options, cookie: await openCeremony(db, request, "second-factor", userId, options.challenge, now) });
}

/**
 * Passes the open two-factor challenge with one of that account's passkeys. Another account's
 * passkey, a ceremony started for another sign-in, or a failed check is a failed attempt
 * (field `passkey`) that counts like a wrong code.
 */
export async function completeChallengeWithPasskey(
  db: Db,
  rp: RelyingParty,
  request: Request,
  response: PasskeyAssertion,
  now = Date.now(),
): Promise<Result<SignInCookie>> {
  return completeChallengeWith(
    db,
    request,
    async (userId) => {
      const ceremony = await takeCeremony(db, request, "second-factor", now);
      const passkey = await db.select().from(passkeys).where(and(eq(passkeys.id, response.id), eq(passkeys.userId, userId))).get();
      if (!ceremony || ceremony.userId !== userId || !passkey) return fail("unauthenticated", "That passkey did not work.", { field: "passkey" });
      const verified = await verifyAssertion(db, rp, passkey, response, ceremony.challenge, false, request, now);
      if (!verified.ok) return fail("unauthenticated", verified.problem.message, { field: "passkey" });
      await audit(db, userId, "passkey.sign-in", userId, { passkey: passkey.id, step: "second-factor" }, clientAddress(request));
      return ok();
    },
    now,
  );
}
