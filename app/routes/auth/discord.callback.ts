// GET /auth/discord/callback: Discord sends the browser back here, from a sign-in, from linking
// Discord on the Security page, or from confirming a Discord registration's address.
import {
  confirmWithDiscord,
  discordModeOf,
  finishDiscordLink,
  finishDiscordSignIn,
  forgetDiscordRoundTrip,
  isDiscordConfigured,
} from "~/server/accounts/discord-login.server";
import { getViewer } from "~/server/accounts/session.server";
import { signInAs } from "~/server/accounts/sign-in.server";
import { claimSubscriptions } from "~/server/licences/subscriptions.server";
import { app, linkDeps, mailingDeps } from "~/http/context.server";
import { joinServerOnLink } from "~/server/discord/role-link.server";
import { problemToast } from "~/http/answer.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { redirectAfterSignIn, refusedSignInTitle } from "~/http/sign-in-redirect.server";
import { notFound } from "~/http/refusals.server";
import type { Problem } from "~/lib/result";
import { ACCOUNT_SUSPENDED } from "~/lib/schemas/auth";
import type { Toast } from "~/lib/toast";
import type { Route } from "./+types/discord.callback";
import { callerOf, tokenHeaders } from "~/http/caller.server";
import { forgetToken, type TokenChange } from "~/server/platform/caller.server";

const FAILED = "Discord sign-in failed";
const SECURITY = "/dashboard/security";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  if (!isDiscordConfigured(env)) throw notFound();
  const caller = callerOf(request);
  const { searchParams } = new URL(request.url);
  const callback = { code: searchParams.get("code"), state: searchParams.get("state") };
  const cleared = forgetDiscordRoundTrip();
  const go = (to: string, toast: Toast, extra: TokenChange[] = []) =>
    redirectWithToast(to, toast, { headers: tokenHeaders([...cleared, ...extra]) });
  const refuse = (problem: Problem) =>
    go(
      "/auth",
      problemToast(problem, {
        unauthenticated: FAILED,
        conflict: "Account exists",
        forbidden: problem.message === ACCOUNT_SUSPENDED ? refusedSignInTitle : FAILED,
      }),
    );
  const signIn = async (userId: string, extra: TokenChange[] = []) => {
    const signedIn = await signInAs(db, userId, caller);
    return signedIn.ok ? redirectAfterSignIn(request, signedIn.value, [...cleared, ...extra]) : refuse(signedIn.problem);
  };

  const mode = discordModeOf(caller);
  if (mode.kind === "link") {
    // Linked only to the member who started the link, if they are still the one signed in.
    const viewer = await getViewer(db, caller);
    if (viewer?.id !== mode.userId)
      return go("/auth", { title: "Login Required", description: "Please log in as the member who started linking Discord" });
    const linked = await finishDiscordLink(mailingDeps(context), env, caller, callback, viewer.id);
    // Into the shop's server with the roles the member's licences give (decision 064).
    if (linked.ok) await joinServerOnLink(linkDeps(context), viewer.id, linked.value);
    return linked.ok
      ? go(SECURITY, { title: "Discord linked", description: "You can now log in with Discord too." })
      : go(SECURITY, problemToast(linked.problem, { conflict: "Not linked", unauthenticated: "Not linked" }));
  }
  if (mode.kind === "confirm") {
    const confirmed = await confirmWithDiscord(db, env, caller, callback);
    if (!confirmed.ok)
      return go(
        "/auth/verify",
        problemToast(confirmed.problem, { "not-found": "Verification Failed", forbidden: "Not confirmed", unauthenticated: FAILED }),
      );
    // The mailbox and the Discord account are both proven: the address's keys join the account.
    await claimSubscriptions(db, confirmed.value.id, confirmed.value.email);
    return signIn(confirmed.value.id, [forgetToken("verify")]);
  }

  const result = await finishDiscordSignIn(mailingDeps(context), env, caller, callback);
  if (!result.ok) return refuse(result.problem);
  if (result.value.kind === "confirm-email") {
    return go("/auth", {
      title: "Confirm your e-mail",
      description: `We sent a link to ${result.value.email}. Open it and confirm with Discord to finish creating your account.`,
    });
  }
  return signIn(result.value.id);
}
