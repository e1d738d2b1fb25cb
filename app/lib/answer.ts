// What a form's action answers: the toast to show, the value or the problem (with every field's
// message when the form was at fault), and which of the page's forms it was for. The route edge
// (app/http/answer.server.ts) writes it; a fetcher in the browser reads it as `useFetcher<Answer>()`.
import type { FieldErrors } from "./form-schema";
import type { Problem } from "./result";
import type { Toast } from "./toast";

export type Answer<T = unknown> =
  | { ok: true; intent?: string; toast: Toast; value: T }
  | { ok: false; intent?: string; toast: Toast; problem: Problem; fieldErrors?: FieldErrors };
