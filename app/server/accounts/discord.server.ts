// Optional "Continue with Discord" (OAuth 2 with PKCE and a state cookie). This is the only module
// that knows arctic. A Discord account signs in to the account it is linked to. Discord's word on
// an e-mail address proves nothing to the shop (decision 042): a Discord account that is not linked
// yet opens a registration of its address, which, like an e-mail sign-up, works only once the
// owner of the mailbox confirms it on the page our own link leads to. It never joins an existing
// account by its address: a member links Discord from their Security page, signed in.
import { Discord, generateCodeVerifier, generateState } from "arctic";
import { and, eq, sql } from "drizzle-orm";
import { fail, ok, type Result } from "~/lib/result";
import { audit } from "../platform/audit.server";
import { clearCookie, readCookie, serializeCookie } from "../platform/cookies.server";
import type { Db } from "../platform/db/client.server";
import { oauthAccounts, profiles } from "../platform/db/schema.server";
import type { MailingDeps } from "../platform/mail.server";
import { findByEmail, findById } from "./directory.server";
import { openAccount } from "./open-account.server";
import { sendVerification } from "./registration.server";
import { clientAddress } from "./throttle.server";

export type DiscordConfig = Pick<Env, "DISCORD_CLIENT_ID" | "DISCORD_CLIENT_SECRET">;

const STATE_COOKIE = "__Host-discord-state";
const VERIFIER_COOKIE = "__Host-discord-verifier";
// Present when the flow links Discord to the signed-in member instead of signing in.
const LINK_COOKIE = "__Host-discord-link";
const COOKIE_SECONDS = 10 * 60;
const USER_ENDPOINT = "https://discord.com/api/users/@me";

export function isDiscordConfigured(config: DiscordConfig): boolean {
  return Boolean(config.DISCORD_CLIENT_ID && config.DISCORD_CLIENT_SECRET);
}

const client = (config: DiscordConfig, origin: string) =>
  new Discord(config.DISCORD_CLIENT_ID, config.DISCORD_CLIENT_SECRET, `${origin}/auth/discord/callback`);

/**
 * Where to send the browser, and the cookies that tie the callback to this browser. `link`: the
 * callback links the Discord account to the member signed in then, rather than signing in.
 */
export function startDiscordSignIn(config: DiscordConfig, origin: string, { link = false } = {}): { url: string; cookies: string[] } {
  const state = generateState();
  const verifier = generateCodeVerifier();
  const url = client(config, origin).createAuthorizationURL(state, verifier, ["identify", "email"]);
  const cookies = [serializeCookie(STATE_COOKIE, state, COOKIE_SECONDS), serializeCookie(VERIFIER_COOKIE, verifier, COOKIE_SECONDS)];
  cookies.push(link ? serializeCookie(LINK_COOKIE, "1", COOKIE_SECONDS) : clearCookie(LINK_COOKIE));
  return { url: url.toString(), cookies };
}

/** Whether the callback finishes a link from the Security page (see `startDiscordSignIn`). */
export const isDiscordLink = (request: Request) => readCookie(request, LINK_COOKIE) === "1";

interface DiscordUser {
  id: string;
  username: string;
  email?: string | null;
  verified?: boolean;
  avatar?: string | null;
}

/** The cookies that tie a callback to its browser, cleared: the callback uses them once, whatever its outcome. */
export function clearDiscordCookies(): string[] {
  return [clearCookie(STATE_COOKIE), clearCookie(VERIFIER_COOKIE), clearCookie(LINK_COOKIE)];
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

/** What a Discord sign-in comes to: a session for a linked, confirmed account, or a link to confirm an address. */
export type DiscordSignIn = { kind: "account"; id: string } | { kind: "confirm-email"; email: string };

const linkedAccount = (db: Db, discordId: string) =>
  db
    .select({ userId: oauthAccounts.userId })
    .from(oauthAccounts)
    .where(and(eq(oauthAccounts.provider, "discord"), eq(oauthAccounts.providerUserId, discordId)))
    .get();

async function accountFor(deps: MailingDeps, discordUser: DiscordUser, request: Request, now: number): Promise<Result<DiscordSignIn>> {
  const { db } = deps;
  const link = await linkedAccount(db, discordUser.id);
  // A registration that lapsed unverified is gone (findById does not find it), and its link with it.
  const linked = link ? await findById(db, link.userId, now) : undefined;
  if (linked?.verifiedAt) return ok({ kind: "account", id: linked.id });
  if (linked) return ok({ kind: "confirm-email", email: linked.email });

  const email = discordUser.email?.trim().toLowerCase();
  if (!email || !discordUser.verified) {
    return fail("forbidden", "Your Discord account has no verified e-mail address. Verify it on Discord, or sign up with e-mail.");
  }
  // Joining an existing account by its address would let whoever convinced Discord of that address
  // into someone else's account: its owner links Discord themselves, signed in.
  const holder = await findByEmail(db, email, now);
  if (holder?.verifiedAt) {
    return fail("conflict", "An account with this e-mail address already exists. Log in to it, then link Discord on your Security page.");
  }
  // A registration of the address that nobody confirmed is replaced, exactly as an e-mail sign-up
  // replaces it; the new one waits for the same confirmation.
  const avatarUrl = discordUser.avatar ? `https://cdn.discordapp.com/avatars/${discordUser.id}/${discordUser.avatar}.png?size=128` : null;
  const username = await freeUsername(db, discordUser.username);
  const opened = await openAccount(db, { email, username, passwordHash: null, verifiedAt: null, avatarUrl }, { how: "discord", ip: clientAddress(request), now });
  if (!opened.ok) return opened;
  await db.insert(oauthAccounts).values({ provider: "discord", providerUserId: discordUser.id, userId: opened.value.id, createdAt: now }).onConflictDoNothing();
  await sendVerification(deps, { id: opened.value.id, email, username, createdAt: now }, new URL(request.url).origin, now);
  return ok({ kind: "confirm-email", email });
}

/** The Discord account the callback's code stands for, once the state proves the callback is this browser's. */
async function discordUserOf(config: DiscordConfig, request: Request): Promise<Result<DiscordUser>> {
  const url = new URL(request.url);
  const state = url.searchParams.get("state");
  const code = url.searchParams.get("code");
  const expectedState = readCookie(request, STATE_COOKIE);
  const verifier = readCookie(request, VERIFIER_COOKIE);
  if (!state || !code || !expectedState || !verifier || state !== expectedState) {
    return fail("unauthenticated", "The sign-in link expired or did not come from this browser. Please try again.");
  }
  try {
    const tokens = await client(config, url.origin).validateAuthorizationCode(code, verifier);
    const response = await fetch(USER_ENDPOINT, { headers: { Authorization: `Bearer ${tokens.accessToken()}` } });
    if (!response.ok) throw new Error(`Discord answered ${response.status}`);
    return ok((await response.json()) as DiscordUser);
  } catch (error) {
    console.error("Discord sign-in failed:", error);
    return fail("unauthenticated", "Discord did not confirm the sign-in. Please try again.");
  }
}

/**
 * Completes the sign-in Discord sent the browser back with: the linked account to sign in to, or
 * the address whose confirmation link was just mailed. Starting the session (`signInAs`) and
 * clearing the state cookies (`clearDiscordCookies`) are the caller's.
 */
export async function finishDiscordSignIn(deps: MailingDeps, config: DiscordConfig, request: Request, now = Date.now()): Promise<Result<DiscordSignIn>> {
  const discordUser = await discordUserOf(config, request);
  return discordUser.ok ? accountFor(deps, discordUser.value, request, now) : discordUser;
}

/** Completes a link started on the Security page: the Discord account becomes a way into the member's own account. */
export async function finishDiscordLink(db: Db, config: DiscordConfig, request: Request, userId: string, now = Date.now()): Promise<Result> {
  const discordUser = await discordUserOf(config, request);
  if (!discordUser.ok) return discordUser;
  const link = await linkedAccount(db, discordUser.value.id);
  if (link?.userId === userId) return ok();
  if (link) return fail("conflict", "This Discord account is linked to another account.");
  await db.insert(oauthAccounts).values({ provider: "discord", providerUserId: discordUser.value.id, userId, createdAt: now }).onConflictDoNothing();
  await audit(db, userId, "discord.link", userId, { discordId: discordUser.value.id, username: discordUser.value.username }, clientAddress(request));
  return ok();
}

/** Whether the member has linked a Discord account (the Security page offers to link one). */
export async function hasDiscord(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .select({ id: oauthAccounts.providerUserId })
    .from(oauthAccounts)
    .where(and(eq(oauthAccounts.provider, "discord"), eq(oauthAccounts.userId, userId)))
    .get();
  return row !== undefined;
}
