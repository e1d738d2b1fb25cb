// Two-factor authentication with TOTP (RFC 6238, 30-second steps, 6 digits). Secrets come from
// the CSPRNG and are stored encrypted (AES-GCM); a code counts once, within ±1 step of clock
// drift; ten single-use recovery codes are shown once and stored hashed. Turning it on or off
// takes a code under the sign-in challenge's per-account allowance, and signs out every other
// session of the account.
import { and, count, eq, isNull, lt, or } from "drizzle-orm";
import { hmac } from "@noble/hashes/hmac.js";
import { sha1 } from "@noble/hashes/legacy.js";
import * as OTPAuth from "otpauth/bare";
import { BRAND } from "~/lib/brand";
import { fail, ok, type Result } from "~/lib/result";
import type { Viewer } from "~/lib/viewer";
import { fromBase64, randomBytes, randomString, sha256Hex, toBase64 } from "../platform/tokens.server";
import type { Db } from "../platform/db/client.server";
import { read, readAlone } from "../platform/db/reads.server";
import { qrDataUrl } from "../platform/qr.server";
import { recoveryCodes, totpFactors } from "../platform/db/schema.server";
import { signInChanged } from "./security.server";
import type { SessionDeps } from "./session.server";
import { attemptSucceeded, reserveAttempt, secondFactorKeys, throttled } from "./throttle.server";
import type { Caller } from "../platform/caller.server";
import { TOTP_KEY_PROBLEM } from "../platform/settings.server";

export const RECOVERY_CODE_COUNT = 10;
const DRIFT_STEPS = 1;

async function aesKey(base64Key: string): Promise<CryptoKey> {
  const raw = base64Key ? fromBase64(base64Key) : new Uint8Array();
  if (raw.byteLength !== 32) throw new Error(TOTP_KEY_PROBLEM);
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

export async function sealSecret(secret: string, base64Key: string): Promise<string> {
  const iv = randomBytes(12);
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await aesKey(base64Key), new TextEncoder().encode(secret));
  return `v1:${toBase64(iv)}:${toBase64(new Uint8Array(sealed))}`;
}

async function openSecret(sealed: string, base64Key: string): Promise<string> {
  const [version, iv, data] = sealed.split(":");
  if (version !== "v1" || !iv || !data) throw new Error("Unreadable TOTP secret");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(iv) }, await aesKey(base64Key), fromBase64(data));
  return new TextDecoder().decode(plain);
}

/**
 * HMAC-SHA1, the codes' only algorithm, from the hash library the Worker already carries: otpauth's
 * "bare" build takes it as a function instead of bundling its own copy of every SHA family.
 */
function hmacSha1(algorithm: string, key: Uint8Array, message: Uint8Array): Uint8Array {
  if (algorithm !== "SHA1") throw new Error(`Unsupported TOTP algorithm ${algorithm}`);
  return hmac(sha1, key, message);
}

function totpFor(secret: string, label: string) {
  return new OTPAuth.TOTP({
    issuer: BRAND,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secret),
    hmac: hmacSha1,
  });
}

/** Six digits, the shape of a code from the app: input of any other shape is refused without counting as a guess. */
const isAppCode = (code: string) => /^\d{6}$/.test(code);

/** The step a code belongs to, if it is valid now (±1 step), else null. */
function matchingStep(totp: OTPAuth.TOTP, code: string, now: number): number | null {
  if (!isAppCode(code)) return null;
  const delta = totp.validate({ token: code, timestamp: now, window: DRIFT_STEPS });
  return delta === null ? null : totp.counter({ timestamp: now }) + delta;
}

/** Uses a code's step once: a second use of any code from that step (or earlier) fails. */
async function consumeStep(db: Db, userId: string, step: number): Promise<boolean> {
  const used = await db
    .update(totpFactors)
    .set({ lastUsedStep: step })
    .where(and(eq(totpFactors.userId, userId), or(isNull(totpFactors.lastUsedStep), lt(totpFactors.lastUsedStep, step))))
    .returning({ userId: totpFactors.userId });
  return used.length === 1;
}

/** Whether an account's second factor is on, and how many unused recovery codes it has left. */
export function twoFactorStatusRead(db: Db, userId: string) {
  return read(
    [
      db.select({ status: totpFactors.status }).from(totpFactors).where(eq(totpFactors.userId, userId)).limit(1),
      db
        .select({ n: count() })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt))),
    ],
    ([[factor], [left]]) => ({ enabled: factor?.status === "verified", recoveryCodesLeft: left?.n ?? 0 }),
  );
}

export async function twoFactorStatus(db: Db, userId: string) {
  return readAlone(db, twoFactorStatusRead(db, userId));
}

export async function hasTwoFactor(db: Db, userId: string): Promise<boolean> {
  return (await twoFactorStatus(db, userId)).enabled;
}

/** Starts enrolment: a fresh secret, as a QR code and as a key to type in. */
export async function startEnrolment(
  db: Db,
  key: string,
  viewer: Viewer,
  now = Date.now(),
): Promise<Result<{ secret: string; qrDataUrl: string }>> {
  if (await hasTwoFactor(db, viewer.id)) return fail("conflict", "Two-factor authentication is already enabled");
  const secret = new OTPAuth.Secret({ buffer: randomBytes(20).buffer }).base32;
  const sealed = await sealSecret(secret, key);
  await db
    .insert(totpFactors)
    .values({ userId: viewer.id, secret: sealed, status: "pending", createdAt: now })
    .onConflictDoUpdate({
      target: totpFactors.userId,
      set: { secret: sealed, status: "pending", lastUsedStep: null, createdAt: now, verifiedAt: null },
    });
  return ok({ secret, qrDataUrl: await qrDataUrl(totpFor(secret, viewer.email).toString()) });
}

/**
 * Recovery codes are read off paper and typed in by hand, so they use no characters that look
 * alike (no 0/O, no 1/I/L) and only one case: 31 symbols, 10 of them give about 49.5 bits.
 */
export const RECOVERY_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

function newRecoveryCode(): string {
  const raw = randomString(10, RECOVERY_ALPHABET);
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}

/**
 * The form a recovery code is hashed in: separators of any kind dropped, upper case. Codes made
 * before the alphabet above (A-Z, 0-9) were hashed the same way, so they keep working.
 */
const normaliseRecovery = (code: string) => code.replace(/[^A-Za-z0-9]/g, "").toUpperCase();

/**
 * Checks a code from the member's app under the per-account allowance the sign-in challenge uses
 * (`secondFactorKeys`): wrong codes on the settings page and at sign-in count against one limit,
 * so neither is a way around the other. The attempt is counted before `check` runs; a right code
 * starts the account's count over, as at sign-in.
 */
async function checkCodeThrottled(
  db: Db,
  caller: Caller,
  userId: string,
  check: () => Promise<boolean>,
  wrong: Result,
  now: number,
): Promise<Result> {
  const reservation = await reserveAttempt(db, secondFactorKeys(caller.ip, userId), now);
  if (!reservation.ok) return throttled(reservation.waitMs, "wrong codes");
  if (!(await check())) return wrong;
  await attemptSucceeded(db, reservation, now);
  return ok();
}

/** Confirms enrolment with a code from the app; turns 2FA on and returns the recovery codes. */
export async function confirmEnrolment(
  deps: SessionDeps,
  key: string,
  viewer: Viewer,
  caller: Caller,
  code: string,
  now = Date.now(),
): Promise<Result<{ recoveryCodes: string[] }>> {
  const { db } = deps;
  const factor = await db
    .select()
    .from(totpFactors)
    .where(and(eq(totpFactors.userId, viewer.id), eq(totpFactors.status, "pending")))
    .get();
  if (!factor) return fail("conflict", "Start again: open the setup first");
  const wrong = fail("invalid", "That code is not valid. Check your app's time and try again.", { field: "code" });
  const typed = code.trim();
  if (!isAppCode(typed)) return wrong;
  const totp = totpFor(await openSecret(factor.secret, key), viewer.email);
  const checked = await checkCodeThrottled(
    db,
    caller,
    viewer.id,
    async () => {
      const step = matchingStep(totp, typed, now);
      return step !== null && (await consumeStep(db, viewer.id, step));
    },
    wrong,
    now,
  );
  if (!checked.ok) return checked;
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.batch([
    db.update(totpFactors).set({ status: "verified", verifiedAt: now }).where(eq(totpFactors.userId, viewer.id)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, viewer.id)),
    db
      .insert(recoveryCodes)
      .values(await Promise.all(codes.map(async (c) => ({ userId: viewer.id, codeHash: await sha256Hex(normaliseRecovery(c)) })))),
  ]);
  await signInChanged(deps, viewer, caller, "2fa.enable");
  return ok({ recoveryCodes: codes });
}

/**
 * Checks a second factor at sign-in: a current TOTP code (once per step) or an unused recovery
 * code (once, ever).
 */
export async function verifySecondFactor(
  db: Db,
  key: string,
  userId: string,
  email: string,
  input: string,
  now = Date.now(),
): Promise<boolean> {
  const code = input.trim();
  const factor = await db
    .select()
    .from(totpFactors)
    .where(and(eq(totpFactors.userId, userId), eq(totpFactors.status, "verified")))
    .get();
  if (!factor) return false;
  if (isAppCode(code)) {
    const step = matchingStep(totpFor(await openSecret(factor.secret, key), email), code, now);
    return step !== null && (await consumeStep(db, userId, step));
  }
  const normalised = normaliseRecovery(code);
  if (!/^[A-Z0-9]{10}$/.test(normalised)) return false;
  const used = await db
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, await sha256Hex(normalised)), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length === 1;
}

/**
 * A second factor given to confirm something grave (deleting the account): a current code from
 * the app or an unused recovery code, counted against the same allowance as at sign-in.
 */
export async function checkSecondFactor(
  db: Db,
  key: string,
  viewer: Viewer,
  caller: Caller,
  code: string,
  now = Date.now(),
): Promise<Result> {
  return checkCodeThrottled(
    db,
    caller,
    viewer.id,
    () => verifySecondFactor(db, key, viewer.id, viewer.email, code, now),
    fail("unauthenticated", "That code is not right", { field: "code" }),
    now,
  );
}

/** Turns 2FA off; it takes a current code from the app (not a recovery code). */
export async function disableTwoFactor(
  deps: SessionDeps,
  key: string,
  viewer: Viewer,
  caller: Caller,
  code: string,
  now = Date.now(),
): Promise<Result> {
  const { db } = deps;
  const wrong = fail("invalid", "Enter a current code from your authenticator app", { field: "code" });
  if (!isAppCode(code.trim())) return wrong;
  const checked = await checkCodeThrottled(
    db,
    caller,
    viewer.id,
    () => verifySecondFactor(db, key, viewer.id, viewer.email, code, now),
    wrong,
    now,
  );
  if (!checked.ok) return checked;
  await db.batch([
    db.delete(totpFactors).where(eq(totpFactors.userId, viewer.id)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, viewer.id)),
  ]);
  await signInChanged(deps, viewer, caller, "2fa.disable");
  return ok();
}
