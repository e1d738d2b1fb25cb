// /auth/verify: the link in the verification e-mail lands here. Opening it changes nothing (mail
// scanners open every link): the token moves into a short-lived cookie (a redirect to the bare
// path keeps it out of the address bar and every Referer), and the page names the account being
// confirmed. Only its Confirm button, a POST with the password chosen at sign-up, verifies the
// address and gives the account the keys bought with it; a registration that a Discord sign-in
// opened is confirmed by signing in with that Discord account instead (decision 042).
import { Form, redirect, useActionData } from "react-router";
import { Link } from "~/components/link";
import { AuthPage, linkPageMeta, useAnsweredForm } from "./+shared/auth-page";
import { MailCheck } from "~/components/icons";
import { Button, buttonClass } from "~/components/ui/button";
import { Field } from "~/components/ui/field";
import { BRAND } from "~/lib/brand";
import { confirmEmailSchema } from "~/lib/schemas/auth";
import { isDiscordConfigured } from "~/server/accounts/discord-login.server";
import { checkVerificationLink, confirmWithPassword } from "~/server/accounts/registration.server";
import { claimSubscriptions } from "~/server/licences/subscriptions.server";
import { app } from "~/http/context.server";
import { answerInvalid, answerProblem, problemToast } from "~/http/answer.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { linkPageHeaders, NO_REFERRER } from "~/http/link-pages.server";
import { throttledTitles } from "~/http/retry-after.server";
import { readSubmission } from "~/http/submission.server";
import type { Route } from "./+types/verify";
import { callerOf, linkTokenCookie, tokenCookie } from "~/http/caller.server";
import { forgetToken } from "~/server/platform/caller.server";

const FAILED = { "not-found": "Verification Failed" };

export const meta: Route.MetaFunction = () => linkPageMeta("Confirm your e-mail address");

export const headers = linkPageHeaders;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const fromLink = new URL(request.url).searchParams.get("token");
  if (fromLink !== null) {
    const link = await checkVerificationLink(db, fromLink);
    if (!link.ok)
      return redirectWithToast("/auth", problemToast(link.problem, FAILED), {
        headers: { ...NO_REFERRER, "Set-Cookie": tokenCookie(forgetToken("verify")) },
      });
    throw redirect("/auth/verify", {
      headers: { ...NO_REFERRER, "Set-Cookie": linkTokenCookie("verify", fromLink, link.value.expiresAt) },
    });
  }
  const link = await checkVerificationLink(db, callerOf(request).tokens.verify ?? null);
  if (!link.ok) return { account: null };
  const { id, username, email, withDiscord } = link.value;
  return { account: { id, username, email, withDiscord: withDiscord && isDiscordConfigured(app(context).env) } };
}

const titles = { invalid: "Validation Error", unauthenticated: "Wrong password", ...throttledTitles };

export async function action({ request, context }: Route.ActionArgs) {
  const { db } = app(context);
  const submission = await readSubmission(request, confirmEmailSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const verified = await confirmWithPassword(db, callerOf(request), callerOf(request).tokens.verify ?? null, submission.value);
  const cleared = { headers: { "Set-Cookie": tokenCookie(forgetToken("verify")) } };
  if (!verified.ok && verified.problem.code !== "not-found") return answerProblem(verified.problem, { titles });
  if (!verified.ok) return redirectWithToast("/auth", problemToast(verified.problem, FAILED), cleared);
  // The owner of the mailbox confirmed it: keys bought with the address become this account's.
  await claimSubscriptions(db, verified.value.id, verified.value.email);
  return redirectWithToast("/auth", { title: "Email Verified", description: "Your account is ready. You can log in now." }, cleared);
}

export default function VerifyEmail({ loaderData }: Route.ComponentProps) {
  const { account } = loaderData;
  const { errors, onSubmit, busy } = useAnsweredForm(confirmEmailSchema, useActionData<typeof action>());
  if (!account) {
    return (
      <AuthPage icon={MailCheck}>
        <h1 className="mt-3 text-2xl font-bold">This link can't be used</h1>
        <p className="mt-1 text-sm text-muted">
          The confirmation link is invalid, was used already, or has expired. Log in to ask for a new one.
        </p>
        <Link to="/auth" className={buttonClass("primary", "md", "mt-6 w-full")}>
          Go to log in
        </Link>
      </AuthPage>
    );
  }
  return (
    <AuthPage icon={MailCheck}>
      <h1 className="mt-3 text-2xl font-bold">Confirm your e-mail address</h1>
      <p className="mt-2 text-sm text-muted">
        You are confirming the {BRAND} account <span className="font-semibold text-zinc-100">{account.username}</span> for the address{" "}
        <span className="font-semibold [overflow-wrap:anywhere] text-zinc-100">{account.email}</span>. Once confirmed, the account opens,
        and keys bought with this address belong to it.
      </p>
      {account.withDiscord ? (
        // A plain form: the browser follows the redirect to Discord and back.
        <form method="post" action="/auth/discord" className="mt-6 space-y-3">
          <input type="hidden" name="intent" value="confirm" />
          <p className="text-sm text-muted">The account was opened with Discord: confirm by continuing with the same Discord account.</p>
          <Button type="submit" className="w-full">
            Confirm with Discord
          </Button>
        </form>
      ) : (
        <Form method="post" className="mt-6 space-y-4" onSubmit={onSubmit} noValidate>
          <input type="hidden" name="account" value={account.id} />
          {/* Tells password managers which account the password is for. */}
          <input type="text" name="username" autoComplete="username" value={account.username} readOnly hidden />
          <Field
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            hint="The password you chose when signing up"
            error={errors.password}
          />
          <Button type="submit" className="w-full" disabled={busy}>
            {busy ? "Confirming..." : "Confirm"}
          </Button>
        </Form>
      )}
      <p className="mt-6 border-t border-line pt-4 text-sm text-muted">
        Did not sign up? Ignore the e-mail and close this page: nothing happens, and the registration is deleted after a day.
      </p>
    </AuthPage>
  );
}
