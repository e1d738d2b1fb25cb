// /auth/2fa: the second step of signing in, for accounts with two-factor authentication.
import { Form, redirect, useActionData } from "react-router";
import { AuthPage, useAnsweredForm } from "./+shared/auth-page";
import { KeyRound } from "~/components/icons";
import { Button } from "~/components/ui/button";
import { Field } from "~/components/ui/field";
import { OrDivider } from "~/components/ui/or-divider";
import { BRAND } from "~/lib/brand";
import { secondFactorSchema } from "~/lib/schemas/auth";
import { PasskeySignInButton } from "./+shared/passkey-sign-in";
import { challengedAccount, completeChallenge } from "~/server/accounts/login-challenge.server";
import { hasPasskeys } from "~/server/accounts/passkeys.server";
import { app } from "~/http/context.server";
import { answerInvalid, answerProblem, type ProblemTitles, problemToast } from "~/http/answer.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { passRetryAfter, throttledTitles } from "~/http/retry-after.server";
import { redirectAfterSignIn, refusedSignInTitle } from "~/http/sign-in-redirect.server";
import { readSubmission } from "~/http/submission.server";
import type { Route } from "./+types/2fa";
import { callerOf, tokenCookie } from "~/http/caller.server";
import { forgetToken } from "~/server/platform/caller.server";

export const meta: Route.MetaFunction = () => [{ title: `Two-factor authentication | ${BRAND}` }, { name: "robots", content: "noindex" }];

export const headers = passRetryAfter;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = app(context);
  const userId = await challengedAccount(db, callerOf(request));
  if (!userId) throw redirect("/auth");
  return { passkeys: await hasPasskeys(db, userId) };
}

const titles: ProblemTitles = {
  // A wrong code names the code field; a challenge that is gone names none.
  unauthenticated: (problem) => (problem.field ? "Invalid code" : "Sign in again"),
  forbidden: refusedSignInTitle,
  ...throttledTitles,
};

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env } = app(context);
  const submission = await readSubmission(request, secondFactorSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const result = await completeChallenge(db, env.TOTP_ENCRYPTION_KEY, callerOf(request), submission.value.code);
  if (result.ok) return redirectAfterSignIn(request, result.value, [forgetToken("challenge")]);
  const { problem } = result;
  // A sign-in that is gone, or refused (the account was suspended meanwhile), starts over.
  if ((problem.code === "unauthenticated" && !problem.field) || problem.code === "forbidden") {
    return redirectWithToast("/auth", problemToast(problem, titles), { headers: { "Set-Cookie": tokenCookie(forgetToken("challenge")) } });
  }
  return answerProblem(problem, { titles });
}

const PASSKEY_CANCELLED = { title: "No passkey used", description: "The passkey prompt was closed. Try again, or enter a code." };

export default function TwoFactorSignIn({ loaderData }: Route.ComponentProps) {
  const { errors, onSubmit, busy } = useAnsweredForm(secondFactorSchema, useActionData<typeof action>());
  return (
    <AuthPage icon={KeyRound}>
      <h1 className="mt-3 text-2xl font-bold">Two-factor authentication</h1>
      <p className="mt-1 text-sm text-muted">Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
      <Form method="post" className="mt-6 space-y-4" onSubmit={onSubmit}>
        <Field
          label="Code"
          name="code"
          inputMode="text"
          autoComplete="one-time-code"
          required
          maxLength={11}
          autoFocus
          error={errors.code}
        />
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? "Verifying..." : "Verify"}
        </Button>
      </Form>
      {loaderData.passkeys ? (
        <div className="mt-6 space-y-3">
          <OrDivider />
          <PasskeySignInButton action="/auth/2fa/passkey" label="Use a passkey instead" cancelled={PASSKEY_CANCELLED} />
        </div>
      ) : null}
    </AuthPage>
  );
}
