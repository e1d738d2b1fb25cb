import { expect, type Page, test } from "@playwright/test";
import { signUpAndLogIn } from "./helpers";

/** Gives the page Chromium's virtual platform authenticator (fingerprint-style: resident keys, user verification). */
async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/** Signs out from the dashboard, opens /auth and presses the passkey button, typing nothing. */
async function signOutAndUsePasskey(page: Page) {
  await page.getByRole("complementary").getByRole("button", { name: "Logout" }).click();
  await expect(page.getByText("Successfully signed out")).toBeVisible();
  await page.goto("/auth", { waitUntil: "networkidle" });
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
}

test("add a passkey, sign out, and sign in with the passkey alone", async ({ page }) => {
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  await signUpAndLogIn(page, "passkey");

  await page.goto("/dashboard/security", { waitUntil: "networkidle" });
  await expect(page.getByRole("heading", { name: "Passkeys" })).toBeVisible();
  await expect(page.getByText("You have no passkeys yet.")).toBeVisible();
  await page.getByLabel("Name (optional)").fill("Test laptop");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByText('"Test laptop" can now sign you in.')).toBeVisible();
  const list = page.getByRole("list", { name: "Passkeys" });
  await expect(list.getByText("Test laptop")).toBeVisible();
  await expect(list.getByText("never used yet")).toBeVisible();
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]?.isResidentCredential).toBe(true);

  await list.getByRole("button", { name: "Rename Test laptop" }).click();
  await list.getByLabel("Passkey name").fill("Work laptop");
  await list.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText('It is now called "Work laptop".')).toBeVisible();
  await expect(list.getByText("Work laptop")).toBeVisible();

  // Nothing typed: the passkey says whose it is.
  await signOutAndUsePasskey(page);
  await expect(page.getByText("Welcome back!")).toBeVisible();
  await expect(page).toHaveURL("/");
  await page.goto("/dashboard/security", { waitUntil: "networkidle" });
  await expect(list.getByText("last used")).toBeVisible();

  // Removed, it signs in no more, though the authenticator still holds it.
  await list.getByRole("button", { name: "Remove Work laptop" }).click();
  const confirm = page.getByRole("dialog", { name: "Remove this passkey?" });
  await confirm.getByRole("button", { name: "Remove passkey" }).click();
  await expect(page.getByText('"Work laptop" can no longer sign you in.')).toBeVisible();
  await expect(page.getByText("You have no passkeys yet.")).toBeVisible();
  await signOutAndUsePasskey(page);
  await expect(page.getByText("This passkey is not registered here.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Login" })).toBeVisible();
});

test("a closed passkey prompt is a calm note, not an error", async ({ page }) => {
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  // An authenticator that cannot verify its user is refused by the browser, as a closed prompt is.
  await cdp.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified: false });
  await page.goto("/auth", { waitUntil: "networkidle" });
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByText("No passkey used")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeEnabled();
});
