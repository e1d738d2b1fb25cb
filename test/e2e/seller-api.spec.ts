import { expect, test } from "@playwright/test";
import { creditFromCustomerPage, logIn, signUpAndLogIn, uniqueName } from "./helpers";

// A reseller's bot on the seller API (decisions 096 and 097): the reseller makes a token on the
// Security page, a script with nothing but that token creates two keys and frees one's PC, and the
// admin finds both in the audit log under the reseller's name and the token's.
test("a reseller makes an API token, a script creates two keys and resets one's PC, and the admin sees both in the audit log", async ({
  page,
  browser,
  baseURL,
}) => {
  const reseller = await signUpAndLogIn(page, "seller");
  await page.goto("/dashboard/resell"); // the first visit opens the reseller account
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await creditFromCustomerPage(admin, reseller.username, "50");

  await page.goto("/dashboard/security", { waitUntil: "networkidle" });
  const card = page.getByRole("region", { name: "API tokens" });
  await expect(card.getByText("No API tokens yet.")).toBeVisible();
  await card.getByLabel("Token name").fill("Discord bot");
  await card.getByRole("checkbox", { name: /keys:create/ }).check();
  await card.getByRole("checkbox", { name: /keys:manage/ }).check();
  await card.getByLabel("Your password").fill(reseller.password);
  await card.getByRole("button", { name: "Create token" }).click();
  const shown = card.getByRole("status", { name: "New API token" });
  await expect(shown).toHaveText(/^vtx_/);
  const token = (await shown.textContent())!.trim();
  await expect(card.getByRole("list", { name: "API tokens" }).getByText("keys:create, keys:read, keys:manage")).toBeVisible();

  // The script: plain HTTP with the token, no session.
  const api = (path: string) => new URL(`/api/v1/seller${path}`, baseURL);
  const auth = { Authorization: `Bearer ${token}` };
  const created = await fetch(api("/keys"), {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
    body: JSON.stringify({ plan: "weekly", quantity: 2 }),
  });
  expect(created.status).toBe(201);
  expect(created.headers.get("RateLimit-Policy")).toContain("q=120");
  const { keys } = (await created.json()) as { keys: { key: string; pcBound: boolean }[] };
  expect(keys).toHaveLength(2);

  // A customer's PC starts using the first key; then the script frees it for their new PC.
  const key = keys[0]!.key;
  const checked = await fetch(new URL("/api/v1/licences/validate", baseURL), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ key, hwid: `HWID-${uniqueName("pc")}-0123456789`, nonce: crypto.randomUUID() }),
  });
  expect(((await checked.json()) as { code: string }).code).toBe("VALID");
  const reset = await fetch(api(`/keys/${key}/reset-pc`), { method: "POST", headers: auth });
  expect(reset.status).toBe(200);
  expect(((await reset.json()) as { pcBound: boolean }).pcBound).toBe(false);

  // The card shows when and from where the token was last used.
  await page.reload({ waitUntil: "networkidle" });
  await expect(card.getByText(/Last used/)).toBeVisible();

  await admin.goto(`/dashboard/audit?actor=${encodeURIComponent(reseller.username)}`, { waitUntil: "networkidle" });
  const log = admin.getByRole("table", { name: "Audit log entries" });
  const byToken = log.getByRole("row").filter({ hasText: reseller.username }).filter({ hasText: 'API token "Discord bot"' });
  await expect(byToken.filter({ hasText: "Created keys through the seller API" })).toBeVisible();
  await expect(byToken.filter({ hasText: "Owner reset their key's PC" })).toBeVisible();
  await admin.close();
});
