// GET /auth/discord/callback: Discord sends the browser back here.
import { data } from "react-router";
import { clearDiscordCookies, finishDiscordSignIn, isDiscordConfigured } from "~/server/accounts/discord.server";
import { signInAs } from "~/server/accounts/sign-in.server";
import { claimSubscriptions } from "~/server/fulfilment/subscriptions.server";
import { app } from "~/http/context.server";
import { problemToast } from "~/http/answer.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { redirectAfterSignIn, refusedSignInTitle } from "~/http/sign-in-redirect.server";
import type { Problem } from "~/lib/result";
import { ACCOUNT_SUSPENDED } from "~/lib/schemas/auth";
import type { Route } from "./+types/auth.discord.callback";

const FAILED = "Discord sign-in failed";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  if (!isDiscordConfigured(env)) throw data(null, { status: 404 });
  const result = await finishDiscordSignIn(db, env, request);
  const cleared = clearDiscordCookies();
  const refuse = (problem: Problem) => {
    const toast = problemToast(problem, { unauthenticated: FAILED, forbidden: problem.message === ACCOUNT_SUSPENDED ? refusedSignInTitle : FAILED });
    const headers = new Headers();
    for (const cookie of cleared) headers.append("Set-Cookie", cookie);
    return redirectWithToast("/auth", toast, { headers });
  };
  if (!result.ok) return refuse(result.problem);
  const account = result.value;
  // An address Discord has verified: keys bought with it before it was linked become this
  // account's, before the session starts (a failure after linking must not skip the claim).
  if (account.linkedNow) await claimSubscriptions(db, account.id, account.email);
  const signedIn = await signInAs(db, account.id, request);
  if (!signedIn.ok) return refuse(signedIn.problem);
  return redirectAfterSignIn(request, signedIn.value, cleared);
}
