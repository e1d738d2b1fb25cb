// /auth/reset: the link in a password reset e-mail lands here. The token moves from the address
// into a short-lived cookie at once (a redirect to the bare path), so it stays out of the address
// bar, the history and every Referer; the form then sets the new password with it.
import { data, Form, redirect, useActionData } from "react-router";
import { Link } from "~/components/link";
import { AuthPage, linkPageMeta, NewPasswordField, useAnsweredForm } from "./+shared/auth-page";
import { KeyRound } from "~/components/icons";
import { Button, buttonClass } from "~/components/ui/button";
import { newPasswordSchema } from "~/lib/schemas/auth";
import { checkResetLink, resetPassword } from "~/server/accounts/password-reset.server";
import { claimSubscriptions } from "~/server/licences/subscriptions.server";
import { app, mailingDeps, sessionDeps } from "~/http/context.server";
import { answerInvalid, answerProblem, type ProblemTitles } from "~/http/answer.server";
import { problemStatus } from "~/http/problem-status.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { linkPageHeaders, NO_REFERRER } from "~/http/link-pages.server";
import { throttledTitles } from "~/http/retry-after.server";
import { readSubmission } from "~/http/submission.server";
import type { Route } from "./+types/reset";
import { callerOf, linkTokenCookie, tokenCookie } from "~/http/caller.server";
import { forgetToken } from "~/server/platform/caller.server";

export const meta: Route.MetaFunction = () => linkPageMeta("Choose a new password");

export const headers = linkPageHeaders;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const fromLink = new URL(request.url).searchParams.get("token");
  if (fromLink !== null) {
    const link = await checkResetLink(db, fromLink);
    const cookie = link.ok ? linkTokenCookie("reset", fromLink, link.value.expiresAt) : tokenCookie(forgetToken("reset"));
    throw redirect("/auth/reset", { headers: { ...NO_REFERRER, "Set-Cookie": cookie } });
  }
  const link = await checkResetLink(db, callerOf(request).tokens.reset ?? null);
  if (!link.ok) return data({ username: null }, { status: problemStatus(link.problem) });
  return { username: link.value.username };
}

const titles: ProblemTitles = { invalid: "Validation Error", "not-found": "Link Expired", ...throttledTitles };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, newPasswordSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const deps = { ...mailingDeps(context), ...sessionDeps(context) };
  const result = await resetPassword(deps, callerOf(request), callerOf(request).tokens.reset ?? null, submission.value.password);
  if (!result.ok) {
    const unusable = result.problem.code === "not-found";
    return answerProblem(result.problem, { titles, headers: unusable ? { "Set-Cookie": tokenCookie(forgetToken("reset")) } : undefined });
  }
  const reset = result.value;
  // The link went to the address and so proved it: keys bought with it now show as subscriptions.
  if (reset.verifiedNow) await claimSubscriptions(deps.db, reset.id, reset.email);
  return redirectWithToast(
    "/auth",
    { title: "Password Changed", description: "Your new password is set and every device was signed out. Log in with the new password." },
    { headers: { "Set-Cookie": tokenCookie(forgetToken("reset")) } },
  );
}

export default function ResetPassword({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const { errors, onSubmit, busy } = useAnsweredForm(newPasswordSchema, result);
  // A link used up meanwhile (in another tab, say) turns the form into the expired-link page.
  const username = result && !result.ok && result.problem.code === "not-found" ? null : loaderData.username;

  if (username === null) {
    return (
      <AuthPage icon={KeyRound}>
        <h1 className="mt-3 text-2xl font-bold">This link can't be used</h1>
        <p className="mt-1 text-sm text-muted">
          The password reset link is invalid or has expired. A link works once, within 30 minutes, and only the newest one you asked for
          works.
        </p>
        <Link to="/auth/forgot" className={buttonClass("primary", "md", "mt-6 w-full")}>
          Ask for a new link
        </Link>
      </AuthPage>
    );
  }
  return (
    <AuthPage icon={KeyRound}>
      <h1 className="mt-3 text-2xl font-bold">Choose a new password</h1>
      <p className="mt-1 text-sm text-muted">
        For the account <span className="font-semibold text-zinc-100">{username}</span>. Every device signed in to it will be signed out.
      </p>
      <Form method="post" className="mt-6 space-y-4" onSubmit={onSubmit} noValidate>
        {/* Tells password managers which account the new password belongs to. */}
        <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
        <NewPasswordField label="New password" autoFocus error={errors.password} />
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? "Saving..." : "Set new password"}
        </Button>
      </Form>
    </AuthPage>
  );
}
