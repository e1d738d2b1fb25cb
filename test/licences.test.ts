import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { licences, userSubscriptions } from "~/server/platform/db/schema.server";
import { boughtKey, createAccount, db, hwid, validate } from "./helpers";

const nonce = () => crypto.randomUUID();

describe("licence validation", () => {
  it("activates a key on its first valid call and binds that PC", async () => {
    const { key } = await boughtKey("1 Week");
    const pc = hwid();
    const sent = nonce();
    const first = await validate({ key, hwid: pc, nonce: sent });
    expect(first.response.status).toBe(200);
    expect(first.json).toMatchObject({ valid: true, code: "VALID", nonce: sent, licence: { product: "Vertex Rust", plan: "weekly" } });
    const { activatedAt, expiresAt } = first.json.licence;
    expect(Date.parse(expiresAt) - Date.parse(activatedAt)).toBe(7 * 24 * 3600 * 1000);
    expect(first.response.headers.get("Licence-Signature")).toBeTruthy();

    const again = await validate({ key, hwid: pc, nonce: nonce() });
    expect(again.json).toMatchObject({ code: "VALID", licence: { activatedAt, expiresAt } });
    const other = await validate({ key, hwid: hwid(), nonce: nonce() });
    expect(other.json).toMatchObject({ valid: false, code: "HWID_MISMATCH" });
    const row = await db.select().from(licences).where(eq(licences.key, key)).get();
    expect(row?.hwid).toBe(pc);
  });

  it("answers NOT_FOUND with no licence for an unknown key", async () => {
    const { json } = await validate({ key: "NOPE-123", hwid: hwid(), nonce: nonce() });
    expect(json).toMatchObject({ valid: false, code: "NOT_FOUND", licence: null, ttl: 0 });
  });

  it("refuses malformed requests with 400 and a JSON error", async () => {
    for (const body of ["not json", "[]", { key: "K", hwid: "short", nonce: nonce() }, { key: "K", hwid: hwid(), nonce: "tiny" }]) {
      const { response, json } = await validate(body);
      expect(response.status).toBe(400);
      expect(json.error.code).toBe("INVALID_REQUEST");
    }
  });

  it("lets a subscription's clock start at activation", async () => {
    const account = await createAccount();
    const { key } = await boughtKey("30 Days", account.email);
    const before = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get();
    expect(before).toMatchObject({ status: "active", expiryDate: null });
    const { json } = await validate({ key, hwid: hwid(), nonce: nonce() });
    const after = await db.select().from(userSubscriptions).where(eq(userSubscriptions.userId, account.id)).get();
    expect(after?.expiryDate).toBe(Date.parse(json.licence.expiresAt));
  });
});
