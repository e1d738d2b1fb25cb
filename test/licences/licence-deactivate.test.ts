// The program releases its own PC (POST /api/v1/licences/deactivate): only the bound PC can, the
// answer is signed like a validation's, it spends the same allowance as the hub's Reset PC, it is
// refused where that reset is, audited, listed in the key's reset history, and rate-limited.
import { exports } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, bannedHwids, licenceResets, licences } from "~/server/platform/db/schema.server";
import { boughtKey, call, createAccount, db, hwid, ORIGIN, signedByShop, signIn, unique, validate } from "../helpers";

const DAY = 24 * 3600 * 1000;
const nonce = () => crypto.randomUUID();

async function deactivate(body: unknown, ip = `203.0.113.${Math.floor(Math.random() * 250)}`, method = "POST") {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}/api/v1/licences/deactivate`, {
      method,
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip },
      ...(method === "POST" ? { body: JSON.stringify(body) } : {}),
    }),
  );
  const text = await response.text();
  return { response, text, json: JSON.parse(text) as Record<string, unknown> };
}

const codeFor = async (key: string, pc: string) => (await validate({ key, hwid: pc, nonce: nonce() })).json.code as string;
const licenceOf = async (key: string) => (await db.select().from(licences).where(eq(licences.key, key)).get())!;

/** A member's weekly key, bound to a first PC by its first check. */
async function boundKey() {
  const account = await createAccount();
  const { key } = await boughtKey("1 Week", account.email);
  const pc = hwid();
  expect(await codeFor(key, pc)).toBe("VALID");
  return { account, key, pc };
}

describe("a program releasing its own PC", () => {
  it("frees the key for the next PC, in a signed answer, audited and listed as the owner's reset", async () => {
    const { key, pc } = await boundKey();
    // The shop has banned some other PC, as a live shop always has: that concerns this one not at all.
    await db.insert(bannedHwids).values({ hwid: hwid(), reason: "cheating", bannedAt: Date.now() });
    const asked = nonce();
    const { response, text, json } = await deactivate({ key, hwid: pc, nonce: asked, device: "OLD-RIG" });
    expect(response.status).toBe(200);
    expect(json).toMatchObject({ released: true, code: "RELEASED", key, hwid: pc, nonce: asked, nextReleaseAt: null });

    // Signed over the exact bytes with the key the API publishes, as validate's answers are.
    expect(await signedByShop(response, text)).toBe(true);

    const licence = await licenceOf(key);
    expect(licence).toMatchObject({ hwid: null, lastCheckDevice: null });
    expect(licence.lastOwnerResetAt).toBeGreaterThan(0);
    expect(await db.select().from(licenceResets).where(eq(licenceResets.licenceId, licence.id))).toMatchObject([
      { by: "owner", actorUserId: null, previousHwid: pc },
    ]);
    const entries = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.subject, `licence:${licence.id}`), eq(auditLog.action, "licence.program-release")));
    expect(entries).toHaveLength(1);
    expect(JSON.parse(entries[0]!.detail ?? "{}")).toMatchObject({ previousHwid: pc, device: "OLD-RIG" });
    expect(entries[0]!.detail).not.toContain(key);

    // The next PC's first check binds it.
    const next = hwid();
    expect(await codeFor(key, next)).toBe("VALID");
    expect(await codeFor(key, pc)).toBe("HWID_MISMATCH");
  });

  it("answers HWID_MISMATCH to any other PC, and for a key bound to none, changing nothing", async () => {
    const { key, pc } = await boundKey();
    expect((await deactivate({ key, hwid: hwid(), nonce: nonce() })).json).toMatchObject({ released: false, code: "HWID_MISMATCH" });
    expect((await licenceOf(key)).hwid).toBe(pc);

    const { key: free } = await boughtKey();
    expect((await deactivate({ key: free, hwid: hwid(), nonce: nonce() })).json).toMatchObject({ code: "HWID_MISMATCH" });
    expect((await licenceOf(free)).hwid).toBeNull();
    expect((await deactivate({ key: `NO-SUCH-${unique("k")}`, hwid: hwid(), nonce: nonce() })).json).toMatchObject({ code: "NOT_FOUND" });
  });

  it("spends the allowance the hub's Reset PC spends: one move per cooldown, whichever door", async () => {
    const { account, key, pc } = await boundKey();
    expect((await deactivate({ key, hwid: pc, nonce: nonce() })).json).toMatchObject({ code: "RELEASED" });
    const next = hwid();
    expect(await codeFor(key, next)).toBe("VALID");
    const again = await deactivate({ key, hwid: next, nonce: nonce() });
    expect(again.json).toMatchObject({ released: false, code: "TOO_SOON" });
    const nextRelease = Date.parse(again.json.nextReleaseAt as string);
    expect(nextRelease).toBeGreaterThan(Date.now() + 6 * DAY);
    expect(nextRelease).toBeLessThanOrEqual(Date.now() + 7 * DAY);
    expect((await licenceOf(key)).hwid).toBe(next);

    // The hub's reset is spent too.
    const cookie = await signIn(account, unique("ip"));
    const reset = await call("/dashboard/subscriptions", {
      form: { intent: "reset-hwid", licenceId: String((await licenceOf(key)).id) },
      cookie,
    });
    expect(reset.status).toBe(429);
    expect((await licenceOf(key)).hwid).toBe(next);
  });

  it("is refused where the hub's reset is: a banned key or PC, a revoked or paused key", async () => {
    for (const [change, code] of [
      [{ bannedAt: Date.now(), banReason: "chargeback" }, "BANNED"],
      [{ revokedAt: Date.now() }, "REVOKED"],
      [{ pausedAt: Date.now() }, "SUSPENDED"],
    ] as const) {
      const { key, pc } = await boundKey();
      await db.update(licences).set(change).where(eq(licences.key, key));
      expect((await deactivate({ key, hwid: pc, nonce: nonce() })).json).toMatchObject({ released: false, code });
      expect((await licenceOf(key)).hwid).toBe(pc);
    }
    const { key, pc } = await boundKey();
    await db.insert(bannedHwids).values({ hwid: pc, reason: "cheating", bannedAt: Date.now() });
    expect((await deactivate({ key, hwid: pc, nonce: nonce() })).json).toMatchObject({ code: "BANNED" });
    expect((await licenceOf(key)).hwid).toBe(pc);
  });

  it("refuses a malformed request with 400 naming the field, a GET with 405, and limits calls per key", async () => {
    const bad = await deactivate({ key: "K", hwid: "short", nonce: nonce() });
    expect(bad.response.status).toBe(400);
    expect(bad.json).toMatchObject({ error: { code: "INVALID_REQUEST", field: "hwid" } });
    expect((await deactivate(undefined, undefined, "GET")).response.status).toBe(405);

    // Strangers who know the key spend its shared budget, from addresses of their own.
    const { key } = await boundKey();
    let refused: Response | undefined;
    for (let i = 0; i <= 120 && !refused; i++) {
      const { response } = await deactivate({ key, hwid: hwid(), nonce: nonce() }, `192.0.2.${i}`);
      if (response.status === 429) refused = response;
      else expect(response.status).toBe(200);
    }
    expect(refused?.headers.get("Retry-After")).toBe("60");
  });

  it("is in the OpenAPI document with its codes", async () => {
    const doc = (await (await exports.default.fetch(`${ORIGIN}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, { post?: { responses: Record<string, unknown> } }>;
      components: { schemas: { Deactivation: { properties: { code: { enum: string[] } } } } };
    };
    expect(Object.keys(doc.paths["/licences/deactivate"]?.post?.responses ?? {})).toEqual(["200", "400", "413", "429", "503"]);
    expect(doc.components.schemas.Deactivation.properties.code.enum).toEqual([
      "RELEASED",
      "NOT_FOUND",
      "HWID_MISMATCH",
      "BANNED",
      "REVOKED",
      "SUSPENDED",
      "TOO_SOON",
    ]);
  });
});
