import { expect, test } from "@playwright/test";
import { logIn, reactDocumentWarnings } from "./helpers";

// The document hydrates cleanly (the CSP nonce included), and the root layout mounted afresh when
// the root error boundary takes over and hands back creates no scripts.
test("React reports no hydration mismatch or client-made script along a member's journey", async ({ page }) => {
  const warnings = reactDocumentWarnings(page);
  for (const path of ["/", "/products", "/auth"]) await page.goto(path, { waitUntil: "networkidle" });
  await logIn(page, "member", "member-demo-1");

  // An admin page: Access Denied from the root error boundary, which hands back to the dashboard.
  await page.goto("/dashboard/manage-codes", { waitUntil: "networkidle" });
  await expect(page.getByRole("heading", { name: "Access Denied" })).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard$/);

  await page.getByRole("button", { name: "Account menu" }).click();
  await page.getByRole("menuitem", { name: "Logout" }).click();
  await expect(page.getByText("Successfully signed out")).toBeVisible();
  expect(warnings, warnings.join("\n")).toEqual([]);
});
