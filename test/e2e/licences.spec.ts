// A licence's life as its buyer sees it: bought in the demo checkout, checked by the TypeScript
// client (sdk/typescript, run here in Node as a program would run it) from one PC, refused on a
// second, and moved to the second after a Reset PC on the Subscriptions page.
import { expect, test } from "@playwright/test";
import { LicenceClient } from "../../sdk/typescript/src/licence-client";
import { logIn, openDemoCheckout, payDemoCheckout, reloadUntilVisible, signUpAndLogIn, uniqueName } from "./helpers";

test("a bought key binds its first PC, refuses another, and moves after a Reset PC in the hub", async ({
  page,
  context,
  browser,
  baseURL,
}) => {
  // Stock up first (earlier runs may have sold the demo stock and left orders waiting).
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await admin.getByLabel("Variant", { exact: true }).selectOption({ label: "Vertex Rust - 1 Week" });
  await admin
    .getByLabel("Product Codes (one per line)")
    .fill(Array.from({ length: 3 }, (_, i) => `E2E-WEEK-${uniqueName("w")}-${i}`).join("\n"));
  await admin.getByRole("button", { name: "Add Codes" }).click();
  await expect(admin.getByText(/Added 3 new codes for Vertex Rust - 1 Week/)).toBeVisible();
  await admin.close();

  await signUpAndLogIn(page, "lic");
  const checkout = await openDemoCheckout(page, context, "/product/vertex-rust", /1 Week/);
  await payDemoCheckout(checkout);
  await checkout.close();

  // The key arrives moments after the payment, handed out by the fulfilment queue.
  const card = page.getByRole("article", { name: "Vertex Rust — 1 Week" });
  await reloadUntilVisible(page, "/dashboard/subscriptions", card);
  await expect(card.getByText("Not activated — 7 days from first use")).toBeVisible();
  await expect(card.getByText("No PC bound")).toBeVisible();
  await expect(card.getByText("Never checked")).toBeVisible();
  const key = (await card.getByRole("button", { name: "Copy product key" }).locator("xpath=..").textContent())?.trim();
  expect(key).toBeTruthy();

  // The client, with the shop's public key as a program would have it built in.
  const signingKey = (await (await fetch(new URL("/api/v1/licences/signing-key", baseURL))).json()) as { alg: string; publicKey: string };
  expect(signingKey.alg).toBe("Ed25519");
  const client = new LicenceClient({ baseUrl: baseURL!, publicKey: signingKey.publicKey });
  const [pcA, pcB] = [`E2E-PC-A-${uniqueName("a")}`, `E2E-PC-B-${uniqueName("b")}`];
  expect(await client.check(key!, pcA)).toMatchObject({ outcome: "valid", code: "VALID" });
  expect(await client.check(key!, pcB)).toMatchObject({ outcome: "denied", code: "HWID_MISMATCH" });

  await page.reload({ waitUntil: "networkidle" });
  await expect(card.getByText(/Active until [A-Z][a-z]{2} \d{2}, \d{4}/)).toBeVisible();
  await expect(card.getByText(`${pcA.slice(0, 8)}…${pcA.slice(-4)}`)).toBeVisible();
  await card.getByRole("button", { name: /Reset PC/ }).click();
  // The reset spends the week's allowance: the dialog says so before anything happens.
  const confirm = page.getByRole("dialog", { name: "Reset this key's PC?" });
  await expect(confirm).toContainText("You can reset a key's PC once every 7 days");
  await confirm.getByRole("button", { name: "Reset PC" }).click();
  await expect(page.getByRole("status").filter({ hasText: "PC reset" })).toContainText("The next validation binds the new PC.");
  await expect(card.getByText("No PC bound")).toBeVisible();
  await expect(card.getByText(/Next reset possible on [A-Z][a-z]{2} \d{2}, \d{4}/)).toBeVisible();
  await expect(card.getByText(/by you$/)).toBeVisible();

  expect(await client.check(key!, pcB)).toMatchObject({ outcome: "valid", code: "VALID" });
  await page.reload({ waitUntil: "networkidle" });
  await expect(card.getByText(`${pcB.slice(0, 8)}…${pcB.slice(-4)}`)).toBeVisible();
  // The cooldown runs: the button stays, disabled, saying when it opens again.
  await expect(card.getByRole("button", { name: /Reset PC/ })).toBeDisabled();
});
