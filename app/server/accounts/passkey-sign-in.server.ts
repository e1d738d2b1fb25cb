// Signing in with a passkey (decision 028): alone (a discoverable, user-verified passkey says whose
// account it is, and is two factors on its own), or as the second step of a password sign-in
// instead of a code. The signature counter is checked and moved in one conditional statement.
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { and, eq, lt } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import type { PasskeyAssertion } from "~/lib/schemas/passkeys";
import { audit } from "../platform/audit.server";
import type { Db } from "../platform/db/client.server";
import { loginChallenges, passkeys, users } from "../platform/db/schema.server";
import { fromBase64Url, toBase64Url } from "../platform/tokens.server";
import { openSession, type SignIn } from "./admission.server";
import { challengedAccount, completeChallengeWith } from "./login-challenge.server";
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
import { attemptSucceeded, reserveAttempt, throttled, throttleKeys } from "./throttle.server";
import type { Caller } from "../platform/caller.server";

/** The user handle an account's passkeys carry: its id, which says nothing about the member. */
const userHandleOf = (userId: string) => toBase64Url(new TextEncoder().encode(userId));

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
  caller: Caller,
  now: number,
): Promise<Result> {
  let info;
  try {
    const { verifyAuthenticationResponse } = await webAuthn();
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
    await audit(
      db,
      passkey.userId,
      "passkey.counter-refused",
      passkey.userId,
      { passkey: passkey.id, counter, stored: passkey.counter },
      caller.ip,
    );
    return fail("unauthenticated", CLONED);
  }
  return ok();
}

/** Options for signing in with a passkey alone: no allow list, the authenticator offers what it holds for this site. */
export async function signInOptions(
  db: Db,
  rp: RelyingParty,
  caller: Caller,
  now = Date.now(),
): CeremonyStart<PublicKeyCredentialRequestOptionsJSON> {
  const ip = caller.ip;
  // Each start stores a challenge for someone not yet known, so starts are limited per client too.
  const reservation = await reserveAttempt(db, [{ policy: "passkeyCeremonyFromClient", key: `passkey:${ip}` }], now);
  if (!reservation.ok) return throttled(reservation.waitMs, "passkey sign-in attempts");
  const { generateAuthenticationOptions } = await webAuthn();
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "required", timeout: PROMPT_TIMEOUT_MS });
  return ok({ options, token: await openCeremony(db, caller, "sign-in", null, options.challenge, now) });
}

const SIGN_IN_GONE = "The passkey sign-in took too long or was already used. Please try again.";
const UNKNOWN_PASSKEY = "This passkey is not registered here. It may have been removed from its account; sign in another way.";

/**
 * Signs in with a passkey alone. The passkey names the account; it must have verified the user (a
 * PIN, a fingerprint), which makes it two factors, so no second step follows. Failures count
 * against the client like failed password sign-ins.
 */
export async function signInWithPasskey(
  db: Db,
  rp: RelyingParty,
  caller: Caller,
  response: PasskeyAssertion,
  now = Date.now(),
): Promise<Result<SignIn>> {
  const reservation = await reserveAttempt(db, throttleKeys(caller.ip), now);
  if (!reservation.ok) return throttled(reservation.waitMs, "failed sign-in attempts");
  const ceremony = await takeCeremony(db, caller, "sign-in", now);
  if (!ceremony) return fail("unauthenticated", SIGN_IN_GONE);
  const passkey = await db.select().from(passkeys).where(eq(passkeys.id, response.id)).get();
  // The authenticator also says whose passkey it thinks this is; both must agree.
  if (!passkey || (response.response.userHandle !== undefined && response.response.userHandle !== userHandleOf(passkey.userId))) {
    return fail("unauthenticated", UNKNOWN_PASSKEY);
  }
  const verified = await verifyAssertion(db, rp, passkey, response, ceremony.challenge, true, caller, now);
  if (!verified.ok) return verified;
  const account = await db.select({ verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.id, passkey.userId)).get();
  if (!account?.verifiedAt) return fail("forbidden", "Please verify your email before logging in. Check your inbox for the link.");
  await attemptSucceeded(db, reservation, now);
  // A password sign-in left waiting for its second factor is over: this one is complete.
  await db.delete(loginChallenges).where(eq(loginChallenges.userId, passkey.userId));
  const opened = await openSession(db, passkey.userId, caller, now);
  if (!opened.ok) return opened;
  await audit(db, passkey.userId, "passkey.sign-in", passkey.userId, { passkey: passkey.id }, caller.ip);
  return opened;
}

const CHALLENGE_GONE = "Your sign-in timed out. Please log in again.";

/** Options for the second step of a password sign-in: only the challenged account's passkeys will do. */
export async function secondFactorOptions(
  db: Db,
  rp: RelyingParty,
  caller: Caller,
  now = Date.now(),
): CeremonyStart<PublicKeyCredentialRequestOptionsJSON> {
  const userId = await challengedAccount(db, caller, now);
  if (!userId) return fail("unauthenticated", CHALLENGE_GONE);
  const own = await db.select({ id: passkeys.id, transports: passkeys.transports }).from(passkeys).where(eq(passkeys.userId, userId));
  if (own.length === 0) return fail("not-found", "Your account has no passkeys. Enter a code from your authenticator app instead.");
  const { generateAuthenticationOptions } = await webAuthn();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: own.map((c) => ({ id: c.id, transports: transportsOf(c.transports) })),
    // The password was the first factor; the passkey only has to be there.
    userVerification: "preferred",
    timeout: PROMPT_TIMEOUT_MS,
  });
  return ok({ options, token: await openCeremony(db, caller, "second-factor", userId, options.challenge, now) });
}

/**
 * Passes the open two-factor challenge with one of that account's passkeys. Another account's
 * passkey, a ceremony started for another sign-in, or a failed check is a failed attempt
 * (field `passkey`) that counts like a wrong code.
 */
export async function completeChallengeWithPasskey(
  db: Db,
  rp: RelyingParty,
  caller: Caller,
  response: PasskeyAssertion,
  now = Date.now(),
): Promise<Result<SignIn>> {
  return completeChallengeWith(
    db,
    caller,
    async (userId) => {
      const ceremony = await takeCeremony(db, caller, "second-factor", now);
      const passkey = await db
        .select()
        .from(passkeys)
        .where(and(eq(passkeys.id, response.id), eq(passkeys.userId, userId)))
        .get();
      if (!ceremony || ceremony.userId !== userId || !passkey)
        return fail("unauthenticated", "That passkey did not work.", { field: "passkey" });
      const verified = await verifyAssertion(db, rp, passkey, response, ceremony.challenge, false, caller, now);
      if (!verified.ok) return fail("unauthenticated", verified.problem.message, { field: "passkey" });
      await audit(db, userId, "passkey.sign-in", userId, { passkey: passkey.id, step: "second-factor" }, caller.ip);
      return ok();
    },
    now,
  );
}
