// Deleting stock codes in bulk (decision 104): the preview says how many codes go and which, the
// confirmation deletes them, and Undo in the card's recent changes puts them back unsold.
import { expect, test } from "@playwright/test";
import { logIn, uniqueName } from "./helpers";

test("an admin previews a bulk deletion of codes, confirms it, and undoes it", async ({ page }) => {
  const prefix = `E2E-BULK-${uniqueName("b").toUpperCase()}`;
  const codes = [1, 2, 3].map((n) => `${prefix}-${n}`);
  await logIn(page, "admin", "admin-demo-1");
  await page.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await page.getByLabel("Variant", { exact: true }).selectOption({ label: "Vertex Rust - 1 Week" });
  await page.getByLabel("Product Codes (one per line)").fill(codes.join("\n"));
  await page.getByRole("button", { name: "Add Codes" }).click();
  await expect(page.getByText(/Added 3 new codes for Vertex Rust - 1 Week/)).toBeVisible();

  const available = page.getByRole("list", { name: "Available codes" });
  await page.getByLabel("Variant to delete from").selectOption({ label: "Vertex Rust - 1 Week" });
  await page.getByLabel(/Only these codes/).fill(codes.join("\n"));
  await page.getByRole("button", { name: "Preview deletion" }).click();

  const dialog = page.getByRole("dialog", { name: "Delete these codes?" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText("3 rows will change")).toBeVisible();
  const touched = dialog.getByRole("list", { name: "What it will touch" });
  for (const code of codes) await expect(touched.getByText(code)).toBeVisible();
  // Nothing has gone yet.
  await expect(available.getByText(codes[0]!)).toBeVisible();

  await dialog.getByRole("button", { name: "Delete codes" }).click();
  await expect(page.getByText(/3 codes of Vertex Rust - 1 Week deleted/)).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(available.getByText(codes[0]!)).toHaveCount(0);

  await page.getByRole("button", { name: "Undo: 3 codes deleted" }).first().click();
  await expect(page.getByText(/3 codes of Vertex Rust - 1 Week back in stock, unsold/)).toBeVisible();
  for (const code of codes) await expect(available.getByText(code)).toBeVisible();
  await expect(page.getByText(/Undone: 3 back/).first()).toBeVisible();
});
