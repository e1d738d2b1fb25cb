import { expect, test } from "@playwright/test";
import { logIn, signUpAndLogIn } from "./helpers";

test("signing out everywhere else from a second browser ends the first one's session and closes its chat", async ({ browser }) => {
  const first = await (await browser.newContext()).newPage();
  const second = await (await browser.newContext()).newPage();
  const { email, password } = await signUpAndLogIn(first, "sessions");
  await first.goto("/dashboard");
  await expect(first.getByText("Connected")).toBeVisible();

  await logIn(second, email, password);
  await second.goto("/dashboard/security", { waitUntil: "networkidle" });
  const list = second.getByRole("list", { name: "Sessions" });
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(list.getByText("This device")).toHaveCount(1);
  await second.getByRole("button", { name: "Sign out everywhere else" }).click();
  await second.getByRole("dialog", { name: "Sign out everywhere else?" }).getByRole("button", { name: "Sign out everywhere else" }).click();
  await expect(second.getByText("1 other session ended.")).toBeVisible();
  await expect(list.getByRole("listitem")).toHaveCount(1);

  // The first browser learns it at once: its chat closes without a reload ...
  await expect(first.getByText("Signed out. Log in again to chat.")).toBeVisible();
  // ... and its next page asks it to sign in again; the second browser is still signed in.
  await first.goto("/dashboard");
  await expect(first).toHaveURL(/\/auth$/);
  await second.reload();
  await expect(second.getByRole("heading", { name: "Security" })).toBeVisible();
});
