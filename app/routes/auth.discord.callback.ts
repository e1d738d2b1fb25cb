// GET /auth/discord/callback: Discord sends the browser back here.
import { data } from "react-router";
import { app } from "~/server/platform/context.server";
import { finishDiscordSignIn, isDiscordConfigured } from "~/server/accounts/discord.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import type { Route } from "./+types/auth.discord.callback";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  if (!isDiscordConfigured(env)) throw data(null, { status: 404 });
  const outcome = await finishDiscordSignIn(db, env, request);
  const headers = new Headers();
  for (const cookie of outcome.cookies) headers.append("Set-Cookie", cookie);
  if (outcome.ok && outcome.secondFactor) {
    headers.set("Location", "/auth/2fa");
    return new Response(null, { status: 302, headers });
  }
  return redirectWithToast(outcome.ok ? "/" : "/auth", outcome.toast, { headers });
}
