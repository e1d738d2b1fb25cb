// /auth/forgot: ask for a password reset link. The answer is the same whether or not an account
// matches, so it never tells who has one.
import { Form, useActionData } from "react-router";
import { AuthPage, useAnsweredForm } from "./+shared/auth-page";
import { Mail } from "~/components/icons";
import { Button } from "~/components/ui/button";
import { Field } from "~/components/ui/field";
import { BRAND } from "~/lib/brand";
import { resetRequestSchema } from "~/lib/schemas/auth";
import { requestPasswordReset } from "~/server/accounts/password-reset.server";
import { mailingDeps } from "~/http/context.server";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { passRetryAfter, throttledTitles } from "~/http/retry-after.server";
import { readSubmission } from "~/http/submission.server";
import type { Route } from "./+types/forgot";
import { callerOf } from "~/http/caller.server";

export const meta: Route.MetaFunction = () => [
  { title: `Reset your password | ${BRAND}` },
  { name: "description", content: `Get a link to choose a new password for your ${BRAND} account.` },
  { name: "robots", content: "noindex" },
];

export const headers = passRetryAfter;

const titles: ProblemTitles = { invalid: "Validation Error", ...throttledTitles };

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, resetRequestSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  return answer(await requestPasswordReset(mailingDeps(context), callerOf(request), submission.value), {
    success: { title: "Check your email", description: "If an account matches, a link to reset its password is on its way." },
    titles,
  });
}

export default function ForgotPassword() {
  const result = useActionData<typeof action>();
  const { errors, onSubmit, busy } = useAnsweredForm(resetRequestSchema, result);
  const sent = result?.ok === true;

  return (
    <AuthPage icon={Mail}>
      <h1 className="mt-3 text-2xl font-bold">Forgot your password?</h1>
      <p className="mt-1 text-sm text-muted">
        Enter the e-mail address or username of your account. We'll e-mail you a link to choose a new password.
      </p>
      {/* Always in the page, so that screen readers announce the message when it appears. */}
      <div role="status" className={sent ? "mt-6 rounded-lg border border-line bg-panel-2 p-4 text-sm" : "sr-only"}>
        {sent ? (
          <>
            <p className="font-semibold">Check your email</p>
            <p className="mt-1 text-muted">
              If an account matches what you entered, a link to reset its password is on its way to the account's e-mail address. It works
              once, within 30 minutes, and only the newest link works. Nothing there? Check your spam folder, or send another link.
            </p>
          </>
        ) : null}
      </div>
      <Form method="post" className="mt-6 space-y-4" onSubmit={onSubmit} noValidate>
        <Field
          label="Email or Username"
          name="emailOrUsername"
          autoComplete="username"
          required
          maxLength={254}
          error={errors.emailOrUsername}
        />
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? "Sending..." : sent ? "Send another link" : "Send reset link"}
        </Button>
      </Form>
    </AuthPage>
  );
}
