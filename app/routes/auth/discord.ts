// /auth/discord: off to Discord (only when Discord sign-in is configured). A GET signs in. A POST
// links Discord to the member signed in (from the Security page, with their password), or
// confirms the address of a registration a Discord sign-in opened (from the confirmation page).
import { redirect } from "react-router";
import { app } from "~/http/context.server";
import { problemToast } from "~/http/answer.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { readSubmission } from "~/http/submission.server";
import { notFound } from "~/http/refusals.server";
import { discordStartSchema } from "~/lib/schemas/auth";
import { type DiscordMode, isDiscordConfigured, mayLinkDiscord, startDiscordSignIn } from "~/server/accounts/discord-login.server";
import { getViewer } from "~/server/accounts/session.server";
import type { Route } from "./+types/discord";
import { callerOf, tokenHeaders } from "~/http/caller.server";

function toDiscord(request: Request, env: Env, mode?: DiscordMode) {
  if (!isDiscordConfigured(env)) throw notFound();
  const { url, tokens } = startDiscordSignIn(env, new URL(request.url).origin, mode);
  return redirect(url, { headers: tokenHeaders(tokens) });
}

export function loader({ request, context }: Route.LoaderArgs) {
  return toDiscord(request, app(context).env);
}

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env } = app(context);
  if (!isDiscordConfigured(env)) throw notFound();
  const form = await readSubmission(request, discordStartSchema);
  if (!form.ok) return redirectWithToast("/auth", problemToast(form.problem));
  if (form.value.intent === "confirm") return toDiscord(request, env, { kind: "confirm" });
  const viewer = await getViewer(db, callerOf(request));
  if (!viewer) return redirectWithToast("/auth", { title: "Login Required", description: "Please log in to continue" });
  const allowed = await mayLinkDiscord(db, callerOf(request), viewer.id, form.value.password);
  if (!allowed.ok)
    return redirectWithToast(
      "/dashboard/security",
      problemToast(allowed.problem, { unauthenticated: "Not linked", conflict: "Not linked", "rate-limited": "Too many attempts" }),
    );
  return toDiscord(request, env, { kind: "link", userId: viewer.id });
}
