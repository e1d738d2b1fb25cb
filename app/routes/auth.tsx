// /auth: sign in or create an account.
import { ArrowLeft } from "~/components/icons";
import { type FormEvent, useEffect, useState } from "react";
import { data, Form, Link, redirect, useActionData, useNavigation, useSearchParams } from "react-router";
import { useToast } from "~/components/toaster";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { BRAND } from "~/lib/brand";
import { firstIssue, loginSchema, PASSWORD_MAX, signupSchema } from "~/lib/schemas/auth";
import type { Toast } from "~/lib/toast";
import { logIn, resendVerification, signUp } from "~/server/accounts/registration.server";
import { app } from "~/server/platform/context.server";
import { isDiscordConfigured } from "~/server/accounts/discord.server";
import { readFormFields } from "~/server/platform/request-body.server";
import { getViewer } from "~/server/accounts/session.server";
import { passRetryAfter } from "~/server/accounts/throttle.server";
import { toastCookie } from "~/http/flash-toast.server";
import type { Route } from "./+types/auth";

export const meta: Route.MetaFunction = () => [
  { title: `Login or Sign Up | ${BRAND}` },
  { name: "description", content: `Sign in to your ${BRAND} account or create one.` },
  { name: "robots", content: "noindex" },
];

// A throttled sign-in tells the client when it may try again.
export const headers = passRetryAfter;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  if (await getViewer(db, request)) throw redirect("/");
  return { discord: isDiscordConfigured(env) };
}

type ActionResult = { intent: "login" | "signup" | "resend"; toast: Toast; ok: boolean; unverified?: boolean };

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env, ctx } = app(context);
  const deps = { db, mail: env, waitUntil: ctx.waitUntil.bind(ctx) };
  const form = await readFormFields(request);
  const intent = form.intent;

  if (intent === "login") {
    const outcome = await logIn(deps, request, form);
    if (outcome.ok) {
      const headers = new Headers();
      headers.append("Set-Cookie", outcome.setCookie!);
      if (outcome.secondFactor) throw redirect("/auth/2fa", { headers });
      headers.append("Set-Cookie", toastCookie(outcome.toast));
      throw redirect("/", { headers });
    }
    const headers = outcome.retryAfterSeconds ? { "Retry-After": String(outcome.retryAfterSeconds) } : undefined;
    return data<ActionResult>(
      { intent, ok: false, toast: outcome.toast, unverified: outcome.unverified },
      { status: outcome.status, headers },
    );
  }
  if (intent === "signup" || intent === "resend") {
    const outcome = intent === "signup" ? await signUp(deps, request, form) : await resendVerification(deps, request, form);
    const status = outcome.ok ? 200 : outcome.status;
    return data<ActionResult>({ intent, ok: outcome.ok, toast: outcome.toast }, { status });
  }
  return data<ActionResult>(
    { intent: "login", ok: false, toast: { title: "Error", description: "Unknown request", variant: "destructive" } },
    { status: 400 },
  );
}

export default function AuthPage({ loaderData }: Route.ComponentProps) {
  // The mode lives in the URL, so the toggle is a plain link that works before scripts load.
  const [searchParams, setSearchParams] = useSearchParams();
  const mode = searchParams.get("mode") === "signup" ? "signup" : "login";
  const [identifier, setIdentifier] = useState("");
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const { toast } = useToast();
  const busyIntent = navigation.state === "submitting" ? navigation.formData?.get("intent") : null;

  useEffect(() => {
    if (!result) return;
    toast(result.toast);
    if (result.intent === "signup" && result.ok) setSearchParams({}, { replace: true });
  }, [result, toast, setSearchParams]);

  // The same schema the server applies; the first problem is shown before anything is sent.
  function validate(schema: typeof loginSchema | typeof signupSchema) {
    return (event: FormEvent<HTMLFormElement>) => {
      const issue = firstIssue(schema, Object.fromEntries(new FormData(event.currentTarget)));
      if (issue) {
        event.preventDefault();
        toast({ title: "Validation Error", description: issue, variant: "destructive" });
      }
    };
  }

  const showResend = mode === "login" && result?.intent !== "signup" && (result?.unverified || result?.intent === "resend");

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
              validate(loginSchema)(event);
            }}
            noValidate
          >
            <input type="hidden" name="intent" value="login" />
            {/* Uncontrolled, so whatever is typed before the page hydrates is kept. */}
            <Field label="Email or Username" name="emailOrUsername" autoComplete="username" required />
            <Field label="Password" name="password" type="password" autoComplete="current-password" required maxLength={PASSWORD_MAX} />
            <div className="flex justify-end">
              <a href="#" className="text-sm text-accent hover:underline">
                Forgot your password?
              </a>
            </div>
            <Button type="submit" className="w-full" disabled={busyIntent === "login"}>
              {busyIntent === "login" ? "Verifying..." : "Sign In"}
            </Button>
          </Form>
        ) : (
          <Form method="post" className="mt-6 space-y-4" onSubmit={validate(signupSchema)} noValidate>
            <input type="hidden" name="intent" value="signup" />
            <Field label="Username" name="username" autoComplete="username" required />
            <Field label="Email" name="email" type="email" autoComplete="email" required />
            <Field label="Password" name="password" type="password" autoComplete="new-password" required maxLength={PASSWORD_MAX} hint="At least 6 characters" />
            <Button type="submit" className="w-full" disabled={busyIntent === "signup"}>
              {busyIntent === "signup" ? "Creating Account..." : "Create Account"}
            </Button>
          </Form>
        )}

        {showResend ? (
          <Form method="post" className="mt-6 space-y-3 rounded-lg border border-line bg-panel-2 p-4">
            <input type="hidden" name="intent" value="resend" />
            <p className="text-sm">Didn't get the verification e-mail? We can send a new link.</p>
            <Field
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              required
              defaultValue={identifier.includes("@") ? identifier : ""}
            />
            <Button type="submit" variant="secondary" className="w-full" disabled={busyIntent === "resend"}>
              {busyIntent === "resend" ? "Sending..." : "Resend verification email"}
            </Button>
          </Form>
        ) : null}

        {loaderData.discord ? (
          <>
            <div className="my-6 flex items-center gap-3 text-xs text-muted" aria-hidden>
              <span className="h-px flex-1 bg-line" /> or <span className="h-px flex-1 bg-line" />
            </div>
            <a href="/auth/discord" className={buttonClass("secondary", "md", "w-full")}>
              Continue with Discord
            </a>
          </>
        ) : null}

        <p className="mt-6 text-center text-sm text-muted">
          {mode === "login" ? "Don't have an account? " : "Already have an account? "}
          <Link to={mode === "login" ? "?mode=signup" : "?"} replace className="font-semibold text-accent hover:underline">
            {mode === "login" ? "Sign up" : "Sign in"}
          </Link>
        </p>
        <p className="mt-4 text-center text-xs text-muted">
          By continuing you agree to our{" "}
          <a href="#" className="underline hover:text-white">
            Terms of Service
          </a>
          .
        </p>
      </Card>
    </div>
  );
}
