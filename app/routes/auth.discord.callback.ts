// GET /auth/discord/callback: Discord sends the browser back here, from a sign-in or from linking
// Discord on the Security page.
import { data } from "react-router";
import { clearDiscordCookies, finishDiscordLink, finishDiscordSignIn, isDiscordConfigured, isDiscordLink } from "~/server/accounts/discord.server";
import { getViewer } from "~/server/accounts/session.server";
import { signInAs } from "~/server/accounts/sign-in.server";
import { app, mailingDeps } from "~/http/context.server";
import { problemToast } from "~/http/answer.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { redirectAfterSignIn, refusedSignInTitle } from "~/http/sign-in-redirect.server";
import type { Problem } from "~/lib/result";
import { ACCOUNT_SUSPENDED } from "~/lib/schemas/auth";
import type { Toast } from "~/lib/toast";
import type { Route } from "./+types/auth.discord.callback";

const FAILED = "Discord sign-in failed";
const SECURITY = "/dashboard/security";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  if (!isDiscordConfigured(env)) throw data(null, { status: 404 });
  const cleared = clearDiscordCookies();
  const go = (to: string, toast: Toast) => {
    const headers = new Headers();
    for (const cookie of cleared) headers.append("Set-Cookie", cookie);
    return redirectWithToast(to, toast, { headers });
  };
  const refuse = (problem: Problem) =>
    go("/auth", problemToast(problem, { unauthenticated: FAILED, conflict: "Account exists", forbidden: problem.message === ACCOUNT_SUSPENDED ? refusedSignInTitle : FAILED }));

  if (isDiscordLink(request)) {
    const viewer = await getViewer(db, request);
    if (!viewer) return go("/auth", { title: "Login Required", description: "Please log in to continue" });
    const linked = await finishDiscordLink(db, env, request, viewer.id);
    return linked.ok
      ? go(SECURITY, { title: "Discord linked", description: "You can now log in with Discord too." })
      : go(SECURITY, problemToast(linked.problem, { conflict: "Not linked", unauthenticated: "Not linked" }));
  }

  const result = await finishDiscordSignIn(mailingDeps(context), env, request);
  if (!result.ok) return refuse(result.problem);
  if (result.value.kind === "confirm-email") {
    return go("/auth", {
      title: "Confirm your e-mail",
      description: `We sent a link to ${result.value.email}. Confirm the address on the page it opens, then continue with Discord.`,
    });
  }
  const signedIn = await signInAs(db, result.value.id, request);
  if (!signedIn.ok) return refuse(signedIn.problem);
  return redirectAfterSignIn(request, signedIn.value, cleared);
}
