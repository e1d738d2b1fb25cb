import { expect, type Page, test } from "@playwright/test";
import { confirmFromMailbox, linkFromMailbox, logIn, signUp, uniqueName } from "./helpers";

test("sign up, verify from the mailbox, log in, see the dashboard, log out", async ({ page }) => {
  const username = uniqueName("e2e");
  const email = `${username}@example.test`;
  const password = "e2e-password-1";

  // Scripts loaded first: the shared schema's answers below are the browser's, not the server's.
  await page.goto("/auth", { waitUntil: "networkidle" });
  await page.getByRole("link", { name: "Sign up", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Create Account" })).toBeVisible();

  // The shared schema speaks first, before anything reaches the server.
  await page.getByLabel("Username").fill("ab");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create Account" }).click();
  // In a toast, and next to the field it is about.
  await expect(page.getByRole("list", { name: "Notifications" }).getByText("Username must be at least 3 characters")).toBeVisible();
  await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Username")).toHaveAccessibleDescription("Username must be at least 3 characters");
  await expect(page.getByLabel("Email")).not.toHaveAttribute("aria-invalid", "true");

  await page.getByLabel("Username").fill(username);
  await page.getByRole("button", { name: "Create Account" }).click();
  await expect(page.getByText("Account Created!")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();

  // Not verified yet: refused, with a way to get a new link.
  await page.getByLabel("Email or Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByText("Email Not Verified")).toBeVisible();
  await expect(page.getByRole("button", { name: "Resend verification email" })).toBeVisible();

  await confirmFromMailbox(page, email, password);

  await logIn(page, username, password);
  await expect(page).toHaveURL("/");
  await page.getByRole("button", { name: "Account menu" }).click();
  await expect(page.getByRole("menu")).toContainText(email);
  await page.getByRole("menuitem", { name: "Dashboard" }).click();
  await expect(page.getByRole("heading", { name: /Hub/ })).toBeVisible();
  await expect(page.getByRole("link", { name: /Manage Codes/ })).toHaveCount(0);

  await page.getByRole("complementary").getByRole("button", { name: "Logout" }).click();
  await expect(page.getByText("Successfully signed out")).toBeVisible();
  await expect(page).toHaveURL("/");
  await expect(page.getByRole("link", { name: "Login" })).toBeVisible();

  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/auth$/);
});

/** Fills the sign-up form with a username the schema refuses. */
async function fillShortUsername(page: Page) {
  const username = uniqueName("e2e");
  await page.getByLabel("Username").fill("ab");
  await page.getByLabel("Email").fill(`${username}@example.test`);
  await page.getByLabel("Password").fill("e2e-password-1");
}

test.describe("without scripts", () => {
  test.use({ javaScriptEnabled: false });

  test("the server's answer to a sign-up marks the field it is about", async ({ page }) => {
    await page.goto("/auth?mode=signup");
    await fillShortUsername(page);
    await page.getByRole("button", { name: "Create Account" }).click();
    await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Username")).toHaveAccessibleDescription("Username must be at least 3 characters");
    await expect(page.getByLabel("Email")).not.toHaveAttribute("aria-invalid", "true");
  });
});

test("a sign-up sent before scripts ran keeps its field marked once they run", async ({ page }) => {
  // The form page's scripts never arrive, so the form is sent as a plain POST; the answer's page gets them.
  let scripts = false;
  await page.route("**/*", (route) => (!scripts && route.request().resourceType() === "script" ? route.abort() : route.continue()));
  await page.goto("/auth?mode=signup");
  await fillShortUsername(page);
  scripts = true;
  await page.getByRole("button", { name: "Create Account" }).click();
  // The toast is shown by script: the answer's page has hydrated.
  await expect(page.getByRole("list", { name: "Notifications" }).getByText("Username must be at least 3 characters")).toBeVisible();
  await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Username")).toHaveAccessibleDescription("Username must be at least 3 characters");
});

test("a member who opens an admin page is told so and sent back to the dashboard", async ({ page }) => {
  await logIn(page, "member", "member-demo-1");
  await page.goto("/dashboard/manage-codes");
  await expect(page.getByRole("heading", { name: "Access Denied" })).toBeVisible();
  await expect(page.getByText("You don't have permission to access this page")).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard$/, { timeout: 5000 });
});

test("unknown pages show the 404 screen", async ({ page }) => {
  const response = await page.goto("/no/such/page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Oops! Page not found" })).toBeVisible();
  await page.getByRole("link", { name: "Return to Home" }).click();
  await expect(page).toHaveURL("/");
});

test("reset a forgotten password from the mailbox, then sign in with the new one", async ({ page }) => {
  const username = uniqueName("reset");
  const email = `${username}@example.test`;

  // A verified member who then forgets the password.
  await signUp(page, { username, email, password: "forgotten-pass-1" });
  await confirmFromMailbox(page, email, "forgotten-pass-1");

  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page.getByRole("heading", { name: "Forgot your password?" })).toBeVisible();
  await page.getByLabel("Email or Username").fill(email);
  await page.getByRole("button", { name: "Send reset link" }).click();
  await expect(page.getByRole("status").filter({ hasText: "If an account matches what you entered" })).toBeVisible();

  const link = await linkFromMailbox(page, email, /Reset your/);
  await page.goto(link);
  // The token leaves the address bar at once.
  await expect(page).toHaveURL(/\/auth\/reset$/);
  await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
  await expect(page.getByText(username)).toBeVisible();

  // The sign-up rules apply, before anything is sent.
  await page.getByLabel("New password").fill("short");
  await page.getByRole("button", { name: "Set new password" }).click();
  await expect(page.getByLabel("New password")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("New password")).toHaveAccessibleDescription(/Password must be at least 6 characters/);

  await page.getByLabel("New password").fill("remembered-pass-2");
  await page.getByRole("button", { name: "Set new password" }).click();
  await expect(page).toHaveURL(/\/auth$/);
  await expect(page.getByText("Password Changed")).toBeVisible();

  await logIn(page, username, "remembered-pass-2");
  await expect(page).toHaveURL("/");

  // The link worked once.
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "This link can't be used" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Ask for a new link" })).toHaveAttribute("href", "/auth/forgot");
});
