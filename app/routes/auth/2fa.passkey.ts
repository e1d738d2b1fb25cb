// POST /auth/2fa/passkey: the second step of a password sign-in, passed with one of the account's
// passkeys instead of a code. Failed attempts count like wrong codes.
import { answerProblem, problemToast, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { redirectWithToast } from "~/http/flash-toast.server";
import { answerCeremonyOptions, readPasskeySignIn } from "~/http/passkeys.server";
import { throttledTitles } from "~/http/retry-after.server";
import { redirectAfterSignIn, refusedSignInTitle } from "~/http/sign-in-redirect.server";
import type { Problem } from "~/lib/result";
import { completeChallengeWithPasskey, secondFactorOptions } from "~/server/accounts/passkey-sign-in.server";
import type { Route } from "./+types/2fa.passkey";
import { callerOf, tokenCookie } from "~/http/caller.server";
import { forgetToken } from "~/server/platform/caller.server";

const titles: ProblemTitles = {
  invalid: "Passkey Error",
  // A passkey that did not work names the passkey field; a sign-in that is gone names none.
  unauthenticated: (problem) => (problem.field ? "Passkey not accepted" : "Sign in again"),
  forbidden: refusedSignInTitle,
  "not-found": "No Passkeys",
  unavailable: "Passkeys Unavailable",
  ...throttledTitles,
};

/** A sign-in that is gone (expired, too many failures, the account suspended) starts over on /auth, and is told why. */
const isGone = (problem: Problem) => (problem.code === "unauthenticated" && !problem.field) || problem.code === "forbidden";

function signInAgain(problem: Problem) {
  const headers = new Headers([
    ["Set-Cookie", tokenCookie(forgetToken("challenge"))],
    ["Set-Cookie", tokenCookie(forgetToken("ceremony"))],
  ]);
  return redirectWithToast("/auth", problemToast(problem, titles), { headers });
}

export async function action({ request, context }: Route.ActionArgs) {
  const read = await readPasskeySignIn(request, context, titles);
  if ("refused" in read) return read.refused;
  const { form, rp } = read;
  const { db } = app(context);
  if (form.intent === "options") {
    const options = await secondFactorOptions(db, rp, callerOf(request));
    if (!options.ok && isGone(options.problem)) return signInAgain(options.problem);
    return answerCeremonyOptions(options, titles);
  }
  const result = await completeChallengeWithPasskey(db, rp, callerOf(request), form.response);
  if (result.ok) return redirectAfterSignIn(request, result.value, [forgetToken("challenge"), forgetToken("ceremony")]);
  if (isGone(result.problem)) return signInAgain(result.problem);
  return answerProblem(result.problem, { titles, intent: form.intent, headers: { "Set-Cookie": tokenCookie(forgetToken("ceremony")) } });
}
