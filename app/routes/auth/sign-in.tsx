// /auth: sign in or create an account.
import { ArrowLeft } from "~/components/icons";
import { useEffect, useState } from "react";
import { Form, redirect, useActionData, useNavigation, useSearchParams } from "react-router";
import { Link } from "~/components/link";
import { NewPasswordField } from "./+shared/auth-page";
import { useToast } from "~/components/toaster";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { OrDivider } from "~/components/ui/or-divider";
import { PasskeySignInButton } from "./+shared/passkey-sign-in";
import { useFormCheck } from "~/components/use-form-check";
import { BRAND } from "~/lib/brand";
import { ok } from "~/lib/result";
import { ACCOUNT_SUSPENDED, authSchema, loginSchema, PASSWORD_MAX, resendSchema, signupSchema } from "~/lib/schemas/auth";
import { isDiscordConfigured } from "~/server/accounts/discord-login.server";
import { resendVerification, signUp } from "~/server/accounts/registration.server";
import { getViewer } from "~/server/accounts/session.server";
import { logIn } from "~/server/accounts/sign-in.server";
import { app, mailingDeps } from "~/http/context.server";
import { relyingPartyFor } from "~/http/passkeys.server";
import { answer, answerInvalid, answerProblem, type ProblemTitles } from "~/http/answer.server";
import { passRetryAfter, throttledTitles } from "~/http/retry-after.server";
import { redirectAfterSignIn, refusedSignInTitle } from "~/http/sign-in-redirect.server";
import { readSubmission } from "~/http/submission.server";
import { LEGAL_PAGES } from "~/lib/legal";
import type { Route } from "./+types/sign-in";
import { callerOf } from "~/http/caller.server";

export const meta: Route.MetaFunction = () => [
  { title: `Login or Sign Up | ${BRAND}` },
  { name: "description", content: `Sign in to your ${BRAND} account or create one.` },
  { name: "robots", content: "noindex" },
];

// A throttled sign-in tells the client when it may try again.
export const headers = passRetryAfter;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  if (await getViewer(db, callerOf(request))) throw redirect("/");
  return { discord: isDiscordConfigured(env), passkeys: relyingPartyFor(context, request).ok };
}

const titles: ProblemTitles = {
  // A form problem reads "Validation Error"; a request that is none of the three forms, "Error".
  invalid: (problem) => (problem.field === "intent" ? "Error" : "Validation Error"),
  unauthenticated: "Login Failed",
  forbidden: refusedSignInTitle,
  conflict: (problem) => (problem.field === "username" ? "Username Taken" : "Account Exists"),
  ...throttledTitles,
};

export async function action({ request, context }: Route.ActionArgs) {
  const submission = await readSubmission(request, authSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const form = submission.value;
  switch (form.intent) {
    case "login": {
      const result = await logIn(app(context).db, callerOf(request), form);
      return result.ok ? redirectAfterSignIn(request, result.value) : answerProblem(result.problem, { titles, intent: form.intent });
    }
    case "signup":
      return answer(await signUp(mailingDeps(context), callerOf(request), form), {
        success: { title: "Account Created!", description: "Please check your email to verify your account before logging in." },
        titles,
        intent: form.intent,
      });
    case "resend":
      await resendVerification(mailingDeps(context), callerOf(request), form);
      return answer(ok(), {
        success: {
          title: "Verification Email Sent",
          description: "If that address has an account waiting for verification, a new link is on its way.",
        },
        intent: form.intent,
      });
  }
}

const PASSKEY_CANCELLED = {
  title: "No passkey used",
  description: "The passkey prompt was closed. Try again, or sign in with your password.",
};

export default function AuthPage({ loaderData }: Route.ComponentProps) {
  // The mode lives in the URL, so the toggle is a plain link that works before scripts load.
  const [searchParams, setSearchParams] = useSearchParams();
  const mode = searchParams.get("mode") === "signup" ? "signup" : "login";
  const [identifier, setIdentifier] = useState("");
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const { toast } = useToast();
  const busyIntent = navigation.state === "submitting" ? navigation.formData?.get("intent") : null;
  // Each form is checked with the schema the server applies; an answer's field problem shows on its form.
  const login = useFormCheck(loginSchema, { title: "Validation Error", answer: result?.intent === "login" ? result : null });
  const signup = useFormCheck(signupSchema, { title: "Validation Error", answer: result?.intent === "signup" ? result : null });
  const resend = useFormCheck(resendSchema, { title: "Validation Error", answer: result?.intent === "resend" ? result : null });
  const { clear: clearLogin } = login;
  const { clear: clearSignup } = signup;

  useEffect(() => {
    if (!result) return;
    toast(result.toast);
    if (result.intent === "signup" && result.ok) setSearchParams({}, { replace: true });
  }, [result, toast, setSearchParams]);

  // A form's messages belong to the mode they were shown in: switching modes clears them (not the
  // first render, which may carry the server's answer to a form sent before scripts ran).
  const [formsMode, setFormsMode] = useState(mode);
  if (mode !== formsMode) {
    setFormsMode(mode);
    clearLogin();
    clearSignup();
  }

  const unverified =
    result?.intent === "login" && !result.ok && result.problem.code === "forbidden" && result.problem.message !== ACCOUNT_SUSPENDED;
  const showResend = mode === "login" && (unverified || result?.intent === "resend");

  return (
    <div className="mx-auto flex min-h-[calc(100dvh-4rem)] max-w-md flex-col justify-center px-4 py-12">
      <Link to="/" className="mb-6 inline-flex items-center gap-2 text-sm text-muted hover:text-white">
        <ArrowLeft className="size-4" aria-hidden /> Back to home
      </Link>
      <Card>
        <h1 className="text-2xl font-bold">{mode === "login" ? "Welcome back" : "Create Account"}</h1>
        <p className="mt-1 text-sm text-muted">
          {mode === "login" ? `Sign in to your ${BRAND} account` : `Join ${BRAND} and get access to the members' hub`}
        </p>

        {mode === "login" ? (
          <Form
            method="post"
            className="mt-6 space-y-4"
            onSubmit={(event) => {
              setIdentifier(String(new FormData(event.currentTarget).get("emailOrUsername") ?? ""));
              login.onSubmit(event);
            }}
            noValidate
          >
            <input type="hidden" name="intent" value="login" />
            {/* Uncontrolled, so whatever is typed before the page hydrates is kept. */}
            <Field label="Email or Username" name="emailOrUsername" autoComplete="username" required error={login.errors.emailOrUsername} />
            <Field
              label="Password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              maxLength={PASSWORD_MAX}
              error={login.errors.password}
            />
            <div className="flex justify-end">
              <Link to="/auth/forgot" className="text-sm text-accent hover:underline">
                Forgot your password?
              </Link>
            </div>
            <Button type="submit" className="w-full" disabled={busyIntent === "login"}>
              {busyIntent === "login" ? "Verifying..." : "Sign In"}
            </Button>
          </Form>
        ) : (
          <Form method="post" className="mt-6 space-y-4" onSubmit={signup.onSubmit} noValidate>
            <input type="hidden" name="intent" value="signup" />
            <Field label="Username" name="username" autoComplete="username" required error={signup.errors.username} />
            <Field label="Email" name="email" type="email" autoComplete="email" required error={signup.errors.email} />
            <NewPasswordField error={signup.errors.password} />
            <Button type="submit" className="w-full" disabled={busyIntent === "signup"}>
              {busyIntent === "signup" ? "Creating Account..." : "Create Account"}
            </Button>
          </Form>
        )}

        {showResend ? (
          <Form method="post" className="mt-6 space-y-3 rounded-lg border border-line bg-panel-2 p-4" onSubmit={resend.onSubmit}>
            <input type="hidden" name="intent" value="resend" />
            <p className="text-sm">Didn't get the verification e-mail? We can send a new link.</p>
            <Field
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              required
              defaultValue={identifier.includes("@") ? identifier : ""}
              error={resend.errors.email}
            />
            <Button type="submit" variant="secondary" className="w-full" disabled={busyIntent === "resend"}>
              {busyIntent === "resend" ? "Sending..." : "Resend verification email"}
            </Button>
          </Form>
        ) : null}

        {loaderData.discord || (mode === "login" && loaderData.passkeys) ? (
          <div className="mt-6 space-y-3">
            <OrDivider />
            {mode === "login" && loaderData.passkeys ? (
              <PasskeySignInButton action="/auth/passkey" label="Sign in with a passkey" cancelled={PASSKEY_CANCELLED} />
            ) : null}
            {loaderData.discord ? (
              <a href="/auth/discord" className={buttonClass("secondary", "md", "w-full")}>
                Continue with Discord
              </a>
            ) : null}
          </div>
        ) : null}

        <p className="mt-6 text-center text-sm text-muted">
          {mode === "login" ? "Don't have an account? " : "Already have an account? "}
          <Link to={mode === "login" ? "?mode=signup" : "?"} replace className="font-semibold text-accent hover:underline">
            {mode === "login" ? "Sign up" : "Sign in"}
          </Link>
        </p>
        <p className="mt-4 text-center text-xs text-muted">
          By continuing you agree to our{" "}
          <a href={LEGAL_PAGES.terms.path} className="underline hover:text-white">
            Terms of Service
          </a>{" "}
          and our{" "}
          <a href={LEGAL_PAGES.privacy.path} className="underline hover:text-white">
            Privacy Policy
          </a>
          .
        </p>
      </Card>
    </div>
  );
}
