import { expect, test } from "@playwright/test";
import { INTRO_FLAG } from "../../app/lib/intro";
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

// Once the intro has been seen, the head script marks <html> before React hydrates it.
test("React reports no hydration mismatch once this session has seen the intro", async ({ page, context }) => {
  await context.addInitScript((flag) => sessionStorage.setItem(flag, "true"), INTRO_FLAG);
  const warnings = reactDocumentWarnings(page);
  for (const path of ["/", "/products", "/auth", "/status"]) await page.goto(path, { waitUntil: "networkidle" });
  await expect(page.locator("html")).toHaveAttribute("data-intro-seen", "");
  expect(warnings, warnings.join("\n")).toEqual([]);
});
