import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { auditLog, oauthAccounts, passwordResetTokens, profiles, recoveryCodes, sessions, totpFactors, users } from "~/server/platform/db/schema.server";
import { clearDiscordCookies, type DiscordConfig, finishDiscordSignIn, startDiscordSignIn } from "~/server/accounts/discord.server";
import { signInAs } from "~/server/accounts/sign-in.server";
import { call, createAccount, db, ORIGIN, unique } from "./helpers";

const config: DiscordConfig = { DISCORD_CLIENT_ID: "client-123", DISCORD_CLIENT_SECRET: "secret-456" };

afterEach(() => vi.restoreAllMocks());

/** Discord's token and user endpoints, as the test wants them to answer. */
function discordAnswers(user: Record<string, unknown>) {
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes("/oauth2/token")) return Response.json({ access_token: "token-abc", token_type: "Bearer", expires_in: 3600 });
    if (url.endsWith("/users/@me")) return Response.json(user);
    return new Response("unexpected", { status: 500 });
  });
}

function callback(state: string, cookies: string[], stateInUrl = state, ip = "198.51.100.1") {
  const cookieHeader = cookies.map((c) => c.split(";")[0]).join("; ");
  return new Request(`${ORIGIN}/auth/discord/callback?code=the-code&state=${stateInUrl}`, { headers: { Cookie: cookieHeader, "CF-Connecting-IP": ip } });
}

function started() {
  const { url, cookies } = startDiscordSignIn(config, ORIGIN);
  return { url: new URL(url), cookies, state: new URL(url).searchParams.get("state")! };
}

describe("sign in with Discord", () => {
  it("is hidden and unreachable when not configured", async () => {
    expect(await (await call("/auth")).text()).not.toContain("Continue with Discord");
    expect((await call("/auth/discord")).status).toBe(404);
    expect((await call("/auth/discord/callback?code=x&state=y")).status).toBe(404);
  });

  it("sends the browser to Discord with PKCE and a state tied to a cookie", () => {
    const { url, cookies, state } = started();
    expect(url.origin).toBe("https://discord.com");
    expect(url.searchParams.get("client_id")).toBe("client-123");
    expect(url.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/auth/discord/callback`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("scope")).toBe("identify email");
    expect(cookies.some((c) => c.startsWith(`__Host-discord-state=${state};`) && c.includes("HttpOnly"))).toBe(true);
  });

  it("refuses a callback whose state does not match this browser's", async () => {
    const { cookies, state } = started();
    const fetchSpy = discordAnswers({ id: "1", username: "x", email: "x@example.test", verified: true });
    const outcome = await finishDiscordSignIn(db, config, callback(state, cookies, "forged-state"));
    expect(outcome).toEqual({
      ok: false,
      problem: { code: "unauthenticated", message: "The sign-in link expired or did not come from this browser. Please try again." },
    });
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("creates a verified account for a new Discord user, and signs the same user in next time", async () => {
    const discordId = unique("d");
    const email = `${unique("disc")}@example.test`;
    discordAnswers({ id: discordId, username: "Gamer Tag!", email, verified: true, avatar: "abc" });
    const first = started();
    const outcome = await finishDiscordSignIn(db, config, callback(first.state, first.cookies));
    const user = await db.select().from(users).where(eq(users.email, email)).get();
    // Linked just now: the callback route claims the keys bought with the address.
    expect(outcome).toEqual({ ok: true, value: { id: user!.id, email, linkedNow: true } });
    // The callback route then starts the session.
    expect(await signInAs(db, user!.id, callback(first.state, first.cookies))).toEqual({ ok: true, value: { cookie: expect.stringMatching(/^__Host-session=/), secondFactor: false } });
    expect(user?.emailVerifiedAt).toBeTypeOf("number");
    expect(user?.passwordHash).toBeNull();

    const again = started();
    // Linked on an earlier visit: nothing new to claim.
    expect(await finishDiscordSignIn(db, config, callback(again.state, again.cookies))).toMatchObject({
      ok: true,
      value: { id: user!.id, email, linkedNow: false },
    });
    expect(await db.select().from(users).where(eq(users.email, email)).all()).toHaveLength(1);
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.providerUserId, discordId)).all()).toHaveLength(1);
  });

  it("links to the existing account with the same verified e-mail", async () => {
    const account = await createAccount();
    discordAnswers({ id: unique("d"), username: "someone", email: account.email.toUpperCase(), verified: true });
    const { state, cookies } = started();
    expect(await finishDiscordSignIn(db, config, callback(state, cookies))).toMatchObject({
      ok: true,
      value: { id: account.id, email: account.email, linkedNow: true },
    });
    expect((await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, account.id)).get())?.provider).toBe("discord");
  });

  it("replaces an unverified account with that e-mail: whoever registered it without proving the address keeps nothing", async () => {
    const squatter = await createAccount({ verified: false });
    const now = Date.now();
    const sessionId = unique("sess");
    await db.batch([
      db.insert(sessions).values({ id: sessionId, publicId: unique("pub"), userId: squatter.id, expiresAt: now + 86_400_000, createdAt: now, lastSeenAt: now }),
      db.insert(totpFactors).values({ userId: squatter.id, secret: "x", status: "verified", createdAt: now, verifiedAt: now }),
      db.insert(recoveryCodes).values({ userId: squatter.id, codeHash: "h" }),
      db.insert(passwordResetTokens).values({ tokenHash: unique("reset"), userId: squatter.id, createdAt: now, expiresAt: now + 60_000 }),
    ]);
    discordAnswers({ id: unique("d"), username: "owner", email: squatter.email.toUpperCase(), verified: true });
    const { state, cookies } = started();
    const outcome = await finishDiscordSignIn(db, config, callback(state, cookies, state, "203.0.113.77"));
    expect(outcome).toMatchObject({ ok: true, value: { email: squatter.email, linkedNow: true } });
    const id = outcome.ok ? outcome.value.id : "";
    expect(id).not.toBe(squatter.id);

    // A new, verified account with Discord's name; the registration is gone with everything it held.
    const user = await db.select().from(users).where(eq(users.id, id)).get();
    expect(user).toMatchObject({ email: squatter.email, passwordHash: null, emailVerifiedAt: expect.any(Number) });
    expect((await db.select().from(profiles).where(eq(profiles.id, id)).get())?.username).toMatch(/^owner/);
    expect(await db.select().from(users).where(eq(users.id, squatter.id)).get()).toBeUndefined();
    for (const table of [totpFactors, recoveryCodes, passwordResetTokens, sessions]) {
      expect(await db.select().from(table).where(eq(table.userId, squatter.id))).toHaveLength(0);
    }
    const login = await call("/auth", { form: { intent: "login", emailOrUsername: squatter.email, password: squatter.password }, ip: unique("ip") });
    expect(login.status).toBe(401);
    expect(await db.select().from(auditLog).where(and(eq(auditLog.action, "registration.replace"), eq(auditLog.subject, id)))).toEqual([
      expect.objectContaining({ actorUserId: null, ip: "203.0.113.77", detail: JSON.stringify({ replacedUserId: squatter.id, how: "discord" }) }),
    ]);
  });

  it("keeps a verified account's password and second factor when Discord is linked to it", async () => {
    const account = await createAccount();
    discordAnswers({ id: unique("d"), username: "someone", email: account.email, verified: true });
    const { state, cookies } = started();
    await finishDiscordSignIn(db, config, callback(state, cookies));
    expect((await db.select().from(users).where(eq(users.id, account.id)).get())?.passwordHash).toBeTruthy();
  });

  it("refuses a Discord account whose e-mail Discord has not verified", async () => {
    const account = await createAccount();
    discordAnswers({ id: unique("d"), username: "someone", email: account.email, verified: false });
    const { state, cookies } = started();
    const outcome = await finishDiscordSignIn(db, config, callback(state, cookies));
    expect(outcome).toEqual({
      ok: false,
      problem: { code: "forbidden", message: "Your Discord account has no verified e-mail address. Verify it on Discord, or sign up with e-mail." },
    });
    expect(await db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, account.id)).get()).toBeUndefined();
  });

  it("opens only the second step for an account with two-factor authentication", async () => {
    const account = await createAccount();
    const now = Date.now();
    await db.insert(totpFactors).values({ userId: account.id, secret: "x", status: "verified", createdAt: now, verifiedAt: now });
    discordAnswers({ id: unique("d"), username: "someone", email: account.email, verified: true });
    const { state, cookies } = started();
    const outcome = await finishDiscordSignIn(db, config, callback(state, cookies));
    expect(outcome).toMatchObject({ ok: true, value: { id: account.id } });
    // What the callback route starts for it: the challenge, not a session.
    expect(await signInAs(db, account.id, callback(state, cookies))).toEqual({ ok: true, value: { secondFactor: true, cookie: expect.stringMatching(/^__Host-2fa=/) } });
    // A banned account gets neither a session nor a second step, whichever way it proved itself.
    await db.update(users).set({ bannedAt: Date.now(), banReason: "test" }).where(eq(users.id, account.id));
    expect(await signInAs(db, account.id, callback(state, cookies))).toEqual({
      ok: false,
      problem: { code: "forbidden", message: "This account has been suspended. Contact support." },
    });
    expect(await db.select().from(sessions).where(eq(sessions.userId, account.id))).toHaveLength(0);
  });

  it("says so when Discord does not confirm the sign-in", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("down", { status: 503 }));
    const { state, cookies } = started();
    expect(await finishDiscordSignIn(db, config, callback(state, cookies))).toEqual({
      ok: false,
      problem: { code: "unauthenticated", message: "Discord did not confirm the sign-in. Please try again." },
    });
  });

  it("clears both cookies that tied the callback to the browser", () => {
    const cleared = clearDiscordCookies();
    expect(cleared.map((c) => c.split("=")[0])).toEqual(["__Host-discord-state", "__Host-discord-verifier"]);
    for (const cookie of cleared) expect(cookie).toMatch(/Max-Age=0/);
  });
});
