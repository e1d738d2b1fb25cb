// Where the browser goes once a sign-in step succeeds (password, Discord, passkey or second
// factor): the page the member asked for before being sent to sign in, else home, with a welcome;
// or on to the second factor without one. The page asked for waits in a short-lived cookie, so
// every way of signing in ends there, however many steps it takes.
import type { Problem } from "~/lib/result";
import { ACCOUNT_SUSPENDED } from "~/lib/schemas/auth";
import type { Toast } from "~/lib/toast";
import type { SignIn } from "../server/accounts/admission.server";
import type { TokenChange } from "../server/platform/caller.server";
import { tokenHeaders } from "./caller.server";
import { clearCookie, readCookie, serializeCookie } from "./cookies.server";
import { redirectWithToast } from "./flash-toast.server";

const WELCOME_BACK: Toast = { title: "Welcome back!", description: "You've successfully logged in" };
const RETURN_COOKIE = "__Host-return-to";
const RETURN_MAX_AGE_SECONDS = 15 * 60;

/** A path a browser reads as another host: "//host" or "/\\host" (backslashes count as slashes). */
const namesAnotherHost = (path: string) => /^[/\\][/\\]/.test(path);

/**
 * A path on this site, or null. The check is made on the path as the browser will use it, once
 * its dot segments are resolved ("/.//evil.example" resolves to "//evil.example", another host),
 * and again on what is sent. Only its path and query are kept.
 */
function safeReturnPath(value: string | null): string | null {
  const controlCharacter = [...(value ?? "")].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (!value || !value.startsWith("/") || namesAnotherHost(value) || controlCharacter) return null;
  const base = "https://same.site";
  try {
    const url = new URL(value, base);
    const path = `${url.pathname}${url.search}`;
    return url.origin === base && !namesAnotherHost(path) ? path : null;
  } catch {
    return null;
  }
}

/** The cookie that remembers the page a signed-out request asked for (as the browser would show it). */
export function rememberReturnPath(request: Request): string {
  const url = new URL(request.url);
  // A client-side navigation asks for the page's data: the page is the one without ".data".
  url.pathname = url.pathname.replace(/(\/_)?\.data$/, "") || "/";
  url.searchParams.delete("_routes");
  return serializeCookie(RETURN_COOKIE, encodeURIComponent(`${url.pathname}${url.search}`), RETURN_MAX_AGE_SECONDS);
}

function returnPath(request: Request): string | null {
  const raw = readCookie(request, RETURN_COOKIE);
  if (!raw) return null;
  try {
    return safeReturnPath(decodeURIComponent(raw));
  } catch {
    return null;
  }
}

/** The redirect that sets the sign-in cookie, plus any `ended` tokens the step used up (state, challenge). */
export function redirectAfterSignIn(request: Request, signIn: SignIn, ended: TokenChange[] = []): Response {
  const headers = tokenHeaders([...ended, signIn.token]);
  if (signIn.secondFactor) {
    headers.set("Location", "/auth/2fa");
    return new Response(null, { status: 302, headers });
  }
  if (readCookie(request, RETURN_COOKIE) !== null) headers.append("Set-Cookie", clearCookie(RETURN_COOKIE));
  return redirectWithToast(returnPath(request) ?? "/", WELCOME_BACK, { headers });
}

/** The title of a refused sign-in: a suspended account, or an address not verified yet. */
export const refusedSignInTitle = (problem: Problem) =>
  problem.message === ACCOUNT_SUSPENDED ? "Account Suspended" : "Email Not Verified";
