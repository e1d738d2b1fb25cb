import { describe, expect, it } from "vitest";
import { fromBase64 } from "~/server/platform/tokens.server";
import { burnPasswordCheck, hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "~/server/accounts/password.server";

describe("password hashing", () => {
  it("is pinned to 100,000 PBKDF2 iterations, the most production Workers accept", () => {
    expect(PBKDF2_ITERATIONS).toBe(100_000);
  });

  it("stores PBKDF2-SHA256 with the pinned count, a 16-byte salt and a 32-byte key", async () => {
    const stored = await hashPassword("hunter2-hunter2");
    const [scheme, iterations, salt, hash] = stored.split("$");
    expect(scheme).toBe("pbkdf2_sha256");
    expect(Number(iterations)).toBe(100_000);
    expect(fromBase64(salt!).byteLength).toBe(16);
    expect(fromBase64(hash!).byteLength).toBe(32);
    expect(stored).not.toContain("hunter2");
  });

  it("salts every hash differently", async () => {
    expect(await hashPassword("same-password")).not.toBe(await hashPassword("same-password"));
  });

  it("accepts the right password and rejects a wrong one", async () => {
    const stored = await hashPassword("s3cret-pass");
    expect(await verifyPassword("s3cret-pass", stored)).toBe(true);
    expect(await verifyPassword("s3cret-pasS", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("rejects tampered or malformed hashes instead of throwing", async () => {
    const stored = await hashPassword("s3cret-pass");
    const [scheme, , salt, hash] = stored.split("$");
    expect(await verifyPassword("s3cret-pass", `${scheme}$1$${salt}$${hash}`)).toBe(false);
    // A count above the production limit is refused outright rather than attempted.
    expect(await verifyPassword("s3cret-pass", `${scheme}$100001$${salt}$${hash}`)).toBe(false);
    expect(await verifyPassword("s3cret-pass", "plain-text")).toBe(false);
    expect(await verifyPassword("s3cret-pass", `md5$100000$${salt}$${hash}`)).toBe(false);
  });

  it("does the same PBKDF2 work for a missing account without succeeding", async () => {
    await expect(burnPasswordCheck("anything")).resolves.toBeUndefined();
  });
});
