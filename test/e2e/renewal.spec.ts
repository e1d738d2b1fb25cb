// A renewal as its member lives it (decision 090): a weekly key bought and bound to a PC by the
// program (the TypeScript SDK run here in Node, as a program runs it), renewed from the hub through
// the demo checkout, and the same program with the same key on the same PC is then valid past the
// old expiry, with no new activation: no new key, no second subscription.
import { expect, test } from "@playwright/test";
import { LicenceClient } from "../../sdk/typescript/src/licence-client";
import { buyWeeklyByWebhook, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

const WEEK_MS = 7 * 24 * 60 * 60_000;

test("a weekly licence bound to a PC is renewed from the hub through the demo checkout, and the program keeps the same key past the old expiry", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  // One weekly code for the purchase (earlier runs may have sold the demo stock); the renewal needs none.
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`RENEW-E2E-${uniqueName("k")}`]);
  const member = await signUpAndLogIn(page, "renew");
  await buyWeeklyByWebhook(baseURL!, member.email);
  const card = page.getByRole("article", { name: "Vertex Rust — 1 Week" });
  await reloadUntilVisible(page, "/dashboard/subscriptions", card);
  const key = (await card.getByRole("button", { name: "Copy product key" }).locator("xpath=..").textContent())?.trim();
  expect(key).toBeTruthy();

  // The program binds the key to its PC at its first check, and learns when it ends and where to renew.
  const { publicKey } = (await (await fetch(new URL("/api/v1/licences/signing-key", baseURL))).json()) as { publicKey: string };
  const program = new LicenceClient({ baseUrl: baseURL!, publicKey, product: "Vertex Rust" });
  const pc = `E2E-RENEW-PC-${uniqueName("pc")}`;
  const first = await program.check(key!, pc);
  expect(first).toMatchObject({ outcome: "valid", code: "VALID" });
  const oldExpiry = first.expiresAt!.getTime();
  const activatedAt = first.outcome === "valid" ? first.answer.licence?.activatedAt : null;
  expect(first.renewUrl).toMatch(/\/dashboard\/renew\/\d+\?plan=weekly&expires=\d+&signature=/);

  // Renewed from its card in the hub, paid in the demo checkout.
  await page.reload({ waitUntil: "networkidle" });
  await card.getByRole("link", { name: "Renew or upgrade Vertex Rust Weekly" }).click();
  await expect(page.getByRole("heading", { name: "Renew Vertex Rust" })).toBeVisible();
  const renewal = page.getByRole("region", { name: /Renew: 1 Week/ });
  await expect(renewal).toContainText("The time is added to its end");
  await renewal.getByRole("button", { name: "Pay $29.99 by card" }).click();
  await expect(page).toHaveURL(/\/checkout\/demo\//);
  // The checkout's own page, not the renewal page it replaces, before its button is pressed.
  await expect(page.getByRole("heading", { level: 1, name: /^(Checkout|Order #)/ })).toBeVisible();
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(page.getByText("Paid. Your licence is being extended: same key, same PC.")).toBeVisible();
  await expect(page.getByRole("list", { name: "Licences extended" })).toContainText(/is extended until/, { timeout: 30_000 });

  // The same program, key and PC: valid past the old expiry, activated when it was, nothing bound anew.
  const after = await program.check(key!, pc);
  expect(after).toMatchObject({ outcome: "valid", code: "VALID" });
  expect(after.expiresAt!.getTime()).toBe(oldExpiry + WEEK_MS);
  expect(after.outcome === "valid" ? after.answer.licence?.activatedAt : null).toBe(activatedAt);
  // One subscription with the same key, now running to the new end; nothing in Past Subscriptions.
  await page.goto("/dashboard/subscriptions", { waitUntil: "networkidle" });
  await expect(page.getByRole("article", { name: "Vertex Rust — 1 Week" })).toHaveCount(1);
  await expect(card.getByText(key!, { exact: true })).toBeVisible();
  await expect(page.getByRole("region", { name: "Past Subscriptions" })).toContainText("Nothing here yet.");
});
