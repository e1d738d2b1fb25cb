// The route edge of passkey ceremonies: the relying party a request is for, and the answer that
// hands the browser its options together with the cookie naming the ceremony they belong to.
import type { RouterContextProvider } from "react-router";
import { ok, type Result } from "~/lib/result";
import { relyingParty } from "../server/accounts/passkeys.server";
import { answer, answerProblem, type ProblemTitles } from "./answer.server";
import { app } from "./context.server";

/** Who passkeys are made for and checked against on this request (decision 028). */
export function relyingPartyFor(context: Readonly<RouterContextProvider>, request: Request) {
  return relyingParty(app(context).env, request);
}

/** The options of a ceremony the browser is about to run, with its cookie; or the problem. */
export function answerCeremonyOptions<T>(result: Result<{ options: T; cookie: string }>, titles: ProblemTitles) {
  if (!result.ok) return answerProblem(result.problem, { titles, intent: "options" });
  return answer(ok(result.value.options), {
    success: { title: "Waiting for your passkey" },
    intent: "options",
    headers: { "Set-Cookie": result.value.cookie },
  });
}
