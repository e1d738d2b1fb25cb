import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { resellerAccounts, resellerKeys } from "~/server/platform/db/schema.server";
import { call, createAccount, db, signIn, unique } from "../helpers";

// Demo catalogue: 30 Days $89.99, 1 Week $29.99; at the default 50% discount a key costs half.
const MONTHLY_CENTS = 4500; // round(8999 * 0.5)
const WEEKLY_CENTS = 1500; // round(2999 * 0.5)

async function reseller(balanceCents: number) {
  const account = await createAccount();
  const cookie = await signIn(account, unique("ip"));
  await call("/dashboard/resell", { cookie }); // the first visit opens the account
  await db.update(resellerAccounts).set({ balanceCents }).where(eq(resellerAccounts.userId, account.id));
  return { account, cookie };
}

const keysOf = (userId: string) => db.select().from(resellerKeys).where(eq(resellerKeys.userId, userId));
const balanceOf = async (userId: string) =>
  (await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, userId)).get())!.balanceCents;

describe("reseller panel", () => {
  it("opens an account with a 50% discount on the first visit and shows the balance in dollars", async () => {
    const account = await createAccount();
    const html = await (await call("/dashboard/resell", { cookie: await signIn(account, unique("ip")) })).text();
    expect(await db.select().from(resellerAccounts).where(eq(resellerAccounts.userId, account.id)).get()).toMatchObject({
      balanceCents: 0,
      discountRate: 50,
    });
    expect(html).toContain("$0.00");
    expect(html).toContain("50%");
  });

  it("validates the quantity: present, positive, at least 5, not absurd", async () => {
    const { account, cookie } = await reseller(1_000_000);
    const cases: [string, string][] = [
      ["", "Please enter a valid quantity"],
      ["0", "Please enter a valid quantity"],
      ["-3", "Please enter a valid quantity"],
      ["2.5", "Please enter a valid quantity"],
      ["abc", "Please enter a valid quantity"],
      ["4", "You must generate at least 5 keys per order"],
      ["101", "You can generate at most 100 keys per order"],
    ];
    for (const [quantity, message] of cases) {
      const response = await call("/dashboard/resell", { form: { intent: "generate", quantity }, cookie });
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain(message);
      // The specification's titles: the minimum order has its own.
      expect(text).toContain(quantity === "4" ? "Minimum Order Required" : "Invalid Quantity");
    }
    expect(await keysOf(account.id)).toHaveLength(0);
    expect(await balanceOf(account.id)).toBe(1_000_000);
  });

  it("generates keys on the server, monthly by default, and takes their discounted price from the balance", async () => {
    const { account, cookie } = await reseller(100_000);
    const response = await call("/dashboard/resell", { form: { intent: "generate", quantity: "5" }, cookie });
    expect(await response.text()).toContain("Generated 5 key(s) successfully");
    const keys = await keysOf(account.id);
    expect(keys).toHaveLength(5);
    for (const key of keys) {
      expect(key.keyCode).toMatch(/^KEY-[A-Z0-9]{8}-[A-Z0-9]{8}$/);
      expect(key).toMatchObject({ keyType: "monthly", status: "active", priceCents: MONTHLY_CENTS });
    }
    expect(new Set(keys.map((k) => k.keyCode)).size).toBe(5);
    expect(await balanceOf(account.id)).toBe(100_000 - 5 * MONTHLY_CENTS);

    await call("/dashboard/resell", { form: { intent: "generate", quantity: "5", keyType: "weekly" }, cookie });
    expect((await keysOf(account.id)).filter((k) => k.keyType === "weekly")).toHaveLength(5);
    expect(await balanceOf(account.id)).toBe(100_000 - 5 * MONTHLY_CENTS - 5 * WEEKLY_CENTS);
  });

  it("generates the largest allowed order in one go", async () => {
    const { account, cookie } = await reseller(100 * MONTHLY_CENTS);
    const response = await call("/dashboard/resell", { form: { intent: "generate", quantity: "100" }, cookie });
    expect(await response.text()).toContain("Generated 100 key(s) successfully");
    expect(await keysOf(account.id)).toHaveLength(100);
    expect(await balanceOf(account.id)).toBe(0);
  });

  it("refuses an unknown license type", async () => {
    const { account, cookie } = await reseller(100_000);
    const response = await call("/dashboard/resell", { form: { intent: "generate", quantity: "5", keyType: "lifetime" }, cookie });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Choose Monthly License or Weekly License");
    expect(await keysOf(account.id)).toHaveLength(0);
  });

  it("refuses a request for no known form", async () => {
    const { cookie } = await reseller(100_000);
    const forms: Record<string, string>[] = [{ intent: "refund", quantity: "5" }, { quantity: "5" }];
    for (const form of forms) {
      const response = await call("/dashboard/resell", { form, cookie });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("Unknown request");
    }
  });

  it("creates nothing when the balance is short", async () => {
    const { account, cookie } = await reseller(5 * MONTHLY_CENTS - 1);
    const response = await call("/dashboard/resell", { form: { intent: "generate", quantity: "5" }, cookie });
    expect(response.status).toBe(409);
    expect(await response.text()).toContain("Insufficient balance");
    expect(await keysOf(account.id)).toHaveLength(0);
    expect(await balanceOf(account.id)).toBe(5 * MONTHLY_CENTS - 1);
  });

  it("never overspends, however many generations run at once", async () => {
    // Enough for exactly three orders of five monthly keys.
    const { account, cookie } = await reseller(3 * 5 * MONTHLY_CENTS);
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => call("/dashboard/resell", { form: { intent: "generate", quantity: "5" }, cookie })),
    );
    const succeeded = responses.filter((r) => r.status === 200).length;
    expect(succeeded).toBe(3);
    expect(await keysOf(account.id)).toHaveLength(15);
    expect(await balanceOf(account.id)).toBe(0);
  });

  it("validates Add Balance, and opens a crypto top-up without touching the balance until it is paid", async () => {
    const { account, cookie } = await reseller(123);
    for (const amount of ["", "0", "-5", "abc", "1.234"]) {
      const response = await call("/dashboard/resell", { form: { intent: "add-balance", amount, coin: "BTC" }, cookie });
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain("Invalid Amount");
      expect(text).toContain("Please enter a valid amount");
    }
    const small = await call("/dashboard/resell", { form: { intent: "add-balance", amount: "9.99", coin: "BTC" }, cookie });
    expect(small.status).toBe(400);
    expect(await small.text()).toContain("The minimum top-up is $10.00");
    const opened = await call("/dashboard/resell", { form: { intent: "add-balance", amount: "25.50", coin: "LTC" }, cookie });
    expect(opened.status).toBe(302);
    expect(opened.headers.get("Location")).toMatch(/^\/dashboard\/crypto-tracker\?order=CRYPTO-/);
    // Credited only once the payment is confirmed on chain (test/crypto-orders.test.ts).
    expect(await balanceOf(account.id)).toBe(123);
  });
});

describe("the reseller's keys, exported and copied", () => {
  it("exports every key the reseller generated, with its licence, as CSV, and no one else's", async () => {
    const { account, cookie } = await reseller(100_000);
    await call("/dashboard/resell", { form: { intent: "generate", quantity: "5", keyType: "weekly" }, cookie });
    const other = await reseller(100_000);
    await call("/dashboard/resell", { form: { intent: "generate", quantity: "5" }, cookie: other.cookie });

    const response = await call("/dashboard/resell/keys.csv", { cookie });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="reseller-keys-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    const [header, ...lines] = (await response.text()).trim().split("\r\n");
    expect(header).toBe("key,type,status,licence,pc bound,activated at,expires at,purchased at");
    const mine = (await keysOf(account.id)).map((k) => k.keyCode).sort();
    expect(lines.map((line) => line.split(",")[0]).sort()).toEqual(mine);
    for (const line of lines) expect(line).toMatch(/^KEY-[A-Z0-9-]+,Weekly License,active,not-activated,no,,,\d{4}-\d{2}-\d{2}T/);
    for (const theirs of await keysOf(other.account.id)) expect(lines.join("\n")).not.toContain(theirs.keyCode);
  });

  it("sends a signed-out visitor to sign in instead of exporting", async () => {
    const response = await call("/dashboard/resell/keys.csv");
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toMatch(/^\/auth/);
  });

  it("offers Copy all keys and the CSV on the panel once there are keys", async () => {
    const { cookie } = await reseller(100_000);
    expect(await (await call("/dashboard/resell", { cookie })).text()).not.toContain("Copy all keys");
    await call("/dashboard/resell", { form: { intent: "generate", quantity: "5" }, cookie });
    const html = await (await call("/dashboard/resell", { cookie })).text();
    expect(html).toContain("Copy all keys");
    expect(html).toContain('href="/dashboard/resell/keys.csv"');
  });
});
