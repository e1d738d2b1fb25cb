// Blocking a customer with their PCs, as staff do it from the customer's page, against the member's
// program: the TypeScript licence SDK, as a shop's program embeds it, checking a bought key from its
// PC against the local shop. Blocked, the program is told BANNED (signed, in the shop's words);
// lifted on the Blocklists page, it works again.
import { expect, test } from "@playwright/test";
import { LicenceClient } from "../../sdk/typescript/src/licence-client.ts";
import { buyWeeklyByWebhook, logIn, reloadUntilVisible, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

test("staff block a customer with their PCs from the customer page; the program is BANNED until the block is lifted", async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const shop = baseURL!;
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`BLOCK-E2E-${uniqueName("k")}`]);
  const member = await signUpAndLogIn(page, "blk");
  await buyWeeklyByWebhook(shop, member.email);
  const card = page.getByRole("article", { name: "Vertex Rust — 1 Week" });
  await reloadUntilVisible(page, "/dashboard/subscriptions", card);
  const key = (await card.getByRole("button", { name: "Copy product key" }).locator("xpath=..").textContent())!.trim();

  // The member's program: the shop's public key built in, its PC's hardware id, a check.
  const { publicKey } = (await (await fetch(new URL("/api/v1/licences/signing-key", shop))).json()) as { publicKey: string };
  const program = new LicenceClient({ baseUrl: shop, publicKey, device: "E2E-GAMING-PC" });
  const pc = `HWID-${uniqueName("pc")}-0123456789`;
  expect((await program.check(key, pc)).outcome).toBe("valid");

  // Staff find the customer and block them, with the PC the shop knows, in one confirmation.
  const admin = await browser.newPage();
  await logIn(admin, "admin", "admin-demo-1");
  await admin.goto(`/dashboard/customers?q=${encodeURIComponent(member.username)}`, { waitUntil: "networkidle" });
  await admin.getByRole("link", { name: member.username, exact: true }).first().click();
  await admin.getByRole("button", { name: "Block customer" }).click();
  const dialog = admin.getByRole("dialog", { name: `Block ${member.username}?` });
  await dialog.getByLabel("Reason").fill("Chargeback on an earlier order");
  await expect(dialog.getByRole("checkbox", { name: new RegExp(pc) })).toBeChecked();
  await dialog.getByRole("button", { name: "Block customer" }).click();
  await expect(admin.getByRole("status").filter({ hasText: "Customer blocked" })).toBeVisible();

  // The program is refused, signed, with the shop's reason; its lease ends with it.
  const banned = await program.check(key, pc);
  expect(banned).toMatchObject({ outcome: "denied", code: "BANNED", message: "This PC is blocked by the shop." });

  // Staff lift the PC's block on the Blocklists page; the program works again.
  await admin.goto("/dashboard/blocklists", { waitUntil: "networkidle" });
  const standing = admin.getByRole("table", { name: "Standing blocks" });
  const row = standing.getByRole("row").filter({ hasText: pc });
  await row.getByRole("button", { name: "Lift" }).click();
  await admin
    .getByRole("dialog", { name: `Lift the block on ${pc}?` })
    .getByRole("button", { name: "Lift block" })
    .click();
  await expect(admin.getByRole("status").filter({ hasText: "Block lifted" })).toBeVisible();
  expect((await program.check(key, pc)).outcome).toBe("valid");
  await admin.close();
});
