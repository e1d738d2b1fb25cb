// GET /auth/discord/callback: Discord sends the browser back here.
import { data } from "react-router";
import { clearDiscordCookies, finishDiscordSignIn, isDiscordConfigured } from "~/server/accounts/discord.server";
import { signInAs } from "~/server/accounts/sign-in.server";
import { claimSubscriptions } from "~/server/fulfilment/subscriptions.server";
import { app } from "~/http/context.server";
import { problemToast } from "~/http/answer.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { redirectAfterSignIn } from "~/http/sign-in-redirect.server";
import type { Route } from "./+types/auth.discord.callback";

const FAILED = "Discord sign-in failed";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  if (!isDiscordConfigured(env)) throw data(null, { status: 404 });
  const result = await finishDiscordSignIn(db, env, request);
  const cleared = clearDiscordCookies();
  if (!result.ok) {
    const toast = problemToast(result.problem, { unauthenticated: FAILED, forbidden: FAILED });
    const headers = new Headers();
    for (const cookie of cleared) headers.append("Set-Cookie", cookie);
    return redirectWithToast("/auth", toast, { headers });
  }
  const account = result.value;
  // An address Discord has verified: keys bought with it before it was linked become this
  // account's, before the session starts (a failure after linking must not skip the claim).
  if (account.linkedNow) await claimSubscriptions(db, account.id, account.email);
  return redirectAfterSignIn(await signInAs(db, account.id, request), cleared);
}
