// Where the browser goes once a sign-in step succeeds (password, Discord or second factor): home
// with a welcome, or on to the second factor without one.
import type { Problem } from "~/lib/result";
import { ACCOUNT_SUSPENDED } from "~/lib/schemas/auth";
import type { Toast } from "~/lib/toast";
import type { SignInCookie } from "../server/accounts/admission.server";
import { redirectWithToast } from "./flash-toast.server";

const WELCOME_BACK: Toast = { title: "Welcome back!", description: "You've successfully logged in" };

/** The redirect that sets the sign-in cookie, plus any `cookies` the step ends (state, challenge). */
export function redirectAfterSignIn(signIn: SignInCookie, cookies: string[] = []): Response {
  const headers = new Headers();
  for (const cookie of [...cookies, signIn.cookie]) headers.append("Set-Cookie", cookie);
  if (!signIn.secondFactor) return redirectWithToast("/", WELCOME_BACK, { headers });
  headers.set("Location", "/auth/2fa");
  return new Response(null, { status: 302, headers });
}

/** The title of a refused sign-in: a suspended account, or an address not verified yet. */
export const refusedSignInTitle = (problem: Problem) => (problem.message === ACCOUNT_SUSPENDED ? "Account Suspended" : "Email Not Verified");
