// The route edge of passkey ceremonies: the relying party a request is for, and the answer that
// hands the browser its options together with the cookie naming the ceremony they belong to.
import type { TokenChange } from "~/server/platform/caller.server";
import type { RouterContextProvider } from "react-router";
import { ok, type Result } from "~/lib/result";
import { passkeySignInSchema } from "~/lib/schemas/passkeys";
import { relyingParty } from "../server/accounts/passkey-ceremonies.server";
import { answer, answerInvalid, answerProblem, type ProblemTitles } from "./answer.server";
import { app } from "./context.server";
import { readSubmission } from "./submission.server";
import { callerOf, tokenCookie } from "./caller.server";

/** Who passkeys are made for and checked against on this request (decision 028). */
export function relyingPartyFor(context: Readonly<RouterContextProvider>, request: Request) {
  return relyingParty(app(context).env, callerOf(request));
}

/** The options of a ceremony the browser is about to run, with its cookie; or the problem. */
export function answerCeremonyOptions<T>(result: Result<{ options: T; token: TokenChange }>, titles: ProblemTitles) {
  if (!result.ok) return answerProblem(result.problem, { titles, intent: "options" });
  return answer(ok(result.value.options), {
    success: { title: "Waiting for your passkey" },
    intent: "options",
    headers: { "Set-Cookie": tokenCookie(result.value.token) },
  });
}

/** A passkey sign-in form (alone or as the second step) and the relying party; or the answer saying why not. */
export async function readPasskeySignIn(request: Request, context: Readonly<RouterContextProvider>, titles: ProblemTitles) {
  const submission = await readSubmission(request, passkeySignInSchema);
  if (!submission.ok) return { refused: answerInvalid(submission, { titles }) };
  const rp = relyingPartyFor(context, request);
  if (!rp.ok) return { refused: answerProblem(rp.problem, { titles }) };
  return { form: submission.value, rp: rp.value };
}
