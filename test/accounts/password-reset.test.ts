// Resetting a forgotten password: asking for a link without learning who has an account, using the
// link once, and what a reset does to the account (sessions, sign-ins in progress, verification).
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkResetLink, RESET_LINK_TTL_MS, requestPasswordReset } from "~/server/accounts/password-reset.server";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import { auditLog, loginChallenges, passwordResetTokens, totpFactors, userSubscriptions, users } from "~/server/platform/db/schema.server";
import { randomToken, sha256Hex } from "~/server/platform/tokens.server";
import {
  call as callWorker,
  cookieFrom,
  createAccount,
  db,
  latestMail,
  ORIGIN,
  signIn,
  soldKey,
  type TestAccount,
  unique,
} from "../helpers";
import { callerOf } from "~/http/caller.server";
import { scopeField } from "~/lib/schemas/api-tokens";

afterEach(() => vi.restoreAllMocks());

const DAY = 24 * 60 * 60 * 1000;

/** `call`, with the body read at once: a streamed page left unread is cancelled noisily when the test moves on. */
async function call(...args: Parameters<typeof callWorker>): Promise<Response> {
  const response = await callWorker(...args);
  return new Response(await response.arrayBuffer(), response);
}

/**
 * Asks for a reset link for `name` the way the page does, but waits for the work the answer leaves
 * behind (finding the account, making the link, the mail) before returning.
 */
async function askForLink(name: string, ip = unique("ip")) {
  const pending: Promise<unknown>[] = [];
  const deps = { db, mail: env, waitUntil: (promise: Promise<unknown>) => void pending.push(promise) };
  const request = new Request(`${ORIGIN}/auth/forgot`, { method: "POST", headers: { "CF-Connecting-IP": ip } });
  const result = await requestPasswordReset(deps, callerOf(request), { emailOrUsername: name });
  while (pending.length > 0) await Promise.all(pending.splice(0));
  return result;
}

/** The token of the newest reset link mailed to `account`. */
async function mailedToken(account: { email: string }): Promise<string> {
  const mail = await latestMail(account.email, "Reset your");
  const link = mail?.textBody.match(/https:\/\/shop\.test\/auth\/reset\?token=([A-Za-z0-9_-]+)/);
  if (!link) throw new Error(`no reset link mailed to ${account.email}`);
  return link[1]!;
}

async function linkFor(account: TestAccount): Promise<string> {
  expect(await askForLink(account.email)).toEqual({ ok: true, value: undefined });
  return mailedToken(account);
}

/** A reset link for `account` as a request would leave it, written straight to the table. */
async function storedLink(account: TestAccount): Promise<string> {
  const token = randomToken();
  const now = Date.now();
  const link = { tokenHash: await sha256Hex(token), createdAt: now, expiresAt: now + RESET_LINK_TTL_MS };
  await db
    .insert(passwordResetTokens)
    .values({ ...link, userId: account.id })
    .onConflictDoUpdate({ target: passwordResetTokens.userId, set: link });
  return token;
}

/** Follows a mailed link and returns the cookie it leaves the token in. */
async function openLink(token: string): Promise<string> {
  const response = await call(`/auth/reset?token=${token}`);
  const cookie = cookieFrom(response, "__Host-reset");
  if (response.status !== 302 || !cookie) throw new Error(`the link did not open: ${response.status}`);
  return cookie;
}

function setPassword(cookie: string, password: string, ip = unique("ip")) {
  return call("/auth/reset", { form: { password }, cookie, ip });
}

async function toastOf(response: Response) {
  const viewer = await call("/api/viewer", { cookie: cookieFrom(response, "__Host-toast")! });
  return ((await viewer.json()) as { toast: unknown }).toast;
}

async function passwordWorks(account: { email: string }, password: string): Promise<boolean> {
  const response = await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password }, ip: unique("ip") });
  return response.status === 302;
}

/** Status, headers and body of an answer, with the per-response CSP nonce and date blanked out. */
async function comparable(response: Response) {
  const blank = (text: string) => text.replace(/nonce-[A-Za-z0-9+/=]+/g, "nonce-*").replace(/nonce="[^"]*"/g, 'nonce="*"');
  const headers = [...response.headers].filter(([name]) => name !== "date").map(([name, value]) => [name, blank(value)]);
  return { status: response.status, headers, body: blank(await response.text()) };
}

describe("asking for a reset link", () => {
  it("is where the sign-in form's 'Forgot your password?' leads", async () => {
    expect(await (await call("/auth")).text()).toMatch(/<a[^>]*href="\/auth\/forgot"[^>]*>Forgot your password\?<\/a>/);
    const page = await call("/auth/forgot");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Forgot your password?");
    expect(html).toMatch(/<label[^>]*>Email or Username<\/label>/);
  });

  it("mails a link with a 256-bit token, of which only the hash is kept, for 30 minutes", async () => {
    const account = await createAccount();
    const before = Date.now();
    const response = await call("/auth/forgot", { form: { emailOrUsername: account.email }, ip: "203.0.113.40" });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("If an account matches, a link to reset its password is on its way.");

    // The link is made after the answer; wait for it.
    await vi.waitFor(async () => expect(await latestMail(account.email, "Reset your")).toBeDefined(), { timeout: 5000 });
    const mail = (await latestMail(account.email, "Reset your"))!;
    expect(mail.textBody).toContain("If you did not ask, ignore this message: your password stays as it is.");
    const token = await mailedToken(account);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, account.id)).get();
    expect(row!.tokenHash).toBe(await sha256Hex(token));
    expect(row!.expiresAt - row!.createdAt).toBe(30 * 60 * 1000);
    expect(row!.createdAt).toBeGreaterThanOrEqual(before);

    const entries = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "password.reset-request"), eq(auditLog.subject, account.id)));
    expect(entries).toEqual([expect.objectContaining({ actorUserId: null, ip: "203.0.113.40", detail: JSON.stringify({ by: "email" }) })]);
    expect(entries[0]!.detail).not.toContain(token);
  });

  it("finds the account by username too, in any case", async () => {
    const account = await createAccount();
    expect(await askForLink(account.username.toUpperCase())).toEqual({ ok: true, value: undefined });
    expect(await mailedToken(account)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("answers known and unknown e-mail addresses and usernames, and unverified accounts, exactly alike", async () => {
    const known = await createAccount();
    const unverified = await createAccount({ verified: false });
    const lapsed = await createAccount({ verified: false, createdAt: Date.now() - DAY - 60_000 });
    const names = [known.email, `${unique("nobody")}@example.test`, known.username, unique("nobody"), unverified.email, lapsed.email];
    const answers = [];
    for (const emailOrUsername of names)
      answers.push(await comparable(await call("/auth/forgot", { form: { emailOrUsername }, ip: unique("ip") })));
    for (const other of answers.slice(1)) expect(other).toEqual(answers[0]);
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.headers.some(([name]) => name === "set-cookie")).toBe(false);

    // Behind the identical answers, only the lasting accounts were sent a link.
    for (const account of [known, unverified]) {
      await vi.waitFor(async () => expect(await latestMail(account.email, "Reset your")).toBeDefined(), { timeout: 5000 });
    }
    expect(await latestMail(lapsed.email, "Reset your")).toBeUndefined();
  });

  it("refuses bad input with the form's message, never a 500", async () => {
    const forms: Record<string, string>[] = [{ emailOrUsername: "  " }, {}, { emailOrUsername: "x".repeat(300) }];
    for (const form of forms) {
      const response = await call("/auth/forgot", { form, ip: unique("ip") });
      expect(response.status).toBe(400);
    }
    expect(await (await call("/auth/forgot", { form: { emailOrUsername: "" }, ip: unique("ip") })).text()).toContain(
      "Email or username is required",
    );
  });

  it("allows ten requests an hour from one client, then answers 429 with Retry-After", async () => {
    const ip = unique("ip");
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await call("/auth/forgot", { form: { emailOrUsername: unique("someone") }, ip })).status);
    expect(statuses).toEqual(Array(10).fill(200));
    const refused = await call("/auth/forgot", { form: { emailOrUsername: unique("someone") }, ip });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(3000);
    const body = await refused.text();
    expect(body).toContain("Too Many Attempts");
    expect(body).toContain("Too many reset requests");
  });

  it("allows three requests for one account from anywhere, then slows down, and answers an unknown name alike", async () => {
    const account = await createAccount();
    const refusals = [];
    for (const name of [account.email, `${unique("nobody")}@example.test`]) {
      for (let i = 0; i < 3; i++)
        expect((await call("/auth/forgot", { form: { emailOrUsername: name.toUpperCase() }, ip: unique("ip") })).status).toBe(200);
      const refused = await call("/auth/forgot", { form: { emailOrUsername: name }, ip: unique("ip") });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("Retry-After")).toBe("60");
      refusals.push(await comparable(refused));
    }
    expect(refusals[1]).toEqual(refusals[0]);
  });
});

describe("using a reset link", () => {
  it("moves the token out of the address into a cookie, and sends no Referer from the page", async () => {
    const account = await createAccount();
    const token = await linkFor(account);
    const opened = await call(`/auth/reset?token=${token}`);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("Location")).toBe("/auth/reset");
    expect(opened.headers.get("Referrer-Policy")).toBe("no-referrer");
    const header = opened.headers.getSetCookie().find((c) => c.startsWith("__Host-reset="))!;
    expect(header).toContain(`__Host-reset=${token};`);
    expect(header).toMatch(/HttpOnly/);
    expect(Number(header.match(/Max-Age=(\d+)/)![1])).toBeLessThanOrEqual(30 * 60);

    const page = await call("/auth/reset", { cookie: cookieFrom(opened, "__Host-reset")! });
    expect(page.status).toBe(200);
    expect(page.headers.get("Referrer-Policy")).toBe("no-referrer");
    const html = await page.text();
    expect(html).toContain("Choose a new password");
    expect(html).toContain(account.username);
    expect(html).toMatch(/<label[^>]*>New password<\/label>/);
    expect(html).not.toContain(token);
  });

  it("sets the password, ends every session, mails a notice and sends the member to sign in", async () => {
    const account = await createAccount();
    const laptop = await signIn(account, unique("ip"));
    const phone = await signIn(account, unique("ip"));
    for (const cookie of [laptop, phone]) expect((await call("/dashboard", { cookie })).status).toBe(200);

    const token = await linkFor(account);
    const done = await setPassword(await openLink(token), "brand-new-pass", "203.0.113.41");
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/auth");
    expect(done.headers.getSetCookie().find((c) => c.startsWith("__Host-reset="))).toMatch(/Max-Age=0/);
    expect(await toastOf(done)).toMatchObject({ title: "Password Changed" });

    // Signed out everywhere: neither cookie opens the dashboard any more.
    for (const cookie of [laptop, phone]) {
      const response = await call("/dashboard", { cookie });
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toBe("/auth");
    }
    expect(await passwordWorks(account, account.password)).toBe(false);
    expect(await passwordWorks(account, "brand-new-pass")).toBe(true);

    const notice = await latestMail(account.email, "password was changed");
    expect(notice?.textBody).toContain("If it was not you");
    expect(notice?.textBody).toContain(`${ORIGIN}/auth/forgot`);
    const entries = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "password.reset"), eq(auditLog.subject, account.id)));
    expect(entries).toEqual([expect.objectContaining({ actorUserId: account.id, ip: "203.0.113.41" })]);
    expect(entries[0]!.detail).not.toContain("brand-new-pass");
  });

  it("works once: the same link again, or two uses at the same moment, set the password once", async () => {
    const account = await createAccount();
    const cookie = await openLink(await linkFor(account));
    const attempts = await Promise.all(
      ["first-new-pass", "second-new-pass", "third-new-pass"].map((password) => setPassword(cookie, password)),
    );
    expect(attempts.map((r) => r.status).sort()).toEqual([302, 404, 404]);

    const again = await setPassword(cookie, "fourth-new-pass");
    expect(again.status).toBe(404);
    expect(await again.text()).toContain("Link Expired");
    expect(await passwordWorks(account, "fourth-new-pass")).toBe(false);
    // The page says so, with the way to a new link.
    const page = await call("/auth/reset", { cookie });
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain("This link can&#x27;t be used");
    expect(html).toContain('href="/auth/forgot"');
  });

  it("expires after 30 minutes", async () => {
    const account = await createAccount();
    const token = await linkFor(account);
    expect(await checkResetLink(db, token, Date.now() + RESET_LINK_TTL_MS - 60_000)).toMatchObject({ ok: true });
    expect(await checkResetLink(db, token, Date.now() + RESET_LINK_TTL_MS + 1)).toMatchObject({
      ok: false,
      problem: { code: "not-found" },
    });

    const cookie = await openLink(token);
    await db
      .update(passwordResetTokens)
      .set({ expiresAt: Date.now() - 1 })
      .where(eq(passwordResetTokens.userId, account.id));
    expect((await call("/auth/reset", { cookie })).status).toBe(404);
    expect((await setPassword(cookie, "too-late-pass")).status).toBe(404);
    expect(await passwordWorks(account, account.password)).toBe(true);
    // Opening it again only clears the cookie.
    const reopened = await call(`/auth/reset?token=${token}`);
    expect(reopened.headers.get("Location")).toBe("/auth/reset");
    expect(reopened.headers.getSetCookie().find((c) => c.startsWith("__Host-reset="))).toMatch(/Max-Age=0/);
    // The cron job clears expired links away.
    await runScheduledJobs(env);
    expect(await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, account.id))).toHaveLength(0);
  });

  it("stops working once a newer link is asked for", async () => {
    const account = await createAccount();
    const older = await linkFor(account);
    const newer = await linkFor(account);
    expect(newer).not.toBe(older);
    expect(await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, account.id))).toHaveLength(1);
    expect((await call(`/auth/reset?token=${older}`)).headers.getSetCookie().join()).toMatch(/__Host-reset=; .*Max-Age=0/);
    expect((await setPassword(`__Host-reset=${older}`, "older-link-pass")).status).toBe(404);
    expect((await setPassword(await openLink(newer), "newer-link-pass")).status).toBe(302);
    expect(await passwordWorks(account, "newer-link-pass")).toBe(true);
  });

  it("shows a clear page for unknown, malformed or missing tokens, never a 500", async () => {
    for (const token of ["", "nope", "A".repeat(43), "<script>alert(1)</script>", "x".repeat(5000)]) {
      const opened = await call(`/auth/reset?token=${encodeURIComponent(token)}`);
      expect(opened.status).toBe(302);
      const page = await call("/auth/reset", { cookie: `__Host-reset=${encodeURIComponent(token)}` });
      expect(page.status).toBe(404);
      expect(await page.text()).toContain("The password reset link is invalid or has expired.");
    }
    expect((await call("/auth/reset")).status).toBe(404);
    const noCookie = await setPassword("", "some-new-pass");
    expect(noCookie.status).toBe(404);
    expect(noCookie.headers.getSetCookie().find((c) => c.startsWith("__Host-reset="))).toMatch(/Max-Age=0/);
  });

  it("holds a new password to the sign-up rules, without using the link up", async () => {
    const account = await createAccount();
    const cookie = await openLink(await linkFor(account));
    for (const [password, message] of [
      ["12345", "Password must be at least 6 characters"],
      ["x".repeat(129), "Password must be at most 128 characters"],
    ]) {
      const response = await setPassword(cookie, password!);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(message);
    }
    expect((await setPassword(cookie, "long-enough")).status).toBe(302);
  });

  it("revokes the account's API tokens, and no one else's: a token made before the reset opens nothing after it", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const tokens: string[] = [];
    for (const holder of [account, other]) {
      const cookie = await signIn(holder, unique("ip"));
      await call("/dashboard/resell", { cookie }); // the first visit opens the reseller account
      const form = { intent: "create-api-token", name: "bot", [scopeField("keys:read")]: "on", password: holder.password };
      const made = await call("/dashboard/security", { cookie, ip: unique("ip"), form });
      tokens.push(/vtx_[\w-]{43}/.exec(await made.text())?.[0] ?? "");
    }
    const [mine, theirs] = tokens as [string, string];
    const keysWith = async (token: string) => (await call("/api/v1/seller/keys", { headers: { Authorization: `Bearer ${token}` } })).status;
    expect(await keysWith(mine)).toBe(200);

    expect((await setPassword(await openLink(await storedLink(account)), "brand-new-pass")).status).toBe(302);

    expect(await keysWith(mine)).toBe(401);
    expect(await keysWith(theirs)).toBe(200);
    expect((await latestMail(account.email, "password was changed"))?.textBody).toContain("Its API tokens were revoked");
  });

  it("proves an unverified address: it counts as verified and the keys bought with it attach", async () => {
    const account = await createAccount({ verified: false });
    const codeId = await soldKey(account.email);
    expect((await setPassword(await openLink(await linkFor(account)), "verified-by-reset")).status).toBe(302);
    expect((await db.select().from(users).where(eq(users.id, account.id)).get())?.emailVerifiedAt).toBeTypeOf("number");
    const subscriptions = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id));
    expect(subscriptions.map((s) => s.productCodeId)).toEqual([codeId]);
    expect(await passwordWorks(account, "verified-by-reset")).toBe(true);
  });

  it("keeps two-factor authentication: the next sign-in still asks for a code, and one in progress starts over", async () => {
    const account = await createAccount();
    const now = Date.now();
    await db.insert(totpFactors).values({ userId: account.id, secret: "sealed", status: "verified", createdAt: now, verifiedAt: now });
    const halfway = await call("/auth", {
      form: { intent: "login", emailOrUsername: account.email, password: account.password },
      ip: unique("ip"),
    });
    const challenge = cookieFrom(halfway, "__Host-2fa")!;
    expect((await call("/auth/2fa", { cookie: challenge })).status).toBe(200);

    expect((await setPassword(await openLink(await linkFor(account)), "with-2fa-pass")).status).toBe(302);
    expect(await db.select().from(loginChallenges).where(eq(loginChallenges.userId, account.id))).toHaveLength(0);
    expect((await call("/auth/2fa", { cookie: challenge })).headers.get("Location")).toBe("/auth");

    const next = await call("/auth", {
      form: { intent: "login", emailOrUsername: account.email, password: "with-2fa-pass" },
      ip: unique("ip"),
    });
    expect(next.status).toBe(302);
    expect(next.headers.get("Location")).toBe("/auth/2fa");
    expect(cookieFrom(next, "__Host-2fa")).not.toBeNull();
    expect(cookieFrom(next, "__Host-session")).toBeNull();
  });

  it("allows ten tries from one client, then answers 429 with Retry-After", async () => {
    const ip = unique("ip");
    for (let i = 0; i < 10; i++) expect((await setPassword(`__Host-reset=${"G".repeat(42)}${i}`, "guess-pass", ip)).status).toBe(404);
    const account = await createAccount();
    const refused = await setPassword(await openLink(await linkFor(account)), "blocked-pass", ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(800);
    expect(await refused.text()).toContain("Too many password resets");
    expect(await passwordWorks(account, "blocked-pass")).toBe(false);
  });

  it("allows three resets of one account, then slows down", async () => {
    const account = await createAccount();
    // Links stored directly: asking for four in a row would meet the request limit first.
    for (let i = 0; i < 3; i++) expect((await setPassword(await openLink(await storedLink(account)), `reset-${i}-pass`)).status).toBe(302);
    const refused = await setPassword(await openLink(await storedLink(account)), "fourth-reset-pass");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("60");
    expect(await passwordWorks(account, "reset-2-pass")).toBe(true);
  });
});
