import { expect, test } from "@playwright/test";
import { buyWeeklyByWebhook, mailFromMailbox, signUpAndLogIn, stockAsAdmin, uniqueName } from "./helpers";

// A member downloads their data and deletes their account from the Security page (decision 099).
test("a member downloads their data, then deletes their account with their password, and cannot sign in again", async ({
  page,
  browser,
  baseURL,
}) => {
  // A key in stock for the order (earlier tests may have sold the seeded ones), and its mail waited for.
  await stockAsAdmin(browser, "Vertex Rust - 1 Week", [`E2E-LEAVE-${uniqueName("k").toUpperCase()}`]);
  const member = await signUpAndLogIn(page, "leaver");
  await buyWeeklyByWebhook(baseURL!, member.email);
  await mailFromMailbox(page, member.email, /Your Vertex key/);

  await page.goto("/dashboard/security");
  const yourData = page.getByRole("region", { name: "Your data" });
  const download = page.waitForEvent("download");
  await yourData.getByRole("link", { name: "Download my data" }).click();
  const file = await (await download).path();
  const { readFileSync } = await import("node:fs");
  const data = JSON.parse(readFileSync(file, "utf8")) as { member: { email: string }; tables: Record<string, unknown[]> };
  expect(data.member.email).toBe(member.email);
  expect(data.tables.licences).toHaveLength(1);

  await yourData.getByRole("button", { name: "Delete my account" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete your account?" });
  await expect(dialog).toBeVisible();
  // A wrong password keeps the account, and says so beside the field.
  await dialog.getByLabel("Your password").fill("not-my-password");
  await dialog.getByRole("button", { name: "Delete my account" }).click();
  await expect(dialog.getByLabel("Your password")).toHaveAccessibleDescription("Your password is not right.");

  await dialog.getByLabel("Your password").fill(member.password);
  await dialog.getByRole("button", { name: "Delete my account" }).click();
  await expect(page).toHaveURL("/");
  await expect(page.getByText("Account deleted")).toBeVisible();
  await expect(page.getByRole("link", { name: "Login" })).toBeVisible();

  const last = await mailFromMailbox(page, member.email, /has been deleted/);
  await expect(last).toContainText("These keys no longer work");

  await page.goto("/auth");
  await page.getByLabel("Email or Username").fill(member.username);
  await page.getByLabel("Password").fill(member.password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByText("Login Failed")).toBeVisible();
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/auth$/);
});
