// Plans keep their promises: entitlements copied onto a licence at its sale and signed into its
// answers; releases uploaded in parts through the Worker, hashed, published per channel, served
// with Range and HEAD, and offered to the program by the licence API only when its plan includes them.
import { env, exports } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { PART_BYTES } from "~/lib/schemas/releases";
import { auditLog, licences, planEntitlements, releases } from "~/server/platform/db/schema.server";
import { boughtKey, createAccount, db, hwid, ORIGIN, signedByShop, signIn, type TestAccount, unique, validate } from "../helpers";
import { bytesOf, change, finish, form, hex, latest, published, putPart, send, startUpload } from "./release-helpers";

let admin: string;
beforeAll(async () => {
  admin = await signIn(await createAccount({ admin: true }), unique("ip"));
}, 60_000);

async function member(variantTitle: "1 Week" | "30 Days"): Promise<{ account: TestAccount; cookie: string; key: string }> {
  const account = await createAccount();
  const { key } = await boughtKey(variantTitle, account.email);
  return { account, cookie: await signIn(account, unique("ip")), key };
}

describe("entitlements", () => {
  it("are copied from the plan at the sale, kept when the plan changes later, and signed into the answer (the offline lease)", async () => {
    const weekly = await boughtKey("1 Week");
    const monthly = await boughtKey("30 Days");
    const row = (key: string) => db.select({ entitlements: licences.entitlements }).from(licences).where(eq(licences.key, key)).get();
    expect((await row(weekly.key))?.entitlements).toEqual(["config-library"]);
    expect((await row(monthly.key))?.entitlements).toEqual(["beta", "configs", "priority-support"]);

    // The plan stops including beta: the monthly key sold before keeps it, one sold after has none.
    await db.delete(planEntitlements).where(and(eq(planEntitlements.plan, "monthly"), eq(planEntitlements.entitlement, "beta")));
    try {
      const later = await boughtKey("30 Days");
      expect((await row(later.key))?.entitlements).toEqual(["configs", "priority-support"]);
      expect((await row(monthly.key))?.entitlements).toContain("beta");
    } finally {
      await db.insert(planEntitlements).values({ plan: "monthly", entitlement: "beta" });
    }

    const pc = hwid();
    const { json, text, response } = await validate({ key: monthly.key, hwid: pc, nonce: "entitlement-nonce-0001" });
    expect(json).toMatchObject({
      code: "VALID",
      licence: { entitlements: ["beta", "configs", "priority-support"] },
      lease: { until: expect.any(String) },
    });
    // The signature covers the entitlements: the public key verifies these exact bytes, and not an edited copy.
    expect(await signedByShop(response, text)).toBe(true);
    expect(await signedByShop(response, text.replace('"configs"', '"config5"'))).toBe(false);
    // The owner's subscription card says what the key includes, in the plan card's words.
    const owner = await createAccount();
    await boughtKey("30 Days", owner.email);
    const page = await (
      await send("/dashboard/subscriptions", { method: "GET", cookie: await signIn(owner, unique("ip")), headers: { Accept: "text/html" } })
    ).text();
    expect(page).toContain("Beta Access, Exclusive Configs, VIP Support");
    // Another PC learns nothing of the licence, its entitlements included.
    expect((await validate({ key: monthly.key, hwid: hwid(), nonce: "entitlement-nonce-0002" })).json).toMatchObject({
      code: "HWID_MISMATCH",
      licence: null,
    });
  });

  it("are defined by admins with the plans that include them, for keys sold from then on", async () => {
    const save = (cookie: string, fields: Record<string, string>) =>
      send("/dashboard/entitlements", { method: "POST", cookie, body: form({ intent: "save", ...fields }), headers: { Accept: "*/*" } });
    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    expect((await save(support, { name: "aim-trainer", label: "Aim Trainer", "plan-weekly": "on" })).status).toBe(403);
    expect((await save(admin, { name: "Bad Name!", label: "x" })).status).toBe(400);
    const before = await boughtKey("1 Week");
    expect((await save(admin, { name: "aim-trainer", label: "Aim Trainer", "plan-weekly": "on" })).status).toBe(200);
    const after = await boughtKey("1 Week");
    const row = (key: string) => db.select({ entitlements: licences.entitlements }).from(licences).where(eq(licences.key, key)).get();
    expect((await row(before.key))?.entitlements).toEqual(["config-library"]);
    expect((await row(after.key))?.entitlements).toEqual(["aim-trainer", "config-library"]);
    // Taken off the plan again: later weekly keys are sold without it.
    expect((await save(admin, { name: "aim-trainer", label: "Aim Trainer" })).status).toBe(200);
    expect((await row((await boughtKey("1 Week")).key))?.entitlements).toEqual(["config-library"]);
  });

  it("may be granted or removed on a single licence by admins, audited, and the next signed answer follows", async () => {
    const { key } = await boughtKey("1 Week");
    const { id } = (await db.select({ id: licences.id }).from(licences).where(eq(licences.key, key)).get())!;
    const staff = (cookie: string, intent: string, entitlement: string) =>
      send("/dashboard/licences", {
        method: "POST",
        cookie,
        body: form({ intent, licenceId: String(id), entitlement }),
        headers: { Accept: "*/*" },
      });
    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    expect((await staff(support, "grant-entitlement", "beta")).status).toBe(403);
    expect((await staff(admin, "grant-entitlement", "no-such-thing")).status).toBe(400);
    expect((await staff(admin, "grant-entitlement", "beta")).status).toBe(200);
    expect((await staff(admin, "grant-entitlement", "beta")).status).toBe(409);
    const pc = hwid();
    expect((await validate({ key, hwid: pc, nonce: "grant-nonce-000001" })).json.licence.entitlements).toEqual(["beta", "config-library"]);
    expect((await staff(admin, "remove-entitlement", "config-library")).status).toBe(200);
    expect((await validate({ key, hwid: pc, nonce: "grant-nonce-000002" })).json.licence.entitlements).toEqual(["beta"]);
    const audited = await db
      .select()
      .from(auditLog)
      .where(eq(auditLog.subject, `licence:${id}`));
    expect(audited.map((row) => row.action).sort()).toEqual(["licence.grant-entitlement", "licence.remove-entitlement"]);
  });
});

describe("release uploads in parts", () => {
  it("are the one upload form, on the Releases page, with the catalogue's products to pick from", async () => {
    const page = await (await send("/dashboard/releases", { method: "GET", cookie: admin, headers: { Accept: "text/html" } })).text();
    expect(page).toMatch(/<select[^>]*name="product"/);
    for (const product of ["Vertex Rust", "Vertex HWID Spoofer"]) expect(page).toContain(`<option value="${product}">${product}</option>`);
    // The downloads page has no upload form of its own any more.
    const downloads = await (await send("/dashboard/downloads", { method: "GET", cookie: admin, headers: { Accept: "text/html" } })).text();
    expect(downloads).not.toContain("Publish a new version");
    expect((await send("/dashboard/downloads", { method: "POST", cookie: admin, body: form({ version: "1.0.0" }) })).status).toBe(405);
  });

  it("takes a 2-part file through the Worker, resumable, and records the SHA-256 of the bytes stored", async () => {
    const bytes = bytesOf(PART_BYTES + 123_457, 7);
    const { json } = await startUpload({ version: "0.9.0", size: bytes.byteLength }, admin);
    expect(json.value.parts).toBe(2);
    const { id } = json.value;
    expect((await putPart(id, 1, bytes.slice(0, PART_BYTES), admin)).status).toBe(200);
    // A dropped connection: the page asks where the upload stands and sends only what is missing.
    const progress = (await (await send(`/dashboard/releases/uploads/${id}`, { method: "GET", cookie: admin })).json()) as {
      value: { parts: number[]; total: number };
    };
    expect(progress.value).toMatchObject({ parts: [1], total: 2 });
    // Finishing early is refused, and nothing is lost.
    expect((await finish(id, admin)).status).toBe(409);
    expect((await putPart(id, 2, bytes.slice(PART_BYTES), admin)).status).toBe(200);
    const done = (await (await finish(id, admin)).json()) as { value: { sha256: string; size: number } };
    expect(done.value).toEqual({ sha256: await hex(bytes), size: bytes.byteLength });
    const row = await db.select().from(releases).where(eq(releases.id, id)).get();
    expect([row?.state, row?.sha256, row?.uploadId]).toEqual(["ready", await hex(bytes), null]);
    const stored = await env.DOWNLOADS.get(row!.objectKey);
    expect(await hex(new Uint8Array(await stored!.arrayBuffer()))).toBe(await hex(bytes));
    // A finished upload takes no more parts.
    expect((await putPart(id, 2, bytes.slice(PART_BYTES), admin)).status).toBe(409);
  });

  it("refuses parts of the wrong size or number, a version already on the channel, and anyone but staff who manage releases", async () => {
    const { json } = await startUpload({ version: "0.9.1", size: PART_BYTES + 10 }, admin);
    const { id } = json.value;
    expect((await putPart(id, 1, bytesOf(1000, 1), admin)).status).toBe(400);
    expect((await putPart(id, 3, bytesOf(10, 1), admin)).status).toBe(400);
    expect((await putPart(id, 0, bytesOf(10, 1), admin)).status).toBe(400);
    expect((await send(`/dashboard/releases/uploads/${id}`, { method: "DELETE", cookie: admin })).status).toBe(405);
    const again = await startUpload({ version: "0.9.1", size: 10 }, admin);
    expect([again.response.status, again.json.problem]).toEqual([
      409,
      { code: "conflict", field: "version", message: "Version 0.9.1 of Vertex Rust is already on the stable channel" },
    ]);
    const bad = await startUpload({ version: "v1", size: 3 * 1024 ** 3 }, admin);
    expect(bad.response.status).toBe(400);
    expect(Object.keys(bad.json.fieldErrors ?? {}).sort()).toEqual(["size", "version"]);
    // A version is unique per product and channel: another product may have its own 0.9.1.
    const spoofer = await startUpload({ version: "0.9.1", size: 10, product: "Vertex HWID Spoofer" }, admin);
    expect(spoofer.response.status).toBe(200);
    expect(
      (await db.select({ product: releases.product }).from(releases).where(eq(releases.id, spoofer.json.value.id)).get())?.product,
    ).toBe("Vertex HWID Spoofer");
    expect((await change("discard", spoofer.json.value.id, admin)).status).toBe(200);
    // The product is one the catalogue sells.
    for (const product of ["", "Vertex Fortnite"]) {
      const unknown = await startUpload({ version: "0.9.2", size: 10, product }, admin);
      expect([unknown.response.status, unknown.json.problem?.field ?? Object.keys(unknown.json.fieldErrors ?? {})[0]]).toEqual([
        400,
        "product",
      ]);
    }

    const support = await signIn(await createAccount({ role: "support" }), unique("ip"));
    const { cookie } = await member("30 Days");
    for (const who of [support, cookie]) {
      expect((await startUpload({ version: "5.0.0", size: 10 }, who)).response.status).toBe(403);
      expect((await putPart(id, 2, bytesOf(10, 1), who)).status).toBe(403);
      expect((await finish(id, who)).status).toBe(403);
      expect((await change("discard", id, who)).status).toBe(403);
    }
    expect((await change("discard", id, admin)).status).toBe(200);
    expect(await db.select().from(releases).where(eq(releases.id, id)).get()).toBeUndefined();
  });
});

describe("release downloads", () => {
  it("serve the whole file, a Range (206) or 416, and HEAD, with the checksum in headers", async () => {
    const { id, bytes } = await published(admin, "0.5.0");
    const { cookie } = await member("1 Week");
    const path = `/dashboard/downloads/releases/${id}`;
    const whole = await send(path, { method: "GET", cookie });
    const sha = await hex(bytes);
    expect([
      whole.status,
      whole.headers.get("X-Checksum-SHA256"),
      whole.headers.get("Accept-Ranges"),
      whole.headers.get("Content-Length"),
    ]).toEqual([200, sha, "bytes", String(bytes.byteLength)]);
    expect(whole.headers.get("Repr-Digest")).toBe(
      `sha-256=:${btoa(String.fromCharCode(...sha.match(/../g)!.map((h) => Number.parseInt(h, 16))))}:`,
    );
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytes);

    const part = await send(path, { method: "GET", cookie, headers: { Range: "bytes=100-199" } });
    expect([part.status, part.headers.get("Content-Range"), part.headers.get("Content-Length")]).toEqual([
      206,
      `bytes 100-199/${bytes.byteLength}`,
      "100",
    ]);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(100, 200));
    const tail = await send(path, { method: "GET", cookie, headers: { Range: "bytes=-16" } });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(-16));
    const resumed = await send(path, { method: "GET", cookie, headers: { Range: "bytes=4000-" } });
    expect(new Uint8Array(await resumed.arrayBuffer())).toEqual(bytes.slice(4000));

    const beyond = await send(path, { method: "GET", cookie, headers: { Range: `bytes=${bytes.byteLength}-` } });
    expect([beyond.status, beyond.headers.get("Content-Range")]).toEqual([416, `bytes */${bytes.byteLength}`]);

    const head = await send(path, { method: "HEAD", cookie });
    expect([
      head.status,
      head.headers.get("Content-Length"),
      head.headers.get("X-Checksum-SHA256"),
      (await head.arrayBuffer()).byteLength,
    ]).toEqual([200, String(bytes.byteLength), sha, 0]);
    // Signed out: the dashboard's guard sends the browser to sign in.
    expect((await exports.default.fetch(`${ORIGIN}${path}`, { redirect: "manual" })).status).toBe(302);
  });

  it("refuse a beta release to a weekly key (403) and leave it out of its latest; a monthly key gets it, signed, with a working link", async () => {
    const stable = await published(admin, "100.0.0");
    const beta = await published(admin, "100.1.0-beta.1", { channel: "beta" });
    const weekly = await member("1 Week");
    const monthly = await member("30 Days");
    expect((await send(`/dashboard/downloads/releases/${beta.id}`, { method: "GET", cookie: weekly.cookie })).status).toBe(403);
    expect((await send(`/dashboard/downloads/releases/${beta.id}`, { method: "GET", cookie: monthly.cookie })).status).toBe(200);
    // The page shows it locked, naming the plans that include it, and no link to it.
    const page = await (
      await send("/dashboard/downloads", { method: "GET", cookie: weekly.cookie, headers: { Accept: "text/html" } })
    ).text();
    expect(page).toContain("Needs Beta Access, included in the Monthly and Lifetime plans");
    expect(page).not.toContain(`/dashboard/downloads/releases/${beta.id}`);
    expect(page).toContain(`/dashboard/downloads/releases/${stable.id}`);

    const weeklyPc = hwid();
    const refused = await latest(weekly.key, weeklyPc, "beta");
    expect(await refused.json()).toMatchObject({ code: "VALID", channel: "beta", release: null });
    const stableForWeekly = (await (await latest(weekly.key, weeklyPc)).json()) as { release: { version: string; sha256: string } };
    expect(stableForWeekly.release).toMatchObject({ version: "100.0.0", sha256: await hex(stable.bytes) });

    const answer = await latest(monthly.key, hwid(), "beta");
    expect(answer.headers.get("Licence-Signature")).toBeTruthy();
    const offer = ((await answer.json()) as { release: { version: string; sha256: string; url: string; size: number } }).release;
    expect(offer).toMatchObject({ version: "100.1.0-beta.1", sha256: await hex(beta.bytes), size: beta.bytes.byteLength });
    const file = await exports.default.fetch(offer.url);
    expect([file.status, file.headers.get("X-Checksum-SHA256")]).toEqual([200, await hex(beta.bytes)]);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(beta.bytes);
    // A link made up or edited is refused; so is an unknown key.
    const forged = offer.url.replace(/signature=[^&]+/, "signature=AAAA");
    expect((await exports.default.fetch(forged)).status).toBe(403);
    const otherRelease = offer.url.replace(beta.id, stable.id);
    expect((await exports.default.fetch(otherRelease)).status).toBe(403);
    expect(await (await latest("NO-SUCH-KEY", hwid())).json()).toMatchObject({ code: "NOT_FOUND", release: null });
  });

  it("take the newest version by semver, not by upload order, and a yanked release leaves latest (kept, publishable again)", async () => {
    const { key } = await member("30 Days");
    const pc = hwid();
    const version = async () => ((await (await latest(key, pc)).json()) as { release: { version: string } | null }).release?.version;
    await published(admin, "200.10.0");
    const newest = await published(admin, "200.9.0");
    expect(await version()).toBe("200.10.0");
    const higher = await published(admin, "200.11.0");
    expect(await version()).toBe("200.11.0");
    expect((await change("yank", higher.id, admin)).status).toBe(200);
    expect(await version()).toBe("200.10.0");
    expect((await db.select({ state: releases.state }).from(releases).where(eq(releases.id, higher.id)).get())?.state).toBe("yanked");
    expect((await send(`/dashboard/downloads/releases/${higher.id}`, { method: "GET", cookie: admin })).status).toBe(404);
    // Yanking twice, or publishing a published one, changes nothing.
    expect((await change("yank", higher.id, admin)).status).toBe(409);
    expect((await change("publish", newest.id, admin)).status).toBe(409);
    expect((await change("publish", higher.id, admin)).status).toBe(200);
    expect(await version()).toBe("200.11.0");
  });
});
