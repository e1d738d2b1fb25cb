import { and, eq } from "drizzle-orm";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import type { Viewer } from "~/lib/viewer";
import { CEREMONY_TTL_MS, deleteExpiredCeremonies, relyingParty } from "~/server/accounts/passkey-ceremonies.server";
import { signInOptions, signInWithPasskey } from "~/server/accounts/passkey-sign-in.server";
import { MAX_PASSKEYS, registerPasskey, registrationOptions } from "~/server/accounts/passkeys.server";
import { auditLog, loginChallenges, passkeys, sessions, totpFactors, users, webauthnChallenges } from "~/server/platform/db/schema.server";
import { toBase64Url } from "~/server/platform/tokens.server";
import { ORIGIN, call, cookieFrom, createAccount, db, signIn, unique, type TestAccount } from "../helpers";
import { addPasskey, type Answer, CEREMONY, cookies, passkeySignIn, registrationStart } from "./passkey-flows";
import { SoftwareAuthenticator } from "./webauthn-authenticator";
import { callerOf, tokenCookie } from "~/http/caller.server";

const RP = { id: "shop.test", origin: ORIGIN, name: "Vertex" };

async function member(options: { verified?: boolean } = {}) {
  const account = await createAccount(options);
  const ip = unique("ip");
  const session = await signIn(account, ip);
  return { account, session, ip };
}

async function problemOf(response: Response) {
  return ((await response.json()) as Answer).problem;
}

const passkeyRows = (userId: string) => db.select().from(passkeys).where(eq(passkeys.userId, userId)).all();

const audits = (userId: string, action: string) =>
  db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.actorUserId, userId), eq(auditLog.action, action)))
    .all();

function viewerOf(account: TestAccount): Viewer {
  return { id: account.id, email: account.email, username: account.username, avatarUrl: null, role: null };
}

describe("adding a passkey", () => {
  it("asks for a discoverable, user-verified credential for this site and keeps it under a default name", async () => {
    const { account, session } = await member();
    const authenticator = new SoftwareAuthenticator();
    const { response, body, options } = await addPasskey(session, authenticator);

    expect(options.rp).toEqual({ id: "shop.test", name: "Vertex" });
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: "required",
      requireResidentKey: true,
      userVerification: "required",
    });
    expect(options.user.name).toBe(account.email);
    expect(options.excludeCredentials).toEqual([]);

    expect(response.status).toBe(200);
    expect(body.toast).toEqual({ title: "Passkey added", description: '"Passkey 1" can now sign you in.' });
    expect(response.headers.getSetCookie().find((c) => c.startsWith(`${CEREMONY}=`))).toMatch(/Max-Age=0/);
    const [row] = await passkeyRows(account.id);
    expect(row).toMatchObject({
      id: authenticator.credentials[0]!.id,
      name: "Passkey 1",
      counter: 0,
      transports: '["internal"]',
      lastUsedAt: null,
    });
    const [added] = await audits(account.id, "passkey.add");
    expect(added?.ip).toBe("198.51.100.1");
    expect(JSON.parse(added!.detail!)).toEqual({ passkey: row!.id, name: "Passkey 1" });
  });

  it("keeps the name given, names well-known providers, and never offers a credential the account already has", async () => {
    const { account, session } = await member();
    const phone = new SoftwareAuthenticator();
    expect((await addPasskey(session, phone, { name: "  My phone  " })).body.value?.name).toBe("My phone");

    const laptop = new SoftwareAuthenticator();
    // iCloud Keychain's AAGUID.
    laptop.aaguid = Uint8Array.from("fbfc3007154e4ecc8c0b6e020557d7bd".match(/../g)!, (h) => parseInt(h, 16));
    const second = await addPasskey(session, laptop);
    expect(second.body.value?.name).toBe("iCloud Keychain");
    expect(second.options.excludeCredentials?.map((c) => c.id)).toEqual([phone.credentials[0]!.id]);
    expect((await addPasskey(session, laptop)).body.value?.name).toBe("iCloud Keychain 2");
    expect((await passkeyRows(account.id)).map((p) => p.name).sort()).toEqual(["My phone", "iCloud Keychain", "iCloud Keychain 2"]);
  });

  it("refuses an answer made for another origin or another RP ID", async () => {
    const { account, session } = await member();
    const wrongOrigin = await addPasskey(session, new SoftwareAuthenticator(), { origin: "https://evil.test" });
    expect(wrongOrigin.response.status).toBe(400);
    expect(wrongOrigin.body.problem?.message).toBe("This passkey could not be verified, so it was not added. Please try again.");
    const wrongRp = await addPasskey(session, new SoftwareAuthenticator(), { rpId: "evil.test" });
    expect(wrongRp.response.status).toBe(400);
    expect(await passkeyRows(account.id)).toHaveLength(0);
  });

  it("refuses a credential made without user verification", async () => {
    const { account, session } = await member();
    const { response } = await addPasskey(session, new SoftwareAuthenticator(), { userVerified: false });
    expect(response.status).toBe(400);
    expect(await passkeyRows(account.id)).toHaveLength(0);
  });

  it("uses a ceremony once, only for the member who started it", async () => {
    const { account, session } = await member();
    const start = await registrationStart(session);
    const authenticator = new SoftwareAuthenticator();
    const credential = await authenticator.register(start.options, { origin: ORIGIN });
    const form = { intent: "register", name: "", response: JSON.stringify(credential) };

    // Another member holding the same ceremony cookie gets nothing.
    const other = await member();
    const stolen = await call("/dashboard/security/passkeys", { form, cookie: cookies(other.session, start.ceremony) });
    expect(stolen.status).toBe(401);
    expect(await passkeyRows(other.account.id)).toHaveLength(0);
    // ...and the ceremony is spent.
    const late = await call("/dashboard/security/passkeys", { form, cookie: cookies(session, start.ceremony) });
    expect(late.status).toBe(401);
    expect((await problemOf(late))?.message).toBe("Adding the passkey took too long or was already finished. Please try again.");
    expect(await passkeyRows(account.id)).toHaveLength(0);
  });

  it(`stops at ${MAX_PASSKEYS} passkeys`, async () => {
    const { account, session } = await member();
    const now = Date.now();
    // One statement per row: D1 binds at most 100 parameters to one.
    const [first, ...rest] = Array.from({ length: MAX_PASSKEYS }, (_, i) =>
      db.insert(passkeys).values({
        id: unique("cred"),
        userId: account.id,
        name: `Key ${i}`,
        publicKey: "AA",
        counter: 0,
        deviceType: "multiDevice",
        backedUp: true,
        createdAt: now,
      }),
    );
    await db.batch([first!, ...rest]);
    const { response, body } = await registrationStart(session);
    expect(response.status).toBe(409);
    expect(body.problem?.message).toBe(`You already have ${MAX_PASSKEYS} passkeys. Remove one before adding another.`);
  });

  it("answers a malformed or forged answer with 400, never an error page", async () => {
    const { session } = await member();
    const start = await registrationStart(session);
    const post = (response: string) =>
      call("/dashboard/security/passkeys", { form: { intent: "register", name: "", response }, cookie: cookies(session, start.ceremony) });
    for (const bad of ["", "{not json", "[]", JSON.stringify({ id: "abc", rawId: "abc", type: "public-key" })]) {
      const response = await post(bad);
      expect(response.status, bad).toBe(400);
      expect(await problemOf(response)).toEqual({
        code: "invalid",
        message: "The passkey's answer could not be read. Please try again.",
        field: "response",
      });
    }
    // Well-formed but meaningless bytes reach the verifier, which refuses them.
    const garbage = { id: "abc", rawId: "abc", type: "public-key", response: { clientDataJSON: "AAAA", attestationObject: "AAAA" } };
    expect((await post(JSON.stringify(garbage))).status).toBe(400);
  });
});

describe("the attestation a passkey arrives with", () => {
  const REFUSED = {
    code: "invalid",
    message: "This passkey could not be verified, so it was not added. Please try again.",
    field: "response",
  };
  // The shop asks for no attestation, so a certificate chain proves nothing it checks: the passkey is
  // kept as one with none, and signs in like any other.
  it("keeps a passkey whose statement carries a certificate chain as one with no attestation", async () => {
    for (const format of ["packed", "fido-u2f"] as const) {
      const { account, session } = await member();
      const authenticator = new SoftwareAuthenticator();
      authenticator.attestation = { format, certificate: crypto.getRandomValues(new Uint8Array(300)) };
      const { response } = await addPasskey(session, authenticator);
      expect(response.status, format).toBe(200);
      expect(await passkeyRows(account.id), format).toHaveLength(1);
      expect((await passkeySignIn(authenticator)).response.status, format).toBe(302);
    }
  });

  it("checks a self-signed statement's signature as before", async () => {
    const signed = await member();
    const authenticator = new SoftwareAuthenticator();
    authenticator.attestation = "self";
    expect((await addPasskey(signed.session, authenticator)).response.status).toBe(200);
    expect((await passkeySignIn(authenticator)).response.status).toBe(302);

    const forged = await member();
    const liar = new SoftwareAuthenticator();
    liar.attestation = "self-bad-signature";
    const { response, body } = await addPasskey(forged.session, liar);
    expect(response.status).toBe(400);
    expect(body.problem).toEqual(REFUSED);
    expect(await passkeyRows(forged.account.id)).toHaveLength(0);
  });
});

describe("renaming and removing passkeys", () => {
  it("renames and removes only your own, with 1 to 50 characters", async () => {
    const owner = await member();
    const { body } = await addPasskey(owner.session, new SoftwareAuthenticator());
    const id = body.value!.id;
    const post = (session: string, form: Record<string, string>) => call("/dashboard/security/passkeys", { form, cookie: session });

    const intruder = await member();
    const rename = await post(intruder.session, { intent: "rename", id, name: "Mine now" });
    expect(rename.status).toBe(404);
    expect((await problemOf(rename))?.message).toBe("That passkey is not on your account.");
    expect((await post(intruder.session, { intent: "remove", id })).status).toBe(404);
    expect((await passkeyRows(owner.account.id))[0]?.name).toBe("Passkey 1");

    expect((await post(owner.session, { intent: "rename", id, name: "   " })).status).toBe(400);
    const long = await post(owner.session, { intent: "rename", id, name: "x".repeat(51) });
    expect(long.status).toBe(400);
    expect((await problemOf(long))?.message).toBe("A passkey's name can be at most 50 characters");
    const renamed = await post(owner.session, { intent: "rename", id, name: "x".repeat(50) });
    expect(renamed.status).toBe(200);
    expect((await passkeyRows(owner.account.id))[0]?.name).toBe("x".repeat(50));
    expect(JSON.parse((await audits(owner.account.id, "passkey.rename"))[0]!.detail!)).toEqual({
      passkey: id,
      from: "Passkey 1",
      to: "x".repeat(50),
    });

    const removed = await post(owner.session, { intent: "remove", id });
    expect(removed.status).toBe(200);
    expect(((await removed.json()) as Answer).toast.title).toBe("Passkey removed");
    expect(await passkeyRows(owner.account.id)).toHaveLength(0);
    expect(await audits(owner.account.id, "passkey.remove")).toHaveLength(1);
  });

  it("are listed on the Security page, each with when it was added and last used", async () => {
    const { session } = await member();
    const page = async () => (await call("/dashboard/security", { cookie: session })).text();
    expect(await page()).toContain("You have no passkeys yet.");
    await addPasskey(session, new SoftwareAuthenticator(), { name: "Desk key <b>" });
    const html = await page();
    expect(html).toContain("Desk key &lt;b&gt;");
    expect(html).toContain("never used yet");
  });

  it("are for signed-in members only", async () => {
    const response = await call("/dashboard/security/passkeys", { form: { intent: "remove", id: "abc" } });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/auth");
  });
});

describe("signing in with a passkey alone", () => {
  it("needs no username: the passkey says whose it is, and the session starts", async () => {
    const { account, session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);

    const { response, options, ip } = await passkeySignIn(authenticator);
    expect(options.allowCredentials).toBeUndefined();
    expect(options.userVerification).toBe("required");
    expect(options.rpId).toBe("shop.test");
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    const signedIn = cookieFrom(response, "__Host-session");
    expect(signedIn).not.toBeNull();
    expect((await call("/dashboard", { cookie: signedIn! })).status).toBe(200);
    const toast = await call("/api/viewer", { cookie: cookieFrom(response, "__Host-toast")! });
    expect((await toast.json()) as object).toMatchObject({ toast: { title: "Welcome back!" } });
    expect(response.headers.getSetCookie().find((c) => c.startsWith(`${CEREMONY}=`))).toMatch(/Max-Age=0/);

    const [row] = await passkeyRows(account.id);
    expect(row?.lastUsedAt).toBeGreaterThan(0);
    const [entry] = await audits(account.id, "passkey.sign-in");
    expect(entry?.ip).toBe(ip);
    // Synced passkeys always report 0: that is allowed again and again.
    expect((await passkeySignIn(authenticator)).response.status).toBe(302);
  });

  it("satisfies two-factor authentication on its own and ends a half-done password sign-in", async () => {
    const { account, session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    await db.insert(totpFactors).values({ userId: account.id, secret: "unused", status: "verified", createdAt: Date.now() });
    const password = await call("/auth", {
      form: { intent: "login", emailOrUsername: account.email, password: account.password },
      ip: unique("ip"),
    });
    expect(password.headers.get("Location")).toBe("/auth/2fa");
    expect(await db.select().from(loginChallenges).where(eq(loginChallenges.userId, account.id)).all()).toHaveLength(1);

    const { response } = await passkeySignIn(authenticator);
    expect(response.headers.get("Location")).toBe("/");
    expect(cookieFrom(response, "__Host-session")).not.toBeNull();
    expect(response.headers.getSetCookie().find((c) => c.startsWith("__Host-2fa="))).toMatch(/Max-Age=0/);
    expect(await db.select().from(loginChallenges).where(eq(loginChallenges.userId, account.id)).all()).toHaveLength(0);
  });

  it("uses a challenge once: the same answer sent again, or to a new ceremony, is refused", async () => {
    const { account, session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    const first = await passkeySignIn(authenticator);
    expect(first.response.status).toBe(302);
    const sessionsBefore = (await db.select().from(sessions).where(eq(sessions.userId, account.id)).all()).length;

    const replay = await call("/auth/passkey", { form: first.form, cookie: first.ceremonyCookie!, ip: first.ip });
    expect(replay.status).toBe(401);
    expect((await problemOf(replay))?.message).toBe("The passkey sign-in took too long or was already used. Please try again.");

    const fresh = await call("/auth/passkey", { form: { intent: "options" }, ip: first.ip });
    const toNewCeremony = await call("/auth/passkey", { form: first.form, cookie: cookieFrom(fresh, CEREMONY)!, ip: first.ip });
    expect(toNewCeremony.status).toBe(401);
    expect((await problemOf(toNewCeremony))?.message).toBe("This passkey could not be verified. Please try again.");
    expect(await db.select().from(sessions).where(eq(sessions.userId, account.id)).all()).toHaveLength(sessionsBefore);
  });

  it("refuses an answer to a ceremony opened for another purpose", async () => {
    const { session, ip } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    // The Security page's ceremony (adding a passkey) does not sign anyone in.
    const start = await registrationStart(session, ip);
    const assertion = await authenticator.authenticate({ challenge: start.options.challenge, rpId: "shop.test" }, { origin: ORIGIN });
    const response = await call("/auth/passkey", {
      form: { intent: "verify", response: JSON.stringify(assertion) },
      cookie: start.ceremony!,
      ip,
    });
    expect(response.status).toBe(401);
    expect(cookieFrom(response, "__Host-session")).toBeNull();
  });

  it("refuses a challenge past its five minutes", async () => {
    const { session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    const ip = unique("ip");
    const asked = Date.now();
    const started = await signInOptions(
      db,
      RP,
      callerOf(new Request(`${ORIGIN}/auth/passkey`, { headers: { "CF-Connecting-IP": ip } })),
      asked,
    );
    if (!started.ok) throw new Error(started.problem.message);
    const assertion = await authenticator.authenticate(started.value.options, { origin: ORIGIN });
    const answering = new Request(`${ORIGIN}/auth/passkey`, {
      headers: { Cookie: tokenCookie(started.value.token).split(";")[0]!, "CF-Connecting-IP": ip },
    });
    const late = await signInWithPasskey(db, RP, callerOf(answering), assertion, asked + CEREMONY_TTL_MS + 1);
    expect(late).toEqual({
      ok: false,
      problem: { code: "unauthenticated", message: "The passkey sign-in took too long or was already used. Please try again." },
    });
  });

  it("refuses an answer made for another origin or another RP ID", async () => {
    const { session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    expect((await passkeySignIn(authenticator, { origin: "https://evil.test" })).response.status).toBe(401);
    expect((await passkeySignIn(authenticator, { rpId: "evil.test" })).response.status).toBe(401);
    expect((await passkeySignIn(authenticator, { origin: "http://shop.test" })).response.status).toBe(401);
  });

  it("refuses a passkey that did not verify the user", async () => {
    const { session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    const { response } = await passkeySignIn(authenticator, { userVerified: false });
    expect(response.status).toBe(401);
    expect(cookieFrom(response, "__Host-session")).toBeNull();
  });

  it("refuses a signature counter that stands still or goes backwards, as from a copied authenticator", async () => {
    const { account, session } = await member();
    const authenticator = new SoftwareAuthenticator();
    authenticator.counterStep = 1;
    await addPasskey(session, authenticator);
    expect((await passkeyRows(account.id))[0]?.counter).toBe(1);
    expect((await passkeySignIn(authenticator, { counter: 5 })).response.status).toBe(302);
    expect((await passkeyRows(account.id))[0]?.counter).toBe(5);

    for (const counter of [4, 5, 0]) {
      const { response } = await passkeySignIn(authenticator, { counter });
      expect(response.status, `counter ${counter}`).toBe(401);
      expect((await problemOf(response))?.message).toMatch(/its use counter went backwards/);
    }
    expect((await passkeyRows(account.id))[0]?.counter).toBe(5);
    expect(await audits(account.id, "passkey.counter-refused")).toHaveLength(3);
    expect((await passkeySignIn(authenticator, { counter: 6 })).response.status).toBe(302);
  });

  it("refuses an account whose e-mail address is not verified", async () => {
    const { account, session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    await db.update(users).set({ emailVerifiedAt: null }).where(eq(users.id, account.id));
    const { response } = await passkeySignIn(authenticator);
    expect(response.status).toBe(403);
    expect(cookieFrom(response, "__Host-session")).toBeNull();
    expect((await response.json()) as object).toMatchObject({ toast: { title: "Email Not Verified" } });
  });

  it("no longer signs in with a removed passkey", async () => {
    const { session } = await member();
    const authenticator = new SoftwareAuthenticator();
    const { body } = await addPasskey(session, authenticator);
    await call("/dashboard/security/passkeys", { form: { intent: "remove", id: body.value!.id }, cookie: session });
    const { response } = await passkeySignIn(authenticator);
    expect(response.status).toBe(401);
    expect((await problemOf(response))?.message).toBe(
      "This passkey is not registered here. It may have been removed from its account; sign in another way.",
    );
  });

  it("refuses a passkey whose user handle names another account", async () => {
    const { session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    const other = await createAccount();
    authenticator.credentials[0]!.userHandle = toBase64Url(new TextEncoder().encode(other.id));
    expect((await passkeySignIn(authenticator)).response.status).toBe(401);
  });

  it("throttles failed attempts per client like password sign-ins", async () => {
    const ip = unique("ip");
    const bogus = {
      id: "bogus",
      rawId: "bogus",
      type: "public-key",
      response: { clientDataJSON: "AA", authenticatorData: "AA", signature: "AA" },
    };
    const form = { intent: "verify", response: JSON.stringify(bogus) };
    for (let i = 0; i < 20; i++) expect((await call("/auth/passkey", { form, ip })).status).toBe(401);
    const blocked = await call("/auth/passkey", { form, ip });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(((await blocked.json()) as Answer).toast.title).toBe("Too Many Attempts");
    // The same client's password sign-ins wait too: it is one allowance.
    const account = await createAccount();
    expect(
      (await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip })).status,
    ).toBe(429);
  });

  it("limits how many ceremonies one client may start", async () => {
    const ip = unique("ip");
    for (let i = 0; i < 30; i++) expect((await call("/auth/passkey", { form: { intent: "options" }, ip })).status).toBe(200);
    expect((await call("/auth/passkey", { form: { intent: "options" }, ip })).status).toBe(429);
  });

  it("answers malformed answers with 400", async () => {
    for (const response of ["", "nope", JSON.stringify({ id: "a", rawId: "a", type: "public-key", response: { clientDataJSON: "!!" } })]) {
      const answer = await call("/auth/passkey", { form: { intent: "verify", response }, ip: unique("ip") });
      expect(answer.status, response).toBe(400);
      expect(((await answer.json()) as Answer).toast).toEqual({
        title: "Passkey Error",
        description: "The passkey's answer could not be read. Please try again.",
        variant: "destructive",
      });
    }
  });
});

describe("a passkey as the second factor", () => {
  async function withTwoFactor() {
    const { account, session } = await member();
    const authenticator = new SoftwareAuthenticator();
    await addPasskey(session, authenticator);
    await db.insert(totpFactors).values({ userId: account.id, secret: "unused", status: "verified", createdAt: Date.now() });
    const ip = unique("ip");
    const password = await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip });
    return { account, authenticator, ip, challenge: cookieFrom(password, "__Host-2fa")! };
  }

  async function secondStep(challenge: string, ip: string) {
    const start = await call("/auth/2fa/passkey", { form: { intent: "options" }, cookie: challenge, ip });
    const options = ((await start.json()) as Answer<PublicKeyCredentialRequestOptionsJSON>).value!;
    return { options, cookie: cookies(challenge, cookieFrom(start, CEREMONY)) };
  }

  it("offers only the account's own passkeys and opens the session", async () => {
    const { account, authenticator, ip, challenge } = await withTwoFactor();
    const page = await call("/auth/2fa", { cookie: challenge, ip });
    expect(await page.text()).toContain("Use a passkey instead");

    const { options, cookie } = await secondStep(challenge, ip);
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([authenticator.credentials[0]!.id]);
    const assertion = await authenticator.authenticate(options, { origin: ORIGIN, userVerified: false });
    const response = await call("/auth/2fa/passkey", { form: { intent: "verify", response: JSON.stringify(assertion) }, cookie, ip });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(cookieFrom(response, "__Host-session")).not.toBeNull();
    expect(response.headers.getSetCookie().find((c) => c.startsWith("__Host-2fa="))).toMatch(/Max-Age=0/);
    expect(JSON.parse((await audits(account.id, "passkey.sign-in"))[0]!.detail!)).toMatchObject({ step: "second-factor" });
  });

  it("does not take another account's passkey", async () => {
    const { authenticator, ip, challenge } = await withTwoFactor();
    // The same authenticator also holds a passkey of another member.
    const other = await member();
    await addPasskey(other.session, authenticator);
    const { options, cookie } = await secondStep(challenge, ip);
    const foreign = await authenticator.authenticate(options, { origin: ORIGIN, credentialId: authenticator.credentials[1]!.id });
    const refused = await call("/auth/2fa/passkey", { form: { intent: "verify", response: JSON.stringify(foreign) }, cookie, ip });
    expect(refused.status).toBe(401);
    expect(cookieFrom(refused, "__Host-session")).toBeNull();
    expect(((await refused.json()) as Answer).toast).toMatchObject({
      title: "Passkey not accepted",
      description: "That passkey did not work. 4 attempts left.",
    });

    // The account's own passkey still passes, with a new ceremony.
    const again = await secondStep(challenge, ip);
    const own = await authenticator.authenticate(again.options, { origin: ORIGIN });
    expect(
      (await call("/auth/2fa/passkey", { form: { intent: "verify", response: JSON.stringify(own) }, cookie: again.cookie, ip })).status,
    ).toBe(302);
  });

  it("needs the open sign-in: without it the browser starts over", async () => {
    const response = await call("/auth/2fa/passkey", { form: { intent: "options" }, ip: unique("ip") });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/auth");
  });

  it("is offered only to accounts that have passkeys", async () => {
    const { account } = await member();
    await db.insert(totpFactors).values({ userId: account.id, secret: "unused", status: "verified", createdAt: Date.now() });
    const ip = unique("ip");
    const password = await call("/auth", { form: { intent: "login", emailOrUsername: account.email, password: account.password }, ip });
    const challenge = cookieFrom(password, "__Host-2fa")!;
    expect(await (await call("/auth/2fa", { cookie: challenge, ip })).text()).not.toContain("Use a passkey instead");
    const options = await call("/auth/2fa/passkey", { form: { intent: "options" }, cookie: challenge, ip });
    expect(options.status).toBe(404);
  });
});

describe("where passkeys belong (the relying party)", () => {
  const request = new Request("http://localhost:5173/auth/passkey");

  it("uses the browser's own address in development when nothing is set", () => {
    expect(relyingParty({}, callerOf(request), false)).toEqual({
      ok: true,
      value: { id: "localhost", origin: "http://localhost:5173", name: "Vertex" },
    });
  });

  it("is off in production until it is set", () => {
    expect(relyingParty({ WEBAUTHN_RP_ID: "", WEBAUTHN_ORIGIN: "" }, callerOf(request), true)).toEqual({
      ok: false,
      problem: { code: "unavailable", message: "Passkeys are not set up on this site yet." },
    });
  });

  it("takes either setting alone, and refuses an origin outside the RP ID", () => {
    expect(relyingParty({ WEBAUTHN_ORIGIN: "https://shop.example.com" }, callerOf(request), true)).toMatchObject({
      value: { id: "shop.example.com", origin: "https://shop.example.com" },
    });
    expect(relyingParty({ WEBAUTHN_RP_ID: "Example.com" }, callerOf(request), true)).toMatchObject({
      value: { id: "example.com", origin: "https://example.com" },
    });
    expect(
      relyingParty({ WEBAUTHN_RP_ID: "example.com", WEBAUTHN_ORIGIN: "https://shop.example.com/" }, callerOf(request), true),
    ).toMatchObject({
      value: { id: "example.com", origin: "https://shop.example.com" },
    });
    expect(relyingParty({ WEBAUTHN_RP_ID: "example.com", WEBAUTHN_ORIGIN: "https://example.org" }, callerOf(request), true).ok).toBe(false);
    expect(relyingParty({ WEBAUTHN_ORIGIN: "not a url" }, callerOf(request), true).ok).toBe(false);
  });

  it("checks answers against the configured origin, not the request's", async () => {
    const configured = { id: "example.com", origin: "https://example.com", name: "Vertex" };
    const { account } = await member();
    const ip = unique("ip");
    const browser = (cookie?: string) =>
      callerOf(new Request(`${ORIGIN}/x`, { headers: { "CF-Connecting-IP": ip, ...(cookie ? { Cookie: cookie } : {}) } }));
    const started = await registrationOptions(db, configured, viewerOf(account), browser());
    if (!started.ok) throw new Error(started.problem.message);
    expect(started.value.options.rp.id).toBe("example.com");
    const authenticator = new SoftwareAuthenticator();
    const credential = await authenticator.register(started.value.options, { origin: ORIGIN });
    const refused = await registerPasskey(db, configured, viewerOf(account), browser(tokenCookie(started.value.token).split(";")[0]), {
      name: "",
      response: credential,
    });
    expect(refused.ok).toBe(false);
  });
});

describe("housekeeping", () => {
  it("drops ceremonies nobody finished", async () => {
    const now = Date.now();
    const id = unique("ceremony");
    await db.insert(webauthnChallenges).values({ id, purpose: "sign-in", challenge: "x", expiresAt: now - 1 });
    await deleteExpiredCeremonies(db, now);
    expect(await db.select().from(webauthnChallenges).where(eq(webauthnChallenges.id, id)).all()).toHaveLength(0);
  });
});
