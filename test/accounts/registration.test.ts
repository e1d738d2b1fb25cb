// Registering an address you do not own wins nothing: a later sign-up with the address replaces an
// unverified registration, and registrations that are never verified lapse after a day.
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runScheduledJobs } from "~/server/jobs/cron.server";
import { auditLog, emailVerificationTokens, profiles, userSubscriptions, users } from "~/server/platform/db/schema.server";
import { randomToken, sha256Hex } from "~/server/platform/tokens.server";
import { call, confirmEmail, cookieFrom, createAccount, db, latestMail, soldKey, unique } from "../helpers";

const DAY = 24 * 60 * 60 * 1000;

function signUp(form: { username: string; email: string; password: string }, ip = unique("ip")) {
  return call("/auth", { form: { intent: "signup", ...form }, ip });
}

function logIn(emailOrUsername: string, password: string) {
  return call("/auth", { form: { intent: "login", emailOrUsername, password }, ip: unique("ip") });
}

/** The path and query of the newest verification link mailed to `email`. */
async function verificationLink(email: string): Promise<string> {
  const mail = await latestMail(email, "Verify your");
  const link = mail?.textBody.match(/https:\/\/shop\.test(\/auth\/verify\?token=[A-Za-z0-9_-]+)/)?.[1];
  if (!link) throw new Error(`no verification link mailed to ${email}`);
  return link;
}

async function toastAfter(path: string, password: string) {
  const response = await confirmEmail(path, password);
  const viewer = await call("/api/viewer", { cookie: cookieFrom(response, "__Host-toast")! });
  return ((await viewer.json()) as { toast: { title: string } }).toast.title;
}

const accountsWith = (email: string) => db.select().from(users).where(eq(users.email, email)).all();

describe("the verification link", () => {
  it("verifies nothing when opened, however often: only the Confirm button on the page it leads to does", async () => {
    const email = `${unique("scanned")}@example.test`;
    const username = unique("scanned");
    const codeId = await soldKey(email);
    expect((await signUp({ username, email, password: "its-password" })).status).toBe(200);
    const link = await verificationLink(email);
    const [account] = await accountsWith(email);
    const unverified = async () => (await db.select().from(users).where(eq(users.id, account!.id)).get())?.emailVerifiedAt === null;

    // A mail scanner opens the link (no cookies, and following the redirect with them or not).
    const scanned = await call(link);
    expect(scanned.status).toBe(302);
    expect(scanned.headers.get("Location")).toBe("/auth/verify");
    const cookie = cookieFrom(scanned, "__Host-verify")!;
    expect(cookie).toBeTruthy();
    const page = await call("/auth/verify", { cookie });
    expect(page.status).toBe(200);
    expect(page.headers.get("Referrer-Policy")).toBe("no-referrer");
    const text = (await page.text()).replace(/<!-- -->/g, "");
    // The page names the account being confirmed, and what to do if it is not yours.
    expect(text).toContain(username);
    expect(text).toContain(email);
    expect(text).toContain("Did not sign up? Ignore the e-mail");
    expect(await call(link)).toBeDefined();
    expect(await call("/auth/verify")).toBeDefined();
    expect(await unverified()).toBe(true);
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account!.id))).toHaveLength(0);
    expect((await logIn(email, "its-password")).status).toBe(403);

    // A POST without the link's cookie, from another site, without the password, or with a wrong
    // one (counted like a failed sign-in) confirms nothing.
    const form = { account: account!.id, password: "its-password" };
    expect((await call("/auth/verify", { form })).headers.get("Location")).toBe("/auth");
    expect((await call("/auth/verify", { form, cookie, headers: { Origin: "https://elsewhere.example" } })).status).toBe(403);
    expect((await call("/auth/verify", { form: { account: account!.id }, cookie })).status).toBe(400);
    const wrong = await call("/auth/verify", { form: { account: account!.id, password: "not-its-password" }, cookie });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("That is not the password this account was signed up with");
    expect(await unverified()).toBe(true);

    // The deliberate click by the registrant: verified, and the address's keys join the account.
    const confirmed = await call("/auth/verify", { form, cookie });
    expect(confirmed.headers.get("Location")).toBe("/auth");
    expect(await unverified()).toBe(false);
    expect(
      (await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account!.id))).map((s) => s.productCodeId),
    ).toEqual([codeId]);
  });
});

describe("confirming someone else's registration of your address", () => {
  it("is impossible: the page asks for the password chosen at sign-up, which only the registrant knows", async () => {
    // The owner signs up; an intruder then signs up with the same address and even the same name,
    // replacing the owner's unconfirmed registration. The owner asks for a new link, and gets the
    // intruder's registration's link: the page names the owner's own name and address.
    const email = `${unique("owner")}@example.test`;
    const username = unique("owner");
    const codeId = await soldKey(email);
    await signUp({ username, email, password: "owners-password" });
    await signUp({ username, email, password: "intruders-password" }, "203.0.113.66");
    const [intruders] = await accountsWith(email);
    await call("/auth", { form: { intent: "resend", email }, ip: unique("ip") });
    const link = await verificationLink(email);
    // Confirming with the owner's own password confirms nothing.
    expect(await toastAfter(link, "owners-password").catch(() => "refused")).not.toBe("Email Verified");
    expect((await db.select().from(users).where(eq(users.id, intruders!.id)).get())?.emailVerifiedAt).toBeNull();
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.productCodeId, codeId))).toHaveLength(0);
    expect((await logIn(email, "intruders-password")).status).toBe(403);
    // A new sign-up by the owner replaces the intruder's registration, and the owner confirms it.
    await signUp({ username: unique("owner"), email, password: "owners-password" });
    expect(await toastAfter(await verificationLink(email), "owners-password")).toBe("Email Verified");
    expect((await logIn(email, "owners-password")).status).toBe(302);
  });

  it("confirms only the account the page named, not a link swapped in meanwhile", async () => {
    const first = { username: unique("a"), email: `${unique("a")}@example.test`, password: "first-pass" };
    await signUp(first);
    const [firstAccount] = await accountsWith(first.email);
    const opened = await call(await verificationLink(first.email));
    const cookie = cookieFrom(opened, "__Host-verify")!;
    const response = await call("/auth/verify", { form: { account: crypto.randomUUID(), password: first.password }, cookie });
    expect(response.headers.get("Location")).toBe("/auth");
    expect((await db.select().from(users).where(eq(users.id, firstAccount!.id)).get())?.emailVerifiedAt).toBeNull();
  });
});

describe("signing up with an address someone registered without verifying it", () => {
  it("replaces the registration: the first registrant's password and link stop working, the owner's work", async () => {
    const email = `${unique("victim")}@example.test`;
    const attacker = { username: unique("squat"), email, password: "attacker-pass" };
    expect((await signUp(attacker)).status).toBe(200);
    const [squatted] = await accountsWith(email);
    const attackerLink = await verificationLink(email);

    const owner = { username: unique("owner"), email, password: "owner-pass-1" };
    const response = await signUp(owner, "203.0.113.50");
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Account Created!");
    const [account, ...others] = await accountsWith(email);
    expect(others).toHaveLength(0);
    expect(account!.id).not.toBe(squatted!.id);
    expect((await db.select().from(profiles).where(eq(profiles.id, account!.id)).get())?.username).toBe(owner.username);

    // The first registration's link and password are dead; so is its username's hold.
    expect(await toastAfter(attackerLink, attacker.password)).toBe("Verification Failed");
    expect((await db.select().from(users).where(eq(users.id, account!.id)).get())?.emailVerifiedAt).toBeNull();
    expect((await logIn(email, attacker.password)).status).toBe(401);
    expect((await logIn(attacker.username, attacker.password)).status).toBe(401);

    expect(await toastAfter(await verificationLink(email), owner.password)).toBe("Email Verified");
    expect((await logIn(email, owner.password)).status).toBe(302);
    expect((await logIn(owner.username, owner.password)).status).toBe(302);

    const entries = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "registration.replace"), eq(auditLog.subject, account!.id)));
    expect(entries).toEqual([
      expect.objectContaining({
        actorUserId: null,
        ip: "203.0.113.50",
        detail: JSON.stringify({ replacedUserId: squatted!.id, how: "sign-up" }),
      }),
    ]);
  });

  it("lets the new sign-up take the username the replaced registration chose", async () => {
    const email = `${unique("same")}@example.test`;
    const username = unique("same");
    expect((await signUp({ username, email, password: "first-pass" })).status).toBe(200);
    expect((await signUp({ username: username.toUpperCase(), email: email.toUpperCase(), password: "second-pass" })).status).toBe(200);
    expect(await db.select().from(users).where(eq(users.email, email)).all()).toHaveLength(1);
  });

  it("still answers 'already registered' for a verified address, and leaves that account alone", async () => {
    const account = await createAccount();
    const response = await signUp({ username: unique("late"), email: account.email.toUpperCase(), password: "late-pass-1" });
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("This email is already registered. Try logging in instead.");
    expect((await db.select().from(users).where(eq(users.email, account.email)).all()).map((u) => u.id)).toEqual([account.id]);
    expect((await logIn(account.email, account.password)).status).toBe(302);
  });

  it("keeps the username of another unverified registration taken while it lasts, and frees it once it has lapsed", async () => {
    const waiting = await createAccount({ verified: false });
    const taken = await signUp({ username: waiting.username, email: `${unique("other")}@example.test`, password: "other-pass" });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain("Username Taken");

    const lapsed = await createAccount({ verified: false, createdAt: Date.now() - DAY - 1000 });
    const email = `${unique("other")}@example.test`;
    expect((await signUp({ username: lapsed.username, email, password: "other-pass" })).status).toBe(200);
    expect(await db.select().from(users).where(eq(users.id, lapsed.id)).get()).toBeUndefined();
  });

  it("leaves one account when two sign-ups for one address race", async () => {
    const email = `${unique("race")}@example.test`;
    const answers = await Promise.all([1, 2, 3].map((n) => signUp({ username: unique(`race${n}`), email, password: `race-pass-${n}` })));
    expect(answers.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const [account, ...others] = await accountsWith(email);
    expect(others).toHaveLength(0);
    // Only the surviving account's link is left.
    const tokens = await db
      .select()
      .from(emailVerificationTokens)
      .innerJoin(users, eq(users.id, emailVerificationTokens.userId))
      .where(eq(users.email, email));
    expect(tokens.map((t) => t.email_verification_tokens.userId)).toEqual([account!.id]);
  });

  it("gives keys bought with the address to the account only once the address is verified", async () => {
    const email = `${unique("buyer")}@example.test`;
    const codeId = await soldKey(email);
    await signUp({ username: unique("squat"), email, password: "attacker-pass" });
    await signUp({ username: unique("buyer"), email, password: "buyer-pass-1" });
    const [account] = await accountsWith(email);
    expect(await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account!.id))).toHaveLength(0);
    await confirmEmail(await verificationLink(email), "buyer-pass-1");
    const subscriptions = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account!.id));
    expect(subscriptions.map((s) => s.productCodeId)).toEqual([codeId]);
  });

  it("says plainly in the verification mail that someone signed up with the address, and to ignore it if it was not them", async () => {
    const email = `${unique("plain")}@example.test`;
    const username = unique("plain");
    await signUp({ username, email, password: "plain-pass" });
    const mail = await latestMail(email, "Verify your");
    expect(mail?.textBody).toContain(`account with this e-mail address, under the username "${username}"`);
    expect(mail?.textBody).toContain("If it was not you, ignore this message.");
    expect(mail?.textBody).toContain("The link works for 24 hours.");
  });
});

describe("registrations never verified", () => {
  it("are gone after a day: sign-in and the link treat them as unknown, the cron job deletes them, the address is free again", async () => {
    const lapsed = await createAccount({ verified: false, createdAt: Date.now() - DAY - 60_000 });
    const fresh = await createAccount({ verified: false, createdAt: Date.now() - DAY + 60 * 60_000 });
    const oldButVerified = await createAccount({ createdAt: Date.now() - 30 * DAY });
    const token = randomToken();
    await db
      .insert(emailVerificationTokens)
      .values({ tokenHash: await sha256Hex(token), userId: lapsed.id, createdAt: Date.now(), expiresAt: Date.now() + DAY });

    const login = await logIn(lapsed.email, lapsed.password);
    expect(login.status).toBe(401);
    expect(await login.text()).toContain("Invalid credentials");
    expect((await logIn(lapsed.username, lapsed.password)).status).toBe(401);
    expect(await toastAfter(`/auth/verify?token=${token}`, lapsed.password)).toBe("Verification Failed");
    expect((await db.select().from(users).where(eq(users.id, lapsed.id)).get())?.emailVerifiedAt).toBeNull();
    await call("/auth", { form: { intent: "resend", email: lapsed.email }, ip: unique("ip") });
    expect(await latestMail(lapsed.email, "Verify your")).toBeUndefined();
    // A registration within its day is still waiting for verification.
    expect((await logIn(fresh.email, fresh.password)).status).toBe(403);

    await runScheduledJobs(env);
    expect(await db.select().from(users).where(eq(users.id, lapsed.id)).get()).toBeUndefined();
    expect(await db.select().from(emailVerificationTokens).where(eq(emailVerificationTokens.userId, lapsed.id))).toHaveLength(0);
    for (const kept of [fresh, oldButVerified]) expect(await db.select().from(users).where(eq(users.id, kept.id)).get()).toBeDefined();

    expect((await signUp({ username: lapsed.username, email: lapsed.email, password: "second-try" })).status).toBe(200);
    expect(await toastAfter(await verificationLink(lapsed.email), "second-try")).toBe("Email Verified");
    expect((await logIn(lapsed.email, "second-try")).status).toBe(302);
  });

  it("get a resent link only for what is left of their day", async () => {
    const account = await createAccount({ verified: false, createdAt: Date.now() - DAY + 5 * 60 * 60_000 + 30_000 });
    await call("/auth", { form: { intent: "resend", email: account.email }, ip: unique("ip") });
    expect((await latestMail(account.email, "Verify your"))?.textBody).toContain("The link works for 5 hours.");
    const [link] = await db.select().from(emailVerificationTokens).where(eq(emailVerificationTokens.userId, account.id));
    expect(link!.expiresAt).toBe((await db.select().from(users).where(eq(users.id, account.id)).get())!.createdAt + DAY);
  });
});
