// Passkey ceremonies (WebAuthn, decision 028): the relying party the browser makes and checks
// passkeys for, and each ceremony's challenge, used once, for five minutes at most, for one purpose
// (and account, where known), stored under the SHA-256 of a token only the browser holds.
import { eq, lte } from "drizzle-orm";
import { BRAND } from "~/lib/brand";
import { fail, ok, type Result } from "~/lib/result";
import type { Db } from "../platform/db/client.server";
import { webauthnChallenges } from "../platform/db/schema.server";
import { onFirstUse } from "../platform/on-first-use.server";
import { randomToken, sha256Hex, tokenHash } from "../platform/tokens.server";
import { type Caller, keepToken, type TokenChange } from "../platform/caller.server";

export const CEREMONY_TTL_MS = 5 * 60 * 1000;
/** How long the browser keeps its prompt open; the ceremony outlives it, so a late answer still fits. */
export const PROMPT_TIMEOUT_MS = 2 * 60 * 1000;

/** The WebAuthn library, loaded by the first ceremony rather than at every start (decision 107). */
export const webAuthn = onFirstUse(() => import("./webauthn.server"));

type Purpose = (typeof webauthnChallenges.$inferSelect)["purpose"];

/** A ceremony about to run in the browser: the options for its prompt and the token that names it. */
export type CeremonyStart<Options> = Promise<Result<{ options: Options; token: TokenChange }>>;

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
 * host, the origin is https on the RP ID. With neither, development (and tests) use the caller's
 * own origin, so any local port works; production refuses instead of guessing, because a passkey
 * made for a hostname someone happened to use (a preview URL) is bound to it for good.
 */
export function relyingParty(
  settings: RelyingPartySettings,
  caller: Caller,
  production = import.meta.env.MODE === "production",
): Result<RelyingParty> {
  const configuredId = settings.WEBAUTHN_RP_ID?.trim().toLowerCase() ?? "";
  const configuredOrigin = settings.WEBAUTHN_ORIGIN?.trim() ?? "";
  if (!configuredId && !configuredOrigin) {
    if (production) return fail("unavailable", NOT_SET_UP);
    const url = new URL(caller.origin);
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

function ceremonyIdFrom(caller: Caller): Promise<string | null> {
  return tokenHash(caller.tokens.ceremony ?? null);
}

/** Stores a ceremony's challenge and returns the token that names it. A browser's previous ceremony ends. */
export async function openCeremony(
  db: Db,
  caller: Caller,
  purpose: Purpose,
  userId: string | null,
  challenge: string,
  now: number,
): Promise<TokenChange> {
  const previous = await ceremonyIdFrom(caller);
  if (previous) await db.delete(webauthnChallenges).where(eq(webauthnChallenges.id, previous));
  const token = randomToken();
  await db.insert(webauthnChallenges).values({ id: await sha256Hex(token), purpose, userId, challenge, expiresAt: now + CEREMONY_TTL_MS });
  return keepToken("ceremony", token, CEREMONY_TTL_MS / 1000);
}

/**
 * The browser's ceremony, if it is open and for `purpose`. Taking it deletes it in the same
 * statement, so an answer (or a copy of it sent twice at once) is checked against it only once.
 */
export async function takeCeremony(db: Db, caller: Caller, purpose: Purpose, now: number) {
  const id = await ceremonyIdFrom(caller);
  if (!id) return null;
  const [row] = await db.delete(webauthnChallenges).where(eq(webauthnChallenges.id, id)).returning();
  if (!row || row.purpose !== purpose || row.expiresAt <= now) return null;
  return row;
}

/** Housekeeping for the cron trigger: ceremonies nobody finished. */
export async function deleteExpiredCeremonies(db: Db, now = Date.now()): Promise<void> {
  await db.delete(webauthnChallenges).where(lte(webauthnChallenges.expiresAt, now));
}

/** The transports a stored passkey's authenticator named, as the browser's options take them. */
export const transportsOf = (stored: string | null): string[] | undefined => (stored ? (JSON.parse(stored) as string[]) : undefined);

/** Why the library refused an answer, for whoever reads the logs (a misconfigured origin shows here). */
export function refusal(step: string, error: unknown): void {
  console.warn(`passkey ${step} refused: ${error instanceof Error ? error.message : String(error)}`);
}
