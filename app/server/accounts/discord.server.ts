// Optional "Continue with Discord" (OAuth 2 with PKCE and a state cookie). This is the only module
// that knows arctic. A Discord account signs in to the account it was linked to, else links to the
// verified account with the same e-mail if Discord has verified it, else gets a new account (which
// replaces an unverified registration of that address).
import { Discord, generateCodeVerifier, generateState } from "arctic";
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { clearCookie, readCookie, serializeCookie } from "../platform/cookies.server";
import type { Db } from "../platform/db/client.server";
import { oauthAccounts, profiles, users } from "../platform/db/schema.server";
import { openAccount } from "./open-account.server";
import { clientAddress } from "./throttle.server";

export type DiscordConfig = Pick<Env, "DISCORD_CLIENT_ID" | "DISCORD_CLIENT_SECRET">;

const STATE_COOKIE = "__Host-discord-state";
const VERIFIER_COOKIE = "__Host-discord-verifier";
const COOKIE_SECONDS = 10 * 60;
const USER_ENDPOINT = "https://discord.com/api/users/@me";

export function isDiscordConfigured(config: DiscordConfig): boolean {
  return Boolean(config.DISCORD_CLIENT_ID && config.DISCORD_CLIENT_SECRET);
}

const client = (config: DiscordConfig, origin: string) =>
  new Discord(config.DISCORD_CLIENT_ID, config.DISCORD_CLIENT_SECRET, `${origin}/auth/discord/callback`);

/** Where to send the browser, and the cookies that tie the callback to this browser. */
export function startDiscordSignIn(config: DiscordConfig, origin: string): { url: string; cookies: string[] } {
  const state = generateState();
  const verifier = generateCodeVerifier();
  const url = client(config, origin).createAuthorizationURL(state, verifier, ["identify", "email"]);
  return { url: url.toString(), cookies: [serializeCookie(STATE_COOKIE, state, COOKIE_SECONDS), serializeCookie(VERIFIER_COOKIE, verifier, COOKIE_SECONDS)] };
}

interface DiscordUser {
  id: string;
  username: string;
  email?: string | null;
  verified?: boolean;
  avatar?: string | null;
}

/** The cookies that tie a callback to its browser, cleared: the callback uses them once, whatever its outcome. */
export function clearDiscordCookies(): string[] {
  return [clearCookie(STATE_COOKIE), clearCookie(VERIFIER_COOKIE)];
}

/** A username not taken yet, made from the Discord one. */
async function freeUsername(db: Db, wanted: string): Promise<string> {
  const base = (wanted.replace(/[^A-Za-z0-9_.-]/g, "").slice(0, 18) || "member").padEnd(3, "0");
  for (let i = 0; i < 20; i++) {
    const candidate = i === 0 ? base : `${base}${Math.floor(Math.random() * 10_000)}`;
    const taken = await db.select({ id: profiles.id }).from(profiles).where(sql`lower(${profiles.username}) = ${candidate.toLowerCase()}`).get();
    if (!taken) return candidate;
  }
  return `${base}${crypto.randomUUID().slice(0, 6)}`;
}

interface DiscordAccount {
  id: string;
  email: string;
  /** Linked to the Discord account just now (found by its e-mail, or created), not on an earlier visit. */
  linkedNow: boolean;
}

async function accountFor(db: Db, discordUser: DiscordUser, ip: string, now: number): Promise<Result<DiscordAccount>> {
  const linked = await db
    .select({ id: users.id, email: users.email })
    .from(oauthAccounts)
    .innerJoin(users, eq(users.id, oauthAccounts.userId))
    .where(and(eq(oauthAccounts.provider, "discord"), eq(oauthAccounts.providerUserId, discordUser.id)))
    .get();
  if (linked) return ok({ ...linked, linkedNow: false });
  const email = discordUser.email?.trim().toLowerCase();
  if (!email || !discordUser.verified) {
    return fail("forbidden", "Your Discord account has no verified e-mail address. Verify it on Discord, or sign up with e-mail.");
  }

  const verifiedOwner = () =>
    db.select({ id: users.id }).from(users).where(and(sql`lower(${users.email}) = ${email}`, isNotNull(users.emailVerifiedAt))).get();
  let userId = (await verifiedOwner())?.id;
  if (!userId) {
    // Discord has proven the address: a registration of it that nobody verified is replaced by a
    // new account, exactly as an e-mail sign-up replaces it. Its registrant keeps nothing.
    const avatarUrl = discordUser.avatar ? `https://cdn.discordapp.com/avatars/${discordUser.id}/${discordUser.avatar}.png?size=128` : null;
    const opened = await openAccount(
      db,
      { email, username: await freeUsername(db, discordUser.username), passwordHash: null, verifiedAt: now, avatarUrl },
      { how: "discord", ip, now },
    );
    if (opened.ok) userId = opened.value.id;
    else {
      // Refused only when the address was verified meanwhile (then that account is the one), or
      // when another sign-up took the chosen name at the same moment.
      userId = (await verifiedOwner())?.id;
      if (!userId) return opened;
    }
  }
  await db.insert(oauthAccounts).values({ provider: "discord", providerUserId: discordUser.id, userId, createdAt: now }).onConflictDoNothing();
  return ok({ id: userId, email, linkedNow: true });
}

/**
 * Completes the sign-in Discord sent the browser back with: the account it belongs to, and whether
 * it was linked just now. Starting the session (`signInAs`) and clearing the state cookies
 * (`clearDiscordCookies`) are the caller's, so that a just-linked address's keys can be claimed first.
 */
export async function finishDiscordSignIn(
  db: Db,
  config: DiscordConfig,
  request: Request,
  now = Date.now(),
): Promise<Result<DiscordAccount>> {
  const url = new URL(request.url);
  const state = url.searchParams.get("state");
  const code = url.searchParams.get("code");
  const expectedState = readCookie(request, STATE_COOKIE);
  const verifier = readCookie(request, VERIFIER_COOKIE);
  if (!state || !code || !expectedState || !verifier || state !== expectedState) {
    return fail("unauthenticated", "The sign-in link expired or did not come from this browser. Please try again.");
  }

  let discordUser: DiscordUser;
  try {
    const tokens = await client(config, url.origin).validateAuthorizationCode(code, verifier);
    const response = await fetch(USER_ENDPOINT, { headers: { Authorization: `Bearer ${tokens.accessToken()}` } });
    if (!response.ok) throw new Error(`Discord answered ${response.status}`);
    discordUser = (await response.json()) as DiscordUser;
  } catch (error) {
    console.error("Discord sign-in failed:", error);
    return fail("unauthenticated", "Discord did not confirm the sign-in. Please try again.");
  }
  return accountFor(db, discordUser, clientAddress(request), now);
}
